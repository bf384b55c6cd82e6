#!/usr/bin/env python3
"""Makes the AIFF-C fixtures of the older codecs (Tests/Fixtures/aifc-codecs): GSM 6.10 and DWVW by
libsndfile, the rest assembled here around codec data FFmpeg made (G.722, u-law) or around bytes this
script chose (MACE 3:1 and 6:1, QUALCOMM PureVoice, QDesign: any bytes are MACE packets).

Each `NAME.json` sidecar holds the command or recipe, the format the file describes, and what the
reference decoders read: `NAME.s16le` is the reference decode (FFmpeg's, or libsndfile's where FFmpeg
has no decoder), 16-bit little-endian interleaved; ffprobe's facts where FFmpeg reads the file. For
codecs that decode to floating point (QDesign), the sidecar holds instead the XXH64 (`xxhsum -H64`) of
FFmpeg's decode as 32-bit little-endian floats, so the test compares every bit without a large file.
Run from this folder with ffmpeg, sox, sndfile-convert and xxhsum installed (`--only NAME...` makes
just those). Tests read only the committed files.
"""
import json, os, shutil, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "aifc-codecs")
# Real QDesign files (the Toisto AIFF test suite, CC0; provenance in that folder's README).
QDESIGN = os.path.join(HERE, "../../../shared/fixtures/qdesign")
ONLY = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
WORK = "/tmp/afkit-aifc-sources"


def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True).stdout


def extended(rate):
    """An 80-bit IEEE extended float, as COMM stores the rate."""
    import math
    mantissa, exponent = math.frexp(rate)  # rate = mantissa * 2^exponent, 0.5 <= mantissa < 1
    return struct.pack(">HQ", 16383 + exponent - 1, int(mantissa * (1 << 64)))


def aifc(compression, name, channels, frames, bits, rate, data):
    """FORM/AIFC with FVER, COMM (compression type and a Pascal-string name) and SSND."""
    pname = bytes([len(name)]) + name.encode()
    if len(pname) % 2:
        pname += b"\x00"
    comm = struct.pack(">hIh", channels, frames, bits) + extended(rate) + compression + pname
    body = b"AIFC" + b"FVER" + struct.pack(">II", 4, 0xA2805140)
    body += b"COMM" + struct.pack(">I", len(comm)) + comm
    body += b"SSND" + struct.pack(">III", 8 + len(data), 0, 0) + data
    if len(data) % 2:
        body += b"\x00"
    return b"FORM" + struct.pack(">I", len(body)) + body


def reference_decode(path, tool):
    if tool == "ffmpeg":
        return run(f"ffmpeg -v error -i '{path}' -f s16le -")
    run(f"sndfile-convert -pcm16 '{path}' {WORK}/ref.wav")
    return run(f"sox {WORK}/ref.wav -t s16 -")


def ffprobe(path):
    try:
        out = json.loads(run(f"ffprobe -v error -count_packets -show_entries "
                             f"stream=codec_name,sample_rate,channels,nb_read_packets -of json '{path}'"))
        return out["streams"][0]
    except Exception:
        return None


