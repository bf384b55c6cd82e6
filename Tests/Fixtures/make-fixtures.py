#!/usr/bin/env python3
"""Makes the container fixtures with FFmpeg, SoX and libsndfile, and records beside each file
(`NAME.EXT.json`) the tool and command that made it and what the reference tools read from it.

Run from this folder with ffmpeg, ffprobe, sox and sndfile-convert installed (Debian: ffmpeg sox
sndfile-programs). Tests read the committed files and sidecars only; they never run these tools.

Sidecar fields:
  tool, command         what made the file
  expected              Apple AudioStreamBasicDescription values for the variant (this table),
                        plus frame counts that follow from the command (the source's length)
  ffprobe               what FFmpeg's demuxer reads: first packet position (the data offset),
                        total packet bytes, packet count and a CRC-32 of the raw payload bytes
"""
import json, os, subprocess, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "/tmp/afkit-fixture-sources"

def run(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, **kw)

def source(name, rate, channels, seconds):
    """A sine (a different pitch per channel) as 16-bit PCM WAV, made by FFmpeg's lavfi."""
    os.makedirs(SRC, exist_ok=True)
    path = f"{SRC}/{name}.wav"
    if not os.path.exists(path):
        tones = "".join(f"sine=frequency={300 + 110 * c}:sample_rate={rate}:duration={seconds}[s{c}];" for c in range(channels))
        inputs = "".join(f"[s{c}]" for c in range(channels))
        graph = f"{tones}{inputs}amerge=inputs={channels}[out]" if channels > 1 else f"sine=frequency=300:sample_rate={rate}:duration={seconds}[out]"
        run(f'ffmpeg -hide_banner -loglevel error -y -filter_complex "{graph}" -map "[out]" -c:a pcm_s16le {path}')
    return path

def ffprobe_facts(path):
    out = run(f"ffprobe -v error -select_streams a:0 -show_packets -show_entries packet=pos,size -of csv=p=0 '{path}'").stdout.decode()
    packets = [tuple(int(x) for x in line.split(",")[:2]) for line in out.split() if line]
    # csv prints size before pos
    sizes = [p[0] for p in packets]
    positions = [p[1] for p in packets]
    stream = json.loads(run(f"ffprobe -v error -select_streams a:0 -show_entries stream=codec_name,sample_rate,channels,duration_ts -of json '{path}'").stdout)["streams"][0]
    payload = run(f"ffmpeg -v error -i '{path}' -map 0:a:0 -c copy -f data -").stdout
    return {
        "codec": stream["codec_name"],
        "sampleRate": int(stream["sample_rate"]),
        "channels": stream["channels"],
        "durationTS": int(stream.get("duration_ts", 0) or 0),
        "firstPacketPosition": positions[0] if positions else None,
        "packetBytes": sum(sizes),
        "packetCount": len(sizes),
        "payloadCRC32": zlib.crc32(payload),
    }

def sndfile_facts(path, rate, channels):
    """For 16-bit PCM files FFmpeg's own demuxer rejects (its AIFF written to a pipe): libsndfile reads
    the file, rewrites its samples as big-endian AU, and the payload is what follows the AU header."""
    au = "/tmp/afkit-fixture-sndfile.au"
    run(f"sndfile-convert -pcm16 '{path}' {au}")
    data = open(au, "rb").read()
    payload = data[int.from_bytes(data[4:8], "big"):]
    return {
        "reader": "libsndfile (sndfile-convert -pcm16 FILE out.au; ffprobe rejects this file)",
        "codec": "pcm_s16be",
        "sampleRate": rate,
        "channels": channels,
        "durationTS": len(payload) // (2 * channels),
        "firstPacketPosition": os.path.getsize(path) - len(payload),
        "packetBytes": len(payload),
        "packetCount": 1,
        "payloadCRC32": zlib.crc32(payload),
    }

def lpcm(bits, width, float_=False, big=False, signed=True):
    flags = (1 if float_ else 0) | (2 if big else 0) | (4 if signed and not float_ else 0) | (8 if bits == width * 8 else 16)
    return {"formatID": "lpcm", "bitsPerChannel": bits, "framesPerPacket": 1, "bytesPerSample": width, "flags": flags}

IMA4 = {"formatID": "ima4", "bitsPerChannel": 0, "framesPerPacket": 64, "flags": 0}
def g711(fid): return {"formatID": fid, "bitsPerChannel": 8, "framesPerPacket": 1, "bytesPerSample": 1, "flags": 0}

