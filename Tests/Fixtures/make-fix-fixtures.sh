#!/usr/bin/env bash
# Ogg Vorbis sources for the fixes validate suggests (FixesThatRunTests): afkit does not write Vorbis, so
# oggenc 1.4.2 (vorbis-tools, Debian 12) makes them from FFmpeg 5.1's tones. Each fails one system-sound rule
# that has a fix. Tests read the committed files (fixes/); run from this folder to remake them:
#   bash make-fix-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=fixes
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
# long.ogg: 31 s, 8 kHz mono (duration: more than 30 s).
$FF -f lavfi -i "sine=f=440:r=8000:d=31" -c:a pcm_s16le "$T/long.wav"
oggenc -Q -q 0 "$T/long.wav" -o $OUT/long.ogg
# wide.ogg: 1 s, 3 channels at 48 kHz (channels: more than 2).
$FF -f lavfi -i "sine=f=440:r=48000:d=1" -af "pan=3c|c0=c0|c1=0.5*c0|c2=0.25*c0" -c:a pcm_s16le "$T/wide.wav"
oggenc -Q -q 0 "$T/wide.wav" -o $OUT/wide.ogg
# fast.ogg: 1 s at 96 kHz (sample-rate: above 48 kHz).
$FF -f lavfi -i "sine=f=440:r=96000:d=1" -c:a pcm_s16le "$T/fast.wav"
oggenc -Q -q 0 "$T/fast.wav" -o $OUT/fast.ogg
# quiet-start.ogg: 1 s of digital silence, then 1 s of tone, 44.1 kHz (silence: more than 0.5 s before it).
$FF -f lavfi -i "aevalsrc=if(lt(t\,1)\,0\,0.5*sin(2*PI*440*t)):s=44100:d=2" -c:a pcm_s16le "$T/quiet.wav"
oggenc -Q -q 0 "$T/quiet.wav" -o $OUT/quiet-start.ogg
# Loud MP3s (LAME 3.100, Debian 12) for a loudness fix that keeps the file's encoding (-V 2, -V 7, --abr 96,
# -b 96): 3 s of two tones at -1 dBFS, 44.1 kHz stereo, far over the music profile's -16 LUFS.
$FF -f lavfi -i "aevalsrc=0.45*sin(2*PI*220*t)+0.44*sin(2*PI*330*t):s=44100:d=3" -ac 2 -c:a pcm_s16le "$T/loud.wav"
lame --quiet -V 2 "$T/loud.wav" $OUT/loud-v2.mp3
lame --quiet -V 7 "$T/loud.wav" $OUT/loud-v7.mp3
lame --quiet --abr 96 "$T/loud.wav" $OUT/loud-abr96.mp3
lame --quiet -b 96 "$T/loud.wav" $OUT/loud-cbr96.mp3
