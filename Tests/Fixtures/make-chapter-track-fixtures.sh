#!/usr/bin/env bash
# QuickTime chapter tracks as afkit writes them (issue 71), proved against FFmpeg 5.1, SoX 14.4 and mutagen 1.46.
# Run from this folder after `swift build` (it uses ../../.build/debug/afkit). Tests read the committed files
# (chapters/); these tools are not needed then.
set -euo pipefail
cd "$(dirname "$0")"
AFKIT=../../.build/debug/afkit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
rm -rf chapters && mkdir -p chapters
# The source (SoX, repeatable): 1.5 s of 16 kHz mono silence with a 10 ms 1 kHz burst at 0.5 s and 1 s, where
# the second and third chapters start, so a chapter's time can be checked against the sound players decode.
sox -R -D -n -r 16000 -c 1 -b 16 "$T/burst.wav" synth 0.01 sine 1000 gain -3
sox -R -D -n -r 16000 -c 1 -b 16 "$T/gap1.wav" trim 0 0.5
sox -R -D -n -r 16000 -c 1 -b 16 "$T/gap2.wav" trim 0 0.49
sox -R -D -n -r 16000 -c 1 -b 16 "$T/tail.wav" trim 0 0.49
sox -R -D "$T/gap1.wav" "$T/burst.wav" "$T/gap2.wav" "$T/burst.wav" "$T/tail.wav" chapters/bursts.wav
printf '00:00:00 Opening\n00:00:00.500 First burst – café\n00:00:01 Second burst\n' > chapters/bursts.txt
# afkit's AAC (1024 priming frames, an edit list) and ALAC (none), with the chapter track and `chpl`; and a chapter
# list whose first chapter starts after 0 (the chapter track then begins with an empty edit).
"$AFKIT" convert --chapters chapters/bursts.txt chapters/bursts.wav -d aac chapters/bursts-aac.m4a
"$AFKIT" convert --chapters chapters/bursts.txt chapters/bursts.wav -d alac chapters/bursts-alac.m4a
printf '00:00:00.500 First burst\n00:00:01 Second burst\n' > chapters/late.txt
"$AFKIT" convert --chapters chapters/late.txt chapters/bursts.wav -d alac chapters/late-alac.m4a
# The same files with `chpl` renamed `free`: the chapter track alone, as ffprobe (which prefers it) and Apple's
# players read it.
for name in bursts-aac bursts-alac late-alac; do
    python3 - "chapters/$name.m4a" "chapters/$name-track-only.m4a" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"chpl")
data[at:at + 4] = b"free"
open(sys.argv[2], "wb").write(data)
PY
done
# NAME.chapters: ffprobe -show_chapters's start, end and title of each. NAME.mutagen: mutagen's chapters (it reads
# `chpl` only, its starts as 1/10000 of the movie's time scale: afkit's is the sample rate, so they read 16 times
# too small; the tests undo that as MetadataRoundTripTests does).
for file in chapters/*.m4a; do
    ffprobe -v error -show_entries chapter=start_time,end_time:chapter_tags=title -of csv=p=0 "$file" > "$file.chapters"
done
for file in chapters/bursts-aac.m4a chapters/bursts-alac.m4a chapters/late-alac.m4a; do
    /usr/bin/python3 -c 'import sys, mutagen.mp4; print("\n".join("%.6f,%s" % (c.start, c.title) for c in mutagen.mp4.MP4(sys.argv[1]).chapters))' \
        "$file" > "$file.mutagen"
done
# NAME.onsets: where FFmpeg's decode (which honours the edit list: the priming skipped) first reaches half the
# bursts' peak, in seconds: the times players show the sound at, for the chapters to match.
for name in bursts-aac bursts-alac; do
    ffmpeg -nostdin -v error -i "chapters/$name.m4a" -f s16le -ac 1 -ar 16000 "$T/$name.raw"
    python3 - "$T/$name.raw" > "chapters/$name.m4a.onsets" <<'PY'
import sys, array
samples = array.array("h", open(sys.argv[1], "rb").read())
peak = max(abs(s) for s in samples)
onsets, quiet = [], True
for index, sample in enumerate(samples):
    if quiet and abs(sample) >= peak / 2:
        onsets.append(index / 16000)
        quiet = False
    elif not quiet and index - int(onsets[-1] * 16000) > 1600:
        quiet = True
print("\n".join("%.6f" % onset for onset in onsets))
PY
done
