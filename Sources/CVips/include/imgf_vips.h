/* Fixed-argument wrappers around the libvips calls that ImgCore makes. Swift cannot call C variadic functions,
 * so every optional argument we pass is spelled out here and the list is closed with NULL.
 * libvips is not linked: imgf_vips_start() opens it with dlopen and fills a table of its functions,
 * and every wrapper calls through that table. */
#ifndef IMGFETCH_CVIPS_H
#define IMGFETCH_CVIPS_H

#include <vips/vips.h>
#include <glib.h>
#include <zlib.h>

/* From <vips/vector.h>, which is left out: it includes liborc's headers, whose declarations of orc_program_compile
 * and orc_program_free orc_guard.c does without (it takes their names with untyped pointers). */
void vips_vector_set_enabled(gboolean enabled);

#define IMGF_VIPS_SYMBOLS(X) \
    X(vips__argument_get_instance) \
    X(vips_abs) \
    X(vips_addalpha) \
    X(vips_area_unref) \
    X(vips_array_double_new) \
    X(vips_arrayjoin) \
    X(vips_autorot) \
    X(vips_avg) \
    X(vips_black) \
    X(vips_bandjoin2) \
    X(vips_cache_get_max) \
    X(vips_cache_operation_buildp) \
    X(vips_cache_set_max) \
    X(vips_cast_uchar) \
    X(vips_colourspace) \
    X(vips_concurrency_get) \
    X(vips_copy) \
    X(vips_deviate) \
    X(vips_error_buffer) \
    X(vips_error_buffer_copy) \
    X(vips_error_clear) \
    X(vips_error_system) \
    X(vips_extract_area) \
    X(vips_extract_band) \
    X(vips_flatten) \
    X(vips_flip) \
    X(vips_foreign_find_load_buffer) \
    X(vips_foreign_find_save_buffer) \
    X(vips_foreign_find_save_target) \
    X(vips_operation_new) \
    X(vips_foreign_find_load_source) \
    X(vips_gaussblur) \
    X(vips_g_thread_new) \
    X(vips_get_tile_size) \
    X(vips_getpoint) \
    X(vips_gravity) \
    X(vips_guess_libdir) \
    X(vips_icc_transform) \
    X(vips_image_copy_memory) \
    X(vips_image_generate) \
    X(vips_image_get_array_int) \
    X(vips_image_get_bands) \
    X(vips_image_get_concurrency) \
    X(vips_image_get_blob) \
    X(vips_image_get_fields) \
    X(vips_image_get_format) \
    X(vips_image_get_height) \
    X(vips_image_get_int) \
    X(vips_image_get_interpretation) \
    X(vips_image_get_page_height) \
    X(vips_image_get_typeof) \
    X(vips_image_get_width) \
    X(vips_image_get_xoffset) \
    X(vips_image_get_yoffset) \
    X(vips_image_hasalpha) \
    X(vips_image_iskilled) \
    X(vips_image_minimise_all) \
    X(vips_image_new_from_buffer) \
    X(vips_image_new_from_source) \
    X(vips_image_remove) \
    X(vips_image_set_int) \
    X(vips_image_set_kill) \
    X(vips_image_write_to_buffer) \
    X(vips_image_write_to_memory) \
    X(vips_init) \
    X(vips_leak_set) \
    X(vips_linear) \
    X(vips_malloc) \
    X(vips_object_build) \
    X(vips_multiply) \
    X(vips_premultiply) \
    X(vips_reduceh) \
    X(vips_reducev) \
    X(vips_resize) \
    X(vips_region_buffer) \
    X(vips_region_new) \
    X(vips_region_prepare) \
    X(vips_region_prepare_to) \
    X(vips_rot) \
    X(vips_sink_disc) \
    X(vips_smartcrop) \
    X(vips_source_custom_new) \
    X(vips_subtract) \
    X(vips_svgload_buffer) \
    X(vips_thread_shutdown) \
    X(vips_thumbnail_buffer) \
    X(vips_thumbnail_image) \
    X(vips_thumbnail_source) \
    X(vips_unpremultiply) \
    X(vips_vector_set_enabled) \
    X(vips_version) \
    X(vips_foreign_map) \

