#include <opus.h>
#include <opus_multistream.h>

// opus_encoder_ctl and opus_multistream_encoder_ctl are variadic, which Swift does not import: one
// function per request afkit makes, on the multistream encoder (which serves mono and stereo too).
static inline int afkit_opus_set_bitrate(OpusMSEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}
static inline int afkit_opus_set_vbr(OpusMSEncoder *encoder, opus_int32 variable) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_VBR(variable));
}
static inline int afkit_opus_set_vbr_constraint(OpusMSEncoder *encoder, opus_int32 constrained) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_VBR_CONSTRAINT(constrained));
}
static inline int afkit_opus_set_complexity(OpusMSEncoder *encoder, opus_int32 complexity) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
static inline int afkit_opus_set_signal(OpusMSEncoder *encoder, opus_int32 signal) {
    return opus_multistream_encoder_ctl(encoder, OPUS_SET_SIGNAL(signal));
}
static inline int afkit_opus_lookahead(OpusMSEncoder *encoder, opus_int32 *frames) {
    return opus_multistream_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(frames));
}
static inline int afkit_opus_signal_voice(void) { return OPUS_SIGNAL_VOICE; }
static inline int afkit_opus_signal_music(void) { return OPUS_SIGNAL_MUSIC; }
