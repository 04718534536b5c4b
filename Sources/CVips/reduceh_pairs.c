/* libvips' horizontal reduce of 8-bit pixels, computed two taps at a time for all bands at once.
 *
 * Every thumbnail narrower than its image goes through libvips' reduceh, whose 8-bit loop in 8.14 is scalar C: for
 * each output pixel and band it multiplies n_point input values by a fixed-point coefficient (a 1.6 shrink with
 * Lanczos 3 has 11), behind a switch on the format for every pixel. For a small image to 200 px it is 18 % of a
 * line's CPU (`perf record`, 2,000 of the small-image workload's JPEGs, `-j 1`): the largest single cost of the
 * line. Here each input row is first laid out as pairs of neighbouring pixels in 16 bits (every pixel with the next,
 * band by band), so that an output pixel costs one SSE2 multiply-add of 16-bit pairs for every two points of the
 * kernel, all bands at once. The sums are the same integers, so the pixels are libvips' own, byte for byte: integer
 * sums do not depend on their order, and the rounding and clipping are libvips' ((sum + 2048) >> 12, then 0 to 255).
 *
 * libvips' generate function for reduceh is static, so this definition takes the name of vips_image_generate, which
 * reduceh's build calls to attach it (the programs that start libvips export it, as operation_build.c's), and gives
 * libvips' own function another generate function for the same image when the call is reduceh's: its input 8-bit
 * and uncoded, 1 to 4 bands, every coefficient within 16 bits. Which calls are reduceh's is learned once, when
 * libvips starts (imgf_reduceh_learn): a small reduce is built and its generate function remembered, once the object
 * it passes is seen to be a VipsReduceh laid out as below (the type's instance size, the shrink, kernel and points
 * it was built with, its input and output images). Anything else (another libvips, another layout, a CPU without
 * SSE2) keeps libvips' loop. IMGFETCH_REDUCEH=libvips in the environment (or imgf_reduceh_in_pairs_set(0)) keeps it
 * too, for comparison. */
#include "imgf_vips.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define IMGF_REDUCEH_PAIRS 1
#endif

/* libvips 8.14's VipsReduceh (resample/reduceh.cpp), which is private: checked against the type's instance size and
 * the probe's own values before any use. */
typedef struct {
    VipsOperation parent_instance;
    VipsImage *in; /* VipsResample's */
    VipsImage *out;
    double hshrink;
    double gap;
    VipsKernel kernel;
    int n_point;
    double hoffset;
    int *matrixi[VIPS_TRANSFORM_SCALE + 1];
    double *matrixf[VIPS_TRANSFORM_SCALE + 1];
    gboolean centre;
} reduceh_layout;

/* What the generate function here is given in place of the VipsReduceh: the object (which lives as long as its
 * output image, and with it this block, freed with the object) and each of its 65 coefficient tables as pairs of
 * 16-bit values, the last one of an odd count paired with 0, each pair in all four 32-bit lanes of a vector. */
typedef struct {
    const reduceh_layout *reduceh;
    int pairs;
    /* Set (release) once the tables are made, read (acquire) by each generate call: libvips hands the image to its
     * workers through GLib's locks, which ThreadSanitizer does not see. */
    atomic_int made;
#ifdef IMGF_REDUCEH_PAIRS
    __m128i coefficients[];
#endif
} reduceh_pairs;

/* A statistic for the tests, per thread (the one that builds the reduce), as argument_lookup.c's. */
static _Thread_local long reduces_in_pairs;
static atomic_int pairs_off;
/* libvips' reduceh generate function, once learned (NULL: never substituted). */
static _Atomic(VipsGenerateFn) libvips_reduceh_generate;
/* While this thread learns it: the last generate function and object seen. */
static _Thread_local int learning;
static _Thread_local VipsGenerateFn learned_generate;
static _Thread_local void *learned_object;

#ifdef IMGF_REDUCEH_PAIRS
/* One pixel's bands in the low bytes, reading only its own. */
static inline __m128i pixel_at(const VipsPel *p, const int bands) {
    uint32_t value = 0;
    memcpy(&value, p, (size_t)bands);
    return _mm_cvtsi32_si128((int)value);
}

/* The pixels at p and p + bands, band by band (first, second, first, second, ...) as 16-bit values. With `wide`,
 * one 8-byte load, which may read past the two pixels (the caller knows those bytes are there). */
static inline __m128i pixel_pair(const VipsPel *p, const int bands, const int wide) {
    const __m128i zero = _mm_setzero_si128();
    if (wide) {
        __m128i both = _mm_loadl_epi64((const __m128i *)p);
        return _mm_unpacklo_epi8(_mm_unpacklo_epi8(both, _mm_srli_epi64(both, 8 * bands)), zero);
    }
    return _mm_unpacklo_epi8(_mm_unpacklo_epi8(pixel_at(p, bands), pixel_at(p + bands, bands)), zero);
}