# name, source (rate, channels, seconds), tool, command template ({src} {out}), container, format expectations
VARIANTS = [
    # WAV
    ("wav/pcm-u8-mono.wav", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_u8 {out}", "wav", lpcm(8, 1, signed=False)),
    ("wav/pcm-s16-stereo.wav", (22050, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le {out}", "wav", lpcm(16, 2)),
    ("wav/pcm-s24-stereo.wav", (48000, 2, 0.02), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s24le {out}", "wav", lpcm(24, 3)),
    ("wav/pcm-s32-mono.wav", (16000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s32le {out}", "wav", lpcm(32, 4)),
    ("wav/float32-stereo.wav", (22050, 2, 0.03), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f32le {out}", "wav", lpcm(32, 4, float_=True)),
    ("wav/float64-mono.wav", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f64le {out}", "wav", lpcm(64, 8, float_=True)),
    ("wav/ulaw-mono.wav", (8000, 1, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a pcm_mulaw {out}", "wav", g711("ulaw")),
    ("wav/alaw-stereo.wav", (8000, 2, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a pcm_alaw {out}", "wav", g711("alaw")),
    ("wav/ima-adpcm-stereo.wav", (22050, 2, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a adpcm_ima_wav {out}", "wav", {"formatID": "0x6D730011", "bitsPerChannel": 0, "flags": 0, "bytesPerPacket": 1024, "framesPerPacket": 1017, "bytesPerFrame": 0}),
    # libsndfile's stereo IMA ADPCM: its 'fact' says about half the frames the blocks hold.
    ("wav/ima-adpcm-stereo-sndfile.wav", (22050, 2, 0.5), "libsndfile", "sndfile-convert -ima-adpcm {src} {out}", "wav", {"formatID": "0x6D730011", "bitsPerChannel": 0, "flags": 0, "bytesPerPacket": 2048, "framesPerPacket": 2041, "bytesPerFrame": 0}),
    ("wav/ima-adpcm-mono-sox.wav", (11025, 1, 0.1), "SoX", "sox {src} -e ima-adpcm {out}", "wav", {"formatID": "0x6D730011", "bitsPerChannel": 0, "flags": 0, "bytesPerPacket": 256, "framesPerPacket": 505, "bytesPerFrame": 0}),
    ("wav/extensible-5.1.wav", (8000, 6, 0.02), "FFmpeg", "ffmpeg -i {src} -channel_layout 5.1 -c:a pcm_s16le {out}", "wav", lpcm(16, 2)),
    ("wav/sox-s24-extensible.wav", (44100, 2, 0.01), "SoX", "sox {src} -b 24 {out}", "wav", lpcm(24, 3)),
    ("wav/rf64-s16-stereo.wav", (8000, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le -rf64 always {out}", "rf64", lpcm(16, 2)),
    ("wav/stream-unknown-size.wav", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le -f wav - > {out}", "wav", lpcm(16, 2)),
    ("wav/list-info.wav", (8000, 1, 0.02), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le -metadata title='Chime' -metadata artist='afkit' -metadata comment='fixture' {out}", "wav", lpcm(16, 2)),
    ("wav/sndfile-s24.wav", (8000, 2, 0.02), "libsndfile", "sndfile-convert -pcm24 {src} {out}", "wav", lpcm(24, 3)),
    ("wav/sndfile-u8-odd.wav", (8000, 1, 0.012625), "libsndfile", "sndfile-convert -pcmu8 {src} {out}", "wav", lpcm(8, 1, signed=False)),
    # AIFF and AIFF-C
    ("aiff/pcm-s16-stereo.aiff", (22050, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16be {out}", "aiff", lpcm(16, 2, big=True)),
    ("aiff/pcm-s8-mono.aiff", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s8 {out}", "aiff", lpcm(8, 1, big=True)),
    ("aiff/pcm-s24-mono.aiff", (48000, 1, 0.02), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s24be {out}", "aiff", lpcm(24, 3, big=True)),
    ("aiff/pcm-s32-stereo.aiff", (11025, 2, 0.03), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s32be {out}", "aiff", lpcm(32, 4, big=True)),
    ("aiff/sowt.aifc", (44100, 2, 0.01), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le -f aiff {out}", "aifc", lpcm(16, 2)),
    ("aiff/fl32.aifc", (22050, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f32be -f aiff {out}", "aifc", lpcm(32, 4, float_=True, big=True)),
    ("aiff/fl64.aifc", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f64be -f aiff {out}", "aifc", lpcm(64, 8, float_=True, big=True)),
    ("aiff/ima4-stereo.aifc", (22050, 2, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a adpcm_ima_qt -f aiff {out}", "aifc", IMA4),
    ("aiff/ulaw.aifc", (8000, 1, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a pcm_mulaw -f aiff {out}", "aifc", g711("ulaw")),
    ("aiff/alaw.aifc", (8000, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_alaw -f aiff {out}", "aifc", g711("alaw")),
    ("aiff/sox-s16-comment.aiff", (11025, 1, 0.03), "SoX", "sox {src} --comment 'made by sox' {out}", "aiff", lpcm(16, 2, big=True)),
    ("aiff/sndfile-s16.aiff", (8000, 2, 0.03), "libsndfile", "sndfile-convert -pcm16 {src} {out}", "aiff", lpcm(16, 2, big=True)),
    # CAF
    ("aiff/stream-unknown-size.aiff", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16be -f aiff - > {out}", "aiff", lpcm(16, 2, big=True)),
    ("caf/pcm-s16le-stereo.caf", (22050, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le {out}", "caf", lpcm(16, 2)),
    ("caf/pcm-s16be-mono.caf", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16be {out}", "caf", lpcm(16, 2, big=True)),
    ("caf/pcm-s8-mono.caf", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s8 {out}", "caf", lpcm(8, 1, big=True)),
    ("caf/pcm-s24le-stereo.caf", (48000, 2, 0.02), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s24le {out}", "caf", lpcm(24, 3)),
    ("caf/pcm-s32be-mono.caf", (16000, 1, 0.03), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s32be {out}", "caf", lpcm(32, 4, big=True)),
    ("caf/float32-stereo.caf", (22050, 2, 0.03), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f32le {out}", "caf", lpcm(32, 4, float_=True)),
    ("caf/float64-mono.caf", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_f64be {out}", "caf", lpcm(64, 8, float_=True, big=True)),
    ("caf/ima4-mono.caf", (22050, 1, 0.1), "FFmpeg", "ffmpeg -i {src} -c:a adpcm_ima_qt {out}", "caf", IMA4),
    ("caf/ima4-stereo.caf", (44100, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a adpcm_ima_qt {out}", "caf", IMA4),
    ("caf/ulaw-mono.caf", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_mulaw {out}", "caf", g711("ulaw")),
    ("caf/alaw-stereo.caf", (8000, 2, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_alaw {out}", "caf", g711("alaw")),
    ("caf/alac-stereo.caf", (44100, 2, 0.2), "FFmpeg", "ffmpeg -i {src} -c:a alac {out}", "caf", {"formatID": "alac", "framesPerPacket": 4096}),
    ("caf/sndfile-alac16.caf", (44100, 2, 0.2), "libsndfile", "sndfile-convert -alac16 {src} {out}", "caf", {"formatID": "alac", "framesPerPacket": 4096}),
    ("caf/sndfile-s16.caf", (8000, 2, 0.03), "libsndfile", "sndfile-convert -pcm16 {src} {out}", "caf", lpcm(16, 2, big=True)),
    ("caf/stream-size-minus-1.caf", (8000, 1, 0.05), "FFmpeg", "ffmpeg -i {src} -c:a pcm_s16le -f caf - > {out}", "caf", lpcm(16, 2)),
]

def main():
    only = sys.argv[1:]  # names to remake; none: all
    for name, (rate, channels, seconds), tool, template, container, fmt in VARIANTS:
        if only and name not in only: continue
        src = source(f"sine-{rate}-{channels}ch-{seconds}s", rate, channels, seconds)
        out = os.path.join(HERE, name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.exists(out): os.remove(out)
        command = template.replace("ffmpeg ", "ffmpeg -hide_banner -loglevel error -y ", 1)
        run(command.format(src=src, out=out))
        frames = run(f"soxi -s '{src}'").stdout.decode().strip()
        expected = dict(fmt, container=container, sampleRate=rate, channels=channels, sourceFrames=int(frames))
        # Valid frames: the source's length, except where the encoder pads the last packet and the
        # file states the padded length itself (FFmpeg's IMA4 and ALAC writers, its IMA ADPCM 'fact').
        probe = sndfile_facts(out, rate, channels) if "unknown-size.aiff" in name else ffprobe_facts(out)
        expected["frameCount"] = probe["durationTS"] if tool == "FFmpeg" and fmt.get("framesPerPacket", 1) != 1 or "adpcm" in name and tool == "FFmpeg" else int(frames)
        if "ima-adpcm" in name and tool == "libsndfile":
            # The frames the blocks hold, as FFmpeg decodes them (the 'fact' chunk undercounts).
            pcm = subprocess.run(f"ffmpeg -v error -i '{out}' -f s16le -", shell=True, check=True, capture_output=True).stdout
            expected["frameCount"] = len(pcm) // (2 * channels)
        if "bytesPerSample" in expected:
            width = expected.pop("bytesPerSample")
            expected["bytesPerPacket"] = expected["bytesPerFrame"] = width * channels
        if fmt.get("formatID") == "ima4":
            expected.update(bytesPerPacket=34 * channels, bytesPerFrame=0)
        sidecar = {
            "tool": tool,
            "command": template.format(src=f"{os.path.basename(src)}", out=os.path.basename(name)),
            "source": f"{os.path.basename(src)}: FFmpeg lavfi sine tones, {rate} Hz, {channels} channel(s), {seconds} s, 16-bit",
            "expected": expected,
            "ffprobe": probe,
        }
        with open(out + ".json", "w") as f:
            json.dump(sidecar, f, indent=2, sort_keys=True)
            f.write("\n")
        print(name, os.path.getsize(out))

main()
