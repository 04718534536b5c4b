/* libvips' loader search for bytes in memory, answered again for the same bytes.
 *
 * vips_foreign_find_load_buffer lists every loader class, sorts them by priority and asks each whether it reads the
 * bytes (vips_foreign_map): about 0.7 % of a small thumbnail's CPU each time. A line asks it five times about one
 * body: imgfetch's header check (the search, then vips_image_new_from_buffer's), the rendering's check, and
 * vips_thumbnail_buffer (its own search, and vips_image_new_from_buffer's for the header). The answer depends only on
 * the bytes and on the loader classes there are, which change only when libvips' modules load. This definition takes
 * libvips' name, so that libvips' calls reach it (the programs that start libvips export it, as operation_build.c's),
 * and imgfetch's own calls come here too: each thread keeps its last answer with the bytes' size and XXH3-128
 * digest, and gives it again for bytes of the same size and digest searched since the last module load. Bytes over
 * 1 MiB (hashing them would cost more than the search) and failed searches (they set libvips' error) go to libvips'
 * own search every time. */
#include "imgf_vips.h"

#include <stdatomic.h>
#include <xxhash.h>

/* Larger bytes are searched every time. */
#define IMGF_SEARCH_REMEMBERED_MAX (1u << 20)

/* Bumped when libvips' modules have loaded (their loaders and savers join the searches); process-wide like the
 * classes. */
static atomic_uint loader_generation;
/* A statistic for the tests. */
static atomic_long searches_answered_again;

typedef struct {
    const char *answer; /* a class name, static in libvips; NULL: nothing remembered */
    size_t size;
    XXH128_hash_t digest;
    unsigned generation;
} remembered_search;

/* Per thread, so that no lock is taken: a line's searches mostly run on the thread that renders it. */
static _Thread_local remembered_search last;

const char *vips_foreign_find_load_buffer(const void *data, size_t size) {
    const imgf_vips_table *vips = imgf_vips();
    if (!data || size == 0 || size > IMGF_SEARCH_REMEMBERED_MAX) return vips->vips_foreign_find_load_buffer(data, size);
    unsigned generation = imgf_foreign_classes_generation();
    XXH128_hash_t digest = XXH3_128bits(data, size);
    if (last.answer && last.size == size && last.generation == generation && XXH128_isEqual(last.digest, digest)) {
        atomic_fetch_add_explicit(&searches_answered_again, 1, memory_order_relaxed);
        return last.answer;
    }
    const char *answer = vips->vips_foreign_find_load_buffer(data, size);
    if (answer) last = (remembered_search){ answer, size, digest, generation };
    return answer;
}

void imgf_foreign_classes_changed(void) { atomic_fetch_add_explicit(&loader_generation, 1, memory_order_release); }

unsigned imgf_foreign_classes_generation(void) { return atomic_load_explicit(&loader_generation, memory_order_acquire); }

long imgf_loader_searches_answered_again(void) {
    return atomic_load_explicit(&searches_answered_again, memory_order_relaxed);
}
