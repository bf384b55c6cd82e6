#!/usr/bin/env bash
# Files with cover art as the field's tools write them (issue 53), from the committed signals: metaflac
# (flac 1.4.2), opusenc --picture (opus-tools 0.2), vorbiscomment (vorbis-tools 1.4.2), eyeD3 and id3v2, FFmpeg 5.1's
# attached pictures (ID3v2.4 and v2.3 APIC in MP3, ID3 in AIFF, covr in M4A moov-first). Tests read the
# committed files (pictures/); run from this folder to remake them:
#   bash make-tagged-fixtures.sh
# Also loop points as game engines and RPG Maker keep them in Vorbis comments (loops/): LOOPSTART with
# LOOPLENGTH or with LOOPEND, set by vorbiscomment, flac -T and opusenc --comment on a 1 s tone.
# Beside each file, NAME.pictures: what ffprobe (for FLAC, metaflac --list) says of each picture, as
# `type mime bytes [width height]` lines, in file order: the reference the tests compare `info` with.
set -euo pipefail
cd "$(dirname "$0")"
OUT=pictures
rm -rf "$OUT" loops && mkdir -p "$OUT" loops
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
$FF -i signals/music.wav -t 0.5 -map_metadata -1 -fflags +bitexact "$T/tone.wav"
# Three small pictures: a JPEG, a PNG and a GIF (noise, so they do not compress to nothing).
$FF -f lavfi -i "nullsrc=s=40x30,geq=random(1)*255:random(1)*255:random(1)*255" -frames:v 1 -q:v 3 "$T/cover.jpg"
$FF -f lavfi -i "nullsrc=s=24x24,geq=random(1)*255:128:64" -frames:v 1 "$T/back.png"
$FF -f lavfi -i "nullsrc=s=16x16,geq=random(1)*255:0:0" -frames:v 1 "$T/icon.gif"

# FLAC: a GIF before the comments, a JPEG front cover and a PNG back cover after them, padding between.
flac --silent --no-padding -o "$T/plain.flac" "$T/tone.wav"
cp "$T/plain.flac" $OUT/metaflac-three.flac
metaflac --import-picture-from="2||icon||$T/icon.gif" $OUT/metaflac-three.flac
metaflac --set-tag="TITLE=Three Pictures" --set-tag="ARTIST=afkit" $OUT/metaflac-three.flac
metaflac --add-padding=300 $OUT/metaflac-three.flac
metaflac --import-picture-from="3||Front||$T/cover.jpg" $OUT/metaflac-three.flac
metaflac --import-picture-from="4|image/png|Back||$T/back.png" $OUT/metaflac-three.flac
# `flac --picture` at encoding: the picture right after STREAMINFO.
flac --silent --picture="3||cover||$T/cover.jpg" -T "TITLE=Encoded With Picture" -o $OUT/flac-picture.flac "$T/tone.wav"

# Ogg Opus: opusenc's METADATA_BLOCK_PICTURE (a FLAC picture block in base64 in OpusTags).
opusenc --quiet --bitrate 32 --picture "3||Front||$T/cover.jpg" --title "Opus Cover" "$T/tone.wav" $OUT/opusenc-picture.opus
# Ogg Vorbis: the same field added by vorbiscomment (the block made here, as metaflac would write it).
oggenc -Q -q 2 -t "Vorbis Cover" "$T/tone.wav" -o "$T/plain.ogg"
python3 - "$T/back.png" "$T/block.b64" <<'PY'
import base64, struct, sys
data = open(sys.argv[1], "rb").read()
mime, desc = b"image/png", b"Back"
block = struct.pack(">II", 4, len(mime)) + mime + struct.pack(">I", len(desc)) + desc
block += struct.pack(">IIIII", 24, 24, 24, 0, len(data)) + data
open(sys.argv[2], "w").write(base64.b64encode(block).decode())
PY
vorbiscomment -a -t "METADATA_BLOCK_PICTURE=$(cat "$T/block.b64")" "$T/plain.ogg" $OUT/vorbiscomment-picture.ogg

