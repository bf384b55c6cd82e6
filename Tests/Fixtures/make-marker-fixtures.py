#!/usr/bin/env python3
"""Assembles, byte by byte, sounds that carry markers, loops, an instrument and annotations
(Tests/Fixtures/markers): no installed tool writes these chunks from the command line. The audio is
a short sine (16-bit mono, 22050 Hz); around it:

- sampler.aiff: MARK (three markers, Pascal names), INST (base note 57, detune -12, notes 40-80,
  velocities 10-120, gain -3, a forward sustain loop from marker 1 to 2, a ping-pong release loop from
  2 to 3), COMT (two comments, one tied to marker 1), NAME, AUTH, (c) , two ANNO, an APPL chunk;
- sampler.wav: cue (three points) with LIST/adtl labels, smpl (unity note 57, pitch fraction a
  quarter, a forward loop and a ping-pong one, `end` their last sample), inst, bext, LIST/INFO;
- sampler.caf: mark (three markers) named in strg, regn (a looping region, forward, and one that
  does not loop), inst (base note 57.25, the looping region as the sustain).

Each NAME.json holds what the file says (`expected`), written here beside the bytes that say it.
Run from this folder: python3 make-marker-fixtures.py
"""
import json, math, os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "markers")
RATE, FRAMES = 22050, 4000
PCM = [int(12000 * math.sin(2 * math.pi * 440 * i / RATE)) for i in range(FRAMES)]
MARKERS = [(1, 1000, "loop start"), (2, 3000, "loop end"), (3, 3600, "tail")]


def pascal(text):
    data = bytes([len(text)]) + text.encode()
    return data + (b"\x00" if len(data) % 2 else b"")


def iff(kind, body, little=False):
    size = struct.pack("<I" if little else ">I", len(body))
    return kind + size + body + (b"\x00" if len(body) % 2 else b"")


def aiff():
    rate = struct.pack(">HQ", 16383 + 14, int(RATE / 2 ** 14 * (1 << 63)))
    comm = struct.pack(">hIh", 1, FRAMES, 16) + rate
    mark = struct.pack(">H", len(MARKERS)) + b"".join(struct.pack(">hI", i, p) + pascal(n) for i, p, n in MARKERS)
    inst = struct.pack(">bbbbbbh", 57, -12, 40, 80, 10, 120, -3) + struct.pack(">hhh", 1, 1, 2) + struct.pack(">hhh", 2, 2, 3)
    def comment(time, marker, text):
        data = struct.pack(">IhH", time, marker, len(text)) + text.encode()
        return data + (b"\x00" if len(text) % 2 else b"")
    comt = struct.pack(">H", 2) + comment(3_900_000_000, 1, "loop here") + comment(3_900_000_100, 0, "recorded in a hall")
    ssnd = struct.pack(">II", 0, 0) + b"".join(struct.pack(">h", v) for v in PCM)
    chunks = (iff(b"COMM", comm) + iff(b"MARK", mark) + iff(b"INST", inst) + iff(b"COMT", comt)
              + iff(b"NAME", b"Harp pluck") + iff(b"AUTH", b"afkit tests") + iff(b"(c) ", b"2026 afkit")
              + iff(b"ANNO", b"first note") + iff(b"ANNO", b"second note") + iff(b"APPL", b"afkt" + b"private")
              + iff(b"SSND", ssnd))
    data = b"FORM" + struct.pack(">I", len(chunks) + 4) + b"AIFF" + chunks
    expected = {
        "markers": [{"id": i, "position": p, "name": n} for i, p, n in MARKERS],
        "comments": [{"timeStamp": 3_900_000_000, "marker": 1, "text": "loop here"},
                     {"timeStamp": 3_900_000_100, "marker": 0, "text": "recorded in a hall"}],
        "instrument": {"baseNote": 57, "detune": -12, "lowNote": 40, "highNote": 80, "lowVelocity": 10,
                       "highVelocity": 120, "gain": -3,
                       "sustainLoop": {"playMode": "forward", "beginMarker": 1, "endMarker": 2},
                       "releaseLoop": {"playMode": "pingpong", "beginMarker": 2, "endMarker": 3}},
        "loops": [{"start": 1000, "end": 3000, "playMode": "forward"}, {"start": 3000, "end": 3600, "playMode": "pingpong"}],
        "metadata": {"title": "Harp pluck", "artist": "afkit tests", "copyright": "2026 afkit",
                     "annotations": ["first note", "second note"]},
    }
    return data, expected


