#!/usr/bin/env python3
"""Times afkit against a package whose segments lie on a dead host, all on 127.0.0.1.

A playlist server (here, Python's) lists SEGMENTS (10) six-second segments, each an absolute URL on a second
port that is, by case: `refused` (bound, never listened on: every connection refused), `silent` (listening,
never answering: the kernel completes each connection and nothing more arrives) or `500` (every request
answered 500). Each case runs `validate --profile hls-audio URL` and `packets URL` and prints the wall time,
the exit status and the last lines of output. Not a timed test: run it by hand (the times are waits, so a
debug build measures the same as a release one).

Usage: Benchmarks/dead-segment-hosts.py [AFKIT] [CASES] [COMMANDS]
       (defaults: .build/release/afkit, refused,silent,500, validate,packets)
"""
import http.server
import os
import socket
import subprocess
import sys
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
afkit = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/afkit")
cases = (sys.argv[2] if len(sys.argv) > 2 else "refused,silent,500").split(",")
commands = (sys.argv[3] if len(sys.argv) > 3 else "validate,packets").split(",")
SEGMENTS = 10


def dead_host(kind):
    """A socket on a loopback port that behaves as `kind` (kept open until the case ends), and its port."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    if kind in ("silent", "500"):
        listener.listen(128)
    if kind == "500":
        def answer(connection):
            with connection:
                connection.recv(65536)
                connection.sendall(
                    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        def accept():
            while True:
                connection, _ = listener.accept()
                threading.Thread(target=answer, args=(connection,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
    return listener, listener.getsockname()[1]


def playlist_server(text):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


for case in cases:
    for command in commands:
        host, port = dead_host(case)
        text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "".join(f"#EXTINF:6.0,\nhttp://127.0.0.1:{port}/seg{index}.aac\n" for index in range(SEGMENTS))
        server = playlist_server(text + "#EXT-X-ENDLIST\n")
        url = f"http://127.0.0.1:{server.server_address[1]}/prog.m3u8"
        arguments = [afkit, "validate", "--profile", "hls-audio", url] if command == "validate" else [
            afkit, command, url]
        start = time.monotonic()
        try:
            done = subprocess.run(arguments, capture_output=True, text=True, timeout=1800)
            output, status = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired:
            output, status = "timed out after 1800 s", None
        took = time.monotonic() - start
        last = [line for line in output.splitlines() if line.strip()][-2:]
        print(f"{case:8} {command:9} {took:7.2f} s  exit {status}  | " + " / ".join(last)[:300], flush=True)
        server.shutdown()
        host.close()
