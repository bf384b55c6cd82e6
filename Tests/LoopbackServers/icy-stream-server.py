#!/usr/bin/env python3
"""Live ICY streams and live HLS playlists on a loopback port, for the many-streams tests and `make bench-streams`.

Every connection gets a stream of its own cut from one MP3 (`/mp3/NAME`) or ADTS (`/aac/NAME`) file,
repeated: its frames in a loop (ID3 tags and a Xing/Info/VBRI frame left out), with ICY metadata every
`--metaint` audio bytes when the request asks for it (`Icy-MetaData: 1`), a new title every `--title-every`
frames. `--pace` sends them as fast as they play (a batch every `--batch` seconds, after a first burst of
`--burst` seconds), else as fast as the client reads. After `--frames` frames the server closes the connection
at a frame boundary (0: never). One thread, asyncio, 127.0.0.1 only.

Each connection that ends writes one JSON line to `--report`: its path, the frames and audio bytes it sent,
whether it was cut by the client or ended after `--frames`; `blocked`, the longest the server waited for the
client to read (the socket full: the client behind); and `lag`, the most seconds a paced stream fell behind its
schedule for either reason (the client, or the server itself short of CPU). The test and the benchmark compare
those counts with the packets the client received.

With `--adts`, `/hls/NAME/live.m3u8` is a live HLS media playlist of its own for every NAME: packed audio
segments of the ADTS file's frames in a loop (each segment `--hls-target` seconds of frames after an ID3 tag with
its time on the 90 kHz clock, so the times run on without a break), published from the playlist's first request
one every target duration, the last `--hls-window` of them listed (a sliding window), and after
`--hls-segments` segments the playlist ends (`EXT-X-ENDLIST`; 0: never). Connections are kept alive. Each
segment served writes a JSON line (`hls`: the session NAME, `sequence`, `frames`), and so does each playlist
that ends (`hls`, `published`: its segments, `frames`: theirs), for the test and the benchmark to compare with
the segments and packets the client read.
"""
import argparse
import asyncio
import json
import resource
import signal
import sys
import time

MPEG_BIT_RATES = {  # (version 1?, layer) -> kbit/s by index
    (True, 3): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    (False, 3): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
MPEG_SAMPLE_RATES = {3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000]}
ADTS_SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]


def mp3_frames(data):
    """The MPEG-1/2 Layer III frames of `data` (bytes) and the seconds each plays."""
    at = 0
    if data[:3] == b"ID3":
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        at = 10 + size + (10 if data[5] & 0x10 else 0)
    frames, seconds = [], 0.0
    while at + 4 <= len(data):
        h = int.from_bytes(data[at:at + 4], "big")
        if (h >> 21) & 0x7FF != 0x7FF or (h >> 17) & 3 != 1:
            raise SystemExit(f"mp3: no Layer III frame header at byte {at}")
        version = (h >> 19) & 3
        rate = MPEG_SAMPLE_RATES[version][(h >> 10) & 3]
        bit_rate = MPEG_BIT_RATES[(version == 3, 3)][(h >> 12) & 15] * 1000
        samples = 1152 if version == 3 else 576
        length = samples // 8 * bit_rate // rate + ((h >> 9) & 1)
        frame = data[at:at + length]
        if len(frame) < length:
            break
        if not any(tag in frame[:64] for tag in (b"Xing", b"Info", b"VBRI")):
            frames.append(frame)
            seconds = samples / rate
        at += length
    return frames, seconds


def adts_frames(data):
    """The ADTS frames of `data` and the seconds each plays."""
    at, frames, seconds = 0, [], 0.0
    while at + 7 <= len(data):
        if data[at] != 0xFF or data[at + 1] & 0xF6 != 0xF0:
            raise SystemExit(f"adts: no frame header at byte {at}")
        rate = ADTS_SAMPLE_RATES[(data[at + 2] >> 2) & 15]
        length = ((data[at + 3] & 3) << 11) | (data[at + 4] << 3) | (data[at + 5] >> 5)
        if length < 7 or at + length > len(data):
            break
        frames.append(data[at:at + length])
        seconds = 1024 * ((data[at + 6] & 3) + 1) / rate
        at += length
    return frames, seconds


