#!/usr/bin/env bash
# Speech for the leveler (issue 71: --loudness --dynamic), run from this folder: espeak-ng 1.51, SoX 14.4, opusenc
# (opus-tools 0.2). Tests read the committed files (speech/); these tools are not needed then.
#
# speech/two-speakers.opus: two synthetic speakers taking turns, as an unedited two-microphone recording has them: A
# (espeak-ng en-us at amplitude 160) and B (en-gb+m3 at amplitude 64, about 8 dB quieter), two sentences a turn with
# 0.4 s between sentences, A B A B, and 5 s of nothing but room tone after the second turn; pink noise about 60 dB
# under full scale throughout. 48 kHz mono, Opus at 32 kbit/s.
# speech/two-speakers.turns: each turn's start and end (seconds), and the long pause's, as "NAME START END" lines.
set -euo pipefail
cd "$(dirname "$0")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p speech
sentences=("Welcome back to the show, this week we talk about audio pipelines and build servers."
  "Loudness is measured over the whole programme, but the quiet parts still matter."
  "I tried it on our last episode and the difference was clear from the first minute."
  "Tell me more about how the gain is chosen, and what happens in the pauses.")
list=()
time=0
: >speech/two-speakers.turns
sox -n -r 48000 -c 1 "$T/gap.wav" trim 0 0.4
sox -n -r 48000 -c 1 "$T/long.wav" trim 0 5
for turn in 0 1 2 3; do
  if [ $((turn % 2)) = 0 ]; then voice=en-us amplitude=160 name=A; else voice=en-gb+m3 amplitude=64 name=B; fi
  start=$time
  for k in 0 1; do
    espeak-ng -v $voice -a $amplitude -s 170 -w "$T/raw$turn$k.wav" "${sentences[$(((turn + k) % 4))]}"
    sox "$T/raw$turn$k.wav" -r 48000 -c 1 "$T/s$turn$k.wav"
    list+=("$T/s$turn$k.wav" "$T/gap.wav")
    end=$(echo "$time + $(soxi -D "$T/s$turn$k.wav")" | bc)
    time=$(echo "$end + 0.4" | bc)
  done
  echo "$name $start $end" >>speech/two-speakers.turns
  if [ $turn = 1 ]; then
    list+=("$T/long.wav")
    echo "pause $time $(echo "$time + 5" | bc)" >>speech/two-speakers.turns
    time=$(echo "$time + 5" | bc)
  fi
done
sox "${list[@]}" "$T/dry.wav"
sox -R -n -r 48000 -c 1 "$T/noise.wav" synth "$(soxi -D "$T/dry.wav")" pinknoise vol 0.002
sox -R -m "$T/dry.wav" "$T/noise.wav" -b 16 "$T/talk.wav"
opusenc --quiet --bitrate 32 "$T/talk.wav" speech/two-speakers.opus
