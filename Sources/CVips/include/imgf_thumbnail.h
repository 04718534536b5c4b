/* A thumbnail of fewer libvips objects than vips_thumbnail makes, for the images it would not convert
 * (thumbnail_plain.c). */
#ifndef IMGFETCH_CVIPS_THUMBNAIL_H
#define IMGFETCH_CVIPS_THUMBNAIL_H

#include <vips/vips.h>

/* 1 when vips_thumbnail would convert nothing in `in`, as loaded: one page of 8-bit uncoded 1-band B_W or 3-band
 * sRGB pixels; else 0. */
int imgf_thumbnail_is_plain(VipsImage *in);
/* vips_thumbnail_image's pixels for such an image not to be rotated, with the arguments of imgf_thumbnail_image,
 * built of fewer operations; 0 on success. */
int imgf_thumbnail_plain(VipsImage *in, VipsImage **out, int width, int height, int size, int crop);
/* How many of those thumbnails on the calling thread built their reduces without vips_resize around them. */
long imgf_thumbnail_reduced_alone(void);

#endif
