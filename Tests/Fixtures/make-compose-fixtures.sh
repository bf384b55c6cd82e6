#!/usr/bin/env bash
# Sounds joined and mixed, and chapter files (issue 71: afkit join, afkit mix, --chapters), run from this folder:
# SoX 14.4, LAME 3.100, FFmpeg 5.1. Tests read the committed files (compose/); these tools are not needed then.
set -euo pipefail
cd "$(dirname "$0")"
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
rm -rf compose && mkdir -p compose
# The inputs (SoX, no dither -D, repeatable -R): two 22.05 kHz stereo sounds, a 16 kHz mono one, and an MP3 and an
# AAC of a third (LAME with its gapless tag; FFmpeg's AAC in M4A with its edit list).
sox -R -D -n -r 22050 -c 2 -b 16 compose/a.wav synth 0.5 sine 440 sine 660 gain -3
sox -R -D -n -r 22050 -c 2 -b 16 compose/b.wav synth 0.4 pinknoise gain -6
sox -R -D -n -r 16000 -c 1 -b 16 compose/c-16k-mono.wav synth 0.3 sine 300 gain -6
sox -R -D -n -r 22050 -c 2 -b 16 "$T/d.wav" synth 0.6 sine 500 gain -8
lame --quiet -b 64 "$T/d.wav" compose/d.mp3
$FF -i "$T/d.wav" -c:a aac -b:a 64k compose/e.m4a
# The references. Joined: SoX's concatenation. Mixed: SoX's -m with each input at -v 1 (sox -m alone scales each of n
# inputs by 1/n); the second mix has b 12 dB down (-v 10^(-12/20)) and starting at 0.2 s (pad), and a itself twice
# clips (SoX warns of the samples it clipped).
sox -R -D compose/a.wav compose/b.wav compose/joined-sox.wav
sox -R -D -m -v 1 compose/a.wav -v 1 compose/b.wav compose/mixed-sox.wav
sox -R -D -m -v 1 compose/a.wav -v 0.251188643150958 "|sox -R compose/b.wav -p pad 0.2" compose/mixed-levels-sox.wav
sox -R -D -m -v 1 compose/a.wav -v 1 compose/a.wav compose/mixed-clipped-sox.wav
# Chapters: a file of FFmpeg's metadata format (a time base of the sound's rate, a title with FFmpeg's escapes, a
# global tag) muxed by FFmpeg into Matroska, then written back out by FFmpeg (-f ffmetadata): the committed file is
# FFmpeg's own writing. NAME.chapters: ffprobe's start, end and title of each, as FFmpeg reads the file.
cat > "$T/chapters.txt" <<'META'
;FFMETADATA1
title=Episode 12
[CHAPTER]
TIMEBASE=1/22050
START=0
END=2756
title=Cold open
[CHAPTER]
TIMEBASE=1/22050
START=2756
END=6615
title=Q\=A\; part \#2
[CHAPTER]
TIMEBASE=1/1000
START=300
END=500
title=Outro
META
$FF -i compose/a.wav -i "$T/chapters.txt" -map 0 -map_metadata 1 -map_chapters 1 -c:a copy "$T/chaptered.mka"
$FF -i "$T/chaptered.mka" -f ffmetadata compose/ffmpeg-chapters.ffmeta
ffprobe -v error -show_entries chapter=start_time,end_time:chapter_tags=title -of csv=p=0 "$T/chaptered.mka" \
    > compose/ffmpeg-chapters.ffmeta.chapters
# Show notes as podcast hosts and YouTube take them: a clock time and a title a line.
cat > compose/show-notes.txt <<'NOTES'
0:00 Cold open
00:00:00.125 - Headlines
0:00.3 – Interview: part 1
NOTES
