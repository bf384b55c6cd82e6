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
