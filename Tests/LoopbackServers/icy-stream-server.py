#!/usr/bin/env python3
"""Live ICY streams on a loopback port, for the many-streams test and `make bench-streams`.

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


async def serve(reader, writer, args, sources, report):
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
    kind = path.strip("/").split("/")[0]
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
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, args, sources, report), "127.0.0.1", args.port, backlog=4096)
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
