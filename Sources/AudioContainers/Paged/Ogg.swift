import AudioFormats

/// Ogg (RFC 3533), the paged kind: pages (`OggS`, a header with its CRC-32 and a lacing table) carry
/// the packets of one or more logical streams, a packet cut by lacing values of 255 and continued
/// across pages. afkit reads the first audio stream (Vorbis, Opus or FLAC, by its first packet),
/// skipping the pages of every other (a video stream, a skeleton), and stops at its end (a chained
/// file's later links are noted, not read).
enum Ogg {
    /// The codec of a logical stream, from its first packet.
    enum Codec: Equatable {
        case vorbis, opus, flac
        /// Recognised and not read: named in the refusal.
        case other(name: String, reason: String)

        init(firstPacket bytes: UnsafeRawBufferPointer) {
            func starts(_ prefix: [UInt8]) -> Bool { bytes.count >= prefix.count && bytes.starts(with: prefix) }
            if starts([1] + Array("vorbis".utf8)) {
                self = .vorbis
            } else if starts(Array("OpusHead".utf8)) {
                self = .opus
            } else if starts([0x7F] + Array("FLAC".utf8)) {
                self = .flac
            } else if starts(Array("Speex   ".utf8)) {
                self = .other(name: "an Ogg Speex file", reason: FileSignature.notDecoded("Speex"))
            } else if starts([0x80] + Array("theora".utf8)) {
                self = .other(name: "an Ogg Theora video", reason: FileSignature.extractFirst)
            } else {
                self = .other(
                    name: "an Ogg file",
                    reason: "afkit reads Ogg Vorbis, Opus and FLAC; " + FileSignature.convertFirst)
            }
        }

        var isAudio: Bool { if case .other = self { false } else { true } }
    }

    /// A page header: 27 bytes, then the lacing table.
    struct PageHeader {
        var flags: UInt8
        var granulePosition: Int64
        var serial: UInt32
        var sequence: UInt32
        var segments: Int
        var isContinued: Bool { flags & 1 != 0 }
        var isFirst: Bool { flags & 2 != 0 }
        var isLast: Bool { flags & 4 != 0 }
        static let size = 27

