#ifndef AFKIT_LIBRARY_LOADER_H
#define AFKIT_LIBRARY_LOADER_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

// The one loader of the C libraries afkit loads on first use rather than links (libavcodec, libfaad2 and
// libcurl: each shim says why). A shim lists its library's functions in an X macro (`X(name) X(name) ...`)
// and the file names to try, and declares its table and loader with the macros below:
//
//     struct afkit_curl { AFKIT_CURL_FUNCTIONS(AFKIT_LIBRARY_FIELD) };
//     AFKIT_LIBRARY_LOADER(afkit_curl, AFKIT_CURL_FUNCTIONS, AFKIT_CURL_NAMES, "")
//
// which defines `const struct afkit_curl *afkit_curl_load(char *error, size_t size)`: it loads the first
// of the names that loads and resolves every function, or returns NULL with a message in `error`
// ("NAME cannot be loaded (REASON)HINT", "NAME lacks FUNCTION" or "out of memory", NAME the first name
// tried). Call a loader once.

/// A table's field: the function's pointer, of the type its header declares.
#define AFKIT_LIBRARY_FIELD(name) __typeof__(&name) _Nonnull name;

/// Opens the first of `names` that loads; NULL and "NAME cannot be loaded (REASON)HINT" in `error` where
/// none does (NAME the first of them, REASON the last failure's).
static inline void *_Nullable afkit_library_open(const char *const _Nonnull *_Nonnull names, size_t count,
    const char *_Nonnull hint, char *_Nonnull error, size_t size) {
    void *library = NULL;
    for (size_t index = 0; index < count && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        snprintf(error, size, "%s cannot be loaded (%s)%s", names[0], dlerror(), hint);
    }
    return library;
}

/// Room for an opened library's table of `length` bytes; NULL, the library closed and "out of memory" in
/// `error` where there is none.
static inline void *_Nullable afkit_library_table(void *_Nonnull library, size_t length, char *_Nonnull error,
    size_t size) {
    void *table = malloc(length);
    if (table == NULL) {
        dlclose(library);
        snprintf(error, size, "out of memory");
    }
    return table;
}

/// Resolves `symbol` into `slot`; false, the table freed, the library closed and "NAME lacks SYMBOL" in
/// `error` where the library lacks it. A handle's lookups reach the libraries it depends on (libavutil's
/// functions resolve through libavcodec's).
static inline bool afkit_library_resolve(void *_Nonnull library, const char *_Nonnull name,
    const char *_Nonnull symbol, void *_Nullable *_Nonnull slot, void *_Nonnull table, char *_Nonnull error,
    size_t size) {
    if ((*slot = dlsym(library, symbol)) != NULL) {
        return true;
    }
    snprintf(error, size, "%s lacks %s", name, symbol);
    free(table);
    dlclose(library);
    return false;
}

#define AFKIT_LIBRARY_RESOLVE(name) \
    if (!afkit_library_resolve(library, names[0], #name, (void **)&table->name, table, error, size)) { \
        return NULL; \
    }

/// Defines `TABLE_load`, which loads the first of NAMES (a comma-separated list of file names, in the order
/// tried) and resolves every function FUNCTIONS lists into a `struct TABLE`; HINT ends the message when the
/// library cannot be loaded.
#define AFKIT_LIBRARY_LOADER(TABLE, FUNCTIONS, NAMES, HINT) \
    static inline const struct TABLE *_Nullable TABLE##_load(char *_Nonnull error, size_t size) { \
        static const char *const names[] = {NAMES}; \
        void *library = afkit_library_open(names, sizeof names / sizeof names[0], HINT, error, size); \
        if (library == NULL) { \
            return NULL; \
        } \
        struct TABLE *table = afkit_library_table(library, sizeof *table, error, size); \
        if (table == NULL) { \
            return NULL; \
        } \
        FUNCTIONS(AFKIT_LIBRARY_RESOLVE) \
        return table; \
    }

/// Defines `TABLE_load` for a library that is linked: the table holds FUNCTIONS's own addresses.
#define AFKIT_LIBRARY_LINKED(TABLE, FUNCTIONS) \
    static inline const struct TABLE *_Nullable TABLE##_load(char *_Nonnull error, size_t size) { \
        struct TABLE *table = malloc(sizeof *table); \
        if (table == NULL) { \
            snprintf(error, size, "out of memory"); \
            return NULL; \
        } \
        FUNCTIONS(AFKIT_LIBRARY_ADDRESS) \
        return table; \
    }

#define AFKIT_LIBRARY_ADDRESS(name) table->name = &name;

#endif
