import AudioFormats

/// What ``AudioFileStream`` needs from one container's incremental parser.
protocol StreamParser {
    var context: ParseContext { get }
    /// One step; `atEnd` says no bytes will follow those in `cursor` (the stream's last call).
    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep
    mutating func finish(endOffset: Int64, unconsumed: Int) throws
    var skippableByteCount: Int64 { get }
    mutating func skip(_ count: Int64)
    /// Positions the parser at a packet of the audio after a seek; returns the packet's absolute offset.
    mutating func resume(atPacket packet: Int64) throws -> Int64
    /// Drains announcements made outside `next` (at `finish`).
    mutating func nextAnnouncement() -> StreamPropertyID?
    /// The next bytes do not follow the previous ones.
    mutating func discontinuity()
    /// Whether ``resume(atPacket:)`` gives estimates rather than exact offsets.
    var isEstimatingSeeks: Bool { get }
}

extension ChunkWalker: StreamParser {
    mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }

    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep { try next(&cursor) }

    mutating func discontinuity() {}

    var isEstimatingSeeks: Bool { false }

    mutating func resume(atPacket packet: Int64) throws -> Int64 {
        guard context.announcedReady, let dataOffset = context.properties.dataOffset else {
            throw AudioFileError.illegalOperation("\(Container.name): cannot seek before the audio data is found")
        }
        let byteOffset = try context.byteOffset(ofPacket: packet)
        let remaining = context.declaredAudioBytes.map { $0 - byteOffset }
        let padded = Container.layout.padsToEven && (context.declaredAudioBytes ?? 0) % 2 == 1
        state = .audio(remaining: remaining, padded: padded)
        context.nextPacket = packet
        context.audioBytesSeen = byteOffset
        return dataOffset + byteOffset
    }
}

extension ParseContext {
    /// Offset of a packet from the start of the audio data.
    func byteOffset(ofPacket packet: Int64) throws -> Int64 {
        guard packet >= 0 else {
            throw AudioFileError.invalidPacket("packet \(packet) does not exist", offset: nil)
        }
        if hasUniformPackets, let format = properties.dataFormat {
            let offset = packet * Int64(format.bytesPerPacket)
            if let declared = declaredAudioBytes, offset > declared {
                throw AudioFileError.invalidPacket(
                    "packet \(packet) lies past the \(declared) bytes of audio", offset: nil)
            }
            return offset
        }
        var offset: Int64 = 0
        for index in 0..<packet {
            guard let size = packetSize(index) else {
                throw AudioFileError.invalidPacket("packet \(packet) lies past the packet table", offset: nil)
            }
            offset += Int64(size)
        }
        return offset
    }
}

/// Reads the container kind from a stream's first bytes; `nil` when more bytes are needed.
func detectContainer(_ bytes: UnsafeRawBufferPointer, atEnd: Bool, hint: FileType?, mode: ParseMode,
    limits: ParserLimits, requestsSeeks: Bool) throws -> (any StreamParser)?
{
    var cursor = ByteCursor(bytes)
    let first = cursor.readFourCharCode()
    if first == CAF.fileType { return ChunkWalker<CAF.Container>(mode: mode, limits: limits) }
    if bytes.count >= 8, cursor.getInteger(at: 4, endianness: .big, as: UInt32.self) == FourCharCode("ftyp").rawValue {
        return MP4Parser(mode: mode, limits: limits, requestsSeeks: requestsSeeks)
    }
    guard bytes.count >= 12 else {
        if atEnd {
            if bytes.count >= 4 { return ElementaryStreamParser(mode: mode, limits: limits, hint: hint) }
            throw AudioFileError.unsupportedFileType(
                "the stream is \(bytes.count) bytes long: too short for any audio file", offset: 0)
        }
        return nil
    }
    _ = cursor.skip(4)
    let form = cursor.readFourCharCode()
    switch first {
    case AIFF.ChunkType.FORM? where form == AIFF.ChunkType.AIFF || form == AIFF.ChunkType.AIFC:
        return ChunkWalker<AIFF.Container>(mode: mode, limits: limits)
    case let riff? where [WAVE.ChunkType.RIFF, WAVE.ChunkType.RF64, WAVE.ChunkType.BW64].contains(riff)
        && form == WAVE.ChunkType.WAVE:
        return ChunkWalker<WAVE.Container>(mode: mode, limits: limits)
    case AIFF.ChunkType.FORM?, WAVE.ChunkType.RIFF?, WAVE.ChunkType.RF64?, WAVE.ChunkType.BW64?:
        throw AudioFileError.unsupportedFileType(
            "the stream is a '\(first.map { "\($0)" } ?? "")' file of form '\(form.map { "\($0)" } ?? "")', not audio afkit reads",
            offset: 0)
    default:
        // MPEG audio or ADTS, perhaps behind tags or junk: the frames themselves decide.
        return ElementaryStreamParser(mode: mode, limits: limits, hint: hint)
    }
}