#define IMGF_VIPS_FIELD(name) __typeof__(name) *name;
/* The libvips functions we use, resolved at run time. */
typedef struct { IMGF_VIPS_SYMBOLS(IMGF_VIPS_FIELD) } imgf_vips_table;

/* The table; only valid after imgf_vips_start() returned 0. */
const imgf_vips_table *imgf_vips(void);

/* Opens libvips, resolves the table and runs vips_init without loading its modules (HEIF, JPEG XL,
 * ImageMagick, PDF, OpenSlide: ~15 ms). Returns 0, or -1 with a message in error. Call once. */
int imgf_vips_start(const char *program, char *error, size_t error_size);

/* The version of the libvips.so.42 this process opens ("8.14.1"), without starting it; 0, or -1 with a message in
 * `version`. */
int imgf_vips_runtime_version(char *version, size_t version_size);

/* How libvips' calls into liborc are made safe beside each other (orc_guard.c): */
typedef enum {
    IMGF_ORC_ABSENT = 0,     /* libvips runs without liborc: nothing to guard */
    IMGF_ORC_SERIALISED = 1, /* libvips' compile and free calls reach orc_guard.c's definitions, under one lock */
    IMGF_ORC_DISABLED = 2,   /* they would bypass it (not exported by this program): libvips' vector path is off */
} imgf_orc_guard;

/* Resolves liborc's functions behind orc_guard.c's definitions and says whether libvips' calls reach them; called
 * by imgf_vips_start after opening libvips and before vips_init. */
imgf_orc_guard imgf_orc_guard_install(void);

/* The PNG tail guard (png_tail_guard.c): libpng's reads of IDAT bytes after its last row are counted, and past this
 * many (64 KiB: they inflate to at most 64 MiB) the decode ends with an error, where libpng would inflate whatever is
 * left of the image data in one loop nothing stops. */
#define IMGF_PNG_TAIL_BYTES (64 << 10)
/* Finds libpng's own functions for the guard's stand-ins; called by imgf_vips_start once libvips (and so libpng) is
 * loaded, before vips_init. */
void imgf_png_guard_install(void);
/* Whether libvips has read a PNG through the guard in this process: only then are its decodes bounded by it (not
 * where the stand-ins are not exported, or libvips reads PNG with another library). */
int imgf_png_guard_seen(void);
/* How many decodes the guard has stopped in this process. */
long imgf_png_guard_trips(void);

/* What imgf_vips_start found (IMGF_ORC_ABSENT before it ran). */
imgf_orc_guard imgf_vips_orc_guard(void);

/* How many liborc compile and free calls went through the lock so far. */
long imgf_orc_guarded_calls(void);
/* How many compiles were answered with code compiled before for a program of the same content (orc_code_cache.c). */
long imgf_orc_reused_compiles(void);
/* How many libvips operations were built without libvips' cache, which keeps none (operation_build.c). */
long imgf_operations_built_directly(void);
/* How many argument look-ups on the calling thread read an object's table without libvips' global lock
 * (argument_lookup.c). */
long imgf_arguments_read_directly(void);
/* Whether look-ups read a made table directly (1, the default) or always through libvips' function and its lock (0). */
void imgf_arguments_read_directly_set(int on);
/* Sends every look-up through libvips when the environment says IMGFETCH_ARGUMENT_LOOKUP=libvips; called by
 * imgf_vips_start. */
void imgf_argument_lookup_read_environment(void);

/* How many signals of a GLib condition found no waiter and woke no one (glib_locks.c). */
long imgf_glib_wakes_skipped(void);
/* How many contended GLib mutex locks were taken while spinning rather than after sleeping (glib_locks.c). */
long imgf_glib_locks_after_spinning(void);
/* Whether GLib's mutex lock spins and its signals skip a condition without waiters (1, the default) or both behave as
 * GLib's own (0). */
