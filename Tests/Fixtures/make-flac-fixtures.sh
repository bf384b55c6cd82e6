#!/usr/bin/env bash
# FLAC fixtures made by the reference encoder (flac 1.4.2, Debian 12's `flac` package), SoX 14.4 and
# FFmpeg 5.1, from the committed signals. Tests read the committed files (flac/); run from this folder
# to remake them:
#   bash make-flac-fixtures.sh
# Beside each FLAC file: NAME.packets (ffprobe -show_packets: offset and size of each frame, one per line)
# and NAME.decoded.md5 (the MD5 of `flac -d`'s output as signed little-endian samples of the stream's
# width: what afkit's decoder must give, bit for bit).
set -euo pipefail
cd "$(dirname "$0")"
OUT=flac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FLAC="flac --silent --force"
FF="ffmpeg -hide_banner -loglevel error -y -bitexact"

# Sources: the speech signal (mono 22.05 kHz 16-bit), a stereo mix at 44.1 kHz, real 24-bit stereo at
# 48 kHz, 8-bit mono, and 5.1 and 7.1 mixes.
$FF -i signals/speech.wav -t 1 "$T/speech.wav"
$FF -i signals/music.wav -i signals/speech.wav -filter_complex "[0][1]amerge=inputs=2,aresample=44100" -t 0.5 "$T/stereo.wav"
sox -n -r 48000 -b 24 -c 2 "$T/hires.wav" synth 0.25 sine 440 pinknoise vol 0.5
sox signals/music.wav -b 8 "$T/eight.wav" trim 0 0.5
$FF -i signals/music.wav -i signals/speech.wav -i signals/noise.wav \
    -filter_complex "[0][1][2][0][1][2]amerge=inputs=6,volume=0.5" -t 0.25 "$T/surround.wav"
$FF -i signals/music.wav -i signals/speech.wav -i signals/noise.wav -i signals/music.wav \
    -filter_complex "[0][1][2][3][1][2][0][1]amerge=inputs=8,volume=0.4" -t 0.2 "$T/octo.wav"

$FLAC -S 0.1s "$T/speech.wav" -o $OUT/speech.flac      # level 5, a seek point at every frame, padding
$FLAC -8 -T TITLE=Stereo -T ARTIST=afkit -T ARTIST=Second "$T/stereo.wav" -o $OUT/stereo-tags.flac
$FF -f lavfi -i color=c=red:s=16x16 -frames:v 1 "$T/cover.png"
$FLAC -0 --no-seektable --picture="$T/cover.png" "$T/stereo.wav" -o $OUT/stereo-picture.flac
# Cover art larger than a file reader's 64 KiB read: a noise JPEG (about 73 KB), imported by metaflac as
# taggers add one (issue 53: info, convert and validate stopped "inside a metadata block").
$FF -f lavfi -i "nullsrc=s=250x250,geq=random(1)*255:random(1)*255:random(1)*255" -frames:v 1 -q:v 1 "$T/big-cover.jpg"
$FLAC "$T/speech.wav" -o $OUT/large-picture.flac
metaflac --import-picture-from="$T/big-cover.jpg" $OUT/large-picture.flac
$FLAC "$T/hires.wav" -o $OUT/hires-24bit.flac
$FLAC --lax -l 32 -b 1000 "$T/hires.wav" -o $OUT/hires-lpc32-b1000.flac     # 16-bit block size field, order 32
$FLAC -b 192 --no-padding "$T/eight.wav" -o $OUT/eight-bit.flac
$FLAC "$T/surround.wav" -o $OUT/surround-5.1.flac
$FLAC "$T/octo.wav" -o $OUT/octo-7.1.flac
# Two seconds of music in blocks of 1152 (39 frames): the stream the resync tests damage (issue 65).
$FF -i signals/music.wav -t 2 -map_metadata -1 "$T/music.wav"
$FLAC -b 1152 --no-padding "$T/music.wav" -o $OUT/music-b1152.flac
# STREAMINFO's total 0 (and no seek table): flac writing to a pipe cannot go back to fill it in.
$FLAC -c "$T/speech.wav" | cat > $OUT/total-zero.flac
# A CD-layout cue sheet: track 2 starts 0.2 s in (15 sectors of 588 samples).
printf 'FILE "stereo.wav" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    INDEX 00 00:00:10\n    INDEX 01 00:00:15\n' > "$T/stereo.cue"
$FLAC --cuesheet="$T/stereo.cue" "$T/stereo.wav" -o $OUT/stereo-cuesheet.flac
# FFmpeg's encoder (a different frame-size and predictor search, no seek table).
$FF -i "$T/stereo.wav" -c:a flac -compression_level 12 $OUT/ffmpeg-stereo.flac
# An ID3v2.3 tag before fLaC, as some taggers write it (flac and FFmpeg read past it): a TIT2 frame
# and 200 bytes of padding, then speech.flac whole.
{ printf 'ID3\003\000\000\000\000\001\135TIT2\000\000\000\013\000\000\000ID3 before'
  head -c 200 /dev/zero; cat $OUT/speech.flac; } > $OUT/id3-before.flac

for file in $OUT/*.flac; do
    name=${file%.flac}
    ffprobe -v error -show_entries packet=pos,size -of csv=p=0 "$file" > "$name.packets"
    bits=$(ffprobe -v error -select_streams a -show_entries stream=bits_per_raw_sample -of csv=p=0 "$file")
    width=$(( (bits + 7) / 8 * 8 ))
    flac --silent -d -c --force-raw-format --endian=little --sign=signed "$file" | md5sum | cut -d' ' -f1 > "$name.decoded.md5"
    echo "$width" >> "$name.decoded.md5"
done

# Damaged and cut copies of speech.flac: one byte of a middle frame flipped (its CRC-16 fails), and the
# file cut in the middle of a frame.
cp $OUT/speech.flac $OUT/damaged.flac.bin
size=$(stat -c %s $OUT/speech.flac)
printf '\x55' | dd of=$OUT/damaged.flac.bin bs=1 seek=$((size / 2)) conv=notrunc status=none
head -c $((size / 2)) $OUT/speech.flac > $OUT/truncated.flac.bin
