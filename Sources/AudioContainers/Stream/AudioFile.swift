import AudioFormats
import FileAccess
import StreamParsing

/// Bytes read at any offset: a file on the disk, or a client's read callback (as Apple's
/// `AudioFileOpenWithCallbacks` takes one). Reads may come from any thread.
public protocol RandomAccessBytes: Sendable {
    /// Bytes there are.
    var size: Int64 { get }
    /// Fills up to `buffer.count` bytes from `offset`; returns how many (fewer only at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
}

/// Bytes a client reads for afkit: its size and a read function.
public struct ReadCallbacks: RandomAccessBytes {
    /// Bytes there are.
    public let size: Int64
    private let reader: @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Int

    /// Bytes of `size`, read by `read(buffer, offset)` (the bytes read: fewer only at the end).
    public init(size: Int64, read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Int) {
        self.size = size
        reader = read
    }

    /// Fills `buffer` from `offset`; returns how many bytes.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset < size else { return 0 }
        return try reader(buffer, offset)
    }
}

extension ReadableFile: RandomAccessBytes {}

/// Random access to an audio file: the stream parser run over the file in indexing mode (seeking
/// over audio it does not need to read), plus a packet index and packet reads. Immutable once open:
/// share it between tasks freely.
public final class AudioFile: Sendable {
    /// The path given (or the name given with the bytes).
    public let path: String
    /// What the parser found, settled to what the file really holds.
    public let properties: StreamProperties
    private let file: any RandomAccessBytes
    /// Every packet with its absolute offset, where packets vary (CAF `pakt`, MPEG and ADTS frames).
    private let packetTable: [PacketDescription]?
    /// The decoded frame each packet starts at, and the frames of all (one more entry than packets), where
    /// packets' frame counts vary (Vorbis, Opus, ADTS frames of several blocks, CAF `pakt`).
    private let packetStarts: [Int64]?
    /// Where the packets' bytes lie, where that is not their offset (Ogg: a packet is placed at its page).
    private let packetPieces: PacketPieces?

    /// The whole file's content hash, where it was asked for when the file was opened.
    public let contentHash: ContentHash?

    /// Opens and parses a file. With `hashingContent`, every byte of the file is also hashed
    /// (``contentHash``), through the same open handle.
    public convenience init(
        path: String, fileTypeHint: FileType? = nil, limits: ParserLimits = ParserLimits(),
        hashingContent: Bool = false
    ) throws {
        let file = try ReadableFile(path: path)
        try self.init(bytes: file, name: path, fileTypeHint: fileTypeHint, limits: limits) {
            // Through the handle already open: the file is opened once, however it is read.
            hashingContent ? try file.contentHash() : nil
        }
    }

    /// Opens and parses bytes read through `bytes` (a client's callbacks, as `AudioFileOpenWithCallbacks`);
    /// `name` names them in messages and stands as ``path``.
    public convenience init(
        bytes: some RandomAccessBytes, name: String, fileTypeHint: FileType? = nil,
        limits: ParserLimits = ParserLimits()
    ) throws {
        try self.init(bytes: bytes, name: name, fileTypeHint: fileTypeHint, limits: limits) { nil }
    }

    /// Opens a file without blocking the caller: the parse runs on another thread.
    public static func open(
        path: String, fileTypeHint: FileType? = nil, limits: ParserLimits = ParserLimits()
    ) async throws -> AudioFile {
        try await Task.detached { try AudioFile(path: path, fileTypeHint: fileTypeHint, limits: limits) }.value
    }

    private init(
        bytes file: some RandomAccessBytes, name path: String, fileTypeHint: FileType?, limits: ParserLimits,
        hash: () throws -> ContentHash?
    ) throws {
        self.path = path
        self.file = file
        var stream = AudioFileStream(fileTypeHint: fileTypeHint, mode: .indexing, limits: limits)
        try stream.feed(size: file.size, passingOverUnneededBytes: true, read: { try file.read(into: $0, at: $1) }) {
            _ in
        }
        contentHash = try hash()
        let properties = stream.properties
        self.properties = properties
        let count = Int(properties.audioDataPacketCount ?? 0)
        packetPieces = stream.parser?.context.packetPieces
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
        let framesPerPacket = Int64(properties.dataFormat?.framesPerPacket ?? 0)
        if let table = packetTable, framesPerPacket == 0 || table.contains(where: { $0.variableFramesInPacket > 0 }) {
            var starts: [Int64] = [0]
            starts.reserveCapacity(table.count + 1)
            for description in table {
                let frames =
                    description.variableFramesInPacket > 0 ? Int64(description.variableFramesInPacket) : framesPerPacket
                starts.append(starts[starts.count - 1] + frames)
            }
            packetStarts = starts
        } else {
            packetStarts = nil
        }
    }

