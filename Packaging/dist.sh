#!/usr/bin/env bash
# make dist: writes dist/afkit-VERSION-linux-ARCH.tar.gz with the binary, README.md, LICENSE (Apache-2.0),
# NOTICE (the engines' licenses), the shell completions (completions/: afkit.bash, _afkit for zsh, afkit.fish, as the
# binary writes them), the man pages where MAN_DIR holds them (man/man1/: `make man` writes them) and NEEDS: the Debian packages holding the shared libraries the binary links (ldd)
# and those it loads on use (libavcodec, libfaad2, libcurl), one name a line, so a worker image or a CI cache
# installs exactly those: `xargs apt-get install -y < NEEDS`.
# Usage: Packaging/dist.sh [BINARY [OUTPUT_DIR [MAN_DIR]]]   (default: .build/release/afkit, dist, no man pages)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/.build/release/afkit}
out=${2:-$root/dist}
man=${3:-}
version=$("$binary" --version)
name="afkit-$version-linux-$(uname -m)"
stage=$(mktemp -d "${TMPDIR:-/tmp}/afkit-dist-XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
cp "$binary" "$stage/$name/afkit"
# Without its debugging information: it travels to every worker (through a remote execution CAS, too).
strip --strip-debug "$stage/$name/afkit"
cp "$root/README.md" "$stage/$name/"
cp "$root/LICENSE" "$root/NOTICE" "$stage/$name/"
mkdir -p "$stage/$name/completions"
"$binary" --generate-completion-script bash > "$stage/$name/completions/afkit.bash"
"$binary" --generate-completion-script zsh > "$stage/$name/completions/_afkit"
"$binary" --generate-completion-script fish > "$stage/$name/completions/afkit.fish"
if [ -n "$man" ]; then
    ls "$man"/*.1 >/dev/null 2>&1 || { echo "dist: $man holds no man pages (make man writes them)" >&2; exit 1; }
    mkdir -p "$stage/$name/man/man1"
    cp "$man"/*.1 "$stage/$name/man/man1/"
fi

# The package that owns a library file (usr-merged systems record /lib or /usr/lib paths).
owner() {
    local path=$1
    for candidate in "$path" "$(realpath "$path")" "/usr$path" "${path#/usr}"; do
        # awk reads to the end (no early exit): under pipefail a writer cut off by SIGPIPE fails the script.
        local found
        found=$(dpkg -S "$candidate" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') || true
        [ -n "$found" ] && echo "$found" && return 0
    done
    return 1
}
libraries=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
# Loaded on use: the sonames afkit's shims open (libavcodec's major version is the one it was built with).
avcodec=$("$binary" --version --verbose | awk '$1 == "libavcodec" && $2 ~ /^[0-9]/ { split($2, v, "."); print "libavcodec.so." v[1] }')
for soname in $avcodec libfaad.so.2 libcurl.so.4; do
    path=$(ldconfig -p | awk -v s="$soname" '$1 == s && !found { print $NF; found = 1 }')
    [ -n "$path" ] && libraries="$libraries $path" || echo "dist: $soname is not installed here; NEEDS lacks it" >&2
done
: > "$stage/needs"
for library in $libraries; do
    if package=$(owner "$library"); then
        echo "$package" >> "$stage/needs"
    else
        echo "dist: $library belongs to no Debian package (not listed in NEEDS)" >&2
    fi
done
sort -u "$stage/needs" > "$stage/$name/NEEDS"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"
