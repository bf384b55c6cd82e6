#!/usr/bin/env python3
"""`make bench-streams`: N live 128 kbit/s streams read in one afkit process, against one FFmpeg per stream.

A loopback server (Tests/LoopbackServers/icy-stream-server.py, one thread) plays N endless-looking ICY streams
at their real rate, cut from a 128 kbit/s MP3 (or ADTS AAC) made here by FFmpeg, and ends each after SECONDS
at a frame boundary, reporting the frames it sent. `afkit-stream-benchmark` opens all N in one process and
reads each to its end. Checked: every stream delivered exactly the frames the server sent, and none fell behind
(the server never found a socket full for more than a second; it also reports how late it was itself, short of
CPU, and how long after its last frame's time each stream ended). Measured (getrusage of the process, by wait4; resident memory from /proc): CPU seconds per
stream-hour, resident memory per stream (beyond the process before it opened any, and beyond the process
holding one stream: libcurl and its libraries loaded, the loop and the task pool started), threads. Then the same
streams for FFMPEG_COUNT as one `ffmpeg -i URL -c copy -f null -` process each, measured the same way.

With --kind hls, each "stream" is a live HLS playlist of the same server (`/hls/N/live.m3u8`): packed-audio
segments of the ADTS stream's frames, one published every --hls-target seconds in a sliding window of three,
the playlist ended after SECONDS of them; `afkit-stream-benchmark` follows every playlist to its end in one
process (HLSStreamSession). Checked: each session read every segment its playlist published, in order (no
discontinuity), with exactly the frames the server published. Measured as above: CPU seconds per
session-hour, resident memory per session; FFmpeg's HLS demuxer (one `ffmpeg -i URL -c copy -f null -` a
playlist) for the ratio.

Usage: Benchmarks/Streams/bench-streams.py [--counts 100,500,1000] [--seconds 60] [--ffmpeg-count 50]
       [--kind mp3|aac|hls] [--hls-target 2] [--benchmark PATH]
Everything runs on 127.0.0.1; every process started is stopped by its PID.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.path.join(ROOT, "Tests", "LoopbackServers", "icy-stream-server.py")
BURST = 1.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"the stream server does not listen on {port}")


def make_sources(folder):
    """A 128 kbit/s CBR MP3 and ADTS AAC, 30 s of two tones, by FFmpeg."""
    tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=30", "-f", "lavfi", "-i",
            "sine=frequency=660:duration=30", "-filter_complex", "[0][1]amerge=inputs=2", "-ar", "44100"]
    mp3, aac = os.path.join(folder, "tone.mp3"), os.path.join(folder, "tone.aac")
    run = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    subprocess.run(run + tone + ["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", "-id3v2_version", "0",
                                 mp3], check=True)
    subprocess.run(run + tone + ["-c:a", "aac", "-b:a", "128k", "-f", "adts", aac], check=True)
    return {"mp3": mp3, "aac": aac}


def frame_seconds(kind):
    return 1152 / 44100 if kind == "mp3" else 1024 / 44100


class Server:
    def __init__(self, sources, frames, folder, hls_target=2, hls_segments=0):
        self.port = free_port()
        self.report = os.path.join(folder, f"report-{self.port}.jsonl")
        self.process = subprocess.Popen(
            [sys.executable, SERVER, "--port", str(self.port), "--mp3", sources["mp3"], "--adts", sources["aac"],
             "--pace", "--burst", str(BURST), "--frames", str(frames), "--report", self.report,
             "--hls-target", str(hls_target), "--hls-segments", str(hls_segments)],
            stdout=subprocess.DEVNULL)
        wait_listening(self.port)
        self.hls = []

    def url(self, kind):
        if kind == "hls":
            return f"http://127.0.0.1:{self.port}/hls/%d/live.m3u8"
        return f"http://127.0.0.1:{self.port}/{kind}/"

    def stop(self):
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        connections = {}
        if os.path.exists(self.report):
            for line in open(self.report):
                entry = json.loads(line)
                if "hls" in entry:
                    self.hls.append(entry)
                else:
                    connections[entry["path"]] = entry
        return connections


def run_measured(command):
    """Runs `command`; its output, and its CPU seconds and peak resident KiB from wait4."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    # (communicate would reap it: the pipe is read, then wait4 gives the rusage.)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return out, process.returncode, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def afkit_process(benchmark, server, url, count):
    """`afkit-stream-benchmark` over `count` streams of `server` (stopped after it, its report read): the
    program's JSON and the measures every afkit row has."""
    load = os.getloadavg()[0]
    try:
        out, code, cpu, peak = run_measured([benchmark, url, str(count)])
    finally:
        sent = server.stop()
    if code != 0:
        raise SystemExit(f"afkit-stream-benchmark failed ({code})")
    result = json.loads(out)
    return result, sent, {
        "cpuSeconds": round(cpu, 2), "rssBeforeKiB": result["rssBeforeKiB"], "rssOpenKiB": result["rssOpenKiB"],
        "rssPeakKiB": peak, "rssPerStreamKiB": round((result["rssOpenKiB"] - result["rssBeforeKiB"]) / count, 1),
        "threadsOpen": result["threadsOpen"], "load": round(load, 2), "loadAfter": round(os.getloadavg()[0], 2),
    }