# mutagen (PyPI 1.47.0, the virtual environment `make test-venv` makes): ID3v2.3 in MP3, iTunes items in an
# M4A, a FLAC picture, ID3 in AIFF and WAV, METADATA_BLOCK_PICTURE in Ogg Opus, each with a front cover.
lame --quiet -b 64 "$T/tone.wav" "$T/plain.mp3"
$FF -i "$T/tone.wav" -c:a aac -b:a 48k "$T/plain.m4a"
$FF -i "$T/tone.wav" "$T/plain.aiff"
$FF -i "$T/tone.wav" "$T/plain-riff.wav"
opusenc --quiet --bitrate 32 "$T/tone.wav" "$T/plain.opus"
cp "$T/plain.mp3" $OUT/mutagen-id3v23.mp3
cp "$T/plain.m4a" $OUT/mutagen-covr.m4a
cp "$T/plain.flac" $OUT/mutagen-picture.flac
cp "$T/plain.aiff" $OUT/mutagen-id3.aiff
cp "$T/plain-riff.wav" $OUT/mutagen-id3.wav
cp "$T/plain.opus" $OUT/mutagen-picture.opus
../../.build-venv/bin/python - "$T/cover.jpg" $OUT <<'PY'
import sys
from mutagen.id3 import ID3, APIC, TIT2, TPE1
from mutagen.mp4 import MP4, MP4Cover
from mutagen.flac import FLAC, Picture
from mutagen.aiff import AIFF
from mutagen.wave import WAVE
from mutagen.oggopus import OggOpus
import base64
cover, out = open(sys.argv[1], "rb").read(), sys.argv[2]
def id3(tags):
    tags.add(TIT2(encoding=3, text="Mutagen Title"))
    tags.add(TPE1(encoding=1, text="Mutagen Artist"))
    tags.add(APIC(encoding=1, mime="image/jpeg", type=3, desc="Front", data=cover))
tags = ID3()
id3(tags)
tags.save(out + "/mutagen-id3v23.mp3", v2_version=3)
for name, kind in (("mutagen-id3.aiff", AIFF), ("mutagen-id3.wav", WAVE)):
    f = kind(out + "/" + name)
    f.add_tags()
    id3(f.tags)
    f.save()
m = MP4(out + "/mutagen-covr.m4a")
m["\xa9nam"] = "Mutagen Title"
m["covr"] = [MP4Cover(cover, imageformat=MP4Cover.FORMAT_JPEG)]
m.save()
picture = Picture()
picture.type, picture.mime, picture.desc, picture.data = 3, "image/jpeg", "Front", cover
picture.width, picture.height, picture.depth = 40, 30, 24
f = FLAC(out + "/mutagen-picture.flac")
f["title"] = "Mutagen Title"
f.add_picture(picture)
f.save()
o = OggOpus(out + "/mutagen-picture.opus")
o["title"] = "Mutagen Title"
o["metadata_block_picture"] = [base64.b64encode(picture.write()).decode()]
o.save()
PY

# eyeD3 (Debian's eyed3 0.9.7): ID3v2.4 and, converted, ID3v2.3, each with a front cover.
for version in 24 23; do
    cp "$T/plain.mp3" $OUT/eyed3-apic-v$version.mp3
    eyeD3 -Q --remove-all $OUT/eyed3-apic-v$version.mp3 > /dev/null
    eyeD3 -Q $([ $version = 23 ] && echo --to-v2.3) --add-image "$T/cover.jpg:FRONT_COVER" -t "EyeD3 Title" \
        -a "EyeD3 Artist" $OUT/eyed3-apic-v$version.mp3 > /dev/null
done

# MP3 with an attached picture: ID3v2.4 (FFmpeg's default) and ID3v2.3.
art=(-map 0 -map 1 -c:v copy -disposition:v attached_pic -metadata:s:v "comment=Cover (front)" -metadata "title=With Cover")
$FF -i "$T/tone.wav" -i "$T/cover.jpg" "${art[@]}" -c:a libmp3lame -b:a 64k $OUT/ffmpeg-apic-v24.mp3
$FF -i "$T/tone.wav" -i "$T/back.png" "${art[@]}" -c:a libmp3lame -b:a 64k -id3v2_version 3 $OUT/ffmpeg-apic-v23.mp3
# AIFF with an ID3 chunk holding a picture.
$FF -i "$T/tone.wav" -i "$T/cover.jpg" "${art[@]}" -write_id3v2 1 $OUT/ffmpeg-id3-picture.aiff
# M4A, moov first, with covr.
$FF -i "$T/tone.wav" -i "$T/back.png" "${art[@]}" -c:a aac -b:a 48k -movflags +faststart $OUT/ffmpeg-covr-faststart.m4a

