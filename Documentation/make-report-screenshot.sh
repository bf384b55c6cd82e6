#!/bin/sh
# Documentation/report.png, the README's picture of `afkit validate --format html`: a report of three
# committed fixtures (a sound silent for its first half, one that clips, a sampler loop that clicks) with the
# game-sfx profile, drawn by Debian's chromium, headless. `make docs` runs it.
# Usage: sh Documentation/make-report-screenshot.sh AFKIT
set -e
AFKIT=${1:-.build/release/afkit}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd Tests/Fixtures
"$OLDPWD/$AFKIT" validate --format html --profile game-sfx report/half-silent.wav report/clipping.wav \
  markers/sampler.wav > "$WORK/report.html" || [ $? = 1 ]
cd "$OLDPWD"
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/profile" --hide-scrollbars \
  --window-size=1100,1500 --virtual-time-budget=5000 --screenshot="$WORK/report.png" \
  "file://$WORK/report.html" 2>/dev/null
mv "$WORK/report.png" Documentation/report.png
echo "wrote Documentation/report.png"
