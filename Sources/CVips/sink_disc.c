/* libvips' disc sink, computed in the calling thread when the rendering has one thread.
 *
 * Every saver (jpegsave, pngsave, webpsave, ...) writes its image through vips_sink_disc. libvips 8.14's runs its
 * thread pool even for one thread: a worker computes the strips while the calling thread waits for each strip's tick,
 * and two write-behind threads write the buffers in turn (about 49 semaphore ups and 180 futex calls for a small
 * thumbnail). In a batch each rendering has one thread (its image's "concurrency" field), so the hand-offs buy nothing.
 * This definition takes libvips' name, so that the savers' calls reach it (the programs that start libvips export it,
 * as operation_build.c's), and when the pool would have one worker it does what the pool's worker and the writers do,
 * in order, in the calling thread: the same strips prepared into the same buffers, each buffer written when full, the
 * image's kill flag checked after each strip. With more threads, with progress signals on the image (vips_image_set_progress,
 * VIPS_PROGRESS: their emitters are internal to libvips), or switched off (IMGFETCH_SINK=libvips, or
 * imgf_sink_in_calling_thread_set), it calls libvips' own. */
#include "imgf_vips.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Statistics for the tests, and the switch; process-wide like the sink they stand in for. */
static atomic_long sinks_in_calling_thread;
static atomic_int in_calling_thread_off;

/* The workers libvips 8.14's vips_threadpool_new gives a sink of `image`: vips_concurrency_get(), at most one a tile
 * of the image, then the image's own "concurrency" field if it has one (vips_image_get_concurrency). */
static int pool_workers(const imgf_vips_table *vips, VipsImage *image) {
    int tile_width, tile_height, lines;
    vips->vips_get_tile_size(image, &tile_width, &tile_height, &lines);
    gint64 tiles = (1 + (gint64)image->Xsize / tile_width) * (1 + (gint64)image->Ysize / tile_height);
    tiles = tiles < 1 ? 1 : tiles > 1024 ? 1024 : tiles;
    int workers = vips->vips_concurrency_get();
    if (workers > tiles) workers = (int)tiles;
    return vips->vips_image_get_concurrency(image, workers);
}

/* Computes the rows of `area` into `buffer` (placed on `area`) as the pool's worker does: tile by tile, left to right
 * and top to bottom, each checked for a kill afterwards as the pool's progress tick does. 0, or -1 with libvips'
 * error set. */
static int prepare_area(const imgf_vips_table *vips, VipsRegion *region, VipsRegion *buffer, const VipsRect *area,
                        int tile_width, int tile_height) {
    VipsImage *image = region->im;
    for (int top = area->top; top < area->top + area->height; top += tile_height)
        for (int left = 0; left < area->width; left += tile_width) {
            VipsRect tile = { left, top, tile_width, tile_height };
            if (tile.left + tile.width > image->Xsize) tile.width = image->Xsize - tile.left;
            if (tile.top + tile.height > area->top + area->height) tile.height = area->top + area->height - tile.top;
            if (vips->vips_region_prepare_to(region, buffer, &tile, tile.left, tile.top)) return -1;
            if (vips->vips_image_iskilled(image)) return -1;
        }
    return 0;
}

/* vips_sink_disc's work in this thread: buffers of `lines` rows, each computed then written (write_fn) in order. */
static int sink_in_calling_thread(const imgf_vips_table *vips, VipsImage *image, VipsRegionWrite write_fn, void *a) {
    /* As vips_sink_base_init: a kill left from an earlier evaluation of this image is cleared first. */
    vips->vips_image_set_kill(image, FALSE);
    int tile_width, tile_height, lines;
    vips->vips_get_tile_size(image, &tile_width, &tile_height, &lines);
    VipsRegion *region = vips->vips_region_new(image);
    VipsRegion *buffer = vips->vips_region_new(image);
    int result = region && buffer ? 0 : -1;
    for (int top = 0; result == 0 && top < image->Ysize; top += lines) {
        VipsRect area = { 0, top, image->Xsize, top + lines > image->Ysize ? image->Ysize - top : lines };
        if (vips->vips_region_buffer(buffer, &area) ||
            prepare_area(vips, region, buffer, &area, tile_width, tile_height)) {
            result = -1;
            break;
        }
        int written = write_fn(buffer, &area, a);
        if (written) {
            vips->vips_error_system(written, "wbuffer_write", "%s", "write failed");
            result = -1;
        }
    }
    if (buffer) g_object_unref(buffer);
    if (region) g_object_unref(region);
    vips->vips_image_minimise_all(image);
    return result;
}

int vips_sink_disc(VipsImage *image, VipsRegionWrite write_fn, void *a) {
    const imgf_vips_table *vips = imgf_vips();
    if (atomic_load_explicit(&in_calling_thread_off, memory_order_relaxed) || image->progress_signal ||
        pool_workers(vips, image) != 1)
        return vips->vips_sink_disc(image, write_fn, a);
    atomic_fetch_add_explicit(&sinks_in_calling_thread, 1, memory_order_relaxed);
    return sink_in_calling_thread(vips, image, write_fn, a);
}

void imgf_sink_read_environment(void) {
    const char *sink = getenv("IMGFETCH_SINK");
    if (sink && strcmp(sink, "libvips") == 0) imgf_sink_in_calling_thread_set(0);
}

void imgf_sink_in_calling_thread_set(int on) {
    atomic_store_explicit(&in_calling_thread_off, !on, memory_order_relaxed);
}

long imgf_sinks_in_calling_thread(void) {
    return atomic_load_explicit(&sinks_in_calling_thread, memory_order_relaxed);
}
