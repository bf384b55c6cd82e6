#!/usr/bin/env bash
# One fixture a class of file the world's test data showed afkit reading wrong (issue 66), each made by a
# tool with the command below, into Tests/Fixtures/world-classes. Run from this folder with ffmpeg installed.
# Tests read only the committed files.
set -euo pipefail
out=world-classes
# E-AC-3 5.1 in MP4: FFmpeg's sample entry says 2 channels; 'dec3' says 3/2 with LFE.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=48000:d=0.2" \
    -af "pan=5.1|c0=c0|c1=0.5*c0|c2=0.25*c0|c3=0.1*c0|c4=0.3*c0|c5=0.2*c0" -c:a eac3 -b:a 192k "$out/eac3-5.1.mp4"
# Opus in fragmented MP4 (no edit list; each fragment's 'trun' gives its samples' durations, 24,312 frames in
# all, the last shortened to the source's end): less the 312 of pre-skip 'dOps' states, the source's 24,000.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=48000:d=0.5" -c:a libopus -b:a 32k \
    -movflags frag_keyframe+empty_moov+default_base_moof -frag_duration 200000 "$out/opus-fragmented.mp4"
# AMR-NB with two NO_DATA frames (RFC 4867: frame type 15, header byte 0x7C, no speech bits), legal where a
# sender transmits nothing: framed/speech.amr (SoX) with them inserted after its 10th and 20th frames (each
# 12.2 kbit/s frame is 32 bytes after the 6-byte magic). 52 frames: FFmpeg refuses the two (50 decoded).
python3 - framed/speech.amr "$out/amr-no-data.amr" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
magic, frames = data[:6], [data[6 + 32 * i:6 + 32 * (i + 1)] for i in range((len(data) - 6) // 32)]
assert all(frame[0] == 0x3C for frame in frames)
frames.insert(20, b"\x7c")
frames.insert(10, b"\x7c")
open(sys.argv[2], "wb").write(magic + b"".join(frames))
PY
# MPEG audio that switches between mono and stereo (legal; ISO's conformance streams do): LAME frames of a
# mono, a stereo and a mono part, 0.5 s each, joined. FFmpeg decodes 72,576 frames; afkit reads the stream at
# its larger layout, the mono frames filling both channels.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=0.5" -ac 1 -c:a libmp3lame -b:a 64k -write_xing 0 \
    -id3v2_version 0 /tmp/afkit-mono.mp3
ffmpeg -v error -y -f lavfi -i "sine=f=660:r=44100:d=0.5" -ac 2 -c:a libmp3lame -b:a 128k -write_xing 0 \
    -id3v2_version 0 /tmp/afkit-stereo.mp3
cat /tmp/afkit-mono.mp3 /tmp/afkit-stereo.mp3 /tmp/afkit-mono.mp3 > "$out/mp3-mono-stereo-switch.mp3"
