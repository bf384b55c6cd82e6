#!/usr/bin/env bash
# Fixtures for the library as Swift programs use it (AssetValidator's defaults, ExtendedAudioFile, the
# AudioToolbox-compatible layer): files made by LAME 3.100, FFmpeg 5.1 and SoX 14.4 from Debian 12's
# packages, and FFmpeg's own decodes of them as references. Run from this folder to remake them:
#   bash make-library-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=library
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"

# A quiet MP3 (about -51 LUFS): the speech signal 40 dB down, as a take recorded far too low.
sox signals/speech.wav "$T/quiet.wav" vol -40dB
lame --quiet -b 64 "$T/quiet.wav" $OUT/quiet-speech.mp3

# 1.5 s of stereo 44.1 kHz (music left, speech right) as users have it: AAC in M4A (FFmpeg's encoder),
# MP3 (LAME), Opus (opusenc) and FLAC (flac); and FFmpeg's decodes of each as the references.
$FF -i signals/music.wav -i signals/speech.wav -filter_complex "[0][1]amerge=inputs=2,aresample=44100" \
    -t 1.5 -c:a pcm_s16le "$T/stereo.wav"
$FF -i "$T/stereo.wav" -c:a aac -b:a 96k $OUT/stereo.m4a
lame --quiet -b 128 "$T/stereo.wav" $OUT/stereo.mp3
opusenc --quiet --bitrate 64 "$T/stereo.wav" $OUT/stereo.opus
flac --silent --force "$T/stereo.wav" -o $OUT/stereo.flac
# The client format test: FFmpeg's 16-bit mono 22.05 kHz of the AAC file.
$FF -i $OUT/stereo.m4a -ar 22050 -ac 1 -f s16le $OUT/stereo.m4a.mono22k.s16
# The seek test: FFmpeg's gapless decode of each file, 4096 frames from frame 30000 on, 16-bit.
for f in stereo.m4a stereo.mp3 stereo.opus stereo.flac; do
    $FF -i $OUT/$f -af atrim=start_sample=30000:end_sample=34096 -f s16le $OUT/$f.at30000.s16
done
# ffprobe's packet count of each file (`NAME COUNT` a line), for the AudioToolbox-style programs.
for f in stereo.m4a stereo.mp3 stereo.opus stereo.flac; do
    echo "$f $(ffprobe -v error -select_streams a:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 $OUT/$f | tr -d ,)"
done > $OUT/ffprobe-packets.txt
# Damage inside the audio of the M4A (300 bytes of 0x5A from byte 8000, in its `mdat`): packets the decoder
# refuses, as a bad sector or a cut download leaves them.
python3 - <<'PY'
data = bytearray(open("library/stereo.m4a", "rb").read())
data[8000:8300] = b"\x5a" * 300
open("library/damaged-mid.m4a", "wb").write(bytes(data))
PY
