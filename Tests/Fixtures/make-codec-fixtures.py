#!/usr/bin/env python3
"""Makes the codec fixtures: test signals, IMA/G.711 files made by FFmpeg and SoX, FFmpeg's decodes
of them, and the SNR that FFmpeg's, SoX's and libsndfile's IMA encoders reach on the test signals.

Run from this folder with ffmpeg, sox, sndfile-programs and espeak-ng installed (Debian: ffmpeg sox
sndfile-programs espeak-ng); `--peers` remeasures only the peers on the committed signals.
Tests read the committed files only. `codecs/manifest.json` and `signals/reference-snr.json`
record every command.
"""
import json, math, os, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = os.path.join(HERE, "signals")
COD = os.path.join(HERE, "codecs")

def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True).stdout

def ff(args):
    return run("ffmpeg -hide_banner -loglevel error -y " + args)

# --- Test signals (16-bit mono 22.05 kHz), each with the command that made it.
SIGNALS = {
    "speech": "espeak-ng -s 150 -w /tmp/afkit-speech.wav 'The quick brown fox jumps over the lazy dog. Level complete!' "
              "&& sox /tmp/afkit-speech.wav -r 22050 -b 16 -c 1 {out} trim 0 2.5",
    "music": "sox -n -r 22050 -b 16 -c 1 {out} synth 2.5 pluck C3 pluck E4 pluck G4 pluck C5 tremolo 3 40 "
             "remix - fade t 0 2.5 0.3 norm -3",
    "noise": "sox -n -r 22050 -b 16 -c 1 {out} synth 2.5 pinknoise vol 0.5",
}