for file in $OUT/*.flac; do
    metaflac --list --block-type=PICTURE "$file" | awk '
        /^  type: [0-9]+ \(/ && !/PICTURE/ { type = $2 }
        /MIME type:/ { mime = $3 } /^  width:/ { w = $2 } /^  height:/ { h = $2 }
        /data length:/ { print type, mime, $3, w, h }' > "$file.pictures"
done
# The others by ffprobe, which shows each picture as an attached-picture stream: the role from its comment
# (ID3's names), the MIME type from the codec, the bytes from its one packet; width and height only where the
# container states them (Ogg's picture blocks: ffprobe's are the image's own, which the blocks here state).
for file in $OUT/*.opus $OUT/*.ogg $OUT/*.mp3 $OUT/*.aiff $OUT/*.m4a; do
    ffprobe -v error -select_streams v -show_entries stream=index,codec_name,width,height:stream_tags=comment:packet=stream_index,size \
        -of json "$file" | python3 -c '
import json, sys
roles = {"Other": 0, "Cover (front)": 3, "Cover (back)": 4}
info = json.load(sys.stdin)
sizes = {p["stream_index"]: p["size"] for p in info.get("packets", [])}
for s in info.get("streams", []):
    mime = {"mjpeg": "image/jpeg"}.get(s["codec_name"], "image/" + s["codec_name"])
    role = roles.get(s.get("tags", {}).get("comment", "Other"), 0)
    # MP4 covr names no role: it is the front cover (what iTunes and Apple Music show).
    if sys.argv[1].endswith(".m4a"): role = 3
    line = [role, mime, sizes[s["index"]]]
    if sys.argv[1].endswith((".ogg", ".opus")): line += [s["width"], s["height"]]
    print(*line)' "$file" > "$file.pictures"
done

# Loops in comments.
$FF -i signals/music.wav -t 1 -map_metadata -1 "$T/second.wav"
oggenc -Q -q 2 "$T/second.wav" -o "$T/loop.ogg"
vorbiscomment -w -t "TITLE=Looped" -t "LOOPSTART=4410" -t "LOOPLENGTH=11025" "$T/loop.ogg" loops/vorbis-looplength.ogg
flac --silent --no-padding -T "LOOPSTART=2205" -T "LOOPEND=19845" -o loops/flac-loopend.flac "$T/second.wav"
opusenc --quiet --bitrate 32 --comment "LOOPSTART=9600" --comment "LOOPLENGTH=24000" "$T/second.wav" loops/opus-looplength.opus
# Silence around a tone (SoX), for --trim-silence: a loop the cut shortens and one it removes.
sox -n -r 44100 -c 1 -b 16 "$T/padded.wav" synth 1 sine 440 pad 0.5 0.5
flac --silent --no-padding -T "LOOPSTART=1000" -T "LOOPEND=40000" -o loops/flac-trim-shortens.flac "$T/padded.wav"
flac --silent --no-padding -T "LOOPSTART=100" -T "LOOPEND=4000" -o loops/flac-trim-removes.flac "$T/padded.wav"
# FFmpeg does not show a picture in WAV's id3 chunk: mutagen's reading is the reference there.
for file in $OUT/*.wav; do
    ../../.build-venv/bin/python -c '
import sys
from mutagen.wave import WAVE
for frame in WAVE(sys.argv[1]).tags.getall("APIC"): print(int(frame.type), frame.mime, len(frame.data))' "$file" > "$file.pictures"
done

# Chapters and loudness tags (tags/): FFmpeg's chapters from an FFMETADATA file (M4A: Nero `chpl` and a
# chapter text track; MP3: ID3 CHAP frames with TIT2; Ogg Opus: CHAPTERnnn comments), and ReplayGain and
# iTunes' normalization and gapless values as taggers write them: mutagen's ID3 TXXX and COMM (iTunes keeps
# iTunNORM and iTunSMPB in comments with those descriptions) and MP4 free-form items, metaflac's comments.
# NAME.chapters: ffprobe -show_chapters's start, end and title of each, the reference for the chapter tests.
rm -rf tags && mkdir -p tags
cat > "$T/chapters.txt" <<'META'
;FFMETADATA1
title=Chaptered
[CHAPTER]
TIMEBASE=1/1000
START=0
END=400
title=Intro
[CHAPTER]
TIMEBASE=1/1000
START=400
END=1000
title=Main Part
META
$FF -i signals/music.wav -t 1 -map_metadata -1 "$T/second.wav"
chapters=(-i "$T/chapters.txt" -map_metadata 1 -map_chapters 1)
$FF -i "$T/second.wav" "${chapters[@]}" -c:a aac -b:a 32k tags/ffmpeg-chapters.m4a
$FF -i "$T/second.wav" "${chapters[@]}" -c:a libmp3lame -b:a 32k tags/ffmpeg-chapters.mp3
$FF -i "$T/second.wav" "${chapters[@]}" -c:a libopus -b:a 24k tags/ffmpeg-chapters.opus
# Apple's audiobooks and podcasts keep chapters only in the chapter (text) track: FFmpeg's files with their
# `chpl` renamed `free`, moov last and (+faststart) moov first.
$FF -i "$T/second.wav" "${chapters[@]}" -c:a aac -b:a 32k -movflags +faststart "$T/faststart.m4a"
python3 - tags/ffmpeg-chapters.m4a "$T/faststart.m4a" tags/chapter-track-moov-last.m4a tags/chapter-track-moov-first.m4a <<'PY'
import sys
for source, target in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    data = bytearray(open(source, "rb").read())
    at = data.index(b"chpl")
    data[at:at + 4] = b"free"
    open(target, "wb").write(data)
PY
# 2,204 chapters of 1 ms (a chapter track and a `chpl` of 255): past the 1,000 afkit reads, said (issue 65).
python3 -c 'print(";FFMETADATA1"); [print(f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={i}\nEND={i + 1}\ntitle=c{i}") for i in range(2204)]' \
    > "$T/many.txt"
$FF -f lavfi -i "sine=f=440:d=2.3:r=8000" -i "$T/many.txt" -map_metadata 1 -map_chapters 1 -c:a aac -b:a 16k \
    tags/many-chapters.m4a
for file in tags/ffmpeg-chapters.* tags/chapter-track-*; do
    ffprobe -v error -show_entries chapter=start_time,end_time:chapter_tags=title -of csv=p=0 "$file" > "$file.chapters"
done
cp "$T/plain.mp3" tags/mutagen-gain.mp3
cp "$T/plain.m4a" tags/mutagen-gain.m4a
../../.build-venv/bin/python - tags <<'PY'
import sys
from mutagen.id3 import ID3, COMM, TXXX
from mutagen.mp4 import MP4, MP4FreeForm
out = sys.argv[1]
norm = " 00000180 0000016F 00000C6A 00000BC4 00002710 00002710 00007FFF 00007FFF 00002710 00002710"
tags = ID3()
tags.add(COMM(encoding=0, lang="eng", desc="", text="A plain comment"))
tags.add(COMM(encoding=0, lang="eng", desc="iTunNORM", text=norm))
tags.add(TXXX(encoding=3, desc="REPLAYGAIN_TRACK_GAIN", text="-6.20 dB"))
tags.add(TXXX(encoding=3, desc="REPLAYGAIN_TRACK_PEAK", text="0.988525"))
tags.save(out + "/mutagen-gain.mp3", v2_version=4)
m = MP4(out + "/mutagen-gain.m4a")
m["\xa9cmt"] = "A plain comment"
m["----:com.apple.iTunes:iTunNORM"] = [MP4FreeForm(norm.encode())]
m["----:com.apple.iTunes:replaygain_track_gain"] = [MP4FreeForm(b"-6.20 dB")]
m.save()
PY
cp "$T/plain.flac" tags/metaflac-gain.flac
metaflac --set-tag="COMMENT=A plain comment" --set-tag="REPLAYGAIN_TRACK_GAIN=-6.20 dB" \
    --set-tag="REPLAYGAIN_TRACK_PEAK=0.988525" tags/metaflac-gain.flac

# 5.1 with side surrounds, as FFmpeg's AAC encoder writes it: channel configuration 0 and a program config
# element (in the M4A's AudioSpecificConfig; in-band in each ADTS frame). 0.5 s, a tone per channel.
tones=()
for f in 200 400 600 800 1000 1200; do tones+=(-f lavfi -i "sine=f=$f:d=0.5:r=48000"); done
$FF "${tones[@]}" -filter_complex "[0][1][2][3][4][5]join=inputs=6:channel_layout=5.1(side)" -c:a aac -b:a 192k \
    mp4/ffmpeg-pce-5.1-side.m4a
$FF -i mp4/ffmpeg-pce-5.1-side.m4a -c copy -f adts adts/ffmpeg-pce-5.1-side.aac
# The reference: ffprobe's channels and frames, then the tone FFmpeg's decoder puts in each channel, in order.
ffprobe -v error -select_streams a -show_entries stream=channels,duration_ts -of csv=p=0 mp4/ffmpeg-pce-5.1-side.m4a \
    > mp4/ffmpeg-pce-5.1-side.m4a.ffprobe
ffmpeg -v error -i mp4/ffmpeg-pce-5.1-side.m4a -f s16le - | python3 -c '
import cmath, math, struct, sys
data = sys.stdin.buffer.read(); samples = struct.unpack("<%dh" % (len(data) // 2), data)
def tone(channel):
    x = samples[channel::6][4800:7200]
    return max(range(200, 1400, 200), key=lambda f: abs(sum(v * cmath.exp(-2j * math.pi * f * i / 48000) for i, v in enumerate(x))))
print(*[tone(c) for c in range(6)])' >> mp4/ffmpeg-pce-5.1-side.m4a.ffprobe

# id3v2 (Debian's id3v2 0.1.12): ID3v2.3 text frames as it writes them, a genre by its ID3v1 number.
cp "$T/plain.mp3" tags/id3v2-text.mp3
id3v2 -D tags/id3v2-text.mp3 > /dev/null
id3v2 -t "Id3v2 Title" -a "Id3v2 Artist" -A "Id3v2 Album" -g 17 -T 3/9 -y 1999 tags/id3v2-text.mp3
