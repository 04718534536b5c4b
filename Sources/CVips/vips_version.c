/* libvips' run-time version, for --version (see imgf_vips.h). */
#include "imgf_vips.h"

#include <dlfcn.h>
#include <stdio.h>

int imgf_vips_runtime_version(char *version, size_t version_size) {
    void *library = dlopen("libvips.so.42", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(version, version_size, "cannot open libvips: %s", dlerror());
        return -1;
    }
    /* vips_version_string needs no vips_init: it returns the string the library was built with. */
    const char *(*version_string)(void) = (const char *(*)(void))dlsym(library, "vips_version_string");
    if (!version_string) {
        snprintf(version, version_size, "libvips lacks vips_version_string");
        return -1;
    }
    snprintf(version, version_size, "%s", version_string());
    return 0;
}