class Stream:
    """One connection's stream: frames in a loop, ICY metadata interleaved."""

    def __init__(self, frames, metaint, title_every, name):
        self.frames, self.metaint, self.title_every, self.name = frames, metaint, title_every, name
        self.sent = 0  # frames
        self.audio_bytes = 0
        self.until_metadata = metaint

    def next_frame_bytes(self):
        frame = self.frames[self.sent % len(self.frames)]
        self.sent += 1
        if not self.metaint:
            self.audio_bytes += len(frame)
            return frame
        out = bytearray()
        while frame:
            take = min(len(frame), self.until_metadata)
            out += frame[:take]
            frame = frame[take:]
            self.audio_bytes += take
            self.until_metadata -= take
            if self.until_metadata == 0:
                out += self.metadata()
                self.until_metadata = self.metaint
        return bytes(out)

    def metadata(self):
        title = f"{self.name} part {self.sent // self.title_every}"
        text = f"StreamTitle='{title}';".encode()
        blocks = (len(text) + 15) // 16
        return bytes([blocks]) + text.ljust(blocks * 16, b"\0")


def id3_timestamp_tag(ticks):
    """An ID3v2.4 tag holding Apple's PRIV frame: a packed-audio segment's time on the 90 kHz clock."""
    def syncsafe(n):
        return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
    content = b"com.apple.streaming.transportStreamTimestamp\0" + (ticks & 0x1FFFFFFFF).to_bytes(8, "big")
    frame = b"PRIV" + syncsafe(len(content)) + b"\0\0" + content
    return b"ID3\4\0\0" + syncsafe(len(frame)) + frame


class LiveHLS:
    """The live HLS playlists: each NAME's segments published from its first playlist request."""

    def __init__(self, frames, frame_seconds, args, report):
        self.frames, self.frame_seconds, self.args, self.report = frames, frame_seconds, args, report
        self.target = args.hls_target
        self.per_segment = max(1, round(self.target / frame_seconds))
        self.started = {}  # NAME -> monotonic time of its first playlist request
        self.ended = set()  # NAMEs whose ending playlist was served

    def published(self, name):
        """How many segments NAME has published now."""
        count = 1 + int((time.monotonic() - self.started.setdefault(name, time.monotonic())) / self.target)
        return min(count, self.args.hls_segments) if self.args.hls_segments else count

    def playlist(self, name):
        published = self.published(name)
        first = max(0, published - self.args.hls_window)
        ended = bool(self.args.hls_segments) and published >= self.args.hls_segments
        seconds = self.per_segment * self.frame_seconds
        text = (f"#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:{self.target}\n"
                f"#EXT-X-MEDIA-SEQUENCE:{first}\n")
        for sequence in range(first, published):
            text += f"#EXTINF:{seconds:.6f},\n{sequence}.aac\n"
        if ended:
            text += "#EXT-X-ENDLIST\n"
            if name not in self.ended:
                self.ended.add(name)
                self.write({"hls": name, "published": published, "frames": published * self.per_segment})
        return text.encode()

    def segment(self, name, sequence):
        """Segment `sequence` of NAME, or None where it is not published (yet, or at all)."""
        if name not in self.started or not 0 <= sequence < self.published(name):
            return None
        first = sequence * self.per_segment
        ticks = round(first * self.frame_seconds * 90000)
        body = bytearray(id3_timestamp_tag(ticks))
        for index in range(first, first + self.per_segment):
            body += self.frames[index % len(self.frames)]
        self.write({"hls": name, "sequence": sequence, "frames": self.per_segment})
        return bytes(body)

    def write(self, entry):
        self.report.write(json.dumps(entry) + "\n")
        self.report.flush()


