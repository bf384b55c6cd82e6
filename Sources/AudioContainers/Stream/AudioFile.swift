import AudioFormats
import FileAccess

/// Random access to an audio file: the stream parser run over the file in indexing mode (seeking
/// over audio it does not need to read), plus a packet index and packet reads.
public final class AudioFile {
    /// The path given.
    public let path: String
    /// What the parser found, settled to what the file really holds.
    public let properties: StreamProperties
    private let file: ReadableFile
    /// Every packet with its absolute offset, where packets vary (CAF `pakt`, MPEG and ADTS frames).
    private let packetTable: [PacketDescription]?

    /// The whole file's content hash, where it was asked for when the file was opened.
    public let contentHash: ContentHash?

    /// Opens and parses a file. With `hashingContent`, the same read also hashes every byte of the file
    /// (``contentHash``): the audio the parser passes over is read for the hash alone, in order, so no
    /// second pass over the file is needed for it.
    public init(
        path: String, fileTypeHint: FileType? = nil, limits: ParserLimits = ParserLimits(),
        hashingContent: Bool = false
    ) throws {
        self.path = path
        let file = try ReadableFile(path: path)
        self.file = file
        var stream = AudioFileStream(fileTypeHint: fileTypeHint, mode: .indexing, limits: limits)
        var hash = hashingContent ? ContentHash() : nil
        var hashed: Int64 = 0
        /// Hashes the file's bytes from where the hash stands up to `end`: those of `piece` (read at `start`)
        /// from it, the ones the parser passed over read for the hash alone; bytes hashed already (a seek
        /// back) are not hashed again.
        func hashBytes(
            upTo end: Int64, piece: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
            at start: Int64 = 0
        ) throws {
            guard hash != nil else { return }
            var gap: [UInt8] = []
            while hashed < end {
                if hashed >= start, hashed < start + Int64(piece.count) {
                    let to = Int(min(end, start + Int64(piece.count)) - start)
                    hash?.update(UnsafeRawBufferPointer(rebasing: piece[Int(hashed - start)..<to]))
                    hashed = start + Int64(to)
                    continue
                }
                let want = Int(min((hashed < start ? start : end) - hashed, 1 << 20))
                if gap.count < want { gap = [UInt8](repeating: 0, count: want) }
                let count = try gap.withUnsafeMutableBytes {
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), at: hashed)
                }
                if count == 0 { break }
                gap.withUnsafeBytes { hash?.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                hashed += Int64(count)
            }
        }
        try stream.feed(
            size: file.size, passingOverUnneededBytes: true, read: { try file.read(into: $0, at: $1) },
            observe: hashingContent
                ? { bytes, start in try hashBytes(upTo: start + Int64(bytes.count), piece: bytes, at: start) } : nil
        ) { _ in }
        try hashBytes(upTo: file.size)
        contentHash = hash
        let properties = stream.properties
        self.properties = properties
        let count = Int(properties.audioDataPacketCount ?? 0)
        if let index = stream.parser?.context.packetIndex {
            packetTable = Array(index.prefix(count))
        } else if let context = stream.parser?.context, context.packetSizes != nil || context.packetFrames != nil {
            var table: [PacketDescription] = []
            table.reserveCapacity(count)
            var offset = properties.dataOffset ?? 0
            for packet in 0..<Int64(count) {
                let size = context.packetSize(packet) ?? 0
                table.append(
                    PacketDescription(
                        startOffset: offset, variableFramesInPacket: context.packetFrameCount(packet),
                        dataByteSize: UInt32(size)))
                offset += Int64(size)
            }
            packetTable = table
        } else {
            packetTable = nil
        }
    }

    /// Packets in the file.
    public var packetCount: Int64 { properties.audioDataPacketCount ?? 0 }

    /// The data format.
    public var dataFormat: StreamDescription {
        properties.dataFormat
            ?? StreamDescription(
                sampleRate: 0, formatID: .lpcm, bytesPerPacket: 0,
                framesPerPacket: 0, bytesPerFrame: 0, channelsPerFrame: 0, bitsPerChannel: 0)
    }

    /// Where a packet lies: absolute offset, bytes and frames.
    public func packetDescription(_ packet: Int64) throws -> PacketDescription {
        guard packet >= 0, packet < packetCount else {
            throw AudioFileError.invalidPacket(
                "\(path): packet \(packet) of \(packetCount) does not exist", offset: nil)
        }
        if let table = packetTable { return table[Int(packet)] }
        let size = Int64(dataFormat.bytesPerPacket)
        return PacketDescription(startOffset: (properties.dataOffset ?? 0) + packet * size, dataByteSize: UInt32(size))
    }

    /// Reads `count` packets from `start` (fewer at the end): their bytes and descriptions, offsets
    /// relative to the bytes.
    public func readPackets(from start: Int64, count: Int) throws -> (bytes: [UInt8], descriptions: [PacketDescription])
    {
        var bytes: [UInt8] = []
        let read = try readPacketData(from: start, count: count, into: &bytes)
        var descriptions: [PacketDescription] = []
        descriptions.reserveCapacity(read)
        let first = read > 0 ? try packetDescription(start).startOffset : 0
        for packet in start..<start + Int64(read) {
            var description = try packetDescription(packet)
            description.startOffset -= first
            descriptions.append(description)
        }
        return (bytes, descriptions)
    }

    /// Reads the bytes of `count` packets from `start` (fewer at the end) into `bytes`, replacing what it
    /// held (its storage is reused); returns how many packets. The bytes run from the first packet's start
    /// to the last one's end: for formats with constant packets, exactly `bytesPerPacket` per packet.
    public func readPacketData(from start: Int64, count: Int, into bytes: inout [UInt8]) throws -> Int {
        guard start >= 0, start <= packetCount, count >= 0 else {
            throw AudioFileError.invalidPacket("\(path): packet \(start) does not exist", offset: nil)
        }
        let end = min(packetCount, start + Int64(count))
        bytes.removeAll(keepingCapacity: true)
        guard end > start else { return 0 }
        let first = try packetDescription(start)
        let last = try packetDescription(end - 1)
        let byteCount = Int(last.startOffset + Int64(last.dataByteSize) - first.startOffset)
        bytes.append(contentsOf: repeatElement(0, count: byteCount))
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: first.startOffset) }
        guard read == byteCount else {
            throw AudioFileError.truncated("\(path): the file changed while it was read", offset: first.startOffset)
        }
        return Int(end - start)
    }

    /// Reads the audio data bytes (all of them, or a range relative to the data offset).
    public func readAudioBytes(from offset: Int64 = 0, count: Int? = nil) throws -> [UInt8] {
        let total = properties.audioDataByteCount ?? 0
        let length = Int(max(0, min(Int64(count ?? Int.max), total - offset)))
        var bytes = [UInt8](repeating: 0, count: length)
        let read = try bytes.withUnsafeMutableBytes {
            try file.read(into: $0, at: (properties.dataOffset ?? 0) + offset)
        }
        bytes.removeLast(length - read)
        return bytes
    }
}
