/* Deterministic checks of image data for ImgCore's integrity checks (no thread pool involved): counting what a
 * zlib stream inflates to, and how many rows of a JPEG's last scan its entropy-coded data reaches. */
#ifndef IMGFETCH_INTEGRITY_H
#define IMGFETCH_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

/* A zlib inflater that throws its output away and counts it. */
typedef struct imgf_inflater imgf_inflater;
imgf_inflater *imgf_inflater_new(void);
/* Feeds compressed bytes: 1 when the stream has ended (the rest of `data` is ignored), 0 when it wants more,
 * -1 on a data error, 2 once the stream has inflated to more than `limit` bytes in all (it stops there: a stream
 * of deflate blocks can inflate to 1032 times its size). The count so far stays readable. */
int imgf_inflater_feed(imgf_inflater *inflater, const void *data, size_t length, uint64_t limit);
/* How many bytes the stream has inflated to so far. */
uint64_t imgf_inflater_total(const imgf_inflater *inflater);
void imgf_inflater_free(imgf_inflater *inflater);

/* Reads a JPEG's entropy-coded data with the libjpeg that libvips has loaded (scaled 1/8, output discarded), from
 * memory when `memory` is not NULL, else `length` bytes of `descriptor` from `offset` (pread). Returns 0 when every
 * scan's data reaches the last MCU row, 1 when the data ends before (then `*rows` is how many pixel rows the last
 * scan reached), -1 when libjpeg refuses the data for another reason (not this check's to judge), -2 when the check
 * can't be made: libjpeg's functions are not found, that libjpeg refuses to start (another version's structures), or
 * memory for the check can't be had.
 * `*height` is the image's height when the header was read, else 0. `max_memory` (bytes, 0 for libjpeg's default)
 * is libjpeg's max_memory_to_use: a check needing more ends in libjpeg's error (-1). */
int imgf_jpeg_rows(const unsigned char *memory, size_t length, int descriptor, int64_t offset, long max_memory,
                   int *rows, int *height);

#endif