        /// The header at the start of `bytes` (which hold at least 27), or `nil` where it is none.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= Self.size, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53,
                bytes[4] == 0
            else { return nil }
            let reader = ByteCursor(bytes)
            flags = bytes[5]
            granulePosition = reader.getInteger(at: 6, endianness: .little, as: Int64.self) ?? -1
            serial = reader.getInteger(at: 14, endianness: .little, as: UInt32.self) ?? 0
            sequence = reader.getInteger(at: 18, endianness: .little, as: UInt32.self) ?? 0
            segments = Int(bytes[26])
        }
    }

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, unreflected, from zero) of a page whose CRC field holds
    /// `stored`, computed as if the field were zero.
    static func pageChecksum(_ page: UnsafeRawBufferPointer) -> UInt32 {
        crcTables.withUnsafeBufferPointer { tables -> UInt32 in
            let table = tables.baseAddress.unsafelyUnwrapped
            var crc: UInt32 = 0
            func byte(_ value: UInt8) { crc = crc << 8 ^ table[Int(UInt8(crc >> 24) ^ value)] }
            for index in 0..<22 { byte(page[index]) }
            for _ in 0..<4 { byte(0) }
            var index = 26
            let count = page.count
            // Sixteen bytes a step (slicing-by-16): the CRC enters only the first four lookups; the other
            // twelve do not wait for it.
            while index + 16 <= count {
                let first = UInt64(bigEndian: page.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let second = UInt64(bigEndian: page.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
                let a = UInt32(first >> 32) ^ crc
                let b = UInt32(truncatingIfNeeded: first)
                let c = UInt32(second >> 32)
                let d = UInt32(truncatingIfNeeded: second)
                let fromA =
                    table[15 * 256 + Int(a >> 24)] ^ table[14 * 256 + Int((a >> 16) & 0xFF)]
                    ^ table[13 * 256 + Int((a >> 8) & 0xFF)] ^ table[12 * 256 + Int(a & 0xFF)]
                let fromB =
                    table[11 * 256 + Int(b >> 24)] ^ table[10 * 256 + Int((b >> 16) & 0xFF)]
                    ^ table[9 * 256 + Int((b >> 8) & 0xFF)] ^ table[8 * 256 + Int(b & 0xFF)]
                let fromC =
                    table[7 * 256 + Int(c >> 24)] ^ table[6 * 256 + Int((c >> 16) & 0xFF)]
                    ^ table[5 * 256 + Int((c >> 8) & 0xFF)] ^ table[4 * 256 + Int(c & 0xFF)]
                let fromD =
                    table[3 * 256 + Int(d >> 24)] ^ table[2 * 256 + Int((d >> 16) & 0xFF)]
                    ^ table[256 + Int((d >> 8) & 0xFF)] ^ table[Int(d & 0xFF)]
                crc = fromA ^ fromB ^ fromC ^ fromD
                index &+= 16
            }
            while index < count {
                byte(page[index])
                index &+= 1
            }
            return crc
        }
    }

    /// Sixteen tables for slicing-by-16 (``CRCTables``).
    static let crcTables = CRCTables.slicing(polynomial: UInt32(0x04C1_1DB7), count: 16)

    /// What a Vorbis stream's identification and setup headers say about its packets' lengths.
    struct VorbisBlocks: Equatable {
        var short: Int
        var long: Int
        /// Each mode's block flag (long or short).
        var modeIsLong: [Bool]

        /// The mode number's width in an audio packet's first byte.
        var modeBits: Int { modeIsLong.count <= 1 ? 0 : 64 - UInt64(modeIsLong.count - 1).leadingZeroBitCount }

        /// The block size of an audio packet (bit 0 of its first byte 0, then the mode number); `nil` for a
        /// packet that is none.
        func blockSize(_ packet: UnsafeRawBufferPointer) -> Int? {
            guard let first = packet.first, first & 1 == 0 else { return nil }
            let mode = Int(first >> 1) & ((1 << modeBits) - 1)
            guard mode < modeIsLong.count else { return nil }
            return modeIsLong[mode] ? long : short
        }

        /// The modes' block flags, read from the end of the setup header: its last set bit is the framing
        /// bit, before it each mode's 41 bits (a block flag, a window type and a transform type that must be
        /// 0, a mapping), before them the count less one in 6 bits. The modes are the longest run of zero
        /// types the count before them agrees with.
        static func modes(setup: UnsafeRawBufferPointer) -> [Bool]? {
            guard let lastIndex = setup.lastIndex(where: { $0 != 0 }) else { return nil }
            // Bits are numbered from the start, each byte's least significant bit first.
            func bit(_ position: Int) -> Bool { setup[position >> 3] >> (position & 7) & 1 == 1 }
            func value(_ position: Int, _ width: Int) -> Int {
                (0..<width).reduce(0) { $0 | (bit(position + $1) ? 1 << $1 : 0) }
            }
            let framing = lastIndex * 8 + (7 - setup[lastIndex].leadingZeroBitCount)
            var candidates: [Bool] = []
            var end = framing
            var found: [Bool]?
            while end - 41 >= 6 + 8 * 7 {
                let start = end - 41
                // Window type (16 bits after the flag) and transform type (16 more) must be zero.
                guard value(start + 1, 16) == 0, value(start + 17, 16) == 0 else { break }
                candidates.insert(bit(start), at: 0)
                end = start
                if value(end - 6, 6) + 1 == candidates.count { found = candidates }
            }
            return found
        }
    }

    /// The frames an Opus packet decodes to (RFC 6716, 3.1): its TOC's frame duration times its frame count.
    static func opusFrames(_ packet: UnsafeRawBufferPointer) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        let duration: Int
        switch config {
        case 0..<12: duration = [480, 960, 1920, 2880][config & 3]  // SILK: 10, 20, 40, 60 ms
        case 12..<16: duration = [480, 960][config & 1]  // hybrid: 10, 20 ms
        default: duration = [120, 240, 480, 960][config & 3]  // CELT: 2.5, 5, 10, 20 ms
        }
        let count: Int
        switch toc & 3 {
        case 0: count = 1
        case 1, 2: count = 2
        default:
            guard packet.count >= 2 else { return nil }
            count = Int(packet[1] & 0x3F)
        }
        let frames = duration * count
        // At most 120 ms in a packet.
        return frames > 0 && frames <= 5760 ? frames : nil
    }
}

extension FourCharCode {
    /// Vorbis (the ID the contract gives it; Apple defines none).
    public static let vorbis: FourCharCode = "vorb"
}

