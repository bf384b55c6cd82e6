#!/usr/bin/env python3
"""afkit over other projects' audio test files, each checked against FFmpeg (issue 66, `make conformance`).

    python3 Conformance/conformance.py [--afkit PATH] [--out build/conformance] SOURCE...
    SOURCE: a folder, or a git directory (a bare mirror such as /work/.mirror/owner+name/repo, read with
            git ls-tree and git cat-file at HEAD), optionally SOURCE@subfolder; CONFORMANCE_SOURCES (split by
            spaces) when none is given.

A git source's files go to a temporary folder outside the tree and are deleted after the run: other projects'
files are never copied into afkit's tree. Git LFS pointers and symbolic links are skipped and counted.

Which files: every file ffprobe finds an audio stream in, and every file named with an extension afkit reads
(afkit's own folder walk says which, `afkit validate` over empty probe files): a file afkit must refuse is a
result too. Text files (UTF-8 without NUL in the first 4 KB: manifests, playlists, dumps) are not probed.

Per file: `afkit info --json FILE` and `afkit convert -d FORMAT FILE out.wav`, FORMAT keeping every bit (LEI32
for integer PCM and lossless codecs, LEF64 for float PCM, LEF32 for lossy codecs). The reference is FFmpeg's
decode of the first audio stream to the same representation, and `flac -d` for FLAC files (FFmpeg is not the
authority there). Where afkit and FFmpeg disagree on a file libsndfile reads, `sndfile-convert` is asked too:
when it agrees with afkit, the file counts as read right and the note says FFmpeg differs.

Verdicts (one per file; a file can carry more than one fault, all listed):
  read right     frames within 1 % or 2048 of the reference, rate and channels equal, samples identical for
                 PCM and lossless codecs, SNR at least MIN_SNR dB against FFmpeg for lossy ones (after the
                 best alignment among the likely priming offsets), info and convert agreeing
  refused        convert exits non-zero with a message naming the file and a typed code ('fmt?', ...)
  no reference   FFmpeg decodes no audio from the file, or decodes a PCM file's samples as another word than
                 the file declares (float for integers, another depth) where no tie-breaker reads it (afkit's
                 result is kept, and crashes, hangs, disagreements and unnamed refusals are still faults)
  faults         crash (signal, status >= 128, runtime or sanitizer text), hang (TIMEOUT s), wrong length,
                 wrong rate/channels, wrong sample, disagreement (info reads what convert refuses or the
                 reverse, or their frame counts differ), unnamed refusal

Output in OUT: results.tsv and results.json (one record per file), faults.md (each fault with the commands that
reproduce it) and figures.txt (one line per source, also printed).
"""
import argparse, array, concurrent.futures, json, math, os, re, shlex, shutil, signal, subprocess, sys
import tempfile, threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_SNR = 20.0
LOSSLESS = {"flac", "alac", "tta", "wavpack", "ape", "mlp", "truehd", "shorten", "pcm_mulaw", "pcm_alaw",
            "s302m", "dst", "pcm_bluray", "pcm_dvd"}
FLOAT_PCM = {"pcm_f32le", "pcm_f32be", "pcm_f64le", "pcm_f64be"}
# Containers libsndfile reads: where afkit and FFmpeg disagree on one of these, sndfile-convert breaks the tie.
SNDFILE_FORMATS = {"wav", "aiff", "au", "caf", "w64", "flac", "ogg", "voc", "ircam", "nistsphere", "sds",
                   "rf64", "mat4", "mat5", "pvf", "xi", "htk", "sd2", "wve", "paf", "avr", "mpc"}
# Frame offsets tried first when a lossy decode is aligned with FFmpeg's (priming as encoders record it).
LIKELY_LAGS = [0, 64, 128, 256, 288, 312, 480, 529, 576, 960, 1024, 1088, 1105, 1152, 1600, 2048, 2112, 3840]
CRASH_TEXT = re.compile(r"Fatal error|Segmentation fault|AddressSanitizer|UndefinedBehaviorSanitizer|"
                        r"Illegal instruction|double free|free\(\): |malloc\(\): |Aborted|Stack dump|"
                        r"Current stack trace")
CODE = re.compile(r"code '(.{4})'")
FAULTS = ["crash", "hang", "wrong length", "wrong rate/channels", "wrong sample", "disagreement",
          "unnamed refusal"]


