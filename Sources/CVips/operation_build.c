/* libvips' operation cache, skipped while it keeps nothing.
 *
 * Every libvips operation, the ones libvips calls inside others too (a small thumbnail builds about 24), is built
 * through vips_cache_operation_buildp, which looks the operation up in the cache's hash table (hashing all its
 * arguments), builds it, inserts it (a reference to it and to each of its outputs, a signal handler), and then, with
 * the cache's size at 0 (imgfetch's: vips_cache_set_max(0) in loader.c), at once trims it out again. With nothing
 * ever kept, building the operation is all that that does: this definition takes libvips' name, so that libvips'
 * calls reach it (the programs that start libvips export it, as orc_guard.c's), and builds the operation directly
 * while the cache's size is 0; with a larger size it calls libvips' own. */
#include "imgf_vips.h"

#include <stdatomic.h>

/* A statistic for the tests; process-wide like the cache it stands in for. */
static atomic_long built_directly;

int vips_cache_operation_buildp(VipsOperation **operation) {
    const imgf_vips_table *vips = imgf_vips();
    if (vips->vips_cache_get_max() != 0) return vips->vips_cache_operation_buildp(operation);
    atomic_fetch_add_explicit(&built_directly, 1, memory_order_relaxed);
    /* A plain cast: VIPS_OBJECT() would check the type through vips_object_get_type, which is not linked. */
    return vips->vips_object_build((VipsObject *)*operation) ? -1 : 0;
}

long imgf_operations_built_directly(void) { return atomic_load_explicit(&built_directly, memory_order_relaxed); }
