#!/usr/bin/env python3
"""Builds, byte by byte, small files whose headers lie about sizes and counts: each claims far more
than it holds (a packet table of 2^40 entries, a 4 GiB chunk in a 100-byte file, a 256 MB ID3 tag).
No tool writes such files, so this script is their maker; the MP3 frames inside come from the
committed LAME fixture. Tests read the committed files: the resource tests run afkit on them under
an address-space limit, and the step-budget test feeds them one byte at a time.

Run from this folder: python3 make-hostile-fixtures.py
"""
import os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")

def be32(v): return struct.pack(">I", v)
def be64(v): return struct.pack(">Q", v)
def le16(v): return struct.pack("<H", v)
def le32(v): return struct.pack("<I", v)
def le64(v): return struct.pack("<Q", v)

def caf_desc(fmt, bytes_per_packet, frames_per_packet, channels=2, bits=0, rate=44100.0, flags=0):
    body = struct.pack(">d", rate) + fmt + be32(flags) + be32(bytes_per_packet) + be32(frames_per_packet) + be32(channels) + be32(bits)
    return b"caff" + be32(0x00010000) + b"desc" + be64(len(body)) + body


def box(kind, body): return be32(8 + len(body)) + kind + body
def full(kind, body, version=0, flags=0): return box(kind, be32(version << 24 | flags) + body)

def m4a(stbl_tables, mdat=None, extra_moov=b"", entry=None, mvex=b""):
    """A minimal M4A: one AAC-LC track (44.1 kHz stereo) whose sample tables are `stbl_tables`."""
    esds = full(b"esds", bytes.fromhex("0319000000041140150000000000fa000000fa0005021210060102"))
    entry = entry or box(b"mp4a", bytes(6) + struct.pack(">H", 1) + bytes(8) + struct.pack(">HHHHI", 2, 16, 0, 0, 44100 << 16) + esds)
    stbl = box(b"stbl", full(b"stsd", be32(1) + entry) + stbl_tables)
    # Header boxes cut to the fields afkit reads (timescales, track ID, handler), to stay small.
    mdia = box(b"mdia", full(b"mdhd", struct.pack(">IIII", 0, 0, 44100, 0))
        + full(b"hdlr", bytes(4) + b"soun") + box(b"minf", stbl))
    trak = box(b"trak", full(b"tkhd", struct.pack(">III", 0, 0, 1)) + mdia)
    moov = box(b"moov", full(b"mvhd", struct.pack(">IIII", 0, 0, 1000, 0)) + trak + mvex + extra_moov)
    ftyp = box(b"ftyp", b"M4A " + be32(0))
    return ftyp + moov + (mdat if mdat is not None else box(b"mdat", bytes(range(64))))

def tables(count=4, size=16, chunks=(None,), stsz=None, stts=None):
    """stts, stsc (all samples in one chunk each offset), stsz, stco; offsets are absolute guesses."""
    return ((stts if stts is not None else full(b"stts", be32(1) + be32(count) + be32(1024)))
        + full(b"stsc", be32(1) + be32(1) + be32(count) + be32(1))
        + (stsz if stsz is not None else full(b"stsz", be32(size) + be32(count)))
        + full(b"stco", be32(len(chunks)) + b"".join(be32(c if c is not None else 0) for c in chunks)))

def m4a_at(stbl_builder, **kw):
    """Builds twice so the chunk offset can point at the real start of mdat's body."""
    first = m4a(stbl_builder(0), **kw)
    start = first.rfind(b"mdat") + 4
    return m4a(stbl_builder(start), **kw)

def caf_chunk(kind, size, body): return kind + be64(size) + body

def wav_fmt_pcm16():
    body = le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) + le16(16)
    return b"fmt " + le32(len(body)) + body

def aiff_comm(frames=100):
    rate = bytes.fromhex("400bfa00000000000000")  # 8000 Hz as an 80-bit extended
    body = struct.pack(">hIh", 1, frames, 16) + rate
    return b"COMM" + be32(len(body)) + body

def mp3_frames(count):
    data = open(os.path.join(HERE, "mp3", "lame-cbr32-mono-22k.mp3"), "rb").read()
    # Skip the ID3v2 tag, if any, then take whole frames by walking their headers.
    start = 0
    if data[:3] == b"ID3":
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        start = 10 + size
    while not (data[start] == 0xFF and data[start + 1] & 0xE0 == 0xE0): start += 1
    # MPEG-2 Layer III, 22.05 kHz, 32 kbit/s: 72 * 32000 / 22050 = 104 bytes (+1 when padded).
    frames, at = b"", start
    for _ in range(count):
        length = 72 * 32000 // 22050 + ((data[at + 2] >> 1) & 1)
        frames += data[at:at + length]
        at += length
    return frames

