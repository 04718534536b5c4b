/* The libvips wrappers that read and set an image's metadata fields (ints, int arrays, blobs, names), calling
 * through imgf_vips.h's table of libvips' functions. That header includes this one at its end; included on its own,
 * this one includes that header instead, which then includes it. */
#ifndef IMGFETCH_CVIPS_FIELDS_H
#define IMGFETCH_CVIPS_FIELDS_H
#ifndef IMGFETCH_CVIPS_H
#undef IMGFETCH_CVIPS_FIELDS_H
#include "imgf_vips.h"
#else

/* A new image sharing in's pixels, with the int field `name` set to value (in itself is left as it is). */
static inline int imgf_copy_setting_int(VipsImage *in, VipsImage **out, const char *name, int value) {
    if (V->vips_copy(in, out, NULL)) return -1;
    V->vips_image_set_int(*out, name, value);
    return 0;
}
/* Sets the int field `name` of the image itself (only for an image no one else holds). */
static inline void imgf_set_int(VipsImage *image, const char *name, int value) {
    V->vips_image_set_int(image, name, value);
}
static inline int imgf_copy_page_height(VipsImage *in, VipsImage **out, int page_height) {
    return imgf_copy_setting_int(in, out, "page-height", page_height);
}
/* The threads libvips' thread pool gives a sink of this image: its "concurrency" field (VIPS_META_CONCURRENCY)
 * when set, else fallback. */
static inline int imgf_image_concurrency(VipsImage *image, int fallback) {
    return V->vips_image_get_concurrency(image, fallback);
}
static inline int imgf_get_int(VipsImage *image, const char *name, int fallback) {
    int value = fallback;
    if (V->vips_image_get_typeof(image, name) && V->vips_image_get_int(image, name, &value)) return fallback;
    return value;
}
/* Copies an int-array field (e.g. "delay") into out, up to max values; returns the count or -1. */
static inline int imgf_get_int_array(VipsImage *image, const char *name, int *out, int max) {
    int *values = NULL, n = 0;
    if (!V->vips_image_get_typeof(image, name) || V->vips_image_get_array_int(image, name, &values, &n)) return -1;
    for (int i = 0; i < n && i < max; i++) out[i] = values[i];
    return n;
}
/* The names of the image's metadata fields, NULL-terminated; free with g_strfreev. */
static inline gchar **imgf_field_names(VipsImage *image) { return V->vips_image_get_fields(image); }
/* A new image sharing in's pixels, with every metadata field whose name `drop` accepts removed. */
static inline int imgf_copy_without_fields(VipsImage *in, VipsImage **out, int (*drop)(const char *name)) {
    if (V->vips_copy(in, out, NULL)) return -1;
    gchar **names = V->vips_image_get_fields(*out);
    for (int i = 0; names && names[i]; i++)
        if (drop(names[i])) V->vips_image_remove(*out, names[i]);
    g_strfreev(names);
    return 0;
}
static inline int imgf_has_field(VipsImage *image, const char *name) { return V->vips_image_get_typeof(image, name) != 0; }
/* A blob field's bytes (owned by the image) and length, or NULL when there is no such field. */
static inline const void *imgf_get_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!V->vips_image_get_typeof(image, name) || V->vips_image_get_blob(image, name, &data, length)) return NULL;
    return data;
}
#endif
#endif
