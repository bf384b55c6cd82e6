#!/usr/bin/env python3
"""Makes the MPEG audio and ADTS fixtures with LAME and FFmpeg, hostile variants of them, and an
AAC-in-CAF file assembled here from FFmpeg's ADTS output (Debian's FFmpeg cannot write AAC into CAF;
it reads it, and its reading is what the sidecar records).

Each `NAME.json` sidecar holds the command, what is known independently of afkit (the source's
frame count, the LAME tag's delay and padding read by this script), and ffprobe's packets (position
and size of every packet FFmpeg's demuxer returns). Run from this folder with lame, ffmpeg and sox
installed. Tests read only the committed files.
"""
import json, os, struct, subprocess, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = os.path.join(HERE, "signals")
SRC = "/tmp/afkit-stream-sources"

def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True).stdout

def source(rate, channels, seconds=1.5):
    """Speech (left) and music (right) from the test signals, resampled."""
    os.makedirs(SRC, exist_ok=True)
    path = f"{SRC}/src-{rate}-{channels}.wav"
    if not os.path.exists(path):
        if channels == 2:
            run(f"sox -M {SIG}/speech.wav {SIG}/music.wav -r {rate} -b 16 {path} trim 0 {seconds}")
        else:
            run(f"sox {SIG}/speech.wav -r {rate} -b 16 -c 1 {path} trim 0 {seconds}")
    return path

def frames_of(path):
    return int(run(f"soxi -s '{path}'").decode().strip())

def ffprobe_packets(path, fmt=None):
    force = f"-f {fmt} " if fmt else ""
    out = json.loads(run(f"ffprobe -v error {force}-select_streams a:0 -show_packets -show_entries packet=pos,size -of json '{path}'"))
    return [[int(p["pos"]), int(p["size"])] for p in out.get("packets", [])]

def lame_tag(path):
    """Encoder delay and padding from a LAME/Lavc tag, read independently of afkit."""
    data = open(path, "rb").read()
    for tag in (b"Xing", b"Info"):
        i = data.find(tag, 0, 4096)
        if i < 0:
            continue
        flags = struct.unpack(">I", data[i + 4:i + 8])[0]
        j = i + 8 + (4 if flags & 1 else 0) + (4 if flags & 2 else 0) + (100 if flags & 4 else 0) + (4 if flags & 8 else 0)
        name = data[j:j + 9]
        if name[:4] in (b"LAME", b"Lavc", b"Lavf"):
            b = data[j + 21:j + 24]
            return {"encoder": name.decode("latin-1").strip("\x00 "), "delay": (b[0] << 4) | (b[1] >> 4),
                    "padding": ((b[1] & 0x0F) << 8) | b[2], "xingFrames": struct.unpack(">I", data[i + 8:i + 12])[0] if flags & 1 else None}
    return None

manifest = []
ONLY = sys.argv[1:]  # names to remake (plain `make` fixtures only); none: all

def record(name, command, src, fmt=None, note="", expected=None):
    if ONLY and name not in ONLY: return
    path = os.path.join(HERE, name)
    side = {"command": command, "note": note, "sourceFrames": frames_of(src) if src else None,
            "sourceRate": int(run(f"soxi -r '{src}'").decode().strip()) if src else None,
            "ffprobePackets": ffprobe_packets(path, fmt), "size": os.path.getsize(path),
            "crc32": zlib.crc32(open(path, "rb").read())}
    tag = lame_tag(path) if name.endswith((".mp3", ".mp2")) else None
    if tag:
        side["lameTag"] = tag
    if expected:
        side["expected"] = expected
    with open(path + ".json", "w") as f:
        json.dump(side, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, os.path.getsize(path), len(side["ffprobePackets"]), tag)

def make(name, command, src, **kw):
    if ONLY and name not in ONLY: return
    out = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run(command.format(src=src, out=out).replace("ffmpeg ", "ffmpeg -hide_banner -loglevel error -y ", 1))
    record(name, command.format(src=os.path.basename(src), out=os.path.basename(name)), src, **kw)

