/* Serialises liborc's two entry points that libvips calls to compile and free programs (see imgf_vips.h).
 *
 * liborc up to 0.4.33 (Debian 12 ships 0.4.33) finds a free piece of code memory under its lock but splits it and
 * marks it used after letting go, and frees pieces and merges the list without the lock at all (fixed in 0.4.34 by
 * orc commit e48fa54, "Fix for potential race in codemem alloc/free"). libvips compiles orc programs each time it
 * builds a reduce, convolution, morphology or arithmetic operation and frees them when the operation goes, so two
 * renderings at once race there: two programs written into one piece of memory, or the pieces' list corrupted. A
 * batch of 2,000 small JPEGs to 32 px crashed about once in 25 runs ("malloc_consolidate(): unaligned fastbin chunk
 * detected", or SIGSEGV in generated code); four threads building libvips reducev operations crashed 6 runs of 6.
 *
 * These definitions take liborc's names. The executables that start libvips export them (Package.swift passes
 * --export-dynamic-symbol), so libvips' calls bind here first and reach liborc's own functions, found with dlsym,
 * under one lock; a program of the same content as one compiled before gets that one's code (orc_code_cache.c).
 * Where they are not exported (ImgCore linked into another program), imgf_vips_start finds that libvips would
 * bypass them and switches libvips' vector path off instead (about 3% more CPU on photos). */
#define _GNU_SOURCE
#include "imgf_vips.h"
#include "orc_code_cache.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

/* Process-wide by nature: the lock guards one library's process-wide code memory. Recursive, in case liborc ever
 * calls one of these from within the other. */
static pthread_mutex_t orc_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* Written once by imgf_orc_guard_install, before vips_init and so before libvips can call either. */
static int (*liborc_compile)(void *program);
static void (*liborc_free)(void *program);
static atomic_long guarded_calls;

/* liborc's ORC_COMPILE_RESULT_UNKNOWN_COMPILE: libvips then runs the operation without orc. */
#define IMGF_ORC_COMPILE_FAILED 0x100

int orc_program_compile(void *program) {
    if (!liborc_compile) return IMGF_ORC_COMPILE_FAILED;
    pthread_mutex_lock(&orc_lock);
    int result = imgf_orc_compile_cached(program, liborc_compile);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add_explicit(&guarded_calls, 1, memory_order_relaxed);
    return result;
}

void orc_program_free(void *program) {
    if (!liborc_free) return;
    pthread_mutex_lock(&orc_lock);
    imgf_orc_release_cached(program);
    liborc_free(program);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add_explicit(&guarded_calls, 1, memory_order_relaxed);
}

imgf_orc_guard imgf_orc_guard_install(void) {
    void *liborc = dlopen("liborc-0.4.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (!liborc) return IMGF_ORC_ABSENT;
    liborc_compile = (int (*)(void *))dlsym(liborc, "orc_program_compile");
    liborc_free = (void (*)(void *))dlsym(liborc, "orc_program_free");
    dlclose(liborc); /* NOLOAD took a reference; libvips holds the library open */
    /* The definition a lookup from libvips finds first: ours when this program exports it, else liborc's. */
    int bound_here = dlsym(RTLD_DEFAULT, "orc_program_compile") == (void *)orc_program_compile &&
                     dlsym(RTLD_DEFAULT, "orc_program_free") == (void *)orc_program_free;
    if (!bound_here || !liborc_compile || !liborc_free) return IMGF_ORC_DISABLED;
    return IMGF_ORC_SERIALISED;
}

void imgf_orc_guard_enter(void) { pthread_mutex_lock(&orc_lock); }
void imgf_orc_guard_leave(void) { pthread_mutex_unlock(&orc_lock); }

long imgf_orc_guarded_calls(void) { return atomic_load_explicit(&guarded_calls, memory_order_relaxed); }
