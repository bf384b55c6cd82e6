#!/usr/bin/env bash
# What one Bazel conversion action costs, to predict a build farm's speed-up: the 200-effects set of
# `make bench` and a synthetic set of COUNT (10,000) short sounds, each converted by
# `bazel build` (one sandboxed `afkit convert --preset sfx` action per sound) and, beside it, by
# `afkit batch --preset sfx` (one process, every core). Needs bazel (Debian's bazel-bootstrap) and a
# release build. Usage: Benchmarks/bazel-scale.sh [COUNT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-bazel-scale-XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
python3 - "$work" "$count" <<'PY'
import math, os, struct, sys
work, count = sys.argv[1], int(sys.argv[2])
def wav(path, frames, freq, rate=22050):
    data = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(frames))
    head = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    open(path, "wb").write(head + b"data" + struct.pack("<I", len(data)) + data)
for n in (200, count):
    for i in range(n):
        folder = f"{work}/set{n}/sounds/g{i // 500}"
        os.makedirs(folder, exist_ok=True)
        wav(f"{folder}/s{i}.wav", 2205 + (i * 37) % 4000, 200 + (i * 13) % 3000)  # 0.1 to 0.28 s
PY
cp "$root/.build/release/afkit" "$work/afkit"
for n in 200 "$count"; do
    set_dir="$work/set$n"
    printf 'new_local_repository(name = "afkit_bin", path = "%s", build_file_content = %s)\nlocal_repository(name = "afkit_rules", path = "%s")\n' \
        "$work" "'exports_files([\"afkit\"])'" "$root/bazel" > "$set_dir/WORKSPACE"
    printf 'load("@afkit_rules//:afkit.bzl", "afkit_sounds")\nafkit_sounds(name = "sfx", srcs = glob(["sounds/**/*.wav"]), preset = "sfx", tool = "@afkit_bin//:afkit")\n' \
        > "$set_dir/BUILD.bazel"
    cd "$set_dir"
    bazel --batch --output_user_root="$work/out$n" build --nobuild //:sfx >/dev/null 2>&1  # analysis and startup, untimed
    start=$(date +%s.%N)
    bazel --batch --output_user_root="$work/out$n" build --jobs=2 //:sfx 2>&1 | grep -E "processes" || true
    bazel_s=$(echo "$(date +%s.%N) - $start" | bc)
    start=$(date +%s.%N)
    "$work/afkit" batch --preset sfx --jobs 2 --out "$work/batch$n" sounds >/dev/null 2>&1
    batch_s=$(echo "$(date +%s.%N) - $start" | bc)
    printf '| %s sounds | bazel build, 2 jobs: %.1f s (%.1f ms an action a core) | afkit batch --jobs 2: %.1f s (%.1f ms a file a core) |\n' \
        "$n" "$bazel_s" "$(echo "$bazel_s * 2000 / $n" | bc -l)" "$batch_s" "$(echo "$batch_s * 2000 / $n" | bc -l)"
done
