#!/usr/bin/env bash
# Runs the fuzz targets. Usage: Fuzz/run.sh SECONDS TARGET...
#   Each target fuzzes for SECONDS from its committed corpus (Fuzz/corpus/TARGET) plus the test
#   fixtures, after replaying every committed regression input; new coverage is merged back into
#   the committed corpus, minimized. Inputs that break an invariant land in .build-fuzz/crashes/.
#   AFKIT_FUZZ_JOBS targets run at once (default 1); AFKIT_FUZZ_KEEP_CORPUS=1 leaves Fuzz/corpus as
#   it is (CI's smoke run). Exit status 1 if any target found a problem.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1; shift
binary=.build-fuzz/afkit-fuzz
# LeakSanitizer cannot follow Swift's tagged pointers from lazily set globals (`Profile.systemSound`)
# and reports them as leaks at exit; ASan's memory errors stay on.
export ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no
mkdir -p .build-fuzz/crashes .build-fuzz/logs

seeds() {  # the fixtures a target starts from, besides its committed corpus
    case $1 in
    stream | file | validator)
        find Tests/Fixtures/{wav,aiff,caf,mp3,adts,mp4,markers,aifc-codecs,quicktime,refused,other,flac,chunked,ogg,framed,pictures,loops,tags} -type f -size -64k ! -name '*.json' ! -name '*.md' ! -name '*.py' ! -name '*.md5' ! -name '*.packets' ! -name '*.frames' ! -name '*.s16' ! -name '*.pictures' ! -name '*.chapters' ;;
    hls) find Tests/Fixtures/hls -type f ;;
    *) ;;
    esac
}

fuzz_one() {
    local target=$1 work=.build-fuzz/corpus/$1 log=.build-fuzz/logs/$1.log
    rm -rf "$work" && mkdir -p "$work" "Fuzz/corpus/$target"
    cp Fuzz/corpus/"$target"/* "$work"/ 2>/dev/null
    # Headers are what the parsers judge; 4 KB of each fixture holds them and a few packets.
    for seed in $(seeds "$target"); do head -c 4096 "$seed" >"$work/seed-$(echo "$seed" | tr / _)"; done
    local options=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1
        -artifact_prefix=.build-fuzz/crashes/"$target"-)
    local regressions=Tests/Fixtures/fuzz-regressions/$target
    if [ -d "$regressions" ] && ! AFKIT_FUZZ_TARGET=$target $binary "${options[@]}" -runs=0 "$regressions"/* >"$log" 2>&1; then
        echo "$target: a committed regression input breaks an invariant again (see $log)"; return 1
    fi
    AFKIT_FUZZ_TARGET=$target $binary "${options[@]}" -max_total_time="$seconds" "$work" >"$log" 2>&1
    local status=$?
    local runs rate
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
    if [ $status -ne 0 ]; then
        echo "$target: FOUND A PROBLEM after ${runs:-?} executions:"; grep -E 'invariant violated|ERROR|SUMMARY' "$log" | head -5
        ls -t .build-fuzz/crashes/"$target"-* 2>/dev/null | head -1
        return 1
    fi
    if [ -n "${AFKIT_FUZZ_KEEP_CORPUS:-}" ]; then
        echo "$target: ${seconds}s, ${runs} executions, ${rate} per second, no problem"; return 0
    fi
    # Keep the smallest set of inputs that covers what the run reached.
    local minimized=.build-fuzz/minimized/$target
    rm -rf "$minimized" && mkdir -p "$minimized"
    AFKIT_FUZZ_TARGET=$target $binary -merge=1 -max_len=4096 -detect_leaks=0 "$minimized" "$work" >>"$log" 2>&1
    rm -f Fuzz/corpus/"$target"/* && cp "$minimized"/* Fuzz/corpus/"$target"/
    echo "$target: ${seconds}s, ${runs} executions, ${rate} per second, no problem; corpus $(ls Fuzz/corpus/"$target" | wc -l) inputs"
}
export -f fuzz_one seeds
export seconds binary
printf '%s\n' "$@" | xargs -P "${AFKIT_FUZZ_JOBS:-1}" -I{} bash -c 'fuzz_one {}'
