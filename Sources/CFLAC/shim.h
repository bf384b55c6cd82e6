#include <FLAC/format.h>
#include <FLAC/stream_encoder.h>

// A global the library exports, read through a function (Swift 6 does not touch shared C variables).
static inline const char *afkit_flac_version(void) { return FLAC__VERSION_STRING; }
