#!/usr/bin/env bash
# Proves afkit's Bazel rules on a copy of this example: a first build fills a disk cache; after
# `bazel clean` a second build takes every conversion from it; the outputs are byte for byte what
# `afkit convert` makes run directly; changing one source reruns that one action only.
# Usage: Examples/bazel-assets/prove.sh [AFKIT_BINARY]   (default: .build/debug/afkit)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
afkit=$(cd "$(dirname "${1:-$root/.build/debug/afkit}")" && pwd)/$(basename "${1:-afkit}")
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-bazel-XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/example" "$work/assets" "$work/tool" "$work/cache" "$work/coverage"
# `bazel test` wants a coverage tool it downloads; offline, a stand-in (coverage is not used here).
printf 'exports_files(["coverage_report_generator"])\n' > "$work/coverage/BUILD"
printf '#!/bin/sh\nexit 0\n' > "$work/coverage/coverage_report_generator"
chmod +x "$work/coverage/coverage_report_generator"
touch "$work/coverage/WORKSPACE"
cp "$root/Examples/bazel-assets/BUILD.bazel" "$work/example/"
cp "$root"/Assets/* "$work/assets/"
cp "$afkit" "$work/tool/afkit"
cp -r "$root/bazel" "$work/rules"
sed -e "s#\.\./\.\./bazel#$work/rules#" -e "s#\.\./\.\./\.build/release#$work/tool#" -e "s#\.\./\.\./Assets#$work/assets#" \
    "$root/Examples/bazel-assets/WORKSPACE" > "$work/example/WORKSPACE"
cd "$work/example"
build() { bazel --batch --output_user_root="$work/output" build --disk_cache="$work/cache" //:sfx 2>&1 | grep -E "processes|ERROR" || true; }
count() { echo "$1" | grep -oE "[0-9]+ $2" | grep -oE "^[0-9]+" || echo 0; }
sounds=$(ls "$work/assets" | grep -cE '\.(wav|aif|aiff|aifc|caf|mp3)$')

first=$(build)
echo "first build: $first"
[ "$(count "$first" "linux-sandbox")$(count "$first" "local")" != "00" ] || { echo "no conversion ran"; exit 1; }

bazel --batch --output_user_root="$work/output" clean 2>/dev/null
second=$(build)
echo "after clean: $second"
[ "$(count "$second" "remote cache hit")" = "$sounds" ] || { echo "expected $sounds cache hits"; exit 1; }

for source in "$work"/assets/*; do
    case "$source" in *.wav|*.aif|*.aiff|*.aifc|*.caf|*.mp3) ;; *) continue ;; esac
    name=$(basename "${source%.*}")
    "$work/tool/afkit" convert --preset system-sound --trim "$source" "$work/direct-$name.caf" 2>/dev/null
    cmp "$work/direct-$name.caf" "bazel-bin/sfx/$name.caf" || { echo "$name: Bazel's output differs from afkit convert's"; exit 1; }
done
echo "outputs: byte for byte afkit convert's"

"$work/tool/afkit" convert -d LEI16@16000 "$root/Assets/click.wav" "$work/assets/click.wav" 2>/dev/null
third=$(build)
echo "one source changed: $third"
[ "$(count "$third" "linux-sandbox")" = "1" ] || [ "$(count "$third" "local")" = "1" ] || { echo "expected one action"; exit 1; }
tested=$(bazel --batch --output_user_root="$work/output" test --disk_cache="$work/cache" \
    --override_repository=remote_coverage_tools="$work/coverage" //:sfx_test 2>&1 | grep -E "PASSED|FAILED|ERROR" || true)
echo "validation test: $tested"
echo "$tested" | grep -q PASSED || { echo "the validation test did not pass"; exit 1; }
echo "Bazel rules proven"
