#!/usr/bin/env bash
# The MP4/QuickTime classes of issue 66, each on a fixture of its own in Tests/Fixtures/world-classes, made by
# FFmpeg 5.1 (Debian 12) or by bytes a script writes from the specification (ISO/IEC 14496-12 and -14, ISO/IEC
# 23003-5, Apple's QuickTime File Format). Run from this folder with ffmpeg and python3 installed. Tests read only
# the committed files; the figures they assert (ffprobe's and FFmpeg's) are written beside each test.
set -euo pipefail
out=${OUT:-world-classes}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A small box editor shared by the recipes below: parse a file's boxes into a tree, edit, write (sizes anew).
cat > "$work/boxes.py" <<'PY'
import struct, sys
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"dinf"}

def parse(body):
    at, out = 0, []
    while at + 8 <= len(body):
        size, kind = struct.unpack(">I4s", body[at:at + 8])
        size = size or len(body) - at
        content = body[at + 8:at + size]
        out.append([kind, parse(content) if kind in CONTAINERS else content])
        at += size
    return out

def write(tree):
    out = b""
    for kind, body in tree:
        raw = write(body) if isinstance(body, list) else body
        out += struct.pack(">I4s", 8 + len(raw), kind) + raw
    return out

def find(tree, path):
    parts, found = path.split("/"), []
    for box in tree:
        if box[0] == parts[0].encode("latin1"):
            if len(parts) == 1:
                found.append(box)
            elif isinstance(box[1], list):
                found += find(box[1], "/".join(parts[1:]))
    return found

def one(tree, path):
    boxes = find(tree, path)
    assert len(boxes) == 1, path
    return boxes[0]

STBL = "moov/trak/mdia/minf/stbl/"

def load(path):
    return parse(open(path, "rb").read())

def save(tree, path):
    open(path, "wb").write(write(tree))
PY
export PYTHONPATH="$work"
sine() { echo "sine=f=440:r=$1:d=$2"; }

