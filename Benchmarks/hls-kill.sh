#!/usr/bin/env bash
# `afkit hls` killed (SIGKILL) at ROUNDS moments spread over a run, each time with an earlier package in --out
# (issue 65): after each kill --out must hold the old package or the new one whole (every file byte for byte
# as a complete run of those options writes it, nothing more, and `validate --profile hls-audio` passes it);
# then a complete run, after which no temporary may be left beside --out. The two packages alternate (A: 6 s
# segments at 64k and 128k; B: 4 s segments at 96k and 160k) so old and new are told apart. The source is a
# 60 s stereo tone made here, so a run takes a few seconds. Not a timed test: run it by hand on a release
# build (AFKIT=path/to/afkit to choose one; FROM=0.9 spreads the kills over the last tenth of a run and a
# little past it, where the package is swapped, instead of the whole run). Usage: Benchmarks/hls-kill.sh [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
afkit=${AFKIT:-$root/.build/release/afkit}
rounds=${1:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-hls-kill-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work/source.wav" <<'PY'
import math, struct, sys, wave
rate, seconds = 44100, 60
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(2), out.setsampwidth(2), out.setframerate(rate)
    out.writeframes(b"".join(
        struct.pack("<hh", int(8000 * math.sin(2 * math.pi * 440 * i / rate)),
                    int(8000 * math.sin(2 * math.pi * 660 * i / rate))) for i in range(rate * seconds)))
PY
options_A=(--segment-duration 6 --bitrates 64k,128k)
options_B=(--segment-duration 4 --bitrates 96k,160k)
run() { "$afkit" hls --quiet "$work/source.wav" --out "$1" "${@:2}"; }
listing() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
temporaries() { find "$work" -maxdepth 1 -name '.out.afkit-*' | wc -l; }

# The reference packages, and how long a complete run takes (milliseconds).
run "$work/ref-A" "${options_A[@]}"
start=$(date +%s%N)
run "$work/ref-B" "${options_B[@]}"
took=$((($(date +%s%N) - start) / 1000000))
listing "$work/ref-A" >"$work/A.list"
listing "$work/ref-B" >"$work/B.list"
echo "a complete run: $took ms; packages of $(wc -l <"$work/A.list") and $(wc -l <"$work/B.list") files"

out=$work/out
run "$out" "${options_A[@]}"
current=A
old=0 new=0 left_by_kills=0 failures=0
for round in $(seq 1 "$rounds"); do
    next=$([ "$current" = A ] && echo B || echo A)
    options="options_$next[@]"
    # The moment: evenly spread from FROM (0: the start) of a run's time to a tenth past its end.
    delay=$(awk -v t="$took" -v i="$round" -v n="$rounds" -v from="${FROM:-0}" \
        'BEGIN { printf "%.3f", t * (from + (1.1 - from) * (i - 0.5) / n) / 1000 }')
    "$afkit" hls --quiet "$work/source.wav" --out "$out" "${!options}" &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null && status=0 || status=$?
    listing "$out" >"$work/now.list" 2>/dev/null || : >"$work/now.list"
    if cmp -s "$work/now.list" "$work/$current.list"; then
        found="old"; old=$((old + 1))
    elif cmp -s "$work/now.list" "$work/$next.list"; then
        found="new"; new=$((new + 1)); current=$next
    else
        found="NEITHER WHOLE"; failures=$((failures + 1))
    fi
    "$afkit" validate --profile hls-audio "$out/master.m3u8" >/dev/null || { found="$found, INVALID"; failures=$((failures + 1)); }
    left=$(temporaries)
    left_by_kills=$((left_by_kills + left))
    # The next complete run (the other package again) clears what the kill left.
    next=$([ "$current" = A ] && echo B || echo A)
    options="options_$next[@]"
    run "$out" "${!options}"
    current=$next
    after=$(temporaries)
    listing "$out" | cmp -s - "$work/$current.list" || { after="$after, NOT WHOLE"; failures=$((failures + 1)); }
    [ "${after%%,*}" = 0 ] || failures=$((failures + 1))
    printf 'round %2d: killed after %s s (status %s): --out held the %s package; %s temporaries left; after the next run: %s\n' \
        "$round" "$delay" "$status" "$found" "$left" "$after"
done
echo "$rounds kills: $old left the old package, $new the new one; $left_by_kills temporaries left by kills, all cleared by the next run; $failures failures"
[ "$failures" = 0 ]
