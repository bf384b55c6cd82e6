#!/usr/bin/env bash
# The network tests' fixtures (Tests/AudioStreamingTests). Run from this folder with sox, lame and ffmpeg
# (Debian's packages); the tests read the committed files and need none of these tools.
#
#   track-N.mp3        sox tone (N x 330 Hz, 1.5 s, 44.1 kHz stereo) -> lame -t -b 96 (CBR, no Info frame,
#                      no ID3 tag: the bytes ezstream sends are MPEG frames only; the title is the file name)
#   track-N.aac        the same tones -> ffmpeg -c:a aac -b:a 96k -f adts
#   tone-moov-last.m4a 12 s of a 440 Hz tone -> ffmpeg -c:a aac -b:a 32k, mp4 muxer without +faststart
#                      ('moov' after 'mdat'): the parser must ask for the end of the file first
set -euo pipefail
for n in 1 2 3; do
    sox -n -r 44100 -c 2 -b 16 tone-$n.wav synth 1.5 sine $((330 * n)) vol 0.4
    lame --quiet -t -b 96 tone-$n.wav track-$n.mp3
    ffmpeg -v error -y -i tone-$n.wav -c:a aac -b:a 96k -f adts track-$n.aac
    rm tone-$n.wav
done
sox -n -r 44100 -c 1 -b 16 tone.wav synth 12 sine 440 vol 0.4
ffmpeg -v error -y -i tone.wav -c:a aac -b:a 32k -map_metadata -1 -fflags +bitexact -f mp4 tone-moov-last.m4a
rm tone.wav
# tls/loopback.{pem,key}: a self-signed certificate for 127.0.0.1 (a test-only key, valid 100 years) that
# nginx serves in the HTTPS test; the client trusts it as an additional root.
mkdir -p tls
openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
    -keyout tls/loopback.key -out tls/loopback.pem
