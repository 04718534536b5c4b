/* libvips' saver search for a format written to memory, answered again for the same name.
 *
 * vips_image_write_to_buffer finds its saver with vips_foreign_find_save_target(".jpg") (a target saver writing to
 * memory; the buffer savers only when none is found), which lists every saver class, sorts them by priority and asks
 * each whether it writes that suffix (vips_foreign_map), once for every image encoded. The answer depends only on the name and on the saver classes there are, which change only when
 * libvips' modules load. This definition takes libvips' name, so that libvips' calls reach it (the programs that start
 * libvips export it, as operation_build.c's): each thread keeps its last answer with the name it was given, and
 * gives it again for the same name since the last module load (loader_search.c's generation). Failed searches (they
 * set libvips' error) and names of 256 bytes or more go to libvips' own search every time. */
#include "imgf_vips.h"

#include <stdatomic.h>
#include <string.h>

/* Longer names are searched every time. */
#define IMGF_SAVER_NAME_MAX 256

/* A statistic for the tests; process-wide. */
static atomic_long searches_answered_again;

typedef struct {
    const char *answer; /* a class name, static in libvips; NULL: nothing remembered */
    unsigned generation;
    char name[IMGF_SAVER_NAME_MAX];
} remembered_saver;

/* Per thread, so that no lock is taken. */
static _Thread_local remembered_saver last;

const char *vips_foreign_find_save_target(const char *name) {
    const imgf_vips_table *vips = imgf_vips();
    size_t length = name ? strnlen(name, IMGF_SAVER_NAME_MAX) : IMGF_SAVER_NAME_MAX;
    if (length >= IMGF_SAVER_NAME_MAX) return vips->vips_foreign_find_save_target(name);
    unsigned generation = imgf_foreign_classes_generation();
    if (last.answer && last.generation == generation && strcmp(last.name, name) == 0) {
        atomic_fetch_add_explicit(&searches_answered_again, 1, memory_order_relaxed);
        return last.answer;
    }
    const char *answer = vips->vips_foreign_find_save_target(name);
    if (answer) {
        last.answer = answer;
        last.generation = generation;
        memcpy(last.name, name, length + 1);
    }
    return answer;
}

long imgf_saver_searches_answered_again(void) {
    return atomic_load_explicit(&searches_answered_again, memory_order_relaxed);
}
