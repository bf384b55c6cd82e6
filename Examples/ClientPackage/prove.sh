#!/usr/bin/env bash
# make prove-client: afkit's products as a client package uses them. Builds Examples/ClientPackage (one
# executable a product, each linking that product alone, and client-proof), runs each, checks that a program
# of AudioContainers alone links no codec library, and runs client-proof over Tests/Fixtures/library.
set -euo pipefail
cd "$(dirname "$0")/../.."
# A fresh build each time (about 40 s): SwiftPM's incremental build of a path dependency has been seen to
# miss a change to afkit and link a program that crashes.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# (No index store and no debug information: nothing reads them here; a tenth less of the build's work.)
flags=(--package-path Examples/ClientPackage --scratch-path "$scratch" --disable-index-store -Xswiftc -gnone)
swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)
for product in AudioFormats FileAccess AudioContainers AudioCodecs AudioDecoding AssetValidation AudioEngines \
    AudioConversion AudioStreaming AudioFileKit AudioToolboxCompat; do
    "$bin/uses-$product" Tests/Fixtures/library/stereo.flac
done
# A parsing-only program: no codec or network library among what it loads.
if ldd "$bin/uses-AudioContainers" | grep -E 'avcodec|mp3lame|faad|sndfile|soxr|samplerate|ebur128|FLAC|opus|curl'; then
    echo "prove-client: AudioContainers alone links a codec library" >&2
    exit 1
fi
"$bin/client-proof" Tests/Fixtures/library
