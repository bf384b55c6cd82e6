#!/usr/bin/env bash
# A LAME MP3 cut mid-file (Tests/afkitTests/InfoAndMessageTests.swift): every whole frame's audio is delivered, the cut
# frame is said. Run from this folder to remake it:
#   bash make-cut-mp3-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
# The first 12,000 bytes of lame-cbr128-stereo-44k.mp3 (LAME 3.100, 128 kbit/s: its LAME tag states 59 frames, delay
# 576, padding 1242), cut inside its 29th frame.
head -c 12000 mp3/lame-cbr128-stereo-44k.mp3 > mp3/lame-cut-mid-file.mp3
# FFmpeg 5.1's count of what it decodes (for the record; the test reads none of it): 27 whole frames and the cut one
# decoded from what is left of it ("invalid new backstep -1"), less 1,105 priming frames:
#   ffmpeg -i mp3/lame-cut-mid-file.mp3 -f s16le - | wc -c    -> 124,604 bytes: 31,151 frames
# afkit delivers the 27 whole frames less the priming, 29,999 frames, and says the cut one.
