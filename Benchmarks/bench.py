#!/usr/bin/env python3
"""afkit's benchmarks, each beside the reference tool on the same input in the same run.

Inputs are generated into build/bench (10 minutes of stereo 44.1 kHz audio in several containers).
Each command runs several times; the best wall-clock time counts. Prints a Markdown table that
BENCHMARKS.md records with the command that made it.
"""
import os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AFKIT = os.path.join(ROOT, ".build/release/afkit")
WORK = os.path.join(ROOT, "build/bench")
SECONDS = int(os.environ.get("BENCH_SECONDS", "600"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))

def sh(cmd):
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def best(cmd):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        sh(cmd)
        times.append(time.perf_counter() - start)
    return min(times)

def make_inputs():
    os.makedirs(WORK, exist_ok=True)
    src = f"{WORK}/source.wav"
    if not os.path.exists(src):
        sh(f'ffmpeg -y -f lavfi -i "sine=frequency=440:sample_rate=44100:duration={SECONDS}" '
           f'-f lavfi -i "anoisesrc=sample_rate=44100:duration={SECONDS}:amplitude=0.2" '
           f'-filter_complex "[0][1]amerge=inputs=2" -c:a pcm_s16le {src}')
    inputs = {
        "WAV 16-bit": ("pcm.wav", "-c:a pcm_s16le"),
        "AIFF 16-bit": ("pcm.aiff", "-c:a pcm_s16be"),
        "CAF 16-bit": ("pcm.caf", "-c:a pcm_s16le"),
        "CAF IMA4": ("ima4.caf", "-c:a adpcm_ima_qt"),
        "CAF ALAC (pakt)": ("alac.caf", "-c:a alac"),
    }
    for name, (file, codec) in inputs.items():
        path = f"{WORK}/{file}"
        if not os.path.exists(path):
            sh(f"ffmpeg -y -i {src} {codec} {path}")
    return {name: f"{WORK}/{file}" for name, (file, _) in inputs.items()}

def main():
    inputs = make_inputs()
    print(f"Inputs: {SECONDS} s of stereo 44.1 kHz audio; best of {RUNS} runs; wall-clock, whole process.\n")
    print("| task | input | MB | afkit | reference | reference tool | afkit speed-up |")
    print("|---|---|---|---|---|---|---|")
    for name, path in inputs.items():
        mb = os.path.getsize(path) / 1e6
        stream = best(f"{AFKIT} packets --json --chunk-size 65536 {path} > /dev/null")
        demux = best(f"ffmpeg -v error -i {path} -map 0:a -c copy -f null -")
        print(f"| stream-parse every packet | {name} | {mb:.1f} | {stream*1000:.0f} ms ({mb/stream:.0f} MB/s) "
              f"| {demux*1000:.0f} ms ({mb/demux:.0f} MB/s) | `ffmpeg -i F -c copy -f null -` | {demux/stream:.1f}x |")
    for name, path in inputs.items():
        mb = os.path.getsize(path) / 1e6
        info = best(f"{AFKIT} info --json {path} > /dev/null")
        probe = best(f"ffprobe -v error -show_format -show_streams {path} > /dev/null")
        print(f"| header info | {name} | {mb:.1f} | {info*1000:.1f} ms | {probe*1000:.1f} ms | `ffprobe -show_format -show_streams F` | {probe/info:.1f}x |")

main()
