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
# FLAC streams whose frames are rewritten by the script below from the specification (RFC 9639): frames of
# `flac` (libFLAC) encodes, renumbered and with STREAMINFO edited, each frame's CRC-8 and CRC-16 recomputed.
# - flac-legacy-variable-blocks.flac: Flake 0.11's old variable block size (the IETF testbench's subset 27):
#   blocks of 4096 then 1152 samples, numbered by first sample with the blocking bit 0, STREAMINFO's smallest
#   and largest blocks differing. libFLAC decodes it to flac-legacy-variable-blocks.wav's samples (checked).
# - flac-rate-change.flac, flac-channel-change.flac, flac-depth-change.flac: a stream that changes its rate
#   (32 to 24 kHz), channels (1 to 2) or depth (16 to 24 bits) mid-stream, frame numbers running on
#   (testbench uncommon 01-04; libFLAC and FFmpeg refuse them).
# - flac-streaminfo-small-blocks.flac: STREAMINFO says blocks of 1024 at most; every frame holds 4096.
ffmpeg -v error -y -f lavfi -i "anoisesrc=d=0.3:c=pink:r=44100:a=0.3:s=66" -ac 1 -c:a pcm_s16le -bitexact \
    "$out/flac-legacy-variable-blocks.wav"
ffmpeg -v error -y -f lavfi -i "anoisesrc=d=0.2:c=pink:r=32000:a=0.3:s=7" -ac 1 -c:a pcm_s16le -bitexact /tmp/afkit-32k.wav
ffmpeg -v error -y -f lavfi -i "anoisesrc=d=0.2:c=pink:r=24000:a=0.3:s=8" -ac 1 -c:a pcm_s16le -bitexact /tmp/afkit-24k.wav
ffmpeg -v error -y -f lavfi -i "anoisesrc=d=0.2:c=pink:r=32000:a=0.3:s=9" -ac 2 -c:a pcm_s16le -bitexact /tmp/afkit-32k-2.wav
ffmpeg -v error -y -f lavfi -i "anoisesrc=d=0.2:c=pink:r=32000:a=0.3:s=10" -ac 1 -c:a pcm_s24le -bitexact /tmp/afkit-32k-24.wav
trimmed() { ffmpeg -v error -y -i "$1" -af "atrim=start_sample=$2:end_sample=$3" -c:a pcm_s16le -bitexact "$4"; }
trimmed "$out/flac-legacy-variable-blocks.wav" 0 8192 /tmp/afkit-head.wav
trimmed "$out/flac-legacy-variable-blocks.wav" 8192 13230 /tmp/afkit-tail.wav
flac -s -f -b 4096 -o /tmp/afkit-head.flac /tmp/afkit-head.wav
flac -s -f -b 1152 -o /tmp/afkit-tail.flac /tmp/afkit-tail.wav
for name in 32k 24k 32k-2 32k-24; do flac -s -f -b 1024 -o "/tmp/afkit-$name.flac" "/tmp/afkit-$name.wav"; done
flac -s -f -b 4096 -o /tmp/afkit-blocks.flac "$out/flac-legacy-variable-blocks.wav"
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]

def crc(data, poly, width):
    top, mask, value = 1 << (width - 1), (1 << width) - 1, 0
    for byte in data:
        value ^= byte << (width - 8)
        for _ in range(8):
            value = ((value << 1) ^ poly) & mask if value & top else (value << 1) & mask
    return value

def coded(number):
    if number < 0x80:
        return bytes([number])
    for extra, lead in ((1, 0xC0), (2, 0xE0), (3, 0xF0), (4, 0xF8), (5, 0xFC), (6, 0xFE)):
        if number < 1 << (6 * extra + (6 - extra if extra < 6 else 0)):
            tail = [0x80 | (number >> (6 * i)) & 0x3F for i in reversed(range(extra))]
            return bytes([lead | number >> (6 * extra)] + tail)