FILES = {
    # CAF: variable-size packets (AAC) and a packet table claiming 2^40 packets in 16 bytes.
    "caf-pakt-2e40-packets.caf":
        caf_desc(b"aac ", 0, 1024) + caf_chunk(b"pakt", 24 + 16, be64(1 << 40) + be64(1 << 50) + be32(0) + be32(0) + bytes(range(1, 17)))
        + caf_chunk(b"data", 4 + 32, be32(1) + bytes(32)),
    # CAF: a magic cookie claiming 2^62 bytes, 20 present.
    "caf-kuki-2e62-bytes.caf": caf_desc(b"aac ", 0, 1024) + caf_chunk(b"kuki", 1 << 62, bytes(20)),
    # CAF: an information chunk claiming 4 294 967 295 entries in 8 bytes.
    "caf-info-4g-entries.caf":
        caf_desc(b"lpcm", 4, 1, channels=2, bits=16, flags=2) + caf_chunk(b"info", 8, be32(0xFFFFFFFF) + b"a\0b\0")
        + caf_chunk(b"data", 4 + 16, be32(0) + bytes(16)),
    # CAF: audio data claiming 2^62 bytes, 40 present.
    "caf-data-2e62-bytes.caf": caf_desc(b"lpcm", 4, 1, channels=2, bits=16, flags=2) + caf_chunk(b"data", 1 << 62, be32(0) + bytes(40)),
    # CAF: constant packets of 4 GiB each (an unknown format), 64 bytes of data.
    "caf-packet-4gib.caf": caf_desc(b"zzzz", 0xFFFFFFF0, 1) + caf_chunk(b"data", 4 + 64, be32(0) + bytes(64)),
    # CAF: Apple Lossless of 8 channels whose config says 16,384 frames a packet, 128 one-byte packets:
    # decoding them all at once would need 67 MB of samples for a 400-byte file.
    "caf-alac-8ch-16384.caf":
        caf_desc(b"alac", 0, 16384, channels=8, flags=1)
        + caf_chunk(b"kuki", 24, be32(16384) + bytes([0, 16, 40, 10, 14, 8]) + struct.pack(">H", 255) + be32(0) + be32(0)
                    + be32(44100))
        + caf_chunk(b"pakt", 24 + 128, be64(128) + be64(128 * 16384) + be32(0) + be32(0) + bytes([1]) * 128)
        + caf_chunk(b"data", 4 + 128, be32(0) + bytes(range(128))),
    # WAV: a LIST chunk of 4 GiB in a 100-byte file.
    "wav-list-4gib.wav": (lambda body: b"RIFF" + le32(len(body) + 4) + b"WAVE" + body)(
        wav_fmt_pcm16() + b"LIST" + le32(0xFFFFFFF0) + b"INFO" + bytes(52)),
    # WAV: a format chunk of 4 GiB.
    "wav-fmt-4gib.wav": b"RIFF" + le32(0xFFFFFFFF) + b"WAVE" + b"fmt " + le32(0xFFFFFFF0) + le16(1) + le16(1) + le32(8000) + bytes(60),
    # WAV: audio data claiming 4 GiB - 2, 40 bytes present.
    "wav-data-4gib.wav": b"RIFF" + le32(0xFFFFFFFF) + b"WAVE" + wav_fmt_pcm16() + b"data" + le32(0xFFFFFFFE) + bytes(40),
    # RF64: ds64 claiming 2^60 data bytes and a chunk-size table of 2^32 - 1 entries.
    "rf64-ds64-2e60.wav": b"RF64" + le32(0xFFFFFFFF) + b"WAVE" + b"ds64" + le32(28) + le64(1 << 60) + le64(1 << 60) + le64(1 << 59)
        + le32(0xFFFFFFFF) + wav_fmt_pcm16() + b"data" + le32(0xFFFFFFFF) + bytes(40),
    # AIFF: a COMM chunk of 4 GiB.
    "aiff-comm-4gib.aiff": b"FORM" + be32(0xFFFFFFF0) + b"AIFF" + b"COMM" + be32(0xFFFFFFF0) + bytes(60),
    # AIFF: a MARK chunk claiming 65 535 markers in 10 bytes, and SSND claiming 4 GiB.
    "aiff-mark-65535.aiff": (lambda body: b"FORM" + be32(len(body) + 4) + b"AIFF" + body)(
        aiff_comm() + b"MARK" + be32(10) + struct.pack(">H", 0xFFFF) + bytes(8) + b"SSND" + be32(0xFFFFFFF0) + bytes(8 + 40)),
    # MP3: an ID3v2.4 tag claiming 256 MB (the largest a synchsafe size can say), then real frames.
    "mp3-id3-256mb.mp3": b"ID3" + bytes([4, 0, 0]) + bytes([0x7F, 0x7F, 0x7F, 0x7F]) + b"TIT2" + bytes(20) + mp3_frames(4),
    # MP4: stsz claiming 2^32 - 1 sizes in a few bytes.
    "mp4-stsz-4g-entries.m4a": m4a_at(lambda at: tables(chunks=(at,), stsz=full(b"stsz", be32(0) + be32(0xFFFFFFFF) + be32(16)))),
    # MP4: one constant size for 2^32 - 1 samples in one chunk, 64 bytes of audio present.
    "mp4-stsz-constant-4g.m4a": m4a_at(lambda at: tables(count=0xFFFFFFFF, size=1, chunks=(at,))),
    # MP4: stco and stts counts of 2^32 - 1.
    "mp4-stco-4g-entries.m4a": m4a(full(b"stts", be32(0xFFFFFFFF)) + full(b"stco", be32(0xFFFFFFFF) + be32(100))),
    # MP4: mdat with a 64-bit size of 2^63 - 1 (it cannot end inside any file).
    "mp4-largesize-2e63.m4a": m4a_at(lambda at: tables(chunks=(at + 8,)), mdat=be32(1) + b"mdat" + be64((1 << 63) - 1) + bytes(64)),
    # MP4: a box in moov of size 0 (only a last top-level box may run to the end).
    "mp4-size0-in-moov.m4a": m4a(tables(), extra_moov=be32(0) + b"udta" + bytes(8)),
    # MP4: a box larger than its parent.
    "mp4-child-past-parent.m4a": m4a(tables(), extra_moov=be32(0x7FFFFFF0) + b"udta" + bytes(8)),
    # MP4: chunks whose samples overlap (each chunk starts inside the one before).
    "mp4-overlapping-chunks.m4a": m4a_at(lambda at: full(b"stts", be32(1) + be32(8) + be32(1024))
        + full(b"stsc", be32(1) + be32(1) + be32(4) + be32(1)) + full(b"stsz", be32(16) + be32(8))
        + full(b"stco", be32(2) + be32(at) + be32(at + 8))),
    # MP4: chunk offsets past the end of the file, then one of 2^32 - 1.
    "mp4-chunks-past-end.m4a": m4a_at(lambda at: full(b"stts", be32(1) + be32(8) + be32(1024))
        + full(b"stsc", be32(1) + be32(1) + be32(2) + be32(1)) + full(b"stsz", be32(16) + be32(8))
        + full(b"stco", be32(4) + be32(at) + be32(at + 32) + be32(100000) + be32(0xFFFFFFFF))),
    # MP4: 'meta' in 'udta' in 'meta' ... 14 deep.
    "mp4-nesting-bomb.m4a": m4a(tables(), mdat=box(b"mdat", bytes(8)), extra_moov=(lambda inner: [inner := box(b"udta", box(b"meta", bytes(4) + inner)) for _ in range(7)][-1])(b"")),
    # MP4: 10 empty boxes inside moov, then 6 at the top.
    "mp4-empty-boxes.m4a": m4a(tables(), mdat=box(b"mdat", bytes(8)), extra_moov=box(b"free", b"") * 10) + box(b"skip", b"") * 6,
    # MP4: a fragment whose run counts 2^32 - 1 one-byte samples by default, 64 present.
    "mp4-trun-4g-samples.mp4": (lambda head: head + box(b"moof", box(b"traf",
        full(b"tfhd", be32(1) + be32(1), flags=0x020010) + full(b"trun", be32(0xFFFFFFFF) + be32(64), flags=0x1)))
        + box(b"mdat", bytes(64)))(m4a(tables(count=0, chunks=()), mdat=b"", mvex=box(b"mvex", full(b"trex", be32(1) + be32(1) + be32(1024) + be32(1) + be32(0))))),
    # MP4: the moov after the audio, cut short.
    "mp4-moov-last-truncated.m4a": (lambda whole: whole[:16] + box(b"mdat", bytes(range(64))) + whole[16:whole.find(b"mdat") - 4][:100])(
        m4a(tables(chunks=(24,)))),
    # CAF: 16-bit stereo PCM at 1e-300 Hz (a rate any finite value above 0 may take): an output's size
    # estimate from it saturates.
    "caf-rate-1e-300.caf": caf_desc(b"lpcm", 4, 1, channels=2, bits=16, rate=1e-300, flags=12)
        + b"data" + be64(4 + 400) + be32(0) + bytes((i * 37) & 0xFF for i in range(400)),
    # WAV: 16-bit mono PCM at 1 Hz, 64 frames: any common output rate is a ratio of tens of thousands.
    "wav-rate-1hz.wav": b"RIFF" + le32(36 + 128) + b"WAVE" + b"fmt " + le32(16)
        + le16(1) + le16(1) + le32(1) + le32(2) + le16(2) + le16(16) + b"data" + le32(128)
        + b"".join(le16((i * 997) & 0x7FFF) for i in range(64)),
    # ADTS: headers claiming 8191-byte frames, 100 bytes apart.
    "adts-frame-8191.aac": (bytes([0xFF, 0xF1, 0x50, 0x83, 0xFF, 0xE0, 0x00]) + bytes(93)) * 3,
}

def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(OUT, name), "wb") as f: f.write(data)
        print(f"{name}: {len(data)} bytes")

main()
