import AudioFormats

/// Properties a stream parser announces as it learns them: Audio File Stream Services' property IDs.
public enum StreamPropertyID: Hashable, Sendable {
    case readyToProducePackets
    case fileFormat
    case dataFormat
    case magicCookie
    case dataOffset
    case audioDataByteCount
    case audioDataPacketCount
    case maximumPacketSize
    case packetTableInfo
    case channelLayout
    case infoDictionary
    case markers
    /// Every layer of the format a decoder can output, richest first (HE-AAC: SBR+PS, SBR, core).
    case formatList
    /// Average bits per second, once the packet count is known.
    case bitRate
}

/// Whether a parser hands out packet bytes (a network client) or only learns where they are
/// (the file API, which may seek over audio it does not need).
public enum ParseMode: Sendable {
    case streaming
    case indexing
}

/// Bounds on what a parser will hold in memory for one file.
public struct ParserLimits: Sendable {
    /// Audio bytes held while the data format or packet table has not arrived yet.
    public var maximumRetainedAudioBytes = 64 << 20
    /// The largest packet table (`pakt`) or magic cookie read whole.
    public var maximumTableChunkBytes = 64 << 20
    /// The largest metadata chunk read whole; bigger ones are skipped and noted.
    public var maximumMetadataChunkBytes = 1 << 20
    /// The largest format chunk (`desc`, `fmt `, `COMM`); bigger ones are malformed.
    public var maximumFormatChunkBytes = 1 << 16

    public init() {}
}

/// How a container lays out its chunk headers.
struct ChunkLayout {
    var sizeEndianness: Endianness
    /// 8 for CAF's 64-bit sizes, else 4.
    var sizeWidth: Int
    /// RIFF and IFF pad odd-sized chunks with one byte; CAF does not.
    var padsToEven: Bool
    var headerSize: Int { 4 + sizeWidth }
}

/// One chunk header as read from the stream.
struct ChunkHeader {
    var id: FourCharCode
    /// Absolute offset of the header's first byte.
    var offset: Int64
    /// Body size; `nil` means "to the end of the stream" (CAF's -1, RIFF's 0xFFFFFFFF on `data`).
    var size: Int64?
    /// Absolute offset of the body's first byte.
    var bodyOffset: Int64
}

/// What a container does with a chunk once its header is read.
enum ChunkDisposition {
    /// Read the whole body (at most `limit` bytes) and hand it to `parseChunk`.
    case read
    /// The chunk holds the audio; its first `prefix` bytes go to `parseAudioPrefix`.
    case audioData(prefix: Int)
    /// Step over it.
    case skip(note: String)
}

/// The container-specific half of a chunked parser (CAF, AIFF, WAV): its file header and the
/// meaning of its chunks. ``ChunkWalker`` does the rest.
protocol ChunkedContainer {
    static var name: String { get }
    static var layout: ChunkLayout { get }
    static var fileHeaderSize: Int { get }
    init()
    /// Absolute end of the outer chunk (RIFF, FORM), where it has one.
    var outerEnd: Int64? { get }
    /// Reads the file header, all `fileHeaderSize` bytes of which are in `cursor`.
    mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws
    /// Decides what to do with a chunk; may correct its size (RF64's `ds64`).
    mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws -> ChunkDisposition
    /// Interprets a whole chunk body.
    mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) throws
    /// Reads the bytes before the audio in an audio chunk; returns how many more to skip before it.
    mutating func parseAudioPrefix(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) throws
        -> Int64
    /// Container rules applied once the stream has ended (frame counts, required chunks).
    mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws
    /// Whether a chunk this big is read whole; the chunk's role decides.
    func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool)
}

/// What one step of a parser produced.
enum ParserStep {
    case property(StreamPropertyID)
    case packets(PacketRun)
    /// At least this many bytes from the cursor's position are needed to go on (more than it has).
    case needMore(Int)
    /// The parser needs the bytes from this absolute offset next (a client that answers seek requests
    /// feeds them with a discontinuity); bytes given until then are ignored.
    case seek(Int64)
}

/// A run of whole, consecutive packets.
struct PacketRun {
    enum Source {
        /// At `index` in the cursor the parser was given.
        case input(index: Int)
        /// At `index` in the parser's retained audio.
        case retained(index: Int)
    }
    var source: Source
    var firstPacket: Int64
    var packetCount: Int
    var absoluteOffset: Int64
    var byteCount: Int
    /// Whether `ParseContext.descriptions` holds one description per packet.
    var hasDescriptions: Bool
}