/// The push parser for Ogg. A page is taken whole (at most 65,307 bytes) once its CRC-32 checks; the
/// chosen stream's packets are handed out one run each, at the offset of the page they begin on (as
/// ffprobe and Ogg's seeking place them): in place where a packet lies in one page, joined where it
/// spans pages. Its header packets become the format, the cookie and the metadata; each packet's frames
/// come from the codec (Vorbis's block sizes, Opus's TOC, FLAC's frame header), the valid frames from
/// the last granule position: Opus's pre-skip is priming, the decoded frames past the last granule the
/// remainder.
struct OggParser: StreamParser {
    /// The logical stream afkit reads.
    struct Stream {
        var serial: UInt32
        var codec: Ogg.Codec
        /// Header packets still to come (`nil`: FLAC's count not given, until the first frame).
        var headersLeft: Int?
        var headers: [[UInt8]] = []
        var vorbis: Ogg.VorbisBlocks?
        var previousBlock: Int?
        var preSkip = 0
        var nextSequence: UInt32?
        var lastGranule: Int64?
        /// The granule position before the first audio packet (0 for a stream that starts at the start).
        var startGranule: Int64?
        /// Frames of the audio packets completed so far (what a decoder gives).
        var frames: Int64 = 0
        var ended = false
    }

    /// An audio packet of the page being handed out.
    struct QueuedPacket {
        /// Its index in the page, or `nil` for the packet joined from pieces (in ``joined``).
        var start: Int?
        var size: Int
        var frames: Int
        /// The offset of the page it begins on.
        var pageOffset: Int64
    }

    var context: ParseContext
    private var stream: Stream?
    /// Streams seen and not read, by serial, with their codec.
    private var others: [UInt32: Ogg.Codec] = [:]
    /// A packet that continues on the next page: its bytes so far, the page it began on, its pieces.
    private var partial: [UInt8] = []
    private var partialPage: Int64?
    private var partialPieces: [(offset: Int64, size: Int)] = []
    /// The packet joined from pieces that the page being handed out completes.
    private var joined: [UInt8] = []
    private var queue: [QueuedPacket] = []
    private var queueIndex = 0
    /// The page whose packets are being handed out: its size.
    private var currentPageSize: Int?
    private var resyncing = false
    private var junk: (start: Int64, count: Int64)?
    private var notedChain = false
    private var largest = 0
    private var audioBytes: Int64 = 0

    init(mode: ParseMode, limits: ParserLimits) {
        context = ParseContext(mode: mode, limits: limits)
        context.properties.fileType = .ogg
        if mode == .indexing {
            context.packetIndex = []
            context.packetPieces = PacketPieces()
        }
    }