void imgf_glib_locks_set(int on);
/* Switches them off when the environment says IMGFETCH_GLIB_LOCKS=glib; called by imgf_vips_start. */
void imgf_glib_locks_read_environment(void);

/* How many disc sinks (a saver's) ran in one libvips thread rather than libvips' thread pool (sink_disc.c). */
long imgf_sinks_in_one_thread(void);
/* Whether a sink of one thread runs in one libvips thread (1, the default) or always in libvips' pool (0). */
void imgf_sink_in_one_thread_set(int on);
/* Switches it off when the environment says IMGFETCH_SINK=libvips; called by imgf_vips_start. */
void imgf_sink_read_environment(void);
/* How many of libvips' horizontal reduces built on the calling thread compute two taps at a time rather than in
 * libvips' scalar loop (reduceh_pairs.c). */
long imgf_reduces_in_pairs(void);
/* Whether an 8-bit horizontal reduce is computed in pairs (1, the default) or always by libvips' loop (0). */
void imgf_reduceh_in_pairs_set(int on);
/* Whether libvips' reduceh was recognised when libvips started (1): only then is it computed in pairs. */
int imgf_reduceh_learned(void);
/* Keeps libvips' loop when the environment says IMGFETCH_REDUCEH=libvips; called by imgf_vips_start. */
void imgf_reduceh_read_environment(void);
/* Builds one small reduce to learn which of libvips' calls are reduceh's; called by imgf_vips_start after vips_init. */
void imgf_reduceh_learn(void);
/* How many loader searches for bytes in memory were answered from the thread's last one (loader_search.c). */
long imgf_loader_searches_answered_again(void);
/* How many loader searches asked the loaders' own checks in libvips' order (loader_search.c). */
long imgf_loader_searches_in_order(void);
/* libvips' own vips_foreign_find_load_buffer (for the tests: the one above stands in for it). */
const char *imgf_libvips_find_load_buffer(const void *data, size_t size);
/* How many saver searches were answered from the thread's last one (saver_search.c). */
long imgf_saver_searches_answered_again(void);
/* Forgets the loader and saver searches' answers: libvips' classes changed (its modules loaded). */
void imgf_foreign_classes_changed(void);
/* Changes with each imgf_foreign_classes_changed: an answer remembered under another is not given again. */
unsigned imgf_foreign_classes_generation(void);

/* Take and let go of the lock orc_guard.c holds around liborc's compile and free (recursive; cheap when nobody
 * compiles). liborc 0.4.33 sets the process umask to 0066 while it maps new code memory, which happens only inside
 * orc_program_compile (fixed in 0.4.41): a file another thread creates at that moment loses its group and others'
 * bits. A file that must get its mode as the umask says (an output) is created holding this lock. */
void imgf_orc_guard_enter(void);
void imgf_orc_guard_leave(void);

/* Points VIPSHOME away from libvips' modules for the rest of the process, so that vips_init skips them (~15 ms)
 * and imgf_vips_load_modules loads them when a format needs them. Call while the process has a single thread:
 * setenv is not safe beside other threads. Without it, vips_init loads every module itself. */
void imgf_vips_prepare_environment(void);
/* Lets glibc's malloc use at most `arenas` arenas (mallopt M_ARENA_MAX), give a block of `mmap_threshold` bytes or
 * more that an arena has no free room for a mapping of its own, returned to the system when freed, instead of
 * growing the arena (M_MMAP_THRESHOLD, which also stops glibc from raising this threshold and the trim threshold as
 * such blocks are freed), and keep up to `trim_threshold` bytes freed at the top of an arena before giving them back
 * (M_TRIM_THRESHOLD; glibc's fixed default is 128 KiB). Each is left alone when the environment sets it
 * (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES' glibc.malloc.arena_max,
 * glibc.malloc.mmap_threshold and glibc.malloc.trim_threshold: glibc honours those itself). Call while the process
 * has a single thread. */
