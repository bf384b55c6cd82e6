#!/usr/bin/env bash
# HTTP Live Streaming fixtures (issue 51), run from this folder: FFmpeg 5.1's hls muxer. Tests read the committed
# files (hls/); FFmpeg is not needed at test time. FFmpeg writes fMP4 and MPEG-TS segments, not packed audio:
# afkit's own packed audio is proven by reading it back and by FFmpeg reading it (the closing note's figures).
set -euo pipefail
cd "$(dirname "$0")"
FF="ffmpeg -nostdin -hide_banner -loglevel error -y -bitexact"
rm -rf hls && mkdir -p hls/ffmpeg-fmp4 hls/ffmpeg-byterange hls/ffmpeg-ts
# 3.5 s of a 48 kHz stereo tone as 64 kbit/s AAC-LC in 1 s fMP4 segments (a VOD playlist, an init section).
$FF -f lavfi -i "sine=f=440:r=48000:d=3.5" -ac 2 -c:a aac -b:a 64k -f hls -hls_time 1 -hls_playlist_type vod \
    -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 -hls_segment_filename hls/ffmpeg-fmp4/seg%d.m4s \
    hls/ffmpeg-fmp4/prog.m3u8
# The same in one file addressed by EXT-X-BYTERANGE (FFmpeg's single_file flag).
$FF -f lavfi -i "sine=f=440:r=48000:d=3.5" -ac 2 -c:a aac -b:a 64k -f hls -hls_time 1 -hls_playlist_type vod \
    -hls_segment_type fmp4 -hls_flags single_file -hls_fmp4_init_filename init.mp4 \
    -hls_segment_filename hls/ffmpeg-byterange/all.m4s hls/ffmpeg-byterange/prog.m3u8
# MPEG-TS segments (what FFmpeg's hls muxer writes by default), 1 s of mono.
$FF -f lavfi -i "sine=f=440:r=48000:d=1" -c:a aac -b:a 32k -f hls -hls_time 1 -hls_playlist_type vod \
    -hls_segment_filename hls/ffmpeg-ts/seg%d.ts hls/ffmpeg-ts/prog.m3u8
