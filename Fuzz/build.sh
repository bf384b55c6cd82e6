#!/usr/bin/env bash
# Builds the fuzz binary: the pure modules' sources, the shared invariant checks and the entry point
# as one module, with libFuzzer and AddressSanitizer. Usage: Fuzz/build.sh [OUTPUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build-fuzz/afkit-fuzz}"
work=.build-fuzz/sources
rm -rf "$work" && mkdir -p "$work" "$(dirname "$out")"
for file in $(find Sources/{AudioFormats,FileAccess,StreamParsing,ChunkedContainers,ElementaryStreams,ISOBaseMedia,PagedContainers,AudioContainers,AudioCodecs,AudioDecoding,ReportGraphics,AssetValidation} -name '*.swift' | sort) \
    Tests/FuzzRegressionTests/FuzzInvariants.swift; do
    # One module: drop the imports of the others.
    sed -E '/^(@_exported )?import (AudioFormats|FileAccess|StreamParsing|ChunkedContainers|ElementaryStreams|ISOBaseMedia|PagedContainers|AudioContainers|AudioCodecs|AudioDecoding|ReportGraphics|AssetValidation)$/d' "$file" \
        > "$work/$(basename "$(dirname "$file")")-$(basename "$file")"
done
# The report's resources, as SwiftPM embeds them (`.embedInCode`): a byte array per file.
{
    echo "enum PackageResources {"
    for resource in Sources/ReportGraphics/Resources/*; do
        printf '    static let %s: [UInt8] = [' "$(basename "$resource" | tr '.-' '__')"
        od -An -v -tu1 "$resource" | tr -s ' \n' ',' | sed 's/^,//; s/,$//'
        echo "]"
    done
    echo "}"
} > "$work/PackageResources.swift"
# The one C file the modules hold (CFoldedCRC: Ogg's folded CRC), compiled with the same sanitizers, and a
# module map for it as SwiftPM makes one.
mkdir -p "$work/CFoldedCRC"
printf 'module CFoldedCRC {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CFoldedCRC/include/folded_crc.h" \
    > "$work/CFoldedCRC/module.modulemap"
clang -c -O2 -fsanitize=fuzzer-no-link,address -I Sources/CFoldedCRC/include Sources/CFoldedCRC/folded_crc.c \
    -o "$work/CFoldedCRC/folded_crc.o"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name AFKitFuzz -package-name afkit "$work"/*.swift Fuzz/FuzzTargets.swift \
    -I "$work/CFoldedCRC" "$work/CFoldedCRC/folded_crc.o" -o "$out" 2> >(grep -v "Cannot export local symbol" >&2)
