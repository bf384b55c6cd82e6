#!/usr/bin/env bash
# Wave64, BW64 and Sun/NeXT AU fixtures, made by the tools that write them in the field (FFmpeg 5.1,
# SoX 14.4 and libsndfile 1.2's sndfile-convert, Debian 12), from the committed signals. Tests read the
# committed files (chunked/); run from this folder to remake them:
#   bash make-chunked-fixtures.sh
# Beside each file, NAME.f32.md5: the MD5 of FFmpeg's decode to 32-bit float little-endian samples
# (`ffmpeg -i NAME -f f32le -`; SoX's where FFmpeg cannot read the file), which afkit's reading must
# equal sample for sample.
set -euo pipefail
cd "$(dirname "$0")"
OUT=chunked
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"
$FF -i signals/music.wav -i signals/speech.wav -filter_complex "[0][1]amerge=inputs=2" -t 0.3 "$T/stereo.wav"
$FF -i signals/speech.wav -t 0.2 "$T/mono.wav"

# Wave64: FFmpeg (16- and 24-bit, float), SoX, and libsndfile with an odd data size (8-bit mono, 4411
# frames: the chunk is padded to 8 bytes).
$FF -i "$T/stereo.wav" -c:a pcm_s16le -f w64 $OUT/ffmpeg-s16.w64
$FF -i "$T/stereo.wav" -c:a pcm_s24le -f w64 $OUT/ffmpeg-s24.w64
$FF -i "$T/mono.wav" -c:a pcm_f32le -f w64 $OUT/ffmpeg-f32.w64
sox "$T/stereo.wav" $OUT/sox.w64
sox "$T/mono.wav" -b 8 "$T/odd.wav" trim 0 4409s
sndfile-convert -pcmu8 "$T/odd.wav" $OUT/sndfile-u8-odd.w64
# BW64 (ITU-R BS.2088): RF64's layout under the ID 'BW64'. No Debian tool writes it: FFmpeg's RF64
# with its first four bytes changed to 'BW64'.
$FF -i "$T/stereo.wav" -c:a pcm_s24le -rf64 always $OUT/bw64.wav
printf 'BW64' | dd of=$OUT/bw64.wav bs=1 conv=notrunc status=none

# AU: SoX (16-bit, u-law, A-law, 8-bit signed, 24-bit, float), libsndfile (little-endian 'dns.', double),
# and FFmpeg writing to a pipe (data size 0xFFFFFFFF: to the end).
sox "$T/mono.wav" $OUT/sox-s16.au
sox "$T/mono.wav" -e u-law $OUT/sox-ulaw.au
sox "$T/mono.wav" -e a-law $OUT/sox-alaw.au
sox "$T/mono.wav" -e signed -b 8 $OUT/sox-s8.au
sox "$T/stereo.wav" -b 24 $OUT/sox-s24.au
sox "$T/mono.wav" -e floating-point -b 32 $OUT/sox-f32.au
sndfile-convert -endian=little -pcm16 "$T/stereo.wav" $OUT/sndfile-le.au
sndfile-convert -float64 "$T/mono.wav" $OUT/sndfile-double.au
$FF -i "$T/mono.wav" -c:a pcm_s16be -f au pipe:1 > $OUT/ffmpeg-pipe.au

for file in $OUT/*.w64 $OUT/*.au $OUT/bw64.wav; do
    if ffprobe -v quiet "$file" < /dev/null; then
        ffmpeg -nostdin -v error -i "$file" -f f32le -c:a pcm_f32le - | md5sum | cut -d' ' -f1 > "$file.f32.md5"
    else
        # FFmpeg does not read little-endian ('dns.') AU: SoX's decode instead.
        sox "$file" -t raw -e floating-point -b 32 -L - | md5sum | cut -d' ' -f1 > "$file.f32.md5"
    fi
done