# --- Sample tables ---
# 'stz2' (ISO/IEC 14496-12, 8.7.3.3: compact sample sizes) in 16, 8 and 4-bit fields: FFmpeg's files with 'stsz'
# rewritten as 'stz2' (the same sizes; the media untouched, 'moov' after 'mdat'). AAC-LC stereo (sizes up to 306:
# 16 bits), Opus mono at 24 kbit/s (sizes under 256: 8 bits), Opus mono silence at 6 kbit/s (sizes under 16: 4
# bits, an odd count, so the last byte holds one size and a pad).
stz2() { # SOURCE OUTPUT WIDTH
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, boxes
tree, width = boxes.load(sys.argv[1]), int(sys.argv[3])
stsz = boxes.one(tree, boxes.STBL + "stsz")
constant, count = struct.unpack(">II", stsz[1][4:12])
assert constant == 0
sizes = struct.unpack(">%dI" % count, stsz[1][12:12 + 4 * count])
assert max(sizes) < 1 << width, max(sizes)
if width == 4:
    padded = list(sizes) + [0] * (count % 2)
    table = bytes(padded[i] << 4 | padded[i + 1] for i in range(0, len(padded), 2))
else:
    table = struct.pack(">%d%s" % (count, "B" if width == 8 else "H"), *sizes)
stsz[0], stsz[1] = b"stz2", b"\0\0\0\0\0\0\0" + bytes([width]) + struct.pack(">I", count) + table
boxes.save(tree, sys.argv[2])
PY
}
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.5)" -ac 2 -c:a aac -b:a 96k "$work/aac.m4a"
stz2 "$work/aac.m4a" "$out/aac-stz2-16.m4a" 16
ffmpeg -v error -y -f lavfi -i "$(sine 48000 0.5)" -ac 1 -c:a libopus -b:a 24k "$work/opus.mp4"
stz2 "$work/opus.mp4" "$out/opus-stz2-8.mp4" 8
ffmpeg -v error -y -f lavfi -i "anullsrc=r=48000:cl=mono" -t 0.28 -c:a libopus -b:a 6k "$work/silence.mp4"
stz2 "$work/silence.mp4" "$out/opus-stz2-4.mp4" 4
# QuickTime's tables for sound as its specification defines them, written over FFmpeg's MOV (its 'mdat' remade):
# the chunks of 'stco' lie apart, 64 bytes of 0x7F (loud noise if read as sound) before each, and 'stsc' gives
# them different frame counts. 'sowt' version 0 (22,050 Hz stereo, 11,025 frames): a sample is a frame ('stts'
# one entry of 11,025 deltas of 1; 'stsz' a size of 1, QuickTime-classic), chunks of 2,000 frames but the last
# (1,025, from the table's second entry). 'twos' version 0 (8 kHz mono, 8,000 frames): a sample is a whole chunk
# of frames (an 'stts' delta of 1,100 a sample, the last 300; 'stsz' a size of 1; 'stsc' one sample a chunk), as
# old QuickTime writers left them. 'ima4' version 1 (44.1 kHz stereo, 207 packets of 64 frames): its own
# samplesPerPacket 64, bytesPerPacket 34, bytesPerFrame 68, bytesPerSample 2 (FFmpeg writes 0 for both byte
# counts), a sample a frame ('stts' 13,248 deltas of 1, 'stsz' 1), chunks of 20 packets (1,280 frames) but the last.
qtclassic() { # SOURCE OUTPUT LAYOUT
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, boxes
tree, layout = boxes.load(sys.argv[1]), sys.argv[3]
stbl = boxes.STBL
entry = boxes.one(tree, stbl + "stsd")[1]
sizes = boxes.one(tree, stbl + "stsz")[1]
constant, count = struct.unpack(">II", sizes[4:12])
media = next(box for box in tree if box[0] == b"mdat")
data = media[1]
if layout == "sowt-frames":
    frames, frame_bytes = count, constant
    chunks = [2000] * (frames // 2000) + ([frames % 2000] if frames % 2000 else [])
    stts = [(frames, 1)]
    stsc = [(1, 2000)] + ([(len(chunks), chunks[-1])] if frames % 2000 else [])
    sample_count, sample_size = frames, 1
elif layout == "twos-chunk-samples":
    frames, frame_bytes = count, constant
    chunks = [1100] * 7 + [frames - 7 * 1100]
    stts = [(7, 1100), (1, chunks[-1])]
    stsc = [(1, 1)]
    sample_count, sample_size = len(chunks), 1
elif layout == "ima4-frames":
    packets, frame_bytes = count, constant  # FFmpeg: a sample a packet of 68 bytes, 64 frames
    assert constant == 68
    frames = packets * 64
    chunks = [1280] * (frames // 1280) + ([frames % 1280] if frames % 1280 else [])
    stts = [(frames, 1)]
    stsc = [(1, 1280)] + ([(len(chunks), chunks[-1])] if frames % 1280 else [])
    sample_count, sample_size = frames, 1
    # Version 1's four fields follow the version 0 description: stsd's version, flags and count (8 bytes), the
    # entry's size and type (8), reserved and data reference index (8), then 20 bytes of version 0 fields.
    body = bytearray(entry)
    assert body[12:16] == b"ima4" and struct.unpack(">I", body[44:48])[0] == 64
    body[44:60] = struct.pack(">IIII", 64, 34, 68, 2)
    boxes.one(tree, stbl + "stsd")[1] = bytes(body)
unit = 64 * 68 // 1280 if layout == "ima4-frames" else frame_bytes  # bytes a frame (IMA4: 68 a 64 frames)
first = sum(len(boxes.write([box])) for box in tree[:tree.index(media)]) + 8
body, offsets, at = b"", [], 0
for frames_in_chunk in chunks:
    body += b"\x7f" * 64
    offsets.append(first + len(body))
    size = (frames_in_chunk + 63) // 64 * 68 if layout == "ima4-frames" else frames_in_chunk * frame_bytes
    body += data[at:at + size]
    at += size
assert at == len(data), (at, len(data))
media[1] = body
boxes.one(tree, stbl + "stts")[1] = struct.pack(">II", 0, len(stts)) + b"".join(struct.pack(">II", *e) for e in stts)
boxes.one(tree, stbl + "stsc")[1] = struct.pack(">II", 0, len(stsc)) + b"".join(
    struct.pack(">III", first_chunk, samples, 1) for first_chunk, samples in stsc)
boxes.one(tree, stbl + "stsz")[1] = struct.pack(">III", 0, sample_size, sample_count)
boxes.one(tree, stbl + "stco")[1] = struct.pack(">II", 0, len(offsets)) + b"".join(struct.pack(">I", o) for o in offsets)
boxes.save(tree, sys.argv[2])
PY
}
ffmpeg -v error -y -f lavfi -i "$(sine 22050 0.5)" -ac 2 -c:a pcm_s16le -f mov "$work/sowt.mov"
qtclassic "$work/sowt.mov" "$out/sowt-v0-frames.mov" sowt-frames
ffmpeg -v error -y -f lavfi -i "$(sine 8000 1)" -ac 1 -c:a pcm_s16be -f mov "$work/twos.mov"
qtclassic "$work/twos.mov" "$out/twos-v0-chunk-samples.mov" twos-chunk-samples
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.3)" -ac 2 -c:a adpcm_ima_qt -f mov "$work/ima4.mov"
qtclassic "$work/ima4.mov" "$out/ima4-v1-frames.mov" ima4-frames
# The same two layouts for 8-bit words: 'raw ' (unsigned, 8 kHz mono, 4,000 frames) a sample a frame in chunks of
# 2,000, 'ulaw' (8 kHz mono, 8,000 frames) a sample a chunk of 1,100 frames.
ffmpeg -v error -y -f lavfi -i "$(sine 8000 0.5)" -ac 1 -c:a pcm_u8 -f mov "$work/raw.mov"
qtclassic "$work/raw.mov" "$out/raw-v0-frames.mov" sowt-frames
ffmpeg -v error -y -f lavfi -i "$(sine 8000 1)" -ac 1 -c:a pcm_mulaw -f mov "$work/ulaw.mov"
qtclassic "$work/ulaw.mov" "$out/ulaw-v0-chunk-samples.mov" twos-chunk-samples
# FFmpeg's own 'ima4' MOV (version 1, samplesPerPacket 64, a sample a packet: 'stts' deltas of 64, 'stsz' 68), as
# it wrote it: the same packets, the other table.
cp "$work/ima4.mov" "$out/ima4-ffmpeg.mov"

# --- Channel counts ---
# The codec's own configuration over the sample entry's count (ISO/IEC 14496-12 12.2.3: a template, 2): FFmpeg's
# mono files with the entry's channelcount set to 2, their configuration untouched ('esds' AudioSpecificConfig
# channel configuration 1, 'alac' numChannels 1, 'dOps' OutputChannelCount 1, 'dfLa' STREAMINFO 1 channel, 'dac3'
# acmod 1). FFmpeg's MP3 in MP4 says 2 of itself (mono LAME frames); the '.mp3' form is QuickTime's sample entry
# for the same frames, with no 'esds'.
entrychannels() { # SOURCE OUTPUT CHANNELS [TYPE]
    python3 - "$@" <<'PY'
import struct, sys, boxes
tree = boxes.load(sys.argv[1])
stsd = boxes.one(tree, boxes.STBL + "stsd")
body = bytearray(stsd[1])
body[32:34] = struct.pack(">H", int(sys.argv[3]))
if len(sys.argv) > 4:
    kind = sys.argv[4].encode("latin1")
    at = body.find(b"esds")
    if at > 0:  # the entry loses its 'esds' child
        size = struct.unpack(">I", body[at - 4:at])[0]
        del body[at - 4:at - 4 + size]
        body[8:12] = struct.pack(">I", struct.unpack(">I", body[8:12])[0] - size)
    body[12:16] = kind
stsd[1] = bytes(body)
boxes.save(tree, sys.argv[2])
PY
}
mono() { # CODEC OUTPUT [OPTIONS...]
    local codec=$1 name=$2
    shift 2
    ffmpeg -v error -y -f lavfi -i "$(sine 48000 0.25)" -ac 1 -c:a "$codec" "$@" "$work/$name"
    entrychannels "$work/$name" "$out/$name" 2
}
mono aac aac-mono-entry-2.m4a -b:a 48k
mono alac alac-mono-entry-2.m4a
mono libopus opus-mono-entry-2.mp4 -b:a 24k
mono flac flac-mono-entry-2.mp4 -strict -2
mono ac3 ac3-mono-entry-2.mp4 -b:a 96k
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.3)" -ac 1 -c:a libmp3lame -b:a 64k "$out/mp3-mono.mp4"
entrychannels "$out/mp3-mono.mp4" "$out/mp3-mono-dotmp3.mov" 2 .mp3
# MPEG-1 Layer II in MP4: objectTypeIndication 0x6B names MPEG-1 audio of any layer; the first frame says II.
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.3)" -ac 1 -c:a mp2 -b:a 64k -f mp4 "$out/mp2-mono.mp4"
# HE-AAC v2 over a mono AAC-LC core (ISO/IEC 14496-3 1.6.2.1 and 1.6.6): FFmpeg's 24 kHz mono AAC-LC (Debian's
# FFmpeg has no HE-AAC encoder) with its AudioSpecificConfig written anew, in the two explicit signallings.
# Hierarchical: audioObjectType 29 (SBR with parametric stereo), core rate index 6 (24 kHz), channel configuration
# 1, extension rate index 3 (48 kHz), object type 2, GASpecificConfig 0. Backward-compatible: AAC-LC (2), 6, 1,
# GASpecificConfig 0, then the sync extension 0x2B7, extension object type 5 with sbrPresentFlag 1 and rate index 3,
# and the sync extension 0x548 with psPresentFlag 1. Decoders output SBR's rate and PS's two channels from either.
ffmpeg -v error -y -f lavfi -i "$(sine 24000 0.3)" -ac 1 -c:a aac -b:a 32k "$work/lc24.m4a"
heaacv2() { # SOURCE OUTPUT BITS
    python3 - "$@" <<'PY'
import struct, sys, boxes
tree = boxes.load(sys.argv[1])
stsd = boxes.one(tree, boxes.STBL + "stsd")
body = bytearray(stsd[1])
# FFmpeg's: AAC-LC (2), 24 kHz (6), mono (1), GASpecificConfig 0, then the sync extension saying no SBR.
old = bytes([0x13, 0x08, 0x56, 0xE5, 0x00])
at = body.find(b"\x05" + bytes([0x80, 0x80, 0x80, len(old)]) + old)
assert at > 0
bits = sys.argv[3].replace(" ", "")
bits += "0" * (-len(bits) % 8)
config = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
body[at:at + 5 + len(old)] = b"\x05" + bytes([0x80, 0x80, 0x80, len(config)]) + config
grow = len(config) - len(old)
# Every size around it changes: the entry's, the esds box's and the ES, decoder config descriptors' lengths.
body[8:12] = struct.pack(">I", struct.unpack(">I", body[8:12])[0] + grow)
esds = body.find(b"esds")
body[esds - 4:esds] = struct.pack(">I", struct.unpack(">I", body[esds - 4:esds])[0] + grow)
for tag in (b"\x03", b"\x04"):
    position = body.find(tag + b"\x80\x80\x80", esds)
    body[position + 4] = (body[position + 4] + grow) & 0xFF
stsd[1] = bytes(body)
boxes.save(tree, sys.argv[2])
PY
}
heaacv2 "$work/lc24.m4a" "$out/heaac-v2-explicit.m4a" "11101 0110 0001 0011 00010 000"
heaacv2 "$work/lc24.m4a" "$out/heaac-v2-backward-compatible.m4a" \
    "00010 0110 0001 000 01010110111 00101 1 0011 10101001000 1"

