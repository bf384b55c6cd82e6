#!/usr/bin/env bash
# Markers carried as chapters (issue 71): a WAV's cue points, an AIFF's MARK and a WAV's labelled cues converted into
# containers that hold chapters and no markers (M4A, MP3, FLAC), proved against FFmpeg 5.1 (ffprobe) and mutagen 1.46.
# The sources are made by SoX 14.4 and libsndfile 1.2.0 (its sf_command(SFC_SET_CUE), through Python's ctypes: no
# command-line tool writes cue points); the outputs by afkit. Run from this folder after `swift build` (it uses
# ../../.build/debug/afkit). Tests read the committed files (chapters/markers-*); these tools are not needed then.
set -euo pipefail
cd "$(dirname "$0")"
AFKIT=../../.build/debug/afkit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
rm -f chapters/markers-*
# The sound (SoX, repeatable): 1.5 s of a 440 Hz sine, 16 kHz mono, 16 bits.
sox -R -D -n -r 16000 -c 1 -b 16 "$T/sine.wav" synth 1.5 sine 440 gain -6
# libsndfile copies it, adding markers: into WAV, bare cue points (libsndfile writes no LIST/adtl labels, so they
# are unnamed); into AIFF, MARK with Pascal names (libsndfile writes an empty name as one NUL byte), listed out of
# time order. Positions in frames, on no whole millisecond where it matters (4001 frames is 250.0625 ms).
python3 - "$T/sine.wav" <<'PY'
import ctypes, sys
from libsndfile_commands import AIFF, WAV, read_mono16, write_mono16
class Cue(ctypes.Structure):
    _fields_ = [("indx", ctypes.c_int32), ("position", ctypes.c_uint32), ("fcc_chunk", ctypes.c_int32),
                ("chunk_start", ctypes.c_int32), ("block_start", ctypes.c_int32), ("sample_offset", ctypes.c_uint32),
                ("name", ctypes.c_char * 256)]
class Cues(ctypes.Structure):
    _fields_ = [("cue_count", ctypes.c_uint32), ("cue_points", Cue * 100)]
SFC_SET_CUE = 0x10CF
rate, samples = read_mono16(sys.argv[1])
def write(path, major, points):
    cues = Cues()
    cues.cue_count = len(points)
    for index, (identifier, position, name) in enumerate(points):
        cue = cues.cue_points[index]
        cue.indx, cue.position, cue.fcc_chunk, cue.sample_offset, cue.name = (
            identifier, position, 0x61746164, position, name.encode())
    write_mono16(path, major, rate, samples, SFC_SET_CUE, cues)
write("chapters/markers-cues.wav", WAV, [(1, 0, ""), (2, 4001, ""), (3, 12007, "")])
write("chapters/markers-named.aiff", AIFF, [(1, 8003, "Verse – café"), (2, 2000, "Intro"), (3, 20000, "")])
PY
# afkit's outputs: the cue points into M4A (AAC: 1024 priming frames, an edit list), MP3 and FLAC; the AIFF's named
# markers into M4A (ALAC); the labelled cues of markers/sampler.wav (22050 Hz) into M4A at 44100 Hz (ALAC).
"$AFKIT" convert chapters/markers-cues.wav -d aac chapters/markers-cues-aac.m4a
"$AFKIT" convert chapters/markers-cues.wav chapters/markers-cues.mp3
"$AFKIT" convert chapters/markers-cues.wav chapters/markers-cues.flac
"$AFKIT" convert chapters/markers-named.aiff -d alac chapters/markers-named-alac.m4a
"$AFKIT" convert markers/sampler.wav -d alac@44100 chapters/markers-sampler-alac.m4a
# NAME.chapters: ffprobe -show_chapters's start, end and title of each. NAME.mutagen: mutagen's chapters, start and
# title (M4A: `chpl`, its starts undone from 1/10000 of the movie's time scale to seconds, as ChapterTrackTests
# explains; MP3: ID3 CHAP frames, start in milliseconds).
for file in chapters/markers-*.m4a chapters/markers-*.mp3 chapters/markers-*.flac; do
    ffprobe -v error -show_entries chapter=start_time,end_time:chapter_tags=title -of csv=p=0 "$file" > "$file.chapters"
done
for file in chapters/markers-*.m4a chapters/markers-*.mp3; do
    /usr/bin/python3 - "$file" > "$file.mutagen" <<'PY'
import sys, mutagen, mutagen.mp4, mutagen.id3
f = mutagen.File(sys.argv[1])
if isinstance(f, mutagen.mp4.MP4):
    scale = f.chapters._timescale / 1000
    print("\n".join("%.6f,%s" % (c.start * scale, c.title) for c in f.chapters))
else:
    frames = sorted(f.tags.getall("CHAP"), key=lambda chap: chap.start_time)
    print("\n".join("%.6f,%s" % (chap.start_time / 1000, chap.sub_frames["TIT2"].text[0]) for chap in frames))
PY
done
