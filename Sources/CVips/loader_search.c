/* libvips' loader search for bytes in memory, made of the loaders' own checks in libvips' order, and answered again
 * for the same bytes.
 *
 * vips_foreign_find_load_buffer lists every loader class (walking GLib's type tree), sorts them by priority and asks
 * each whose name ends in "_buffer" whether it reads the bytes (vips_foreign_map): 2 % of a small thumbnail's CPU,
 * nearly all of it the listing and the sort. The list depends only on the loader classes there are, which change only
 * when libvips' modules load: it is made once for each module load here, by vips_foreign_map itself (so in libvips'
 * very order), and a search asks its loaders' is_a_buffer in that order, giving the first that says yes, as libvips'
 * does. Bytes no loader reads go to libvips' own search, which sets its error.
 *
 * A line also asks several times about one body: imgfetch's header check (the search, then
 * vips_image_new_from_buffer's), the rendering's check, and vips_thumbnail_buffer's (its own search, and
 * vips_image_new_from_buffer's for the header). Each thread keeps its last answer with the bytes' size and XXH3-128
 * digest, and gives it again for bytes of the same size and digest searched since the last module load; bytes over
 * 1 MiB (hashing them would cost more than the search) are searched every time. This definition takes libvips' name,
 * so that libvips' calls reach it (the programs that start libvips export it, as operation_build.c's), and imgfetch's
 * own calls come here too. */
#include "imgf_vips.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Larger bytes are searched every time. */
#define IMGF_SEARCH_REMEMBERED_MAX (1u << 20)

/* Bumped when libvips' modules have loaded (their loaders and savers join the searches); process-wide like the
 * classes. */
static atomic_uint loader_generation;
/* Statistics for the tests. */
static atomic_long searches_answered_again, searches_in_order;

typedef struct {
    const char *answer; /* a class name, static in libvips; NULL: nothing remembered */
    size_t size;
    XXH128_hash_t digest;
    unsigned generation;
} remembered_search;

/* Per thread, so that no lock is taken: a line's searches mostly run on the thread that renders it. */
static _Thread_local remembered_search last;

/* The loaders of bytes in memory in libvips' search order, for one generation of the classes. Made under
 * `loaders_lock`, then only read; a list replaced by a later generation's is kept (modules load once or twice). */
typedef struct {
    unsigned generation;
    size_t count, capacity;
    VipsForeignLoadClass **classes;
} buffer_loaders;
static pthread_mutex_t loaders_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(buffer_loaders *) current_loaders;

/* vips_foreign_map's function: keeps each loader vips_foreign_find_load_buffer would ask. */
static void *add_buffer_loader(VipsForeignLoadClass *load_class, void *list, void *unused) {
    (void)unused;
    buffer_loaders *loaders = list;
    /* Plain casts: VIPS_OBJECT_CLASS() would check the type through vips_object_get_type, which is not linked. */
    const char *nickname = ((VipsObjectClass *)load_class)->nickname;
    size_t length = strlen(nickname);
    if (length < 7 || strcmp(nickname + length - 7, "_buffer") != 0
        || !load_class->is_a_buffer) return NULL;
    if (loaders->count == loaders->capacity) {
        size_t capacity = loaders->capacity ? 2 * loaders->capacity : 16;
        VipsForeignLoadClass **grown = realloc(loaders->classes, capacity * sizeof *grown);
        if (!grown) return load_class; /* stops the walk: the list is incomplete */
        loaders->classes = grown;
        loaders->capacity = capacity;
    }
    loaders->classes[loaders->count++] = load_class;
    return NULL;
}

/* The loaders of this generation, made on first use; NULL when they could not be listed. */
static buffer_loaders *loaders_of(unsigned generation) {
    buffer_loaders *loaders = atomic_load_explicit(&current_loaders, memory_order_acquire);
    if (loaders && loaders->generation == generation) return loaders;
    pthread_mutex_lock(&loaders_lock);
    loaders = atomic_load_explicit(&current_loaders, memory_order_acquire);
    if (!loaders || loaders->generation != generation) {
        buffer_loaders *made = calloc(1, sizeof *made);
        if (made && !imgf_vips()->vips_foreign_map("VipsForeignLoad", (VipsSListMap2Fn)add_buffer_loader, made, NULL)) {
            made->generation = generation;
            atomic_store_explicit(&current_loaders, made, memory_order_release);
            loaders = made;
        } else {
            if (made) free(made->classes);
            free(made);
            loaders = NULL;
        }
    }
    pthread_mutex_unlock(&loaders_lock);
    return loaders;
}

/* vips_foreign_find_load_buffer's answer: the first loader in its order that reads the bytes. */
static const char *search(const void *data, size_t size, unsigned generation) {
    buffer_loaders *loaders = loaders_of(generation);
    if (loaders) {
        atomic_fetch_add_explicit(&searches_in_order, 1, memory_order_relaxed);
        for (size_t index = 0; index < loaders->count; index++) {
            if (loaders->classes[index]->is_a_buffer(data, size)) return G_OBJECT_CLASS_NAME(loaders->classes[index]);
        }
    }
    return imgf_vips()->vips_foreign_find_load_buffer(data, size);
}

const char *vips_foreign_find_load_buffer(const void *data, size_t size) {
    const imgf_vips_table *vips = imgf_vips();
    if (!data || size == 0) return vips->vips_foreign_find_load_buffer(data, size);
    unsigned generation = imgf_foreign_classes_generation();
    if (size > IMGF_SEARCH_REMEMBERED_MAX) return search(data, size, generation);
    XXH128_hash_t digest = XXH3_128bits(data, size);
    if (last.answer && last.size == size && last.generation == generation && XXH128_isEqual(last.digest, digest)) {
        atomic_fetch_add_explicit(&searches_answered_again, 1, memory_order_relaxed);
        return last.answer;
    }
    const char *answer = search(data, size, generation);
    if (answer) last = (remembered_search){ answer, size, digest, generation };
    return answer;
}

void imgf_foreign_classes_changed(void) { atomic_fetch_add_explicit(&loader_generation, 1, memory_order_release); }

unsigned imgf_foreign_classes_generation(void) { return atomic_load_explicit(&loader_generation, memory_order_acquire); }

long imgf_loader_searches_answered_again(void) {
    return atomic_load_explicit(&searches_answered_again, memory_order_relaxed);
}

long imgf_loader_searches_in_order(void) { return atomic_load_explicit(&searches_in_order, memory_order_relaxed); }

const char *imgf_libvips_find_load_buffer(const void *data, size_t size) {
    return imgf_vips()->vips_foreign_find_load_buffer(data, size);
}
