#include <curl/curl.h>
#include "../CLibraryLoader/library_loader.h"

#if defined(__linux__)
// What the event loop drives libcurl's socket interface with (HTTPEventLoop.swift): Glibc's Swift module has
// neither header.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

// libcurl is not linked: it is loaded when afkit first opens a URL. Linked, it and the libraries it
// brings (OpenSSL, nghttp2, libssh2, LDAP, Kerberos, ...) cost every afkit process about 10 ms at start.
#define AFKIT_CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_version_info) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) \
    X(curl_easy_getinfo) X(curl_easy_pause) X(curl_easy_strerror) X(curl_multi_init) X(curl_multi_cleanup) \
    X(curl_multi_add_handle) X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_poll) \
    X(curl_multi_wakeup) X(curl_multi_info_read) X(curl_slist_append) X(curl_slist_free_all) \
    X(curl_multi_setopt) X(curl_multi_socket_action)

/// The libcurl functions afkit calls.
struct afkit_curl {
    AFKIT_CURL_FUNCTIONS(AFKIT_LIBRARY_FIELD)
};

// libcurl of soname 4.
#if defined(__APPLE__)
#define AFKIT_CURL_NAMES "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib"
#else
#define AFKIT_CURL_NAMES "libcurl.so.4"
#endif

/// Loads libcurl and resolves every function (`afkit_curl_load`, CLibraryLoader's loader).
AFKIT_LIBRARY_LOADER(afkit_curl, AFKIT_CURL_FUNCTIONS, AFKIT_CURL_NAMES, "")

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed entry each. */

static inline CURLcode afkit_curl_set_long(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLoption option, long value) {
    return api->curl_easy_setopt(handle, option, value);
}

static inline CURLcode afkit_curl_set_pointer(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLoption option, const void *_Nullable value) {
    return api->curl_easy_setopt(handle, option, value);
}

static inline CURLcode afkit_curl_set_write_function(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLoption option, size_t (*_Nonnull function)(char *_Nullable, size_t, size_t, void *_Nullable)) {
    return api->curl_easy_setopt(handle, option, function);
}

static inline CURLcode afkit_curl_set_blob(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLoption option, const void *_Nullable data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return api->curl_easy_setopt(handle, option, &blob);
}

static inline CURLcode afkit_curl_get_long(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLINFO info, long *_Nonnull value) {
    return api->curl_easy_getinfo(handle, info, value);
}

static inline CURLcode afkit_curl_get_string(const struct afkit_curl *_Nonnull api, CURL *_Nonnull handle,
    CURLINFO info, const char *_Nullable *_Nonnull value) {
    return api->curl_easy_getinfo(handle, info, value);
}

/* curl_multi_setopt is variadic too: the socket and timer callbacks of the multi socket interface, each with the
   pointer it is called with. */

static inline CURLMcode afkit_curl_multi_set_socket_function(const struct afkit_curl *_Nonnull api,
    CURLM *_Nonnull multi, int (*_Nonnull function)(CURL *_Nullable, curl_socket_t, int, void *_Nullable,
    void *_Nullable), void *_Nullable context) {
    CURLMcode code = api->curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
    return code != CURLM_OK ? code : api->curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
}

static inline CURLMcode afkit_curl_multi_set_timer_function(const struct afkit_curl *_Nonnull api,
    CURLM *_Nonnull multi, int (*_Nonnull function)(CURLM *_Nullable, long, void *_Nullable),
    void *_Nullable context) {
    CURLMcode code = api->curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
    return code != CURLM_OK ? code : api->curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}

/* CURLMsg's result sits in a union. */
static inline CURLcode afkit_curl_message_result(const CURLMsg *_Nonnull message) {
    return message->data.result;
}
