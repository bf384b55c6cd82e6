#!/usr/bin/env bash
# Files in formats afkit recognises by their signature but does not read, made by the tools that make
# them in the field (FFmpeg 5.1 and SoX 14.4 from Debian 12), from half a second of the committed speech
# signal. Tests read the committed files (refused/); run from this folder to remake them:
#   bash make-refused-fixtures.sh
# The recipe of each file is the line that makes it.
set -euo pipefail
cd "$(dirname "$0")"
OUT=refused
SRC=$(mktemp --suffix=.wav)
trap 'rm -f "$SRC"' EXIT
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"
$FF -i signals/speech.wav -t 0.5 -ac 1 -ar 16000 "$SRC"

$FF -i "$SRC" -c:a libopus -b:a 24k $OUT/ogg-opus.opus
$FF -i "$SRC" -c:a flac -f ogg $OUT/ogg-flac.oga
$FF -i "$SRC" -c:a libspeex -f ogg $OUT/ogg-speex.spx
sox "$SRC" -C 0 $OUT/ogg-vorbis.ogg
$FF -i "$SRC" -c:a aac -b:a 32k $OUT/matroska-aac.mka
$FF -i "$SRC" -c:a libopus -b:a 24k $OUT/webm-opus.webm
$FF -i "$SRC" -c:a wmav2 -b:a 32k $OUT/wma.wma
$FF -i "$SRC" -c:a tta $OUT/tta.tta
$FF -i "$SRC" -c:a wavpack $OUT/wavpack.wv
$FF -i "$SRC" -c:a mp2 -b:a 64k -f mpeg $OUT/mpeg-ps-mp2.mpg
$FF -i "$SRC" -c:a mp2 -b:a 64k -f mpegts $OUT/mpeg-ts-mp2.ts
$FF -i "$SRC" -c:a aac -b:a 32k -f mpegts $OUT/mpeg-ts-aac.ts
sox "$SRC" $OUT/creative.voc
sox "$SRC" $OUT/nist.sph
sox "$SRC" -t ircam $OUT/ircam.sf
sox "$SRC" -t paf $OUT/ensoniq.paf
sox "$SRC" -t xi $OUT/fasttracker.xi
sox "$SRC" -t htk $OUT/htk.htk
sox "$SRC" $OUT/amiga.8svx
$FF -i "$SRC" -c:a aac -b:a 32k -f flv $OUT/flv-aac.flv
$FF -i "$SRC" -c:a pcm_s16le -f avi $OUT/avi-pcm.avi
# Text that claims to be an MP3. (Opus in CAF, made here once, is read now: other/caf-opus.caf.)
printf 'This is a text file named like an MP3.\nIt holds no audio at all.\n' > $OUT/text.mp3
