import AudioFormats
import StreamParsing

extension AIFF {
    /// The COMM compression type and name for a format, or `nil` where AIFF-C has no code for it.
    static func compression(for format: StreamDescription) -> (type: FourCharCode, name: String)? {
        let flags = format.formatFlags
        switch format.formatID {
        case .lpcm where flags.contains(.isFloat):
            guard flags.contains(.isBigEndian) else { return nil }
            return format.bitsPerChannel == 32
                ? (CompressionType.fl32, "32-bit floating point")
                : format.bitsPerChannel == 64 ? (CompressionType.fl64, "64-bit floating point") : nil
        case .lpcm:
            let width = format.bytesPerFrame / max(format.channelsPerFrame, 1)
            guard flags.contains(.isSignedInteger) || format.bitsPerChannel > 8 else { return nil }
            if flags.contains(.isBigEndian) || width == 1 { return (CompressionType.NONE, "not compressed") }
            return width == 2 ? (CompressionType.sowt, "little-endian") : nil
        case .ima4: return (CompressionType.ima4, "IMA 4:1")
        case .ulaw: return (CompressionType.ulaw, "uLaw 2:1")
        case .alaw: return (CompressionType.alaw, "aLaw 2:1")
        default: return nil
        }
    }

    /// Whether plain AIFF (not AIFF-C) holds the format: big-endian (or one-byte) signed integers.
    public static func plainAIFFHolds(_ format: StreamDescription) -> Bool {
        compression(for: format)?.type == CompressionType.NONE
    }

