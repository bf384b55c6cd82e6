#!/usr/bin/env bash
# afkit's --loudness against FFmpeg's loudnorm (two-pass linear, and its one-pass dynamic mode), same run, same
# sources (issue 71): speech made with espeak-ng (phrases at different levels and voices, so the loudness range
# is wide, as an unedited recording is) and music made with SoX (plucked chords swelling and falling). Each is
# normalized to TARGET LUFS under -1 dBTP to WAV and to AAC at 64 and 128 kbit/s; every output is measured by
# afkit (integrated, loudness range, true peak as decoded: the contract's measure) and the time and CPU each
# took are shown; afkit's speech leveler (--dynamic) beside loudnorm's dynamic mode (the sources are stereo: loudnorm's output is given their layout). Not a timed test: run it by hand on a release build (AFKIT=path/to/afkit), with espeak-ng,
# sox and ffmpeg installed. Usage: Benchmarks/loudness-vs-loudnorm.sh [MINUTES] [TARGET]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
afkit=${AFKIT:-$root/.build/release/afkit}
minutes=${1:-5}
target=${2:--16}
work=$(mktemp -d "${TMPDIR:-/tmp}/afkit-loudness-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Speech: sentences in three voices at three levels, with pauses, repeated to MINUTES.
sentences=("The quick brown fox jumps over the lazy dog while the band plays on."
  "Welcome back to the show: this week we talk about audio pipelines and build servers."
  "Loudness is measured over the whole programme, but the quiet parts still matter to listeners."
  "And that is why a leveler rides the gain slowly, so nothing pumps.")
voices=(en-us en-gb en-us+f3)
amplitudes=(150 45 90)
parts=()
i=0
for sentence in "${sentences[@]}"; do
  for v in 0 1 2; do
    espeak-ng -v "${voices[$v]}" -a "${amplitudes[$(((v + i) % 3))]}" -s 165 -w "p$i-$v.wav" "$sentence"
    parts+=("p$i-$v.wav")
  done
  i=$((i + 1))
done
sox -n -r 22050 -c 1 pause.wav trim 0 0.6
list=()
for p in "${parts[@]}"; do list+=("$p" pause.wav); done
sox "${list[@]}" block.wav
repeats=$(python3 -c "import sys; print(max(1, int($minutes * 60 / float(sys.argv[1]) + 0.999)))" "$(soxi -D block.wav)")
copies=()
for _ in $(seq "$repeats"); do copies+=(block.wav); done
sox "${copies[@]}" -r 48000 -c 2 -b 16 speech.wav trim 0 $((minutes * 60))

# Music: plucked chords, swelling and falling over 20 s, repeated.
sox -n -r 48000 -c 2 -b 16 bar.wav synth 20 pluck C3 pluck E3 pluck G3 pluck C4 tremolo 0.05 60 fade q 2 20 3 gain -6
bars=()
for _ in $(seq $((minutes * 3))); do bars+=(bar.wav); done
sox "${bars[@]}" music.wav

measure() { # FILE -> "I LRA TP"
  "$afkit" info --loudness --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
l = d["loudness"]
f = lambda v: "-inf" if v is None else "%.2f" % v
print(f(l["integrated"]), f(l["range"]), f(l["truePeak"]))'
}
timed() { # LABEL OUTPUT COMMAND... -> a table row
  local label=$1 output=$2
  shift 2
  local start end cpu
  start=$(date +%s.%N)
  if /usr/bin/time -f "%U %S" -o time.txt "$@" >log.txt 2>&1; then
    end=$(date +%s.%N)
    cpu=$(awk '{printf "%.2f", $1 + $2}' time.txt)
    read -r i lra tp <<<"$(measure "$output")"
    printf "| %s | %.2f | %s | %s | %s | %s |\n" "$label" "$(echo "$end - $start" | bc)" "$cpu" "$i" "$lra" "$tp"
  else
    printf "| %s | refused | | | | %s |\n" "$label" "$(grep -o "loudest target that can is [-0-9.]* LUFS" log.txt | head -1)"
  fi
}
loudnorm_two_pass() { # SOURCE OUTPUT CODEC-ARGS...
  local source=$1 output=$2
  shift 2
  local m
  m=$(ffmpeg -hide_banner -nostdin -i "$source" -af "loudnorm=I=$target:TP=-1:LRA=11:print_format=json" -f null - 2>&1 |
    sed -n '/^{/,/^}/p')
  local args
  args=$(echo "$m" | python3 -c 'import json, sys; d = json.load(sys.stdin)
print("measured_I=%s:measured_TP=%s:measured_LRA=%s:measured_thresh=%s:offset=%s" % (d["input_i"], d["input_tp"], d["input_lra"], d["input_thresh"], d["target_offset"]))')
  ffmpeg -hide_banner -nostdin -v error -y -i "$source" \
    -af "loudnorm=I=$target:TP=-1:LRA=11:$args:linear=true,aresample=48000,aformat=channel_layouts=stereo" "$@" "$output"
}
loudnorm_dynamic() { # SOURCE OUTPUT CODEC-ARGS...
  local source=$1 output=$2
  shift 2
  ffmpeg -hide_banner -nostdin -v error -y -i "$source" -af "loudnorm=I=$target:TP=-1:LRA=7,aresample=48000,aformat=channel_layouts=stereo" \
    "$@" "$output"
}

export -f loudnorm_two_pass loudnorm_dynamic
export target
echo "afkit $("$afkit" --version 2>/dev/null || echo '?'), $(ffmpeg -version | head -1 | cut -d' ' -f1-3); target $target LUFS, -1 dBTP; $minutes min sources"
for source in speech music; do
  read -r i lra tp <<<"$(measure $source.wav)"
  echo
  echo "$source.wav: $i LUFS, LRA $lra LU, true peak $tp dBTP"
  echo
  echo "| run | s | CPU s | LUFS | LRA | dBTP |"
  echo "|---|---|---|---|---|---|"
  timed "afkit --loudness, WAV" a.wav "$afkit" convert --quiet $source.wav --loudness "$target" a.wav
  timed "afkit --loudness, AAC 128k" a128.m4a "$afkit" convert --quiet $source.wav -d aac -b 128000 --loudness "$target" a128.m4a
  timed "afkit --loudness, AAC 64k" a64.m4a "$afkit" convert --quiet $source.wav -d aac -b 64000 --loudness "$target" a64.m4a
  timed "afkit --loudness --dynamic, WAV" l.wav "$afkit" convert --quiet $source.wav --loudness "$target" --dynamic l.wav
  timed "afkit --loudness --dynamic, AAC 128k" l128.m4a "$afkit" convert --quiet $source.wav -d aac -b 128000 --loudness "$target" --dynamic l128.m4a
  timed "loudnorm two-pass linear, WAV" f.wav bash -c 'loudnorm_two_pass "$@"' _ $source.wav f.wav -c:a pcm_s16le
  timed "loudnorm two-pass linear, AAC 128k" f128.m4a bash -c 'loudnorm_two_pass "$@"' _ $source.wav f128.m4a -c:a aac -b:a 128k
  timed "loudnorm two-pass linear, AAC 64k" f64.m4a bash -c 'loudnorm_two_pass "$@"' _ $source.wav f64.m4a -c:a aac -b:a 64k
  timed "loudnorm dynamic, WAV" d.wav bash -c 'loudnorm_dynamic "$@"' _ $source.wav d.wav -c:a pcm_s16le
  timed "loudnorm dynamic, AAC 64k" d64.m4a bash -c 'loudnorm_dynamic "$@"' _ $source.wav d64.m4a -c:a aac -b:a 64k
done