void imgf_tune_malloc(int arenas, int mmap_threshold, int trim_threshold);
/* Sets only the trim threshold, as imgf_tune_malloc does (left alone when the environment sets it); safe beside
 * other threads (mallopt takes the arenas' locks). */
void imgf_tune_malloc_trim(int trim_threshold);
/* The malloc settings imgf_tune_malloc makes: those the environment leaves unset. */
enum { IMGF_MALLOC_ARENAS = 1, IMGF_MALLOC_MMAP = 2, IMGF_MALLOC_TRIM = 4 };
/* Which settings the environment leaves to imgf_tune_malloc, from MALLOC_ARENA_MAX's, MALLOC_MMAP_THRESHOLD_'s,
 * MALLOC_TRIM_THRESHOLD_'s and GLIBC_TUNABLES' values (NULL when unset): IMGF_MALLOC_ flags. */
int imgf_malloc_settings_left(const char *arena_max, const char *mmap_threshold, const char *trim_threshold,
                              const char *tunables);
/* Whether the environment sets a malloc setting itself: its variable's value (NULL when unset) is not empty, or
 * GLIBC_TUNABLES' value (NULL when unset) names its tunable. */
int imgf_malloc_setting_given(const char *variable_value, const char *tunables, const char *tunable);

/* Loads libvips' modules (the loaders and savers for HEIF/AVIF, JPEG XL, PDF, ImageMagick, OpenSlide).
 * Returns how many loaded. Call once, after imgf_vips_start. */
int imgf_vips_load_modules(void);

#define V (imgf_vips())

static inline const char *imgf_error_buffer(void) { return V->vips_error_buffer(); }
static inline void imgf_error_clear(void) { V->vips_error_clear(); }
/* The error buffer's text, taken and cleared in one step under libvips' lock; free with g_free. */
static inline char *imgf_error_take(void) { return V->vips_error_buffer_copy(); }
/* Asks libvips to stop computing `image`: its next region fails with "killed for image" (from any thread). */
static inline void imgf_set_kill(VipsImage *image, int kill) { V->vips_image_set_kill(image, kill); }
/* Another reference to `image`, for a second owner; released with g_object_unref. */
static inline VipsImage *imgf_ref(VipsImage *image) { return (VipsImage *)g_object_ref(image); }
static inline int imgf_width(VipsImage *image) { return V->vips_image_get_width(image); }
static inline int imgf_height(VipsImage *image) { return V->vips_image_get_height(image); }
static inline int imgf_bands(VipsImage *image) { return V->vips_image_get_bands(image); }
static inline int imgf_hasalpha(VipsImage *image) { return V->vips_image_hasalpha(image); }
static inline int imgf_page_height(VipsImage *image) { return V->vips_image_get_page_height(image); }
static inline VipsInterpretation imgf_interpretation(VipsImage *image) { return V->vips_image_get_interpretation(image); }
static inline VipsBandFormat imgf_band_format(VipsImage *image) { return V->vips_image_get_format(image); }
/* The loader libvips would use for bytes in memory: loader_search.c's stand-in, which answers again for the same bytes. */
static inline const char *imgf_find_load_buffer(const void *data, size_t size) { return vips_foreign_find_load_buffer(data, size); }

/* Opens an image lazily: only the header is read until pixels are asked for. */
static inline VipsImage *imgf_open_buffer(const void *buf, size_t len, const char *options) {
    return V->vips_image_new_from_buffer(buf, len, options, NULL);
}

/* Thumbnail straight from encoded bytes, so JPEG and WebP can shrink while loading.
 * size: VipsSize; crop: VipsInteresting; option_string goes to the loader. */
static inline int imgf_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, int height,
                                        int size, int crop, int no_rotate, const char *option_string) {
    return V->vips_thumbnail_buffer(buf, len, out, width, "height", height, "size", size, "crop", crop,
                                 "no_rotate", no_rotate, "option_string", option_string, NULL);
}

