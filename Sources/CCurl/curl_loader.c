/* Opens libcurl at run time (see imgf_curl.h). */
#include "imgf_curl.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

static imgf_curl_table table;

const imgf_curl_table *imgf_curl(void) { return &table; }

/* OPENSSL_init_crypto's option OPENSSL_INIT_NO_ATEXIT (OpenSSL 1.1.1b and later). */
#define IMGF_OPENSSL_INIT_NO_ATEXIT 0x00080000L

/* When libcurl's TLS library is OpenSSL: initialises it, before libcurl does, without its exit handler
 * (OPENSSL_cleanup). That handler frees OpenSSL's global state while other threads may still be ending, and an ending
 * thread that used OpenSSL runs OpenSSL's per-thread destructor, which uses that state: a use after free of the
 * heap at exit. The process is ending anyway; nothing needs OpenSSL's memory given back. Without OpenSSL (a
 * GnuTLS libcurl) nothing is found and nothing is done; once OpenSSL is initialised already, the option is ignored. */
static void skip_openssl_exit_handler(void *library) {
    int (*init_crypto)(uint64_t, const void *) =
        (int (*)(uint64_t, const void *))dlsym(library, "OPENSSL_init_crypto");
    if (init_crypto) init_crypto(IMGF_OPENSSL_INIT_NO_ATEXIT, NULL);
}

int imgf_curl_load(char *error, size_t error_size) {
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "cannot open libcurl: %s", dlerror());
        return -1;
    }
    skip_openssl_exit_handler(library);
#define IMGF_CURL_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, error_size, "libcurl lacks %s", #name); return -1; }
    IMGF_CURL_SYMBOLS(IMGF_CURL_RESOLVE)
#undef IMGF_CURL_RESOLVE
    return 0;
}
