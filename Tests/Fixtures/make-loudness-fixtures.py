#!/usr/bin/env python3
"""Makes the loudness fixtures (Tests/Fixtures/loudness) with SoX, and records what FFmpeg's ebur128
filter (its own BS.1770-4 implementation, independent of libebur128) measures of them and of the test
signals: integrated loudness, loudness range, true peak and sample peak, as it prints them (0.1 dB).

Run from this folder with sox and ffmpeg installed. Tests read only the committed files.
"""
import json, os, re, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "loudness")


def run(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True)


def ebur128(path):
    err = run(f"ffmpeg -nostats -hide_banner -i '{path}' -af ebur128=peak=true+sample -f null -").stderr
    summary = err[err.rfind("Summary:"):]
    number = lambda label: float(re.search(label + r":\s+(-?[\d.]+|-inf)", summary).group(1).replace("-inf", "-1e999"))
    peaks = re.findall(r"Peak:\s+(-?[\d.]+|-inf) dBFS", summary)
    return {"integrated": number("I"), "range": number("LRA"), "samplePeak": float(peaks[0]), "truePeak": float(peaks[1])}


def impact(path, seconds, rate, channels, tau, smoothing, seed):
    """A decaying impact: low-passed noise under an exponential decay (time constant tau) after a 2 ms attack,
    as raw little-endian float32 for SoX to wrap."""
    import math, random, struct
    random.seed(seed)
    out, state = bytearray(), [0.0] * channels
    for i in range(int(seconds * rate)):
        envelope = math.exp(-i / rate / tau) * min(1.0, i / rate / 0.002)
        for c in range(channels):
            state[c] += smoothing * (random.uniform(-1, 1) - state[c])
            out += struct.pack("<f", 0.5 * envelope * state[c])
    open(path, "wb").write(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    # Decaying impacts (issue 48): an explosion (stereo float, about -15 LUFS, true peak -1.7 dBTP) and a hit
    # (mono 16-bit AIFF, about -25 LUFS): the sounds a normalizer that chases the gated level pumps.
    impact(os.path.join(OUT, "explosion.raw"), 2.0, 24000, 2, 0.6, 0.3, 7)
    run(f"sox -t f32 -r 24000 -c 2 {OUT}/explosion.raw -e floating-point {OUT}/impact-explosion-float-24k.wav gain -n -1.9")
    impact(os.path.join(OUT, "hit.raw"), 1.0, 44100, 1, 0.05, 0.5, 8)
    run(f"sox -t f32 -r 44100 -c 1 {OUT}/hit.raw -b 16 {OUT}/impact-hit-44k.aif gain -n -9.5")
    for name in ("explosion.raw", "hit.raw"):
        os.remove(os.path.join(OUT, name))
    made = {
        "steps-pink-8k.wav": "sox -R -n -r 8000 -c 1 -b 16 {out} synth 4 pinknoise vol 0.1 : synth 4 pinknoise vol 0.5 : synth 4 pinknoise vol 0.02",
        "sine-997-minus20-stereo-16k.wav": "sox -R -n -r 16000 -c 2 -b 16 {out} synth 3 sine 997 vol 0.1",
        "tones-inter-sample-peak-44k.wav": "sox -R -n -r 44100 -c 1 -b 16 {out} synth 2 sine 11025 0 12.5 vol 0.7",
    }
    reference = {"tool": "ffmpeg -af ebur128=peak=true+sample (FFmpeg 5.1), summary values as printed (0.1 dB)",
                 "files": {}}
    for name, command in made.items():
        run(command.format(out=os.path.join(OUT, name)))
        reference["files"]["loudness/" + name] = dict(ebur128(os.path.join(OUT, name)), command=command.format(out=name))
    for name in ("impact-explosion-float-24k.wav", "impact-hit-44k.aif"):
        reference["files"]["loudness/" + name] = dict(ebur128(os.path.join(OUT, name)), command="impact() in this script, then sox gain -n")
    for name in ("music.wav", "speech.wav", "noise.wav"):
        reference["files"]["signals/" + name] = ebur128(os.path.join(HERE, "signals", name))
    with open(os.path.join(OUT, "ffmpeg-ebur128.json"), "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(reference, indent=1))


main()
