#include <neaacdec.h>
#include "../CLibraryLoader/library_loader.h"

// libfaad2 (GPL-2.0-or-later) is not linked on Linux: it is loaded when an AAC stream libavcodec is not given
// first needs it, so a binary of afkit links no GPL library, and a process that decodes no such stream never
// loads it. Elsewhere pkg-config links it and the table holds its functions.
#define AFKIT_FAAD_FUNCTIONS(X) \
    X(NeAACDecOpen) X(NeAACDecGetCurrentConfiguration) X(NeAACDecSetConfiguration) X(NeAACDecInit2) \
    X(NeAACDecClose) X(NeAACDecDecode) X(NeAACDecGetErrorMessage) X(NeAACDecPostSeekReset) X(NeAACDecGetVersion)

/// The libfaad2 functions afkit calls.
struct afkit_faad {
    AFKIT_FAAD_FUNCTIONS(AFKIT_LIBRARY_FIELD)
};

/// Loads libfaad2 and resolves every function (`afkit_faad_load`, CLibraryLoader's loader); where it is
/// linked, the table holds the functions' own addresses.
#if defined(__APPLE__)
AFKIT_LIBRARY_LINKED(afkit_faad, AFKIT_FAAD_FUNCTIONS)
#else
AFKIT_LIBRARY_LOADER(afkit_faad, AFKIT_FAAD_FUNCTIONS, "libfaad.so.2", ": install Debian's libfaad2")
#endif
