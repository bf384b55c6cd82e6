#!/bin/sh
# Makes the end-burst fixtures: 2 s at 44.1 kHz mono, silent but for a 10 ms 1 kHz tone at -1 dBFS at
# its very end (the validator once missed the last 1024 frames of every AAC file). Tools: SoX 14.4,
# FFmpeg 5/6 (Debian), LAME 3.100. Run from this folder.
set -eu
sox -n -r 44100 -b 16 -c 1 tone.wav synth 0.01 sine 1000 gain -1
sox tone.wav end-burst.wav pad 1.99 0
rm tone.wav
ffmpeg -v error -y -i end-burst.wav -c:a aac -b:a 64k end-burst.m4a
ffmpeg -v error -y -i end-burst.wav -c:a aac -b:a 64k -f adts end-burst.aac
ffmpeg -v error -y -i end-burst.wav -c:a alac end-burst-alac.m4a
ffmpeg -v error -y -i end-burst.wav -c:a adpcm_ima_qt -f caf end-burst-ima4.caf
lame --quiet -b 128 end-burst.wav end-burst.mp3
# The ALAC file with its last packet (22nd, at byte 443, 486 bytes) scribbled over with 0xFF after its
# first 4 bytes: libavcodec refuses it, and the error must name packet 21 and byte 443.
python3 -c "
b = bytearray(open('end-burst-alac.m4a', 'rb').read())
b[447:643] = b'\xff' * 196
open('end-burst-alac-damaged.m4a', 'wb').write(b)"
