#!/usr/bin/env python3
"""afkit's benchmarks, each beside the reference tool on the same input in the same run.

Inputs are generated into build/bench (10 minutes of stereo 44.1 kHz audio in several containers).
Each command runs several times; the best wall-clock time counts. Prints a Markdown table that
BENCHMARKS.md records with the command that made it.
"""
import glob, json, os, shutil, subprocess, sys, time

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
    inputs["FLAC (flac -5)"] = ("flac5.flac", "flac")
    inputs["Ogg Vorbis (oggenc -q 5)"] = ("vorbis.ogg", "oggenc")
    inputs["Ogg Opus (opusenc 128k)"] = ("opus.opus", "opusenc")
    inputs["MP3 VBR (LAME -V2)"] = ("lame-v2.mp3", None)
    inputs["ADTS AAC-LC 128k"] = ("aac.aac", "-c:a aac -b:a 128k -f adts")
    inputs["M4A AAC-LC 128k (moov first)"] = ("aac-faststart.m4a", "-c:a aac -b:a 128k -movflags +faststart")
    inputs["M4A AAC-LC 128k (moov last)"] = ("aac-moov-last.m4a", "-c:a aac -b:a 128k")
    for name, (file, codec) in inputs.items():
        path = f"{WORK}/{file}"
        if not os.path.exists(path):
            if codec is None:
                sh(f"lame --quiet -V 2 {src} {path}")
            elif codec == "flac":
                sh(f"flac --silent --force {src} -o {path}")
            elif codec == "oggenc":
                sh(f"oggenc -Q -q 5 {src} -o {path}")
            elif codec == "opusenc":
                sh(f"opusenc --quiet --bitrate 128 {src} {path}")
            else:
                sh(f"ffmpeg -y -i {src} {codec} {path}")
    return {name: f"{WORK}/{file}" for name, (file, _) in inputs.items()}

CODEC_BENCH = os.path.join(ROOT, ".build/release/afkit-codec-benchmarks")
SEARCH_SECONDS = 10

