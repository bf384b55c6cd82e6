import AudioFormats
import StreamParsing

extension FLAC {
    /// Seconds between the points of the `SEEKTABLE` a written file carries (as `flac` places them).
    static let seekPointInterval = 10.0

    /// Header of a `.flac` file: `fLaC`, `STREAMINFO` (the encoder's final one once the file closes, its
    /// frame sizes taken from the packets written), a `SEEKTABLE` with room for a point every 10 s of the
    /// estimated length (filled at the end, placeholders after), and a `VORBIS_COMMENT` with the
    /// metadata. The frames follow; nothing comes after them.
    package static func layout(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts) throws
        -> ContainerLayout
    {
        guard format.formatID == .flac else {
            throw AudioFileError.unsupportedDataFormat(
                "flac: a FLAC file holds FLAC, not '\(format.formatID)'", offset: nil)
        }
        let blockSize = Int(format.framesPerPacket)
        var info =
            counts.cookie(options).flatMap { FLACStreamInfo(cookie: $0) }
            ?? FLACStreamInfo(
                minimumBlockSize: max(16, blockSize), maximumBlockSize: max(16, blockSize), minimumFrameSize: 0,
                maximumFrameSize: 0, sampleRate: Int(format.sampleRate), channels: Int(format.channelsPerFrame),
                bitsPerSample: format.losslessBitDepth ?? 16, totalSamples: 0, md5: [])
        if !counts.isProvisional {
            if let smallest = counts.packetSizes.min(), let largest = counts.packetSizes.max() {
                info.minimumFrameSize = Int(smallest)
                info.maximumFrameSize = Int(largest)
            }
            if info.totalSamples == 0, let valid = counts.packetTableInfo?.validFrames { info.totalSamples = valid }
        }
        var header = Array("fLaC".utf8)
        func appendBlock(_ type: BlockType, _ body: [UInt8], last: Bool) {
            header.append((last ? 0x80 : 0) | type.rawValue)
            header += [
                UInt8(truncatingIfNeeded: body.count >> 16), UInt8(truncatingIfNeeded: body.count >> 8),
                UInt8(truncatingIfNeeded: body.count),
            ]
            header += body
        }
        appendBlock(.streamInfo, info.bytes, last: false)
        let seekTable = seekTableBody(format: format, options: options, counts: counts)
        if !seekTable.isEmpty { appendBlock(.seekTable, seekTable, last: false) }
        for picture in options.pictures { appendBlock(.picture, picture.flacBlockBody(), last: false) }
        appendBlock(
            .vorbisComment,
            VorbisComment.block(metadata: options.metadata, loops: options.loops, chapters: options.chapters),
            last: true)
        return ContainerLayout(header: header, trailer: [])
    }

    /// A `SEEKTABLE` body sized from the estimated packet count (so the header keeps its size) and, once
    /// the file closes, holding the frame at or before every 10 s (its first sample, its offset from the
    /// first frame, its samples), placeholders filling what is left.
    private static func seekTableBody(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts)
        -> [UInt8]
    {
        let blockSize = Int64(format.framesPerPacket)
        let interval = Int64(format.sampleRate * seekPointInterval)
        guard blockSize > 0, interval > 0, let estimated = options.estimatedPacketCount, estimated > 0 else {
            return []
        }
        let slots = Int(min(65536, estimated * blockSize / interval + 1))
        var points: [(sample: Int64, offset: Int64, frames: Int64)] = []
        if !counts.isProvisional {
            let total = counts.packetTableInfo?.validFrames ?? counts.packetCount * blockSize
            var offset: Int64 = 0
            var nextTarget: Int64 = 0
            for (index, size) in counts.packetSizes.enumerated() where points.count < slots {
                let first = Int64(index) * blockSize
                if first >= nextTarget && first < total {
                    points.append((first, offset, min(blockSize, total - first)))
                    nextTarget = (first / interval + 1) * interval
                }
                offset += Int64(size)
            }
        }
        var body: [UInt8] = []
        for point in points {
            body.appendInteger(UInt64(point.sample), endianness: .big)
            body.appendInteger(UInt64(point.offset), endianness: .big)
            body.appendInteger(UInt16(clamping: point.frames), endianness: .big)
        }
        for _ in points.count..<slots {
            body.appendInteger(UInt64.max, endianness: .big)
            body += [UInt8](repeating: 0, count: 10)
        }
        return body
    }
}
