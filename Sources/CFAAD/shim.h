#include <neaacdec.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// libfaad2 (GPL-2.0-or-later) is not linked on Linux: it is loaded when an AAC stream libavcodec is not given
// first needs it, so a binary of afkit links no GPL library, and a process that decodes no such stream never
// loads it. Elsewhere pkg-config links it and the table holds its functions.
#define AFKIT_FAAD_FUNCTIONS(X) \
    X(NeAACDecOpen) X(NeAACDecGetCurrentConfiguration) X(NeAACDecSetConfiguration) X(NeAACDecInit2) \
    X(NeAACDecClose) X(NeAACDecDecode) X(NeAACDecGetErrorMessage) X(NeAACDecPostSeekReset) X(NeAACDecGetVersion)

/// The libfaad2 functions afkit calls.
struct afkit_faad {
#define AFKIT_FAAD_FIELD(name) __typeof__(&name) _Nonnull name;
    AFKIT_FAAD_FUNCTIONS(AFKIT_FAAD_FIELD)
#undef AFKIT_FAAD_FIELD
};

/// Loads libfaad2 and resolves every function; returns NULL and a message in `error` when the library or a
/// function is missing. Call it once.
static inline const struct afkit_faad *_Nullable afkit_faad_load(char *_Nonnull error, size_t size) {
    struct afkit_faad *functions = malloc(sizeof *functions);
    if (functions == NULL) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
#if defined(__APPLE__)
#define AFKIT_FAAD_LINKED(name) functions->name = &name;
    AFKIT_FAAD_FUNCTIONS(AFKIT_FAAD_LINKED)
#undef AFKIT_FAAD_LINKED
    (void)error;
    (void)size;
#else
    static const char *const name = "libfaad.so.2";
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(error, size, "%s cannot be loaded (%s): install Debian's libfaad2", name, dlerror());
        free(functions);
        return NULL;
    }
#define AFKIT_FAAD_RESOLVE(symbol) \
    if ((*(void **)&functions->symbol = dlsym(library, #symbol)) == NULL) { \
        snprintf(error, size, "%s lacks %s", name, #symbol); \
        free(functions); \
        dlclose(library); \
        return NULL; \
    }
    AFKIT_FAAD_FUNCTIONS(AFKIT_FAAD_RESOLVE)
#undef AFKIT_FAAD_RESOLVE
#endif
    return functions;
}
