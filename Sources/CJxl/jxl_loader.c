/* Opens libjxl at run time (see imgf_jxl.h). */
#include "imgf_jxl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static imgf_jxl_table table;
static char error[256];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libjxl.so.0.7", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(error, sizeof error, "cannot open libjxl: %s", dlerror());
        return;
    }
#define IMGF_JXL_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, sizeof error, "libjxl lacks %s", #name); return; }
    IMGF_JXL_SYMBOLS(IMGF_JXL_RESOLVE)
#undef IMGF_JXL_RESOLVE
    loaded = 1;
}

const imgf_jxl_table *imgf_jxl(void) {
    pthread_once(&once, load);
    return loaded ? &table : NULL;
}

const char *imgf_jxl_error(void) {
    pthread_once(&once, load);
    return error;
}
