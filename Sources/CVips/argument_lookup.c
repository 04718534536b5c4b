/* libvips' look-up of an object's argument, without libvips' global lock.
 *
 * Every libvips object keeps its arguments' values in a hash table of its own (argument_table), which libvips fills
 * once, when the object first needs it (vips_argument_init, without a lock), and only reads afterwards until the
 * object is freed. libvips 8.14 still takes its one global lock (vips__global_lock) around every read of it
 * (vips__argument_table_lookup, from vips__argument_get_instance): building, setting, mapping and freeing an operation
 * read each of its arguments, hundreds of times a line. With two renderings at once, the two threads queue on that
 * lock and wake each other through the kernel: a quarter of the samples in futex calls of a batch of small images
 * (`perf record --call-graph dwarf`, 1,000 lines to 64 px at -j 2). This definition takes libvips' name, so that
 * libvips' calls reach it (the programs that start libvips export it, as operation_build.c's), and reads a table that
 * is already there directly. A table not made yet goes to libvips' own function, which makes it. The lock never kept a
 * read from a table being filled (the filling does not take it), so a read here is exactly as safe as libvips'.
 * IMGFETCH_ARGUMENT_LOOKUP=libvips in the environment (or imgf_arguments_read_directly_set(0)) sends every look-up to
 * libvips' own function, for comparison. */
#include "imgf_vips.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Nonzero: every look-up goes to libvips. Set from the environment before the first rendering; a test sets it while
 * other renderings may run, hence atomic. */
static atomic_int through_libvips;

/* A statistic for the tests, per thread: one count shared by the threads would bounce its cache line between the
 * cores on every look-up. */
static _Thread_local long read_directly;

VipsArgumentInstance *vips__argument_get_instance(VipsArgumentClass *argument_class, VipsObject *object) {
    VipsArgumentTable *table = object->argument_table;
    if (!table || atomic_load_explicit(&through_libvips, memory_order_relaxed))
        return imgf_vips()->vips__argument_get_instance(argument_class, object);
    read_directly++;
    return (VipsArgumentInstance *)g_hash_table_lookup(table, ((VipsArgument *)argument_class)->pspec);
}

long imgf_arguments_read_directly(void) { return read_directly; }

void imgf_arguments_read_directly_set(int on) {
    atomic_store_explicit(&through_libvips, !on, memory_order_relaxed);
}

void imgf_argument_lookup_read_environment(void) {
    const char *lookup = getenv("IMGFETCH_ARGUMENT_LOOKUP");
    if (lookup && strcmp(lookup, "libvips") == 0) imgf_arguments_read_directly_set(0);
}
