/* libvips' disc sink, computed by one libvips thread when the rendering has one thread.
 *
 * Every saver (jpegsave, pngsave, webpsave, ...) writes its image through vips_sink_disc. libvips 8.14's runs its
 * thread pool even for one thread: a worker computes the strips while the calling thread waits for each strip's tick,
 * and two write-behind threads write the buffers in turn (about 49 semaphore ups and 180 futex calls for a small
 * thumbnail). In a batch each rendering has one thread (its image's "concurrency" field), so the hand-offs buy nothing.
 * This definition takes libvips' name, so that the savers' calls reach it (the programs that start libvips export it,
 * as operation_build.c's), and when the pool would have one worker it hands the whole sink to one helper thread and
 * waits for it: the helper does what the pool's worker and the writers do, in order: the same strips prepared into the
 * same buffers, each buffer written when full, the image's kill flag checked after each strip. With more threads,
 * with progress signals on the image (vips_image_set_progress, VIPS_PROGRESS: their emitters are internal to libvips),
 * or switched off (IMGFETCH_SINK=libvips, or imgf_sink_in_one_thread_set), it calls libvips' own.
 *
 * The helpers are libvips threads (vips_g_thread_new), kept between sinks and cleared after each (vips_thread_shutdown)
 * as libvips' threadset keeps and clears its own, never the caller's thread: libvips computes pixels in its own
 * threads only, which keep a cache of region buffers each (buffer.c). In another thread every buffer is freed as soon
 * as its region lets go of it, and libvips 8.14 then reads pixels that are gone: computed in the calling thread, an
 * animated GIF with alpha, blurred, lost pixels of its first row in 6 to 70 of 100 lines of a batch at -j 4
 * (RenderingOverheadTests renders it four at a time). A hand-off costs two wake-ups a saved image. */
#include "imgf_vips.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Statistics for the tests, and the switch; process-wide like the sink they stand in for. */
static atomic_long sinks_in_one_thread;
static atomic_int in_one_thread_off;

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

/* vips_sink_disc's work in this thread (a libvips one): buffers of `lines` rows, each computed then written
 * (write_fn) in order. */
static int sink_in_this_thread(const imgf_vips_table *vips, VipsImage *image, VipsRegionWrite write_fn, void *a) {
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

/* A sink handed to a helper: its arguments, its result once `finished`, and the next job in the queue. */
typedef struct sink_job {
    VipsImage *image;
    VipsRegionWrite write_fn;
    void *a;
    int result;
    int finished;
    pthread_cond_t done;
    struct sink_job *next;
} sink_job;

/* The helpers: libvips threads kept between sinks, as libvips' threadset keeps its threads, each taking the next job
 * from one queue. Process-wide like the threadset. pthread's primitives rather than GLib's, whose futexes
 * ThreadSanitizer cannot see. Under `helpers_lock`: the queue, each job's `finished` and `result`, and how many helpers
 * wait for a job; a helper is started only when the jobs queued outnumber them. */
static pthread_mutex_t helpers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_queued = PTHREAD_COND_INITIALIZER;
static sink_job *queue_head, *queue_tail;
static int jobs_queued, helpers_waiting;

static void *helper_run(void *unused) {
    (void)unused;
    pthread_mutex_lock(&helpers_lock);
    for (;;) {
        while (!queue_head) {
            helpers_waiting++;
            pthread_cond_wait(&job_queued, &helpers_lock);
            helpers_waiting--;
        }
        sink_job *job = queue_head;
        queue_head = job->next;
        if (!queue_head) queue_tail = NULL;
        jobs_queued--;
        pthread_mutex_unlock(&helpers_lock);
        const imgf_vips_table *vips = imgf_vips();
        int result = sink_in_this_thread(vips, job->image, job->write_fn, job->a);
        /* As libvips' threadset after each task: this thread's buffers are of no use to the next sink. */
        vips->vips_thread_shutdown();
        pthread_mutex_lock(&helpers_lock);
        job->result = result;
        job->finished = 1;
        pthread_cond_signal(&job->done);
    }
    return NULL;
}

/* Queues `job` for a helper, starting one when the queued jobs outnumber the waiting helpers. 0, or -1 (nothing
 * queued, and the error starting a helper left cleared: it is not the rendering's) when none could be started.
 * Called with helpers_lock held. */
static int queue_job(sink_job *job) {
    if (jobs_queued + 1 > helpers_waiting) {
        GThread *helper = imgf_vips()->vips_g_thread_new("imgf-sink", helper_run, NULL);
        if (!helper) {
            imgf_vips()->vips_error_clear();
            return -1;
        }
        g_thread_unref(helper);
    }
    if (queue_tail) queue_tail->next = job; else queue_head = job;
    queue_tail = job;
    jobs_queued++;
    pthread_cond_signal(&job_queued);
    return 0;
}

int vips_sink_disc(VipsImage *image, VipsRegionWrite write_fn, void *a) {
    const imgf_vips_table *vips = imgf_vips();
    if (atomic_load_explicit(&in_one_thread_off, memory_order_relaxed) || image->progress_signal ||
        pool_workers(vips, image) != 1)
        return vips->vips_sink_disc(image, write_fn, a);
    sink_job job = { .image = image, .write_fn = write_fn, .a = a };
    pthread_cond_init(&job.done, NULL);
    pthread_mutex_lock(&helpers_lock);
    int queued = queue_job(&job) == 0;
    while (queued && !job.finished) pthread_cond_wait(&job.done, &helpers_lock);
    pthread_mutex_unlock(&helpers_lock);
    pthread_cond_destroy(&job.done);
    if (!queued) return vips->vips_sink_disc(image, write_fn, a);
    atomic_fetch_add_explicit(&sinks_in_one_thread, 1, memory_order_relaxed);
    return job.result;
}

void imgf_sink_read_environment(void) {
    const char *sink = getenv("IMGFETCH_SINK");
    if (sink && strcmp(sink, "libvips") == 0) imgf_sink_in_one_thread_set(0);
}

void imgf_sink_in_one_thread_set(int on) {
    atomic_store_explicit(&in_one_thread_off, !on, memory_order_relaxed);
}

long imgf_sinks_in_one_thread(void) {
    return atomic_load_explicit(&sinks_in_one_thread, memory_order_relaxed);
}
