#!/usr/bin/env bash
# make test's runs, in groups side by side (the two cores): each argument is a shell command run as one group,
# its output shown as it comes, each line prefixed with the group's number, and kept in $TEST_LOGS/N.log
# (default build/test-logs). A failed group's whole log is shown again when it ends; the script fails if any
# group failed. An interrupt stops every group.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${TEST_LOGS:-build/test-logs}
rm -rf "$logs" && mkdir -p "$logs"
pids=()
index=0
for command in "$@"; do
    index=$((index + 1))
    # A session of its own, so an interrupt stops the whole group (below).
    setsid bash -c "$command" > >(tee "$logs/$index.log" | sed -u "s/^/[$index] /") 2>&1 &
    pids+=("$!")
    echo "group $index started: $command"
done
stop() {
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
    wait
    exit 130
}
trap stop INT TERM
failed=0
declare -A numbers
for index in "${!pids[@]}"; do numbers[${pids[$index]}]=$((index + 1)); done
commands=("$@")
running=("${pids[@]}")
while [ "${#running[@]}" -gt 0 ]; do
    # The next group to end, whichever it is.
    wait -n -p ended "${running[@]}"
    status=$?
    number=${numbers[$ended]}
    left=()
    for pid in "${running[@]}"; do [ "$pid" = "$ended" ] || left+=("$pid"); done
    running=("${left[@]}")
    if [ "$status" -eq 0 ]; then
        echo "== group $number passed: ${commands[$((number - 1))]}"
    else
        failed=1
        echo "== group $number FAILED ($status): ${commands[$((number - 1))]}"
        cat "$logs/$number.log"
    fi
done
# The prefixing pipes end after their groups: let them finish printing.
wait
exit "$failed"
