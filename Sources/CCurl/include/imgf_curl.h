/* libcurl, opened with dlopen on first use: a run that downloads nothing (a cache hit, a cache command) never
 * loads it and its ~35 libraries. Every call goes through a table of its functions; the variadic ones through
 * fixed-argument wrappers, which Swift can call. curl.h is included for its types and constants only: a direct
 * call of a curl_* function would not link. */
#ifndef IMGFETCH_CURL_H
#define IMGFETCH_CURL_H

#include <curl/curl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define IMGF_CURL_SYMBOLS(X) \
    X(curl_global_init) \
    X(curl_easy_init) \
    X(curl_easy_setopt) \
    X(curl_easy_getinfo) \
    X(curl_easy_perform) \
    X(curl_easy_reset) \
    X(curl_easy_cleanup) \
    X(curl_easy_strerror) \
    X(curl_slist_append) \
    X(curl_slist_free_all)

#define IMGF_CURL_FIELD(name) __typeof__(name) *name;
typedef struct { IMGF_CURL_SYMBOLS(IMGF_CURL_FIELD) } imgf_curl_table;
#undef IMGF_CURL_FIELD

/* The table, filled by imgf_curl_load. */
const imgf_curl_table *imgf_curl(void);

/* Opens libcurl.so.4 and resolves the table; 0, or -1 with a message in `error`. Call once (not thread-safe). */
int imgf_curl_load(char *error, size_t error_size);

/* The version of the libcurl.so.4 this process opens and of its TLS library ("OpenSSL/3.0.17"; empty when it has
 * none), without loading the table; 0, or -1 with a message in `version`. */
int imgf_curl_runtime_version(char *version, size_t version_size, char *tls, size_t tls_size);

#define C (imgf_curl())

typedef size_t (*imgf_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*imgf_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                      curl_off_t ultotal, curl_off_t ulnow);
typedef curl_socket_t (*imgf_opensocket_callback)(void *clientp, curlsocktype purpose,
                                                  struct curl_sockaddr *address);

static inline CURLcode imgf_curl_global_init(long flags) { return C->curl_global_init(flags); }
static inline CURL *imgf_curl_easy_init(void) { return C->curl_easy_init(); }
static inline CURLcode imgf_curl_easy_perform(CURL *h) { return C->curl_easy_perform(h); }
static inline void imgf_curl_easy_reset(CURL *h) { C->curl_easy_reset(h); }
static inline void imgf_curl_easy_cleanup(CURL *h) { C->curl_easy_cleanup(h); }
static inline const char *imgf_curl_easy_strerror(CURLcode code) { return C->curl_easy_strerror(code); }
static inline struct curl_slist *imgf_curl_slist_append(struct curl_slist *list, const char *text) {
    return C->curl_slist_append(list, text);
}
static inline void imgf_curl_slist_free_all(struct curl_slist *list) { C->curl_slist_free_all(list); }

static inline CURLcode imgf_setopt_long(CURL *h, CURLoption opt, long value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_offset(CURL *h, CURLoption opt, curl_off_t value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_string(CURL *h, CURLoption opt, const char *value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_pointer(CURL *h, CURLoption opt, void *value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_list(CURL *h, CURLoption opt, struct curl_slist *value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_data_callback(CURL *h, CURLoption opt, imgf_data_callback value) { return C->curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_xferinfo(CURL *h, imgf_xferinfo_callback value) {
    return C->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, value);
}
static inline CURLcode imgf_setopt_opensocket(CURL *h, imgf_opensocket_callback value) {
    return C->curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, value);
}

static inline long imgf_info_long(CURL *h, CURLINFO info) {
    long value = 0;
    C->curl_easy_getinfo(h, info, &value);
    return value;
}
static inline double imgf_info_double(CURL *h, CURLINFO info) {
    double value = 0;
    C->curl_easy_getinfo(h, info, &value);
    return value;
}
static inline const char *imgf_info_string(CURL *h, CURLINFO info) {
    char *value = NULL;
    C->curl_easy_getinfo(h, info, &value);
    return value;
}

#undef C

/* The socket() call libcurl would make, for use inside an open-socket callback. */
static inline curl_socket_t imgf_open_socket(struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}

#endif
