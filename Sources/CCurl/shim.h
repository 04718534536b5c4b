/* Fixed-argument wrappers around libcurl's variadic calls, which Swift cannot call. */
#ifndef IMGFETCH_CCURL_SHIM_H
#define IMGFETCH_CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

typedef size_t (*imgf_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*imgf_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                      curl_off_t ultotal, curl_off_t ulnow);
typedef curl_socket_t (*imgf_opensocket_callback)(void *clientp, curlsocktype purpose,
                                                  struct curl_sockaddr *address);

static inline CURLcode imgf_setopt_long(CURL *h, CURLoption opt, long value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_offset(CURL *h, CURLoption opt, curl_off_t value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_string(CURL *h, CURLoption opt, const char *value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_pointer(CURL *h, CURLoption opt, void *value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_list(CURL *h, CURLoption opt, struct curl_slist *value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_data_callback(CURL *h, CURLoption opt, imgf_data_callback value) { return curl_easy_setopt(h, opt, value); }
static inline CURLcode imgf_setopt_xferinfo(CURL *h, imgf_xferinfo_callback value) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, value);
}
static inline CURLcode imgf_setopt_opensocket(CURL *h, imgf_opensocket_callback value) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, value);
}

static inline long imgf_info_long(CURL *h, CURLINFO info) {
    long value = 0;
    curl_easy_getinfo(h, info, &value);
    return value;
}
static inline const char *imgf_info_string(CURL *h, CURLINFO info) {
    char *value = NULL;
    curl_easy_getinfo(h, info, &value);
    return value;
}

/* The socket() call libcurl would make, for use inside an open-socket callback. */
static inline curl_socket_t imgf_open_socket(struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}

#endif
