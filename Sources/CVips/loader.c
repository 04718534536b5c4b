/* Opens libvips at run time (see imgf_vips.h). */
#define _GNU_SOURCE
#include "imgf_object_memory.h"
#include "imgf_vips.h"

#include <dlfcn.h>
#include <dirent.h>
#include <gmodule.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static imgf_vips_table table;
static imgf_orc_guard orc_guard = IMGF_ORC_ABSENT;
#define IMGF_NO_MODULES_HOME "/nonexistent/imgfetch-loads-vips-modules-on-demand"

void imgf_vips_prepare_environment(void) {
    setenv("VIPSHOME", IMGF_NO_MODULES_HOME, 1);
}

int imgf_malloc_setting_given(const char *variable_value, const char *tunables, const char *tunable) {
    return (variable_value && *variable_value) || (tunables && strstr(tunables, tunable));
}

int imgf_malloc_settings_left(const char *arena_max, const char *mmap_threshold, const char *trim_threshold,
                              const char *tunables) {
    return (imgf_malloc_setting_given(arena_max, tunables, "glibc.malloc.arena_max") ? 0 : IMGF_MALLOC_ARENAS)
        | (imgf_malloc_setting_given(mmap_threshold, tunables, "glibc.malloc.mmap_threshold") ? 0 : IMGF_MALLOC_MMAP)
        | (imgf_malloc_setting_given(trim_threshold, tunables, "glibc.malloc.trim_threshold") ? 0 : IMGF_MALLOC_TRIM);
}

void imgf_tune_malloc(int arenas, int mmap_threshold, int trim_threshold) {
    int left = imgf_malloc_settings_left(getenv("MALLOC_ARENA_MAX"), getenv("MALLOC_MMAP_THRESHOLD_"),
                                         getenv("MALLOC_TRIM_THRESHOLD_"), getenv("GLIBC_TUNABLES"));
    if (left & IMGF_MALLOC_ARENAS) mallopt(M_ARENA_MAX, arenas);
    if (left & IMGF_MALLOC_MMAP) mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    if (left & IMGF_MALLOC_TRIM) mallopt(M_TRIM_THRESHOLD, trim_threshold);
}

void imgf_tune_malloc_trim(int trim_threshold) {
    int left = imgf_malloc_settings_left(NULL, NULL, getenv("MALLOC_TRIM_THRESHOLD_"), getenv("GLIBC_TUNABLES"));
    if (left & IMGF_MALLOC_TRIM) mallopt(M_TRIM_THRESHOLD, trim_threshold);
}


/* libvips' warnings (e.g. "VIPS-WARNING: IDAT: CRC error") would add lines to stderr beside our one-line
 * errors; failures reach us as errors anyway, so warnings are dropped. */
static void ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}
static char module_directory[4096];

const imgf_vips_table *imgf_vips(void) { return &table; }
imgf_orc_guard imgf_vips_orc_guard(void) { return orc_guard; }

int imgf_vips_start(const char *program, char *error, size_t error_size) {
    void *library = dlopen("libvips.so.42", RTLD_LAZY | RTLD_GLOBAL);
    if (!library) {
        snprintf(error, error_size, "cannot open libvips: %s", dlerror());
        return -1;
    }
#define IMGF_VIPS_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, error_size, "libvips lacks %s", #name); return -1; }
    IMGF_VIPS_SYMBOLS(IMGF_VIPS_RESOLVE)
#undef IMGF_VIPS_RESOLVE

    /* vips_init loads every module found under the library directory; point it elsewhere for the
     * call, and remember where the modules are (beside libvips itself) so that imgf_vips_load_modules
     * can load them on demand. vips_guess_libdir must not be called first: it caches its answer. */
    Dl_info info;
    char libdir[4096] = "/usr/lib";
    if (dladdr((void *)table.vips_init, &info) && info.dli_fname) {
        snprintf(libdir, sizeof libdir, "%s", info.dli_fname);
        char *slash = strrchr(libdir, '/');
        if (slash) *slash = 0;
    }
    snprintf(module_directory, sizeof module_directory, "%s/vips-modules-%d.%d", libdir,
             table.vips_version(0), table.vips_version(1));
    /* Without imgf_vips_prepare_environment (a library user, a test process) vips_init loads every module
     * itself: slower, but the environment is never changed here, where other threads may be reading it. */
    orc_guard = imgf_orc_guard_install();
    imgf_png_guard_install();
    imgf_sink_read_environment();
    imgf_argument_lookup_read_environment();
    imgf_glib_locks_read_environment();
    imgf_reduceh_read_environment();
    imgf_object_memory_read_environment();
    int result = table.vips_init(program);
    if (result) {
        snprintf(error, error_size, "vips_init failed: %s", table.vips_error_buffer());
        return -1;
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
                      ignore_log, NULL);
    /* Without the lock around liborc (see orc_guard.c), concurrent renderings would corrupt the heap. */
    if (orc_guard == IMGF_ORC_DISABLED) table.vips_vector_set_enabled(0);
    table.vips_cache_set_max(0);
    table.vips_leak_set(0);
    imgf_reduceh_learn();
    /* Build the loader and saver classes now (the first search initialises all of them), while this may run
     * beside a download, rather than on the first image. */
    static const unsigned char jpeg_start[] = { 0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0 };
    table.vips_foreign_find_load_buffer(jpeg_start, sizeof jpeg_start);
    table.vips_foreign_find_save_buffer(".jpg");
    static const char *const warm[] = { "thumbnail_buffer", "thumbnail_image", "resize", "jpegsave_buffer" };
    for (size_t i = 0; i < sizeof warm / sizeof warm[0]; i++) {
        VipsOperation *operation = table.vips_operation_new(warm[i]);
        if (operation) g_object_unref(operation);
    }
    table.vips_error_clear();
    return 0;
}

int imgf_vips_load_modules(void) {
    DIR *directory = opendir(module_directory);
    if (!directory) return 0;
    int loaded = 0;
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        size_t length = strlen(entry->d_name);
        if (length < 4 || strcmp(entry->d_name + length - 3, ".so")) continue;
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", module_directory, entry->d_name);
        GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
        if (module) {
            g_module_make_resident(module);
            loaded++;
        }
    }
    closedir(directory);
    imgf_foreign_classes_changed();
    return loaded;
}
