import AudioFormats
import StreamParsing

/// The push parser for Ogg. A page is taken whole (at most 65,307 bytes) once its CRC-32 checks; the
/// chosen stream's packets are handed out one run each, at the offset of the page they begin on (as
/// ffprobe and Ogg's seeking place them): in place where a packet lies in one page, joined where it
/// spans pages. Its header packets become the format, the cookie and the metadata; each packet's frames
/// come from the codec (Vorbis's block sizes, Opus's TOC, FLAC's frame header), the valid frames from
/// the last granule position: Opus's pre-skip is priming, the decoded frames past the last granule the
/// remainder.
struct OggParser: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    var runDescriptions: [PacketDescription] { context.descriptions }
    var packetIndexIsKnown: Bool { context.packetIndexIsKnown }

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
        /// Its identification header and count of header packets, kept once they are read to know a repeated
        /// beginning.
        var identification: [UInt8] = []
        var headerCount = 0
        /// Header packets of a repeated beginning of the stream still to pass over.
        var repeatedHeaders = 0
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
    /// Whether pages of a stream that never began were said.
    private var notedStranger = false
    private var largest = 0
    private var audioBytes: Int64 = 0
    /// Audio packets counted (whatever their numbering after a seek).
    private var packetsCounted: Int64 = 0

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
                // A capture pattern inside other bytes, or a damaged page: passed over as junk to the next page
                // that checks, and said (the pages' sequence numbers say what is missing).
                if !resyncing && junk == nil {
                    context.properties.trace.append(
                        offset: offset, size: Int64(size),
                        "page \(header.sequence) of stream \(header.serial) fails its CRC-32: damaged")
                }
                passJunk(&cursor, bytes)
                continue
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
            context.noteDamage(
                "ogg: \(junk.count) bytes at byte \(junk.start) are not pages (or fail their check); skipped")
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
            let first = Self.firstSegment(lacing: lacing, body: body, page: page)
            guard beginsChosenStream(header, firstSegment: first, at: offset) else { return }
        }
        guard var stream, stream.serial == header.serial else {
            // Pages of a stream whose first page never came (its start flag lost): skipped, and said once.
            if let serial = stream?.serial, serial != header.serial, others[header.serial] == nil, !notedStranger {
                notedStranger = true
                context.noteDamage(
                    "ogg: pages of a stream that never began (serial \(header.serial), from byte \(offset)) are skipped"
                )
            }
            return
        }
        if header.isFirst && stream.headersLeft == 0 {
            let first = Self.firstSegment(lacing: lacing, body: body, page: page)
            try passRepeatedHeaders(of: &stream, header, firstSegment: first, at: offset)
        }
        if stream.ended {
            // A page of the stream after its end-of-stream page: that flag lied; the stream is read through.
            stream.ended = false
            context.noteDamage(
                "ogg: a page before byte \(offset) is flagged as the stream's last, but the stream goes on; read through"
            )
        }
        self.stream = nil
        defer { self.stream = stream }
        if let expected = stream.nextSequence, expected != header.sequence {
            context.properties.trace.append(offset: offset, "page \(header.sequence) where \(expected) was due")
            context.noteDamage(
                (expected == header.sequence &- 1
                    ? "ogg: page \(expected) is missing before byte \(offset); its audio is lost"
                    : "ogg: pages \(expected) to \(header.sequence &- 1) are missing before byte \(offset); their audio is lost")
            )
            dropPartial()
        }
        stream.nextSequence = header.sequence &+ 1
        try readSegments(of: &stream, header, lacing: lacing, body: body, page: page, at: offset)
        if header.granulePosition != -1, stream.headersLeft == 0 {
            if stream.startGranule == nil { stream.startGranule = header.granulePosition - stream.frames }
            stream.lastGranule = header.granulePosition
        }
        if header.isLast { stream.ended = true }
    }

    /// The first segment of a page's first packet (its identification header's start, on a stream's first page).
    private static func firstSegment(
        lacing: UnsafeRawBufferPointer, body: Int, page: UnsafeRawBufferPointer
    ) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: page[body..<min(body + Int(lacing.first ?? 0), page.count)])
    }

    /// Whether a stream's first page begins the stream afkit reads (the first audio stream); any other stream is
    /// recorded to be skipped, a chain after the first said once.
    private mutating func beginsChosenStream(
        _ header: Ogg.PageHeader, firstSegment first: UnsafeRawBufferPointer, at offset: Int64
    ) -> Bool {
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
            return false
        }
        stream = Stream(
            serial: header.serial, codec: codec, headersLeft: codec == .flac ? 1 : codec == .opus ? 2 : 3)
        context.properties.trace.append(offset: offset, "\(codec) stream, serial \(header.serial)")
        return true
    }

    /// A start flag on a page of a stream whose headers are read: the stream begins again with the same headers
    /// (as a muxer restarting leaves them), which are passed over; other headers of audio would be another stream,
    /// refused. (A start flag on a page of audio is a flag that lies: the page is read.)
    private mutating func passRepeatedHeaders(
        of stream: inout Stream, _ header: Ogg.PageHeader, firstSegment first: UnsafeRawBufferPointer,
        at offset: Int64
    ) throws {
        if first.elementsEqual(stream.identification) {
            context.properties.trace.append(offset: offset, "the stream's headers repeat here: passed over")
            stream.repeatedHeaders = stream.headerCount
            stream.nextSequence = nil
        } else if Ogg.Codec(firstPacket: first).isAudio {
            throw AudioFileError.unsupportedDataFormat(
                "ogg: the stream (serial \(header.serial)) begins again at byte \(offset) with other headers; afkit "
                    + "reads one format a stream", offset: offset)
        }
    }

    /// Cuts a page of the chosen stream into its packets by the lacing values: a packet that goes on in the next
    /// page is kept in part, a continued one is joined and taken, and a continued page whose packet's start was
    /// not seen (after a seek or a lost page) gives none.
    private mutating func readSegments(
        of stream: inout Stream, _ header: Ogg.PageHeader, lacing: UnsafeRawBufferPointer, body: Int,
        page: UnsafeRawBufferPointer, at offset: Int64
    ) throws {
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
    }

    /// One whole packet of the chosen stream: a header, or audio (queued to be handed out, or indexed).
    private mutating func packet(
        _ stream: inout Stream, _ bytes: UnsafeRawBufferPointer, at start: Int?, pageOffset: Int64,
        pieces: [(offset: Int64, size: Int)]?
    ) throws {
        if stream.repeatedHeaders > 0 {
            stream.repeatedHeaders -= 1
            return
        }
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
        packetsCounted += 1
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
        numberResumedPacket(at: packet.pageOffset)
        context.noteSeenPacket(context.nextPacket, at: packet.pageOffset)
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
            if let type = bytes.first, type & 0x7F == FLACMetadataBlockType.vorbisComment.rawValue, bytes.count > 4 {
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
        if VorbisComment.read(bytes, into: &context.properties) == true { context.announce(.infoDictionary) }
    }

    /// The headers are in: the cookie (Vorbis: the three headers Xiph-laced, as FFmpeg's decoder takes
    /// them; Opus: OpusHead; FLAC: STREAMINFO, set already).
    private mutating func finishHeaders(_ stream: inout Stream, at offset: Int64) throws {
        switch stream.codec {
        case .vorbis:
            context.properties.magicCookie = XiphLacing.laced(stream.headers)
        case .opus:
            context.properties.magicCookie = stream.headers.first
            context.properties.packetTableInfo = PacketTableInfo(
                validFrames: 0, primingFrames: Int32(stream.preSkip), remainderFrames: 0)
            context.announce(.packetTableInfo)
        default: break
        }
        stream.identification = stream.headers.first ?? []
        stream.headerCount = stream.headers.count
        stream.headers.removeAll()
        context.announce(.magicCookie)
    }

    // MARK: Ending and seeking

    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
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
            if stated < valid - Self.largestPacketFrames {
                // More than a packet's padding: the last granule lies about the end; every frame decoded counts.
                context.noteDamage(
                    "ogg: the last granule position says \(max(stated, 0)) frames; the packets hold \(valid), which count"
                )
            } else if stated < valid {
                valid = max(stated, 0)
            } else if stated > valid + Self.largestPacketFrames && !context.properties.isTruncated {
                // A whole stream whose last page counts more than its packets hold: the granule lies (ffprobe takes
                // it for the duration); the frames decoded count, and that is said.
                context.noteDamage(
                    "ogg: the last granule position says \(stated) frames; the packets hold \(valid), which count")
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
            if packets == 0 {
                // Headers, then nothing: not an empty stream (that ends with its end-of-stream page) but one cut
                // short before its audio.
                context.properties.isTruncated = true
            } else {
                context.properties.trace.append(offset: endOffset, "no end-of-stream page: the stream may be cut short")
            }
        }
    }

    /// More frames than any Vorbis or Opus packet decodes to (Vorbis's longest block, 8192, gives 4096; Opus's
    /// longest packet 5760): a last granule short of the packets by more is not trimming their padding.
    static let largestPacketFrames: Int64 = 8192

    /// Resumes at a packet. From the index (a file read for indexing), at the page the packet begins on,
    /// numbered from the first packet that begins there; else at the estimate of
    /// ``packetToByte(_:averagePacketSize:)``, where the next page whose CRC checks resumes the stream and
    /// its first packet is numbered from its page's offset (said to be an estimate).
    mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        let average = averagePacketSize ?? (packetsCounted > 0 ? Double(audioBytes) / Double(packetsCounted) : nil)
        guard let first = context.properties.dataOffset, packet >= 0,
            let estimate = packetToByte(packet, averagePacketSize: average)
        else {
            throw AudioFileError.illegalOperation("ogg: cannot seek before the first audio packet")
        }
        discontinuity()
        if !estimate.isEstimate, let page = context.knownStart(ofPacket: packet) {
            var firstOnPage = packet
            while firstOnPage > 0 && context.knownStart(ofPacket: firstOnPage - 1) == page { firstOnPage -= 1 }
            resumeNumbering(atPacket: firstOnPage, isEstimate: false, averagePacketSize: nil)
            return (page, false)
        }
        resumeNumbering(atPacket: packet, isEstimate: true, averagePacketSize: average)
        let (offset, overflow) = first.addingReportingOverflow(estimate.offset)
        return (overflow ? Int64.max : offset, true)
    }
}
