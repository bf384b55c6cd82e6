#!/usr/bin/env bash
# Ogg fixtures made by the reference encoders (oggenc 1.4.2 from vorbis-tools, opusenc 0.2 from
# opus-tools, flac 1.4.2) and FFmpeg 5.1 (Debian 12), from the committed signals. Tests read the
# committed files (ogg/); run from this folder to remake them:
#   bash make-ogg-fixtures.sh
# Beside each file: NAME.packets (ffprobe -show_packets: size and page position of each audio packet)
# and NAME.frames (the frames the reference decoder gives: `oggdec` for Vorbis, `opusdec` for Opus,
# FFmpeg for FLAC in Ogg, each counted from its WAV output, gapless as the player hears it; for the
# video file, the audio stream's length as ffprobe and ogginfo give it).
set -euo pipefail
cd "$(dirname "$0")"
OUT=ogg
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
$FF -i signals/speech.wav -t 1.5 "$T/speech.wav"
$FF -i signals/music.wav -i signals/speech.wav -filter_complex "[0][1]amerge=inputs=2,aresample=44100" -t 1 "$T/stereo.wav"
$FF -i signals/music.wav -t 0.7 -ar 48000 "$T/music48.wav"

oggenc -Q -q 2 -t "Speech" -a "afkit" -c "COMMENT=made by oggenc" "$T/speech.wav" -o $OUT/oggenc-speech.ogg
oggenc -Q -q 6 "$T/stereo.wav" -o $OUT/oggenc-stereo.ogg
opusenc --quiet --bitrate 24 --title "Voice" "$T/speech.wav" $OUT/opusenc-voice.opus
opusenc --quiet --bitrate 96 "$T/stereo.wav" $OUT/opusenc-stereo.opus
opusenc --quiet --bitrate 64 --framesize 60 "$T/music48.wav" $OUT/opusenc-60ms.opus
$FF -i "$T/stereo.wav" -c:a libvorbis -q:a 3 $OUT/ffmpeg-vorbis.ogg
$FF -i "$T/stereo.wav" -c:a libopus -b:a 64k $OUT/ffmpeg-opus.opus
flac --silent --ogg "$T/speech.wav" -o $OUT/flac-ogg.oga
$FF -i "$T/stereo.wav" -c:a flac $OUT/ffmpeg-flac.oga
# Two streams chained (concatenated): the first counts.
oggenc -Q -q 2 "$T/music48.wav" -o "$T/second.ogg"
cat $OUT/oggenc-speech.ogg "$T/second.ogg" > $OUT/chained.ogg
# A Theora video stream first, Vorbis audio second.
$FF -f lavfi -i testsrc=size=32x24:rate=5 -i "$T/speech.wav" -t 1 -c:v libtheora -q:v 1 -c:a libvorbis -q:a 1 \
    -map 0:v -map 1:a $OUT/video-first.ogv

for file in $OUT/*.ogg $OUT/*.opus $OUT/*.oga $OUT/*.ogv; do
    name=${file%.*}
    ffprobe -v error -select_streams a:0 -show_entries packet=size,pos -of csv=p=0 "$file" > "$name.packets" < /dev/null
    case $file in
    *.opus) opusdec --quiet --rate 48000 --force-wav "$file" "$T/out.wav" ;;
    *.oga) ffmpeg -nostdin -v error -y -i "$file" -f wav "$T/out.wav" ;;
    *.ogv)
        # FFmpeg's decode of the multiplexed file stops short of the audio's end (21,794 of 22,050 frames);
        # ogginfo and ffprobe agree on the audio stream's length, from its granule positions.
        ffprobe -v error -select_streams a:0 -show_entries stream=duration_ts -of csv=p=0 "$file" > "$name.frames" < /dev/null
        continue ;;
    *) oggdec --quiet "$file" -o "$T/out.wav" ;;
    esac
    soxi -s "$T/out.wav" > "$name.frames"
done
# opusdec is asked for Opus's own 48 kHz (it would resample to the rate OpusHead names). FLAC in Ogg has
# no reference decoder of its own in Debian, and oggdec cannot read past a video stream: FFmpeg's decode.

# Damaged and cut copies of oggenc-stereo.ogg: one byte of a middle page flipped (its CRC-32 fails),
# and the file cut in the middle of a page.
size=$(stat -c %s $OUT/oggenc-stereo.ogg)
cp $OUT/oggenc-stereo.ogg $OUT/damaged.ogg.bin
printf '\x55' | dd of=$OUT/damaged.ogg.bin bs=1 seek=$((size / 2)) conv=notrunc status=none
head -c $((size / 2)) $OUT/oggenc-stereo.ogg > $OUT/truncated.ogg.bin
# A header page (the second: comments and setup) whose granule position is 2^63-1, its CRC-32 made again:
# the counts then leave no valid frame (issue 53: converted to an empty CAF with exit 0).
python3 - "$OUT/oggenc-stereo.ogg" "$OUT/header-granule.ogg.bin" <<'PY'
import struct, sys
def crc(data):
    c = 0
    for b in data:
        c ^= b << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if c & 0x80000000 else (c << 1) & 0xFFFFFFFF
    return c
d = bytearray(open(sys.argv[1], "rb").read())
i = 27 + d[26] + sum(d[27:27 + d[26]])  # the second page
size = 27 + d[i + 26] + sum(d[i + 27:i + 27 + d[i + 26]])
struct.pack_into("<q", d, i + 6, 2**63 - 1)
struct.pack_into("<I", d, i + 22, 0)
struct.pack_into("<I", d, i + 22, crc(d[i:i + size]))
open(sys.argv[2], "wb").write(d)
PY

# opusdec's decode of the voice file, its first half second as 16-bit samples: the reference for where
# afkit's decoded frames fall (gapless alignment, not only their count).
opusdec --quiet --rate 48000 --force-wav $OUT/opusenc-voice.opus "$T/voice.wav"
$FF -i "$T/voice.wav" -t 0.5 -f s16le $OUT/opusenc-voice.opusdec.s16
