/* libvips 8.14's thumbnail, after its load, for the images it would not convert: what vips_thumbnail_build does to
 * a loaded image that is one page of 8-bit uncoded pixels, 1-band B_W or 3-band sRGB, without alpha and not to be
 * rotated, when no profile is given and the resize is not linear (imgfetch's thumbnails). For such an image
 * thumbnail's two colour conversions (to the processing space and back) are copies, it neither premultiplies nor
 * rotates, and what is left is this: the shrink of vips_thumbnail_calculate_shrink, vips_resize with it, and a crop
 * with vips_smartcrop of what is in memory. The pixels are thumbnail's own, byte for byte; the operations and
 * images thumbnail builds around them (the operation itself, its header read, the conversions and the final copy)
 * are not built, a fifth of a small JPEG's rendering.
 *
 * The caller loads the input as thumbnail would (JPEG: its shrink-on-load factor, sequential access). */
#include "imgf_thumbnail.h"
#include "imgf_vips.h"

/* vips_resize's default gap in 8.14 (resize.c), which it passes to its reduces. */
#define IMGF_RESIZE_GAP 2.0

/* A statistic for the tests, per thread as a rendering is. */
static _Thread_local long reduced_alone;

long imgf_thumbnail_reduced_alone(void) { return reduced_alone; }

/* The shrink of each axis that fits (or, with a crop, covers) width x height: vips_thumbnail_calculate_shrink
 * without rotation. */
static void plain_shrink(int input_width, int input_height, int width, int height, VipsSize size,
                         VipsInteresting crop, double *hshrink, double *vshrink) {
    *hshrink = (double)input_width / width;
    *vshrink = (double)input_height / height;
    int follows_width = crop != VIPS_INTERESTING_NONE ? *hshrink < *vshrink : *hshrink >= *vshrink;
    if (size != VIPS_SIZE_FORCE) {
        if (follows_width) *vshrink = *hshrink;
        else *hshrink = *vshrink;
    }
    if (size == VIPS_SIZE_UP) {
        *hshrink = VIPS_MIN(1, *hshrink);
        *vshrink = VIPS_MIN(1, *vshrink);
    } else if (size == VIPS_SIZE_DOWN) {
        *hshrink = VIPS_MAX(1, *hshrink);
        *vshrink = VIPS_MAX(1, *vshrink);
    }
    *hshrink = VIPS_MIN(*hshrink, input_width);
    *vshrink = VIPS_MIN(*vshrink, input_height);
}

/* One of vips_resize's reduces (vips_reducev or vips_reduceh) of *image by shrink, with the kernel and gap vips_resize
 * gives it: *image is replaced by the result (its reference given up); 0, or -1 with *image NULL. */
static int reduce_step(int (*reduce)(VipsImage *, VipsImage **, double, ...), VipsImage **image, double shrink) {
    VipsImage *next = NULL;
    int failed = reduce(*image, &next, shrink, "kernel", VIPS_KERNEL_LANCZOS3, "gap", IMGF_RESIZE_GAP, NULL);
    g_object_unref(*image);
    *image = failed ? NULL : next;
    return failed ? -1 : 0;
}

/* vips_resize of a plain image (8-bit, uncoded) by hscale x vscale, its default kernel and gap. To shrink both axes or
 * one (the other kept), vips_resize builds a copy (vips_image_decode of an uncoded image), vips_reducev, vips_reduceh
 * and a copy into its output: the reduces are built here alone, with the arguments vips_resize gives them, and the
 * copies, which change no pixel, are not. Enlarging goes through vips_resize. */
static int plain_reduce(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    const imgf_vips_table *vips = imgf_vips();
    if (hscale > 1.0 || vscale > 1.0 || (hscale >= 1.0 && vscale >= 1.0)) {
        return vips->vips_resize(in, out, hscale, "vscale", vscale, NULL);
    }
    hscale = VIPS_MAX(hscale, 1.0 / vips->vips_image_get_width(in));
    vscale = VIPS_MAX(vscale, 1.0 / vips->vips_image_get_height(in));
    VipsImage *reduced = in;
    g_object_ref(reduced);
    if (vscale < 1.0 && reduce_step(vips->vips_reducev, &reduced, 1.0 / vscale)) return -1;
    if (hscale < 1.0 && reduce_step(vips->vips_reduceh, &reduced, 1.0 / hscale)) return -1;
    *out = reduced;
    reduced_alone++;
    return 0;
}

int imgf_thumbnail_is_plain(VipsImage *in) {
    const imgf_vips_table *vips = imgf_vips();
    VipsInterpretation space = vips->vips_image_get_interpretation(in);
    int bands = vips->vips_image_get_bands(in);
    return in->Coding == VIPS_CODING_NONE && vips->vips_image_get_format(in) == VIPS_FORMAT_UCHAR
        && vips->vips_image_get_page_height(in) == vips->vips_image_get_height(in)
        && ((bands == 1 && space == VIPS_INTERPRETATION_B_W) || (bands == 3 && space == VIPS_INTERPRETATION_sRGB));
}

int imgf_thumbnail_plain(VipsImage *in, VipsImage **out, int width, int height, int size, int crop) {
    const imgf_vips_table *vips = imgf_vips();
    double hshrink, vshrink;
    plain_shrink(vips->vips_image_get_width(in), vips->vips_image_get_height(in), width, height, (VipsSize)size,
                 (VipsInteresting)crop, &hshrink, &vshrink);
    VipsImage *resized;
    if (plain_reduce(in, &resized, 1.0 / hshrink, 1.0 / vshrink)) return -1;
    if (crop == VIPS_INTERESTING_NONE) {
        *out = resized;
        return 0;
    }
    /* Like thumbnail: the crop reads what is in memory, since the load stays sequential. */
    VipsImage *kept = vips->vips_image_copy_memory(resized);
    g_object_unref(resized);
    if (!kept) return -1;
    int cropped = vips->vips_smartcrop(kept, out, VIPS_MIN(width, vips->vips_image_get_width(kept)),
                                    VIPS_MIN(height, vips->vips_image_get_height(kept)), "interesting", crop, NULL);
    g_object_unref(kept);
    return cropped;
}