def run(args, timeout, stdout_path=None):
    """Runs a command in a session of its own; returns (status, stdout bytes, stderr text, hung). On a timeout
    the whole session is killed (it holds only what this command started)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    try:
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                                   start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            hung = True
    finally:
        if stdout_path:
            out.close()
    return process.returncode, stdout or b"", stderr.decode("utf-8", "replace"), hung


# ---- sources ------------------------------------------------------------------------------------------------

class Source:
    """A folder or a git directory, possibly restricted to a subfolder, materialized as files in `root`."""

    def __init__(self, spec, scratch):
        self.spec = spec
        place, _, self.subfolder = spec.partition("@")
        self.place = os.path.abspath(place)
        # a git directory (a bare mirror) is read at HEAD; a working tree is a folder like any other
        self.is_git = os.path.isfile(os.path.join(self.place, "HEAD")) and os.path.isdir(
            os.path.join(self.place, "objects"))
        parent = os.path.basename(os.path.dirname(self.place)) if os.path.basename(self.place) == "repo" else ""
        self.name = parent.replace("+", "/", 1) if "+" in parent else os.path.basename(self.place.rstrip("/"))
        self.commit = None
        self.lfs_pointers = 0
        self.links = 0
        self.absent = []  # paths the git directory lists but does not hold
        self.files = []  # (relative path, absolute path)
        if self.is_git:
            self.root = tempfile.mkdtemp(prefix="afkit-conformance-", dir=scratch)
            self._extract()
        else:
            self.root = self.place
            top = os.path.join(self.place, self.subfolder) if self.subfolder else self.place
            for folder, dirs, names in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != ".git")
                for name in sorted(names):
                    path = os.path.join(folder, name)
                    if os.path.islink(path) or not os.path.isfile(path):
                        self.links += 1
                        continue
                    if self._is_lfs_pointer(path):
                        self.lfs_pointers += 1
                        continue
                    self.files.append((os.path.relpath(path, self.place), path))

    @staticmethod
    def _is_lfs_pointer(path):
        if os.path.getsize(path) > 1024:
            return False
        with open(path, "rb") as file:
            return file.read(40).startswith(b"version https://git-lfs.github.com/spec/")

    def _extract(self):
        git = ["git", "-C", self.place]
        self.commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True,
                                     check=True).stdout.strip()
        listing = subprocess.run(git + ["ls-tree", "-r", "-z", "HEAD", "--"] + ([self.subfolder] if self.subfolder
                                 else []), capture_output=True, check=True).stdout
        blobs = []
        for entry in listing.split(b"\0"):
            if not entry:
                continue
            meta, path = entry.split(b"\t", 1)
            mode, kind, object_id = meta.split()
            if kind != b"blob" or mode == b"120000":
                self.links += 1
                continue
            blobs.append((path.decode("utf-8", "surrogateescape"), object_id))
        catter = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        feeder = threading.Thread(target=lambda: (catter.stdin.write(b"".join(o + b"\n" for _, o in blobs)),
                                                  catter.stdin.close()))
        feeder.start()
        for path, object_id in blobs:
            header = catter.stdout.readline().split()
            if len(header) < 3:  # "<id> missing": a snapshot that left out its largest files
                self.absent.append(path)
                continue
            size = int(header[2])
            data = catter.stdout.read(size)
            catter.stdout.read(1)
            if size <= 1024 and data.startswith(b"version https://git-lfs.github.com/spec/"):
                self.lfs_pointers += 1
                continue
            target = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as file:
                file.write(data)
            self.files.append((path, target))
        feeder.join()
        catter.wait()

    def reproduce(self, relative, local):
        """A shell line that puts the file at `local`."""
        if self.is_git:
            return (f"git -C {shlex.quote(self.place)} show {self.commit[:12]}:{shlex.quote(relative)} "
                    f"> {shlex.quote(local)}")
        return f"cp {shlex.quote(os.path.join(self.place, relative))} {shlex.quote(local)}"

    def cleanup(self):
        if self.is_git:
            shutil.rmtree(self.root, ignore_errors=True)


# ---- afkit's extensions ---------------------------------------------------------------------------------------

def afkit_extensions(afkit, candidates, scratch):
    """The extensions among `candidates` that afkit's folder walk takes (asked of afkit, not listed here):
    `afkit validate --format json` over one empty file per extension reports the files it walked."""
    folder = tempfile.mkdtemp(prefix="afkit-conformance-ext-", dir=scratch)
    try:
        safe = sorted(e for e in candidates if re.fullmatch(r"[a-z0-9]{1,12}", e))
        for extension in safe:
            open(os.path.join(folder, "probe." + extension), "wb").close()
        _, stdout, stderr, _ = run([afkit, "validate", "--format", "json", folder], 120)
        walked = set()
        try:
            walked = {os.path.splitext(p)[1][1:] for p in json_paths(json.loads(stdout))}
        except ValueError:
            pass
        if not walked:  # the note on standard error names what the walk skipped
            match = re.search(r"skipped \d+ files? not named as a sound file afkit reads \(([^)]*)\)", stderr)
            if match:
                skipped = {k.strip().lstrip(".") for k in match.group(1).split(",")}
                walked = set(safe) - skipped
        return walked
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def json_paths(value):
    """Every string under a "path" or "file" key of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("path", "file") and isinstance(item, str):
                yield item
            else:
                yield from json_paths(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_paths(item)


# ---- WAV reading and comparing --------------------------------------------------------------------------------

def read_wav(path):
    """(rate, channels, kind 'i32'|'f32'|'f64', data bytes) of a WAV or RF64 file; None when unreadable."""
    with open(path, "rb") as file:
        data = file.read()
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RF64") or data[8:12] != b"WAVE":
        return None
    position, fmt, body, ds64_size = 12, None, None, None
    while position + 8 <= len(data):
        chunk, size = data[position:position + 4], int.from_bytes(data[position + 4:position + 8], "little")
        start = position + 8
        if chunk == b"ds64":
            ds64_size = int.from_bytes(data[start + 8:start + 16], "little")
        if chunk == b"fmt ":
            fmt = data[start:start + size]
        if chunk == b"data":
            if size == 0xFFFFFFFF and ds64_size is not None:
                size = ds64_size
            body = data[start:min(start + size, len(data))]
            break
        position = start + size + (size & 1)
    if fmt is None or body is None:
        return None
    tag, channels, rate = int.from_bytes(fmt[0:2], "little"), int.from_bytes(fmt[2:4], "little"), \
        int.from_bytes(fmt[4:8], "little")
    bits = int.from_bytes(fmt[14:16], "little")
    if tag == 0xFFFE and len(fmt) >= 26:
        tag = int.from_bytes(fmt[24:26], "little")
    kind = {(1, 32): "i32", (3, 32): "f32", (3, 64): "f64"}.get((tag, bits))
    if kind is None and tag == 1 and bits in (16, 24):  # flac -d's own WAV: left-justified as 32-bit
        kind, body = "i32", raw_to_i32(body, bits // 8, bits)
    if kind is None:
        return (rate, channels, f"tag {tag} bits {bits}", body)
    return (rate, channels, kind, body)


def raw_to_i32(raw, width, bits):
    """Little-endian signed samples of `width` bytes holding `bits`-bit values as left-justified 32-bit ones."""
    count = len(raw) // width
    out = bytearray(count * 4)
    for byte in range(width):
        out[4 - width + byte::4] = raw[byte:count * width:width]
    shift = 8 * width - bits
    if shift > 0:
        values = array.array("i", bytes(out))
        values = array.array("i", [v << shift for v in values])
        return values.tobytes()
    return bytes(out)


def first_difference(a, b, size):
    """Index of the first differing `size`-byte element of a and b (same length), or None."""
    if a == b:
        return None
    low, high = 0, len(a) // size
    while high - low > 1:  # the first half that differs holds the first difference
        middle = (low + high) // 2
        if a[low * size:middle * size] != b[low * size:middle * size]:
            high = middle
        else:
            low = middle
    return low


def compare_exact(a, r, channels, kind):
    """Exact comparison of afkit's samples `a` with the reference `r`: (identical, note)."""
    size = {"i32": 4, "f32": 4, "f64": 8}[kind]
    frame = size * channels
    common = min(len(a), len(r)) // frame * frame
    if common == 0:
        return (len(a) == len(r), "no frames to compare")
    if a[:common] == r[:common]:
        return (True, f"identical over {common // frame} frames")
    # afkit may start later or earlier than the reference (priming trimmed on one side only)
    for shift in {(len(r) - len(a)) // frame, (len(a) - len(r)) // frame} - {0}:
        if shift > 0 and r[shift * frame:shift * frame + common - shift * frame] == a[:common - shift * frame]:
            return (False, f"identical once afkit's output is moved {shift} frames later")
        if shift > 0 and a[shift * frame:shift * frame + common - shift * frame] == r[:common - shift * frame]:
            return (False, f"identical once afkit's output is moved {shift} frames earlier")
    index = first_difference(a[:common], r[:common], size)
    code = {"i32": "i", "f32": "f", "f64": "d"}[kind]
    av, rv = array.array(code, a[:common]), array.array(code, r[:common])
    differing = sum(1 for x, y in zip(av, rv) if x != y)
    largest = max(abs(x - y) for x, y in zip(av, rv))
    scale = " (full scale 2^31)" if kind == "i32" else ""
    return (False, f"first difference at frame {index // channels} channel {index % channels} "
                   f"(afkit {av[index]}, reference {rv[index]}); {differing} of {len(av)} samples differ, "
                   f"largest by {largest}{scale}")


def snr(a, r, lag, channels, start, count):
    """SNR in dB of a against r over `count` frames of r from `start`, afkit shifted by `lag` frames."""
    signal_energy = noise = 0.0
    begin, end = start * channels, (start + count) * channels
    offset = lag * channels
    lo, hi = max(begin, -offset, 0), min(end, len(r), len(a) - offset)
    if hi - lo <= 0:
        return -math.inf
    for x, y in zip(r[lo:hi], a[lo + offset:hi + offset]):
        signal_energy += x * x
        noise += (x - y) * (x - y)
    if noise == 0:
        return math.inf
    if signal_energy == 0:
        return -math.inf
    return 10 * math.log10(signal_energy / noise)


def compare_lossy(a_bytes, r_bytes, channels, priming):
    """(SNR in dB, lag in frames, note) of afkit's float decode against FFmpeg's, at the best alignment."""
    a, r = array.array("f", a_bytes), array.array("f", r_bytes)
    frames = len(r) // channels
    if frames == 0 or len(a) == 0:
        return (-math.inf, 0, "no frames to compare")
    peak = max(abs(x) for x in r)
    if peak == 0:
        largest = max((abs(x) for x in a), default=0)
        return (math.inf if largest < 1e-4 else -math.inf, 0, f"silent reference; afkit's peak {largest:.2g}")
    # a window where the reference has sound: the loudest of a few places
    window = min(frames, 8192)
    starts = sorted({0, max(0, frames // 2 - window // 2), max(0, frames - window)})
    start = max(starts, key=lambda s: sum(x * x for x in r[s * channels:(s + window) * channels:channels]))
    difference = len(a) // channels - frames
    lags = set()
    for lag in LIKELY_LAGS + [difference, priming]:
        lags.update({lag, -lag})
    best = max(lags, key=lambda lag: snr(a, r, lag, channels, start, window))
    # then every lag within 128 frames of it (an edit list read in other units), and, when that is still far
    # off, every lag within 4096 frames: on 1024 frames of the first channel
    for low, high, enough in ((best - 128, best + 128, math.inf), (-4096, 4096, MIN_SNR)):
        if snr(a, r, best, channels, start, window) >= enough:
            continue
        short = min(window, 1024)
        ref = r[start * channels:(start + short) * channels:channels]
        scores = {}
        for lag in range(low, high + 1):
            first = (start + lag) * channels
            if first < 0 or first + short * channels > len(a):
                continue
            mine = a[first:first + short * channels:channels]
            scores[lag] = sum((x - y) * (x - y) for x, y in zip(ref, mine))
        if scores:
            candidate = min(scores, key=scores.get)
            if snr(a, r, candidate, channels, start, window) > snr(a, r, best, channels, start, window):
                best = candidate
    # the whole overlap at that alignment (at most 2 M samples)
    count = min(frames, max(1, 2_000_000 // channels))
    value = snr(a, r, best, channels, 0, count)
    if value < MIN_SNR and difference != 0 and abs(difference) <= 4096:
        piecewise, lags = align_piecewise(a, r, channels, difference)
        if piecewise > value:
            steps = ", ".join(f"{lag} from frame {frame}" for frame, lag in lags)
            return (piecewise, best, f"SNR {piecewise:.1f} dB aligned block by block (afkit's lag {steps}): "
                                     f"frames inserted or dropped on one side")
    return (value, best, f"SNR {value:.1f} dB at lag {best}")


def align_piecewise(a, r, channels, difference, block=4096, window=1024, most=64):
    """SNR with each block of the reference aligned on its own (one side inserting or dropping frames midway,
    as an AMR NO_DATA frame or a lost packet does): lags between 0 and `difference`, found on the first
    channel; at most `most` blocks spread over the file. Returns (SNR, [(frame, lag) where the lag changes])."""
    frames = len(r) // channels
    starts = list(range(0, max(1, frames - window), block))
    if len(starts) > most:
        starts = [starts[i * len(starts) // most] for i in range(most)]
    low, high = min(0, difference) - 64, max(0, difference) + 64
    energy = noise = 0.0
    changes, previous = [], None
    for start in starts:
        ref = r[start * channels:(start + window) * channels:channels]
        best, best_error = 0, math.inf
        for lag in range(low, high + 1):
            first = (start + lag) * channels
            if first < 0 or first + window * channels > len(a):
                continue
            error = sum((x - y) * (x - y) for x, y in zip(ref, a[first:first + window * channels:channels]))
            if error < best_error:
                best, best_error = lag, error
        end = min(frames, start + block)
        for x, y in zip(r[start * channels:end * channels],
                        a[(start + best) * channels:(end + best) * channels]):
            energy += x * x
            noise += (x - y) * (x - y)
        if best != previous:
            changes.append((start, best))
            previous = best
    if noise == 0:
        return (math.inf, changes)
    return ((10 * math.log10(energy / noise)) if energy else -math.inf, changes)


# ---- one file ------------------------------------------------------------------------------------------------

def is_text(path):
    """Whether a file starts as text (manifests, playlists, dumps): no audio stream to look for, and FFmpeg's
    playlist demuxers can spend a minute on one."""
    with open(path, "rb") as file:
        head = file.read(4096)
    if not head or b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start > len(head) - 4  # a character cut at the end of the window
    return True


def probe(path, timeout):
    if is_text(path):
        return None
    status, stdout, _, hung = run(["ffprobe", "-v", "error", "-protocol_whitelist", "file,crypto,data",
                                   "-show_streams", "-show_format", "-of", "json", path], timeout)
    if hung or status != 0:
        return None
    try:
        info = json.loads(stdout)
    except ValueError:
        return None
    return info


def check_file(afkit, source, relative, path, info, scratch, timeout):
    record = {"source": source.name, "path": relative, "size": os.path.getsize(path), "faults": [], "notes": []}
    audio = [s for s in (info or {}).get("streams", []) if s.get("codec_type") == "audio"]
    stream = audio[0] if audio else {}
    codec = stream.get("codec_name", "")
    record["ffprobe"] = {"format": (info or {}).get("format", {}).get("format_name", ""), "codec": codec,
                         "audioStreams": len(audio)}
    work = tempfile.mkdtemp(prefix="file-", dir=scratch)
    try:
        return _check(afkit, source, relative, path, stream, codec, record, work, timeout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _check(afkit, source, relative, path, stream, codec, record, work, timeout):
    base = os.path.basename(path)
    # afkit info
    status, stdout, stderr, hung = run([afkit, "info", "--json", path], timeout)
    info = {"status": status, "hung": hung}
    if crashed(status, stderr) and not hung:
        record["faults"].append(("crash", f"afkit info: status {status}: {last_lines(stderr)}"))
    if hung:
        record["faults"].append(("hang", f"afkit info ran past {timeout} s"))
    try:
        entry = json.loads(stdout)[0]
        if "error" in entry:
            info["error"] = entry["error"]
        else:
            fmt = entry.get("format", {})
            info.update(frames=entry.get("frameCount"), id=fmt.get("id"), rate=fmt.get("sampleRate"),
                        channels=fmt.get("channels"), bits=fmt.get("bitsPerChannel"), flags=fmt.get("flags"),
                        priming=entry.get("primingFrames", 0), container=entry.get("container"),
                        truncated=entry.get("truncated", False), damaged=entry.get("damaged", False))
    except (ValueError, IndexError, KeyError, TypeError):
        pass
    record["info"] = info
    info_reads = status == 0 and "frames" in info

    # the representation: from the reference's codec, else from afkit's format
    if codec:
        lossless = codec.startswith("pcm_") or codec in LOSSLESS
        floating = codec in FLOAT_PCM
    else:
        lossless = info.get("id") in ("lpcm", "alac", "flac", "ulaw", "alaw")
        floating = info.get("id") == "lpcm" and bool((info.get("flags") or 0) & 1)
    kind = "f64" if floating else ("i32" if lossless else "f32")
    data_format = {"i32": "LEI32", "f64": "LEF64", "f32": "LEF32"}[kind]
    ffmpeg_format = {"i32": "pcm_s32le", "f64": "pcm_f64le", "f32": "pcm_f32le"}[kind]
    record["compared"] = "exact" if lossless else f"SNR >= {MIN_SNR:g} dB"

    # afkit convert
    output = os.path.join(work, "afkit.wav")
    convert_args = [afkit, "convert", "-d", data_format, path, output]
    status, _, stderr, hung = run(convert_args, timeout)
    convert = {"status": status, "hung": hung, "messages": stderr.strip()}
    record["convert"] = convert
    record["commands"] = {"info": f"{shlex.quote(afkit)} info --json {{file}}",
                          "afkit": f"{shlex.quote(afkit)} convert -d {data_format} {{file}} /tmp/afkit.wav"}
    if hung:
        record["faults"].append(("hang", f"afkit convert ran past {timeout} s"))
    elif crashed(status, stderr):
        record["faults"].append(("crash", f"afkit convert: status {status}: {last_lines(stderr)}"))
    elif status != 0:
        codes = CODE.findall(stderr)
        convert["code"] = codes[-1] if codes else None
        errors = [line for line in stderr.splitlines() if ": error: " in line]
        convert["message"] = (errors[-1] if errors else last_lines(stderr, 1)).replace(source.root + "/", "")
        if not codes or (path not in stderr and base not in stderr):
            record["faults"].append(("unnamed refusal", f"status {status}: {last_lines(stderr)}"))
    converted = read_wav(output) if status == 0 and not hung and os.path.exists(output) else None
    if status == 0 and not hung and converted is None:
        record["faults"].append(("wrong length", "afkit convert exited 0 but its output is no readable WAV"))
    if converted:
        rate, channels, got_kind, data = converted
        frames = len(data) // (channels * (8 if got_kind == "f64" else 4))
        convert.update(rate=rate, channels=channels, frames=frames)
        if got_kind != kind:
            record["notes"].append(f"afkit wrote {got_kind}, asked {kind}")


    # info and convert
    if info_reads and status != 0 and not hung and not crashed(status, stderr):
        if info["frames"] == 0 and (info.get("truncated") or info.get("damaged")):
            # Both say it: info reads no frame of a file it calls cut short or damaged; convert refuses it.
            record["notes"].append(f"info reads 0 frames of a {'truncated' if info.get('truncated') else 'damaged'} "
                                   f"file; convert refuses: {convert.get('message', '')}")
        elif convert.get("code") == "fmt?":
            # afinfo's way: info describes a stream whose data format convert does not decode
            record["notes"].append(f"info describes it ({info['frames']} frames of '{info.get('id')}', "
                                   f"{info.get('channels')} ch); convert refuses the data format")
        else:
            record["faults"].append(("disagreement", f"info reads {info['frames']} frames ({info.get('id')}); "
                                                     f"convert refuses: {convert.get('message', '')}"))
    if info["status"] != 0 and not info["hung"] and converted:
        record["faults"].append(("disagreement", f"info refuses ({info.get('error', {}).get('message', '')}); "
                                                 f"convert reads {convert['frames']} frames"))
    if info_reads and converted and info["frames"] != convert["frames"]:
        record["faults"].append(("disagreement", f"info says {info['frames']} frames; convert wrote "
                                                 f"{convert['frames']}"))

    # the reference
    reference = decode_reference(path, stream, codec, kind, ffmpeg_format, work, timeout, record)
    record["reference"] = {k: v for k, v in (reference or {}).items() if k != "data"}

    # Whole or said: an empty output with success needs info to have said why (cut short or damaged), where the
    # file holds audio (the reference decodes some, or info counts frames); a file that declares none (an empty
    # WAV, an fMP4 init segment) is rightly empty.
    holds_audio = bool(reference and reference.get("frames")) or (info_reads and info.get("frames", 0) > 0)
    if converted and convert["frames"] == 0 and holds_audio and not (info.get("truncated") or info.get("damaged")):
        record["faults"].append(("wrong length", "convert exited 0 with an empty output, and info said nothing "
                                                 "of damage or a cut"))
    if reference and info_reads and (info.get("channels"), info.get("rate")) != (reference["channels"],
                                                                                reference["rate"]):
        said = (f"info says {info.get('rate'):g} Hz {info.get('channels')} ch; {reference['tool']} decodes "
                f"{reference['rate']} Hz {reference['channels']} ch")
        if str(info.get("id", "")).startswith("aac"):  # HE-AAC: the core's rate and channels, as afinfo says
            record["notes"].append(said)
        else:
            record["faults"].append(("wrong rate/channels", said))
    if reference is None:  # a named refusal stands on its own; a read has nothing to be checked against
        record["verdict"] = verdict(record, "no reference" if converted else "refused")
        return record
    if converted is None:
        record["verdict"] = verdict(record, "refused" if status != 0 else "no output")
        return record

    compare(record, converted, reference, kind, lossless, info, path, work, timeout, source)
    record["verdict"] = verdict(record, "no reference" if record.get("noReference") else "read right")
    return record


def decode_reference(path, stream, codec, kind, ffmpeg_format, work, timeout, record):
    """FFmpeg's decode of the first audio stream (and flac's for FLAC files), or None."""
    result = None
    if stream:
        target = os.path.join(work, "ffmpeg.wav")
        args = ["ffmpeg", "-nostdin", "-v", "error", "-protocol_whitelist", "file,crypto,data", "-i", path,
                "-map", "0:a:0", "-c:a", ffmpeg_format, "-f", "wav", "-rf64", "auto", "-y", target]
        status, _, stderr, hung = run(args, timeout * 2)
        decoded = read_wav(target) if os.path.exists(target) and not hung else None
        record["commands"]["ffmpeg"] = ("ffmpeg -v error -i {file} -map 0:a:0 -c:a " + ffmpeg_format +
                                        " -f wav -y /tmp/ffmpeg.wav")
        if decoded and decoded[3]:
            rate, channels, _, data = decoded
            result = {"tool": "ffmpeg", "rate": rate, "channels": channels,
                      "frames": len(data) // (channels * (8 if kind == "f64" else 4)), "data": data}
            if status != 0 or stderr.strip():
                record["notes"].append("FFmpeg: " + last_lines(stderr, 1))
        elif stderr.strip():
            record["notes"].append("FFmpeg decodes nothing: " + last_lines(stderr, 1))
    if codec == "flac" and record["ffprobe"]["format"] == "flac" and shutil.which("flac"):
        bits = int(stream.get("bits_per_raw_sample") or 0) or 16
        target = os.path.join(work, "flac.raw")
        status, _, stderr, hung = run(["flac", "-d", "-s", "-f", "--force-raw-format", "--endian=little",
                                       "--sign=signed", "-o", target, path], timeout * 2)
        record["commands"]["flac"] = ("flac -d -f --force-raw-format --endian=little --sign=signed "
                                      "-o /tmp/flac.raw {file}")
        if status == 0 and not hung and os.path.exists(target):
            width = (bits + 7) // 8
            with open(target, "rb") as file:
                data = raw_to_i32(file.read(), width, bits)
            if result is None:  # FFmpeg decodes nothing: the stream's rate and channels as ffprobe says them
                result = {"tool": "flac", "rate": int(stream.get("sample_rate") or 0),
                          "channels": int(stream.get("channels") or 1), "data": b""}
                record["notes"].append("FFmpeg decodes nothing; flac does")
            frames = len(data) // (4 * result["channels"])
            if data != result["data"] and result["tool"] == "ffmpeg":
                record["notes"].append(f"flac -d and FFmpeg differ (flac {frames} frames, FFmpeg "
                                       f"{result['frames']}); flac is the reference")
            result = dict(result, tool="flac", frames=frames, data=data)
        elif status != 0 and "for raw format output" in stderr and result:
            # flac writes raw samples of 8, 16, 24 and 32 bits only: other depths through its WAV output
            target = os.path.join(work, "flac.wav")
            status, _, stderr, hung = run(["flac", "-d", "-s", "-f", "-o", target, path], timeout * 2)
            decoded = read_wav(target) if status == 0 and not hung and os.path.exists(target) else None
            if decoded and decoded[2] == "i32":
                data = decoded[3]
                if data != result["data"]:
                    record["notes"].append(f"flac -d (WAV) and FFmpeg differ; flac is the reference")
                result = dict(result, tool="flac", frames=len(data) // (4 * decoded[1]), data=data)
                record["commands"]["flac"] = "flac -d -f -o /tmp/flac.wav {file}"
        if status != 0:
            record["notes"].append("flac -d fails: " + last_lines(stderr, 1))
    return result


def compare(record, converted, reference, kind, lossless, info, path, work, timeout, source):
    rate, channels, _, data = converted
    frames = record["convert"]["frames"]
    wanted = reference["frames"]
    problems = []
    if rate != reference["rate"] or channels != reference["channels"]:
        problems.append(("wrong rate/channels", f"afkit {rate} Hz {channels} ch; {reference['tool']} "
                                                f"{reference['rate']} Hz {reference['channels']} ch"))
    if abs(frames - wanted) > max(2048, wanted // 100):
        problems.append(("wrong length", f"afkit {frames} frames; {reference['tool']} {wanted}"))
    elif frames != wanted:
        record["notes"].append(f"length: afkit {frames} frames, {reference['tool']} {wanted} (within tolerance)")
    if channels == reference["channels"]:
        if lossless:
            same, note = compare_exact(data, reference["data"], channels, kind)
            record["comparison"] = note
            if not same:
                problems.append(("wrong sample", note))
        else:
            value, lag, note = compare_lossy(data, reference["data"], channels, int(info.get("priming") or 0))
            record["comparison"] = note
            record["snr"] = None if math.isinf(value) else round(value, 1)
            if value < MIN_SNR:
                problems.append(("wrong sample", note))
    if problems and record["ffprobe"]["format"].split(",")[0] in SNDFILE_FORMATS and shutil.which("sndfile-convert"):
        tie = sndfile_opinion(path, kind, converted, work, timeout, record)
        if tie:
            record["notes"].append(f"{reference['tool']} differs from afkit; libsndfile agrees with afkit "
                                   f"({'; '.join(p[1] for p in problems)})")
            problems = []
    disagreement = reference_word_disagrees(record["ffprobe"]["codec"], info)
    if problems and disagreement and all(kind == "wrong sample" for kind, _ in problems):
        # The reference decodes another sample word than the file declares (and no tie-breaker reads the file):
        # it is no reference for these samples. Counted apart, with the reason, never as read right.
        record["notes"].append(f"no reference: {disagreement} ({'; '.join(p[1] for p in problems)})")
        record["noReference"] = disagreement
        problems = []
    record["faults"].extend(problems)


def reference_word_disagrees(codec, info):
    """Why FFmpeg's decode is no reference for a PCM file's samples: its codec names another sample word (float
    for integers, another depth) than the one the file declares, as afkit reads its header; `None` where they
    agree or either is not PCM."""
    match = re.fullmatch(r"pcm_([suf])(\d+)(le|be)?(_planar)?", codec or "")
    if not match or info.get("id") != "lpcm" or not info.get("bits"):
        return None
    is_float = bool((info.get("flags") or 0) & 1)
    reference_float, reference_bits = match.group(1) == "f", int(match.group(2))
    if reference_float != is_float or reference_bits != info["bits"]:
        declared = f"{info['bits']}-bit {'float' if is_float else 'integer'}"
        return f"FFmpeg decodes it as {codec}, where the file declares {declared} samples"
    return None


def sndfile_opinion(path, kind, converted, work, timeout, record):
    """Whether libsndfile's decode equals afkit's exactly."""
    target = os.path.join(work, "sndfile.wav")
    option = {"i32": "-pcm32", "f32": "-float32", "f64": "-double"}[kind]
    status, _, stderr, hung = run(["sndfile-convert", option, path, target], timeout)
    record["commands"]["sndfile"] = f"sndfile-convert {option} {{file}} /tmp/sndfile.wav"
    decoded = read_wav(target) if status == 0 and not hung and os.path.exists(target) else None
    if decoded is None:
        record["notes"].append("libsndfile does not read it" + (": " + last_lines(stderr, 1) if stderr else ""))
        return False
    return decoded[:2] == converted[:2] and decoded[3] == converted[3]


def crashed(status, stderr):
    return status is not None and (status < 0 or status >= 128 or bool(CRASH_TEXT.search(stderr)))


def last_lines(text, count=2):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:])[:600]


def verdict(record, default):
    if record["faults"]:
        return record["faults"][0][0]
    if default == "no output":
        return "refused"
    return default


# ---- the run ---------------------------------------------------------------------------------------------------

def figures(name, source, records, examined):
    counts = {}
    for record in records:
        counts[record["verdict"]] = counts.get(record["verdict"], 0) + 1
    fault_counts = {fault: sum(1 for r in records if any(f[0] == fault for f in r["faults"])) for fault in FAULTS}
    skipped = []
    if source.lfs_pointers:
        skipped.append(f"{source.lfs_pointers} LFS pointers skipped")
    if source.absent:
        skipped.append(f"{len(source.absent)} absent from the git directory")
    line = (f"{name}: {len(records)} files (of {examined}{'; ' + ', '.join(skipped) if skipped else ''}), "
            f"{counts.get('read right', 0)} read right, {counts.get('refused', 0)} refused (named), "
            f"{counts.get('no reference', 0)} no reference, faults: "
            + ", ".join(f"{fault_counts[f]} {f}" for f in FAULTS))
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="*", help="folders or git directories, each optionally @subfolder")
    parser.add_argument("--afkit", default=os.environ.get("AFKIT", os.path.join(ROOT, ".build/release/afkit")))
    parser.add_argument("--out", default=os.path.join(ROOT, "build/conformance"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per command (FFmpeg: twice)")
    parser.add_argument("--only", help="check only paths that contain this text")
    options = parser.parse_args()
    specs = options.sources or os.environ.get("CONFORMANCE_SOURCES", "").split()
    if not specs:
        parser.error("give SOURCE folders or git directories (or CONFORMANCE_SOURCES)")
    afkit = os.path.abspath(options.afkit)
    if not os.access(afkit, os.X_OK):
        parser.error(f"no afkit at {afkit} (make release, or AFKIT=PATH)")
    for tool in ("ffmpeg", "ffprobe"):
        if not shutil.which(tool):
            parser.error(f"{tool} is needed (apt-get install ffmpeg)")
    os.makedirs(options.out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="afkit-conformance-")
    all_records, lines, fault_sections = [], [], []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(options.jobs, 2)))
    try:
        for spec in specs:
            source = Source(spec, scratch)
            try:
                files = [(rel, path) for rel, path in source.files if not options.only or options.only in rel]
                probes = list(pool.map(lambda item: probe(item[1], options.timeout), files))
                extensions = afkit_extensions(afkit, {os.path.splitext(rel)[1][1:].lower() for rel, _ in files},
                                              scratch)
                chosen = []
                for (rel, path), info in zip(files, probes):
                    has_audio = any(s.get("codec_type") == "audio" for s in (info or {}).get("streams", []))
                    if has_audio or os.path.splitext(rel)[1][1:].lower() in extensions:
                        chosen.append((rel, path, info))
                print(f"{source.name}: {len(files)} files, {len(chosen)} audio or named as audio", file=sys.stderr)
                jobs = [pool.submit(check_file, afkit, source, rel, path, info, scratch, options.timeout)
                        for rel, path, info in chosen]
                records = []
                for job, (rel, path, _) in zip(jobs, chosen):
                    record = job.result()
                    record["reproduce"] = source.reproduce(rel, "/tmp/" + os.path.basename(rel))
                    records.append(record)
                    if record["faults"]:
                        print(f"  {rel}: {', '.join(f[0] for f in record['faults'])}", file=sys.stderr)
                line = figures(source.name + (f" ({source.subfolder})" if source.subfolder else ""), source,
                               records, len(files))
                print(line)
                lines.append(line)
                for record in records:
                    record["commit"] = source.commit
                all_records.extend(records)
                fault_sections.append((source, records))
            finally:
                source.cleanup()
    finally:
        pool.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)
    write_outputs(options.out, all_records, lines, fault_sections, afkit)


def write_outputs(out, records, lines, sections, afkit):
    with open(os.path.join(out, "figures.txt"), "w") as file:
        file.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "results.json"), "w") as file:
        json.dump(records, file, indent=1, default=str)
    columns = ["source", "path", "verdict", "faults", "codec", "reference", "ref_frames", "ref_rate",
               "ref_channels", "info_frames", "afkit_frames", "afkit_rate", "afkit_channels", "comparison",
               "code", "message", "notes"]
    with open(os.path.join(out, "results.tsv"), "w") as file:
        file.write("\t".join(columns) + "\n")
        for r in records:
            ref, conv, info = r.get("reference") or {}, r.get("convert") or {}, r.get("info") or {}
            row = [r["source"], r["path"], r["verdict"], "; ".join(f"{a}: {b}" for a, b in r["faults"]),
                   r["ffprobe"]["codec"] or "-", ref.get("tool", "-"), ref.get("frames"), ref.get("rate"),
                   ref.get("channels"), info.get("frames"), conv.get("frames"), conv.get("rate"),
                   conv.get("channels"), r.get("comparison", ""), conv.get("code") or "",
                   conv.get("message", ""), "; ".join(r["notes"])]
            file.write("\t".join("" if v is None else str(v).replace("\t", " ").replace("\n", " | ")
                                 for v in row) + "\n")
    with open(os.path.join(out, "refusals.md"), "w") as file:
        file.write("# What afkit refuses, by reason\n\n")
        groups = {}
        for r in records:
            message = (r.get("convert") or {}).get("message")
            if r["verdict"] == "refused" and message:
                reason = message.replace(r["path"] + ": ", "").replace("convert: ", "", 1).replace("error: ", "", 1)
                reason = re.sub(r"(?<![A-Za-z0-9-])\d+(?![A-Za-z0-9])", "N", reason.replace(r["path"], "FILE"))
                groups.setdefault((r["convert"].get("code") or "", reason), []).append(r)
        for (code, reason), members in sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1]))):
            reference = sum(1 for r in members if (r.get("reference") or {}).get("frames"))
            file.write(f"- '{code}' x{len(members)} ({reference} decoded by the reference): {reason}\n")
            for r in members[:4]:
                codec = r["ffprobe"]["codec"] or "no audio stream to ffprobe"
                file.write(f"  - {r['source']}: {r['path']} ({codec})\n")
            if len(members) > 4:
                file.write(f"  - and {len(members) - 4} more\n")
    with open(os.path.join(out, "faults.md"), "w") as file:
        file.write(f"# Conformance faults\n\nafkit: {afkit}\n\n")
        for line in lines:
            file.write(f"- {line}\n")
        for source, records in sections:
            if source.absent:
                file.write(f"\n## {source.name}: files the git directory lists but does not hold\n\n"
                           + "".join(f"- {path}\n" for path in source.absent))
            for r in (r for r in records if r["faults"]):
                local = "/tmp/" + os.path.basename(r["path"])
                file.write(f"\n## {source.name}: {r['path']}\n\n")
                for fault, detail in r["faults"]:
                    file.write(f"- **{fault}**: {detail}\n")
                for note in r["notes"]:
                    file.write(f"- note: {note}\n")
                if r.get("comparison"):
                    file.write(f"- comparison: {r['comparison']}\n")
                file.write("\n```\n" + r["reproduce"] + "\n")
                for name, command in r.get("commands", {}).items():
                    file.write(command.replace("{file}", shlex.quote(local)) + "\n")
                file.write("```\n")


if __name__ == "__main__":
    main()