# --- Refusals turned into reads ---
# ISO/IEC 23003-5 uncompressed PCM in MP4: an 'ipcm' AudioSampleEntry with its 'pcmC' box (format_flags bit 0:
# little-endian; PCM_sample_size), which FFmpeg 5.1 cannot write: FFmpeg's MOV of the same samples with its
# sample entry written anew and an 'isom' file type. 16-bit little-endian stereo at 44.1 kHz in samples of 1,024
# frames ('stsz' lists each; the last shorter), and 24-bit big-endian mono at 48 kHz a sample a frame.
ipcm() { # SOURCE OUTPUT LITTLE-ENDIAN FRAMES-A-SAMPLE [ISO-V1]
    python3 - "$@" <<'PY'
import struct, sys, boxes
tree, little, per = boxes.load(sys.argv[1]), sys.argv[3] == "1", int(sys.argv[4])
iso_v1 = len(sys.argv) > 5
stbl = boxes.STBL
stsd = boxes.one(tree, stbl + "stsd")
old = stsd[1]
channels = struct.unpack(">H", old[32:34])[0]
rate = old[40:44]
stsz = boxes.one(tree, stbl + "stsz")
bits = struct.unpack(">I", stsz[1][4:8])[0] * 8 // channels  # version 1's sample size field says 16
version = 1 if iso_v1 else 0
entry = b"\0" * 6 + struct.pack(">HH", 1, version) + b"\0" * 6 + struct.pack(">HHHH", channels, bits, 0, 0) + rate
if iso_v1:  # 'chnl' (12.2.4): channel-structured, defined layout 2 (ISO/IEC 23091-3: stereo), no channel omitted
    entry += struct.pack(">I4sIBBQ", 22, b"chnl", 0, 1, 2, 0)
pcmc = struct.pack(">I4sIBB", 14, b"pcmC", 0, 1 if little else 0, bits)
entry += pcmc
kind = b"fpcm" if "fl32" in str(old[12:16]) else b"ipcm"  # FFmpeg's floats ('fl32') become 'fpcm'
stsd[1] = struct.pack(">II", 0, 1) + struct.pack(">I4s", 8 + len(entry), kind) + entry
frame = channels * bits // 8
frames = struct.unpack(">I", stsz[1][8:12])[0]
media = next(box for box in tree if box[0] == b"mdat")
assert len(media[1]) == frames * frame
if per > 1:
    counts = [per] * (frames // per) + ([frames % per] if frames % per else [])
    stts = [(frames // per, per)] + ([(1, frames % per)] if frames % per else [])
    boxes.one(tree, stbl + "stts")[1] = struct.pack(">II", 0, len(stts)) + b"".join(struct.pack(">II", *e) for e in stts)
    stsz[1] = struct.pack(">III", 0, 0, len(counts)) + b"".join(struct.pack(">I", c * frame) for c in counts)
    boxes.one(tree, stbl + "stsc")[1] = struct.pack(">IIIII", 0, 1, 1, len(counts), 1)
ftyp = tree[0]
assert ftyp[0] == b"ftyp"
old_size = len(boxes.write(tree[:2]))
tree[0][1] = b"isom" + struct.pack(">I", 512) + b"isomiso2mp41"
tree = [box for box in tree if box[0] != b"wide"]
delta = len(boxes.write(tree[:1])) - old_size
stco = boxes.one(tree, stbl + "stco")
count = struct.unpack(">I", stco[1][4:8])[0]
offsets = struct.unpack(">%dI" % count, stco[1][8:8 + 4 * count])
stco[1] = stco[1][:8] + struct.pack(">%dI" % count, *[o + delta for o in offsets])
boxes.save(tree, sys.argv[2])
PY
}
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.1)" -ac 2 -c:a pcm_s16le -f mov "$work/s16le.mov"
ipcm "$work/s16le.mov" "$out/ipcm-s16le-stereo.mp4" 1 1024
# 'fpcm' (the same standard's floats): 32-bit little-endian stereo at 44.1 kHz, a sample a frame, from FFmpeg's
# 'fl32' MOV (whose 'wave' box says little-endian), written anew as above.
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.05)" -ac 2 -c:a pcm_f32le -f mov "$work/f32le.mov"
ipcm "$work/f32le.mov" "$out/fpcm-f32le-stereo.mp4" 1 1
# The same as ISO's AudioSampleEntryV1 (version 1: no QuickTime fields after the rate; a 'chnl' box, stereo).
ipcm "$work/s16le.mov" "$out/ipcm-v1-chnl.mp4" 1 1024 iso-v1
ffmpeg -v error -y -f lavfi -i "$(sine 48000 0.1)" -ac 1 -c:a pcm_s24be -f mov "$work/s24be.mov"
ipcm "$work/s24be.mov" "$out/ipcm-s24be-mono.mp4" 0 1
# Vorbis in MP4 (FFmpeg's muxer: an 'mp4a' entry whose 'esds' has objectTypeIndication 0xDD and the three Vorbis
# headers Xiph-laced as its decoder specific info), 44.1 kHz stereo, 0.3 s.
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.3)" -ac 2 -c:a libvorbis -b:a 64k -strict -2 "$out/vorbis.mp4"
# A QuickTime movie that begins with 'mdat' (no 'ftyp', as QuickTime wrote movies before ISO's file type box;
# 'moov' after the media): FFmpeg's 16-bit 'sowt' MOV (8 kHz stereo, 0.25 s) without its 'ftyp' and 'wide' boxes,
# 'stco' moved back by their 28 bytes.
ffmpeg -v error -y -f lavfi -i "$(sine 8000 0.25)" -ac 2 -c:a pcm_s16le -f mov "$work/plain.mov"
python3 - "$work/plain.mov" "$out/mdat-first.mov" <<'PY'
import struct, sys, boxes
tree = boxes.load(sys.argv[1])
assert [box[0] for box in tree[:3]] == [b"ftyp", b"wide", b"mdat"]
cut = len(boxes.write(tree[:2]))
tree = tree[2:]
stco = boxes.one(tree, boxes.STBL + "stco")
count = struct.unpack(">I", stco[1][4:8])[0]
offsets = struct.unpack(">%dI" % count, stco[1][8:8 + 4 * count])
stco[1] = stco[1][:8] + struct.pack(">%dI" % count, *[o - cut for o in offsets])
boxes.save(tree, sys.argv[2])
PY
# An M4A whose one metadata box is broken and whose audio is whole: FFmpeg's AAC with a title and an artist,
# 'moov' first (-movflags +faststart), the title's '©nam' box given a size of 0x10000 (past its 'ilst').
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.3)" -ac 2 -c:a aac -b:a 64k -metadata title=Broken \
    -metadata artist=Someone -movflags +faststart "$work/tagged.m4a"
