#!/usr/bin/env bash
# Clipped sounds for `afkit clip` (issue 48), run from this folder: FFmpeg 5.1 and SoX 14.4. Tests read the
# committed files (clip/) and count what the files themselves hold; these tools are not needed at test time.
set -euo pipefail
cd "$(dirname "$0")"
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
mkdir -p clip
# A 1 kHz tone 6 dB over full scale (FFmpeg's sine is at 1/8), clipped by FFmpeg's volume filter into 16 bits (no dither): flat tops at
# 32767 and -32768 on the sample grid.
$FF -f lavfi -i "sine=f=1000:r=44100:d=0.5" -af volume=16 -c:a pcm_s16le clip/ffmpeg-clipped-1k.wav
# A sine at a quarter of the rate, 45 degrees off its peaks: every sample at 0.85 of full scale, the waveform
# between them at 1.2 (+1.6 dBFS): clipping between samples only (SoX, no dither).
sox -R -D -n -r 44100 -c 1 -b 16 clip/inter-sample-11k.wav synth 0.25 sine 11025 0 12.5 vol 1.2
# Speech peaking 0.3 dB under full scale (SoX, no dither), and the same encoded as 32 kbit/s AAC by FFmpeg: the
# source clips nowhere, the decoded AAC overshoots full scale (the case afclip exists for).
sox -D signals/speech.wav -b 16 clip/speech-peak-0.3.wav gain -n -0.3
$FF -i clip/speech-peak-0.3.wav -c:a aac -b:a 32k clip/speech-peak-0.3.m4a
