#!/usr/bin/env bash
# Proves afkit's Bazel rules executed by a Remote Execution API engine, as a studio's build farm runs them:
# BuildGrid (from PyPI, pinned: buildgrid-requirements.txt) with its scheduler in a private PostgreSQL cluster
# and a disk CAS, all on loopback ports, and one worker (remote-worker.py, a stand-in for buildbox). The
# example workspace's conversions run on the worker, afkit's binary reaching it as an action input through the
# CAS; the outputs are byte for byte a local build's; after `bazel clean` every conversion is a remote cache
# hit; one changed source is one remote action; the validation test runs remotely. Everything started is
# stopped by its PID whatever happens, and the script checks that nothing listens on its ports afterwards.
# Usage: Examples/bazel-assets/prove-remote-exec.sh [AFKIT_BINARY]   (default: .build/debug/afkit)
# For measuring: AFKIT_REXEC_WORKERS (default 1) workers, AFKIT_REXEC_COPIES (default 1) copies of each sound.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "${1:-$root/.build/debug/afkit}" ] || {
    echo "prove-remote-exec: no afkit binary at ${1:-$root/.build/debug/afkit} (swift build --product afkit)"
    exit 1
}
[ "$(id -u)" = 0 ] || { echo "prove-remote-exec: runs as root (it starts PostgreSQL as the postgres user)"; exit 1; }
afkit=$(cd "$(dirname "${1:-$root/.build/debug/afkit}")" && pwd)/$(basename "${1:-afkit}")
here="$root/Examples/bazel-assets"
venv="$root/.build-buildgrid/venv"
postgres_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$postgres_bin/postgres" ] || { echo "prove-remote-exec: PostgreSQL is not installed (Debian's postgresql)"; exit 1; }

started=$(date +%s)
# BuildGrid in a virtual environment of its own, under the build folder, installed once.
if ! "$venv/bin/python" -c 'import buildgrid' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$here/buildgrid-requirements.txt"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-bazel-rexec-XXXXXX")
chmod 755 "$work"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pg_port=$(free_port)
grid_port=$(free_port)
pids=()
# Each stop on its own: one that fails does not keep the others from running.
cleanup() {
    set +e
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    [ -f "$work/pg/postmaster.pid" ] && runuser -u postgres -- "$postgres_bin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    chmod -R u+w "$work" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# PostgreSQL: a private cluster, the postgres user's, on a loopback port; trust on loopback only.
mkdir -p "$work/pg" "$work/pgsocket"
chown postgres "$work/pg" "$work/pgsocket"
runuser -u postgres -- "$postgres_bin/initdb" -D "$work/pg" -U bgd -A trust --no-sync >/dev/null
runuser -u postgres -- "$postgres_bin/pg_ctl" -D "$work/pg" -w -l "$work/pg/server.log" \
    -o "-p $pg_port -k $work/pgsocket -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
runuser -u postgres -- "$postgres_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U bgd bgd
# psycopg2 by name: SQLAlchemy 2.1 takes psycopg 3 for `postgresql://`, and BuildGrid's notifier then stalls.
database="postgresql+psycopg2://bgd@127.0.0.1:$pg_port/bgd"
"$venv/bin/bgd" migrate apply "$database" >/dev/null 2>"$work/migrate.log" || { cat "$work/migrate.log"; exit 1; }

# BuildGrid: CAS on disk, action cache in memory, the SQL scheduler; gRPC's port reuse off, so a second
# server on the same port fails instead of sharing it.
sed -e "s#@PORT@#$grid_port#" -e "s#@DATABASE@#$database#" -e "s#@CAS@#$work/cas#" \
    "$here/buildgrid.yml" > "$work/buildgrid.yml"
mkdir -p "$work/cas"
"$venv/bin/bgd" server start "$work/buildgrid.yml" >"$work/buildgrid.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $grid_port), 1)" 2>/dev/null && break
    kill -0 "${pids[0]}" 2>/dev/null || { tail -20 "$work/buildgrid.log"; exit 1; }
    sleep 0.1
done
workers=${AFKIT_REXEC_WORKERS:-1}
for index in $(seq "$workers"); do
    mkdir -p "$work/worker-$index"
    "$venv/bin/python" "$here/remote-worker.py" --server "grpc://127.0.0.1:$grid_port" --instance afkit \
        --workdir "$work/worker-$index" --property OSFamily=linux --name "afkit-worker-$index" \
        >>"$work/worker.log" 2>&1 &
    pids+=($!)
done
echo "BuildGrid and PostgreSQL ready in $(($(date +%s) - started)) s (ports $grid_port, $pg_port)"

# The example workspace, as prove.sh makes it, and a local build to compare with.
mkdir -p "$work/example" "$work/assets" "$work/tool" "$work/coverage"
printf 'exports_files(["coverage_report_generator"])\n' > "$work/coverage/BUILD"
printf '#!/bin/sh\nexit 0\n' > "$work/coverage/coverage_report_generator"
chmod +x "$work/coverage/coverage_report_generator"
touch "$work/coverage/WORKSPACE"
cp "$here/BUILD.bazel" "$work/example/"
cp "$root"/Assets/* "$work/assets/"
for copy in $(seq 2 "${AFKIT_REXEC_COPIES:-1}"); do
    for source in "$root"/Assets/*.wav "$root"/Assets/*.aif "$root"/Assets/*.aiff "$root"/Assets/*.caf; do
        if [ -f "$source" ]; then cp "$source" "$work/assets/copy$copy-$(basename "$source")"; fi
    done
done
cp "$afkit" "$work/tool/afkit"
cp -r "$root/bazel" "$work/rules"
sed -e "s#\.\./\.\./bazel#$work/rules#" -e "s#\.\./\.\./\.build/release#$work/tool#" -e "s#\.\./\.\./Assets#$work/assets#" \
    "$here/WORKSPACE" > "$work/example/WORKSPACE"
cd "$work/example"
remote=(--remote_executor="grpc://127.0.0.1:$grid_port" --remote_instance_name=afkit
    --remote_default_exec_properties=OSFamily=linux --remote_timeout=120 --jobs=8)
# Each Bazel run bounded: a farm that stops answering fails the proof instead of holding it.
bazel_run() { timeout 300 bazel --batch --output_user_root="$work/output" "$@" 2>&1; }
summary() { grep -E "processes|ERROR" || true; }
# A kind of process in Bazel's summary ("5 remote", "5 remote cache hit"): "remote" alone is not a cache hit.
count() { echo "$1" | grep -oE "[0-9]+ $2([,.]|$)" | grep -oE "^[0-9]+" || echo 0; }
sounds=$(ls "$work/assets" | grep -cE '\.(wav|aif|aiff|aifc|caf|mp3)$')

bazel_run build //:sfx | summary >/dev/null
mkdir -p "$work/local"
cp bazel-bin/sfx/*.caf "$work/local/"
bazel_run clean >/dev/null

timed() {
    local from
    from=$(date +%s%N)
    "$@"
    echo "$((($(date +%s%N) - from) / 1000000)) ms" > "$work/elapsed"
}
timed bazel_run build "${remote[@]}" //:sfx > "$work/first.log"
first=$(summary < "$work/first.log")
echo "first remote build ($(cat "$work/elapsed")): $first"
[ "$(count "$first" "remote")" = "$sounds" ] || { echo "expected $sounds remote actions"; cat "$work/worker.log"; exit 1; }
for output in "$work/local"/*.caf; do
    cmp "$output" "bazel-bin/sfx/$(basename "$output")" || { echo "$(basename "$output"): remote differs from local"; exit 1; }
done
echo "outputs: byte for byte the local build's"
leases=$(grep -c "done, exit 0" "$work/worker.log" || true)
[ "$leases" -ge "$sounds" ] || { echo "the worker reports $leases actions"; exit 1; }

bazel_run clean >/dev/null
second=$(bazel_run build "${remote[@]}" //:sfx | summary)
echo "after clean: $second"
[ "$(count "$second" "remote cache hit")" = "$sounds" ] || { echo "expected $sounds remote cache hits"; exit 1; }

"$work/tool/afkit" convert -d LEI16@16000 "$root/Assets/click.wav" "$work/assets/click.wav" 2>/dev/null
third=$(bazel_run build "${remote[@]}" //:sfx | summary)
echo "one source changed: $third"
[ "$(count "$third" "remote")" = "1" ] || { echo "expected one remote action"; exit 1; }

tested=$(bazel_run test "${remote[@]}" --override_repository=remote_coverage_tools="$work/coverage" //:sfx_test)
echo "validation test: $(echo "$tested" | grep -E "PASSED|FAILED|processes" | tr '\n' ' ')"
echo "$tested" | grep -q PASSED || { echo "the validation test did not pass"; echo "$tested" | tail -20; exit 1; }
[ "$(count "$tested" "remote")" -ge 1 ] || { echo "the test did not run remotely"; exit 1; }

# Everything stopped: nothing listens on the ports afterwards.
cd "$root"
trap - EXIT
cleanup
for port in "$pg_port" "$grid_port"; do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
        echo "port $port still answers after the stop"
        exit 1
    fi
done
echo "stopped: nothing listens on $grid_port or $pg_port"
[ -c /dev/null ] || { echo "/dev/null is no longer a device after the proof"; exit 1; }
echo "Bazel remote execution proven in $(($(date +%s) - started)) s"
