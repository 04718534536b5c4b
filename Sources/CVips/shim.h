/* Fixed-argument wrappers around the variadic libvips calls that ImgCore uses.
 * Swift cannot call C variadic functions, so every optional argument we pass
 * is spelled out here and the list is closed with NULL. */
#ifndef IMGFETCH_CVIPS_SHIM_H
#define IMGFETCH_CVIPS_SHIM_H

#include <vips/vips.h>
#include <glib.h>

/* Opens an image lazily: only the header is read until pixels are asked for. */
static inline VipsImage *imgf_open_buffer(const void *buf, size_t len, const char *options) {
    return vips_image_new_from_buffer(buf, len, options, NULL);
}

/* Thumbnail straight from encoded bytes, so JPEG and WebP can shrink while loading.
 * size: VipsSize; crop: VipsInteresting; option_string goes to the loader. */
static inline int imgf_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, int height,
                                        int size, int crop, int no_rotate, const char *option_string) {
    return vips_thumbnail_buffer(buf, len, out, width, "height", height, "size", size, "crop", crop,
                                 "no_rotate", no_rotate, "option_string", option_string, NULL);
}

static inline int imgf_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int size, int crop) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", size, "crop", crop, NULL);
}

static inline int imgf_copy_memory(VipsImage *in, VipsImage **out) {
    *out = vips_image_copy_memory(in);
    return *out ? 0 : -1;
}

static inline int imgf_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
static inline int imgf_rot(VipsImage *in, VipsImage **out, VipsAngle angle) { return vips_rot(in, out, angle, NULL); }
static inline int imgf_gaussblur(VipsImage *in, VipsImage **out, double sigma) { return vips_gaussblur(in, out, sigma, NULL); }
static inline int imgf_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}
static inline int imgf_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
}
static inline int imgf_cast_uchar(VipsImage *in, VipsImage **out) { return vips_cast_uchar(in, out, NULL); }
static inline int imgf_smartcrop(VipsImage *in, VipsImage **out, int width, int height, VipsInteresting interesting) {
    return vips_smartcrop(in, out, width, height, "interesting", interesting, NULL);
}
static inline int imgf_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}
static inline int imgf_extract_bands(VipsImage *in, VipsImage **out, int band, int n) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}
static inline int imgf_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_bandjoin2(a, b, out, NULL); }
static inline int imgf_addalpha(VipsImage *in, VipsImage **out) { return vips_addalpha(in, out, NULL); }
static inline int imgf_flatten(VipsImage *in, VipsImage **out, double r, double g, double b) {
    double bg[3] = { r, g, b };
    VipsArrayDouble *array = vips_array_double_new(bg, 3);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
/* out = in * a + b, band by band; a and b have n elements. */
static inline int imgf_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}
static inline int imgf_multiply(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_multiply(left, right, out, NULL);
}
static inline int imgf_svg_buffer(void *buf, size_t len, VipsImage **out) {
    return vips_svgload_buffer(buf, len, out, NULL);
}
/* Splits a tall all-frames image into one image per page. */
static inline int imgf_arrayjoin_vertical(VipsImage **in, VipsImage **out, int n) {
    return vips_arrayjoin(in, out, n, "across", 1, NULL);
}
/* suffix is like ".webp[Q=80,strip]"; the buffer is freed with g_free. */
static inline int imgf_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}
static inline int imgf_black(VipsImage **out, int width, int height, int bands) {
    return vips_black(out, width, height, "bands", bands, NULL);
}
static inline int imgf_copy(VipsImage *in, VipsImage **out) { return vips_copy(in, out, NULL); }
static inline int imgf_copy_page_height(VipsImage *in, VipsImage **out, int page_height) {
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_set_int(*out, "page-height", page_height);
    return 0;
}
static inline int imgf_get_int(VipsImage *image, const char *name, int fallback) {
    int value = fallback;
    if (vips_image_get_typeof(image, name) && vips_image_get_int(image, name, &value)) return fallback;
    return value;
}
/* Copies an int-array field (e.g. "delay") into out, up to max values; returns the count or -1. */
static inline int imgf_get_int_array(VipsImage *image, const char *name, int *out, int max) {
    int *values = NULL, n = 0;
    if (!vips_image_get_typeof(image, name) || vips_image_get_array_int(image, name, &values, &n)) return -1;
    for (int i = 0; i < n && i < max; i++) out[i] = values[i];
    return n;
}
static inline int imgf_has_field(VipsImage *image, const char *name) { return vips_image_get_typeof(image, name) != 0; }
static inline int imgf_remove_field(VipsImage *image, const char *name) { return vips_image_remove(image, name); }
static inline int imgf_avg(VipsImage *in, double *out) { return vips_avg(in, out, NULL); }
static inline int imgf_subtract(VipsImage *left, VipsImage *right, VipsImage **out) { return vips_subtract(left, right, out, NULL); }
static inline int imgf_abs(VipsImage *in, VipsImage **out) { return vips_abs(in, out, NULL); }
static inline int imgf_deviate(VipsImage *in, double *out) { return vips_deviate(in, out, NULL); }
/* The band values of one pixel; *vector is freed with g_free. */
static inline int imgf_getpoint(VipsImage *in, double **vector, int *n, int x, int y) {
    return vips_getpoint(in, vector, n, x, y, NULL);
}
static inline void imgf_unref(VipsImage *image) { if (image) g_object_unref(image); }

/* Hashes with glib: returns a newly allocated lower-case hex string, free with g_free. */
static inline char *imgf_sha256_hex(const void *data, size_t len) {
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

#endif