    var retainedBytes: [UInt8] { joined }
    var skippableByteCount: Int64 { 0 }
    mutating func skip(_ count: Int64) {}
    mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }
    var isEstimatingSeeks: Bool { true }

    mutating func discontinuity() {
        resyncing = true
        queue.removeAll()
        queueIndex = 0
        currentPageSize = nil
        dropPartial()
        stream?.nextSequence = nil
        stream?.previousBlock = nil
    }

    private mutating func dropPartial() {
        partial.removeAll(keepingCapacity: true)
        partialPage = nil
        partialPieces.removeAll()
    }

    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            if let size = currentPageSize {
                if queueIndex < queue.count {
                    let packet = queue[queueIndex]
                    queueIndex += 1
                    return .packets(run(packet, cursor: cursor))
                }
                queue.removeAll(keepingCapacity: true)
                queueIndex = 0
                currentPageSize = nil
                _ = cursor.skip(size)
                continue
            }
            guard cursor.remaining > 0 else { return .needMore(1) }
            let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
            let offset = cursor.absoluteOffset
            guard bytes.count >= Ogg.PageHeader.size else {
                return atEnd ? cutShort(&cursor, bytes.count) : .needMore(Ogg.PageHeader.size)
            }
            guard let header = Ogg.PageHeader(bytes) else {
                passJunk(&cursor, bytes)
                continue
            }
            let lacingEnd = Ogg.PageHeader.size + header.segments
            guard bytes.count >= lacingEnd else { return atEnd ? cutShort(&cursor, bytes.count) : .needMore(lacingEnd) }
            let lacing = UnsafeRawBufferPointer(rebasing: bytes[Ogg.PageHeader.size..<lacingEnd])
            let size = lacingEnd + lacing.reduce(0) { $0 + Int($1) }
            guard bytes.count >= size else { return atEnd ? cutShort(&cursor, bytes.count) : .needMore(size) }
            let page = UnsafeRawBufferPointer(rebasing: bytes[0..<size])
            guard Ogg.pageChecksum(page) == ByteCursor(page).getInteger(at: 22, endianness: .little, as: UInt32.self)
            else {
                if resyncing || junk != nil {
                    // A capture pattern inside other bytes, not a page.
                    passJunk(&cursor, bytes)
                    continue
                }
                throw AudioFileError.malformed(
                    "ogg: page \(header.sequence) of stream \(header.serial) fails its CRC-32: the page is damaged",
                    offset: offset)
            }
            endJunk()
            resyncing = false
            try readPage(header, lacing: lacing, body: lacingEnd, page: page, at: offset)
            currentPageSize = size
        }
    }

    private mutating func cutShort(_ cursor: inout ByteCursor, _ count: Int) -> ParserStep {
        context.properties.isTruncated = true
        context.properties.trace.append(
            offset: cursor.absoluteOffset, size: Int64(count),
            "the stream ends inside a page (\(count) bytes): its packets are lost")
        _ = cursor.skip(count)
        return .needMore(1)
    }

    /// Steps to the next byte that could start a capture pattern.
    private mutating func passJunk(_ cursor: inout ByteCursor, _ bytes: UnsafeRawBufferPointer) {
        var skip = 1
        while skip < bytes.count, bytes[skip] != 0x4F { skip += 1 }
        if junk == nil { junk = (cursor.absoluteOffset, 0) }
        junk?.count += Int64(skip)
        _ = cursor.skip(skip)
    }

    private mutating func endJunk() {
        guard let junk else { return }
        context.properties.trace.append(
            offset: junk.start, size: junk.count, "\(junk.count) bytes between pages skipped")
        if !resyncing {
            context.properties.warnings.append("ogg: \(junk.count) bytes at byte \(junk.start) are not pages; skipped")
        }
        self.junk = nil
    }

    // MARK: Pages and packets

    /// Takes a page: a new stream's first page, or the chosen stream's packets.
    private mutating func readPage(
        _ header: Ogg.PageHeader, lacing: UnsafeRawBufferPointer, body: Int, page: UnsafeRawBufferPointer,
        at offset: Int64
    ) throws {
        if header.isFirst && stream?.serial != header.serial && others[header.serial] == nil {
            let first = UnsafeRawBufferPointer(rebasing: page[body..<min(body + Int(lacing.first ?? 0), page.count)])
            let codec = Ogg.Codec(firstPacket: first)
            if stream != nil || !codec.isAudio {
                if stream?.ended == true && !notedChain {
                    notedChain = true
                    context.properties.trace.append(
                        offset: offset, "a chained stream begins here: only the first audio stream is read")
                    context.properties.warnings.append(
                        "ogg: more streams are chained after the first (at byte \(offset)); only the first is read")
                } else if stream == nil {
                    context.properties.trace.append(offset: offset, "a stream afkit does not read skipped")
                }
                others[header.serial] = codec
                return
            }
            stream = Stream(
                serial: header.serial, codec: codec, headersLeft: codec == .flac ? 1 : codec == .opus ? 2 : 3)
            context.properties.trace.append(offset: offset, "\(codec) stream, serial \(header.serial)")
        }
        guard var stream, stream.serial == header.serial, !stream.ended else { return }
        self.stream = nil
        defer { self.stream = stream }
        if let expected = stream.nextSequence, expected != header.sequence {
            context.properties.trace.append(offset: offset, "page \(header.sequence) where \(expected) was due")
            context.properties.warnings.append("ogg: pages are missing before byte \(offset)")
            dropPartial()
        }
        stream.nextSequence = header.sequence &+ 1
        // A continued page whose packet's start was not seen (after a seek or a lost page) gives none.
        if !header.isContinued && partialPage != nil { dropPartial() }
        var continuing = header.isContinued && partialPage != nil
        var skippingRest = header.isContinued && partialPage == nil
        var segmentStart = body
        var position = body
        for index in 0..<lacing.count {
            let value = Int(lacing[index])
            position += value
            guard value < 255 || index == lacing.count - 1 else { continue }
            let piece = UnsafeRawBufferPointer(rebasing: page[segmentStart..<position])
            let pieceStart = segmentStart
            segmentStart = position
            if skippingRest {
                skippingRest = value == 255
                continue
            }
            if value == 255 {
                // The packet goes on in the next page.
                if !continuing {
                    dropPartial()
                    partialPage = offset
                }
                partial.append(contentsOf: piece)
                partialPieces.append((offset + Int64(pieceStart), piece.count))
                break
            }
            if continuing {
                continuing = false
                partial.append(contentsOf: piece)
                partialPieces.append((offset + Int64(pieceStart), piece.count))
                let began = partialPage ?? offset
                let pieces = partialPieces
                swap(&joined, &partial)
                dropPartial()
                try joined.withUnsafeBytes { try packet(&stream, $0, at: nil, pageOffset: began, pieces: pieces) }
                continue
            }
            try packet(&stream, piece, at: pieceStart, pageOffset: offset, pieces: nil)
        }
        if header.granulePosition != -1, stream.headersLeft == 0 {
            if stream.startGranule == nil { stream.startGranule = header.granulePosition - stream.frames }
            stream.lastGranule = header.granulePosition
        }
        if header.isLast { stream.ended = true }
    }

    /// One whole packet of the chosen stream: a header, or audio (queued to be handed out, or indexed).
    private mutating func packet(
        _ stream: inout Stream, _ bytes: UnsafeRawBufferPointer, at start: Int?, pageOffset: Int64,
        pieces: [(offset: Int64, size: Int)]?
    ) throws {
        if stream.headersLeft != 0 {
            let isFrame = bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xFE == 0xF8
            guard stream.codec == .flac && stream.headersLeft == nil && isFrame else {
                try header(&stream, bytes, at: pageOffset)
                return
            }
            stream.headersLeft = 0
            try finishHeaders(&stream, at: pageOffset)
        }
        guard !bytes.isEmpty else { return }
        let frames: Int
        switch stream.codec {
        case .opus: frames = Ogg.opusFrames(bytes) ?? 0
        case .flac: frames = FLACFrameHeader(bytes)?.blockSize ?? 0
        default:
            let block = stream.vorbis?.blockSize(bytes)
            frames = block.map { current in stream.previousBlock.map { $0 / 4 + current / 4 } ?? 0 } ?? 0
            if block != nil { stream.previousBlock = block }
        }
        stream.frames += Int64(frames)
        if context.properties.dataOffset == nil {
            context.properties.dataOffset = pageOffset
            context.announce(.dataOffset)
            context.announcedReady = true
            context.announce(.readyToProducePackets)
        }
        largest = max(largest, bytes.count)
        audioBytes += Int64(bytes.count)
        guard context.mode == .indexing else {
            queue.append(QueuedPacket(start: start, size: bytes.count, frames: frames, pageOffset: pageOffset))
            return
        }
        context.packetIndex?.append(
            PacketDescription(
                startOffset: pageOffset, variableFramesInPacket: UInt32(frames), dataByteSize: UInt32(bytes.count)))
        let index = context.nextPacket
        if let start {
            context.packetPieces?.dataOffsets.append(pageOffset + Int64(start))
        } else {
            context.packetPieces?.dataOffsets.append(pieces?.first?.offset ?? pageOffset)
            context.packetPieces?.splits[index] = pieces
        }
        context.nextPacket += 1
    }

    /// A run of one packet, at the offset of the page it begins on.
    private mutating func run(_ packet: QueuedPacket, cursor: ByteCursor) -> PacketRun {
        context.beginPacketRun()
        _ = context.appendPacket(at: 0, size: UInt32(packet.size), frames: UInt32(packet.frames))
        defer { context.nextPacket += 1 }
        return PacketRun(
            source: packet.start.map { .input(index: cursor.position + $0) } ?? .retained(index: 0),
            firstPacket: context.nextPacket, packetCount: 1, absoluteOffset: packet.pageOffset,
            byteCount: packet.size, hasDescriptions: true)
    }

    // MARK: Headers

    /// One of the stream's header packets.
    private mutating func header(_ stream: inout Stream, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let index = stream.headers.count
        stream.headers.append(Array(bytes))
        if let left = stream.headersLeft { stream.headersLeft = left - 1 }
        switch (stream.codec, index) {
        case (.vorbis, 0):
            guard bytes.count >= 30, bytes[29] & 1 == 1 else {
                throw AudioFileError.malformed("ogg: the Vorbis identification header is malformed", offset: offset)
            }
            let reader = ByteCursor(bytes)
            let channels = Int(bytes[11])
            let rate = Int(reader.getInteger(at: 12, endianness: .little, as: UInt32.self) ?? 0)
            let short = 1 << Int(bytes[28] & 0x0F)
            let long = 1 << Int(bytes[28] >> 4)
            guard channels > 0, rate > 0, short >= 64, long >= short, long <= 8192 else {
                throw AudioFileError.malformed(
                    "ogg: Vorbis with \(channels) channels at \(rate) Hz, blocks of \(short) and \(long)",
                    offset: offset)
            }
            stream.vorbis = Ogg.VorbisBlocks(short: short, long: long, modeIsLong: [])
            setFormat(
                StreamDescription(
                    sampleRate: Double(rate), formatID: .vorbis, bytesPerPacket: 0, framesPerPacket: 0,
                    bytesPerFrame: 0,
                    channelsPerFrame: UInt32(channels), bitsPerChannel: 0))
        case (.vorbis, 1):
            if bytes.count > 7 { readComments(UnsafeRawBufferPointer(rebasing: bytes[7...])) }
        case (.vorbis, 2):
            guard let modes = Ogg.VorbisBlocks.modes(setup: bytes), !modes.isEmpty else {
                throw AudioFileError.malformed("ogg: the Vorbis setup header's modes cannot be read", offset: offset)
            }
            stream.vorbis?.modeIsLong = modes
        case (.opus, 0):
            guard bytes.count >= 19, bytes[8] & 0xF0 == 0, bytes[9] > 0 else {
                throw AudioFileError.malformed("ogg: the OpusHead header is malformed", offset: offset)
            }
            stream.preSkip = Int(ByteCursor(bytes).getInteger(at: 10, endianness: .little, as: UInt16.self) ?? 0)
            setFormat(
                StreamDescription(
                    sampleRate: 48000, formatID: .opus, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
                    channelsPerFrame: UInt32(bytes[9]), bitsPerChannel: 0))
        case (.opus, 1):
            if bytes.count > 8 { readComments(UnsafeRawBufferPointer(rebasing: bytes[8...])) }
        case (.flac, 0):
            // 0x7F "FLAC", version, the count of header packets after this one, "fLaC", STREAMINFO.
            guard bytes.count >= 13 + 4 + FLACStreamInfo.size, bytes[9..<13].elementsEqual("fLaC".utf8),
                let info = FLACStreamInfo(UnsafeRawBufferPointer(rebasing: bytes[17...]))
            else {
                throw AudioFileError.malformed("ogg: the FLAC mapping header is malformed", offset: offset)
            }
            let count = Int(bytes[7]) << 8 | Int(bytes[8])
            stream.headersLeft = count == 0 ? nil : count
            setFormat(info.streamDescription)
            context.properties.magicCookie = Array(bytes[17..<17 + FLACStreamInfo.size])
        case (.flac, _):
            if let type = bytes.first, type & 0x7F == FLAC.BlockType.vorbisComment.rawValue, bytes.count > 4 {
                readComments(UnsafeRawBufferPointer(rebasing: bytes[4...]))
            }
        default: break
        }
        if stream.headersLeft == 0 { try finishHeaders(&stream, at: offset) }
    }

    private mutating func setFormat(_ format: StreamDescription) {
        context.properties.dataFormat = format
        context.announce(.fileFormat)
        context.announce(.dataFormat)
    }

    private mutating func readComments(_ bytes: UnsafeRawBufferPointer) {
        guard let fields = VorbisComment.fields(bytes), !fields.isEmpty else { return }
        for (key, value) in fields { context.properties.infoDictionary[key] = value }
        context.announce(.infoDictionary)
    }

    /// The headers are in: the cookie (Vorbis: the three headers Xiph-laced, as FFmpeg's decoder takes
    /// them; Opus: OpusHead; FLAC: STREAMINFO, set already).
    private mutating func finishHeaders(_ stream: inout Stream, at offset: Int64) throws {
        switch stream.codec {
        case .vorbis:
            var cookie: [UInt8] = [2]
            for header in stream.headers.prefix(2) {
                cookie += [UInt8](repeating: 255, count: header.count / 255) + [UInt8(header.count % 255)]
            }
            for header in stream.headers { cookie += header }
            context.properties.magicCookie = cookie
        case .opus:
            context.properties.magicCookie = stream.headers.first
            context.properties.packetTableInfo = PacketTableInfo(
                validFrames: 0, primingFrames: Int32(stream.preSkip), remainderFrames: 0)
            context.announce(.packetTableInfo)
        default: break
        }
        stream.headers.removeAll()
        context.announce(.magicCookie)
    }

    // MARK: Ending and seeking

    mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        endJunk()
        guard let stream else {
            if let refused = others.values.first(where: { !$0.isAudio }), case .other(let name, let reason) = refused {
                throw AudioFileError.unsupportedFileType("\(name): \(reason)", offset: 0)
            }
            throw AudioFileError.unsupportedFileType(
                "an Ogg file: it holds no Vorbis, Opus or FLAC stream", offset: 0)
        }
        guard stream.headersLeft == 0, context.properties.dataFormat != nil else {
            throw AudioFileError.truncated("ogg: the stream ends inside its \(stream.codec) headers", offset: endOffset)
        }
        let packets = context.nextPacket
        context.properties.audioDataPacketCount = packets
        context.properties.audioDataByteCount = audioBytes
        context.properties.maximumPacketSize = UInt32(largest)
        if context.properties.dataOffset == nil { context.properties.dataOffset = endOffset }
        let decoded = stream.frames
        let priming = stream.codec == .opus ? Int64(stream.preSkip) : 0
        var valid = decoded - priming
        if let last = stream.lastGranule {
            // Granules count from the stream's start; Opus's include its pre-skip.
            let start = stream.codec == .opus ? 0 : max(stream.startGranule ?? 0, 0)
            let stated = last - start - priming
            if stated < valid {
                valid = max(stated, 0)
            } else if stated > valid {
                context.properties.trace.append(
                    offset: endOffset, "the last granule position says \(stated) frames; the packets hold \(valid)")
            }
        }
        valid = max(valid, 0)
        context.properties.packetTableInfo = PacketTableInfo(
            validFrames: valid, primingFrames: Int32(clamping: priming),
            remainderFrames: Int32(clamping: max(decoded - priming - valid, 0)))
        context.announce(.packetTableInfo)
        if !stream.ended && !context.properties.isTruncated {
            context.properties.trace.append(offset: endOffset, "no end-of-stream page: the stream may be cut short")
        }
    }

    /// An estimate from the average packet so far; the next page whose CRC checks resumes the stream.
    mutating func resume(atPacket packet: Int64) throws -> Int64 {
        guard let first = context.properties.dataOffset, packet >= 0, context.nextPacket > 0 else {
            throw AudioFileError.illegalOperation("ogg: cannot seek before the first audio packet")
        }
        discontinuity()
        let average = Double(audioBytes) / Double(context.nextPacket)
        context.nextPacket = packet
        return first + Int64(Double(packet) * average)
    }
}

