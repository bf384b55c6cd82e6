#!/usr/bin/env bash
# Files long enough to seek in (12 s, many pages and frames), made the way users have them, for the
# seek tests (SeekTests): every packet labelled after a seek must be, byte for byte, the packet of its index.
# LAME 3.100, FFmpeg 5.1 (its native AAC and AC-3 encoders), opusenc 0.2, oggenc 1.4.2, flac 1.4.2 and
# SoX 14.4 from Debian 12's packages. Run from this folder to remake them:
#   bash make-seek-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=seek
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"

# The source: 12 s of mono 16 kHz, speech then music then noise (so VBR frames vary in size).
$FF -i signals/speech.wav -i signals/music.wav -i signals/noise.wav \
    -filter_complex "[0]aresample=16000,aloop=loop=-1:size=2e9[a];[1]aresample=16000,aloop=loop=-1:size=2e9[b];[2]aresample=16000,volume=0.3,aloop=loop=-1:size=2e9[c];[a][b][c]amix=inputs=3:duration=longest,atrim=0:12" \
    -ac 1 -ar 16000 -t 12 "$T/source.wav"

lame --quiet -V 6 --tt "Seek test" --ta afkit "$T/source.wav" $OUT/lame-vbr.mp3            # Xing table of contents
lame --quiet -b 32 --add-id3v2 --tt "Seek test" "$T/source.wav" $OUT/lame-cbr-id3.mp3       # CBR behind an ID3v2 tag
$FF -i "$T/source.wav" -c:a aac -b:a 32k $OUT/ffmpeg-aac.aac                                # ADTS
opusenc --quiet --bitrate 24 "$T/source.wav" $OUT/opusenc.opus                              # default 1 s pages
oggenc --quiet -q 0 "$T/source.wav" -o $OUT/oggenc.ogg
$FF -i "$T/source.wav" -ar 8000 -t 6 -sample_fmt s16 "$T/flac.wav"
flac --silent --force --no-seektable --blocksize 1152 "$T/flac.wav" -o $OUT/no-seektable.flac      # seeks estimated
$FF -i "$T/source.wav" -c:a ac3 -b:a 32k $OUT/ffmpeg.ac3
