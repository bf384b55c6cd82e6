#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// libcurl is not linked: it is loaded when afkit first opens a URL. Linked, it and the libraries it
// brings (OpenSSL, nghttp2, libssh2, LDAP, Kerberos, ...) cost every afkit process about 10 ms at start.
#define AFKIT_CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_version_info) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) \
    X(curl_easy_getinfo) X(curl_easy_pause) X(curl_easy_strerror) X(curl_multi_init) X(curl_multi_cleanup) \
    X(curl_multi_add_handle) X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_poll) \
    X(curl_multi_wakeup) X(curl_multi_info_read) X(curl_slist_append) X(curl_slist_free_all)

/// The libcurl functions afkit calls.
struct afkit_curl {
#define AFKIT_CURL_FIELD(name) __typeof__(&name) _Nonnull name;
    AFKIT_CURL_FUNCTIONS(AFKIT_CURL_FIELD)
#undef AFKIT_CURL_FIELD
};

/// Loads libcurl (soname 4) and resolves every function; returns NULL and a message in `error` when
/// the library or a function is missing. Call it once.
static inline const struct afkit_curl *_Nullable afkit_curl_load(char *_Nonnull error, size_t size) {
#if defined(__APPLE__)
    static const char *const names[] = {"libcurl.4.dylib", "/usr/lib/libcurl.4.dylib"};
#else
    static const char *const names[] = {"libcurl.so.4"};
#endif
    void *library = NULL;
    for (size_t index = 0; index < sizeof names / sizeof names[0] && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        snprintf(error, size, "%s cannot be loaded (%s)", names[0], dlerror());
        return NULL;
    }
    struct afkit_curl *functions = malloc(sizeof *functions);
    if (functions == NULL) {
        dlclose(library);
        snprintf(error, size, "out of memory");
        return NULL;
    }
#define AFKIT_CURL_RESOLVE(name) \
    if ((*(void **)&functions->name = dlsym(library, #name)) == NULL) { \
        snprintf(error, size, "%s lacks %s", names[0], #name); \
        free(functions); \
        dlclose(library); \
        return NULL; \
    }
    AFKIT_CURL_FUNCTIONS(AFKIT_CURL_RESOLVE)
#undef AFKIT_CURL_RESOLVE
    return functions;
}

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

/* CURLMsg's result sits in a union. */
static inline CURLcode afkit_curl_message_result(const CURLMsg *_Nonnull message) {
    return message->data.result;
}
