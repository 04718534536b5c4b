/* Opens libcurl at run time (see imgf_curl.h). */
#include "imgf_curl.h"

#include <dlfcn.h>
#include <stdio.h>

static imgf_curl_table table;

const imgf_curl_table *imgf_curl(void) { return &table; }

int imgf_curl_load(char *error, size_t error_size) {
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "cannot open libcurl: %s", dlerror());
        return -1;
    }
#define IMGF_CURL_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, error_size, "libcurl lacks %s", #name); return -1; }
    IMGF_CURL_SYMBOLS(IMGF_CURL_RESOLVE)
#undef IMGF_CURL_RESOLVE
    return 0;
}