/* Each pixel of an input row of `width` pixels with the next one as pixel_pair gives them (the last one with 0),
 * so that an output pixel costs one multiply-add for every two points of the kernel. */
static inline void pair_row(__m128i *restrict paired, const VipsPel *row, int width, const int bands) {
    const int wide_end = width - (8 + bands - 1) / bands; /* pixels whose 8-byte load stays in the row */
    int j = 0;
    for (; j < wide_end; j++) paired[j] = pixel_pair(row + j * bands, bands, 1);
    for (; j < width - 1; j++) paired[j] = pixel_pair(row + j * bands, bands, 0);
    const __m128i zero = _mm_setzero_si128();
    paired[width - 1] = _mm_unpacklo_epi8(_mm_unpacklo_epi8(pixel_at(row + (width - 1) * bands, bands), zero), zero);
}

/* One row of output as libvips' vips_reduceh_gen computes it: the same position and table for each pixel, the sum
 * of its points times their coefficients rounded and clipped as reduceh_unsigned_int_tab does. `paired` holds the
 * input row from pixel `first` on. A kernel of an odd count reads one pixel past its last point, times 0. */
static inline void reduce_row(VipsPel *restrict q, const __m128i *paired, int first, int width, double x_position,
                              const reduceh_pairs *pairs, const int bands) {
    const double hshrink = pairs->reduceh->hshrink;
    const int count = pairs->pairs;
    const __m128i zero = _mm_setzero_si128(), half = _mm_set1_epi32(1 << (VIPS_INTERPOLATE_SHIFT - 1));
    for (int x = 0; x < width; x++) {
        const int ix = (int)x_position;
        const int sx = x_position * VIPS_TRANSFORM_SCALE * 2;
        const int six = sx & (VIPS_TRANSFORM_SCALE * 2 - 1);
        const int tx = (six + 1) >> 1;
        const __m128i *c = pairs->coefficients + (size_t)tx * (size_t)count;
        const __m128i *p = paired + (ix - first);
        __m128i sum = zero;
        for (int k = 0; k < count; k++) sum = _mm_add_epi32(sum, _mm_madd_epi16(p[2 * k], c[k]));
        sum = _mm_srai_epi32(_mm_add_epi32(sum, half), VIPS_INTERPOLATE_SHIFT);
        const uint32_t out = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(sum, zero), zero));
        /* Four bytes while three pixels follow (they are written after), else the pixel's own. */
        memcpy(q + x * bands, &out, x + 3 < width ? 4 : (size_t)bands);
        x_position += hshrink;
    }
}

/* The rows of `r` from the input region, prepared, through `paired` (room for one row). */
static inline void reduce_rows(VipsRegion *out_region, const VipsRegion *input, __m128i *paired,
                               const reduceh_pairs *pairs, const int bands) {
    const reduceh_layout *reduceh = pairs->reduceh;
    const VipsRect *r = &out_region->valid;
    for (int y = 0; y < r->height; y++) {
        VipsPel *q = out_region->data + (size_t)(r->top + y - out_region->valid.top) * (size_t)out_region->bpl
                   + (size_t)(r->left - out_region->valid.left) * (size_t)bands;
        const VipsPel *row = input->data + (size_t)(r->top + y - input->valid.top) * (size_t)input->bpl;
        pair_row(paired, row, input->valid.width, bands);
        double x_position = (r->left + 0.5) * reduceh->hshrink - 0.5 - reduceh->hoffset;
        reduce_row(q, paired, input->valid.left, r->width, x_position, pairs, bands);
    }
}

static int reduceh_generate_in_pairs(VipsRegion *out_region, void *sequence, void *a, void *b, gboolean *stop) {
    (void)stop;
    const VipsImage *in = a;
    reduceh_pairs *pairs = b;
    if (!atomic_load_explicit(&pairs->made, memory_order_acquire)) return -1;
    const reduceh_layout *reduceh = pairs->reduceh;
    VipsRegion *input = sequence;
    const VipsRect *r = &out_region->valid;
    VipsRect s;
    s.left = r->left * reduceh->hshrink - reduceh->hoffset;
    s.top = r->top;
    s.width = r->width * reduceh->hshrink + reduceh->n_point;
    s.height = r->height;
    if (imgf_vips()->vips_region_prepare(input, &s)) return -1;
    __m128i *paired = g_try_malloc(sizeof(__m128i) * (size_t)input->valid.width);
    if (!paired) {
        imgf_vips()->vips_error_system(ENOMEM, "reduceh", "%s", "cannot allocate a row");
        return -1;
    }
    switch (in->Bands) {
    case 1: reduce_rows(out_region, input, paired, pairs, 1); break;
    case 2: reduce_rows(out_region, input, paired, pairs, 2); break;
    case 3: reduce_rows(out_region, input, paired, pairs, 3); break;
    default: reduce_rows(out_region, input, paired, pairs, 4); break;
    }
    g_free(paired);
    return 0;
}