def ffmpeg_processes(server, urls):
    """One `ffmpeg -i URL -c copy -f null -` a URL, all at once, then `server` stopped: their CPU seconds in all,
    the median process's peak resident KiB and the load before."""
    load = os.getloadavg()[0]
    processes = []
    try:
        for url in urls:
            processes.append(subprocess.Popen(
                ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-i", url, "-c", "copy", "-f", "null",
                 "-"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        cpu, peaks = 0.0, []
        for process in processes:
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = 0
            cpu += usage.ru_utime + usage.ru_stime
            peaks.append(usage.ru_maxrss)
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
        sent = server.stop()
    return sent, {"cpuSeconds": round(cpu, 2), "rssPerProcessKiB": sorted(peaks)[len(peaks) // 2],
                  "load": round(load, 2), "loadAfter": round(os.getloadavg()[0], 2)}


def per_hour(row, stream_hours):
    row["cpuSecondsPerStreamHour"] = round(row["cpuSeconds"] / stream_hours, 2)
    return row


def afkit_run(benchmark, sources, kind, count, seconds, folder):
    frames = int(seconds / frame_seconds(kind))
    server = Server(sources, frames, folder)
    result, sent, measures = afkit_process(benchmark, server, server.url(kind), count)
    expected_end = frames * frame_seconds(kind) - BURST
    missing, behind, errors, late_ends = 0, 0, [], []
    for stream in result["streams"]:
        path = f"/{kind}/{stream['index']}"
        connection = sent.get(path)
        if connection is None or connection["frames"] != stream["packets"]:
            missing += 1
        if stream["ended"] != "end":
            errors.append(stream["ended"])
        # Behind: the server found the socket full for over a second (the client not reading).
        if connection and connection["blocked"] > 1.0:
            behind += 1
        late_ends.append(stream["seconds"] - expected_end)
    return per_hour({
        "kind": kind, "count": count, "seconds": round(expected_end, 1), "framesEach": frames,
        "packets": sum(s["packets"] for s in result["streams"]),
        "framesSent": sum(c["frames"] for c in sent.values()),
        "streamsShort": missing, "streamsBehind": behind,
        "mostBlocked": max((c["blocked"] for c in sent.values()), default=0),
        "serverMostLate": max((c["lag"] for c in sent.values()), default=0),
        "latestEnd": round(max(late_ends, default=0), 2), "errors": errors[:3], "errorCount": len(errors),
        "coreShare": round(measures["cpuSeconds"] / expected_end, 3), **measures,
    }, count * expected_end / 3600)


def ffmpeg_run(sources, kind, count, seconds, folder):
    frames = int(seconds / frame_seconds(kind))
    server = Server(sources, frames, folder)
    sent, measures = ffmpeg_processes(server, [server.url(kind) + str(index) for index in range(count)])
    expected_end = frames * frame_seconds(kind) - BURST
    return per_hour({
        "kind": kind, "count": count, "seconds": round(expected_end, 1),
        "framesSent": sum(c["frames"] for c in sent.values()),
        "streamsBehind": sum(1 for c in sent.values() if c["blocked"] > 1.0),
        "mostBlocked": max((c["blocked"] for c in sent.values()), default=0),
        "serverMostLate": max((c["lag"] for c in sent.values()), default=0), **measures,
    }, count * expected_end / 3600)


def hls_afkit_run(benchmark, sources, count, seconds, target, folder):
    """`count` live playlists of `seconds` / `target` segments each, followed in one afkit process."""
    segments = max(1, int(seconds / target))
    server = Server(sources, 0, folder, hls_target=target, hls_segments=segments)
    result, _, measures = afkit_process(benchmark, server, server.url("hls"), count)
    published = {e["hls"]: e for e in server.hls if "published" in e}
    served = {}
    for entry in server.hls:
        if "sequence" in entry:
            served.setdefault(entry["hls"], []).append(entry["sequence"])
    short, errors, refetched = 0, [], 0
    for stream in result["streams"]:
        name = str(stream["index"])
        sent = published.get(name)
        if (sent is None or sent["published"] != stream["segments"] or sent["frames"] != stream["packets"]
                or stream["gaps"]):
            short += 1
        if stream["ended"] != "end":
            errors.append(stream["ended"])
        refetched += len(served.get(name, [])) - len(set(served.get(name, [])))
    # A session publishes a segment every target duration from its first request.
    session_seconds = segments * target
    return per_hour({
        "kind": "hls", "count": count, "seconds": session_seconds, "segmentsEach": segments,
        "segments": sum(s["segments"] for s in result["streams"]),
        "segmentsPublished": sum(e["published"] for e in published.values()),
        "packets": sum(s["packets"] for s in result["streams"]),
        "framesSent": sum(e["frames"] for e in published.values()),
        "sessionsShort": short, "segmentsFetchedTwice": refetched, "gaps": sum(s["gaps"] for s in result["streams"]),
        "latestEnd": round(max((s["seconds"] for s in result["streams"]), default=0) - session_seconds, 2),
        "errors": errors[:3], "errorCount": len(errors),
        "coreShare": round(measures["cpuSeconds"] / session_seconds, 3), **measures,
    }, count * session_seconds / 3600)


def hls_ffmpeg_run(sources, count, seconds, target, folder):
    """The same playlists, one `ffmpeg -i URL -c copy -f null -` process each (FFmpeg's HLS demuxer)."""
    segments = max(1, int(seconds / target))
    server = Server(sources, 0, folder, hls_target=target, hls_segments=segments)
    _, measures = ffmpeg_processes(server, [server.url("hls").replace("%d", str(index)) for index in range(count)])
    served = {(e["hls"], e["sequence"]) for e in server.hls if "sequence" in e}
    session_seconds = segments * target
    return per_hour({
        "kind": "hls", "count": count, "seconds": session_seconds,
        "framesSent": sum(e["frames"] for e in server.hls if "published" in e),
        "segmentsFetched": len(served), "segmentsPublished": count * segments, **measures,
    }, count * session_seconds / 3600)


def print_table(results, hls):
    if hls:
        print("\n| reader | sessions | s | segments read / published | packets delivered / frames published "
              "| sessions short | CPU s | CPU s per session-hour | share of a core | resident KiB (open) "
              "| KiB per session beyond 1 | threads | load |")
    else:
        print("\n| reader | streams | s | packets delivered / frames sent | behind (socket full > 1 s; longest) "
              "| server late (s) | CPU s | CPU s per stream-hour | share of a core | resident KiB (open) "
              "| KiB per stream beyond 1 stream | threads | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        delivered = f"{r['packets']} / {r['framesSent']}" if "packets" in r else f"- / {r['framesSent']}"
        resident = r.get("rssOpenKiB", f"{r.get('rssPerProcessKiB')} a process")
        if hls:
            middle = (f"{r.get('segments', r.get('segmentsFetched'))} / {r['segmentsPublished']} | {delivered} "
                      f"| {r.get('sessionsShort', '-')}")
        else:
            middle = f"{delivered} | {r['streamsBehind']}; {r['mostBlocked']} s | {r['serverMostLate']}"
        print(f"| {r['reader']} | {r['count']} | {r['seconds']} | {middle} | {r['cpuSeconds']} "
              f"| {r['cpuSecondsPerStreamHour']} | {r.get('coreShare', '-')} | {resident} "
              f"| {r.get('rssPerStreamBeyondBaseKiB', '-')} | {r.get('threadsOpen', '-')} | {r['load']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", default="100,500,1000")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--ffmpeg-count", type=int, default=50)
    parser.add_argument("--kind", default="mp3", choices=["mp3", "aac", "hls"])
    parser.add_argument("--hls-target", type=int, default=2)
    parser.add_argument("--benchmark", default=os.path.join(ROOT, ".build", "release", "afkit-stream-benchmark"))
    parser.add_argument("--json", default=os.path.join(ROOT, "build", "bench-streams.json"))
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="afkit-bench-streams-")
    results = []

    def record(reader, row):
        results.append({"reader": reader, **row})
        print(json.dumps(results[-1]), flush=True)

    try:
        sources = make_sources(folder)
        if args.kind == "hls":
            def afkit(count):
                return hls_afkit_run(args.benchmark, sources, count, args.seconds, args.hls_target, folder)

            def ffmpeg(count):
                return hls_ffmpeg_run(sources, count, args.seconds, args.hls_target, folder)
        else:
            def afkit(count):
                return afkit_run(args.benchmark, sources, args.kind, count, args.seconds, folder)

            def ffmpeg(count):
                return ffmpeg_run(sources, args.kind, count, args.seconds, folder)
        counts = [int(c) for c in args.counts.split(",") if c]
        # One stream first: the fixed base (libcurl and its libraries loaded, the loop and the task pool started)
        # that the memory per stream is counted beyond.
        base = afkit(1)
        record("afkit", base)
        def beyond_base(row):
            if row["count"] > 1:
                row["rssPerStreamBeyondBaseKiB"] = round(
                    (row["rssOpenKiB"] - base["rssOpenKiB"]) / (row["count"] - 1), 1)
            return row

        for count in counts:
            record("afkit", beyond_base(afkit(count)))
        if args.ffmpeg_count:
            if args.ffmpeg_count not in counts:
                record("afkit", beyond_base(afkit(args.ffmpeg_count)))
            record("ffmpeg", ffmpeg(args.ffmpeg_count))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_table(results, args.kind == "hls")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as out:
        json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
