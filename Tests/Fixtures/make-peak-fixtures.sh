#!/usr/bin/env bash
# Peak normalization's references (Tests/AudioConversionTests/PeakNormalizationTests.swift): SoX 14.4.2's (Debian
# 12) `gain -n`, the two-pass gain that puts the highest sample at the level asked. Run from this folder to remake
# them:
#   bash make-peak-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
OUT=peak
mkdir -p $OUT
# The source: 0.3 s of 16-bit stereo at 22.05 kHz, two tones and pink noise at unequal levels in the two channels,
# its highest sample a negative one in the right channel (-R: SoX's repeatable noise).
sox -R -n -b 16 -r 22050 -c 2 $OUT/source-s16.wav synth 0.3 sine 440 pinknoise remix 1v0.2,2v0.3 2v0.45,1v0.1 \
    gain -3
# `sox gain -n -1` into 16 bits, without dither (-D: the same source bits scaled and rounded, as afkit writes a 16-bit
# source's samples into 16 bits), and into 24 bits (SoX dithers only below 24 bits).
sox -D $OUT/source-s16.wav $OUT/sox-gain-n-1.wav gain -n -1
sox -D $OUT/source-s16.wav -b 24 $OUT/sox-gain-n-1-s24.wav gain -n -1
# To -6 dBFS (a quieter level: a gain below 1).
sox -D $OUT/source-s16.wav $OUT/sox-gain-n-6.wav gain -n -6
