#!/usr/bin/env python3
"""Makes the MPEG-4 fixtures (Tests/Fixtures/mp4) with FFmpeg and AtomicParsley, and assembles here,
byte by byte, the layouts no installed tool writes.

Each `NAME.json` sidecar holds the command (or how the file was assembled), what is known independently
of afkit (the source's frame count and rate; for assembled files the packets, format and gapless
numbers this script put in), and ffprobe's packets (position and size of every packet FFmpeg's demuxer
returns). Run from this folder with ffmpeg, sox and AtomicParsley installed. Tests read only the
committed files.
"""
import json, os, struct, subprocess, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mp4")
SIG = os.path.join(HERE, "signals")
SRC = "/tmp/afkit-mp4-sources"


def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True).stdout


def source(rate, channels, seconds):
    os.makedirs(SRC, exist_ok=True)
    path = f"{SRC}/src-{rate}-{channels}-{seconds}.wav"
    if not os.path.exists(path):
        if channels == 2:
            run(f"sox -M {SIG}/speech.wav {SIG}/music.wav -r {rate} -b 16 {path} trim 0 {seconds}")
        else:
            run(f"sox {SIG}/music.wav -r {rate} -b 16 -c 1 {path} trim 0 {seconds}")
    return path


def frames_of(path):
    return int(run(f"soxi -s '{path}'").decode().strip())


def ffprobe_packets(path):
    out = json.loads(run(f"ffprobe -v error -select_streams a:0 -show_entries packet=pos,size -of json '{path}'"))
    return [[int(p["pos"]), int(p["size"])] for p in out.get("packets", [])]


def record(name, command, src=None, note="", expected=None, probe=True):
    path = os.path.join(OUT, name)
    side = {"command": command, "note": note, "size": os.path.getsize(path),
            "crc32": zlib.crc32(open(path, "rb").read())}
    if src:
        side["sourceFrames"] = frames_of(src)
        side["sourceRate"] = int(run(f"soxi -r '{src}'").decode().strip())
    if probe:
        side["ffprobePackets"] = ffprobe_packets(path)
    if expected:
        side["expected"] = expected
    with open(path + ".json", "w") as f:
        json.dump(side, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, side["size"], len(side.get("ffprobePackets", [])), "packets")


def ffmpeg(name, args, src, **kw):
    out = os.path.join(OUT, name)
    run(f"ffmpeg -hide_banner -loglevel error -y -i {src} {args} {out}")
    record(name, f"ffmpeg -i {os.path.basename(src)} {args} {name}", src, **kw)


# --- boxes ---------------------------------------------------------------------------------------

def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def full(kind, version, flags, body):
    return box(kind, struct.pack(">I", version << 24 | flags) + body)


def boxes(data, start=0, end=None):
    """Top-level (or nested) boxes of `data`: (type, offset, size, header)."""
    end = len(data) if end is None else end
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
            header = 16
        elif size == 0:
            size = end - i
        yield kind, i, size, header
        i += size


def find(data, path, start=0, end=None):
    """The body range of the box at a path like [b'moov', b'trak', b'mdia']."""
    for kind, offset, size, header in boxes(data, start, end):
        if kind == path[0]:
            body = offset + header + (4 if kind == b"meta" else 0)
            return (body, offset + size) if len(path) == 1 else find(data, path[1:], body, offset + size)
    return None