/// State shared by the walker and the container half.
struct ParseContext {
    var properties = StreamProperties()
    let mode: ParseMode
    let limits: ParserLimits
    private var queue: [StreamPropertyID] = []
    private var queueHead = 0

    /// Packet sizes and frame counts from a packet table (CAF `pakt`), where packets vary.
    var packetSizes: [UInt32]?
    var packetFrames: [UInt32]?
    /// Reused output buffer for a run's descriptions (no per-packet allocation).
    var descriptions: [PacketDescription] = []
    /// The next packet the parser will deliver, and its offset from the data start.
    var nextPacket: Int64 = 0
    /// The packets the format chunk counts (AIFF's COMM), where audio bytes past them are not packets.
    var packetLimit: Int64?
    var notedSkippedTail = false
    var nextPacketByteOffset: Int64 = 0
    /// Audio bytes that have passed through the audio chunk so far.
    var audioBytesSeen: Int64 = 0
    /// Declared audio byte count of the audio chunk (nil: to end of stream).
    var declaredAudioBytes: Int64?
    var sawAudioChunk = false
    var announcedReady = false
    /// Audio held while waiting for a format or packet table (streaming mode).
    var retained: [UInt8] = []
    /// Every packet, with absolute offsets, where the parser keeps an index (elementary streams in
    /// indexing mode).
    var packetIndex: [PacketDescription]?
    var replayRetained = false
    var replayIndex = 0

    /// Whether every packet has the same size and frame count (no descriptions needed).
    var hasUniformPackets: Bool {
        guard let format = properties.dataFormat else { return false }
        return format.hasConstantPackets && packetFrames == nil
    }

    init(mode: ParseMode, limits: ParserLimits) {
        self.mode = mode
        self.limits = limits
    }

    mutating func announce(_ id: StreamPropertyID) { queue.append(id) }

    mutating func nextAnnouncement() -> StreamPropertyID? {
        guard queueHead < queue.count else { return nil }
        defer {
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
        }
        return queue[queueHead]
    }

    /// Whether packets can be cut out of the audio: the format is known and, where packets vary,
    /// so is the table of their sizes.
    var canProducePackets: Bool {
        guard let format = properties.dataFormat else { return false }
        return format.hasConstantPackets || packetSizes != nil
    }

    /// Bytes of the packet at `index`, or `nil` past the table's end.
    func packetSize(_ index: Int64) -> Int? {
        guard let format = properties.dataFormat else { return nil }
        if format.bytesPerPacket > 0 {
            if let sizes = packetFrames, index >= sizes.count { return nil }
            return Int(format.bytesPerPacket)
        }
        guard let sizes = packetSizes, index < sizes.count else { return nil }
        return Int(sizes[Int(index)])
    }

    func packetFrameCount(_ index: Int64) -> UInt32 {
        if let frames = packetFrames, index < frames.count { return frames[Int(index)] }
        return 0
    }

    /// Whole packets within the first `bytes` of audio, and the bytes they span.
    func wholePackets(in bytes: Int64) -> (packets: Int64, bytes: Int64) {
        guard let format = properties.dataFormat else { return (0, 0) }
        let allowed = packetLimit ?? Int64.max
        if hasUniformPackets {
            let packets = min(bytes / Int64(format.bytesPerPacket), allowed)
            return (packets, packets * Int64(format.bytesPerPacket))
        }
        var total: Int64 = 0
        var count: Int64 = 0
        while count < allowed, let size = packetSize(count), total + Int64(size) <= bytes {
            total += Int64(size)
            count += 1
        }
        return (count, total)
    }

    /// Cuts up to `maximum` whole packets from `available` bytes starting at the next packet,
    /// filling `descriptions` where packets vary. Returns packets and bytes, or `nil` when not one
    /// whole packet fits (with the size of the next packet, if there is one).
    mutating func cutPackets(available: Int) -> (count: Int, bytes: Int, needed: Int?) {
        guard let format = properties.dataFormat else { return (0, 0, nil) }
        let allowed = packetLimit.map { max(0, $0 - nextPacket) } ?? Int64.max
        if hasUniformPackets {
            let size = Int(format.bytesPerPacket)
            let count = Int(min(Int64(available / size), allowed))
            return (count, count * size, Int64(count) < allowed ? size : nil)
        }
        descriptions.removeAll(keepingCapacity: true)
        var used = 0
        var index = nextPacket
        while index - nextPacket < allowed, let size = packetSize(index) {
            guard used + size <= available else { return (descriptions.count, used, size) }
            descriptions.append(
                PacketDescription(
                    startOffset: Int64(used), variableFramesInPacket: packetFrameCount(index),
                    dataByteSize: UInt32(size)))
            used += size
            index += 1
        }
        return (descriptions.count, used, nil)
    }
}