    /// Header and trailer of an AIFF or AIFF-C file: `FVER` (AIFF-C), `COMM`, text chunks, `MARK`,
    /// then `SSND`; a pad byte after odd-sized audio.
    package static func layout(
        format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts, aifc: Bool
    )
        throws -> ContainerLayout
    {
        guard let (type, name) = compression(for: format) else {
            throw AudioFileError.unsupportedDataFormat(
                "aiff: \(format.summary) has no AIFF-C compression type", offset: nil)
        }
        guard aifc || type == CompressionType.NONE else {
            throw AudioFileError.unsupportedDataFormat(
                "aiff: '\(type)' data needs an AIFF-C file ('AIFC'), not plain AIFF", offset: nil)
        }
        guard counts.dataByteCount + 1024 < Int64(UInt32.max) else {
            throw AudioFileError.limitExceeded(
                "aiff: \(counts.dataByteCount) bytes of audio do not fit 32-bit sizes",
                offset: nil)
        }
        var header: [UInt8] = []
        header.appendFourCharCode(ChunkType.FORM)
        header.appendInteger(UInt32(0), endianness: .big)  // patched below
        header.appendFourCharCode(aifc ? ChunkType.AIFC : ChunkType.AIFF)
        if aifc {
            appendChunk(&header, ChunkType.FVER) { $0.appendInteger(aifcVersion1, endianness: .big) }
        }
        appendCommon(&header, format: format, counts: counts, compression: (type, name), aifc: aifc)
        appendTextChunks(&header, options: options)
        let (markers, loops) = options.markersWithLoopPoints()
        if !options.comments.isEmpty { appendComments(&header, options.comments) }
        if options.instrument != nil || !loops.isEmpty {
            appendInstrument(&header, options.instrument ?? Instrument(), loops: loops)
        }
        if !markers.isEmpty { appendMarkers(&header, markers) }
        header.appendFourCharCode(ChunkType.SSND)
        header.appendInteger(UInt32(counts.dataByteCount + 8), endianness: .big)
        header.appendInteger(UInt32(0), endianness: .big)  // offset
        header.appendInteger(UInt32(0), endianness: .big)  // block size
        let trailer: [UInt8] = counts.dataByteCount % 2 == 1 ? [0] : []
        let formSize = Int64(header.count) - 8 + counts.dataByteCount + Int64(trailer.count)
        header.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(formSize).bigEndian) { Array($0) })
        return ContainerLayout(header: header, trailer: trailer)
    }

    /// `COMM`: channels, frames (packets for IMA4; no more than the valid frames), sample size and rate, and for
    /// AIFF-C the compression type and its name.
    private static func appendCommon(
        _ header: inout [UInt8], format: StreamDescription, counts: WrittenCounts,
        compression: (type: FourCharCode, name: String), aifc: Bool
    ) {
        // COMM counts frames; for ima4 it counts packets.
        var frames =
            format.formatID == .ima4 ? counts.packetCount : counts.packetCount * Int64(max(format.framesPerPacket, 1))
        if format.formatID != .ima4, let valid = counts.packetTableInfo?.validFrames { frames = min(frames, valid) }
        appendChunk(&header, ChunkType.COMM) { body in
            body.appendInteger(Int16(clamping: format.channelsPerFrame), endianness: .big)
            body.appendInteger(UInt32(clamping: frames), endianness: .big)
            body.appendInteger(Int16(format.isLinearPCM ? format.bitsPerChannel : 16), endianness: .big)
            body += Extended80(format.sampleRate).bytes
            if aifc {
                body.appendFourCharCode(compression.type)
                body.append(UInt8(compression.name.utf8.count))
                body += Array(compression.name.utf8)
                if compression.name.utf8.count % 2 == 0 { body.append(0) }
            }
        }
    }

    /// The text tags: `NAME`, `AUTH` and `(c) `, every annotation in `ANNO` (else the `comments` tag), and every
    /// other tag (afkit's provenance among them) in an `ID3 ` chunk, as FFmpeg and iTunes write one.
    private static func appendTextChunks(_ header: inout [UInt8], options: AudioFileWriterOptions) {
        for (key, id) in [
            (MetadataKey.title, ChunkType.NAME), (MetadataKey.artist, ChunkType.AUTH),
            (MetadataKey.copyright, ChunkType.copyright),
        ] {
            if let text = options.metadata[key] { appendChunk(&header, id) { $0 += Array(text.utf8) } }
        }
        // Every annotation, in order; without any, the `comments` text tag is the one.
        let annotations =
            options.annotations.isEmpty
            ? options.metadata[MetadataKey.comments].map { [$0] } ?? []
            : options.annotations
        for annotation in annotations { appendChunk(&header, ChunkType.ANNO) { $0 += Array(annotation.utf8) } }
        // Every other text tag (afkit's provenance among them) in an `ID3 ` chunk, as FFmpeg and iTunes write one.
        let others = options.metadata.filter {
            ![MetadataKey.title, MetadataKey.artist, MetadataKey.copyright, MetadataKey.comments].contains($0.key)
        }
        let tag = ID3.tag(metadata: others, pictures: options.pictures)
        if !tag.isEmpty { appendChunk(&header, ChunkType.ID3) { $0 += tag } }
    }

    /// `COMT`: the comments, each with its time stamp, marker and text (up to 65,535 of each).
    private static func appendComments(_ header: inout [UInt8], _ comments: [Comment]) {
        appendChunk(&header, ChunkType.COMT) { body in
            body.appendInteger(UInt16(clamping: comments.count), endianness: .big)
            for comment in comments.prefix(Int(UInt16.max)) {
                let text = Array(comment.text.utf8.prefix(Int(UInt16.max)))
                body.appendInteger(comment.timeStamp, endianness: .big)
                body.appendInteger(Int16(clamping: comment.marker), endianness: .big)
                body.appendInteger(UInt16(text.count), endianness: .big)
                body += text
                if text.count % 2 == 1 { body.append(0) }
            }
        }
    }

    /// `INST`: the instrument's notes, velocities and gain, and its sustain and release loops between markers.
    private static func appendInstrument(
        _ header: inout [UInt8], _ instrument: Instrument, loops: [(loop: Loop, begin: Int, end: Int)]
    ) {
        appendChunk(&header, ChunkType.INST) { body in
            for value in [
                instrument.baseNote, instrument.detune, instrument.lowNote, instrument.highNote,
                instrument.lowVelocity, instrument.highVelocity,
            ] {
                body.append(UInt8(bitPattern: Int8(clamping: value)))
            }
            body.appendInteger(Int16(clamping: instrument.gain), endianness: .big)
            // AIFF loops play forward (1) or forward and backward (2); a backward loop plays forward here.
            for index in 0..<2 {
                let loop = index < loops.count ? loops[index] : nil
                let mode: Int16 = loop.map { $0.loop.playMode == .pingpong ? 2 : 1 } ?? 0
                body.appendInteger(mode, endianness: .big)
                body.appendInteger(Int16(clamping: loop?.begin ?? 0), endianness: .big)
                body.appendInteger(Int16(clamping: loop?.end ?? 0), endianness: .big)
            }
        }
    }

    /// `MARK`: each marker's ID, position and name (up to 255 bytes, as a padded Pascal string).
    private static func appendMarkers(_ header: inout [UInt8], _ markers: [Marker]) {
        appendChunk(&header, ChunkType.MARK) { body in
            body.appendInteger(UInt16(clamping: markers.count), endianness: .big)
            for marker in markers {
                let name = Array(marker.name.utf8.prefix(255))
                body.appendInteger(Int16(clamping: marker.id), endianness: .big)
                body.appendInteger(UInt32(clamping: marker.framePosition), endianness: .big)
                body.append(UInt8(name.count))
                body += name
                if name.count % 2 == 0 { body.append(0) }
            }
        }
    }

    /// Appends a chunk whose body `build` writes, with its size and pad byte.
    private static func appendChunk(_ bytes: inout [UInt8], _ id: FourCharCode, _ build: (inout [UInt8]) -> Void) {
        var body: [UInt8] = []
        build(&body)
        bytes.appendFourCharCode(id)
        bytes.appendInteger(UInt32(body.count), endianness: .big)
        bytes += body
        if body.count % 2 == 1 { bytes.append(0) }
    }
}