    /// The decoded frame (counted from the first packet's first, priming included) packet `packet` starts at:
    /// Apple's PacketToFrame, for formats whose packets vary in frames too. `packetCount` gives the end.
    public func frame(ofPacket packet: Int64) -> Int64? {
        guard packet >= 0, packet <= packetCount else { return nil }
        if let starts = packetStarts { return packet < starts.count ? starts[Int(packet)] : nil }
        guard let frames = properties.dataFormat?.framesPerPacket, frames > 0 else { return nil }
        return packet * Int64(frames)
    }

    /// The packet holding decoded frame `frame` and the frame's offset in it (Apple's FrameToPacket); the last
    /// packet for a frame past the end.
    public func packet(ofFrame frame: Int64) -> (packet: Int64, frameOffset: Int64)? {
        guard frame >= 0, packetCount > 0 else { return nil }
        if let starts = packetStarts {
            var low = 0
            var high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= frame { low = middle } else { high = middle - 1 }
            }
            let packet = min(Int64(low), packetCount - 1)
            return (packet, frame - starts[Int(packet)])
        }
        guard let frames = properties.dataFormat?.framesPerPacket, frames > 0 else { return nil }
        let packet = min(frame / Int64(frames), packetCount - 1)
        return (packet, frame - packet * Int64(frames))
    }

    /// Packets in the file.
    public var packetCount: Int64 { properties.audioDataPacketCount ?? 0 }

    /// The format a decoder takes the packets as: the data format, except that LOAS frames are AAC in
    /// LATM framing (`FourCharCode.latmAAC`), which an AAC decoder cannot take and a copy must not pass
    /// off as AAC access units.
    public var decodingFormat: StreamDescription {
        var format = dataFormat
        if properties.fileType == .loas { format.formatID = .latmAAC }
        return format
    }

    /// The data format.
    public var dataFormat: StreamDescription {
        properties.dataFormat
            ?? StreamDescription(
                sampleRate: 0, formatID: .lpcm, bytesPerPacket: 0,
                framesPerPacket: 0, bytesPerFrame: 0, channelsPerFrame: 0, bitsPerChannel: 0)
    }

    /// Where a packet lies: the absolute offset of its first byte (for Ogg, inside its page; a packet that
    /// spans pages continues on the next), bytes and frames.
    public func packetDescription(_ packet: Int64) throws -> PacketDescription {
        guard packet >= 0, packet < packetCount else {
            throw AudioFileError.invalidPacket(
                "\(path): packet \(packet) of \(packetCount) does not exist", offset: nil)
        }
        if let table = packetTable {
            guard packet < table.count else {
                throw AudioFileError.invalidPacket("\(path): packet \(packet) has no place in the file", offset: nil)
            }
            var description = table[Int(packet)]
            if let pieces = packetPieces, packet < pieces.dataOffsets.count {
                description.startOffset = pieces.dataOffsets[Int(packet)]
            }
            return description
        }
        let size = Int64(dataFormat.bytesPerPacket)
        return PacketDescription(startOffset: (properties.dataOffset ?? 0) + packet * size, dataByteSize: UInt32(size))
    }

    /// Reads `count` packets from `start` (fewer at the end): their bytes and descriptions, offsets
    /// relative to the bytes.
    public func readPackets(from start: Int64, count: Int) throws -> (bytes: [UInt8], descriptions: [PacketDescription])
    {
        var bytes: [UInt8] = []
        var descriptions: [PacketDescription] = []
        _ = try readPackets(from: start, count: count, into: &bytes, descriptions: &descriptions)
        return (bytes, descriptions)
    }

    /// Reads `count` packets from `start` (fewer at the end) into `bytes` and `descriptions` (offsets
    /// relative to the bytes), replacing what they held and reusing their storage, so a reader going
    /// through a file allocates nothing per run; returns how many packets.
    public func readPackets(
        from start: Int64, count: Int, into bytes: inout [UInt8], descriptions: inout [PacketDescription]
    ) throws -> Int {
        let read = try readPacketData(from: start, count: count, into: &bytes)
        descriptions.removeAll(keepingCapacity: true)
        let first = read > 0 ? try packetDescription(start).startOffset : 0
        let joined = packetPieces != nil || !packetsLieTogether(from: start, to: start + Int64(read))
        var position: Int64 = 0
        for packet in start..<start + Int64(read) {
            var description = try packetDescription(packet)
            if joined {
                // Joined back to back.
                description.startOffset = position
                position += Int64(description.dataByteSize)
            } else {
                description.startOffset -= first
            }
            descriptions.append(description)
        }
        return read
    }

    /// Reads the bytes of `count` packets from `start` (fewer at the end) into `bytes`, replacing what it
    /// held (its storage is reused); returns how many packets. The bytes run from the first packet's start
    /// to the last one's end where the packets lie together: for formats with constant packets, exactly
    /// `bytesPerPacket` per packet. Packets apart in the file (Ogg's, which page headers interrupt; an MPEG-4
    /// track's chunks between another track's) are joined back to back.
    public func readPacketData(from start: Int64, count: Int, into bytes: inout [UInt8]) throws -> Int {
        guard start >= 0, start <= packetCount, count >= 0 else {
            throw AudioFileError.invalidPacket("\(path): packet \(start) does not exist", offset: nil)
        }
        let end = min(packetCount, start + Int64(count))
        bytes.removeAll(keepingCapacity: true)
        guard end > start else { return 0 }
        if let pieces = packetPieces {
            try readPieces(pieces, from: start, to: end, into: &bytes)
            return Int(end - start)
        }
        if !packetsLieTogether(from: start, to: end) {
            try readApart(from: start, to: end, into: &bytes)
            return Int(end - start)
        }
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

    /// Whether packets `start..<end` lie back to back in the file (always, without a packet table: their
    /// places are computed from one offset).
    private func packetsLieTogether(from start: Int64, to end: Int64) -> Bool {
        guard packetPieces == nil, let table = packetTable, end - start > 1, end <= table.count else {
            return packetPieces == nil
        }
        var next = table[Int(start)].startOffset
        for packet in Int(start)..<Int(end) {
            guard table[packet].startOffset == next else { return false }
            next += Int64(table[packet].dataByteSize)
        }
        return true
    }

    /// Reads packets `start..<end` that lie apart, each run of them that lies together with one read, joined
    /// back to back.
    private func readApart(from start: Int64, to end: Int64, into bytes: inout [UInt8]) throws {
        guard let table = packetTable else { return }
        var packet = Int(start)
        while packet < Int(end) {
            let runStart = table[packet].startOffset
            var runEnd = runStart
            while packet < Int(end), table[packet].startOffset == runEnd {
                runEnd += Int64(table[packet].dataByteSize)
                packet += 1
            }
            let position = bytes.count
            let count = Int(runEnd - runStart)
            bytes.append(contentsOf: repeatElement(0, count: count))
            let read = try bytes.withUnsafeMutableBytes {
                try file.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: $0[position..<position + count]), at: runStart)
            }
            guard read == count else {
                throw AudioFileError.truncated("\(path): the file changed while it was read", offset: runStart)
            }
        }
    }

    /// Packets `start..<end` joined from where their bytes lie: the span they cover read at once into
    /// `bytes`, then each packet's piece (or pieces, for one that spans pages) moved down to join the one
    /// before (pieces lie in the file in order, so a piece never moves up). Nothing is allocated once
    /// `bytes` has room for the span.
    private func readPieces(_ pieces: PacketPieces, from start: Int64, to end: Int64, into bytes: inout [UInt8])
        throws
    {
        /// Calls `body` with each piece of packets `start..<end`, in order.
        func eachPiece(_ body: (Int64, Int) throws -> Void) throws {
            for packet in start..<end {
                if let split = pieces.splits[packet] {
                    for part in split { try body(part.offset, part.size) }
                    continue
                }
                guard packet < pieces.dataOffsets.count else {
                    throw AudioFileError.invalidPacket(
                        "\(path): packet \(packet) has no place in the file", offset: nil)
                }
                try body(pieces.dataOffsets[Int(packet)], Int(try packetDescription(packet).dataByteSize))
            }
        }
        var spanStart = Int64.max
        var spanEnd = Int64.min
        var previousEnd = Int64.min
        var joined = 0
        try eachPiece { offset, size in
            guard offset >= previousEnd, size >= 0 else {
                throw AudioFileError.invalidPacket("\(path): packet pieces out of order at \(offset)", offset: offset)
            }
            spanStart = min(spanStart, offset)
            spanEnd = max(spanEnd, offset + Int64(size))
            previousEnd = offset + Int64(size)
            joined += size
        }
        guard spanEnd > spanStart else { return }
        bytes.append(contentsOf: repeatElement(0, count: Int(spanEnd - spanStart)))
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: spanStart) }
        guard read == bytes.count else {
            throw AudioFileError.truncated("\(path): the file changed while it was read", offset: spanStart)
        }
        try bytes.withUnsafeMutableBufferPointer { span in
            guard let base = span.baseAddress else { return }
            var position = 0
            try eachPiece { offset, size in
                let from = Int(offset - spanStart)
                // Overlapping moves are allowed (the piece moves down).
                if from != position { (base + position).moveInitialize(from: base + from, count: size) }
                position += size
            }
        }
        bytes.removeLast(bytes.count - joined)
    }

    /// The bytes of one of the file's `StreamProperties.pictures`: those it holds, or those at its offset
    /// (read now; the parse passed over them). Throws where the file ends before them.
    public func pictureData(_ picture: Picture) throws -> [UInt8] {
        if let data = picture.data { return data }
        guard let offset = picture.dataOffset, offset >= 0, offset + Int64(picture.byteCount) <= file.size else {
            throw AudioFileError.truncated("the picture's bytes are not in the file", offset: picture.dataOffset)
        }
        var bytes = [UInt8](repeating: 0, count: picture.byteCount)
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
        guard read == picture.byteCount else {
            throw AudioFileError.truncated("the picture's bytes end early", offset: offset + Int64(read))
        }
        return bytes
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