/// The shared state machine of the chunked containers: RIFF (LE32, padded), IFF (BE32, padded),
/// CAF (BE64, unpadded, -1 meaning "to the end"), RF64 (sizes from `ds64`).
///
/// After each chunk it skips whatever the container half did not read, so a short read never
/// desynchronizes the stream; unknown chunks are skipped and noted.
struct ChunkWalker<Container: ChunkedContainer> {
    enum State {
        case fileHeader
        case chunkHeader
        case chunkBody(ChunkHeader)
        case audioPrefix(ChunkHeader, prefix: Int)
        /// Bytes to step over before the audio begins (AIFF's SSND offset).
        case audioLead(skip: Int64, remaining: Int64?, padded: Bool)
        /// Audio bytes left in the chunk (`nil`: to the end), and whether a pad byte follows.
        case audio(remaining: Int64?, padded: Bool)
        case skip(remaining: Int64)
        case trailing
    }

    var container = Container()
    var state = State.fileHeader
    var context: ParseContext

    init(mode: ParseMode, limits: ParserLimits) {
        context = ParseContext(mode: mode, limits: limits)
    }

    /// Whether everything needed to describe the audio has been read.
    var hasEssentials: Bool { context.properties.dataFormat != nil && context.sawAudioChunk }

    /// Bytes the parser will step over without looking; the file API may seek instead.
    var skippableByteCount: Int64 {
        switch state {
        case .skip(let remaining): return remaining
        case .audioLead(let skip, _, _): return skip
        case .audio(let remaining, _) where context.mode == .indexing:
            return remaining ?? Int64.max
        case .trailing: return Int64.max
        default: return 0
        }
    }

    /// Steps over `count` bytes (at most ``skippableByteCount``) that the driver did not read.
    mutating func skip(_ count: Int64) {
        switch state {
        case .skip(let remaining):
            state = remaining - count > 0 ? .skip(remaining: remaining - count) : .chunkHeader
        case .audioLead(let skip, let remaining, let padded):
            state = skip - count > 0 ? .audioLead(skip: skip - count, remaining: remaining, padded: padded)
                : .audio(remaining: remaining, padded: padded)
        case .audio(let remaining, let padded):
            context.audioBytesSeen += count
            if let remaining {
                state = remaining - count > 0 ? .audio(remaining: remaining - count, padded: padded)
                    : (padded ? .skip(remaining: 1) : .chunkHeader)
            }
        default: break
        }
    }

