#!/usr/bin/env bash
# Loop points as game engines and RPG Maker keep them, in Vorbis comments (issue 53): LOOPSTART with
# LOOPLENGTH, or with LOOPEND, set by the field's own taggers (vorbiscomment from vorbis-tools 1.4.2,
# metaflac from flac 1.4.2, opusenc's --comment from opus-tools 0.2) on a 1 s tone. Tests read the committed
# files (loops/); run from this folder to remake them:
#   bash make-loop-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=loops
rm -rf "$OUT" && mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact -i signals/music.wav -t 1 -map_metadata -1 "$T/tone.wav"
oggenc -Q -q 2 "$T/tone.wav" -o "$T/plain.ogg"
vorbiscomment -w -t "TITLE=Looped" -t "LOOPSTART=4410" -t "LOOPLENGTH=11025" "$T/plain.ogg" $OUT/vorbis-looplength.ogg
flac --silent --no-padding -T "LOOPSTART=2205" -T "LOOPEND=19845" -o $OUT/flac-loopend.flac "$T/tone.wav"
opusenc --quiet --bitrate 32 --comment "LOOPSTART=9600" --comment "LOOPLENGTH=24000" "$T/tone.wav" $OUT/opus-looplength.opus
