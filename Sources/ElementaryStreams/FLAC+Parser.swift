import AudioFormats
import StreamParsing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The push parser for native FLAC. Metadata blocks are read whole up to the parser's limit
/// (`STREAMINFO`, `SEEKTABLE`, `VORBIS_COMMENT` into `metadata`, `CUESHEET` into markers); pictures,
/// padding and application blocks are stepped over. A frame is a packet: it starts at a header that
/// passes its CRC-8 and belongs to the stream (its rate, channels and depth, numbered next), and ends
/// where a header of the stream starts and the bytes between pass the frame's CRC-16. A frame that no
/// such end confirms within the largest size a frame of its block can take is damaged: skipped with the
/// bytes after it up to the next frame of the stream, and said (frames lost, bytes skipped, where). The
/// stream resumes at the first frame numbered after the last one read, never at a stray copy of a later
/// frame while a frame numbered before it follows within reach.
package struct FLACParser: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    package var runDescriptions: [PacketDescription] { context.descriptions }
    package var packetIndexIsKnown: Bool { context.packetIndexIsKnown }
    package var retainedBytes: [UInt8] { context.retained.bytes }

    enum Phase {
        case signature
        case blockHeader
        /// A metadata block of `length` bytes, read whole.
        case block(type: UInt8, length: Int, isLast: Bool)
        /// A `PICTURE` block of `length` bytes: its header is read (a picture is described, never held), its
        /// data passed over.
        case pictureStart(length: Int, isLast: Bool)
        /// A metadata block passed over (`stepping` bytes still to go): a picture's data, padding, or a block larger
        /// than the limit. A file reader may pass over its bytes without giving them (``skip(_:)``).
        case steppingOver(isLast: Bool)
        case frames
    }

    /// Where the search for a frame's end stands, so more bytes resume it rather than start it again.
    struct EndSearch {
        var frameOffset: Int64
        /// The next index (from the frame's start) where a following header may begin.
        var position: Int
        /// The CRC-16 of the frame's bytes up to `checkedLength`.
        var crc: UInt16 = 0
        var checkedLength = 0
        /// The CRC-16 of the frame's bytes up to `runLength` (all those seen): 0 where the frame may end there.
        var runCRC: UInt16 = 0
        var runLength = 0
        /// The bytes present when the frame's subframes were last walked to find its end.
        var walkedAt = 0
    }

    package var context: ParseContext
    private var phase = Phase.signature
    private(set) var streamInfo: FLACStreamInfo?
    private var seekPoints: [FLAC.SeekPoint] = []
    /// Bytes of a metadata block being passed over.
    private var stepping: Int64 = 0
    private var firstFrameOffset: Int64?
    /// The last frame accepted: the next must follow it. `nil` at the start and after a discontinuity.
    private var previous: FLACFrameHeader?
    private var search: EndSearch?
    private var junk: (start: Int64, count: Int64)?
    /// The size of the last frame accepted, and the samples of frames lost to damage.
    private var lastFrameLength: Int?
    private var lostSamples: Int64 = 0
    private var largest = 0
    private var lastEnd: Int64?
    /// Samples per channel in the frames delivered.
    private var samplesSeen: Int64 = 0
    /// After a seek: the next frame found gives its number to the packet count.
    private var renumbers = false
    /// Before any frame is accepted: the first frame header found (its CRC-8 passing) that STREAMINFO's
    /// rate, channels or depth disown, so a stream none of whose frames agree is refused as lying metadata.
    private var disowned: (offset: Int64, header: FLACFrameHeader)?

    /// `leadingTagSize`: the bytes of an ID3v2 tag before `fLaC`, stepped over.
    package init(mode: ParseMode, limits: ParserLimits, leadingTagSize: Int = 0) {
        context = ParseContext(mode: mode, limits: limits)
        stepping = Int64(leadingTagSize)
        context.properties.fileType = .flac
        if mode == .indexing { context.packetIndex = [] }
    }

    package var skippableByteCount: Int64 { stepping }

    package mutating func skip(_ count: Int64) { stepping = max(stepping - count, 0) }

    package mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }

    package mutating func discontinuity() {
        search = nil
        previous = nil
        endJunk(at: nil)
    }

    // MARK: Metadata

    package mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            let step: ParserStep?
            switch phase {
            case .signature: step = try readSignature(&cursor, atEnd: atEnd)
            case .blockHeader: step = try readBlockHeader(&cursor, atEnd: atEnd)
            case .pictureStart(let length, let isLast):
                step = try readPictureStart(length: length, isLast: isLast, &cursor, atEnd: atEnd)
            case .steppingOver(let isLast):
                // What a file reader passed over (``skip(_:)``) is gone from `stepping` already.
                let count = Int(min(Int64(cursor.remaining), stepping))
                _ = cursor.skip(count)
                stepping -= Int64(count)
                if stepping > 0 {
                    if atEnd { throw Self.cutShort("a metadata block", at: cursor.absoluteOffset) }
                    return .needMore(cursor.remaining + 1)
                }
                phase = isLast ? .frames : .blockHeader
                step = nil
            case .block(let type, let length, let isLast):
                guard cursor.remaining >= length else {
                    if atEnd { throw Self.cutShort("a metadata block", at: cursor.absoluteOffset) }
                    return .needMore(length)
                }
                let offset = cursor.absoluteOffset
                let body = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + length])
                try readBlock(type: type, body, at: offset)
                _ = cursor.skip(length)
                phase = isLast ? .frames : .blockHeader
                step = nil
            case .frames: step = try frame(&cursor, atEnd: atEnd)
            }
            if let step { return step }
        }
    }

    /// Steps over an ID3v2 tag before the signature, then reads `fLaC`; a step where more bytes are needed, `nil`
    /// to go on to the metadata blocks.
    private mutating func readSignature(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep? {
        if stepping > 0 {
            // An ID3v2 tag before the signature.
            let count = Int(min(Int64(cursor.remaining), stepping))
            _ = cursor.skip(count)
            stepping -= Int64(count)
            if stepping > 0 {
                if atEnd {
                    throw AudioFileError.truncated("flac: the stream ends inside an ID3 tag", offset: 0)
                }
                return .needMore(1)
            }
            context.properties.trace.append(offset: 0, size: cursor.absoluteOffset, "ID3v2 tag stepped over")
        }
        guard let magic = cursor.peekInteger(endianness: .big, as: UInt32.self) else {
            if atEnd { throw AudioFileError.truncated("flac: the stream ends inside its signature", offset: 0) }
            return .needMore(4)
        }
        guard magic == 0x664C_6143 else {
            throw AudioFileError.unsupportedFileType("flac: no 'fLaC' signature", offset: cursor.absoluteOffset)
        }
        _ = cursor.skip(4)
        context.announce(.fileFormat)
        phase = .blockHeader
        return nil
    }

    /// Reads a metadata block's header and decides the block's fate: read whole (STREAMINFO, SEEKTABLE,
    /// VORBIS_COMMENT, CUESHEET, within the limit), a picture described, or stepped over (and said, for a block
    /// afkit reads that is past the limit).
    private mutating func readBlockHeader(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep? {
        guard let header = cursor.peekInteger(endianness: .big, as: UInt32.self) else {
            if atEnd { throw Self.cutShort("a metadata block header", at: cursor.absoluteOffset) }
            return .needMore(4)
        }
        let type = UInt8(header >> 24) & 0x7F
        let length = Int(header & 0xFF_FFFF)
        if streamInfo == nil && type != FLAC.BlockType.streamInfo.rawValue {
            throw AudioFileError.malformed(
                "flac: the first metadata block is of type \(type), not STREAMINFO",
                offset: cursor.absoluteOffset)
        }
        if type == 127 {
            throw AudioFileError.malformed(
                "flac: metadata block type 127 is forbidden", offset: cursor.absoluteOffset)
        }
        _ = cursor.skip(4)
        let isLast = header & 0x8000_0000 != 0
        phase = .block(type: type, length: length, isLast: isLast)
        let read: Set<UInt8> = [0, 3, 4, 5]
        if type == FLAC.BlockType.picture.rawValue {
            phase = .pictureStart(length: length, isLast: isLast)
        } else if !read.contains(type) || length > context.limits.maximumMetadataChunkBytes {
            let name = FLAC.BlockType(rawValue: type).map { "\($0)" } ?? "type \(type)"
            context.properties.trace.append(
                offset: cursor.absoluteOffset - 4, size: Int64(length) + 4, "\(name) block stepped over")
            if read.contains(type) {
                // A block afkit reads, past the read limit: memory stays bounded, and the block's loss is said.
                let block = FLAC.blockNames[type] ?? name
                context.noteNotRead(
                    "flac: the \(block) block at byte \(cursor.absoluteOffset - 4) is \(length) bytes, more than "
                        + "the \(context.limits.maximumMetadataChunkBytes) afkit reads: stepped over, not read",
                    NotRead(
                        what: "\(block) block", count: Int64(length), unit: "bytes",
                        offset: cursor.absoluteOffset - 4))
            }
            stepping = Int64(length)
            phase = .steppingOver(isLast: isLast)
        }
        return nil
    }

    /// Reads a `PICTURE` block's header (the picture described, never held; a header too large or damaged is
    /// warned of), then steps over the rest of the block.
    private mutating func readPictureStart(length: Int, isLast: Bool, _ cursor: inout ByteCursor, atEnd: Bool) throws
        -> ParserStep?
    {
        let offset = cursor.absoluteOffset
        let available = UnsafeRawBufferPointer(
            rebasing: cursor.bytes[cursor.position..<cursor.position + min(cursor.remaining, length)])
        var headerLength = 0
        switch Picture.flacBlockStart(available, blockLength: length) {
        case .needs(let count) where count <= context.limits.maximumMetadataChunkBytes:
            if atEnd { throw Self.cutShort("a metadata block", at: cursor.absoluteOffset) }
            return .needMore(count)
        case .needs:
            context.properties.warnings.append(
                "flac: the PICTURE block at byte \(offset - 4) has a header larger than afkit reads: stepped over"
            )
        case .malformed(let reason):
            context.properties.warnings.append(
                "flac: the PICTURE block at byte \(offset - 4) is damaged (\(reason)): stepped over")
        case .picture(var picture, let length):
            headerLength = length
            picture.dataOffset = offset + Int64(length)
            context.properties.pictures.append(picture)
            context.properties.trace.append(
                offset: offset - 4, size: Int64(length) + 4,
                "PICTURE: type \(picture.type), \(picture.mimeType), \(picture.byteCount) bytes")
        }
        _ = cursor.skip(headerLength)
        stepping = Int64(length - headerLength)
        phase = .steppingOver(isLast: isLast)
        return nil
    }

    private static func cutShort(_ what: String, at offset: Int64) -> AudioFileError {
        .truncated("flac: the stream ends inside \(what), before any frame", offset: offset)
    }

    private mutating func readBlock(type: UInt8, _ body: UnsafeRawBufferPointer, at offset: Int64) throws {
        switch FLAC.BlockType(rawValue: type) {
        case .streamInfo:
            guard streamInfo == nil else {
                throw AudioFileError.malformed("flac: a second STREAMINFO block", offset: offset - 4)
            }
            guard body.count == FLACStreamInfo.size, let info = FLACStreamInfo(body) else {
                throw AudioFileError.malformed(
                    "flac: STREAMINFO is \(body.count) bytes or holds impossible values (a 34-byte block with a "
                        + "rate above 0 and blocks of 16 samples or more expected)", offset: offset)
            }
            streamInfo = info
            context.properties.dataFormat = info.streamDescription
            context.properties.magicCookie = Array(body)
            if info.maximumFrameSize > 0 { context.properties.maximumPacketSize = UInt32(info.maximumFrameSize) }
            if info.totalSamples > 0 {
                let frames = Int64(info.maximumBlockSize)
                let packets = (info.totalSamples + frames - 1) / frames
                context.properties.audioDataPacketCount = info.minimumBlockSize == info.maximumBlockSize ? packets : nil
                context.properties.packetTableInfo = PacketTableInfo(
                    validFrames: info.totalSamples, primingFrames: 0,
                    remainderFrames: info.minimumBlockSize == info.maximumBlockSize
                        ? Int32(packets * frames - info.totalSamples) : 0)
                context.announce(.packetTableInfo)
            }
            context.properties.trace.append(
                offset: offset - 4, size: Int64(body.count) + 4,
                "STREAMINFO: \(info.sampleRate) Hz, \(info.channels) ch, \(info.bitsPerSample) bits, "
                    + "\(info.totalSamples) samples")
            context.announce(.dataFormat)
            context.announce(.magicCookie)
        case .seekTable:
            seekPoints = FLAC.seekPoints(body)
            context.properties.trace.append(
                offset: offset - 4, size: Int64(body.count) + 4, "SEEKTABLE: \(seekPoints.count) points")
        case .vorbisComment:
            if VorbisComment.read(body, into: &context.properties) == true { context.announce(.infoDictionary) }
            context.properties.trace.append(offset: offset - 4, size: Int64(body.count) + 4, "VORBIS_COMMENT")
        case .cueSheet:
            if let markers = FLAC.cueSheetMarkers(body) {
                context.properties.markers = markers
                context.announce(.markers)
            }
            context.properties.trace.append(offset: offset - 4, size: Int64(body.count) + 4, "CUESHEET")
        default: break
        }
    }

    // MARK: Frames

    /// Whether a header belongs to this stream: `STREAMINFO`'s channels, rate and depth, numbered after
    /// the frame before (any number after a discontinuity).
    private func belongs(_ header: FLACFrameHeader, info: FLACStreamInfo) -> Bool {
        guard Self.matches(header, info: info) else { return false }
        guard let previous else { return true }
        // After damage skipped as junk: any later frame of the stream resumes it (the frames between are lost).
        if junk != nil, header.isVariableBlockSize == previous.isVariableBlockSize, header.number > previous.number {
            return true
        }
        return previous.isFollowed(by: header)
    }

    /// Whether a header states `STREAMINFO`'s channels, rate and depth, and a block it allows.
    private static func matches(_ header: FLACFrameHeader, info: FLACStreamInfo) -> Bool {
        header.channels == info.channels && (header.sampleRate.map { $0 == info.sampleRate } ?? true)
            && (header.bitsPerSample.map { $0 == info.bitsPerSample } ?? true)
            && header.blockSize <= info.maximumBlockSize
    }

    /// How far past a frame that resumes the stream after damage with a jump in its number the parser looks
    /// for a frame numbered inside the jump (see ``jumpsPastAFrameAhead(_:in:after:info:)``).
    private static func resumeLookAhead(_ header: FLACFrameHeader, info: FLACStreamInfo) -> Int {
        max(4 * largestFrame(header, info: info), 1 << 16)
    }

    /// Whether a frame of the stream numbered between `previous` and `header` (a header passing its CRC-8) starts
    /// within the look-ahead after `header`'s first byte. Then `header` is not where the stream resumes: it is a
    /// stray copy of a later frame (bytes of the stream duplicated into it, as a botched copy or transfer leaves
    /// them), and resuming there would refuse every genuine frame after it as out of order.
    private static func jumpsPastAFrameAhead(
        _ header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, after previous: FLACFrameHeader,
        info: FLACStreamInfo
    ) -> Bool {
        let end = min(bytes.count, resumeLookAhead(header, info: info))
        var position = 1
        while let candidate = nextSync(in: bytes, from: position, before: end - 1) {
            position = candidate + 1
            guard candidate + FLACFrameHeader.maximumLength <= bytes.count,
                let next = FLACFrameHeader(UnsafeRawBufferPointer(rebasing: bytes[candidate...]), streamInfo: info),
                matches(next, info: info), next.isVariableBlockSize == previous.isVariableBlockSize
            else { continue }
            if next.number > previous.number && next.number < header.number { return true }
        }
        return false
    }

    /// The most bytes a frame of `header`'s block can take: its samples stored verbatim, a side channel's
    /// extra bit, the subframe headers and wasted-bits codes, the header and the CRC-16.
    private static func largestFrame(_ header: FLACFrameHeader, info: FLACStreamInfo) -> Int {
        let bits = header.bitsPerSample ?? info.bitsPerSample
        return (header.blockSize * header.channels * (bits + 1) + 7) / 8 + header.channels * 8
            + FLACFrameHeader.maximumLength + 2
    }

    /// The frame at the cursor: delivered once its end is found, or the bytes passed over up to the next byte that
    /// could start one of the stream's frames; a step where more bytes are needed, `nil` to go on.
    private mutating func frame(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep? {
        guard let info = streamInfo else { return .needMore(1) }
        guard cursor.remaining > 0 else { return .needMore(1) }
        let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
        let offset = cursor.absoluteOffset
        if bytes.count < FLACFrameHeader.maximumLength && !atEnd { return .needMore(FLACFrameHeader.maximumLength) }
        let parsed = bytes[0] == 0xFF ? FLACFrameHeader(bytes, streamInfo: info) : nil
        guard let header = parsed, belongs(header, info: info) else {
            return try passOver(parsed, in: bytes, at: offset, &cursor, atEnd: atEnd, info: info)
        }
        if junk != nil, let previous, !previous.isFollowed(by: header) {
            // Resuming after damage with frames lost: not at a stray copy of a later frame.
            if bytes.count < Self.resumeLookAhead(header, info: info) && !atEnd {
                return .needMore(Self.resumeLookAhead(header, info: info))
            }
            if Self.jumpsPastAFrameAhead(header, in: bytes, after: previous, info: info) {
                skipAsJunk(Self.bytesBeforeNextSync(bytes), at: offset, &cursor)
                return nil
            }
        }
        if search?.frameOffset != offset { search = EndSearch(frameOffset: offset, position: header.length + 1) }
        guard var search else { return nil }
        defer { self.search = search }
        return try findEnd(of: header, in: bytes, at: offset, search: &search, &cursor, atEnd: atEnd, info: info)
    }

    /// Where the bytes at `offset` are not this stream's next frame: a frame in a format STREAMINFO does not state
    /// where the stream's next (or first) frame belongs is refused; an ID3v1 tag at the end is traced; anything
    /// else is junk up to the next byte that could start a frame.
    private mutating func passOver(
        _ parsed: FLACFrameHeader?, in bytes: UnsafeRawBufferPointer, at offset: Int64, _ cursor: inout ByteCursor,
        atEnd: Bool, info: FLACStreamInfo
    ) throws -> ParserStep? {
        if firstFrameOffset == nil, disowned == nil, let header = parsed {
            disowned = (offset, header)
        }
        if junk == nil, let header = parsed, !Self.matches(header, info: info),
            previous.map({ $0.isNumbered(before: header) }) ?? (firstFrameOffset == nil)
        {
            // A whole frame where the stream's next (or first) frame belongs, in a format STREAMINFO does not
            // state: the stream changes its format, or (its first frame) its STREAMINFO lies.
            switch Self.checksWhole(header, in: bytes, info: info, atEnd: atEnd) {
            case .some(true): throw Self.disowning(header, info: info, at: offset, midStream: previous != nil)
            case .none: return .needMore(Self.largestFrame(header, info: info) + 2)
            case .some(false): break
            }
        }
        // Not this stream's next frame: pass to the next byte that could start one.
        if atEnd && previous != nil && Self.isTrailingTag(bytes) {
            context.properties.trace.append(offset: offset, size: Int64(bytes.count), "ID3v1 tag after the frames")
            _ = cursor.skip(bytes.count)
            return nil
        }
        skipAsJunk(Self.bytesBeforeNextSync(bytes), at: offset, &cursor)
        return nil
    }

    /// The bytes before the next that could start a frame (0xFF), the first byte always among them.
    private static func bytesBeforeNextSync(_ bytes: UnsafeRawBufferPointer) -> Int {
        var skip = 1
        while skip < bytes.count, bytes[skip] != 0xFF { skip += 1 }
        return skip
    }

    /// Passes `count` bytes over as junk, a run that begins at `offset` unless one is open (said where the stream
    /// resumes).
    private mutating func skipAsJunk(_ count: Int, at offset: Int64, _ cursor: inout ByteCursor) {
        if junk == nil { junk = (offset, 0) }
        junk?.count += Int64(count)
        _ = cursor.skip(count)
    }

    /// Searches for the end of the frame `header` opens: where a following header of the stream starts and the
    /// bytes before it pass the CRC-16, or the stream's last frame's end; past the largest size its block allows,
    /// the frame is damaged (passed over as junk). Resumes where `search` stopped.
    private mutating func findEnd(
        of header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, at offset: Int64, search: inout EndSearch,
        _ cursor: inout ByteCursor, atEnd: Bool, info: FLACStreamInfo
    ) throws -> ParserStep? {
        let limit = Self.largestFrame(header, info: info)
        while true {
            let end = min(bytes.count - 1, limit)
            if let candidate = Self.nextSync(in: bytes, from: search.position, before: end) {
                if candidate + FLACFrameHeader.maximumLength > bytes.count && !atEnd {
                    // (Bytes near the end that look like a sync: the stream's last frame may end there all the same.)
                    if let length = lastFrameLength(header, in: bytes, info: info, search: &search) {
                        return try accept(header, length: length, cursor: &cursor)
                    }
                    // (Asked again at every byte more: the last frame may end before this header could.)
                    search.position = candidate
                    return .needMore(bytes.count + 1)
                }
                search.position = candidate + 1
                // The next frame of the stream (in this format or, refused above, another), or a stray one (whole
                // frames copied in after this one: their CRC-16s would check together with this frame's, one packet
                // swallowing them unsaid). Either way this frame ends where its CRC-16 checks; the stray frames after
                // it are damage, said as such.
                guard
                    let next = FLACFrameHeader(UnsafeRawBufferPointer(rebasing: bytes[candidate...]), streamInfo: info),
                    header.isNumbered(before: next) || Self.matches(next, info: info)
                else { continue }
                search.crc = FoldedCRC.flac(
                    UnsafeRawBufferPointer(rebasing: bytes[search.checkedLength..<candidate]), continuing: search.crc)
                search.checkedLength = candidate
                if search.crc == 0 {
                    return try accept(header, length: candidate, cursor: &cursor)
                }
                continue
            }
            search.position = max(search.position, end)
            if bytes.count > limit + 1 {
                // Damaged (its bytes fail the CRC-16 up to every later frame within its reach): skipped as junk, up
                // to the next frame of the stream, and said.
                skipAsJunk(1, at: offset, &cursor)
                return nil
            }
            if let length = lastFrameLength(header, in: bytes, info: info, search: &search) {
                return try accept(header, length: length, cursor: &cursor)
            }
            // Any byte more may end the frame (the search goes on where it stopped): a stream that ends soon after
            // still has every frame it completed delivered in the parse that completed it.
            if !atEnd { return .needMore(min(limit + 2, bytes.count + 1)) }
            // Not the last frame where a later frame of the stream follows it: its bytes fail the CRC-16 up to every
            // frame after it, so it is damaged, skipped up to the next frame and said, as within the stream.
            if Self.frameFollows(header, in: bytes, info: info) {
                skipAsJunk(1, at: offset, &cursor)
                return nil
            }
            return try endLastFrame(header, in: bytes, at: offset, search: search, &cursor, limit: limit)
        }
    }

    /// At the end of the stream, the last frame (`header`'s) runs to the end, or to an ID3v1 tag, or is followed by
    /// bytes that are not frames (zeros, junk): it ends where its CRC-16 checks, at the place nearest the frame
    /// before in size where the bytes check at more than one; where they check nowhere, it is cut short or damaged,
    /// not a packet.
    private mutating func endLastFrame(
        _ header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, at offset: Int64, search: EndSearch,
        _ cursor: inout ByteCursor, limit: Int
    ) throws -> ParserStep? {
        // (Zeros after the frame keep its CRC-16 at 0: its end is the first place it checks after the frame's
        // own bytes, which may end in up to two zero bytes of the CRC itself.)
        var zeros = 0
        while zeros < bytes.count && bytes[bytes.count - 1 - zeros] == 0 { zeros += 1 }
        let padded = Array(bytes.count - zeros...min(bytes.count - zeros + 2, bytes.count))
        let tagged = bytes.count - ID3.version1Size
        for length in padded + [tagged] where length > header.length {
            if length == tagged && !Self.isTrailingTag(UnsafeRawBufferPointer(rebasing: bytes[length...])) {
                continue
            }
            let crc = FoldedCRC.flac(
                UnsafeRawBufferPointer(rebasing: bytes[search.checkedLength..<length]), continuing: search.crc)
            if crc == 0 { return try accept(header, length: length, cursor: &cursor) }
        }
        var ends: [Int] = []
        var crc: UInt16 = 0
        for index in 0..<min(bytes.count, limit + 1) {
            crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: bytes[index..<index + 1]), continuing: crc)
            if crc == 0 && index + 1 > header.length + 2 { ends.append(index + 1) }
        }
        let typical = lastFrameLength ?? bytes.count
        if let end = ends.min(by: { abs($0 - typical) < abs($1 - typical) }) {
            // (The bytes after it are passed over as trailing junk, with a warning.)
            return try accept(header, length: end, cursor: &cursor)
        }
        // Cut short, or damaged: either way not a packet.
        context.properties.isTruncated = true
        context.properties.trace.append(
            offset: offset, size: Int64(bytes.count),
            "the last frame is cut short or damaged (\(bytes.count) bytes fail its CRC-16): not a packet")
        _ = cursor.skip(bytes.count)
        return nil
    }

    /// The length of the stream's last frame by `STREAMINFO`'s sample count, found by walking its subframes: no next
    /// header shows where it ends, and a client that never says the stream ended still gets it (as Apple's parser
    /// delivers it). Walked where the bytes so far check (CRC-16 0) or have doubled since the last walk, so a
    /// stream fed a byte at a time costs linear time.
    private func lastFrameLength(
        _ header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, info: FLACStreamInfo, search: inout EndSearch
    ) -> Int? {
        guard info.totalSamples > 0 else { return nil }
        let first = header.isVariableBlockSize ? header.number : header.number &* UInt64(info.maximumBlockSize)
        guard first < UInt64(info.totalSamples), first + UInt64(header.blockSize) >= UInt64(info.totalSamples) else {
            return nil
        }
        if search.runLength < bytes.count {
            search.runCRC = FoldedCRC.flac(
                UnsafeRawBufferPointer(rebasing: bytes[search.runLength...]), continuing: search.runCRC)
            search.runLength = bytes.count
        }
        guard search.runCRC == 0 || bytes.count >= 2 * max(search.walkedAt, header.length + 2) else { return nil }
        search.walkedAt = bytes.count
        return header.walkedLength(in: bytes, streamBitsPerSample: info.bitsPerSample)
    }

    /// Whether the frame `header` starts at the start of `bytes` checks whole: its CRC-16 passes where another frame
    /// header (of any format) starts, or at the end of the stream; `nil` where more bytes could tell.
    private static func checksWhole(
        _ header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, info: FLACStreamInfo, atEnd: Bool
    ) -> Bool? {
        let limit = largestFrame(header, info: info)
        var position = header.length + 1
        var crc: UInt16 = 0
        var checked = 0
        while let candidate = nextSync(in: bytes, from: position, before: min(bytes.count - 1, limit)) {
            position = candidate + 1
            guard FLACFrameHeader(UnsafeRawBufferPointer(rebasing: bytes[candidate...])) != nil else { continue }
            crc = FoldedCRC.flac(UnsafeRawBufferPointer(rebasing: bytes[checked..<candidate]), continuing: crc)
            checked = candidate
            if crc == 0 { return true }
        }
        if atEnd && bytes.count <= limit + 1 {
            return FoldedCRC.flac(UnsafeRawBufferPointer(rebasing: bytes[checked...]), continuing: crc) == 0
        }
        return bytes.count > limit + 1 ? false : nil
    }

    /// The refusal of a stream whose frame at `offset`, whole, has a format `STREAMINFO` does not state: mid-stream,
    /// a stream that changes its rate, channels or depth (legal and rare: IETF testbench `uncommon` 01-04, which
    /// libFLAC and FFmpeg refuse too); otherwise metadata that lies.
    private static func disowning(_ header: FLACFrameHeader, info: FLACStreamInfo, at offset: Int64, midStream: Bool)
        -> AudioFileError
    {
        if midStream {
            var changes: [String] = []
            if let rate = header.sampleRate, rate != info.sampleRate {
                changes.append("its sample rate from \(info.sampleRate) Hz to \(rate) Hz")
            }
            if header.channels != info.channels {
                changes.append("its channels from \(info.channels) to \(header.channels)")
            }
            if let bits = header.bitsPerSample, bits != info.bitsPerSample {
                changes.append("its depth from \(info.bitsPerSample) to \(bits) bits")
            }
            if header.blockSize > info.maximumBlockSize {
                changes.append(
                    "its block size to \(header.blockSize), above STREAMINFO's largest (\(info.maximumBlockSize))")
            }
            return .unsupportedDataFormat(
                "flac: the stream changes \(changes.joined(separator: " and ")) mid-stream; afkit reads a FLAC stream "
                    + "of one format (split it where it changes)", offset: offset)
        }
        func describe(rate: Int?, channels: Int, bits: Int?, block: Int) -> String {
            [rate.map { "\($0) Hz" }, "\(channels) ch", bits.map { "\($0) bits" }, "blocks of \(block) samples"]
                .compactMap { $0 }.joined(separator: ", ")
        }
        let stated = describe(
            rate: info.sampleRate, channels: info.channels, bits: info.bitsPerSample,
            block: info.maximumBlockSize)
        let found = describe(
            rate: header.sampleRate, channels: header.channels, bits: header.bitsPerSample, block: header.blockSize)
        return .malformed(
            "flac: STREAMINFO states \(stated) at most; the frame at byte \(offset) states \(found): the file's "
                + "metadata lies", offset: offset)
    }

    /// Whether a frame of the stream numbered after `header`'s starts in `bytes` after `header`'s own.
    private static func frameFollows(_ header: FLACFrameHeader, in bytes: UnsafeRawBufferPointer, info: FLACStreamInfo)
        -> Bool
    {
        var position = header.length
        while let candidate = nextSync(in: bytes, from: position, before: bytes.count - 1) {
            position = candidate + 1
            guard let next = FLACFrameHeader(UnsafeRawBufferPointer(rebasing: bytes[candidate...]), streamInfo: info),
                matches(next, info: info), next.isVariableBlockSize == header.isVariableBlockSize,
                next.number > header.number
            else { continue }
            return true
        }
        return false
    }

    private static func isTrailingTag(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count == ID3.version1Size && bytes[0] == 0x54 && bytes[1] == 0x41 && bytes[2] == 0x47
    }

    /// The first index in `from..<before` holding 0xFF followed by a frame sync byte (0xF8 or 0xF9).
    private static func nextSync(in bytes: UnsafeRawBufferPointer, from start: Int, before end: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index < end {
            // libc's memchr finds the next 0xFF (vectorized: ten times the loop's speed).
            guard let found = memchr(base + index, 0xFF, end - index) else { return nil }
            index = base.distance(to: UnsafeRawPointer(found))
            if bytes[index + 1] & 0xFE == 0xF8 { return index }
            index += 1
        }
        return nil
    }

    /// Ends a run of bytes that are not frames; between frames (`atEnd` false) they are damage, said.
    private mutating func endJunk(at offset: Int64?, atEnd: Bool = false) {
        guard let junk else { return }
        context.properties.trace.append(
            offset: junk.start, size: junk.count, "\(junk.count) bytes that are not frames of the stream skipped")
        if atEnd {
            // After the last frame: a frame cut short, or trailing bytes; the count below says which.
            if previous != nil {
                context.properties.warnings.append("flac: \(junk.count) bytes after the last frame skipped")
            }
        } else if previous != nil || firstFrameOffset != nil {
            context.noteDamage(
                "flac: \(junk.count) bytes at byte \(junk.start) are not frames of the stream (or fail their check); "
                    + "skipped")
        }
        self.junk = nil
    }

    private mutating func accept(_ header: FLACFrameHeader, length: Int, cursor: inout ByteCursor) throws -> ParserStep?
    {
        let offset = cursor.absoluteOffset
        endJunk(at: offset)
        search = nil
        if firstFrameOffset == nil {
            firstFrameOffset = offset
            context.properties.dataOffset = offset
            context.announce(.dataOffset)
            context.announcedReady = true
            context.announce(.readyToProducePackets)
        }
        if renumbers {
            if header.isVariableBlockSize {
                // Its number counts samples, not packets: numbered from its offset, said to be unknown.
                numberResumedPacket(at: offset)
            } else {
                // After a seek, the frame's own number says which packet it is.
                context.nextPacket = Int64(header.number)
                context.packetIndexIsKnown = true
                context.numberingFromOffset = nil
            }
        }
        renumbers = false
        if let previous, !previous.isFollowed(by: header), !header.isVariableBlockSize {
            let lost = header.number - previous.number - 1
            lostSamples += Int64(lost) * Int64(previous.blockSize)
            context.noteDamage(
                "flac: \(lost) frame\(lost == 1 ? "" : "s") after frame \(previous.number) lost (damaged: \(lost) blocks of "
                    + "\(previous.blockSize) samples); the stream resumes at frame \(header.number), byte \(offset)")
        }
        previous = header
        lastFrameLength = length
        largest = max(largest, length)
        lastEnd = offset + Int64(length)
        samplesSeen += Int64(header.blockSize)
        let packet = context.nextPacket
        context.noteSeenPacket(packet, at: offset)
        context.nextPacket += 1
        let frames = context.properties.dataFormat?.framesPerPacket == 0 ? UInt32(header.blockSize) : 0
        context.packetIndex?.append(
            PacketDescription(startOffset: offset, variableFramesInPacket: frames, dataByteSize: UInt32(length)))
        _ = cursor.skip(length)
        if context.mode == .indexing { return nil }
        context.beginPacketRun()
        _ = context.appendPacket(at: 0, size: UInt32(length), frames: frames)
        return .packets(
            PacketRun(
                source: .input(index: cursor.position - length), firstPacket: packet, packetCount: 1,
                absoluteOffset: offset, byteCount: length, hasDescriptions: true))
    }

    // MARK: Ending and seeking

    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        let trailing = junk?.count ?? 0
        endJunk(at: endOffset, atEnd: true)
        guard let info = streamInfo, var format = context.properties.dataFormat else {
            throw AudioFileError.truncated("flac: the stream ends before its STREAMINFO block", offset: endOffset)
        }
        switch phase {
        case .block, .pictureStart, .steppingOver: throw Self.cutShort("a metadata block", at: endOffset)
        default: break
        }
        let packets = context.nextPacket
        context.properties.audioDataPacketCount = packets
        context.properties.audioDataByteCount = firstFrameOffset.flatMap { first in lastEnd.map { $0 - first } } ?? 0
        if context.properties.dataOffset == nil { context.properties.dataOffset = endOffset }
        context.properties.maximumPacketSize = UInt32(max(largest, info.maximumFrameSize))
        if firstFrameOffset == nil, let (offset, header) = disowned {
            // Frames are there, and none agrees with STREAMINFO: the metadata lies; never 0 frames with success.
            throw Self.disowning(header, info: info, at: offset, midStream: false)
        }
        if info.totalSamples > 0 && samplesSeen != info.totalSamples && samplesSeen + lostSamples != info.totalSamples {
            let note =
                "flac: STREAMINFO states \(info.totalSamples) samples; the frames hold \(samplesSeen), which count"
            context.properties.trace.append(offset: endOffset, note)
            // The stream ends whole (a short last block, nothing cut after it) before the count: the count lies.
            let endsWhole =
                trailing == 0 && info.minimumBlockSize == info.maximumBlockSize
                && (previous.map { $0.blockSize < info.maximumBlockSize } ?? false)
            if samplesSeen < info.totalSamples && !endsWhole {
                context.properties.isTruncated = true
            } else {
                context.noteDamage(note + ": the count lies")
            }
        }
        if format.framesPerPacket > 0 && packets > 0 && samplesSeen > Int64(format.framesPerPacket) * packets {
            // Blocks larger than STREAMINFO's fixed size: the packets vary after all.
            format.framesPerPacket = 0
            context.properties.dataFormat = format
        }
        let total = format.framesPerPacket > 0 ? packets * Int64(format.framesPerPacket) : samplesSeen
        context.properties.packetTableInfo = PacketTableInfo(
            validFrames: samplesSeen, primingFrames: 0, remainderFrames: Int32(clamping: total - samplesSeen))
        context.announce(.packetTableInfo)
    }

    /// Resumes at a packet: exact from the index or a `SEEKTABLE` point at its first sample, else at the
    /// estimate of ``packetToByte(_:averagePacketSize:)``; the frame found there says which packet it is
    /// (its number, in a stream of fixed blocks).
    package mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        guard streamInfo != nil, let first = firstFrameOffset ?? context.properties.dataOffset, packet >= 0,
            let estimate = packetToByte(packet, averagePacketSize: averagePacketSize)
        else {
            throw AudioFileError.illegalOperation("flac: cannot seek before the first frame")
        }
        search = nil
        previous = nil
        phase = .frames
        resumeNumbering(atPacket: packet, isEstimate: estimate.isEstimate, averagePacketSize: averagePacketSize)
        renumbers = estimate.isEstimate
        let (offset, overflow) = first.addingReportingOverflow(max(estimate.offset, 0))
        return (overflow ? Int64.max : offset, estimate.isEstimate)
    }

    /// A packet's offset: exact from the index or a `SEEKTABLE` point at its first sample, else estimated
    /// from the nearest point before it and the average frame.
    package func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (offset: Int64, isEstimate: Bool)? {
        guard packet >= 0, let info = streamInfo else { return nil }
        if let start = context.knownStart(ofPacket: packet), let dataOffset = context.properties.dataOffset {
            return (start - dataOffset, false)
        }
        let blockSize = Int64(info.maximumBlockSize)
        guard let sample = packet.multipliedOrNil(by: blockSize) else { return nil }
        let point = seekPoints.last { $0.sample <= sample }
        if let point, point.sample == sample { return (point.offset, false) }
        let first = firstFrameOffset ?? context.properties.dataOffset ?? 0
        let average =
            averagePacketSize
            ?? (context.nextPacket > 0
                ? Double((lastEnd ?? first) - first) / Double(context.nextPacket)
                : Double(max(info.maximumFrameSize, info.minimumFrameSize, 1)))
        let from = point.map { ($0.offset, $0.sample / blockSize) } ?? (0, 0)
        let estimate = Double(from.0) + Double(packet - from.1) * average
        return (estimate < Double(Int64.max / 2) ? Int64(estimate) : Int64.max / 2, true)
    }
}
