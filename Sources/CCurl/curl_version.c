/* libcurl's run-time version and its TLS library's, for --version (see imgf_curl.h). */
#include "imgf_curl.h"

#include <dlfcn.h>
#include <stdio.h>

int imgf_curl_runtime_version(char *version, size_t version_size, char *tls, size_t tls_size) {
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(version, version_size, "cannot open libcurl: %s", dlerror());
        return -1;
    }
    __typeof__(curl_version_info) *info_of = (__typeof__(curl_version_info) *)dlsym(library, "curl_version_info");
    if (!info_of) {
        snprintf(version, version_size, "libcurl lacks curl_version_info");
        return -1;
    }
    const curl_version_info_data *info = info_of(CURLVERSION_NOW);
    snprintf(version, version_size, "%s", info->version ? info->version : "");
    snprintf(tls, tls_size, "%s", info->ssl_version ? info->ssl_version : "");
    return 0;
}
