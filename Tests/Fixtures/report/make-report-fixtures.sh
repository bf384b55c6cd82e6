#!/bin/sh
# The sounds the HTML report test draws (Tests/Fixtures/report), made by SoX 14.4.2, FFmpeg 5.1 and LAME 3.100
# (Debian bookworm); SoX with -D (no dither: silence stays digital silence) and the null input at the output's
# rate (else SoX makes the sound at 48 kHz and resamples it, ringing into the silence). Run from this folder:
# sh make-report-fixtures.sh
set -e
# A clean effect: a 0.6 s chirp with short fades.
sox -D -r 44100 -c 1 -n -b 16 clean.wav synth 0.6 sine 600-1200 fade 0.01 0.6 0.08 gain -14
# Silent for its first half: one second of digital silence, then one second of a 440 Hz tone.
sox -D -r 22050 -c 1 -n -b 16 half-silent.wav synth 1 sine 440 gain -8 pad 1 0
# Clipping: a 300 Hz tone driven 6 dB past full scale, by FFmpeg 5.1 (its volume filter clips hard; SoX
# leaves a ripple on the clipped tops, which is not a run of full-scale samples).
ffmpeg -v error -y -f lavfi -i "sine=frequency=300:duration=0.5:sample_rate=22050" -af "volume=24dB" \
  -c:a pcm_s16le clipping.wav
# Six channels (5.1 order), a tone each.
sox -D -r 24000 -c 6 -n -b 16 multichannel.wav synth 0.5 sine 200 sine 300 sine 400 sine 60 sine 500 sine 600 gain -16
# Ten minutes of pink noise whose level swells and falls over 20 s, as 8 kbit/s MP3 (8 kHz mono).
sox -D -r 8000 -c 1 -n -b 16 /tmp/ten-minutes.wav synth 600 pinknoise tremolo 0.05 80 gain -12
lame --quiet -b 8 -m m /tmp/ten-minutes.wav ten-minutes.mp3
rm /tmp/ten-minutes.wav
