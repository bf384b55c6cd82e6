import AudioFormats
import StreamParsing

/// Native FLAC streams (RFC 9639): `fLaC`, metadata blocks, then frames. A framed kind, beside MPEG
/// audio and ADTS: a frame starts at a sync code whose header passes its CRC-8, and its length is known
/// only when the next frame's header is found and the bytes between pass the frame's CRC-16.
package enum FLAC {
    /// The metadata block types afkit reads or steps over (AudioFormats': Ogg's FLAC mapping reads them too).
    package typealias BlockType = FLACMetadataBlockType

    /// The blocks' names as RFC 9639 spells them.
    static let blockNames: [UInt8: String] = [
        0: "STREAMINFO", 1: "PADDING", 2: "APPLICATION", 3: "SEEKTABLE", 4: "VORBIS_COMMENT", 5: "CUESHEET",
        6: "PICTURE",
    ]

    /// A `SEEKTABLE` point: a frame's first sample and its offset from the first frame.
    struct SeekPoint: Hashable, Sendable {
        var sample: Int64
        var offset: Int64
    }

    /// The points of a `SEEKTABLE` body, placeholders dropped.
    static func seekPoints(_ bytes: UnsafeRawBufferPointer) -> [SeekPoint] {
        let reader = ByteCursor(bytes)
        return stride(from: 0, through: bytes.count - 18, by: 18).compactMap { start in
            guard let sample = reader.getInteger(at: start, endianness: .big, as: UInt64.self),
                let offset = reader.getInteger(at: start + 8, endianness: .big, as: UInt64.self),
                sample != .max, sample < 1 << 36, offset < 1 << 62
            else { return nil }
            return SeekPoint(sample: Int64(sample), offset: Int64(offset))
        }
    }

    /// The markers of a `CUESHEET` body: each track's index points (a track's first index named after
    /// the track), the lead-out left out; `nil` where the body is shorter than its counts.
    static func cueSheetMarkers(_ bytes: UnsafeRawBufferPointer) -> [Marker]? {
        let reader = ByteCursor(bytes)
        guard bytes.count >= 396 else { return nil }
        let trackCount = Int(bytes[395])
        var position = 396
        var markers: [Marker] = []
        for _ in 0..<trackCount {
            guard position + 36 <= bytes.count,
                let offset = reader.getInteger(at: position, endianness: .big, as: UInt64.self)
            else { return nil }
            let number = Int(bytes[position + 8])
            let indexCount = Int(bytes[position + 35])
            position += 36
            for _ in 0..<indexCount {
                guard position + 12 <= bytes.count,
                    let relative = reader.getInteger(at: position, endianness: .big, as: UInt64.self)
                else { return nil }
                let indexNumber = Int(bytes[position + 8])
                position += 12
                // Lead-out tracks (170 on a CD, 255 otherwise) mark the end, not a place to go.
                guard number != 170, number != 255, offset < 1 << 40, relative < 1 << 40 else { continue }
                let name = indexNumber == 1 ? "track \(number)" : "track \(number) index \(indexNumber)"
                markers.append(
                    Marker(id: markers.count + 1, framePosition: Int64(offset + relative), name: name))
            }
        }
        return markers
    }
}

extension FileType {
    /// Native FLAC (`fLaC`).
    public static let flac = FileType(rawValue: "flac")
}

extension FLAC {
    /// Native FLAC (an ID3v2 tag before it is found by detection itself).
    package static let descriptor = ContainerDescriptor(
        .flac, name: "FLAC", kind: "a FLAC file", fileTypeID: "flac", extensions: ["flac"], formatCodes: ["flac"],
        writtenExtensions: [".flac"], mediaTypes: ["audio/flac", "audio/x-flac"],
        keeps: WrittenTimeline(loops: 1, chapters: VorbisComment.maximumChapters),
        signatures: [FileSignature.Entry(outcome: .read(.flac)) { bytes, _ in FileSignature.magic(bytes, "fLaC") }],
        makeParser: { FLACParser(mode: $0.mode, limits: $0.limits, leadingTagSize: $0.leadingTagSize) },
        readsBehindID3Tag: true,
        writer: ContainerWriter(policy: WriterPolicy(defaultDataFormat: "flac")) { format, options, counts, _ in
            try FLAC.layout(format: format, options: options, counts: counts)
        })
}