/// Where packets that are not one contiguous run of the file's bytes lie (Ogg's): each packet's first
/// byte, and the pieces of those that span pages.
struct PacketPieces {
    var dataOffsets: [Int64] = []
    var splits: [Int64: [(offset: Int64, size: Int)]] = [:]
}

// MARK: - Writing

extension Ogg {
    /// Pages before the audio in a written Ogg Opus file: `OpusHead`, then `OpusTags`.
    static let headerPageCount: UInt32 = 2
    /// The logical stream's serial number ("afkt"): fixed, so the same input makes the same file.
    static let writtenSerial: UInt32 = 0x6166_6B74
    /// Frames (at 48 kHz) a page gathers before it is written: one second, as `opusenc` pages.
    static let pageFrames = 48000

    /// Header of an Ogg Opus file: the `OpusHead` page (the cookie; first of the stream) and the
    /// `OpusTags` page (the metadata as Vorbis comments). The audio pages are made as packets arrive.
    static func layout(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts) throws
        -> ContainerLayout
    {
        guard format.formatID == .opus else {
            throw AudioFileError.unsupportedDataFormat(
                "ogg: afkit writes Ogg Opus; use -d opus, not '\(format.formatID)'", offset: nil)
        }
        guard let head = counts.cookie(options), head.count >= 19, head.starts(with: Array("OpusHead".utf8)) else {
            throw AudioFileError.unsupportedDataFormat("ogg: an Ogg Opus file needs the stream's OpusHead", offset: nil)
        }
        var tags = Array("OpusTags".utf8) + VorbisComment.block(metadata: options.metadata)
        // The tags stay within one page (255 segments); metadata too large for it is left out.
        if tags.count > 254 * 255 { tags = Array("OpusTags".utf8) + VorbisComment.block(metadata: [:]) }
        var header: [UInt8] = []
        appendPage(&header, flags: 2, granule: 0, sequence: 0, lacing: lacing(for: head.count), body: head)
        appendPage(&header, flags: 0, granule: 0, sequence: 1, lacing: lacing(for: tags.count), body: tags)
        return ContainerLayout(header: header, trailer: [])
    }