def read_s16(path):
    data = run(f"sox '{path}' -t raw -e signed -b 16 -L -")
    return list(struct.unpack("<%dh" % (len(data) // 2), data))

def snr(reference, decoded):
    n = min(len(reference), len(decoded))
    signal = sum(x * x for x in reference[:n])
    noise = sum((reference[i] - decoded[i]) ** 2 for i in range(n))
    return 10 * math.log10(signal / noise) if noise else float("inf")

def segmental_snr(reference, decoded, frame):
    values = []
    for start in range(0, min(len(reference), len(decoded)) - frame + 1, frame):
        s = sum(x * x for x in reference[start:start + frame])
        e = sum((reference[i] - decoded[i]) ** 2 for i in range(start, start + frame))
        if s > 0:
            values.append(10 * math.log10(s / e) if e else 100.0)
    # Clamp each frame to -10...60 dB, the usual convention, so silence cannot dominate.
    values = [min(max(v, -10.0), 60.0) for v in values]
    return sum(values) / len(values)

PEERS = {
    "ffmpeg adpcm_ima_qt": ("ffmpeg -i {src} -c:a adpcm_ima_qt {tmp}.caf", ".caf"),
    "ffmpeg adpcm_ima_qt -trellis 8": ("ffmpeg -i {src} -c:a adpcm_ima_qt -trellis 8 {tmp}.caf", ".caf"),
    "sox ima-adpcm": ("sox {src} -e ima-adpcm {tmp}.wav", ".wav"),
    "libsndfile ima-adpcm": ("sndfile-convert -ima-adpcm {src} {tmp}.wav", ".wav"),
}

def peer_snr():
    """The peers' SNR and segmental SNR on the committed signals, each decoded by FFmpeg."""
    reference = {}
    for name in SIGNALS:
        out = os.path.join(SIG, name + ".wav")
        source = read_s16(out)
        results = {}
        for label, (command, ext) in PEERS.items():
            tmp = f"/tmp/afkit-ref-{name}"
            cmd = command.format(src=out, tmp=tmp)
            run(cmd.replace("ffmpeg ", "ffmpeg -hide_banner -loglevel error -y ", 1))
            decoded_path = f"/tmp/afkit-ref-{name}.s16"
            ff(f"-i {tmp}{ext} -f s16le {decoded_path}")
            data = open(decoded_path, "rb").read()
            decoded = list(struct.unpack("<%dh" % (len(data) // 2), data))
            frame = 22050 // 50
            results[label] = {
                "command": command.format(src=f"{name}.wav", tmp=name),
                "decodedWith": "ffmpeg -i FILE -f s16le",
                "snr": round(snr(source, decoded), 3),
                "segmentalSNR": round(segmental_snr(source, decoded, frame), 3),
            }
        reference[name] = {"source": SIGNALS[name].format(out=f"{name}.wav"), "encoders": results}
    with open(os.path.join(SIG, "reference-snr.json"), "w") as f:
        json.dump(reference, f, indent=2, sort_keys=True)
        f.write("\n")

def main():
    # `--peers`: only the peers' figures, on the signals as committed (libsndfile's was added that way).
    if "--peers" in sys.argv:
        peer_snr()
        return
    os.makedirs(SIG, exist_ok=True)
    os.makedirs(COD, exist_ok=True)
    for name, command in SIGNALS.items():
        run(command.format(out=os.path.join(SIG, name + ".wav")))
    peer_snr()

    # --- Decoder fixtures: files made by FFmpeg and SoX, and FFmpeg's decodes of them.
    manifest = []
    def add(name, make, note=""):
        path = os.path.join(COD, name)
        run(make.format(out=path).replace("ffmpeg ", "ffmpeg -hide_banner -loglevel error -y ", 1))
        ff(f"-i {path} -f s16le {path}.s16le")
        manifest.append({"file": name, "command": make.format(out=name), "decoded": name + ".s16le",
                         "decodedWith": f"ffmpeg -i {name} -f s16le {name}.s16le", "note": note})
    for signal in ["speech", "music", "noise"]:
        src = os.path.join(SIG, signal + ".wav")
        add(f"{signal}-ima4.caf", f"ffmpeg -i {src} -c:a adpcm_ima_qt {{out}}")
        add(f"{signal}-ima-adpcm.wav", f"ffmpeg -i {src} -c:a adpcm_ima_wav {{out}}")
    add("speech-ima4-stereo.aifc", f"ffmpeg -i {SIG}/speech.wav -i {SIG}/music.wav -filter_complex amerge -c:a adpcm_ima_qt -f aiff {{out}}")
    add("music-ima-adpcm-stereo.wav", f"ffmpeg -i {SIG}/music.wav -i {SIG}/noise.wav -filter_complex amerge -c:a adpcm_ima_wav {{out}}")
    add("speech-sox-ima-adpcm.wav", f"sox {SIG}/speech.wav -e ima-adpcm {{out}}")
    add("noise-loud-ima4.caf", f"ffmpeg -i {SIG}/noise.wav -af volume=12dB -c:a adpcm_ima_qt {{out}}",
        "clipped noise: the decoder's clamping paths")
    add("speech-ulaw.wav", f"ffmpeg -i {SIG}/speech.wav -c:a pcm_mulaw {{out}}")
    add("music-alaw.caf", f"ffmpeg -i {SIG}/music.wav -c:a pcm_alaw {{out}}")
    add("noise-ulaw.aifc", f"ffmpeg -i {SIG}/noise.wav -c:a pcm_mulaw -f aiff {{out}}")
    # afkit's own encodes (made after building: `swift build -c release`), decoded by FFmpeg.
    tool = os.path.join(HERE, "../../.build/release/afkit-codec-benchmarks")
    for quality in ["search", "fast"]:
        name = f"afkit-speech-ima4-{quality}.caf"
        add(name, f"{tool} encode {SIG}/speech.wav {{out}} {quality}",
            "an afkit encode that FFmpeg decoded: the round trip through the reference decoder")
    with open(os.path.join(COD, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    # A packet whose header step index is out of range, made by hand from speech-ima4.caf.
    data = bytearray(open(os.path.join(COD, "speech-ima4.caf"), "rb").read())
    body = data.find(b"data") + 16
    data[body + 34 * 5 + 1] = (data[body + 34 * 5 + 1] & 0x80) | 100
    open(os.path.join(COD, "bad-step-index-ima4.caf"), "wb").write(data)
    ff(f"-i {COD}/bad-step-index-ima4.caf -f s16le {COD}/bad-step-index-ima4.caf.s16le")
    print(json.dumps(reference, indent=1))

main()