async def serve_hls(reader, writer, lines, hls):
    """Answers requests on one kept-alive connection, the first already read (`lines`)."""
    try:
        while True:
            path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
            parts = path.strip("/").split("/")
            body, mime = None, "application/vnd.apple.mpegurl"
            if len(parts) == 3 and parts[2] == "live.m3u8":
                body = hls.playlist(parts[1])
            elif len(parts) == 3 and parts[2].endswith(".aac") and parts[2][:-4].isdigit():
                body, mime = hls.segment(parts[1], int(parts[2][:-4])), "audio/aac"
            if body is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            else:
                writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {mime}\r\nContent-Length: {len(body)}\r\n"
                             f"Cache-Control: no-cache\r\n\r\n".encode() + body)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
            lines = head.decode("latin-1").split("\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError,
            asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def serve(reader, writer, args, sources, report, hls):
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
    kind = path.strip("/").split("/")[0]
    if kind == "hls" and hls:
        await serve_hls(reader, writer, lines, hls)
        return
    if kind not in sources:
        writer.write(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        writer.close()
        return
    frames, frame_seconds, mime = sources[kind]
    wants_metadata = any(line.lower().replace(" ", "") == "icy-metadata:1" for line in lines)
    metaint = args.metaint if wants_metadata else 0
    stream = Stream(frames, metaint, args.title_every, path)
    response = f"HTTP/1.0 200 OK\r\nContent-Type: {mime}\r\nicy-name: {path}\r\nicy-br: 128\r\n"
    if metaint:
        response += f"icy-metaint: {metaint}\r\n"
    writer.write((response + "\r\n").encode())
    start = time.monotonic()
    lag, blocked = 0.0, 0.0
    ended = "client"
    try:
        while True:
            if args.frames and stream.sent >= args.frames:
                ended = "frames"
                break
            if args.pace:
                due = int((time.monotonic() - start + args.burst) / frame_seconds) + 1
                if stream.sent:  # (the first batch is the burst, due at once)
                    lag = max(lag, (due - stream.sent) * frame_seconds - args.batch)
            else:
                due = stream.sent + 64
            if args.frames:
                due = min(due, args.frames)
            chunk = bytearray()
            while stream.sent < due:
                chunk += stream.next_frame_bytes()
            if chunk:
                writer.write(chunk)
                waited = time.monotonic()
                await writer.drain()
                blocked = max(blocked, time.monotonic() - waited)
            if args.pace:
                await asyncio.sleep(args.batch)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        report.write(json.dumps({"path": path, "frames": stream.sent, "audioBytes": stream.audio_bytes,
                                 "ended": ended, "lag": round(max(lag, 0.0), 3), "blocked": round(blocked, 3)})
                     + "\n")
        report.flush()
        writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mp3")
    parser.add_argument("--adts")
    parser.add_argument("--frames", type=int, default=0)
    parser.add_argument("--pace", action="store_true")
    parser.add_argument("--burst", type=float, default=0.0)
    parser.add_argument("--batch", type=float, default=0.25)
    parser.add_argument("--metaint", type=int, default=16000)
    parser.add_argument("--title-every", type=int, default=200)
    parser.add_argument("--report", required=True)
    parser.add_argument("--hls-target", type=int, default=1)
    parser.add_argument("--hls-window", type=int, default=3)
    parser.add_argument("--hls-segments", type=int, default=0)
    args = parser.parse_args()
    # A socket a stream: the soft limit on open files raised to the hard one.
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    sources = {}
    if args.mp3:
        frames, seconds = mp3_frames(open(args.mp3, "rb").read())
        sources["mp3"] = (frames, seconds, "audio/mpeg")
    if args.adts:
        frames, seconds = adts_frames(open(args.adts, "rb").read())
        sources["aac"] = (frames, seconds, "audio/aac")
    report = open(args.report, "a")
    hls = LiveHLS(*sources["aac"][:2], args, report) if "aac" in sources else None
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, args, sources, report, hls), "127.0.0.1", args.port, backlog=4096)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    async with server:
        await stop
    report.close()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
