#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <errno.h>
#include "../CLibraryLoader/library_loader.h"

// AVERROR() and AVERROR_EOF are function-like macros, which Swift does not import.
static inline int afkit_averror_again(void) { return AVERROR(EAGAIN); }
static inline int afkit_averror_eof(void) { return AVERROR_EOF; }
static inline int afkit_qp2lambda(void) { return FF_QP2LAMBDA; }

// libavcodec is not linked: it is loaded when a codec first needs it. Linked, it and the hundred
// libraries it pulls in (video codecs, image formats) cost every afkit process about 20 ms at start.
#define AFKIT_AV_FUNCTIONS(X) \
    X(av_log_set_level) X(avcodec_find_encoder_by_name) X(avcodec_find_decoder_by_name) \
    X(avcodec_alloc_context3) X(avcodec_free_context) X(avcodec_open2) X(avcodec_flush_buffers) \
    X(avcodec_send_frame) X(avcodec_receive_packet) X(avcodec_send_packet) X(avcodec_receive_frame) \
    X(av_frame_alloc) X(av_frame_free) X(av_frame_unref) X(av_frame_get_buffer) X(av_frame_make_writable) \
    X(av_packet_alloc) X(av_packet_free) X(av_packet_unref) X(av_dict_set) X(av_dict_free) \
    X(av_mallocz) X(av_free) X(av_strerror) X(av_channel_layout_copy) X(av_channel_layout_default) \
    X(avcodec_version)

/// The libavcodec and libavutil functions afkit calls, resolved from the libraries afkit was built against.
struct afkit_av {
    AFKIT_AV_FUNCTIONS(AFKIT_LIBRARY_FIELD)
};

#define AFKIT_AV_STRING(x) AFKIT_AV_STRING_(x)
#define AFKIT_AV_STRING_(x) #x

// libavcodec of the headers' major version; a handle's lookups reach libavutil's functions through it.
#if defined(__APPLE__)
#define AFKIT_AV_NAMES \
    "libavcodec." AFKIT_AV_STRING(LIBAVCODEC_VERSION_MAJOR) ".dylib", \
    "/opt/homebrew/lib/libavcodec." AFKIT_AV_STRING(LIBAVCODEC_VERSION_MAJOR) ".dylib", \
    "/usr/local/lib/libavcodec." AFKIT_AV_STRING(LIBAVCODEC_VERSION_MAJOR) ".dylib", \
    "/opt/local/lib/libavcodec." AFKIT_AV_STRING(LIBAVCODEC_VERSION_MAJOR) ".dylib"
#else
#define AFKIT_AV_NAMES "libavcodec.so." AFKIT_AV_STRING(LIBAVCODEC_VERSION_MAJOR)
#endif

/// Loads libavcodec and resolves every function (`afkit_av_load`, CLibraryLoader's loader).
AFKIT_LIBRARY_LOADER(afkit_av, AFKIT_AV_FUNCTIONS, AFKIT_AV_NAMES, "")