def codecs(inputs):
    ima4, source = inputs["CAF IMA4"], f"{WORK}/source.wav"
    results = {}
    for line in subprocess.run([CODEC_BENCH, ima4, source, str(SEARCH_SECONDS)], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        entry = json.loads(line)
        results[entry["name"]] = entry
    samples = results["ima4 decode"]["samples"]
    decode = best(f"ffmpeg -v error -i {ima4} -f s16le -y /dev/null")
    fast = best(f"ffmpeg -v error -i {source} -c:a adpcm_ima_qt -y {WORK}/ffmpeg-ima4.caf")
    global RUNS
    runs, RUNS = RUNS, 1
    trellis = best(f"ffmpeg -v error -t {SEARCH_SECONDS} -i {source} -c:a adpcm_ima_qt -trellis 8 -y {WORK}/ffmpeg-trellis.caf")
    RUNS = runs
    search_samples = results["ima4 encode search"]["samples"]
    print("\n| codec task | samples | afkit (in-process) | reference (whole process) | reference tool | afkit speed-up |")
    print("|---|---|---|---|---|---|")
    def row(task, name, reference_seconds, reference_samples, tool):
        ours = results[name]["samplesPerSecond"]
        theirs = reference_samples / reference_seconds
        print(f"| {task} | {results[name]['samples']:,} | {ours/1e6:.2f} M samples/s | {theirs/1e6:.2f} M samples/s | {tool} | {ours/theirs:.1f}x |")
    row("IMA4 decode", "ima4 decode", decode, samples, "`ffmpeg -i ima4.caf -f s16le`")
    row("IMA4 encode, fast", "ima4 encode fast", fast, results["ima4 encode fast"]["samples"], "`ffmpeg -c:a adpcm_ima_qt`")
    row(f"IMA4 encode, search (first {SEARCH_SECONDS} s)", "ima4 encode search", trellis, search_samples,
        "`ffmpeg -c:a adpcm_ima_qt -trellis 8`")
    stage, direct = results["resample soxr stage"], results["resample soxr direct"]
    print(f"| resample 44.1 → 22.05 kHz stereo, very high quality | {stage['samples']:,} | "
          f"{stage['samplesPerSecond']/1e6:.1f} M samples/s (afkit's stage, 8192-frame blocks) | "
          f"{direct['samplesPerSecond']/1e6:.1f} M samples/s (libsoxr driven directly, same blocks, in-process) | libsoxr | "
          f"{stage['samplesPerSecond']/direct['samplesPerSecond']:.2f}x |")

    reference = json.load(open(os.path.join(ROOT, "Tests/Fixtures/signals/reference-snr.json")))
    ours = {}
    for line in subprocess.run([CODEC_BENCH, "snr", os.path.join(ROOT, "Tests/Fixtures/signals")], check=True,
                               capture_output=True, text=True).stdout.splitlines():
        entry = json.loads(line)
        ours[(entry["name"], entry["signal"])] = entry
    signals = ["speech", "music", "noise"]
    print("\nSNR / segmental SNR (20 ms frames) in dB on the test signals (Tests/Fixtures/signals), each decoded "
          "by FFmpeg's decoder or, for afkit, by afkit's decoders (bit-exact with FFmpeg's; \"reference decoder\" is "
          "the IMA reference's shift-and-add, as libsndfile, Windows and Apple decode WAV IMA ADPCM):\n")
    print("| encoder | " + " | ".join(signals) + " |")
    print("|---|" + "---|" * len(signals))
    for label in ["ffmpeg adpcm_ima_qt", "ffmpeg adpcm_ima_qt -trellis 8", "sox ima-adpcm"]:
        cells = [f"{reference[s]['encoders'][label]['snr']:.2f} / {reference[s]['encoders'][label]['segmentalSNR']:.2f}" for s in signals]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for name in ["ima4 fast", "ima4 search", "wav ima-adpcm fast, reference decoder", "wav ima-adpcm search, reference decoder",
                 "wav ima-adpcm search, FFmpeg's decoder"]:
        cells = [f"{ours[(name, s)]['snr']:.2f} / {ours[(name, s)]['segmentalSNR']:.2f}" for s in signals]
        print(f"| afkit {name} | " + " | ".join(cells) + " |")

def validation():
    """1,000 small sound files: afkit validate (header rules) against ffprobe run per file."""
    folder = f"{WORK}/assets-1000"
    if not os.path.isdir(folder):
        os.makedirs(folder)
        sh(f"ffmpeg -y -f lavfi -i sine=frequency=880:duration=0.3:sample_rate=22050 -c:a pcm_s16le {folder}/base.wav")
        base = open(f"{folder}/base.wav", "rb").read()
        os.remove(f"{folder}/base.wav")
        for i in range(1000):
            open(f"{folder}/sfx-{i:04d}.wav", "wb").write(base)
    profile = f"{WORK}/header-rules.json"
    open(profile, "w").write('{"rules": {"clipping": {"enabled": false}, "silence": {"enabled": false}}}')
    ours = best(f"{AFKIT} validate --profile {profile} --format json {folder} > /dev/null")
    files = sorted(os.listdir(folder))[:100]
    global RUNS
    runs, RUNS = RUNS, 1
    probe = best("for f in " + " ".join(f"{folder}/{f}" for f in files) + "; do ffprobe -v error -show_format -show_streams $f > /dev/null; done")
    RUNS = runs
    print("\n| validation | files | afkit | reference | reference tool | afkit speed-up |")
    print("|---|---|---|---|---|---|")
    print(f"| 1,000 small WAV assets, header rules | 1000 | {1000/ours:.0f} files/s ({ours*1000:.0f} ms) | "
          f"{100/probe:.0f} files/s (100 files in {probe*1000:.0f} ms) | `ffprobe -show_format -show_streams` per file | "
          f"{(1000/ours)/(100/probe):.0f}x |")

def clips(name, count, seconds, frequency):
    """`count` stereo clips (a sine on one channel, quiet noise on the other), made once."""
    folder = f"{WORK}/{name}"
    if not os.path.isdir(folder):
        os.makedirs(folder)
        for i in range(count):
            sh(f'ffmpeg -y -f lavfi -i "sine=frequency={frequency(i)}:duration={seconds}:sample_rate=44100" '
               f'-f lavfi -i "anoisesrc=duration={seconds}:sample_rate=44100:amplitude=0.05" '
               f'-filter_complex "[0][1]amerge=inputs=2" -c:a pcm_s16le {folder}/{name}-{i:03d}.wav')
    return folder

def batch_table(title, folder, afkit_rows, ffmpeg_args, extension, sox_args=None):
    """afkit batch commands against FFmpeg (and, where given, SoX) run per file, sequentially and two at a time."""
    count = len(os.listdir(folder))
    out = f"{WORK}/{os.path.basename(folder)}-out"
    rows = [(label, best(f"rm -rf {out} && {AFKIT} batch {args} --out {out} {folder} > /dev/null"))
            for label, args in afkit_rows]
    sequential = best(f"rm -rf {out}-ff && mkdir -p {out}-ff && for f in $(ls {folder}); do "
                      f"ffmpeg -v error -y -i {folder}/$f {ffmpeg_args} {out}-ff/${{f%.wav}}.{extension}; done")
    parallel = best(f"rm -rf {out}-ff && mkdir -p {out}-ff && ls {folder} | xargs -P 2 -I F sh -c "
                    f"'ffmpeg -v error -y -i {folder}/F {ffmpeg_args} {out}-ff/F.{extension}'")
    print(f"\n| batch: {title} | time | files/s | vs FFmpeg sequential | vs FFmpeg 2 at a time |")
    print("|---|---|---|---|---|")
    for label, seconds in rows:
        print(f"| `{label}` | {seconds*1000:.0f} ms | {count/seconds:.0f} | {sequential/seconds:.1f}x | {parallel/seconds:.1f}x |")
    print(f"| `ffmpeg {ffmpeg_args}` per file, sequential | {sequential*1000:.0f} ms | {count/sequential:.0f} | | |")
    print(f"| the same, two at a time (`xargs -P 2`) | {parallel*1000:.0f} ms | {count/parallel:.0f} | | |")
    if sox_args:
        sox_seq = best(f"rm -rf {out}-sox && mkdir -p {out}-sox && for f in $(ls {folder}); do "
                       f"sox {folder}/$f {sox_args} {out}-sox/$f; done")
        sox_par = best(f"rm -rf {out}-sox && mkdir -p {out}-sox && ls {folder} | xargs -P 2 -I F "
                       f"sox {folder}/F {sox_args} {out}-sox/F")
        print(f"| `sox IN {sox_args} OUT.wav` per file, sequential | {sox_seq*1000:.0f} ms | {count/sox_seq:.0f} | | |")
        print(f"| the same, two at a time (`xargs -P 2`) | {sox_par*1000:.0f} ms | {count/sox_par:.0f} | | |")
        for label, seconds in rows:
            print(f"| `{label}` against SoX two at a time | {seconds/sox_par:.2f}x SoX's time | | | |")

def report():
    """1,000 effects (the 200 stereo effects five times over): `validate --format html` against `validate`
    alone with the same profile (the report's budget is 1.5x), its size a file, and FFmpeg drawing one
    waveform picture a file (showwavespic, two at a time) for scale."""
    source = effects()
    folder = f"{WORK}/effects-1000"
    if not os.path.isdir(folder):
        os.makedirs(folder)
        for copy in range(5):
            for name in sorted(os.listdir(source)):
                shutil.copy(f"{source}/{name}", f"{folder}/{copy}-{name}")
    page = f"{WORK}/report-1000.html"
    alone = best(f"{AFKIT} validate --profile game-sfx {folder} > /dev/null || true")
    drawn = best(f"{AFKIT} validate --profile game-sfx --format html {folder} > {page} || true")
    alone = min(alone, best(f"{AFKIT} validate --profile game-sfx {folder} > /dev/null || true"))
    size = os.path.getsize(page)
    pictures = f"{WORK}/report-ffmpeg"
    os.makedirs(pictures, exist_ok=True)
    # FFmpeg on the 200 distinct effects (a minute a run for all 1,000), scaled to 1,000.
    ffmpeg = 5 * best(f"ls {source} | xargs -P 2 -I F ffmpeg -v error -y -i {source}/F "
                      f"-filter_complex showwavespic=s=600x120 -frames:v 1 {pictures}/F.png")
    print("\n| HTML report: 1,000 effects (0.4 s stereo 44.1 kHz), game-sfx | time | vs validate alone | per file |")
    print("|---|---|---|---|")
    print(f"| `afkit validate --profile game-sfx DIR` (text) | {alone*1000:.0f} ms | 1.00x | |")
    print(f"| `afkit validate --profile game-sfx --format html DIR` | {drawn*1000:.0f} ms | {drawn/alone:.2f}x | "
          f"{size/1000/1000:.1f} KB |")
    print(f"| `ffmpeg -i F -filter_complex showwavespic=s=600x120 F.png` per file, two at a time (200 files, x5) | "
          f"{ffmpeg*1000:.0f} ms | {ffmpeg/alone:.2f}x | |")

def effects():
    """The 200 short stereo effects the batch, durability and start-up rows share."""
    return clips("sfx", 200, 0.4, lambda i: 200 + 7 * i)

def studio_effects():
    """100 effects as a studio delivers them: 48 kHz 24-bit stereo, 0.4 to 2.9 s (165 s in all), each a
    decaying tone with a noise burst, made once."""
    folder = f"{WORK}/sfx48"
    if not os.path.isdir(folder):
        os.makedirs(folder)
        for i in range(100):
            seconds = 0.4 + (i * 37 % 100) / 100 * 2.5
            sh(f'ffmpeg -y -f lavfi -i "sine=frequency={150 + 11 * i}:duration={seconds:.3f}:sample_rate=48000" '
               f'-f lavfi -i "anoisesrc=duration={seconds:.3f}:sample_rate=48000:amplitude=0.3:color=pink" '
               f'-filter_complex "[0][1]amerge=inputs=2,afade=t=out:st=0:d={seconds:.3f}:curve=exp" '
               f'-c:a pcm_s24le {folder}/fx-{i:03d}.wav')
    return folder

def long_effect():
    """One 45 s stereo 48 kHz 24-bit file (music-like: two tones and pink noise), made once."""
    path = f"{WORK}/long45/long.wav"
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sh(f'ffmpeg -y -f lavfi -i "sine=frequency=220:duration=45:sample_rate=48000" '
           f'-f lavfi -i "anoisesrc=duration=45:sample_rate=48000:amplitude=0.2:color=pink" '
           f'-filter_complex "[0][1]amerge=inputs=2" -c:a pcm_s24le {path}')
    return os.path.dirname(path)

IMA4_ROWS = ([("afkit batch --preset sfx (balanced, the default)", "--preset sfx")]
             + [(f"afkit batch --preset sfx --quality {q}", f"--preset sfx --quality {q}") for q in ("fast", "best")])

def batch():
    """Sound effects to CAF IMA4 22.05 kHz mono: afkit batch against FFmpeg and SoX run per file, on
    the 200 short 44.1 kHz effects, 100 studio effects (48 kHz 24-bit) and one 45 s file."""
    folder = effects()
    for title, where in (("200 effects to CAF IMA4 22.05 kHz mono", folder),
                         ("100 studio effects (48 kHz 24-bit stereo, 165 s) to CAF IMA4 22.05 kHz mono",
                          studio_effects()),
                         ("one 45 s 48 kHz 24-bit stereo file to CAF IMA4 22.05 kHz mono", long_effect())):
        batch_table(title, where, IMA4_ROWS, "-ac 1 -ar 22050 -c:a adpcm_ima_qt", "caf",
                    sox_args="-c 1 -r 22050 -e ima-adpcm")
    durability(folder)

def durability(folder):
    """What flushing each output to the disk costs: the same batch into the work folder (a disk) and
    into /dev/shm (memory, where a flush costs nothing)."""
    if not os.path.isdir("/dev/shm"):
        return
    disk, memory = f"{WORK}/durability-out", f"/dev/shm/afkit-durability-{os.getpid()}"
    rows = []
    for label, out in (("disk", disk), ("/dev/shm", memory)):
        rows.append((label, best(f"rm -rf {out} && {AFKIT} batch --preset sfx --quality fast --out {out} {folder} > /dev/null")))
    sh(f"rm -rf {memory}")
    print("\n| durability: `afkit batch --preset sfx --quality fast`, 200 effects | time |")
    print("|---|---|")
    for label, seconds in rows:
        print(f"| outputs on {label} | {seconds*1000:.0f} ms |")
    print(f"| cost of the flushes (disk − memory) | {(rows[0][1] - rows[1][1])*1000:.0f} ms, "
          f"{(rows[0][1] - rows[1][1])*1000/len(os.listdir(folder)):.2f} ms a file |")

def conversions():
    """Whole-process conversions of the 10-minute stereo source: afkit convert against the reference
    tools doing the same job (same input, same output format) in the same run."""
    src = f"{WORK}/source.wav"
    floats = f"{WORK}/source-f32.wav"
    if not os.path.exists(floats):
        sh(f"ffmpeg -y -i {src} -c:a pcm_f32le {floats}")
    out = f"{WORK}/conv"
    os.makedirs(out, exist_ok=True)
    jobs = [
        ("WAV 16-bit → CAF 16-bit big-endian", f"{AFKIT} convert -d BEI16 {src} {out}/a.caf", [
            ("sndfile-convert -pcm16", f"sndfile-convert -pcm16 {src} {out}/s.caf"),
            ("ffmpeg -c:a pcm_s16be", f"ffmpeg -v error -y -i {src} -c:a pcm_s16be {out}/f.caf")]),
        ("WAV 16-bit → AIFF 16-bit", f"{AFKIT} convert {src} {out}/a.aiff", [
            ("sox", f"sox {src} {out}/x.aiff"),
            ("sndfile-convert -pcm16", f"sndfile-convert -pcm16 {src} {out}/s.aiff")]),
        ("WAV float → WAV 16-bit (dithered)", f"{AFKIT} convert -d LEI16 {floats} {out}/a.wav", [
            ("sox -b 16 (dithers)", f"sox {floats} -b 16 {out}/x.wav"),
            ("sndfile-convert -pcm16", f"sndfile-convert -pcm16 {floats} {out}/s.wav"),
            ("ffmpeg -c:a pcm_s16le", f"ffmpeg -v error -y -i {floats} -c:a pcm_s16le {out}/f.wav")]),
        ("resample 44.1 → 22.05 kHz, WAV 16-bit", f"{AFKIT} convert -d LEI16@22050 {src} {out}/r.wav", [
            ("sox rate (high quality)", f"sox {src} -r 22050 {out}/xr.wav"),
            ("ffmpeg aresample=soxr", f"ffmpeg -v error -y -i {src} -af aresample=22050:resampler=soxr {out}/fr.wav"),
            ("ffmpeg -ar 22050 (swr)", f"ffmpeg -v error -y -i {src} -ar 22050 {out}/fr2.wav")]),
        ("resample 44.1 → 48 kHz, WAV 16-bit", f"{AFKIT} convert -d LEI16@48000 {src} {out}/r48.wav", [
            ("sox rate (high quality)", f"sox {src} -r 48000 {out}/xr48.wav"),
            ("ffmpeg aresample=soxr", f"ffmpeg -v error -y -i {src} -af aresample=48000:resampler=soxr {out}/fr48.wav")]),
        ("WAV 16-bit → CAF IMA4 (fast encoder)", f"{AFKIT} convert -d ima4 --quality fast {src} {out}/i.caf", [
            ("ffmpeg -c:a adpcm_ima_qt", f"ffmpeg -v error -y -i {src} -c:a adpcm_ima_qt {out}/fi.caf")]),
        # FFmpeg cannot mux AAC into CAF: its M4A is the same job in the nearest container.
        ("WAV 16-bit → AAC 128 kbit/s in CAF", f"{AFKIT} convert -d aac -b 128000 {src} {out}/aac.caf", [
            ("ffmpeg -c:a aac -b:a 128k (M4A)", f"ffmpeg -v error -y -i {src} -c:a aac -b:a 128k {out}/faac.m4a")]),
        ("WAV 16-bit → AAC 128 kbit/s in M4A", f"{AFKIT} convert -d aac -b 128000 {src} {out}/aac.m4a", [
            ("ffmpeg -c:a aac -b:a 128k", f"ffmpeg -v error -y -i {src} -c:a aac -b:a 128k {out}/faac.m4a")]),
        ("WAV 16-bit → ALAC in CAF", f"{AFKIT} convert -d alac {src} {out}/alac.caf", [
            ("ffmpeg -c:a alac", f"ffmpeg -v error -y -i {src} -c:a alac {out}/falac.caf")]),
        ("WAV 16-bit → ALAC in M4A", f"{AFKIT} convert -d alac {src} {out}/alac.m4a", [
            ("ffmpeg -c:a alac", f"ffmpeg -v error -y -i {src} -c:a alac {out}/falac.m4a")]),
        ("FLAC (flac -5) → CAF 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/flac5.flac {out}/flac.caf", [
            ("ffmpeg -c:a pcm_s16le", f"ffmpeg -v error -y -i {WORK}/flac5.flac -c:a pcm_s16le {out}/fflac.caf"),
            ("flac -d (to WAV)", f"flac --silent --force -d {WORK}/flac5.flac -o {out}/flac-d.wav")]),
        ("Ogg Vorbis (oggenc -q 5) → WAV 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/vorbis.ogg {out}/v.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/vorbis.ogg {out}/fv.wav"),
            ("oggdec", f"oggdec --quiet {WORK}/vorbis.ogg -o {out}/ov.wav")]),
        ("Ogg Opus (128k) → WAV 16-bit, 48 kHz", f"{AFKIT} convert -d LEI16 {WORK}/opus.opus {out}/o.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/opus.opus {out}/fo.wav"),
            ("opusdec --rate 48000", f"opusdec --quiet --rate 48000 {WORK}/opus.opus {out}/oo.wav")]),
        ("CAF IMA4 → WAV 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/ima4.caf {out}/ima4.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/ima4.caf {out}/fima4.wav")]),
        ("MP3 (LAME -V2) → WAV 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/lame-v2.mp3 {out}/m.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/lame-v2.mp3 {out}/fm.wav")]),
        ("ADTS AAC-LC 128k → WAV 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/aac.aac {out}/adts.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/aac.aac {out}/fadts.wav")]),
        ("M4A AAC-LC 128k → WAV 16-bit", f"{AFKIT} convert -d LEI16 {WORK}/aac-faststart.m4a {out}/m4a.wav", [
            ("ffmpeg", f"ffmpeg -v error -y -i {WORK}/aac-faststart.m4a {out}/fm4a.wav")]),
    ]
    print(f"\n| conversion ({SECONDS} s stereo 44.1 kHz) | afkit convert | reference tool | reference | afkit speed-up |")
    print("|---|---|---|---|---|")
    for task, ours, references in jobs:
        mine = best(ours)
        for tool, command in references:
            theirs = best(command)
            print(f"| {task} | {mine*1000:.0f} ms | `{tool}` | {theirs*1000:.0f} ms | {theirs/mine:.1f}x |")

