#!/usr/bin/env bash
# Proves afkit's Bazel rules over a shared remote cache, as a studio runs them: nginx with its WebDAV
# module on a loopback port is the cache (Bazel's HTTP remote-cache protocol: GET and PUT of /ac/ and
# /cas/ entries); two checkouts of the example in two folders, each with its own output base (two
# machines, as far as Bazel can tell), build in turn; the second takes every conversion from the cache
# and its outputs are byte for byte the first's; then one changed source is the only action that runs.
# Usage: Examples/bazel-assets/prove-remote-cache.sh [AFKIT_BINARY]   (default: .build/debug/afkit)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
afkit=$(cd "$(dirname "${1:-$root/.build/debug/afkit}")" && pwd)/$(basename "${1:-afkit}")
source "$root/Examples/bazel-assets/remote-cache.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-bazel-remote-XXXXXX")
cleanup() {
    stop_remote_cache
    chmod -R u+w "$work" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # a timeout's SIGTERM still stops nginx, through the EXIT trap
start_remote_cache "$work"
cache=$remote_cache_url

# Two checkouts, each a complete copy (example, rules, tool, sources) in a folder of its own.
checkout() {
    local dir=$1
    mkdir -p "$dir/example" "$dir/assets" "$dir/tool"
    cp "$root/Examples/bazel-assets/BUILD.bazel" "$dir/example/"
    cp "$root"/Assets/* "$dir/assets/"
    cp "$afkit" "$dir/tool/afkit"
    cp -r "$root/bazel" "$dir/rules"
    sed -e "s#\.\./\.\./bazel#$dir/rules#" -e "s#\.\./\.\./\.build/release#$dir/tool#" -e "s#\.\./\.\./Assets#$dir/assets#" \
        "$root/Examples/bazel-assets/WORKSPACE" > "$dir/example/WORKSPACE"
}
checkout "$work/studio-a"
checkout "$work/laptop-b"
build() {
    (cd "$1/example" && bazel --batch --output_user_root="$1/output" build --remote_cache="$cache" //:sfx 2>&1 \
        | grep -E "processes|ERROR" || true)
}
count() { echo "$1" | grep -oE "[0-9]+ $2" | grep -oE "^[0-9]+" || echo 0; }
sounds=$(ls "$work/studio-a/assets" | grep -cE '\.(wav|aif|aiff|aifc|caf|mp3)$')

first=$(build "$work/studio-a")
echo "first checkout: $first"
[ "$(count "$first" "linux-sandbox")$(count "$first" "local")" != "00" ] || { echo "no conversion ran"; exit 1; }
puts=$(grep -c '"PUT /cas/' "$work/nginx/access.log" || true)
[ "$puts" -ge "$sounds" ] || { echo "the cache received $puts entries, expected at least $sounds"; exit 1; }

second=$(build "$work/laptop-b")
echo "second checkout, another folder and output base: $second"
[ "$(count "$second" "remote cache hit")" = "$sounds" ] || { echo "expected $sounds remote cache hits"; exit 1; }
for output in "$work/studio-a/example/bazel-bin/sfx"/*.caf; do
    cmp "$output" "$work/laptop-b/example/bazel-bin/sfx/$(basename "$output")" \
        || { echo "$(basename "$output"): the two checkouts' outputs differ"; exit 1; }
done
echo "outputs: byte for byte the same in both checkouts"

"$work/laptop-b/tool/afkit" convert -d LEI16@16000 "$root/Assets/click.wav" "$work/laptop-b/assets/click.wav" 2>/dev/null
third=$(build "$work/laptop-b")
echo "one source changed: $third"
[ "$(count "$third" "linux-sandbox")" = "1" ] || [ "$(count "$third" "local")" = "1" ] || { echo "expected one action"; exit 1; }
echo "Bazel remote cache proven"
