#!/usr/bin/env python3
"""Makes the fixtures that prove afkit's compressed outputs against FFmpeg: afkit converts the committed
speech signal to AAC and Apple Lossless in M4A and CAF, then FFmpeg (5.1, Debian 12) probes and
decodes afkit's files (and SoX makes the 20- and 32-bit sources for ALAC's deeper depths). The tests check that afkit still makes these files byte for byte and that
FFmpeg's reading of them is right; they never run FFmpeg themselves.

Run from this folder after `swift build` (it uses ../../.build/debug/afkit), with ffmpeg installed.
Also measures FFmpeg's own AAC encoder (`-c:a aac -b:a 128k`) on the signals: the SNR afkit's AAC
must reach. Everything is recorded in afkit-outputs/manifest.json with its command.
"""
import json, math, os, struct, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "afkit-outputs")
AFKIT = os.path.join(HERE, "..", "..", ".build", "debug", "afkit")
SPEECH = os.path.join(HERE, "signals", "speech.wav")

def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True).stdout

manifest = {"tool": run("ffmpeg -version").decode().splitlines()[0], "files": {}, "referenceSNR": {}}

# Deep sources for ALAC at 20 and 32 bits: SoX makes 0.1 s of a tone over brown noise at 32 bits (every
# bit in use); the 20-bit AIFF holds the same samples' top 20 bits (AIFF stores them left-justified in
# three bytes, the low four bits 0: written here, as no tool at hand writes 20-bit files).
DEEP32 = os.path.join(OUT, "deep32.wav")
DEEP32_CMD = "sox -n -r 44100 -c 2 -b 32 afkit-outputs/deep32.wav synth 0.1 sine 440 brownnoise vol 0.5"
run(DEEP32_CMD.replace("afkit-outputs/", OUT + "/"))

def extended80(value):
    exponent = 16383 + int(math.floor(math.log2(value)))
    mantissa = int(value * 2 ** (63 - (exponent - 16383)))
    return struct.pack(">HQ", exponent, mantissa)

def write_aiff20(source, path):
    pcm = run(f"ffmpeg -v error -i {source} -f s32le -")
    samples = struct.unpack("<%di" % (len(pcm) // 4), pcm)
    data = b"".join(struct.pack(">i", (x >> 12) << 12)[:3] for x in samples)
    frames = len(samples) // 2
    comm = struct.pack(">hIh", 2, frames, 20) + extended80(44100)
    ssnd = struct.pack(">II", 0, 0) + data
    body = b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm + b"SSND" + struct.pack(">I", len(ssnd)) + ssnd
    with open(path, "wb") as f:
        f.write(b"FORM" + struct.pack(">I", len(body)) + body)

write_aiff20(DEEP32, os.path.join(OUT, "deep20.aiff"))
manifest["sources"] = {"deep32.wav": DEEP32_CMD,
                       "deep20.aiff": "the top 20 bits of deep32.wav's samples in a 20-bit AIFF (write_aiff20 here)"}

OUTPUTS = {
    "speech-aac.m4a": "convert -d aac {src} {out}",
    "speech-aac.caf": "convert -d aac {src} {out}",
    "speech-alac.m4a": "convert -d alac {src} {out}",
    "speech-alac.caf": "convert -d alac {src} {out}",
    "deep20-alac.caf": "convert -d alac afkit-outputs/deep20.aiff {out}",
    "deep32-alac.caf": "convert -d alac afkit-outputs/deep32.wav {out}",
    "deep32-alac.m4a": "convert -d alac afkit-outputs/deep32.wav {out}",
}
for name, args in OUTPUTS.items():
    out = os.path.join(OUT, name)
    command = "afkit " + args.format(src="signals/speech.wav", out="afkit-outputs/" + name)
    run(AFKIT + " " + args.format(src=SPEECH, out="{out}").replace("afkit-outputs/", OUT + "/").replace("{out}", out))
    probe_cmd = f"ffprobe -v error -print_format json -show_streams -count_packets afkit-outputs/{name}"
    probe = json.loads(run(probe_cmd.replace("afkit-outputs/", OUT + "/")))
    stream = probe["streams"][0]
    keep = {k: stream.get(k) for k in ["codec_name", "profile", "sample_rate", "channels", "duration_ts",
                                       "nb_read_packets", "bits_per_raw_sample", "time_base"]}
    with open(out + ".ffprobe.json", "w") as f:
        json.dump(keep, f, indent=2, sort_keys=True)
        f.write("\n")
    entry = {"made by": command, "probe": probe_cmd + " (fields kept: " + ", ".join(keep) + ")"}
    if name.startswith("deep"):
        # FFmpeg's decode at 32 bits a sample: the source's integers, left-justified.
        decode_cmd = f"ffmpeg -v error -i afkit-outputs/{name} -f s32le afkit-outputs/{name}.ffmpeg.s32le"
        run(decode_cmd.replace("afkit-outputs/", OUT + "/").replace("-v error", "-v error -y"))
        entry["decode"] = decode_cmd
    elif name.endswith(".m4a"):
        decode_cmd = f"ffmpeg -v error -i afkit-outputs/{name} -f s16le -ac 1 afkit-outputs/{name}.ffmpeg.s16le"
        run(decode_cmd.replace("afkit-outputs/", OUT + "/").replace("-v error", "-v error -y"))
        entry["decode"] = decode_cmd
    manifest["files"][name] = entry

# FFmpeg's own AAC at 128 kbit/s: SNR of its decode (edit list applied) against the source.
def read_s16(data):
    return struct.unpack("<%dh" % (len(data) // 2), data)

for signal in ["speech", "music"]:
    src_path = os.path.join(HERE, "signals", signal + ".wav")
    tmp = f"/tmp/afkit-ref-{signal}.m4a"
    enc = f"ffmpeg -v error -y -i signals/{signal}.wav -c:a aac -b:a 128k {tmp}"
    run(enc.replace("signals/", HERE + "/signals/"))
    ref = read_s16(run(f"ffmpeg -v error -i {src_path} -f s16le -"))
    dec = read_s16(run(f"ffmpeg -v error -i {tmp} -f s16le -"))[:len(ref)]
    signal_power = sum(x * x for x in ref)
    noise = sum((a - b) ** 2 for a, b in zip(ref, dec))
    manifest["referenceSNR"][signal] = {"command": enc + f"; ffmpeg -i {tmp} -f s16le - (first {len(ref)} frames)",
                                        "snr": round(10 * math.log10(signal_power / noise), 2)}

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