    mutating func next(_ cursor: inout ByteCursor) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            if context.replayRetained, let run = replayRetained() { return .packets(run) }
            switch state {
            case .fileHeader:
                guard cursor.remaining >= Container.fileHeaderSize else { return .needMore(Container.fileHeaderSize) }
                try container.parseFileHeader(&cursor, &context)
                state = .chunkHeader

            case .chunkHeader:
                if let end = container.outerEnd, cursor.absoluteOffset >= end, hasEssentials {
                    context.properties.trace.append(
                        offset: cursor.absoluteOffset, "bytes after the end of the outer chunk ignored")
                    state = .trailing
                    continue
                }
                let layout = Container.layout
                guard cursor.remaining >= layout.headerSize else { return .needMore(layout.headerSize) }
                try readChunkHeader(&cursor)

            case .chunkBody(let chunk):
                let size = Int(chunk.size ?? 0)
                guard cursor.remaining >= size else { return .needMore(size) }
                guard let body = cursor.readSlice(size) else { return .needMore(size) }
                var bodyCursor = ByteCursor(body, baseOffset: chunk.bodyOffset)
                try container.parseChunk(chunk, &bodyCursor, &context)
                let pad: Int64 = Container.layout.padsToEven && size % 2 == 1 ? 1 : 0
                state = pad > 0 ? .skip(remaining: pad) : .chunkHeader
                resolveDeferredAudio()

            case .audioPrefix(let chunk, let prefix):
                guard cursor.remaining >= prefix else { return .needMore(prefix) }
                guard let body = cursor.readSlice(prefix) else { return .needMore(prefix) }
                var prefixCursor = ByteCursor(body, baseOffset: chunk.bodyOffset)
                let extra = try container.parseAudioPrefix(chunk, &prefixCursor, &context)
                try beginAudio(chunk, prefix: prefix, extraSkip: extra)

            case .audioLead(let skip, let remaining, let padded):
                let count = Int(min(Int64(cursor.remaining), skip))
                _ = cursor.skip(count)
                if Int64(count) < skip {
                    state = .audioLead(skip: skip - Int64(count), remaining: remaining, padded: padded)
                    return .needMore(cursor.remaining + 1)
                }
                state = .audio(remaining: remaining, padded: padded)

            case .audio(let remaining, let padded):
                if let step = try produceAudio(&cursor, remaining: remaining, padded: padded) { return step }

            case .skip(let remaining):
                let count = Int(min(Int64(cursor.remaining), remaining))
                _ = cursor.skip(count)
                if Int64(count) < remaining {
                    state = .skip(remaining: remaining - Int64(count))
                    return .needMore(cursor.remaining + 1)
                }
                state = .chunkHeader

            case .trailing:
                _ = cursor.skip(cursor.remaining)
                return .needMore(1)
            }
        }
    }

    private mutating func readChunkHeader(_ cursor: inout ByteCursor) throws {
        let layout = Container.layout
        let offset = cursor.absoluteOffset
        guard let id = cursor.readFourCharCode() else { return }
        var size: Int64?
        if layout.sizeWidth == 8 {
            let raw = cursor.readInteger(endianness: layout.sizeEndianness, as: Int64.self) ?? 0
            if raw == -1 {
                size = nil
            } else if raw < 0 {
                throw AudioFileError.invalidChunk(
                    "\(Container.name): chunk '\(id)' has a negative size (\(raw))", offset: offset + 4)
            } else {
                size = raw
            }
        } else {
            size = Int64(cursor.readInteger(endianness: layout.sizeEndianness, as: UInt32.self) ?? 0)
        }
        var chunk = ChunkHeader(id: id, offset: offset, size: size, bodyOffset: offset + Int64(layout.headerSize))
        let disposition = try container.disposition(of: &chunk, &context)
        let padded = layout.padsToEven && (chunk.size ?? 0) % 2 == 1
        switch disposition {
        case .read:
            let (limit, essential) = container.readLimit(for: id, limits: context.limits)
            guard let size = chunk.size else {
                throw AudioFileError.invalidChunk(
                    "\(Container.name): chunk '\(id)' has no size", offset: offset + 4)
            }
            if size > Int64(limit) {
                if essential {
                    throw AudioFileError.limitExceeded(
                        "\(Container.name): '\(id)' chunk of \(size) bytes is larger than the \(limit)-byte limit",
                        offset: offset)
                }
                context.properties.trace.append(offset: offset, chunk: id, size: size, "too large to read; skipped")
                state = .skip(remaining: size.saturatingAdd(padded ? 1 : 0))
            } else {
                context.properties.trace.append(offset: offset, chunk: id, size: size)
                state = .chunkBody(chunk)
            }
        case .audioData(let prefix):
            context.properties.trace.append(offset: offset, chunk: id, size: chunk.size, "audio data")
            if let size = chunk.size, size < Int64(prefix) {
                throw AudioFileError.invalidChunk(
                    "\(Container.name): '\(id)' chunk is \(size) bytes; it needs at least \(prefix)", offset: offset)
            }
            state = .audioPrefix(chunk, prefix: prefix)
        case .skip(let note):
            context.properties.trace.append(offset: offset, chunk: id, size: chunk.size, note)
            if let size = chunk.size {
                state = .skip(remaining: size.saturatingAdd(padded ? 1 : 0))
            } else {
                state = .trailing
            }
        }
    }

    private mutating func beginAudio(_ chunk: ChunkHeader, prefix: Int, extraSkip: Int64) throws {
        if context.sawAudioChunk {
            throw AudioFileError.malformed(
                "\(Container.name): a second '\(chunk.id)' chunk; only one may hold audio", offset: chunk.offset)
        }
        context.sawAudioChunk = true
        let declared = chunk.size.map { $0 - Int64(prefix) - extraSkip }
        if let declared, declared < 0 {
            throw AudioFileError.invalidChunk(
                "\(Container.name): '\(chunk.id)' chunk of \(chunk.size ?? 0) bytes cannot hold audio starting "
                    + "\(Int64(prefix) + extraSkip) bytes into it", offset: chunk.offset)
        }
        context.properties.dataOffset = chunk.bodyOffset + Int64(prefix) + extraSkip
        context.declaredAudioBytes = declared
        context.announce(.dataOffset)
        if let declared {
            context.properties.audioDataByteCount = declared
            context.announce(.audioDataByteCount)
            if let format = context.properties.dataFormat, format.hasConstantPackets, context.packetFrames == nil {
                context.properties.audioDataPacketCount =
                    min(declared / Int64(format.bytesPerPacket), context.packetLimit ?? Int64.max)
                context.announce(.audioDataPacketCount)
                context.announce(.bitRate)
            }
        }
        if context.canProducePackets { announceReady() }
        let padded = Container.layout.padsToEven && (chunk.size ?? 0) % 2 == 1
        state = .audioLead(skip: extraSkip, remaining: declared, padded: padded)
    }

    private mutating func announceReady() {
        guard !context.announcedReady else { return }
        context.announcedReady = true
        if let format = context.properties.dataFormat {
            context.properties.maximumPacketSize =
                format.bytesPerPacket > 0 ? format.bytesPerPacket : context.packetSizes?.max() ?? 0
            context.announce(.maximumPacketSize)
        }
        context.announce(.readyToProducePackets)
    }

    /// Called after each chunk: if the audio came before what was needed to cut it into packets,
    /// and that has now arrived, announce readiness and replay what was retained.
    private mutating func resolveDeferredAudio() {
        guard context.sawAudioChunk, !context.announcedReady, context.canProducePackets else { return }
        announceReady()
        if context.mode == .streaming && !context.retained.isEmpty { context.replayRetained = true }
    }

    private mutating func replayRetained() -> PacketRun? {
        let start = context.replayIndex
        let available = context.retained.count - start
        let cut = available > 0 ? context.cutPackets(available: available) : (count: 0, bytes: 0, needed: nil)
        guard cut.count > 0 else {
            if available > 0 {
                context.properties.trace.append(
                    offset: (context.properties.dataOffset ?? 0) + Int64(start),
                    "\(available) retained audio bytes do not make a whole packet")
            }
            context.retained = []
            context.replayIndex = 0
            context.replayRetained = false
            return nil
        }
        context.replayIndex += cut.bytes
        defer { context.nextPacket += Int64(cut.count) }
        return PacketRun(
            source: .retained(index: start), firstPacket: context.nextPacket, packetCount: cut.count,
            absoluteOffset: (context.properties.dataOffset ?? 0) + Int64(start), byteCount: cut.bytes,
            hasDescriptions: !context.hasUniformPackets)
    }

    /// One step inside the audio: a run of whole packets, or bytes retained, skipped or awaited.
    private mutating func produceAudio(_ cursor: inout ByteCursor, remaining: Int64?, padded: Bool) throws
        -> ParserStep?
    {
        if remaining == 0 {
            state = padded ? .skip(remaining: 1) : .chunkHeader
            return nil
        }
        let available = Int(min(Int64(cursor.remaining), remaining ?? Int64.max))
        if available == 0 { return .needMore(cursor.remaining + 1) }

        if context.mode == .indexing || !context.canProducePackets {
            if context.mode == .streaming {
                guard context.retained.count + available <= context.limits.maximumRetainedAudioBytes else {
                    throw AudioFileError.limitExceeded(
                        "\(Container.name): more than \(context.limits.maximumRetainedAudioBytes) bytes of audio "
                            + "arrived before the chunk needed to read it; a stream cannot wait longer",
                        offset: cursor.absoluteOffset)
                }
                if let slice = cursor.readSlice(available) { context.retained.append(contentsOf: slice) }
            } else {
                _ = cursor.skip(available)
            }
            consumeAudio(available, remaining: remaining, padded: padded)
            return nil
        }

        let cut = context.cutPackets(available: available)
        if cut.count == 0 {
            if let needed = cut.needed, Int64(needed) <= (remaining ?? Int64.max) {
                return .needMore(needed)
            }
            // No further packet fits in the chunk (or the format chunk counts no more): step over its tail.
            if !context.notedSkippedTail {
                context.notedSkippedTail = true
                context.properties.trace.append(offset: cursor.absoluteOffset, "audio bytes after the last packet skipped")
            }
            _ = cursor.skip(available)
            consumeAudio(available, remaining: remaining, padded: padded)
            return nil
        }
        let run = PacketRun(
            source: .input(index: cursor.position), firstPacket: context.nextPacket, packetCount: cut.count,
            absoluteOffset: cursor.absoluteOffset, byteCount: cut.bytes, hasDescriptions: !context.hasUniformPackets)
        _ = cursor.skip(cut.bytes)
        context.nextPacket += Int64(cut.count)
        consumeAudio(cut.bytes, remaining: remaining, padded: padded)
        return .packets(run)
    }

    private mutating func consumeAudio(_ count: Int, remaining: Int64?, padded: Bool) {
        context.audioBytesSeen += Int64(count)
        guard let remaining else { return }
        let left = remaining - Int64(count)
        state = left > 0 ? .audio(remaining: left, padded: padded) : (padded ? .skip(remaining: 1) : .chunkHeader)
    }

    /// Ends the stream: reports what a damaged file still holds, or throws where its header is incomplete.
    /// `unconsumed` bytes were given but not consumed (a partial unit).
    mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        let name = Container.name
        switch state {
        case .fileHeader:
            throw AudioFileError.truncated(
                "\(name): the stream ends inside the \(Container.fileHeaderSize)-byte file header",
                offset: endOffset - Int64(unconsumed))
        case .chunkHeader:
            if unconsumed > 0 {
                guard hasEssentials else {
                    throw AudioFileError.truncated(
                        "\(name): the stream ends inside a chunk header", offset: endOffset - Int64(unconsumed))
                }
                context.properties.trace.append(
                    offset: endOffset - Int64(unconsumed), "\(unconsumed) bytes at the end are not a whole chunk header")
            }
        case .chunkBody(let chunk):
            let (_, essential) = container.readLimit(for: chunk.id, limits: context.limits)
            if essential || !hasEssentials {
                throw AudioFileError.truncated(
                    "\(name): the stream ends inside the '\(chunk.id)' chunk (\(chunk.size ?? 0) bytes declared, "
                        + "\(unconsumed) present)", offset: chunk.offset)
            }
            context.properties.trace.append(
                offset: chunk.offset, chunk: chunk.id, size: chunk.size, "cut short by the end of the stream; ignored")
        case .audioPrefix(let chunk, _):
            throw AudioFileError.truncated(
                "\(name): the stream ends inside the header of the '\(chunk.id)' chunk", offset: chunk.offset)
        case .audioLead(let skip, _, _):
            if skip > 0 {
                // The audio chunk's own header puts its first byte past the end: nothing of it arrived.
                throw AudioFileError.truncated(
                    "\(name): the stream ends \(skip) bytes before the audio begins at byte "
                        + "\(context.properties.dataOffset ?? 0)", offset: endOffset)
            }
        case .audio(let remaining, _):
            if let remaining, remaining > 0 {
                context.properties.isTruncated = true
                context.properties.trace.append(
                    offset: endOffset, "audio data ends \(remaining) bytes short of its declared size")
            } else if remaining == nil && unconsumed > 0 {
                context.properties.isTruncated = true
                context.properties.trace.append(
                    offset: endOffset - Int64(unconsumed), "the last packet is cut short (\(unconsumed) bytes)")
            }
        case .skip(let remaining):
            if remaining > 1 {
                context.properties.trace.append(offset: endOffset, "the last chunk ends \(remaining) bytes short")
            }
        case .trailing:
            break
        }
        guard context.properties.dataFormat != nil else {
            throw AudioFileError.truncated("\(name): no format chunk before the end of the stream", offset: endOffset)
        }
        guard context.sawAudioChunk else {
            throw AudioFileError.truncated("\(name): no audio data chunk before the end of the stream", offset: endOffset)
        }
        guard context.canProducePackets else {
            throw AudioFileError.malformed(
                "\(name): the packets vary in size and there is no packet table to find them",
                offset: context.properties.dataOffset)
        }
        // Count what is really there: whole packets only.
        let whole = context.wholePackets(in: context.audioBytesSeen)
        if let declared = context.declaredAudioBytes, declared > context.audioBytesSeen {
            context.properties.isTruncated = true
        }
        context.properties.audioDataPacketCount = whole.packets
        context.properties.audioDataByteCount =
            context.properties.isTruncated ? whole.bytes : context.audioBytesSeen
        if let sizes = context.packetSizes {
            context.properties.maximumPacketSize = sizes.prefix(Int(whole.packets)).max() ?? 0
        }
        try container.finish(&context, endOffset: endOffset)
    }
}
