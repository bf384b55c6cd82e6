#!/usr/bin/env bash
# A 19.5-minute spoken episode for timing `hls --loudness` (BENCHMARKS.md, 2026-12-07 evening): espeak-ng in four
# voices at amplitudes 50 to 170 with pauses and room tone, SoX plucked chords before and after, 44.1 kHz stereo.
# Needs espeak-ng, sox and python3. Usage: Benchmarks/make-episode.sh FOLDER (writes FOLDER/episode.wav).
set -euo pipefail
mkdir -p "$1" && cd "$1"
sentences=("The quick brown fox jumps over the lazy dog while the band plays on."
  "Welcome back to the show: this week we talk about audio pipelines and build servers."
  "Loudness is measured over the whole programme, but the quiet parts still matter to listeners."
  "And that is why a leveler rides the gain slowly, so nothing pumps."
  "Our guest today builds games for phones, and ships thousands of sounds every month."
  "Sometimes the microphone is too close, and the plosives hit hard: pop, bang, crack!"
  "Let us take a short break, and we will be right back after this."
  "Thanks for listening, and see you next week.")
voices=(en-us en-gb en-us+f3 en-gb+m3)
amps=(170 50 100 130)
parts=()
n=0
for r in 1 2 3; do
for s in "${!sentences[@]}"; do
  v=$(( (s + r) % 4 )); a=$(( (s*3 + r) % 4 ))
  espeak-ng -v "${voices[$v]}" -a "${amps[$a]}" -s $((150 + 10*r)) -w p$n.wav "${sentences[$s]}"
  parts+=(p$n.wav); n=$((n+1))
done; done
sox -n -r 22050 -c 1 pause.wav trim 0 0.5
sox -n -r 22050 -c 1 long.wav synth 3 pinknoise gain -55
list=(); k=0
for p in "${parts[@]}"; do list+=("$p" pause.wav); k=$((k+1)); if [ $((k % 7)) = 0 ]; then list+=(long.wav); fi; done
sox "${list[@]}" -r 44100 -c 2 -b 16 block.wav
sox -n -r 44100 -c 2 -b 16 music.wav synth 15 pluck C3 pluck E3 pluck G3 pluck C4 tremolo 0.1 40 fade q 1 15 3 gain -4
d=$(soxi -D block.wav)
reps=$(python3 -c "print(int(1080/$d)+1)")
cp=(); for i in $(seq $reps); do cp+=(block.wav); done
sox "${cp[@]}" speech.wav trim 0 1140
sox music.wav speech.wav music.wav episode.wav
soxi -D episode.wav
