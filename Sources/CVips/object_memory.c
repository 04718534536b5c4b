/* libvips' memory local to an object, freed when the object closes through one record of its blocks.
 *
 * vips_malloc(object, size) gives a block to be freed when the object closes, by connecting a "postclose" signal
 * handler to the object for each block: a closure, a handler in GLib's tables (looked up and changed under GLib's
 * one signal lock), one call for each block when the object closes, and each handler taken down again. Every
 * reduceh libvips builds allocates its 65 coefficient tables twice over so: 130 handlers for each horizontal reduce,
 * and a small thumbnail builds one or two. This definition takes libvips' name, so that libvips' calls reach it (the
 * programs that start libvips export it, as operation_build.c's), and records the blocks of each object in one list
 * kept as the object's data, with one "postclose" handler that frees them all, when libvips' handlers would. An
 * object libvips rewinds (closes and builds again: vips_object_rewind) so frees its blocks at each close, and takes
 * a new record for the next build; GLib frees a record still attached when it frees the object. The blocks are
 * zeroed and counted in the object's local_memory as libvips' are. IMGFETCH_OBJECT_MEMORY=libvips in the environment
 * (or imgf_object_memory_set(0)) sends every allocation to libvips' own function, for comparison. */
#include "imgf_object_memory.h"
#include "imgf_vips.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* An object's blocks. Objects are built on one thread, but libvips' workers allocate for one object at once too: hence
 * a lock, a pthread one (GLib's are imgfetch's own stand-ins, glib_locks.c, which ThreadSanitizer does not see). */
typedef struct {
    pthread_mutex_t lock;
    size_t count, capacity;
    void **blocks;
} object_blocks;

/* Nonzero: every allocation goes to libvips. Set from the environment before the first rendering; a test sets it
 * while other renderings may run, hence atomic. */
static atomic_int through_libvips;
/* Statistics for the tests, per thread (an object is built, and mostly freed, on one thread): one count shared by
 * the threads would bounce its cache line between the cores on every block. */
static _Thread_local long blocks_given, blocks_freed;

static GQuark blocks_quark(void) {
    static gsize quark;
    if (g_once_init_enter(&quark)) g_once_init_leave(&quark, g_quark_from_static_string("imgf-object-blocks"));
    return (GQuark)quark;
}

/* Frees the record and its blocks. Taken under its lock, as the workers' last blocks were given: libvips orders their
 * end before the object's close through GLib's locks, which ThreadSanitizer does not see. */
static void free_blocks(gpointer data) {
    object_blocks *record = data;
    pthread_mutex_lock(&record->lock);
    size_t count = record->count;
    for (size_t index = 0; index < count; index++) g_free(record->blocks[index]);
    pthread_mutex_unlock(&record->lock);
    blocks_freed += (long)count;
    g_free(record->blocks);
    pthread_mutex_destroy(&record->lock);
    g_free(record);
}

/* The "postclose" handler: the record goes, and free_blocks with it. */
static void release_blocks(VipsObject *object, gpointer unused) {
    (void)unused;
    g_object_set_qdata((GObject *)object, blocks_quark(), NULL);
}

/* The object's record, made and attached by the first block since the object was built (of two threads at once, one
 * record wins and connects the handler). */
static object_blocks *blocks_of(GObject *object) {
    GQuark quark = blocks_quark();
    object_blocks *record = g_object_get_qdata(object, quark);
    if (record) return record;
    object_blocks *fresh = g_new0(object_blocks, 1);
    pthread_mutex_init(&fresh->lock, NULL);
    if (g_object_replace_qdata(object, quark, NULL, fresh, free_blocks, NULL)) {
        g_signal_connect(object, "postclose", G_CALLBACK(release_blocks), NULL);
        return fresh;
    }
    free_blocks(fresh);
    return g_object_get_qdata(object, quark);
}

void *vips_malloc(VipsObject *object, size_t size) {
    if (!object || atomic_load_explicit(&through_libvips, memory_order_relaxed))
        return imgf_vips()->vips_malloc(object, size);
    void *block = g_malloc0(size);
    object_blocks *record = blocks_of((GObject *)object);
    pthread_mutex_lock(&record->lock);
    if (record->count == record->capacity) {
        record->capacity = record->capacity ? record->capacity * 2 : 8;
        record->blocks = g_renew(void *, record->blocks, record->capacity);
    }
    record->blocks[record->count++] = block;
    object->local_memory += size;
    pthread_mutex_unlock(&record->lock);
    blocks_given++;
    return block;
}

long imgf_object_blocks_given(void) { return blocks_given; }

long imgf_object_blocks_freed(void) { return blocks_freed; }

void imgf_object_memory_set(int on) { atomic_store_explicit(&through_libvips, !on, memory_order_relaxed); }

void imgf_object_memory_read_environment(void) {
    const char *memory = getenv("IMGFETCH_OBJECT_MEMORY");
    if (memory && strcmp(memory, "libvips") == 0) imgf_object_memory_set(0);
}
