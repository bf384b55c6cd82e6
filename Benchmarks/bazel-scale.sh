#!/usr/bin/env bash
# What one Bazel conversion action costs, to predict a build farm's speed-up: the 200-effects set of
# `make bench` and a synthetic set of COUNT (10,000) short sounds, each converted by
# `bazel build` (one sandboxed `afkit convert --preset sfx` action per sound) and, beside it, by
# `afkit batch --preset sfx` (one process, every core). Needs bazel (Debian's bazel-bootstrap) and a
# release build. Then the 200-effects set through a shared HTTP remote cache (nginx with WebDAV on
# loopback): filled from one output base, then built from a fresh one, as a second machine would
# (needs nginx-light). Usage: Benchmarks/bazel-scale.sh [COUNT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-bazel-scale-XXXXXX")
source "$root/Examples/bazel-assets/remote-cache.sh"
trap 'stop_remote_cache; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
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

start_remote_cache "$work/remote"
cd "$work/set200"
bazel --batch --output_user_root="$work/remote-a" build --jobs=2 --remote_cache="$remote_cache_url" //:sfx >/dev/null 2>&1
bazel --batch --output_user_root="$work/remote-b" build --nobuild //:sfx >/dev/null 2>&1  # analysis and startup, untimed
start=$(date +%s.%N)
hits=$(bazel --batch --output_user_root="$work/remote-b" build --jobs=8 --remote_cache="$remote_cache_url" //:sfx 2>&1 \
    | grep -oE "[0-9]+ remote cache hit" || echo "0 remote cache hit")
remote_s=$(echo "$(date +%s.%N) - $start" | bc)
printf '| 200 sounds, a second machine on a warm shared cache (%s) | bazel build, 8 jobs (downloads, not conversions): %.1f s (%.0f actions a second) |\n' \
    "$hits" "$remote_s" "$(echo "200 / $remote_s" | bc -l)"