python3 - "$work/tagged.m4a" "$out/broken-metadata.m4a" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"\xa9nam")
assert at > 0 and data.find(b"mdat") > at
data[at - 4:at] = (0x10000).to_bytes(4, "big")
open(sys.argv[2], "wb").write(data)
PY
# A truncated M4A: FFmpeg's AAC, 'moov' first, cut 3,000 bytes before its end (at byte 4,272, inside its 13th
# packet of 23): the 12 packets before the cut are whole.
ffmpeg -v error -y -f lavfi -i "$(sine 44100 0.5)" -ac 2 -c:a aac -b:a 96k -movflags +faststart "$work/whole.m4a"
head -c $(( $(stat -c %s "$work/whole.m4a") - 3000 )) "$work/whole.m4a" > "$out/truncated.m4a"
# DTS in MP4 (FFmpeg's experimental DTS encoder; an 'mp4a' entry whose 'esds' says objectTypeIndication 0xA9),
# 48 kHz stereo, 0.1 s: refused by its codec's name. Its 'dtsc' entry form is the same entry renamed, no 'esds'.
ffmpeg -v error -y -f lavfi -i "$(sine 48000 0.1)" -ac 2 -c:a dca -strict -2 -f mp4 "$out/dts.mp4"
entrychannels "$out/dts.mp4" "$out/dts-dtsc.mp4" 2 dtsc
# Dolby TrueHD in MP4 (FFmpeg's experimental encoder), 5.1 at 48 kHz, 0.1 s: its 'mlpa' entry says a template's 2
# channels; 'dmlp' holds the major sync's format_info, whose presentation assignment says 6 (ffprobe: 6).
ffmpeg -v error -y -f lavfi -i "$(sine 48000 0.1)" -af "pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0" \
    -c:a truehd -strict -2 -f mp4 "$out/truehd-5.1.mp4"
# Codecs whose entries state 0 channels by rule (their own configuration holds them): IAMF ('iamf') and MPEG-H 3D
# Audio ('mhm1'), made as the DTS entry renamed with its channel count 0 (Debian's FFmpeg writes neither).
entrychannels "$out/dts.mp4" "$out/iamf-entry.mp4" 0 iamf
entrychannels "$out/dts.mp4" "$out/mhm1-entry.mp4" 0 mhm1
