#!/usr/bin/env bash
# AC-3, E-AC-3, AMR-NB, AMR-WB and LOAS fixtures, made by FFmpeg 5.1's AC-3, E-AC-3 and AAC encoders and SoX 14.4
# (Debian 12, with opencore-amr), and GStreamer 1.22 for AMR-WB, from the committed signals. Tests read the committed
# files (framed/); run from this folder to remake them:
#   bash make-framed-fixtures.sh
# Beside each file: NAME.packets (ffprobe -show_packets: size and offset of each frame) and NAME.frames
# (the frames FFmpeg decodes; for the 3GP files, the valid frames their edit lists give, as ffprobe
# reports them).
set -euo pipefail
cd "$(dirname "$0")"
OUT=framed
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
$FF -i signals/music.wav -i signals/speech.wav -filter_complex "[0][1]amerge=inputs=2" -t 0.5 "$T/stereo.wav"
$FF -i signals/music.wav -i signals/speech.wav -i signals/noise.wav \
    -filter_complex "[0][1][2][0][1][2]amerge=inputs=6,volume=0.5" -t 0.5 "$T/surround.wav"

$FF -i "$T/stereo.wav" -ar 48000 -c:a ac3 -b:a 192k $OUT/stereo-48k.ac3
$FF -i "$T/stereo.wav" -ar 44100 -c:a ac3 -b:a 128k $OUT/stereo-44k.ac3      # 44.1 kHz: frames alternate in size
$FF -i "$T/surround.wav" -ar 48000 -c:a ac3 -b:a 384k $OUT/surround-5.1.ac3
$FF -i "$T/stereo.wav" -ar 48000 -c:a eac3 -b:a 96k $OUT/stereo.eac3
$FF -i "$T/surround.wav" -ar 32000 -c:a eac3 -b:a 256k $OUT/surround-5.1.eac3
sox signals/speech.wav -r 8000 -t amr-nb -C 7 $OUT/speech.amr trim 0 1                    # AMR-NB 12.2 kbit/s
sox signals/speech.wav -r 8000 -t amr-nb -C 0 $OUT/speech-4k75.amr trim 0 1               # AMR-NB 4.75 kbit/s
# AMR-WB: SoX and FFmpeg are built without an encoder; GStreamer's voamrwbenc (gstreamer1.0-plugins-bad,
# with VisualOn's libvo-amrwbenc0) makes the frames (23.85 kbit/s, each with its header byte), behind the
# storage format's magic.
gst-launch-1.0 -q filesrc location=signals/speech.wav ! wavparse ! audioconvert ! audioresample \
    ! audio/x-raw,rate=16000,channels=1 ! voamrwbenc band-mode=8 ! filesink location="$T/frames.awb"
{ printf '#!AMR-WB\n'; cat "$T/frames.awb"; } > $OUT/speech-wb.amr

# LOAS/LATM (FFmpeg's muxer): AAC-LC with the StreamMuxConfig every 20 frames (its default) and in every frame.
$FF -i signals/speech.wav -t 1.5 -c:a aac -b:a 48k -f latm $OUT/speech.loas
$FF -i "$T/stereo.wav" -ar 44100 -c:a aac -b:a 96k -f latm -smc-interval 1 $OUT/stereo.loas

# 3GPP: the AMR stream remuxed into a 3GP file, and AAC in one (the MP4 parser, by the brand).
$FF -i $OUT/speech.amr -c copy -f 3gp $OUT/amr.3gp
$FF -i "$T/stereo.wav" -c:a aac -b:a 48k -f 3gp $OUT/aac.3gp

for file in $OUT/*.ac3 $OUT/*.eac3 $OUT/*.amr $OUT/*.3gp $OUT/*.loas; do
    ffprobe -v error -show_entries packet=size,pos -of csv=p=0 "$file" > "$file.packets" < /dev/null
    if [[ $file == *.3gp ]]; then
        # An edit list gives the valid frames: ffprobe's duration (FFmpeg's decode keeps the padding).
        ffprobe -v error -show_entries stream=duration_ts -of csv=p=0 "$file" > "$file.frames" < /dev/null
        continue
    fi
    ffmpeg -nostdin -v error -y -i "$file" -f wav "$T/out.wav"
    soxi -s "$T/out.wav" > "$file.frames"
done
