import AudioFormats
import StreamParsing

/// The shared state machine of the chunked containers: RIFF (LE32, padded to 2), IFF (BE32, padded to 2),
/// CAF (BE64, unpadded, -1 meaning "to the end"), RF64 (sizes from `ds64`), Wave64 (GUID IDs, LE64 sizes
/// that count the header, padded to 8).
///
/// After each chunk it skips whatever the container half did not read, so a short read never
/// desynchronizes the stream; unknown chunks are skipped and noted.
struct ChunkWalker<Container: ChunkedContainer> {
    enum State: Sendable {
        case fileHeader
        case chunkHeader
        case chunkBody(ChunkHeader)
        case audioPrefix(ChunkHeader, prefix: Int)
        /// Bytes to step over before the audio begins (AIFF's SSND offset).
        case audioLead(skip: Int64, remaining: Int64?, pad: Int64)
        /// Audio bytes left in the chunk (`nil`: to the end), and the pad bytes that follow it.
        case audio(remaining: Int64?, pad: Int64)
        case skip(remaining: Int64)
        case trailing
        /// A seek was requested; the bytes from its target continue in `then`.
        indirect case awaitingSeek(then: State)
    }

    var container = Container()
    var state = State.fileHeader
    var context: ParseContext
    /// Whether the client answers seek requests: audio that needs a table which follows it (a CAF's
    /// `pakt` after `data`, as FFmpeg writes ALAC) and is more than a megabyte (or than the stream may
    /// hold) is then read after the table, by seeking past it and back, rather than held.
    let requestsSeeks: Bool
    /// The audio stepped over to read the chunks after it: where it starts, and its size.
    private var deferredAudio: (offset: Int64, remaining: Int64, pad: Int64)?
    /// Chunks before this offset were read while looking past the audio; the second pass skips them.
    private var readThrough: Int64?
    private var seekRequest: Int64?

    /// Audio before its table that is held rather than sought around, where the client answers seeks:
    /// below this, a second request costs more than the memory (and more than a round trip on a network).
    static var heldAudioBeforeSeeking: Int { 1 << 20 }