/* A source over `length` bytes of the file `descriptor` from `offset` (a cached original's body after the entry's
 * header, or a spooled download), read with pread so that nothing is held in memory. The descriptor is duplicated
 * and closed with the source. NULL when the descriptor can't be duplicated. Unref with imgf_source_unref. */
VipsSource *imgf_source_new_region(int descriptor, gint64 offset, gint64 length);
static inline void imgf_source_unref(VipsSource *source) { if (source) g_object_unref(source); }
static inline const char *imgf_find_load_source(VipsSource *source) { return V->vips_foreign_find_load_source(source); }

/* Opens an image from a source lazily, like imgf_open_buffer. */
static inline VipsImage *imgf_open_source(VipsSource *source, const char *options) {
    return V->vips_image_new_from_source(source, options, NULL);
}

/* Thumbnail from a source, with the arguments of imgf_thumbnail_buffer (shrink-on-load, sequential access). */
static inline int imgf_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                                        int size, int crop, int no_rotate, const char *option_string) {
    return V->vips_thumbnail_source(source, out, width, "height", height, "size", size, "crop", crop,
                                    "no_rotate", no_rotate, "option_string", option_string, NULL);
}

/* Thumbnail of a decoded image, with the arguments of imgf_thumbnail_buffer (no shrink-on-load). */
static inline int imgf_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int size, int crop,
                                       int no_rotate) {
    return V->vips_thumbnail_image(in, out, width, "height", height, "size", size, "crop", crop,
                                   "no_rotate", no_rotate, NULL);
}

static inline int imgf_copy_memory(VipsImage *in, VipsImage **out) {
    *out = V->vips_image_copy_memory(in);
    return *out ? 0 : -1;
}