def esds_body(data):
    """The `esds` box body (version, flags and ES descriptor) of the first sample entry."""
    start, end = find(data, [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd"])
    i = data.find(b"esds", start, end) - 4
    size = struct.unpack(">I", data[i:i + 4])[0]
    return data[i + 8:i + size]


def samples(path):
    data = open(path, "rb").read()
    return [data[pos:pos + size] for pos, size in ffprobe_packets(path)]


def sound_entry_v0(kind, channels, rate, children):
    body = bytes(6) + struct.pack(">H", 1) + struct.pack(">HHI", 0, 0, 0)
    body += struct.pack(">HHHHI", channels, 16, 0, 0, rate << 16)
    return box(kind, body + children)


def sound_entry_v1(kind, channels, rate, children):
    """QuickTime's version 1 sound description: 16 more bytes before the children."""
    body = bytes(6) + struct.pack(">H", 1) + struct.pack(">HHI", 1, 0, 0)
    body += struct.pack(">HHhHI", channels, 16, -2, 0, rate << 16)
    body += struct.pack(">IIII", 1024, 0, 0, 2)
    return box(kind, body + children)


def data_item(kind, text):
    return box(kind, box(b"data", struct.pack(">II", 1, 0) + text.encode()))


def assemble(name, src_m4a, *, brands, layout, note):
    """An M4A of the FFmpeg-made AAC file's packets in a layout of our own; returns the expectations."""
    packets = samples(src_m4a)
    esds = esds_body(open(src_m4a, "rb").read())
    rate, channels = 44100, 2
    quicktime = layout == "quicktime"
    # Chunks: varying samples per chunk, with 37 bytes of another track's data between them.
    chunking = [5, 5, 5, 3, 3, 7] if quicktime else [len(packets)]
    groups, i, k = [], 0, 0
    while i < len(packets):
        n = chunking[min(k, len(chunking) - 1)]
        groups.append(packets[i:i + n])
        i += n
        k += 1
    gap = b"\xEE" * 37 if quicktime else b""
    priming, valid = 1024, sum(1 for _ in packets) * 1024 - 1024 - 403

    def moov(chunk_offsets, other_offsets):
        stsc_runs = []
        for index, group in enumerate(groups):
            if not stsc_runs or stsc_runs[-1][1] != len(group):
                stsc_runs.append((index + 1, len(group)))
        stsc = full(b"stsc", 0, 0, struct.pack(">I", len(stsc_runs)) + b"".join(struct.pack(">III", f, n, 1) for f, n in stsc_runs))
        # As FFmpeg does: the last sample lasts only as long as the valid audio it ends.
        last = 1024 + priming + valid - len(packets) * 1024
        stts = full(b"stts", 0, 0, struct.pack(">IIIII", 2, len(packets) - 1, 1024, 1, last))
        if quicktime:
            sizes = full(b"stz2", 0, 0, struct.pack(">I", 16) + struct.pack(">I", len(packets)) + b"".join(struct.pack(">H", len(p)) for p in packets))
            offsets = full(b"co64", 0, 0, struct.pack(">I", len(chunk_offsets)) + b"".join(struct.pack(">Q", o) for o in chunk_offsets))
            wave = box(b"wave", box(b"frma", b"mp4a") + box(b"mp4a", bytes(4)) + box(b"esds", esds) + bytes(8))
            entry = sound_entry_v1(b"mp4a", channels, rate, wave)
        else:
            sizes = full(b"stsz", 0, 0, struct.pack(">II", 0, len(packets)) + b"".join(struct.pack(">I", len(p)) for p in packets))
            offsets = full(b"stco", 0, 0, struct.pack(">I", len(chunk_offsets)) + b"".join(struct.pack(">I", o) for o in chunk_offsets))
            entry = sound_entry_v0(b"mp4a", channels, rate, box(b"esds", esds))
        stsd = full(b"stsd", 0, 0, struct.pack(">I", 1) + entry)
        stbl = box(b"stbl", stsd + stts + stsc + sizes + offsets)
        hdlr = full(b"hdlr", 0, 0, bytes(4) + b"soun" + bytes(12) + b"\x00")
        mdhd = full(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, rate, len(packets) * 1024) + struct.pack(">HH", 0x55C4, 0))
        minf = box(b"minf", full(b"smhd", 0, 0, bytes(4)) + stbl)
        mdia = box(b"mdia", mdhd + hdlr + minf)
        tkhd = full(b"tkhd", 0, 7, struct.pack(">III", 0, 0, 2) + bytes(72))
        mvhd = full(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, 600, valid * 600 // rate) + bytes(80))
        trak = tkhd
        if quicktime:
            # An empty edit (a delay) first, then the media from the priming on, in a 600-unit movie timescale.
            elst = full(b"elst", 0, 0, struct.pack(">I", 2) + struct.pack(">IiI", 300, -1, 0x10000)
                        + struct.pack(">IiI", (valid * 600 + rate - 1) // rate, priming, 0x10000))
            trak += box(b"edts", elst)
        trak = box(b"trak", trak + mdia)
        extra = b""
        if quicktime:
            # A subtitle track first, whose samples are the gaps between our chunks: the sound track must be chosen.
            vstbl = box(b"stbl", full(b"stsd", 0, 0, struct.pack(">I", 1) + box(b"tx3g", bytes(38)))
                        + full(b"stts", 0, 0, struct.pack(">III", 1, len(other_offsets), 512))
                        + full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, 1, 1))
                        + full(b"stsz", 0, 0, struct.pack(">II", 37, len(other_offsets)))
                        + full(b"stco", 0, 0, struct.pack(">I", len(other_offsets)) + b"".join(struct.pack(">I", o) for o in other_offsets)))
            vmdia = box(b"mdia", full(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, 600, 600) + struct.pack(">HH", 0, 0))
                        + full(b"hdlr", 0, 0, bytes(4) + b"sbtl" + bytes(12) + b"\x00")
                        + box(b"minf", full(b"nmhd", 0, 0, b"") + vstbl))
            extra = box(b"trak", full(b"tkhd", 0, 7, struct.pack(">III", 0, 0, 1) + bytes(72)) + vmdia)
            # QuickTime's `meta` has no version and flags; its list ends with a 32-bit zero.
            ilst = box(b"ilst", data_item(b"\xa9nam", "Assembled") + data_item(b"\xa9ART", "afkit tests"))
            meta = box(b"meta", full(b"hdlr", 0, 0, bytes(4) + b"mdta" + bytes(12) + b"\x00") + ilst)
            udta = box(b"udta", meta + bytes(4))
        else:
            smpb = " 00000000 %08X %08X %016X" % (priming, 403, valid) + " 00000000" * 8
            item = box(b"----", full(b"mean", 0, 0, b"com.apple.iTunes") + full(b"name", 0, 0, b"iTunSMPB")
                       + box(b"data", struct.pack(">II", 1, 0) + smpb.encode()))
            ilst = box(b"ilst", data_item(b"\xa9nam", "Assembled") + item)
            udta = box(b"udta", full(b"meta", 0, 0, full(b"hdlr", 0, 0, bytes(4) + b"mdirappl" + bytes(9)) + ilst))
        return box(b"moov", mvhd + extra + trak + udta)

    ftyp = box(b"ftyp", brands[0] + struct.pack(">I", 0) + b"".join(brands))

    def media(base):
        body, chunk_offsets, other_offsets, expected = b"", [], [], []
        for group in groups:
            other_offsets.append(base + len(body))
            body += gap
            chunk_offsets.append(base + len(body))
            for p in group:
                expected.append([base + len(body), len(p)])
                body += p
        return body, chunk_offsets, other_offsets, expected

    # Two passes: the moov's size does not depend on the offsets' values.
    header = 16 if quicktime else 8
    provisional = moov(*media(0)[1:3])
    base = len(ftyp) + len(provisional) + header
    body, chunk_offsets, other_offsets, expected = media(base)
    movie = moov(chunk_offsets, other_offsets)
    assert len(movie) == len(provisional)
    if quicktime:
        mdat = struct.pack(">I4sQ", 1, b"mdat", 16 + len(body)) + body  # 64-bit size
    else:
        mdat = struct.pack(">I4s", 0, b"mdat") + body  # size 0: to the end of the file
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(ftyp + movie + mdat)
    return {"packets": expected, "formatID": "aac ", "sampleRate": rate, "channels": channels,
            "primingFrames": priming, "remainderFrames": 403, "frameCount": valid,
            "metadata": {"title": "Assembled", **({"artist": "afkit tests"} if quicktime else {})}}


def patch_config(name, base, config, expected, note):
    """A copy of an FFmpeg-made M4A whose AudioSpecificConfig is replaced by one of the same length."""
    data = bytearray(open(os.path.join(OUT, base), "rb").read())
    start, end = find(data, [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd"])
    i = data.find(bytes([0x05, 0x80, 0x80, 0x80]), start, end)
    assert i > 0 and data[i + 4] == len(config), "the config to replace is not where it was expected"
    data[i + 5:i + 5 + len(config)] = config
    open(os.path.join(OUT, name), "wb").write(bytes(data))
    record(name, f"assembled from {base}: AudioSpecificConfig {config.hex()}", note=note, expected=expected)


def bits(*fields):
    """Packs (value, width) fields MSB first into bytes, zero-padded."""
    value, width = 0, 0
    for v, w in fields:
        value, width = value << w | v, width + w
    pad = (8 - width % 8) % 8
    return (value << pad).to_bytes((width + pad) // 8, "big")


def main():
    os.makedirs(OUT, exist_ok=True)
    s44 = source(44100, 2, 1.5)
    m22 = source(22050, 1, 0.6)
    ffmpeg("aac-faststart.m4a", "-c:a aac -b:a 48k -movflags +faststart", s44)
    ffmpeg("aac-moov-last.m4a", "-c:a aac -b:a 48k", s44)
    ffmpeg("aac-fragmented.mp4", "-c:a aac -b:a 48k -movflags frag_keyframe+empty_moov -frag_duration 400000", s44)
    ffmpeg("aac-mono-22k.m4a", "-c:a aac -b:a 24k -movflags +faststart", m22)
    ffmpeg("alac-mono-22k.m4a", "-c:a alac -movflags +faststart", m22)
    ffmpeg("mp3.mp4", "-c:a libmp3lame -b:a 48k -movflags +faststart", s44)
    ffmpeg("opus.mp4", "-c:a libopus -b:a 24k -movflags +faststart", s44)
    ffmpeg("ac3.mp4", "-c:a ac3 -b:a 64k -movflags +faststart", m22)
    ffmpeg("flac.mp4", "-c:a flac -strict -2 -movflags +faststart", m22)
    # Cover art as FFmpeg writes it by default (an attached picture: `covr` in `moov`, after `mdat`), larger than
    # a file reader's 64 KiB read (issue 53: refused as "ends without a 'moov' box").
    cover = f"{SRC}/big-cover.jpg"
    run(f"ffmpeg -hide_banner -loglevel error -y -f lavfi -i 'nullsrc=s=250x250,geq=random(1)*255:random(1)*255:random(1)*255'"
        f" -frames:v 1 -q:v 1 -bitexact {cover}")
    art = "-map 0 -map 1 -c:a aac -b:a 24k -c:v copy -disposition:v attached_pic"
    run(f"ffmpeg -hide_banner -loglevel error -y -i {m22} -i {cover} {art} {OUT}/cover-art-moov-last.m4a")
    record("cover-art-moov-last.m4a", f"ffmpeg -i {os.path.basename(m22)} -i big-cover.jpg {art} cover-art-moov-last.m4a",
           m22)
    # FFmpeg's own decoding, as 32-bit floats: its CRC-32 over the valid frames afkit reports (FFmpeg's CLI
    # leaves the frames past the edit list's end), for the tests to compare afkit's samples with.
    for name in ["flac.mp4", "opus.mp4"]:
        raw = run(f"ffmpeg -hide_banner -loglevel error -i {OUT}/{name} -f f32le -")
        info = json.loads(run(f"afkit info --json {OUT}/{name}"))[0]
        frames, channels = info["frameCount"], info["format"]["channels"]
        path = os.path.join(OUT, name + ".json")
        side = json.load(open(path))
        side["ffmpegDecoded"] = {"command": f"ffmpeg -i {name} -f f32le -", "frames": len(raw) // (4 * channels),
                                 "crc32OfFirstFrames": zlib.crc32(raw[:frames * 4 * channels]), "framesHashed": frames}
        with open(path, "w") as f:
            json.dump(side, f, indent=1, sort_keys=True)
            f.write("\n")

    # Tags by AtomicParsley, cover art included (skipped by size, never read).
    tagged = os.path.join(OUT, "aac-tagged.m4a")
    cover = f"{SRC}/cover.png"
    run(f"ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=64x64:rate=1 -frames:v 1 {cover}")
    run(f"cp {OUT}/aac-mono-22k.m4a {tagged}")
    ap = ('AtomicParsley aac-tagged.m4a --overWrite --title "Tagged Title" --artist "Some Artist" --album "An Album" '
          '--year 2024 --genre "Field Recording" --comment "a comment" --tracknum 3/12 --artwork cover.png '
          '--rDNSatom "freeform value" name=MOOD domain=com.apple.iTunes')
    subprocess.run(ap.replace("aac-tagged.m4a", tagged).replace("cover.png", cover), shell=True, check=True,
                   capture_output=True)
    record("aac-tagged.m4a", f"cp aac-mono-22k.m4a aac-tagged.m4a; {ap}", m22,
           expected={"metadata": {"title": "Tagged Title", "artist": "Some Artist", "album": "An Album",
                                  "year": "2024", "genre": "Field Recording", "comments": "a comment", "track number": "3/12",
                                  "mood": "freeform value"}})

    # HE-AAC signalled in the AudioSpecificConfig (no encoder for it is installed): the packets stay
    # FFmpeg's AAC-LC ones; what is proven is the format afkit reports from the signalling.
    patch_config("he-aac-backward-compatible.m4a", "aac-faststart.m4a",
                 bits((2, 5), (7, 4), (2, 4), (0, 3), (0x2B7, 11), (5, 5), (1, 1), (4, 4)),
                 {"formatID": "aach", "sampleRate": 44100, "channels": 2, "framesPerPacket": 2048,
                  "formatList": [["aach", 44100, 2, 2048], ["aac ", 22050, 2, 1024]]},
                 "AAC-LC at 22050 Hz, stereo, with SBR at 44100 Hz signalled after the GASpecificConfig (sync 0x2B7)")
    patch_config("he-aac-v2-explicit.m4a", "aac-faststart.m4a",
                 bits((29, 5), (7, 4), (1, 4), (4, 4), (2, 5), (0, 3), (0, 8)),
                 {"formatID": "aacp", "sampleRate": 44100, "channels": 2, "framesPerPacket": 2048,
                  "formatList": [["aacp", 44100, 2, 2048], ["aach", 44100, 1, 2048], ["aac ", 22050, 1, 1024]]},
                 "object type 29 (SBR + PS) first: mono AAC-LC core at 22050 Hz, SBR at 44100 Hz, PS to stereo")

    base = os.path.join(OUT, "aac-faststart.m4a")
    exp = assemble("assembled-quicktime.m4a", base, brands=[b"M4A ", b"qt  "], layout="quicktime",
                   note="")
    record("assembled-quicktime.m4a", "assembled by make-mp4-fixtures.py from aac-faststart.m4a's packets",
           note="a subtitle track first; QuickTime v1 sound description with esds inside 'wave'; stz2 (16-bit) sizes; "
                "co64; chunks of 5, 3 and 7 samples with 37 bytes of subtitle samples between them; an empty edit then the "
                "media edit in a 600-unit movie timescale; QuickTime-style meta; mdat with a 64-bit size",
           expected=exp)
    exp = assemble("assembled-itunsmpb.mp4", base, brands=[b"isom", b"mp41"], layout="plain", note="")
    record("assembled-itunsmpb.mp4", "assembled by make-mp4-fixtures.py from aac-faststart.m4a's packets",
           note="no edit list: gapless numbers from iTunSMPB only; mdat of size 0 (to the end); brands isom, mp41",
           expected=exp)


if __name__ == "__main__":
    main()
