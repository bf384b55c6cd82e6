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
# ALAC in MP4 with a packet wholly outside the edit list (Apple's decoder never reaches it; FFmpeg's demuxer
# drops it): FFmpeg's ALAC M4A of 0.3 s (13,230 frames, four packets) with a fifth sample of 4096 frames
# appended to its table and 100 bytes that libavcodec refuses as an ALAC packet (0, 1, ..., 99) appended to its 'mdat', the edit unchanged.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=0.3" -ac 2 -c:a alac /tmp/afkit-alac.m4a
python3 - /tmp/afkit-alac.m4a "$out/alac-packet-past-edit.m4a" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
containers = {b"moov", b"trak", b"mdia", b"minf", b"stbl"}

def boxes(body):
    at, out = 0, []
    while at + 8 <= len(body):
        size, kind = struct.unpack(">I4s", body[at:at + 8])
        out.append([kind, body[at + 8:at + size]])
        at += size
    return out

def write(tree):
    return b"".join(struct.pack(">I4s", 8 + len(b), k) + b for k, b in
                    ((k, write(v) if isinstance(v, list) else v) for k, v in tree))

def edit(tree):
    for box in tree:
        kind, body = box
        if kind in containers:
            box[1] = edit(boxes(body))
        elif kind == b"stts":
            count = struct.unpack(">I", body[4:8])[0]
            box[1] = body[:4] + struct.pack(">I", count + 1) + body[8:] + struct.pack(">II", 1, 4096)
        elif kind == b"stsc":
            box[1] = body[:12] + struct.pack(">I", struct.unpack(">I", body[12:16])[0] + 1) + body[16:]
        elif kind == b"stsz":
            count = struct.unpack(">I", body[8:12])[0]
            box[1] = body[:8] + struct.pack(">I", count + 1) + body[12:] + struct.pack(">I", 100)
        elif kind == b"mdat":
            box[1] = body + bytes(range(100))
    return tree

open(sys.argv[2], "wb").write(write(edit(boxes(data))))
PY
