#!/usr/bin/env bash
# References for the Audio Converter Services programs (Tests/AudioToolboxCompatTests/AudioConverterTests.swift):
# FFmpeg 5.1's (Debian 12) decodes of fixtures that other scripts made, every frame its decoder gives. Run from this
# folder to remake them:
#   bash make-converter-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=converter
mkdir -p $OUT
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"

# AAC in ADTS (no magic cookie: the converter configures its decoder from the stream description), all 1024-frame
# packets as libavcodec's AAC decoder gives them (ADTS records no priming, so FFmpeg trims none); the first 32,768
# frames, to keep the file small.
$FF -i adts/aac-lc-44k-stereo.aac -af atrim=end_sample=32768 -f s16le $OUT/aac-lc-44k-stereo.aac.s16le
# 24-bit little-endian PCM in CAF, as 32-bit words (the samples in their top 24 bits).
$FF -i caf/pcm-s24le-stereo.caf -f s32le $OUT/pcm-s24le-stereo.caf.s32le
# 16-bit big-endian PCM in AIFF, as native 16-bit words.
$FF -i aiff/pcm-s16-stereo.aiff -f s16le $OUT/pcm-s16-stereo.aiff.s16le
# The other codecs a player meets, each the first 16,384 frames of every frame FFmpeg's decoder gives (an MP4's edit
# list ignored, as a converter knows none): HE-AAC v2 in MP4 (both signallings), AC-3, E-AC-3, AMR-NB, AMR-WB, Vorbis
# in Ogg, MPEG-1 Layer II and AAC in LOAS.
for f in world-classes/heaac-v2-explicit.m4a world-classes/heaac-v2-backward-compatible.m4a; do
    $FF -ignore_editlist 1 -i $f -af atrim=end_sample=16384 -f s16le $OUT/$(basename $f).s16le
done
for f in framed/stereo-44k.ac3 framed/stereo.eac3 framed/speech.amr framed/speech-wb.amr ogg/oggenc-stereo.ogg \
    mp3/ffmpeg-mp2-48k.mp2 framed/stereo.loas; do
    $FF -i $f -af atrim=end_sample=16384 -f s16le $OUT/$(basename $f).s16le
done
# Decoding and resampling at once: every frame of the library's AAC (its edit list ignored) at 48 kHz by libsoxr at
# 28 bits (the recipe afkit's converter uses), the first 16,384 frames.
$FF -ignore_editlist 1 -i library/stereo.m4a -af aresample=48000:resampler=soxr:precision=28,atrim=end_sample=16384 \
    -f s16le $OUT/stereo.m4a.48k.s16le