static inline int imgf_autorot(VipsImage *in, VipsImage **out) { return V->vips_autorot(in, out, NULL); }
static inline int imgf_rot(VipsImage *in, VipsImage **out, VipsAngle angle) { return V->vips_rot(in, out, angle, NULL); }
static inline int imgf_flip(VipsImage *in, VipsImage **out, VipsDirection direction) { return V->vips_flip(in, out, direction, NULL); }
/* precision: VipsPrecision (VIPS_PRECISION_APPROXIMATE is many times faster for a wide blur). */
static inline int imgf_gaussblur(VipsImage *in, VipsImage **out, double sigma, int precision) {
    return V->vips_gaussblur(in, out, sigma, "precision", precision, NULL);
}
/* Colour bands times alpha / 255 (float out), and back: what filters that mix neighbours need with alpha. */
static inline int imgf_premultiply(VipsImage *in, VipsImage **out) { return V->vips_premultiply(in, out, NULL); }
static inline int imgf_unpremultiply(VipsImage *in, VipsImage **out) { return V->vips_unpremultiply(in, out, NULL); }
static inline int imgf_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return V->vips_colourspace(in, out, space, NULL);
}
static inline int imgf_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return V->vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
}
static inline int imgf_cast_uchar(VipsImage *in, VipsImage **out) { return V->vips_cast_uchar(in, out, NULL); }
static inline int imgf_smartcrop(VipsImage *in, VipsImage **out, int width, int height, VipsInteresting interesting) {
    return V->vips_smartcrop(in, out, width, height, "interesting", interesting, NULL);
}
/* Where a cut (vips_extract_area, vips_smartcrop) took its output from: left and top are minus these. */
static inline int imgf_xoffset(VipsImage *image) { return V->vips_image_get_xoffset(image); }
static inline int imgf_yoffset(VipsImage *image) { return V->vips_image_get_yoffset(image); }
static inline int imgf_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return V->vips_extract_area(in, out, left, top, width, height, NULL);
}
/* libvips' horizontal reduce by `hshrink` (>= 1) with `kernel`, as vips_resize uses it. */
static inline int imgf_reduceh(VipsImage *in, VipsImage **out, double hshrink, VipsKernel kernel) {
    return V->vips_reduceh(in, out, hshrink, "kernel", kernel, NULL);
}
static inline int imgf_extract_bands(VipsImage *in, VipsImage **out, int band, int n) {
    return V->vips_extract_band(in, out, band, "n", n, NULL);
}
static inline int imgf_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) { return V->vips_bandjoin2(a, b, out, NULL); }
static inline int imgf_addalpha(VipsImage *in, VipsImage **out) { return V->vips_addalpha(in, out, NULL); }
/* Flattens alpha away onto `background`: one value per colour band (1 for grey, 3 for sRGB). */
static inline int imgf_flatten(VipsImage *in, VipsImage **out, const double *background, int n) {
    VipsArrayDouble *array = V->vips_array_double_new(background, n);
    int result = V->vips_flatten(in, out, "background", array, NULL);
    V->vips_area_unref(VIPS_AREA(array));
    return result;
}
/* Centres `in` on a width x height canvas of `background` (one value per band). */
static inline int imgf_gravity_centre(VipsImage *in, VipsImage **out, int width, int height, const double *background, int n) {
    VipsArrayDouble *array = V->vips_array_double_new(background, n);
    int result = V->vips_gravity(in, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height,
                                 "extend", VIPS_EXTEND_BACKGROUND, "background", array, NULL);
    V->vips_area_unref(VIPS_AREA(array));
    return result;
}
/* out = in * a + b, band by band; a and b have n elements. */
static inline int imgf_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return V->vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}
static inline int imgf_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
    return V->vips_multiply(left, right, out, NULL);
}
static inline int imgf_svg_buffer(void *buf, size_t len, VipsImage **out) {
    return V->vips_svgload_buffer(buf, len, out, NULL);
}
/* Splits a tall all-frames image into one image per page. */
static inline int imgf_arrayjoin_vertical(VipsImage **in, VipsImage **out, int n) {
    return V->vips_arrayjoin(in, out, n, "across", 1, NULL);
}
/* suffix is like ".webp[Q=80,strip]"; the buffer is freed with g_free. */
static inline int imgf_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return V->vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}
/* The pixels of an uncompressed image as one block (freed with g_free), or NULL with libvips' error set. */
static inline void *imgf_write_to_memory(VipsImage *in, size_t *len) {
    return V->vips_image_write_to_memory(in, len);
}
static inline int imgf_avg(VipsImage *in, double *out) { return V->vips_avg(in, out, NULL); }
static inline int imgf_subtract(VipsImage *left, VipsImage *right, VipsImage **out) { return V->vips_subtract(left, right, out, NULL); }
static inline int imgf_abs(VipsImage *in, VipsImage **out) { return V->vips_abs(in, out, NULL); }
static inline int imgf_deviate(VipsImage *in, double *out) { return V->vips_deviate(in, out, NULL); }
/* The band values of one pixel; *vector is freed with g_free. */
static inline int imgf_getpoint(VipsImage *in, double **vector, int *n, int x, int y) {
    return V->vips_getpoint(in, vector, n, x, y, NULL);
}
/* zlib's CRC-32 (PNG chunks are checked with it before any decoding). */
static inline unsigned long imgf_crc32(unsigned long crc, const void *data, unsigned int length) {
    return crc32(crc, (const Bytef *)data, length);
}
/* zlib's Adler-32 (tests write uncompressed PNGs with it). */
static inline unsigned long imgf_adler32(unsigned long adler, const void *data, unsigned int length) {
    return adler32(adler, (const Bytef *)data, length);
}

/* Hashes with glib: returns a newly allocated lower-case hex string, free with g_free. */
static inline char *imgf_sha256_hex(const void *data, size_t len) {
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}


/* The wrappers that read and set an image's metadata fields. */
#include "imgf_vips_fields.h"

#undef V
#endif