def music_batch():
    """50 short stereo clips to AAC 128 kbit/s: afkit batch --preset music (CAF) against FFmpeg per file (M4A)."""
    folder = clips("music", 50, 3, lambda i: 220 + 11 * i)
    batch_table("50 stereo 3 s clips to AAC 128 kbit/s", folder,
                [("afkit batch --preset music (CAF)", "--preset music")], "-c:a aac -b:a 128k", "m4a")

def decoders(inputs):
    """In-process: afkit's former AAC and MP3 engines against libavcodec's on the 10-minute files,
    and both over the fuzz corpus and hostile fixtures (files refused, packets refused)."""
    lines = subprocess.run([CODEC_BENCH, "decoders", inputs["ADTS AAC-LC 128k"], inputs["MP3 VBR (LAME -V2)"],
                            "--corpus", f"{ROOT}/Fuzz/corpus/file", f"{ROOT}/Fuzz/corpus/stream",
                            f"{ROOT}/Tests/Fixtures/hostile", f"{ROOT}/Tests/Fixtures/adts", f"{ROOT}/Tests/Fixtures/mp3"],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    print("\n| decoder (in-process) | 10 min stereo | M samples/s | corpus files | files failed | packets refused |")
    print("|---|---|---|---|---|---|")
    entries = [json.loads(line) for line in lines]
    robustness = {e["name"].replace("robustness ", ""): e for e in entries if e["name"].startswith("robustness")}
    for e in entries:
        if e["name"].startswith("decode"):
            engine = e["name"].split(" ", 2)[2].strip()
            r = robustness.get(engine, {})
            print(f"| {e['name']} | {e['seconds']*1000:.0f} ms | {e['samplesPerSecond']/1e6:.0f} | {r.get('files', '')} "
                  f"| {r.get('failed', '')} | {r.get('refusedPackets', '')} |")

OGG_DECODERS = os.path.join(WORK, "ogg-decoders")

def ogg_decode(inputs):
    """Ogg Vorbis and Opus: the reference libraries' decoders against libavcodec's in process, on the same
    packets (Benchmarks/OggDecoders, built here with the system's cc), and the whole job afkit does against
    FFmpeg's (10 minutes of stereo to 16-bit WAV)."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libavcodec", "libavutil", "ogg", "vorbis", "opus"],
                           check=True, capture_output=True, text=True).stdout.split()
    subprocess.run(["cc", "-O2", "-o", OGG_DECODERS, f"{ROOT}/Benchmarks/OggDecoders/ogg-decoders.c"] + flags,
                   check=True)
    print("\n| Ogg decoding, in process (same packets, to float) | 10 min stereo | vs libavcodec |")
    print("|---|---|---|")
    for name in ("Ogg Vorbis (oggenc -q 5)", "Ogg Opus (opusenc 128k)"):
        rows = [json.loads(line) for line in subprocess.run([OGG_DECODERS, inputs[name], str(RUNS)], check=True,
                capture_output=True, text=True).stdout.splitlines() if line.startswith("{")]
        reference = next(row["seconds"] for row in rows if row["engine"].startswith("libavcodec"))
        for row in rows:
            print(f"| {row['engine']} | {row['seconds']*1000:.0f} ms | {reference/row['seconds']:.2f}x |")
    print("\n| Ogg → WAV 16-bit, whole process | afkit | `ffmpeg -i F out.wav` | afkit speed-up |")
    print("|---|---|---|---|")
    for name in ("Ogg Vorbis (oggenc -q 5)", "Ogg Opus (opusenc 128k)"):
        ours = best(f"rm -f {WORK}/ogg-afkit.wav && {AFKIT} convert {inputs[name]} {WORK}/ogg-afkit.wav")
        theirs = best(f"ffmpeg -v error -y -i {inputs[name]} {WORK}/ogg-ffmpeg.wav")
        print(f"| {name} | {ours*1000:.0f} ms | {theirs*1000:.0f} ms | {theirs/ours:.2f}x |")

def parse_in_process(inputs):
    """AudioFileStream in process, 4 KiB chunks from memory, every packet handed out, beside a memchr
    scan of the same bytes (the ceiling)."""
    out = subprocess.run([CODEC_BENCH, "parse"] + list(inputs.values()), check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    # Ratios to ADTS's rate in the same run (a framed container that checks no CRC), so a figure speaks
    # of the parser, not of the machine: FLAC's target is at least 1.0, Ogg's at least 0.9.
    adts = next(row["parseBytesPerSecond"] for (name, _), row in zip(inputs.items(), rows) if name.startswith("ADTS"))
    print("\n| AudioFileStream, 4 KiB chunks, in memory | MB | packets | parse | vs ADTS | memchr ceiling | share of ceiling |")
    print("|---|---|---|---|---|---|---|")
    for (name, _), row in zip(inputs.items(), rows):
        parse, ceiling = row["parseBytesPerSecond"] / 1e9, row["memchrBytesPerSecond"] / 1e9
        print(f"| {name} | {row['bytes']/1e6:.1f} | {row['packets']} | {parse:.2f} GB/s | "
              f"{row['parseBytesPerSecond'] / adts:.2f}x | {ceiling:.1f} GB/s | {100*parse/ceiling:.0f} % |")

def loudness():
    """BS.1770 measurement: 200 effects and the 10-minute track, afkit (libebur128) against FFmpeg's
    ebur128 filter per file; and normalizing the track against FFmpeg's loudnorm."""
    folder = effects()
    files = " ".join(f"{folder}/{f}" for f in sorted(os.listdir(folder)))
    ours = best(f"{AFKIT} info --loudness --json {files} > /dev/null")
    ffmpeg_cmd = "ffmpeg -nostats -v info -i {} -af ebur128=peak=true -f null - 2> /dev/null"
    sequential = best(f"for f in {files}; do " + ffmpeg_cmd.format("$f") + "; done")
    parallel = best(f"ls {files} | xargs -P 2 -I F sh -c '" + ffmpeg_cmd.format("F") + "'")
    source = f"{WORK}/source.wav"
    track = best(f"{AFKIT} info --loudness {source} > /dev/null")
    track_ff = best(ffmpeg_cmd.format(source))
    normalize = best(f"{AFKIT} convert --loudness -16 {source} {WORK}/normalized.caf 2> /dev/null")
    loudnorm = best(f"ffmpeg -v error -y -i {source} -af loudnorm=I=-16:TP=-1 -ar 44100 -c:a pcm_s16le "
                    f"{WORK}/loudnorm.wav")
    print("\n| loudness (BS.1770-4, true peak) | afkit | reference | reference tool | afkit vs reference |")
    print("|---|---|---|---|---|")
    print(f"| measure 200 effects (0.4 s) | {ours*1000:.0f} ms, one process | {sequential*1000:.0f} ms sequential, "
          f"{parallel*1000:.0f} ms two at a time | `ffmpeg -af ebur128=peak=true` per file | "
          f"{sequential/ours:.1f}x / {parallel/ours:.1f}x |")
    print(f"| measure the {SECONDS // 60}-minute track | {track*1000:.0f} ms | {track_ff*1000:.0f} ms | "
          f"`ffmpeg -af ebur128=peak=true` | {track_ff/track:.1f}x |")
    print(f"| normalize it to -16 LUFS, -1 dBTP, 16-bit CAF | {normalize*1000:.0f} ms | {loudnorm*1000:.0f} ms | "
          f"`ffmpeg -af loudnorm` (one pass, dynamic) | {loudnorm/normalize:.1f}x |")

ALLOCATIONS = os.path.join(ROOT, "Benchmarks/Allocations")

def allocations():
    """The allocation gate (STYLE.md's rule 15): package-benchmark's malloc interposer counts every
    allocation while the push parser takes 20 MB and 200 MB of MP3, ADTS, FLAC and Ogg Opus in 4 KiB chunks and the
    IMA4 decoder fills a caller's buffer from 100,000 and 1,000,000 packets, and the reader decodes 1 and 8 MB of
    Ogg Vorbis and Opus through libavcodec. No allocation per packet, per chunk or per block: `make bench` fails
    when the count grows by more than a table's few doublings (below)."""
    out = f"{WORK}/allocations"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["swift", "package", "--package-path", ALLOCATIONS, "--allow-writing-to-directory", out,
                    "benchmark", "--format", "metricP90AbsoluteThresholds", "--path", out],
                   check=True, stdout=subprocess.DEVNULL)
    counts = {}
    for path in glob.glob(f"{out}/*.p90.json"):
        name = os.path.basename(path).split(".", 1)[1].rsplit(".p90.json", 1)[0].replace("_", " ")
        counts[name] = json.load(open(path))["mallocCountTotal"]
    print("| work | smaller input | allocations | larger input | allocations | constant |")
    print("|---|---|---|---|---|---|")
    failed = []
    for task in ["parse MP3", "parse ADTS", "parse FLAC", "parse Ogg Opus", "decode IMA4", "decode Ogg Vorbis",
                 "decode Ogg Opus"]:
        sizes = sorted((name for name in counts if name.startswith(task)),
                       key=lambda name: int(name[len(task) + 1:].split()[0]))
        small, large = sizes[0], sizes[-1]
        # Decoding through libavcodec: eight allocations a packet are libavcodec's own (measured alone by
        # Benchmarks/OggDecoders, LD_PRELOADed counter: the packet's reference, its buffer, the frame's), so
        # they are taken off. What is left may grow by a few doublings of the tables a parser keeps (the seek
        # memory, an Ogg file's packet table: 16 at most for 8 to 10 times the input), never by one a packet
        # or a chunk (tens of thousands here).
        allowance = 8 * (int(large.split()[-2]) - int(small.split()[-2])) if task.startswith("decode Ogg") else 0
        constant = counts[large] - allowance - counts[small] <= 16
        if not constant: failed.append(task)
        note = f" (less {allowance}: libavcodec's 8 a packet)" if allowance else ""
        print(f"| {task} | {small[len(task) + 1:]} | {counts[small]} | {large[len(task) + 1:]} | {counts[large]}{note} | "
              f"{'yes' if constant else 'NO'} |")
    if failed:
        print(f"allocation gate: the count grows with the input for {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)

def startup():
    """One short file per process, as a Makefile rule or a Bazel action runs afkit: what starting the
    process costs beside the work, against the reference tools doing the same job."""
    folder = effects()
    effect = f"{folder}/sfx-000.wav"
    out = f"{WORK}/startup"
    os.makedirs(out, exist_ok=True)
    loops = 20
    jobs = [
        ("start and exit", f"{AFKIT} --version", [("sox --version", "sox --version"), ("ffmpeg -version", "ffmpeg -version")]),
        ("read one 0.4 s WAV's format", f"{AFKIT} info {effect}", [("soxi", f"soxi {effect}"),
            ("ffprobe -show_format", f"ffprobe -v error -show_format {effect}")]),
        ("one effect to IMA4 22.05 kHz mono, --quality fast", f"{AFKIT} convert --preset sfx --quality fast {effect} {out}/a.caf",
            [("sox -e ima-adpcm", f"sox {effect} -r 22050 -c 1 -e ima-adpcm {out}/s.wav"),
             ("ffmpeg adpcm_ima_qt", f"ffmpeg -v error -y -i {effect} -ac 1 -ar 22050 -c:a adpcm_ima_qt {out}/f.caf")]),
    ]
    print(f"\n| process start: one command, mean of {loops} in a row | afkit | reference | time | afkit vs reference |")
    print("|---|---|---|---|---|")
    for title, command, references in jobs:
        ours = best(f"for i in $(seq {loops}); do {command} > /dev/null; done") / loops
        for label, reference in references:
            theirs = best(f"for i in $(seq {loops}); do {reference} > /dev/null; done") / loops
            print(f"| {title} | {ours*1000:.1f} ms | `{label}` | {theirs*1000:.1f} ms | {theirs/ours:.2f}x |")

SECTIONS = os.environ.get("BENCH_ONLY", "").split(",") if os.environ.get("BENCH_ONLY") else None

def wanted(name):
    return SECTIONS is None or name in SECTIONS

def main():
    inputs = make_inputs()
    if SECTIONS is not None:
        print(f"Inputs: {SECONDS} s of stereo 44.1 kHz audio; best of {RUNS} runs; sections: {', '.join(SECTIONS)}.")
        if wanted("parse"): parsing(inputs)
        if wanted("conversions"): conversions()
        if wanted("decoders"): decoders(inputs)
        if wanted("music-batch"): music_batch()
        if wanted("batch"): batch()
        if wanted("startup"): startup()
        if wanted("durability"): durability(effects())
        if wanted("loudness"): loudness()
        if wanted("parse-in-process"): parse_in_process(inputs)
        if wanted("ogg-decode"): ogg_decode(inputs)
        if wanted("allocations"): allocations()
        if wanted("report"): report()
        return
    print(f"Inputs: {SECONDS} s of stereo 44.1 kHz audio; best of {RUNS} runs; wall-clock, whole process.\n")
    parsing(inputs)
    codecs(inputs)
    conversions()
    validation()
    batch()
    startup()
    music_batch()
    decoders(inputs)
    loudness()
    parse_in_process(inputs)
    ogg_decode(inputs)
    report()
    allocations()

def parsing(inputs):
    """Every packet through the push parser (`afkit packets`, which answers an M4A's seek requests),
    and the header (`afkit info`), beside FFmpeg's demuxer and ffprobe."""
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
