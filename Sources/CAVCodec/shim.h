#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <errno.h>

// AVERROR() and AVERROR_EOF are function-like macros, which Swift does not import.
static inline int afkit_averror_again(void) { return AVERROR(EAGAIN); }
static inline int afkit_averror_eof(void) { return AVERROR_EOF; }
static inline int afkit_qp2lambda(void) { return FF_QP2LAMBDA; }