/* The pairs for a reduceh about to generate from `in`, kept on the object; NULL where libvips' loop must run. */
static reduceh_pairs *pairs_for(const VipsImage *in, const reduceh_layout *reduceh) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE || in->Bands < 1 || in->Bands > 4)
        return NULL;
    const int n = reduceh->n_point, count = (n + 1) / 2;
    if (n < 1) return NULL;
    /* glibc's malloc aligns to 16 bytes, as the vectors need. */
    size_t vectors = (size_t)count * (VIPS_TRANSFORM_SCALE + 1);
    reduceh_pairs *pairs = g_try_malloc(sizeof *pairs + sizeof(__m128i) * vectors);
    if (!pairs) return NULL;
    atomic_init(&pairs->made, 0);
    pairs->reduceh = reduceh;
    pairs->pairs = count;
    for (int table = 0; table <= VIPS_TRANSFORM_SCALE; table++)
        for (int k = 0; k < count; k++) {
            const int left = reduceh->matrixi[table][2 * k];
            const int right = 2 * k + 1 < n ? reduceh->matrixi[table][2 * k + 1] : 0;
            if (left < INT16_MIN || left > INT16_MAX || right < INT16_MIN || right > INT16_MAX) {
                g_free(pairs);
                return NULL;
            }
            const uint32_t pair = (uint16_t)left | (uint32_t)(uint16_t)right << 16;
            pairs->coefficients[table * count + k] = _mm_set1_epi32((int)pair);
        }
    atomic_store_explicit(&pairs->made, 1, memory_order_release);
    g_object_set_data_full((GObject *)reduceh, "imgf-reduceh-pairs", pairs, g_free);
    return pairs;
}
#endif

int vips_image_generate(VipsImage *image, VipsStartFn start_fn, VipsGenerateFn generate_fn, VipsStopFn stop_fn,
                        void *a, void *b) {
    if (learning) {
        learned_generate = generate_fn;
        learned_object = b;
    }
#ifdef IMGF_REDUCEH_PAIRS
    else if (generate_fn && generate_fn == atomic_load_explicit(&libvips_reduceh_generate, memory_order_acquire)
             && !atomic_load_explicit(&pairs_off, memory_order_relaxed)) {
        reduceh_pairs *pairs = pairs_for(a, b);
        if (pairs) {
            generate_fn = reduceh_generate_in_pairs;
            b = pairs;
            reduces_in_pairs++;
        }
    }
#endif
    return imgf_vips()->vips_image_generate(image, start_fn, generate_fn, stop_fn, a, b);
}

void imgf_reduceh_learn(void) {
#ifdef IMGF_REDUCEH_PAIRS
    const imgf_vips_table *vips = imgf_vips();
    /* The layout below is 8.14's. */
    if (vips->vips_version(0) != 8 || vips->vips_version(1) != 14) return;
    GType type = g_type_from_name("VipsReduceh");
    GTypeQuery query = { 0 };
    if (type) g_type_query(type, &query);
    if (!type || query.instance_size != sizeof(reduceh_layout)) return;
    VipsImage *black = NULL, *reduced = NULL;
    learning = 1;
    learned_generate = NULL;
    learned_object = NULL;
    int failed = vips->vips_black(&black, 16, 2, "bands", 3, NULL)
              || vips->vips_reduceh(black, &reduced, 1.5, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    learning = 0;
    const reduceh_layout *reduceh = learned_object;
    /* 9 points: libvips' 2 * rint(3 * 1.5) + 1. */
    if (!failed && reduceh && G_TYPE_CHECK_INSTANCE_TYPE(reduceh, type) && reduceh->in == black
        && reduceh->out == reduced && reduceh->hshrink == 1.5 && reduceh->kernel == VIPS_KERNEL_LANCZOS3
        && reduceh->n_point == 9)
        atomic_store_explicit(&libvips_reduceh_generate, learned_generate, memory_order_release);
    if (reduced) g_object_unref(reduced);
    if (black) g_object_unref(black);
    vips->vips_error_clear();
#endif
}

int imgf_reduceh_learned(void) { return atomic_load_explicit(&libvips_reduceh_generate, memory_order_acquire) != NULL; }

long imgf_reduces_in_pairs(void) { return reduces_in_pairs; }

void imgf_reduceh_in_pairs_set(int on) { atomic_store_explicit(&pairs_off, !on, memory_order_relaxed); }

void imgf_reduceh_read_environment(void) {
    const char *reduceh = getenv("IMGFETCH_REDUCEH");
    if (reduceh && strcmp(reduceh, "libvips") == 0) imgf_reduceh_in_pairs_set(0);
}