    init(mode: ParseMode, limits: ParserLimits, requestsSeeks: Bool = false) {
        context = ParseContext(mode: mode, limits: limits)
        self.requestsSeeks = requestsSeeks && mode == .streaming
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
        case .audioLead(let skip, let remaining, let pad):
            state =
                skip - count > 0
                ? .audioLead(skip: skip - count, remaining: remaining, pad: pad)
                : .audio(remaining: remaining, pad: pad)
        case .audio(let remaining, let pad):
            context.audioBytesSeen += count
            if let remaining {
                state =
                    remaining - count > 0
                    ? .audio(remaining: remaining - count, pad: pad)
                    : (pad > 0 ? .skip(remaining: pad) : .chunkHeader)
            }
        default: break
        }
    }

    mutating func next(_ cursor: inout ByteCursor) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            if context.retained.isReplaying, let run = replayRetained() { return .packets(run) }
            if let target = seekRequest {
                seekRequest = nil
                return .seek(target)
            }
            switch state {
            case .awaitingSeek:
                _ = cursor.skip(cursor.remaining)
                return .needMore(1)

            case .fileHeader:
                guard cursor.remaining >= Container.fileHeaderSize else { return .needMore(Container.fileHeaderSize) }
                try container.parseFileHeader(&cursor, &context)
                state = .chunkHeader
                if let audio = container.implicitAudioChunk() {
                    context.properties.trace.append(
                        offset: audio.chunk.offset, size: audio.chunk.size.map { $0 + audio.chunk.bodyOffset },
                        "header and audio data")
                    try beginAudio(audio.chunk, prefix: 0, extraSkip: audio.lead)
                }

            case .chunkHeader:
                if let end = container.outerEnd, cursor.absoluteOffset >= end, hasEssentials {
                    // Said only where a byte follows: a clean file ends exactly here.
                    guard cursor.remaining > 0 else { return .needMore(1) }
                    context.properties.trace.append(
                        offset: cursor.absoluteOffset, "bytes after the end of the outer chunk ignored")
                    state = .trailing
                    continue
                }
                let layout = container.layout
                guard cursor.remaining >= layout.headerSize else { return .needMore(layout.headerSize) }
                try readChunkHeader(&cursor)

            case .chunkBody(let chunk):
                let size = Int(chunk.size ?? 0)
                guard cursor.remaining >= size else { return .needMore(size) }
                guard let body = cursor.readSlice(size) else { return .needMore(size) }
                var bodyCursor = ByteCursor(body, baseOffset: chunk.bodyOffset)
                try container.parseChunk(chunk, &bodyCursor, &context)
                let pad = container.layout.pad(after: Int64(size))
                state = pad > 0 ? .skip(remaining: pad) : .chunkHeader
                resolveDeferredAudio(chunkEnd: chunk.bodyOffset + Int64(size) + pad)

            case .audioPrefix(let chunk, let prefix):
                guard cursor.remaining >= prefix else { return .needMore(prefix) }
                guard let body = cursor.readSlice(prefix) else { return .needMore(prefix) }
                var prefixCursor = ByteCursor(body, baseOffset: chunk.bodyOffset)
                let extra = try container.parseAudioPrefix(chunk, &prefixCursor, &context)
                try beginAudio(chunk, prefix: prefix, extraSkip: extra)

            case .audioLead(let skip, let remaining, let pad):
                let count = Int(min(Int64(cursor.remaining), skip))
                _ = cursor.skip(count)
                if Int64(count) < skip {
                    state = .audioLead(skip: skip - Int64(count), remaining: remaining, pad: pad)
                    return .needMore(cursor.remaining + 1)
                }
                state = .audio(remaining: remaining, pad: pad)

            case .audio(let remaining, let pad):
                if let step = try produceAudio(&cursor, remaining: remaining, pad: pad) { return step }

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
        let layout = container.layout
        let offset = cursor.absoluteOffset
        guard let id = cursor.readFourCharCode() else { return }
        // A GUID's other 12 bytes (Wave64): its first 4 are the FourCC the chunk is known by.
        _ = cursor.skip(layout.idWidth - 4)
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
        if layout.sizeCountsHeader, let counted = size {
            guard counted >= Int64(layout.headerSize) else {
                throw AudioFileError.invalidChunk(
                    "\(Container.name): chunk '\(id)' claims \(counted) bytes, less than its own "
                        + "\(layout.headerSize)-byte header", offset: offset + Int64(layout.idWidth))
            }
            size = counted - Int64(layout.headerSize)
        }
        var chunk = ChunkHeader(id: id, offset: offset, size: size, bodyOffset: offset + Int64(layout.headerSize))
        if let readThrough, offset < readThrough {
            // Read already, while looking past the audio.
            state = .skip(remaining: min(size ?? Int64.max, readThrough - chunk.bodyOffset))
            return
        }
        let disposition = try container.disposition(of: &chunk, &context)
        let pad = layout.pad(after: chunk.size)
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
                // Metadata afkit reads, past the read limit: memory stays bounded, and what is left is said.
                context.noteNotRead(
                    "\(Container.name): the '\(id)' chunk at byte \(offset) is \(size) bytes, more than the \(limit) "
                        + "afkit reads: skipped, not read",
                    NotRead(what: "'\(id)' chunk", count: size, unit: "bytes", offset: offset))
                state = .skip(remaining: size.saturatingAdd(pad))
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
                state = .skip(remaining: size.saturatingAdd(pad))
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
                    declared / Int64(format.bytesPerPacket)
                context.announce(.audioDataPacketCount)
                context.announce(.bitRate)
            }
        }
        if context.canProducePackets { announceReady() }
        let pad = container.layout.pad(after: chunk.size)
        state = .audioLead(skip: extraSkip, remaining: declared, pad: pad)
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
    private mutating func resolveDeferredAudio(chunkEnd: Int64) {
        guard context.sawAudioChunk, !context.announcedReady, context.canProducePackets else { return }
        announceReady()
        if let audio = deferredAudio {
            // The table has come: back to the audio, then on past the chunks read already.
            deferredAudio = nil
            readThrough = chunkEnd
            seekRequest = audio.offset
            state = .awaitingSeek(then: .audio(remaining: audio.remaining, pad: audio.pad))
            return
        }
        if context.mode == .streaming && !context.retained.isEmpty { context.retained.isReplaying = true }
    }

    /// The next run of packets from the audio held while the packet table was awaited.
    private mutating func replayRetained() -> PacketRun? {
        let start = (context.properties.dataOffset ?? 0) + context.replayedBytes
        let available = context.retained.heldBytes(from: start)
        let cut = available > 0 ? context.cutPackets(available: available) : (count: 0, bytes: 0, needed: nil)
        guard cut.count > 0, let index = context.retained.index(of: start, count: cut.bytes) else {
            if available > 0 {
                context.properties.trace.append(
                    offset: start, "\(available) retained audio bytes do not make a whole packet")
            }
            context.retained.release()
            return nil
        }
        context.replayedBytes += Int64(cut.bytes)
        defer { context.nextPacket += Int64(cut.count) }
        return PacketRun(
            source: .retained(index: index), firstPacket: context.nextPacket, packetCount: cut.count,
            absoluteOffset: start, byteCount: cut.bytes, hasDescriptions: !context.hasUniformPackets)
    }

    /// One step inside the audio: a run of whole packets, or bytes retained, skipped or awaited.
    private mutating func produceAudio(_ cursor: inout ByteCursor, remaining: Int64?, pad: Int64) throws
        -> ParserStep?
    {
        if remaining == 0 {
            state = pad > 0 ? .skip(remaining: pad) : .chunkHeader
            return nil
        }
        let available = Int(min(Int64(cursor.remaining), remaining ?? Int64.max))
        if available == 0 { return .needMore(cursor.remaining + 1) }

        if context.mode == .indexing || !context.canProducePackets {
            if requestsSeeks, context.mode == .streaming, context.retained.isEmpty, deferredAudio == nil,
                let remaining,
                remaining > Int64(min(context.limits.maximumRetainedAudioBytes, Self.heldAudioBeforeSeeking))
            {
                // More than is worth holding: read what follows the audio first, then come back for it.
                let start = cursor.absoluteOffset
                deferredAudio = (start, remaining, pad)
                let end = start + remaining + pad
                context.properties.trace.append(
                    offset: start, "audio before its packet table: reading on from \(end) first")
                seekRequest = end
                state = .awaitingSeek(then: .chunkHeader)
                return nil
            }
            if context.mode == .streaming {
                let offset = cursor.absoluteOffset
                let limit = context.limits.maximumRetainedAudioBytes
                if let slice = cursor.readSlice(available) {
                    try context.retained.hold(slice, at: offset, limit: limit) {
                        .limitExceeded(
                            "\(Container.name): more than \(limit) bytes of audio arrived before the chunk "
                                + "needed to read it; a stream cannot wait longer", offset: offset)
                    }
                }
            } else {
                _ = cursor.skip(available)
            }
            consumeAudio(available, remaining: remaining, pad: pad)
            return nil
        }

        let cut = context.cutPackets(available: available)
        if cut.count == 0 {
            if let needed = cut.needed, Int64(needed) <= (remaining ?? Int64.max) {
                guard needed <= context.limits.maximumRetainedAudioBytes else {
                    throw AudioFileError.limitExceeded(
                        "\(Container.name): a packet of \(needed) bytes is more than a stream may hold",
                        offset: cursor.absoluteOffset)
                }
                return .needMore(needed)
            }
            // No further packet fits in the chunk (or the format chunk counts no more): step over its tail.
            if !context.notedSkippedTail {
                context.notedSkippedTail = true
                context.properties.trace.append(
                    offset: cursor.absoluteOffset, "audio bytes after the last packet skipped")
            }
            _ = cursor.skip(available)
            consumeAudio(available, remaining: remaining, pad: pad)
            return nil
        }
        let run = PacketRun(
            source: .input(index: cursor.position), firstPacket: context.nextPacket, packetCount: cut.count,
            absoluteOffset: cursor.absoluteOffset, byteCount: cut.bytes, hasDescriptions: !context.hasUniformPackets)
        _ = cursor.skip(cut.bytes)
        context.nextPacket += Int64(cut.count)
        consumeAudio(cut.bytes, remaining: remaining, pad: pad)
        return .packets(run)
    }

    private mutating func consumeAudio(_ count: Int, remaining: Int64?, pad: Int64) {
        context.audioBytesSeen += Int64(count)
        guard let remaining else { return }
        let left = remaining - Int64(count)
        state = left > 0 ? .audio(remaining: left, pad: pad) : (pad > 0 ? .skip(remaining: pad) : .chunkHeader)
    }

    /// Ends the stream: reports what a damaged file still holds, or throws where its header is incomplete.
    /// `unconsumed` bytes were given but not consumed (a partial unit).
    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
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
                    offset: endOffset - Int64(unconsumed), "\(unconsumed) bytes at the end are not a whole chunk header"
                )
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
            // The audio is whole; what the chunk held (tags, a cover, markers) is lost with its end: said.
            context.noteDamage(
                "\(name): the '\(chunk.id)' chunk at byte \(chunk.offset) is cut short by the end of the file "
                    + "(\(unconsumed) of \(chunk.size ?? 0) bytes): what it holds is lost")
        case .audioPrefix(let chunk, _):
            throw AudioFileError.truncated(
                "\(name): the stream ends inside the header of the '\(chunk.id)' chunk", offset: chunk.offset)
        case .awaitingSeek:
            throw AudioFileError.truncated(
                "\(name): the stream ended before the bytes the parser asked to seek to arrived", offset: endOffset)
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
            guard Container.allowsMissingAudio else {
                throw AudioFileError.truncated(
                    "\(name): no audio data chunk before the end of the stream", offset: endOffset)
            }
            context.properties.trace.append(offset: endOffset, "no audio data chunk: an empty sound")
            context.properties.dataOffset = endOffset
            context.properties.audioDataPacketCount = 0
            context.properties.audioDataByteCount = 0
            try container.finish(&context, endOffset: endOffset)
            return
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

extension ChunkWalker: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    var runDescriptions: [PacketDescription] { context.descriptions }
    var packetIndexIsKnown: Bool { context.packetIndexIsKnown }
    var retainedBytes: [UInt8] { context.retained.bytes }

    mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }

    var declaresPacketCounts: Bool {
        context.properties.audioDataPacketCount != nil && context.declaredAudioBytes != nil && context.canProducePackets
    }

    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep { try next(&cursor) }

    mutating func discontinuity() {
        if case .awaitingSeek(let then) = state { state = then }
    }

    mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        guard context.announcedReady, let dataOffset = context.properties.dataOffset else {
            throw AudioFileError.illegalOperation("\(Container.name): cannot seek before the audio data is found")
        }
        let byteOffset = try context.byteOffset(ofPacket: packet)
        let remaining = context.declaredAudioBytes.map { $0 - byteOffset }
        let pad = container.layout.pad(after: context.declaredAudioBytes)
        state = .audio(remaining: remaining, pad: pad)
        resumeNumbering(atPacket: packet, isEstimate: false, averagePacketSize: nil)
        context.audioBytesSeen = byteOffset
        return (dataOffset + byteOffset, false)
    }
}