    /// The lacing values of one packet of `count` bytes.
    static func lacing(for count: Int) -> [UInt8] {
        [UInt8](repeating: 255, count: count / 255) + [UInt8(count % 255)]
    }

    /// Appends a page of the written stream, its CRC computed.
    static func appendPage(
        _ out: inout [UInt8], flags: UInt8, granule: Int64, sequence: UInt32, lacing: [UInt8], body: [UInt8]
    ) {
        let start = out.count
        out += Array("OggS".utf8) + [0, flags]
        out.appendInteger(UInt64(bitPattern: granule), endianness: .little)
        out.appendInteger(writtenSerial, endianness: .little)
        out.appendInteger(sequence, endianness: .little)
        out.appendInteger(UInt32(0), endianness: .little)
        out.append(UInt8(lacing.count))
        out += lacing
        out += body
        let crc = out.withUnsafeBytes { pageChecksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        for index in 0..<4 { out[start + 22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
    }

    /// Gathers a written stream's packets into pages: a page is written when the next packet would take it
    /// past 255 lacing values or it holds a second of audio; a packet too large for one page continues on
    /// the next. Each page's granule position is the frames decoded by the end of its last whole packet
    /// (the pre-skip included); the last page, written by ``finish(packetTableInfo:into:)``, states where
    /// the valid frames end.
    struct Pager {
        private var sequence: UInt32
        private let framesPerPacket: Int
        private var lacing: [UInt8] = []
        private var body: [UInt8] = []
        private var granule: Int64 = 0
        private var pageFrames = 0
        private var endsPacket = false
        private var continues = false

        /// A pager whose first page has number `firstSequence`, for packets of `format`.
        init(firstSequence: UInt32, format: StreamDescription) {
            sequence = firstSequence
            framesPerPacket = Int(format.framesPerPacket)
        }

        /// Adds a packet of `frames` (0: the format's constant count), appending any page it completes.
        mutating func append(packet: UnsafeRawBufferPointer, frames: Int, into out: inout [UInt8]) {
            let segments = packet.count / 255 + 1
            if !lacing.isEmpty && (lacing.count + segments > 255 || pageFrames >= Ogg.pageFrames) {
                writePage(last: false, finalGranule: nil, into: &out)
            }
            var position = 0
            while true {
                if lacing.count == 255 {
                    // The packet goes on in the next page.
                    writePage(last: false, finalGranule: nil, into: &out)
                    continues = true
                }
                let value = min(255, packet.count - position)
                lacing.append(UInt8(value))
                body += UnsafeRawBufferPointer(rebasing: packet[position..<position + value])
                position += value
                if value < 255 { break }
            }
            let count = frames > 0 ? frames : framesPerPacket
            granule += Int64(count)
            pageFrames += count
            endsPacket = true
        }

        /// Writes the last page (end of stream), its granule ending the valid frames where `packetTableInfo`
        /// states them.
        mutating func finish(packetTableInfo: PacketTableInfo?, into out: inout [UInt8]) {
            let final = packetTableInfo.map { Int64($0.primingFrames) + $0.validFrames }
            writePage(last: true, finalGranule: final, into: &out)
        }

        private mutating func writePage(last: Bool, finalGranule: Int64?, into out: inout [UInt8]) {
            let flags: UInt8 = (continues ? 1 : 0) | (last ? 4 : 0)
            let position = finalGranule ?? (endsPacket ? granule : -1)
            Ogg.appendPage(&out, flags: flags, granule: position, sequence: sequence, lacing: lacing, body: body)
            sequence &+= 1
            lacing.removeAll(keepingCapacity: true)
            body.removeAll(keepingCapacity: true)
            pageFrames = 0
            endsPacket = false
            continues = false
        }
    }
}

extension FileType {
    /// Ogg (Vorbis, Opus or FLAC).
    public static let ogg = FileType(rawValue: "ogg")
}

extension Ogg {
    /// Ogg: Speex refused by its first packet; Vorbis, Opus and FLAC read, whichever stream comes first (the
    /// parser skips a video stream and refuses a file with no audio stream it reads, by name). afkit writes
    /// Ogg Opus.
    static let descriptor = ContainerDescriptor(
        .ogg, name: "Ogg", kind: "an Ogg file", fileTypeID: "OggS", extensions: ["ogg", "oga", "opus"],
        hintExtensions: ["ogg", "oga", "opus", "ogv"], formatCodes: ["opus", "OggS", "ogg"],
        writtenExtensions: [".opus", ".ogg"], mediaTypes: ["audio/ogg", "audio/opus", "application/ogg"],
        recordsPriming: true,
        signatures: [
            FileSignature.Entry(
                outcome: .refuse(name: "an Ogg Speex file", reason: FileSignature.notDecoded("Speex"))
            ) { bytes, atEnd in
                FileSignature.ogg(bytes, atEnd: atEnd, firstPacket: Array("Speex   ".utf8))
            },
            FileSignature.Entry(outcome: .read(.ogg)) { bytes, atEnd in
                FileSignature.ogg(bytes, atEnd: atEnd, firstPacket: [])
            },
        ],
        makeParser: { OggParser(mode: $0.mode, limits: $0.limits) },
        writer: { format, options, counts, _ in try Ogg.layout(format: format, options: options, counts: counts) })
}
