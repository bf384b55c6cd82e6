#!/usr/bin/env bash
# QuickTime sound descriptions FFmpeg 5.1 writes for PCM (Tests/Fixtures/quicktime), 50 ms of a 440 Hz
# sine in stereo: version 1 'in24', 'in32' and 'fl32' with 'enda' 1 (little-endian), version 2 'lpcm' at
# 96 kHz with its flags, version 0 'sowt'; and the 'sowt' file with its 'stsz' sample size patched to
# 1, as QuickTime-classic writers leave it. Each NAME.json holds the command and the XXH64 of FFmpeg's
# decode as 32-bit little-endian floats (ffmpeg -i NAME -f f32le - | xxhsum -H64) and its frame count.
# Run from this folder with ffmpeg and xxhsum installed. Tests read only the committed files.
set -euo pipefail
out=quicktime
make() { # NAME RATE CODEC
    ffmpeg -v error -y -f lavfi -i "sine=f=440:r=$2:d=0.05" -ac 2 -c:a "$3" -f mov "$out/$1"
}
record() { # NAME COMMAND
    local digest frames
    local channels
    channels=$(ffprobe -v error -select_streams a -show_entries stream=channels -of csv=p=0 "$out/$1")
    digest=$(ffmpeg -v error -i "$out/$1" -map 0:a -f f32le - | xxhsum -H64 | cut -d' ' -f1)
    frames=$(( $(ffmpeg -v error -i "$out/$1" -map 0:a -f f32le - | wc -c) / (4 * channels) ))
    printf '{\n "command": "%s",\n "reference": {"decoder": "FFmpeg", "f32leXXH64": "%s", "frames": %d}\n}\n' \
        "$2" "$digest" "$frames" > "$out/$1.json"
}
for codec in pcm_s24le pcm_s32le pcm_f32le pcm_s16le; do
    make "$codec.mov" 44100 "$codec"
    record "$codec.mov" "ffmpeg -f lavfi -i sine=f=440:r=44100:d=0.05 -ac 2 -c:a $codec -f mov $codec.mov"
done
make lpcm-v2-s24le-96k.mov 96000 pcm_s24le
record lpcm-v2-s24le-96k.mov "ffmpeg -f lavfi -i sine=f=440:r=96000:d=0.05 -ac 2 -c:a pcm_s24le -f mov lpcm-v2-s24le-96k.mov"
python3 - "$out/pcm_s16le.mov" "$out/sowt-stsz-1.mov" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"stsz")
data[at + 8:at + 12] = (1).to_bytes(4, "big")  # version/flags, then the sample size: 1
open(sys.argv[2], "wb").write(data)
PY
record sowt-stsz-1.mov "pcm_s16le.mov with its stsz sample size patched from 4 to 1 by make-quicktime-fixtures.sh"
# PCM interleaved with video, as cameras and FFmpeg write it: big-endian 'twos' and little-endian 'sowt'
# (version 0), 8 kHz mono for a second beside 10 fps of 16x16 MJPEG, so the audio's chunks lie between
# the video's and a reader must follow 'stco'.
for codec in pcm_s16be pcm_s16le; do
    name="$codec-with-video.mov"
    ffmpeg -v error -y -f lavfi -i testsrc=d=1:s=16x16:r=10 -f lavfi -i "sine=f=440:r=8000:d=1" -map 0 -map 1 \
        -c:v mjpeg -c:a "$codec" -f mov "$out/$name"
    record "$name" "ffmpeg -f lavfi -i testsrc=d=1:s=16x16:r=10 -f lavfi -i sine=f=440:r=8000:d=1 -map 0 -map 1 -c:v mjpeg -c:a $codec -f mov $name"
done