def record(name, recipe, fmt, decoder, note=""):
    if ONLY is not None and name not in ONLY:
        return
    path = os.path.join(OUT, name)
    side = {"recipe": recipe, "note": note, "expected": fmt, "ffprobe": ffprobe(path)}
    if decoder == "ffmpeg-float":
        floats = run(f"ffmpeg -v error -i '{path}' -f f32le -")
        digest = run(f"ffmpeg -v error -i '{path}' -f f32le - | xxhsum -H64").split()[0].decode()
        side["reference"] = {"decoder": "FFmpeg", "f32leXXH64": digest, "frames": len(floats) // (4 * fmt["channels"])}
    elif decoder:
        pcm = reference_decode(path, decoder)
        with open(path + ".s16le", "wb") as f:
            f.write(pcm)
        side["reference"] = {"decoder": "FFmpeg" if decoder == "ffmpeg" else "libsndfile",
                             "file": name + ".s16le", "frames": len(pcm) // (2 * fmt["channels"])}
    with open(path + ".json", "w") as f:
        json.dump(side, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, os.path.getsize(path), side.get("reference"))


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(WORK, exist_ok=True)
    src8 = f"{WORK}/speech-8k.wav"
    src16 = f"{WORK}/speech-16k.wav"
    run(f"sox {HERE}/signals/speech.wav -r 8000 -c 1 -b 16 {src8} trim 0 0.4")
    run(f"sox {HERE}/signals/speech.wav -r 16000 -c 1 -b 16 {src16} trim 0 0.4")

    # The files made or assembled here (all of them unless --only names none of these).
    if ONLY is None or any(not name.endswith("-toisto.aifc") and name != "raw-u8.aifc" for name in ONLY):
        run(f"sndfile-convert -gsm610 {src8} {OUT}/gsm-sndfile.aifc")
        record("gsm-sndfile.aifc", "sndfile-convert -gsm610 speech-8k.wav gsm-sndfile.aifc",
               {"formatID": "GSM ", "sampleRate": 8000, "channels": 1, "framesPerPacket": 160, "bytesPerPacket": 33}, "ffmpeg")
        for bits in (16, 24):
            name = f"dwvw{bits}-sndfile.aifc"
            run(f"sndfile-convert -dwvw{bits} {src8} {OUT}/{name}")
            record(name, f"sndfile-convert -dwvw{bits} speech-8k.wav {name}",
                   {"formatID": "DWVW", "sampleRate": 8000, "channels": 1, "framesPerPacket": 0, "bytesPerPacket": 0,
                    "frameCount": int(run(f"soxi -s {src8}").decode())}, "libsndfile",
                   note="FFmpeg has no DWVW decoder: libsndfile's decode is the reference")

        run(f"ffmpeg -v error -y -i {src16} -c:a adpcm_g722 -f g722 {WORK}/speech.g722")
        g722 = open(f"{WORK}/speech.g722", "rb").read()
        open(f"{OUT}/g722-assembled.aifc", "wb").write(aifc(b"G722", "G.722 64k", 1, len(g722) * 2, 16, 16000, g722))
        record("g722-assembled.aifc", "ffmpeg -i speech-16k.wav -c:a adpcm_g722 -f g722 speech.g722, wrapped in AIFF-C "
               "(COMM 'G722') by make-aifc-fixtures.py",
               {"formatID": "G722", "sampleRate": 16000, "channels": 1, "framesPerPacket": 2, "bytesPerPacket": 1}, "ffmpeg")

        run(f"ffmpeg -v error -y -i {src8} -c:a pcm_mulaw -f mulaw {WORK}/speech.ulaw")
        ulaw = open(f"{WORK}/speech.ulaw", "rb").read()
        open(f"{OUT}/ulaw-upper-case.aifc", "wb").write(aifc(b"ULAW", "muLaw 2:1", 1, len(ulaw), 16, 8000, ulaw))
        record("ulaw-upper-case.aifc", "ffmpeg -i speech-8k.wav -c:a pcm_mulaw -f mulaw speech.ulaw, wrapped in AIFF-C "
               "(COMM 'ULAW', as old Apple software spells it) by make-aifc-fixtures.py",
               {"formatID": "ulaw", "sampleRate": 8000, "channels": 1, "framesPerPacket": 1, "bytesPerPacket": 1}, "ffmpeg")

        # MACE: every byte string is a valid MACE stream; these are a fixed pseudo-random sequence.
        noise = bytes((i * 197 + 89) % 256 ^ (i >> 3) % 256 for i in range(2400))
        for kind, channels, per in ((b"MAC3", 2, 2), (b"MAC6", 1, 1)):
            name = f"{kind.decode().lower()}-assembled.aifc"
            data = noise[: len(noise) // (per * channels) * per * channels]
            frames = len(data) // (per * channels) * 6
            open(f"{OUT}/{name}", "wb").write(aifc(kind, "MACE", channels, frames, 8, 22254.54545, data))
            record(name, f"{len(data)} bytes of (i * 197 + 89) % 256 ^ (i >> 3) % 256 as {kind.decode()} in AIFF-C "
                   "by make-aifc-fixtures.py",
                   {"formatID": kind.decode(), "sampleRate": 22254.54545, "channels": channels, "framesPerPacket": 6,
                    "bytesPerPacket": per * channels}, "ffmpeg")

        # QUALCOMM PureVoice and QDesign: the format only (no encoder exists to make real packets).
        open(f"{OUT}/qclp-assembled.aifc", "wb").write(aifc(b"Qclp", "Qualcomm PureVoice", 1, 160 * 4, 16, 8000, bytes(35 * 4)))
        record("qclp-assembled.aifc", "four 35-byte packets of zeros as Qclp in AIFF-C by make-aifc-fixtures.py",
               {"formatID": "Qclp", "sampleRate": 8000, "channels": 1, "framesPerPacket": 160, "bytesPerPacket": 35}, None,
               note="the format only: no encoder exists to make real QUALCOMM PureVoice packets")
        open(f"{OUT}/qdm2-assembled.aifc", "wb").write(aifc(b"QDM2", "QDesign Music 2", 2, 4096, 16, 44100, bytes(512)))
        record("qdm2-assembled.aifc", "512 bytes of zeros as QDM2 in AIFF-C by make-aifc-fixtures.py",
               {"formatID": "QDM2", "sampleRate": 44100, "channels": 2, "framesPerPacket": 0, "bytesPerPacket": 0,
                "frameCount": 4096}, None,
               note="the format only: without its 'wave' chunk QDesign's configuration is missing (and no encoder exists)")

    # 8-bit unsigned ('raw '): SoX's 8-bit unsigned PCM of the speech, wrapped here.
    run(f"sox {src8} -t raw -e unsigned-integer -b 8 {WORK}/speech.u8")
    u8 = open(f"{WORK}/speech.u8", "rb").read()
    if ONLY is None or "raw-u8.aifc" in ONLY:
        open(f"{OUT}/raw-u8.aifc", "wb").write(aifc(b"raw ", "", 1, len(u8), 8, 8000, u8))
    record("raw-u8.aifc", "sox speech-8k.wav -t raw -e unsigned-integer -b 8 speech.u8, wrapped in AIFF-C "
           "(COMM 'raw ', 8-bit offset binary) by make-aifc-fixtures.py",
           {"formatID": "lpcm", "sampleRate": 8000, "channels": 1, "framesPerPacket": 1, "bytesPerPacket": 1}, "ffmpeg")

    # QDesign Music 1 and 2: real files, their configuration in a 'wave' chunk before SSND.
    for codec, frames, size in (("qdm2", 4096, 278), ("qdmc", 8192, 556)):
        for channels in (1, 2):
            name = f"{codec}-ch{channels}-toisto.aifc"
            if ONLY is None or name in ONLY:
                shutil.copyfile(f"{QDESIGN}/compressed-{codec}-ch{channels}.aifc", f"{OUT}/{name}")
            record(name, f"compressed-{codec}-ch{channels}.aifc of the Toisto AIFF test suite (CC0), copied from "
                   "the shared fixtures; reference: ffmpeg -i FILE -f f32le - | xxhsum -H64",
                   {"formatID": codec.upper(), "sampleRate": 44100, "channels": channels, "framesPerPacket": frames,
                    "bytesPerPacket": size}, "ffmpeg-float")


main()