def main():
    s44 = source(44100, 2)
    make("mp3/lame-cbr128-stereo-44k.mp3", "lame --quiet -b 128 --cbr {src} {out}", s44)
    make("mp3/lame-cbr320-joint-48k.mp3", "lame --quiet -b 320 --cbr -m j {src} {out}", source(48000, 2))
    make("mp3/lame-cbr32-mono-22k.mp3", "lame --quiet -b 32 --cbr -m m {src} {out}", source(22050, 1))
    for q in (0, 5, 9):
        make(f"mp3/lame-vbr-v{q}.mp3", f"lame --quiet -V {q} {{src}} {{out}}", s44)
    make("mp3/lame-crc-protected.mp3", "lame --quiet -p -V 4 {src} {out}", s44,
         note="-p: CRC-protected frames; LAME writes its Info header where an unprotected frame's would be")
    if not ONLY or "mp3/rate-change-44k-48k.mp3" in ONLY:
        # Two LAME streams end to end: the rate changes from 44.1 to 48 kHz (the second's Info frame is a
        # frame of silence to a reader of the whole); FFmpeg counts every frame.
        name = "mp3/rate-change-44k-48k.mp3"
        run(f"cat {HERE}/mp3/lame-cbr128-stereo-44k.mp3 {HERE}/mp3/lame-cbr320-joint-48k.mp3 > {HERE}/{name}")
        record(name, "cat lame-cbr128-stereo-44k.mp3 lame-cbr320-joint-48k.mp3 > rate-change-44k-48k.mp3", None,
               note="the sample rate changes mid-stream: the first rate is reported, every frame counted")
    make("mp3/lame-no-tag.mp3", "lame --quiet -t -b 96 {src} {out}", s44,
         note="-t: no Xing/LAME frame, so no gapless information")
    make("mp3/lame-mpeg25-8k-mono.mp3", "lame --quiet -b 16 -m m {src} {out}", source(8000, 1))
    make("mp3/lame-mpeg25-11k-vbr.mp3", "lame --quiet -V 4 -m m {src} {out}", source(11025, 1))
    make("mp3/lame-mpeg2-24k-vbr-joint.mp3", "lame --quiet -V 2 -m j {src} {out}", source(24000, 2))
    def free_format_frames(path, bitrate):
        data = open(path, "rb").read()
        frames, pos = [], 0
        while pos + 4 <= len(data) and data[pos] == 0xFF:
            length = 144 * bitrate // 44100 + ((data[pos + 2] >> 1) & 1)
            if pos + length > len(data):
                break
            frames.append([pos, length])
            pos += length
        return frames
    out = os.path.join(HERE, "mp3/lame-freeformat.mp3")
    if not ONLY or "mp3/lame-freeformat.mp3" in ONLY:
        run(f"lame --quiet --freeformat -b 400 -t {s44} {out}")
    record("mp3/lame-freeformat.mp3", f"lame --quiet --freeformat -b 400 -t {os.path.basename(s44)} lame-freeformat.mp3", s44,
           note="free format (bitrate index 0): FFmpeg does not split it into frames; the expected frames are walked "
                "by this script from the 400 kbit/s the command asked for",
           expected={"packets": free_format_frames(out, 400000)})
    make("mp3/lame-id3v1-id3v2.mp3",
         "lame --quiet -b 64 --tt 'Level Complete' --ta 'afkit' --tl 'Fixtures' --ty 2026 --add-id3v2 {src} {out}", s44)
    make("mp3/ffmpeg-libmp3lame.mp3", "ffmpeg -i {src} -c:a libmp3lame -b:a 96k -metadata title='Chime' -metadata artist='afkit' {out}", s44)
    make("mp3/ffmpeg-mp2-48k.mp2", "ffmpeg -i {src} -c:a mp2 -b:a 192k {out}", source(48000, 2), fmt="mp3")
    make("mp3/ffmpeg-twolame-mono-32k.mp2", "ffmpeg -i {src} -c:a libtwolame -b:a 64k -ac 1 {out}", source(32000, 1), fmt="mp3")
    make("mp3/ffmpeg-shine-cbr.mp3", "ffmpeg -i {src} -c:a libshine -b:a 128k {out}", s44)

    # Hostile variants, made from the files above by this script.
    def derive(name, base, transform, note, packets):
        """`packets` maps the clean file's ffprobe packets to those the derived file holds."""
        data = open(os.path.join(HERE, base), "rb").read()
        out = os.path.join(HERE, name)
        open(out, "wb").write(transform(data))
        base_side = json.load(open(os.path.join(HERE, base + ".json")))
        record(name, f"derived from {os.path.basename(base)} by make-stream-fixtures.py: {note}", None, note=note,
               expected={"packets": packets(base_side["ffprobePackets"]), "base": base})
    junk = bytes((i * 73 + 41) % 251 for i in range(3000))
    shift = lambda by, start=0: (lambda ps: [[p + (by if i >= start else 0), n] for i, (p, n) in enumerate(ps)])
    derive("mp3/hostile-leading-junk.mp3", "mp3/lame-vbr-v5.mp3", lambda d: junk + d, "3000 bytes of junk before the stream",
           shift(3000))
    def garbage_between(d):
        # After the 11th frame (the Xing frame is the 1st): garbage with false syncs in it.
        pos = [p for p, _ in ffprobe_packets(os.path.join(HERE, "mp3/lame-cbr128-stereo-44k.mp3"))]
        cut = pos[10]
        return d[:cut] + bytes([0xFF, 0xFB, 0x90, 0x64] + [0x55] * 200 + [0xFF, 0xFA, 0x10, 0x00] * 10 + [0xAA] * 333) + d[cut:]
    # The garbage opens with a whole false frame (a 128 kbit/s header and 413 bytes) right where the 10th frame
    # ended: afkit delivers a frame in line as soon as its bytes are whole, as Apple's parser does (a client that
    # never closes the stream gets its last packet), so that false frame is a packet FFmpeg's demuxer drops.
    in_line_false_frame = lambda ps: (lambda s: s[:10] + [[ps[10][0], 417]] + s[10:])(shift(577, 10)(ps))
    derive("mp3/hostile-garbage-between-frames.mp3", "mp3/lame-cbr128-stereo-44k.mp3", garbage_between,
           "577 bytes of garbage, with false frame headers, inserted before the 11th audio frame (the first 417 a "
           "whole false frame in line)", in_line_false_frame)
    whole = lambda size: (lambda ps: [[p, n] for p, n in ps if p + n <= size])
    base_size = os.path.getsize(os.path.join(HERE, "mp3/lame-cbr128-stereo-44k.mp3"))
    derive("mp3/hostile-truncated-last-frame.mp3", "mp3/lame-cbr128-stereo-44k.mp3", lambda d: d[:-150],
           "the last 150 bytes cut off, inside the last frame", whole(base_size - 150))
    def false_sync_in_id3(d):
        body = b"TIT2" + struct.pack(">I", 21) + b"\x00\x00" + b"\x00" + b"\xff\xfb\x90\x64" + b" false sync!!!!\x00"
        body += b"PRIV" + struct.pack(">I", 40) + b"\x00\x00" + bytes([0xFF, 0xFB, 0x90, 0x64] * 10)
        size = len(body)
        syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
        return b"ID3\x03\x00\x00" + syncsafe + body + d
    derive("mp3/hostile-false-sync-in-id3.mp3", "mp3/lame-cbr128-stereo-44k.mp3", false_sync_in_id3,
           "an ID3v2.3 tag whose frames hold valid-looking MPEG headers", shift(10 + 21 + 10 + 40 + 10))
    def lying_xing(d):
        i = d.find(b"Xing")
        return d[:i + 8] + struct.pack(">I", 99999) + d[i + 12:]
    derive("mp3/hostile-lying-xing-count.mp3", "mp3/lame-vbr-v5.mp3", lying_xing, "the Xing frame count set to 99999",
           lambda ps: ps)

    # ADTS (AAC-LC; FFmpeg's native encoder has no HE-AAC).
    make("adts/aac-lc-44k-stereo.aac", "ffmpeg -i {src} -c:a aac -b:a 128k -f adts {out}", s44, fmt="aac")
    make("adts/aac-lc-48k-mono.aac", "ffmpeg -i {src} -c:a aac -b:a 64k -ac 1 -f adts {out}", source(48000, 1), fmt="aac")
    make("adts/aac-lc-22k-stereo.aac", "ffmpeg -i {src} -c:a aac -b:a 48k -f adts {out}", source(22050, 2), fmt="aac")
    make("adts/aac-lc-8k-mono.aac", "ffmpeg -i {src} -c:a aac -b:a 16k -f adts {out}", source(8000, 1), fmt="aac")
    make("adts/aac-lc-id3v2.aac", "ffmpeg -i {src} -c:a aac -b:a 64k -f adts -write_id3v2 1 -metadata title='Chime' {out}",
         source(22050, 1), fmt="aac")
    derive("adts/hostile-leading-junk.aac", "adts/aac-lc-22k-stereo.aac", lambda d: junk + d, "3000 bytes of junk before the stream",
           shift(3000))
    adts_size = os.path.getsize(os.path.join(HERE, "adts/aac-lc-22k-stereo.aac"))
    derive("adts/hostile-truncated-last-frame.aac", "adts/aac-lc-22k-stereo.aac", lambda d: d[:-20],
           "the last 20 bytes cut off, inside the last frame", whole(adts_size - 20))

    # AAC in CAF, assembled here: desc, kuki (an ES descriptor), pakt, data.
    adts = open(os.path.join(HERE, "adts/aac-lc-44k-stereo.aac"), "rb").read()
    payloads = []
    i = 0
    while i + 7 <= len(adts):
        length = ((adts[i + 3] & 3) << 11) | (adts[i + 4] << 3) | (adts[i + 5] >> 5)
        header = 7 if adts[i + 1] & 1 else 9
        payloads.append(adts[i + header:i + length])
        i += length
    asc = bytes([0x12, 0x10])  # AAC-LC, 44.1 kHz, 2 channels
    def desc_len(n):
        return bytes([0x80 | (n >> 21 & 0x7F), 0x80 | (n >> 14 & 0x7F), 0x80 | (n >> 7 & 0x7F), n & 0x7F])
    dsi = b"\x05" + desc_len(len(asc)) + asc
    dcd_body = b"\x40\x15" + b"\x00\x00\x00" + struct.pack(">II", 0, 0) + dsi
    dcd = b"\x04" + desc_len(len(dcd_body)) + dcd_body
    sl = b"\x06" + desc_len(1) + b"\x02"
    es_body = b"\x00\x00\x00" + dcd + sl
    esds = b"\x03" + desc_len(len(es_body)) + es_body
    def varint(n):
        out = [n & 0x7F]
        n >>= 7
        while n:
            out.append(0x80 | (n & 0x7F))
            n >>= 7
        return bytes(reversed(out))
    source_frames = frames_of(s44)
    priming = 1024
    total = len(payloads) * 1024
    remainder = total - priming - source_frames
    pakt = struct.pack(">qqii", len(payloads), source_frames, priming, remainder) + b"".join(varint(len(p)) for p in payloads)
    def chunk(kind, body):
        return kind + struct.pack(">q", len(body)) + body
    caf = b"caff\x00\x01\x00\x00"
    caf += chunk(b"desc", struct.pack(">d4sIIIII", 44100.0, b"aac ", 2, 0, 1024, 2, 0))
    caf += chunk(b"kuki", esds) + chunk(b"pakt", pakt) + chunk(b"data", b"\x00\x00\x00\x00" + b"".join(payloads))
    name = "adts/aac-lc-in-caf.caf"
    open(os.path.join(HERE, name), "wb").write(caf)
    record(name, "assembled by make-stream-fixtures.py from the packets of adts/aac-lc-44k-stereo.aac: desc, kuki "
           "(ES descriptor), pakt (priming 1024, valid = the source's frames), data", s44,
           expected={"packetCount": len(payloads), "priming": priming, "remainder": remainder, "validFrames": source_frames,
                     "audioSpecificConfig": asc.hex()})

main()