def parse(path):
    """STREAMINFO's 34 bytes and the frames (header fields and bytes) of a libFLAC file."""
    data = open(path, "rb").read()
    at, info = 4, None
    while True:
        last, kind, size = data[at] >> 7, data[at] & 0x7F, int.from_bytes(data[at + 1:at + 4], "big")
        if kind == 0:
            info = bytearray(data[at + 4:at + 4 + size])
        at += 4 + size
        if last:
            break
    starts = [i for i in range(at, len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xF8]
    frames, begin = [], at
    for end in starts[1:] + [len(data)]:
        if end > begin and crc(data[begin:end], 0x8005, 16) == 0:
            frames.append(data[begin:end])
            begin = end
    assert begin == len(data), path
    return info, frames

def renumber(frame, number, variable_bit=0):
    """The frame with its coded number replaced (and the blocking bit set), its CRCs recomputed."""
    lead = frame[4]
    extra = 0 if lead < 0x80 else (8 - (lead ^ 0xFF).bit_length()) - 1
    rest = frame[5 + extra:-2]
    header_tail = {6: 1, 7: 2}.get(frame[2] >> 4, 0) + {12: 1, 13: 2, 14: 2}.get(frame[2] & 0x0F, 0)
    head = bytes([0xFF, 0xF8 | variable_bit]) + frame[2:4] + coded(number) + rest[:header_tail]
    body = head + bytes([crc(head, 0x07, 8)]) + rest[header_tail + 1:]
    return body + crc(body, 0x8005, 16).to_bytes(2, "big")

def write(path, info, frames):
    block = struct.pack(">I", 0x80 << 24 | len(info)) + bytes(info)
    open(path, "wb").write(b"fLaC" + block + b"".join(frames))

def blocks(frame):
    code = frame[2] >> 4
    extra = 0 if frame[4] < 0x80 else (8 - (frame[4] ^ 0xFF).bit_length()) - 1
    field = frame[5 + extra:]
    if code == 1:
        return 192
    if code in (6, 7):
        return int.from_bytes(field[:code - 5], "big") + 1
    return 576 << (code - 2) if code <= 5 else 256 << (code - 8)

# Old variable block size: samples numbered with the blocking bit 0; STREAMINFO 1152..4096, no MD5.
info, head = parse("/tmp/afkit-head.flac")
_, tail = parse("/tmp/afkit-tail.flac")
frames, sample = [], 0
for frame in head + tail:
    frames.append(renumber(frame, sample))
    sample += blocks(frame)
info[0:4] = struct.pack(">HH", 1152, 4096)
info[4:10] = bytes(6)
info[13:18] = ((int.from_bytes(info[13:18], "big") >> 36 << 36) | sample).to_bytes(5, "big")
info[18:34] = bytes(16)
write(f"{out}/flac-legacy-variable-blocks.flac", info, frames)

# Format changes mid-stream: the first stream's STREAMINFO (no length, no MD5), the frames numbered on.
for name, second in (("rate", "24k"), ("channel", "32k-2"), ("depth", "32k-24")):
    info, first = parse("/tmp/afkit-32k.flac")
    _, then = parse(f"/tmp/afkit-{second}.flac")
    info[4:10] = bytes(6)
    info[13:18] = (int.from_bytes(info[13:18], "big") >> 36 << 36).to_bytes(5, "big")
    info[18:34] = bytes(16)
    write(f"{out}/flac-{name}-change.flac", info,
          [renumber(frame, index) for index, frame in enumerate(first + then)])

# STREAMINFO's blocks smaller than the frames'.
info, frames = parse("/tmp/afkit-blocks.flac")
info[0:4] = struct.pack(">HH", 1024, 1024)
write(f"{out}/flac-streaminfo-small-blocks.flac", info, frames)
PY
flac -s -d -f -o /tmp/afkit-legacy.wav "$out/flac-legacy-variable-blocks.flac"
cmp <(ffmpeg -v error -i /tmp/afkit-legacy.wav -f s16le -) \
    <(ffmpeg -v error -i "$out/flac-legacy-variable-blocks.wav" -f s16le -)
# RIFX: RIFF's big-endian twin (every size and number, and the samples, big-endian), written by SoX (-B) from
# the first 4,410 samples of flac-legacy-variable-blocks.wav, as 16- and 24-bit integers and 32-bit floats.
# SoX and libsndfile read them back to the source's samples (FFmpeg refuses 24-bit and float RIFX).
for encoding in "s16:-e signed -b 16" "s24:-e signed -b 24" "f32:-e floating-point -b 32"; do
    sox "$out/flac-legacy-variable-blocks.wav" -B ${encoding#*:} "$out/rifx-${encoding%%:*}.wav" trim 0 4410s
done
# AC-3 behind an ID3v2 tag, as HLS packed audio carries it (a PRIV frame with the segment's MPEG-2 timestamp,
# com.apple.streaming.transportStreamTimestamp, 900,000 = 10 s): FFmpeg's 0.3 s AC-3 at 96 kbit/s (10 frames),
# the tag written before it by the script below.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=48000:d=0.3" -ac 2 -c:a ac3 -b:a 96k -f ac3 /tmp/afkit-plain.ac3
python3 - /tmp/afkit-plain.ac3 "$out/ac3-behind-id3.ac3" <<'PY'
import struct, sys
def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
payload = b"com.apple.streaming.transportStreamTimestamp\x00" + struct.pack(">Q", 900000)
frame = b"PRIV" + syncsafe(len(payload)) + b"\x00\x00" + payload
open(sys.argv[2], "wb").write(b"ID3\x04\x00\x00" + syncsafe(len(frame)) + frame + open(sys.argv[1], "rb").read())
PY
# An MP3 whose LAME tag's counts leave no valid frame: FFmpeg's 0.05 s of LAME (3 audio frames, 3,456
# samples) with the tag's padding (byte 21 of its 'Lavc' extension, low 12 bits) set to 4095.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=0.05" -ac 1 -c:a libmp3lame -b:a 64k /tmp/afkit-short.mp3
python3 - /tmp/afkit-short.mp3 "$out/mp3-lame-tag-covers-all.mp3" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
tag = data.index(b"Lavc", data.index(b"Info"))
field = int.from_bytes(data[tag + 21:tag + 24], "big")
data[tag + 21:tag + 24] = (field | 0xFFF).to_bytes(3, "big")
open(sys.argv[2], "wb").write(data)
PY
# 24-bit samples in 4-byte PCMWAVEFORMAT frames (format tag 1, block align 8), at the bottom of each word with
# its top byte 0, as ALSA's arecord writes S24_LE (hound's test data has one): written by the script below,
# 100 stereo frames of a 24-bit ramp (left n × 83,887 - 8,388,608, right its negation less one).
python3 - "$out/wav-24-in-32-low.wav" <<'PY'
import struct, sys
frames = [(n * 83887 - 8388608, -(n * 83887 - 8388608) - 1) for n in range(100)]
data = b"".join(struct.pack("<II", l & 0xFFFFFF, r & 0xFFFFFF) for l, r in frames)
fmt = struct.pack("<HHIIHH", 1, 2, 48000, 48000 * 8, 8, 24)
body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
open(sys.argv[1], "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)
PY
# Ogg streams whose beginning repeats (the start-flagged identification page and the comment page again, same
# serial, sequence 0 and 1, before the audio; a muxer restarting leaves them, androidx/media's test data has
# one): ogg/ffmpeg-opus.opus and ogg/oggenc-speech.ogg (Vorbis: three header packets) with their header pages
# written twice by the script below. FFmpeg reads past them.
python3 - <<'PY'
import struct
def pages(data):
    at, out = 0, []
    while at < len(data):
        count = data[at + 26]
        size = 27 + count + sum(data[at + 27:at + 27 + count])
        out.append(data[at:at + size])
        at += size
    return out
for source, target in (("ogg/ffmpeg-opus.opus", "ogg-opus-repeated-headers.opus"),
                       ("ogg/oggenc-speech.ogg", "ogg-vorbis-repeated-headers.ogg")):
    every = pages(open(source, "rb").read())
    # The header pages: those before the first page with a granule position other than 0.
    headers = next(i for i, page in enumerate(every) if struct.unpack("<q", page[6:14])[0] not in (0, -1))
    open("world-classes/" + target, "wb").write(b"".join(every[:headers] * 2 + every[headers:]))
PY
# E-AC-3 in MP4 whose syncframes say one block (256 frames) where the sample table times 1,536 (androidx/media's
# test data has such a file; FFmpeg decodes 256 a sample): eac3-5.1.mp4 with each syncframe's numblkscod set to 0
# by the script below. Its audio no longer decodes (the CRCs fail): the file proves what the parser counts.
python3 - "$out/eac3-5.1.mp4" "$out/eac3-one-block-syncframes.mp4" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
mdat = data.index(b"mdat") + 4
at = data.index(b"\x0b\x77", mdat)
while at + 6 <= len(data) and data[at:at + 2] == b"\x0b\x77":
    data[at + 4] &= 0xCF
    at += ((data[at + 2] & 7) << 8 | data[at + 3]) * 2 + 2
open(sys.argv[2], "wb").write(data)
PY
# ALAC in MP4 with no edit list, its last sample timed short by the sample table (FFmpeg's -use_editlist 0: 0.3 s,
# four packets of 4,096, the last timed 942): FFmpeg decodes 13,230 frames.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=0.3" -ac 2 -c:a alac -use_editlist 0 "$out/alac-no-edit-list.m4a"
# An MP3 cut short after the LAME tag's frame and two frames of audio (the tag states 44 frames and a padding
# of 875): FFmpeg's 1 s of LAME at 128 kbit/s, mono, cut at its fourth frame. afkit keeps the tag's counts (324
# frames, as the command's contract states them); FFmpeg decodes 1,199.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=1" -ac 1 -c:a libmp3lame -b:a 128k /tmp/afkit-lame.mp3
python3 - /tmp/afkit-lame.mp3 "$out/mp3-lame-cut-short.mp3" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
at = 10 + (data[6] << 21 | data[7] << 14 | data[8] << 7 | data[9]) if data[:3] == b"ID3" else 0
for _ in range(3):
    header = int.from_bytes(data[at:at + 4], "big")
    rate = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][header >> 12 & 15] * 1000
    at += 144 * rate // 44100 + (header >> 9 & 1)
open(sys.argv[2], "wb").write(data[:at])
PY
# An M4A whose 'stsz' is a bare box with no fields (mutagen's test data has such an audiobook: 'stts' times
# 3,639,600 samples, the table holds none): alac-no-edit-list.m4a with its 'stsz' emptied by the script below.
python3 - "$out/alac-no-edit-list.m4a" "$out/m4a-empty-sample-sizes.m4a" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
containers = {b"moov", b"trak", b"mdia", b"minf", b"stbl"}
def rewrite(body):
    at, out = 0, b""
    while at + 8 <= len(body):
        size, kind = struct.unpack(">I4s", body[at:at + 8])
        content = body[at + 8:at + size]
        content = rewrite(content) if kind in containers else b"" if kind == b"stsz" else content
        out += struct.pack(">I4s", 8 + len(content), kind) + content
        at += size
    return out
open(sys.argv[2], "wb").write(rewrite(data))
PY
# An MP3 whose start was lost (as taglib's invalid-frames3): 969 bytes of noise, then six whole frames of LAME at
# 320 kbit/s and 100 bytes of a seventh, to the end of the file (frame ends by ffprobe). FFmpeg reads 7 packets
# (the last cut); afkit reads the six whole ones and says the file is cut short.
ffmpeg -v error -y -f lavfi -i "sine=f=440:r=44100:d=1" -ac 2 -c:a libmp3lame -b:a 320k -write_xing 0 \
    -id3v2_version 0 /tmp/afkit-lost-start.mp3
ffprobe -v error -show_entries packet=pos -of csv=p=0 /tmp/afkit-lost-start.mp3 > /tmp/afkit-lost-start.csv
python3 - /tmp/afkit-lost-start.mp3 "$out/mp3-lost-start.mp3" /tmp/afkit-lost-start.csv <<'PY'
import random, sys
data = open(sys.argv[1], "rb").read()
starts = [int(line) for line in open(sys.argv[3]) if line.strip()]
noise = bytes(random.Random(7).randrange(256) for _ in range(969)).replace(b"\xff", b"\x7f")
open(sys.argv[2], "wb").write(noise + data[starts[0]:starts[6] + 100])
PY
# The same one-block syncframes in a fragmented MP4 (androidx/media's sample_eac3_fragmented.mp4 is one): FFmpeg's
# fragmented remux of eac3-5.1.mp4, each syncframe in every 'mdat' patched as above. The format waits for the
# first fragment's first sample: 256 frames a packet, where the fragments time 1,536.
ffmpeg -v error -y -i "$out/eac3-5.1.mp4" -c copy -movflags +frag_keyframe+empty_moov+default_base_moof+delay_moov \
    -frag_duration 100000 /tmp/afkit-eac3-fragmented.mp4
python3 - /tmp/afkit-eac3-fragmented.mp4 "$out/eac3-one-block-fragmented.mp4" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
mdat = data.find(b"mdat")
while mdat >= 0:
    size = int.from_bytes(data[mdat - 4:mdat], "big")
    at, end = mdat + 4, mdat - 4 + size
    while at + 6 <= end and data[at:at + 2] == b"\x0b\x77":
        data[at + 4] &= 0xCF
        at += ((data[at + 2] & 7) << 8 | data[at + 3]) * 2 + 2
    mdat = data.find(b"mdat", end)
open(sys.argv[2], "wb").write(data)
PY
# MP3 in a fragmented MP4: FFmpeg's fragmented remux of mp3-mono.mp4 (its entry says 2 channels; the frames, 1).
ffmpeg -v error -y -i "$out/mp3-mono.mp4" -c copy -movflags +frag_keyframe+empty_moov+default_base_moof \
    -frag_duration 100000 -f mp4 "$out/mp3-mono-fragmented.mp4"
# A FLAC stream whose last frame ends in bytes that look like a frame's sync (0xFFF8, its last sample -8 in a
# verbatim subframe, then the CRC-16): libFLAC's reference encoder with verbatim subframes only, 0.2 s of a
# 16-bit stereo tone whose last sample is -8 in both channels. ffprobe: 3 packets.
python3 - <<'PY'
import math, struct
rate, count = 44100, 44100 // 5 + 123
samples = bytearray()
for i in range(count):
    value = int(8000 * math.sin(2 * math.pi * 440 * i / rate))
    left, right = (-8, -8) if i == count - 1 else (value, -value)
    samples += struct.pack("<hh", left, right)
open("/tmp/afkit-false-sync.raw", "wb").write(samples)
PY
flac -s -f -0 --force-raw-format --endian=little --sign=signed --channels=2 --bps=16 --sample-rate=44100 \
    --disable-constant-subframes --disable-fixed-subframes --max-lpc-order=0 -b 4096 \
    -o "$out/flac-false-sync-at-end.flac" /tmp/afkit-false-sync.raw