def wav():
    fmt = struct.pack("<HHIIHH", 1, 1, RATE, RATE * 2, 2, 16)
    cue = struct.pack("<I", len(MARKERS)) + b"".join(struct.pack("<II4sIII", i, i, b"data", 0, 0, p) for i, p, _ in MARKERS)
    labels = b"".join(iff(b"labl", struct.pack("<I", i) + n.encode() + b"\x00", little=True) for i, _, n in MARKERS)
    adtl = iff(b"LIST", b"adtl" + labels, little=True)
    loops = [(1, 0, 1000, 2999), (2, 1, 3000, 3599)]
    smpl = struct.pack("<IIIIIIIII", 0, 0, 1_000_000_000 // RATE, 57, 0x40000000, 0, 0, len(loops), 0)
    smpl += b"".join(struct.pack("<IIIIII", cue_id, kind, start, end, 0, 0) for cue_id, kind, start, end in loops)
    inst = struct.pack("<Bbbbbbb", 57, 25, -3, 40, 80, 10, 120)
    bext = b"A harp, plucked".ljust(256, b"\x00") + b"afkit".ljust(32, b"\x00") + b"REF-1".ljust(32, b"\x00")
    bext += b"2026-11-23" + b"08:00:00" + struct.pack("<QH", 0, 1) + bytes(64 + 190)
    info = iff(b"LIST", b"INFO" + iff(b"INAM", b"Harp pluck\x00", little=True), little=True)
    data = b"".join(struct.pack("<h", v) for v in PCM)
    chunks = (iff(b"fmt ", fmt, True) + iff(b"bext", bext, True) + iff(b"data", data, True) + iff(b"cue ", cue, True)
              + adtl + iff(b"smpl", smpl, True) + iff(b"inst", inst, True) + info)
    file = b"RIFF" + struct.pack("<I", len(chunks) + 4) + b"WAVE" + chunks
    expected = {
        "markers": [{"id": i, "position": p, "name": n} for i, p, n in MARKERS],
        # `inst` comes after `smpl`: its note, fine tune (cents) and gain are the instrument's.
        "instrument": {"baseNote": 57, "detune": 25, "lowNote": 40, "highNote": 80, "lowVelocity": 10,
                       "highVelocity": 120, "gain": -3,
                       "sustainLoop": {"playMode": "forward", "beginMarker": 1, "endMarker": 1},
                       "releaseLoop": {"playMode": "pingpong", "beginMarker": 2, "endMarker": 2}},
        "loops": [{"start": 1000, "end": 3000, "playMode": "forward"}, {"start": 3000, "end": 3600, "playMode": "pingpong"}],
        "metadata": {"title": "Harp pluck", "description": "A harp, plucked", "originator": "afkit",
                     "originator reference": "REF-1", "origination date": "2026-11-23", "origination time": "08:00:00"},
    }
    return file, expected


def caf():
    def chunk(kind, body):
        return kind + struct.pack(">q", len(body)) + body
    desc = struct.pack(">d", RATE) + b"lpcm" + struct.pack(">IIIII", 0, 2, 1, 1, 16)
    def marker(kind, position, marker_id):
        return kind + struct.pack(">diI", position, marker_id, 0xFFFFFFFF) + struct.pack(">I", 0) + struct.pack(">I", 0)
    mark = struct.pack(">II", 0, len(MARKERS)) + b"".join(marker(b"\x00\x00\x00\x00", p, i) for i, p, _ in MARKERS)
    strings = b""
    table = b""
    for i, _, n in MARKERS:
        table += struct.pack(">Iq", i, len(strings))
        strings += n.encode() + b"\x00"
    strg = struct.pack(">I", len(MARKERS)) + table + strings
    regions = struct.pack(">II", 0, 2)
    regions += struct.pack(">III", 7, 1 | 2, 2) + marker(b"rbeg", 1000, 1) + marker(b"rend", 3000, 2)
    regions += struct.pack(">III", 8, 2, 2) + marker(b"rbeg", 3000, 2) + marker(b"rend", 3600, 3)
    inst = struct.pack(">fBBBBfIIII", 57.25, 40, 80, 10, 120, -3.0, 0, 7, 0, 0)
    data = struct.pack(">I", 0) + b"".join(struct.pack(">h", v) for v in PCM)
    file = (b"caff" + struct.pack(">HH", 1, 0) + chunk(b"desc", desc) + chunk(b"mark", mark) + chunk(b"strg", strg)
            + chunk(b"regn", regions) + chunk(b"inst", inst) + chunk(b"data", data))
    expected = {
        "markers": [{"id": i, "position": p, "name": n} for i, p, n in MARKERS],
        "instrument": {"baseNote": 57, "detune": 25, "lowNote": 40, "highNote": 80, "lowVelocity": 10,
                       "highVelocity": 120, "gain": -3,
                       "sustainLoop": {"playMode": "forward", "beginMarker": 1, "endMarker": 2}, "releaseLoop": None},
        "loops": [{"start": 1000, "end": 3000, "playMode": "forward"}],
    }
    return file, expected


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in (("sampler.aiff", aiff), ("sampler.wav", wav), ("sampler.caf", caf)):
        data, expected = make()
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump({"recipe": "make-marker-fixtures.py", "expected": expected}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(name, len(data))


main()
