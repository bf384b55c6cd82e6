import AudioFormats
import StreamParsing

/// The push parser for ISO base media files (`.m4a`, `.mp4`): boxes walked as they arrive, in any
/// chunking, the first sound track's sample table turned into packets at absolute offsets.
///
/// - Containers (`moov`, `trak`, `mdia`, `minf`, `stbl`, `edts`, `udta`, `meta`, `ilst`, `mvex`,
///   `moof`, `traf`) are descended with a stack, never recursion, bounded in depth and in boxes.
/// - Leaf boxes the parser needs are read whole within the parser's limits; every other box, cover
///   art among them, is stepped over by its size without being held.
/// - A packet is one sample. Samples are cut from `mdat` as its bytes pass; where `mdat` comes
///   before `moov`, the streaming parser holds it (up to the retained-audio limit, then `optm`) or,
///   when its client answers seek requests, asks for the bytes after it and comes back.
/// - Fragmented files (`mvex`, then `moof`/`mdat` pairs) add each fragment's samples as they come.
/// - Gapless: the edit list (media time = priming, segment duration = valid frames), else
///   `iTunSMPB`, else nothing.
package struct MP4Parser: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    package var runDescriptions: [PacketDescription] { context.descriptions }
    package var packetIndexIsKnown: Bool { context.packetIndexIsKnown }
    package var retainedBytes: [UInt8] { context.retained.bytes }

    struct Box {
        var type: FourCharCode
        var offset: Int64
        var headerSize: Int
        /// Absolute end; `nil` for a last box that runs to the end of the stream (size 0).
        var end: Int64?
        var bodyOffset: Int64 { offset + Int64(headerSize) }
        var bodySize: Int64? { end.map { $0 - bodyOffset } }
    }

    indirect enum State: Sendable {
        case boxHeader
        /// After a `meta` header: a full box (version and flags) or QuickTime's plain one.
        case metaHeader(Box)
        case boxBody(Box)
        /// A cover's `data` box: its type and first bytes are read, the picture passed over.
        case pictureData(Box)
        /// Bytes to step over; `nil`: to the end of the stream.
        case skip(remaining: Int64?)
        /// Inside `mdat` with the sample table known: packets are cut as the bytes pass.
        case media(Box)
        /// Inside `mdat` before `moov`: the bytes are held until the table arrives.
        case retaining(Box)
        /// A seek was requested; bytes are ignored until the client's discontinuity.
        case awaitingSeek(target: Int64, then: State)
        /// A chapter track's sample (by its index in ``MP4Parser/chapterSamples``), read where a seek led.
        case chapterSample(Int)
        /// The first MPEG audio frame of the movie (its `moov`), read where a seek led; then back to `returnTo`
        /// (the end of the box read last: `moov`, or a fragment's `moof`).
        case firstFrameHeader(Box, returnTo: Int64?)
    }

    /// What the parser keeps of one `trak` while it is read.
    struct Track {
        var id: UInt32 = 0
        var handler: FourCharCode?
        var timescale: UInt32 = 0
        var edits: [(duration: Int64, mediaTime: Int64)] = []
        var entry: SampleEntry?
        var timeToSample: [(count: UInt32, delta: UInt32)] = []
        /// The samples `stts` times.
        var timedSampleCount: Int64 { timeToSample.reduce(Int64(0)) { $0 + Int64($1.count) } }
        var samplesPerChunk: [(firstChunk: UInt32, samples: UInt32)] = []
        var constantSize: UInt32 = 0
        var sampleCount: Int64 = 0
        var sizes: [UInt32] = []
        var chunkOffsets: [Int64] = []
        var tableOffset: Int64 = 0
        /// What its `udta/ludt/tlou` states.
        var loudness: LoudnessInfo?
        /// The tracks its `tref/chap` names: its chapter tracks.
        var chapterReferences: [UInt32] = []
        /// Whether its sample table did not hold together (a text track's: its chapters are not read).
        var tableIsDamaged = false
    }

    /// A chapter track's sample: where its title lies and when the chapter runs, in seconds.
    struct ChapterSample {
        var offset: Int64
        var size: Int
        var start: Double
        var end: Double
    }

    /// The first sample description of the sound track.
    struct SampleEntry {
        var format: StreamDescription
        var formatList: [StreamDescription]
        var cookie: [UInt8]?
        /// Whether the codec fixes the frames per packet (else the time-to-sample table says).
        var knowsFramesPerPacket: Bool
    }

    /// Running figures over the packets counted so far.
    struct Tally {
        var packets: Int64 = 0
        var bytes: Int64 = 0
        var largest: UInt32 = 0
        var duration: Int64 = 0

        mutating func add(size: UInt32, duration: UInt32) {
            packets += 1
            bytes += Int64(size)
            largest = max(largest, size)
            self.duration += Int64(duration)
        }
    }

    /// The boxes a QuickTime movie without `ftyp` begins with (Apple's QuickTime File Format: the movie, its
    /// media, a `wide` placeholder, free space, a preview).
    static let quickTimeFirstBoxes: Set<FourCharCode> = ["moov", "mdat", "wide", "free", "skip", "pnot"]

    /// Deepest nesting of boxes followed, and most boxes read inside one top-level box.
    static let maximumDepth = 16
    package static let maximumBoxesPerHeader = 100_000
    /// Most packets handed out in one run.
    static let maximumPacketsPerRun = 4096

    package var context: ParseContext
    var state = State.boxHeader
    let requestsSeeks: Bool
    var open: [Box] = []
    var boxesInHeader = 0
    var sawFileType = false
    var movieTimescale: UInt32 = 0
    var track: Track?
    var audio: Track?
    var movieParsed = false
    var isFragmented = false
    var trackDefaults: (duration: UInt32, size: UInt32)?
    var table = MP4SampleTable()
    var sampleCursor = MP4SampleTable.Cursor()
    var tally = Tally()
    var itunesGapless: (priming: Int64, remainder: Int64, valid: Int64)?
    /// What the movie's own `udta/ludt/tlou` states (a track's comes first).
    var movieLoudness: LoudnessInfo?
    var framesPerDuration = 1.0
    /// `mdat` boxes seen, so a seek can tell which one holds an offset.
    var mediaBoxes: [Box] = []
    /// The first `mdat` met before `moov`.
    var earlyMedia: Box?
    var pendingSeekRequest: (target: Int64, then: State)?
    var resumed = false
    /// The first text tracks (a chapter track among them: QuickTime's, which Apple's audiobooks and podcasts
    /// carry), at most ``maximumTextTracks``.
    var textTracks: [Track] = []
    /// Its samples (a title each) not read yet, in file order, and where the walk goes once they are.
    var chapterSamples: [ChapterSample] = []
    var afterChapters: (target: Int64, then: State)?
    var readsChapterTrack = false
    /// Whether the titles wait for the `mdat` after `moov` to be seen (a file read by index, `moov` first): they
    /// are sought only inside a `mdat` known to hold them.
    var chaptersAwaitMedia = false
    /// The `moov` read whose format waits for its first MPEG audio frame's header.
    var movieAwaitingFirstFrame: Box?
    /// The duration the table gives a first packet that decodes to no frames (Vorbis's: its first block only
    /// primes the overlap, Vorbis I 1.3.2), in the track's timescale: part of the edit's media time, not priming.
    var silentFirstPacketTicks: Int64 = 0
    // Fragments.
    var fragmentOffset: Int64 = 0
    var lastFragmentOffset: Int64?
    var previousFragmentDataEnd: Int64?
    var fragment:
        (
            trackID: UInt32, flags: UInt32, base: Int64, defaultDuration: UInt32, defaultSize: UInt32,
            dataEnd: Int64?
        )?

    init(mode: ParseMode, limits: ParserLimits, requestsSeeks: Bool) {
        context = ParseContext(mode: mode, limits: limits)
        self.requestsSeeks = requestsSeeks && mode == .streaming
    }

    package var declaresPacketCounts: Bool { movieParsed && !isFragmented }

    package func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (offset: Int64, isEstimate: Bool)? {
        guard let cursor = table.cursor(at: packet), let sample = table.sample(at: cursor),
            let dataOffset = context.properties.dataOffset
        else { return nil }
        return (sample.offset - dataOffset, false)
    }

    package func byteToPacket(_ byte: Int64, averagePacketSize: Double?) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )? {
        guard let dataOffset = context.properties.dataOffset, byte >= 0 else { return nil }
        let offset = dataOffset.saturatingAdd(byte)
        // The run holding the offset, then the sample in it.
        guard let run = table.runs.last(where: { $0.offset <= offset }), offset < run.end,
            var cursor = table.cursor(at: run.firstSample)
        else { return nil }
        if run.sizeIndex < 0 && run.constantSize > 0 {
            let index = (offset - run.offset) / Int64(run.constantSize)
            return (run.firstSample + index, (offset - run.offset) % Int64(run.constantSize), false)
        }
        while let sample = table.sample(at: cursor), cursor.sample < run.firstSample + run.count {
            if offset < sample.offset + Int64(sample.size) { return (cursor.sample, offset - sample.offset, false) }
            table.advance(&cursor)
        }
        return nil
    }

    package var skippableByteCount: Int64 {
        if case .skip(let remaining) = state { return remaining ?? Int64.max }
        return 0
    }

    package mutating func skip(_ count: Int64) {
        guard case .skip(let remaining?) = state else { return }
        state = remaining - count > 0 ? .skip(remaining: remaining - count) : .boxHeader
    }

    package mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }

    package mutating func discontinuity() {
        if case .awaitingSeek(_, let then) = state {
            state = then
        } else if !resumed {
            // Bytes from somewhere else with no seek to place them: take them as a box boundary.
            open.removeAll()
            state = .boxHeader
        }
        resumed = false
    }

    package mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        guard movieParsed, let cursor = table.cursor(at: packet), let offset = table.sample(at: cursor)?.offset else {
            throw AudioFileError.invalidPacket(
                "mp4: packet \(packet) is not in the sample table read so far (\(table.sampleCount) packets)",
                offset: nil)
        }
        sampleCursor = cursor
        tally.packets = packet
        let box = mediaBoxes.last { $0.bodyOffset <= offset && offset < ($0.end ?? Int64.max) }
        open.removeAll()
        state = .media(box ?? Box(type: "mdat", offset: offset, headerSize: 0, end: nil))
        context.retained.release()
        resumed = true
        resumeNumbering(atPacket: packet, isEstimate: false, averagePacketSize: nil)
        return (offset, false)
    }

    // MARK: Walking the boxes

    package mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            if context.retained.isReplaying, let run = replayRetained(before: cursor.absoluteOffset) {
                return .packets(run)
            }
            if let request = pendingSeekRequest {
                pendingSeekRequest = nil
                state = .awaitingSeek(target: request.target, then: request.then)
                return .seek(request.target)
            }
            let step: ParserStep?
            switch state {
            case .boxHeader: step = try atBoxBoundary(&cursor)
            case .metaHeader(let box): step = try enterMeta(box, &cursor)
            case .pictureData(let box): step = notePicture(in: box, &cursor)
            case .boxBody(let box):
                let size = Int(box.bodySize ?? 0)
                guard cursor.remaining >= size, let bytes = cursor.readSlice(size) else { return .needMore(size) }
                var body = ByteCursor(bytes, baseOffset: box.bodyOffset)
                state = .boxHeader
                try parseBox(box, &body)
                step = nil
            case .skip(let remaining): step = skipBytes(remaining, &cursor)
            case .media(let box): step = try produceMedia(&cursor, in: box)
            case .retaining(let box): step = try retainMedia(of: box, &cursor)
            case .awaitingSeek:
                _ = cursor.skip(cursor.remaining)
                step = .needMore(1)
            case .firstFrameHeader(let movie, let returnTo):
                step = try readFirstFrame(of: movie, returningTo: returnTo, &cursor, atEnd: atEnd)
            case .chapterSample(let index): step = readChapterSample(index, &cursor, atEnd: atEnd)
            }
            if let step { return step }
        }
    }

    /// At a box boundary: closes the box that ends here, skips a parent's tail too short for a box, or reads
    /// the next box's header; a step where more bytes are needed, `nil` to go on.
    private mutating func atBoxBoundary(_ cursor: inout ByteCursor) throws -> ParserStep? {
        let position = cursor.absoluteOffset
        if let parent = open.last, let end = parent.end, position >= end {
            try close()
            return nil
        }
        if let parent = open.last, let end = parent.end, end - position < 8 {
            // QuickTime ends some lists with a 32-bit zero; anything shorter than a header is not a box.
            context.properties.trace.append(
                offset: position, "\(end - position) bytes at the end of '\(parent.type)' skipped")
            state = .skip(remaining: end - position)
            return nil
        }
        guard cursor.remaining >= 8 else { return .needMore(8) }
        if cursor.peekInteger(endianness: .big, as: UInt32.self) == 1 && cursor.remaining < 16 {
            return .needMore(16)
        }
        try readBoxHeader(&cursor)
        return nil
    }

    /// Steps into `meta`'s children: past the version and flags of ISO's full box, at once for QuickTime's
    /// (a child first); a `meta` too short for a child is skipped.
    private mutating func enterMeta(_ box: Box, _ cursor: inout ByteCursor) throws -> ParserStep? {
        let body = box.bodySize ?? 0
        if body < 8 {
            state = .skip(remaining: body)
            return nil
        }
        guard cursor.remaining >= 8 else { return .needMore(8) }
        let plain =
            cursor.getInteger(at: cursor.position + 4, endianness: .big, as: UInt32.self)
            == FourCharCode("hdlr").rawValue
        if !plain { _ = cursor.skip(4) }
        try descend(into: box)
        return nil
    }

    /// Records a cover's `data` box as a picture (its type from the indicator, else from its first bytes,
    /// and where its bytes lie) and passes over the picture itself.
    private mutating func notePicture(in box: Box, _ cursor: inout ByteCursor) -> ParserStep? {
        // Type indicator (13 JPEG, 14 PNG, 27 BMP; 0 implicit), locale, then the picture.
        let size = box.bodySize ?? 0
        let wanted = Int(min(size, 20))
        guard cursor.remaining >= wanted else { return .needMore(wanted) }
        if size >= 8, let indicator = cursor.getInteger(at: cursor.position, endianness: .big, as: UInt32.self) {
            let head = cursor.bytes[cursor.position + 8..<cursor.position + wanted]
            let named: [UInt32: String] = [13: "image/jpeg", 14: "image/png", 27: "image/bmp"]
            var picture = Picture(
                type: 3, mimeType: named[indicator & 0xFF_FFFF] ?? Picture.sniffedMIMEType(head) ?? "",
                byteCount: Int(size - 8))
            picture.dataOffset = box.bodyOffset + 8
            context.properties.pictures.append(picture)
        }
        skip(box, note: "cover art")
        return nil
    }

    /// Steps over `remaining` bytes (`nil`: every byte to the end of the stream), then back to box headers.
    private mutating func skipBytes(_ remaining: Int64?, _ cursor: inout ByteCursor) -> ParserStep? {
        guard let remaining else {
            _ = cursor.skip(cursor.remaining)
            return .needMore(1)
        }
        let count = Int(min(Int64(cursor.remaining), remaining))
        _ = cursor.skip(count)
        if Int64(count) < remaining {
            state = .skip(remaining: remaining - Int64(count))
            return .needMore(1)
        }
        state = .boxHeader
        return nil
    }

    /// Holds `mdat`'s bytes that come before `moov`, up to the retained-audio limit, until the box ends.
    private mutating func retainMedia(of box: Box, _ cursor: inout ByteCursor) throws -> ParserStep? {
        let position = cursor.absoluteOffset
        guard let count = mediaBytesPresent(in: box, at: position, remaining: cursor.remaining) else { return nil }
        guard count > 0 else { return .needMore(1) }
        let limit = context.limits.maximumRetainedAudioBytes
        let media = earlyMedia ?? box
        if let bytes = cursor.readSlice(count) {
            try context.retained.hold(bytes, at: position, limit: limit) {
                .notOptimized(
                    "mp4: 'moov' does not come before the audio; more than \(limit) bytes of 'mdat' "
                        + "arrived without it, and a stream cannot wait longer", offset: media.offset)
            }
        }
        return nil
    }

    /// The bytes of `box` (a media box) present at `position`, or `nil` where the box ends there: the walk goes
    /// back to box headers.
    private mutating func mediaBytesPresent(in box: Box, at position: Int64, remaining: Int) -> Int? {
        let end = box.end ?? Int64.max
        if position >= end {
            state = .boxHeader
            return nil
        }
        return Int(min(Int64(remaining), end - position))
    }

    /// Reads the movie's first MPEG audio frame header where a seek led, then announces the movie and seeks
    /// back to `returnTo` (or passes over the rest of the stream).
    private mutating func readFirstFrame(
        of movie: Box, returningTo returnTo: Int64?, _ cursor: inout ByteCursor, atEnd: Bool
    ) throws -> ParserStep? {
        let count = firstSampleBytesRead
        guard cursor.remaining >= count || atEnd else { return .needMore(count) }
        let available = min(count, cursor.remaining)
        readFirstFrameHeader(
            UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + available]))
        _ = cursor.skip(cursor.remaining)
        state = .skip(remaining: nil)
        if let end = returnTo { pendingSeekRequest = (end, .boxHeader) }
        try announceMovie(movie)
        return nil
    }

    /// Reads a chapter track's sample's title where a seek led, then seeks to the next one's, or to where the
    /// chapters were left.
    private mutating func readChapterSample(_ index: Int, _ cursor: inout ByteCursor, atEnd: Bool) -> ParserStep? {
        let sample = chapterSamples[index]
        guard cursor.remaining >= sample.size || atEnd else { return .needMore(sample.size) }
        readChapterTitle(index, from: cursor)
        state = .boxHeader
        if index + 1 < chapterSamples.count {
            pendingSeekRequest = (chapterSamples[index + 1].offset, .chapterSample(index + 1))
        } else {
            pendingSeekRequest = afterChapters
        }
        return nil
    }

    mutating func readBoxHeader(_ cursor: inout ByteCursor) throws {
        let offset = cursor.absoluteOffset
        let size = cursor.readInteger(endianness: .big, as: UInt32.self) ?? 0
        let type = cursor.readFourCharCode() ?? FourCharCode(rawValue: 0)
        let parent = open.last
        var headerSize = 8
        var end: Int64?
        switch size {
        case 0:
            guard parent == nil else {
                throw AudioFileError.invalidChunk(
                    "mp4: box '\(type)' inside '\(parent?.type ?? type)' has size 0; only a last top-level box may run to the end",
                    offset: offset)
            }
        case 1:
            let large = cursor.readInteger(endianness: .big, as: UInt64.self) ?? 0
            headerSize = 16
            guard large >= 16, large <= UInt64(Int64.max - offset) else {
                throw AudioFileError.invalidChunk(
                    "mp4: box '\(type)' has a 64-bit size of \(large) bytes, which cannot be",
                    offset: offset + 8)
            }
            end = offset + Int64(large)
        case 2..<8:
            if skipBrokenMetadata(type, at: offset, headerSize: 8, "of \(size) bytes is smaller than its header") {
                return
            }
            throw AudioFileError.invalidChunk(
                "mp4: box '\(type)' of \(size) bytes is smaller than its header", offset: offset)
        default:
            end = offset + Int64(size)
        }
        if let parent, let parentEnd = parent.end, let end, end > parentEnd {
            let problem =
                "of \(end - offset) bytes runs past the end of its parent '\(parent.type)' at byte \(parentEnd)"
            if skipBrokenMetadata(type, at: offset, headerSize: headerSize, problem) { return }
            throw AudioFileError.invalidChunk("mp4: box '\(type)' \(problem)", offset: offset)
        }
        let box = Box(type: type, offset: offset, headerSize: headerSize, end: end)
        if parent == nil {
            boxesInHeader = 0
        } else {
            boxesInHeader += 1
            guard boxesInHeader <= Self.maximumBoxesPerHeader else {
                throw AudioFileError.limitExceeded(
                    "mp4: more than \(Self.maximumBoxesPerHeader) boxes inside one top-level box", offset: offset)
            }
        }
        if !sawFileType {
            // QuickTime movies from before ISO's file type box begin with one of QuickTime's top-level boxes.
            guard type == "ftyp" || Self.quickTimeFirstBoxes.contains(type) else {
                throw AudioFileError.unsupportedFileType(
                    "mp4: the file does not start with an 'ftyp' box or a QuickTime movie's first box", offset: offset)
            }
            if type != "ftyp" {
                sawFileType = true
                context.properties.fileType = .mp4
                context.announce(.fileFormat)
            }
        }
        if parent == nil || parent?.type == "moov" {
            context.properties.trace.append(offset: offset, chunk: type, size: end.map { $0 - offset })
        }
        try dispatch(box, parent: parent?.type)
    }

    /// The boxes that hold metadata only: a broken box inside one costs the metadata, never the audio.
    static let metadataBoxes: Set<FourCharCode> = ["udta", "meta", "ilst", "ludt"]

    /// Steps over the rest of the metadata box that holds a broken box (`type` at `offset`, its header read), with
    /// a warning, and says `true`; `false` where no metadata box holds it (the file is broken).
    mutating func skipBrokenMetadata(_ type: FourCharCode, at offset: Int64, headerSize: Int, _ problem: String)
        -> Bool
    {
        guard let holder = open.last(where: { Self.metadataBoxes.contains($0.type) }), let parent = open.last,
            let end = parent.end
        else { return false }
        let within = holder.type == parent.type ? "" : " (in '\(holder.type)')"
        context.noteNotRead(
            "mp4: the metadata box '\(type)' at byte \(offset) \(problem): the rest of '\(parent.type)'\(within), "
                + "\(end - offset) bytes, is not read; the audio is read whole",
            NotRead(
                what: "'\(parent.type)' box, broken at its '\(type)' box", count: end - offset, unit: "bytes",
                offset: offset, reason: "it is broken"))
        state = .skip(remaining: end - offset - Int64(headerSize))
        return true
    }

    /// What to do with a box, by its type and its parent's.
    mutating func dispatch(_ box: Box, parent: FourCharCode?) throws {
        let limits = context.limits
        switch (parent, box.type) {
        case (nil, "ftyp"): try read(box, limit: limits.maximumFormatChunkBytes, essential: true)
        case (nil, "moov"):
            if movieParsed {
                skip(box, note: "'moov' already read")
            } else {
                try descend(into: box)
            }
        case (nil, "moof"):
            if let last = lastFragmentOffset, box.offset <= last {
                skip(box, note: "movie fragment already read")
            } else if movieParsed && isFragmented {
                lastFragmentOffset = box.offset
                fragmentOffset = box.offset
                previousFragmentDataEnd = nil
                try descend(into: box)
            } else {
                skip(
                    box,
                    note: movieParsed
                        ? "a movie fragment in a file without 'mvex' ignored" : "a movie fragment before 'moov' ignored"
                )
            }
        case (nil, "mdat"): beginMedia(box)
        case ("moov", "mvhd"), ("trak", "tkhd"), ("mdia", "mdhd"), ("mdia", "hdlr"), ("edts", "elst"), ("mvex", "trex"),
            ("traf", "tfhd"):
            try read(box, limit: limits.maximumFormatChunkBytes, essential: true)
        case ("moov", "trak"):
            track = Track()
            try descend(into: box)
        case ("moov", "mvex"):
            isFragmented = true
            try descend(into: box)
        case ("udta", let child) where child != "ludt" && isTrackUserData:
            // Of a track's user data only its loudness is read (its tags and chapters are not the file's).
            skip(box, note: "")
        case ("moov", "udta"), ("trak", "udta"), ("trak", "edts"), ("trak", "mdia"), ("trak", "tref"), ("udta", "ilst"),
            ("meta", "ilst"),
            ("udta", "ludt"), ("moof", "traf"):
            if box.type == "traf" { fragment = nil }
            try descend(into: box)
        case ("ludt", "tlou"):
            try read(box, limit: limits.maximumMetadataChunkBytes, essential: false)
        case ("moov", "meta"), ("udta", "meta"):
            guard open.count < Self.maximumDepth else { throw tooDeep(box) }
            state = .metaHeader(box)
        case ("mdia", "minf"), ("minf", "stbl"):
            if let handler = track?.handler, handler != "soun", handler != "text" {
                skip(box, note: "not a sound track")
            } else {
                try descend(into: box)
            }
        case ("stbl", "stsd"):
            try read(box, limit: limits.maximumFormatChunkBytes, essential: true)
        case ("stbl", "stts"), ("stbl", "stsc"), ("stbl", "stsz"), ("stbl", "stz2"), ("stbl", "stco"), ("stbl", "co64"),
            ("traf", "trun"):
            try read(box, limit: limits.maximumTableChunkBytes, essential: true)
        case ("ilst", "covr"):
            try descend(into: box)
        case ("covr", "data"):
            state = .pictureData(box)
        case ("ilst", _), ("udta", "chpl"), ("tref", "chap"):
            try read(box, limit: limits.maximumMetadataChunkBytes, essential: false)
        default:
            skip(box, note: "")
        }
    }

    /// Whether the box open innermost is a track's `udta`.
    var isTrackUserData: Bool { open.count >= 2 && open[open.count - 2].type == "trak" && open.last?.type == "udta" }

    mutating func read(_ box: Box, limit: Int, essential: Bool) throws {
        guard let size = box.bodySize else {
            throw AudioFileError.invalidChunk("mp4: box '\(box.type)' has no size", offset: box.offset)
        }
        if size > Int64(limit) {
            if essential {
                throw AudioFileError.limitExceeded(
                    "mp4: '\(box.type)' box of \(size) bytes is larger than the \(limit)-byte limit", offset: box.offset
                )
            }
            skip(box, note: "too large to read; skipped")
            // Metadata afkit reads, past the read limit: memory stays bounded, and what is left is said.
            context.noteNotRead(
                "mp4: the '\(box.type)' box at byte \(box.offset) is \(size) bytes, more than the \(limit) afkit "
                    + "reads: skipped, not read",
                NotRead(what: "'\(box.type)' box", count: size, unit: "bytes", offset: box.offset))
            return
        }
        state = .boxBody(box)
    }

    mutating func skip(_ box: Box, note: String) {
        if !note.isEmpty {
            context.properties.trace.append(offset: box.offset, chunk: box.type, size: box.bodySize, note)
        }
        state = .skip(remaining: box.bodySize)
    }

    func tooDeep(_ box: Box) -> AudioFileError {
        .limitExceeded("mp4: boxes nested more than \(Self.maximumDepth) deep", offset: box.offset)
    }

    mutating func descend(into box: Box) throws {
        guard open.count < Self.maximumDepth else { throw tooDeep(box) }
        open.append(box)
        state = .boxHeader
    }

    /// Leaves the innermost open box, finishing what it held.
    mutating func close() throws {
        guard let box = open.popLast() else { return }
        switch box.type {
        case "trak":
            if let track, audio == nil, track.handler == "soun", track.entry != nil { audio = track }
            if let track, track.handler == "text", !track.tableIsDamaged, textTracks.count < Self.maximumTextTracks {
                textTracks.append(track)
            }
            track = nil
        case "moov":
            try finishMovie(box)
        case "moof":
            if let movie = movieAwaitingFirstFrame, context.mode == .indexing,
                let first = table.sample(at: sampleCursor)
            {
                // A file read by index passes over `mdat`: the first fragment's first sample is read where a seek
                // leads, then the walk goes on after this `moof`.
                pendingSeekRequest = (first.offset, .firstFrameHeader(movie, returnTo: box.end))
            }
            if context.properties.dataOffset == nil, let first = table.runs.first {
                context.properties.dataOffset = first.offset
                context.announce(.dataOffset)
            }
        default:
            break
        }
    }

    // MARK: The movie, then its packets

    mutating func finishMovie(_ box: Box) throws {
        movieParsed = true
        guard let audio, let entry = audio.entry else {
            throw AudioFileError.unsupportedDataFormat(
                "mp4: the movie has no sound track afkit can read", offset: box.offset)
        }
        var built = MP4SampleTable()
        try buildTable(audio, into: &built)
        table = built
        let timed = audio.timedSampleCount
        if timed > 0 && built.sampleCount == 0 {
            // Whole or said: a movie that times audio its tables hold none of is damaged, not a silent sound.
            context.noteDamage(
                "mp4: 'stts' times \(timed) samples of audio, but the sample table ('stsz', 'stsc', 'stco') holds none: "
                    + "it is damaged")
        }
        sampleCursor = table.cursor(at: 0) ?? MP4SampleTable.Cursor()
        // MPEG audio's layer and channels are its first frame's (the entry's count is a template's 2): read from
        // the audio held before `moov`, else where a seek leads (a file read by index passes over `mdat`), else
        // as the bytes pass (where a stream that seeks goes for the audio before `moov` anyway); the format waits.
        // So are E-AC-3's frames a sample: its syncframes' blocks, whatever the sample table times it.
        if Self.readsFirstSample.contains(entry.format.formatID) {
            if let first = table.sample(at: sampleCursor) {
                let count = firstSampleBytesRead
                if let held = context.retained.index(of: first.offset, count: count) {
                    context.retained.bytes.withUnsafeBytes {
                        readFirstFrameHeader(UnsafeRawBufferPointer(rebasing: $0[held..<held + count]))
                    }
                } else {
                    movieAwaitingFirstFrame = box
                    if context.mode == .indexing {
                        pendingSeekRequest = (first.offset, .firstFrameHeader(box, returnTo: box.end))
                    } else if let seek = earlyMediaSeek(after: box) {
                        pendingSeekRequest = seek
                    }
                    return
                }
            } else if isFragmented {
                // A fragmented movie's samples come with its fragments: the format waits for the first.
                movieAwaitingFirstFrame = box
                return
            }
        }
        try announceMovie(box)
    }

    /// Formats whose first sample's bytes decide the format (MPEG audio's layer and channels; E-AC-3's frames).
    static let readsFirstSample: [FourCharCode] = [.mpegLayer1, .mpegLayer2, .mpegLayer3, .enhancedAC3]

    /// Where a stream that answers seeks goes for audio that came before `moov` and was not held.
    func earlyMediaSeek(after movie: Box) -> (target: Int64, then: State)? {
        guard requestsSeeks, let early = earlyMedia, let first = table.sample(at: sampleCursor),
            first.offset < movie.end ?? 0
        else { return nil }
        let holder = mediaBoxes.last { $0.bodyOffset <= first.offset && first.offset < ($0.end ?? Int64.max) } ?? early
        return (first.offset, .media(holder))
    }

    /// The bytes of the first sample ``readFirstFrameHeader(_:)`` reads: an MPEG audio frame's header; an E-AC-3
    /// sample whole (at most 64 KiB).
    var firstSampleBytesRead: Int {
        guard audio?.entry?.format.formatID == .enhancedAC3, let first = table.sample(at: sampleCursor) else {
            return 4
        }
        return Int(min(first.size, 1 << 16))
    }

    /// The first MPEG audio frame's header, where it parses: its layer, frames and channels replace the sample
    /// entry's; the first E-AC-3 sample's syncframes: their frames replace the entry's 1,536.
    mutating func readFirstFrameHeader(_ bytes: UnsafeRawBufferPointer) {
        if audio?.entry?.format.formatID == .enhancedAC3 {
            guard let frames = AC3FrameHeader.framesInSample(bytes), var entry = audio?.entry,
                frames != Int(entry.format.framesPerPacket)
            else { return }
            context.properties.trace.append(
                offset: table.runs.first?.offset ?? 0,
                "the first E-AC-3 sample's syncframes hold \(frames) frames; the sample table times "
                    + "\(entry.format.framesPerPacket): the syncframes decide")
            entry.format.framesPerPacket = UInt32(frames)
            entry.formatList = [entry.format]
            audio?.entry = entry
            return
        }
        guard let header = MPEGAudio.FrameHeader(bytes), var entry = audio?.entry else { return }
        if entry.format.channelsPerFrame != UInt32(header.channels) || entry.format.formatID != header.formatID
            || entry.format.sampleRate != Double(header.sampleRate)
        {
            context.properties.trace.append(
                offset: table.runs.first?.offset ?? 0,
                "the first MPEG audio frame says layer \(header.layer), \(header.channels) channels at "
                    + "\(header.sampleRate) Hz; the sample entry says '\(entry.format.formatID)', "
                    + "\(entry.format.channelsPerFrame) at \(entry.format.sampleRate)")
        }
        entry.format.formatID = header.formatID
        entry.format.sampleRate = Double(header.sampleRate)
        entry.format.framesPerPacket = UInt32(header.samplesPerFrame)
        entry.format.channelsPerFrame = UInt32(header.channels)
        entry.formatList = [entry.format]
        audio?.entry = entry
    }

    /// Codecs whose sample entries state 0 channels by rule (the stream's own configuration carries them).
    static let channelsInOwnConfiguration: [FourCharCode: String] = [
        "iamf": "IAMF (Immersive Audio Model and Formats)", "mha1": "MPEG-H 3D Audio", "mha2": "MPEG-H 3D Audio",
        "mhm1": "MPEG-H 3D Audio", "mhm2": "MPEG-H 3D Audio",
    ]

    /// The movie's properties, announced: its format, counts, gapless figures and layout; then the seek to audio
    /// before `moov`, unless the parser `isAtMedia` already.
    mutating func announceMovie(_ box: Box, isAtMedia: Bool = false) throws {
        movieAwaitingFirstFrame = nil
        guard let audio, let entry = audio.entry else { return }
        var format = entry.format
        if format.formatID == .vorbis, let first = table.cursor(at: 0).flatMap({ table.sample(at: $0) }) {
            silentFirstPacketTicks = Int64(first.duration)
        }
        guard format.sampleRate.isFinite, format.sampleRate >= 1, format.sampleRate <= 100_000_000 else {
            throw AudioFileError.malformed("mp4: sample rate \(format.sampleRate) cannot be", offset: box.offset)
        }
        if format.channelsPerFrame == 0, let codec = Self.channelsInOwnConfiguration[format.formatID] {
            // The entry's count is 0 by the codec's own rule: its channels are in a configuration afkit does not read.
            throw AudioFileError.unsupportedDataFormat(
                "mp4: the sound track is \(codec) ('\(format.formatID)'), which afkit does not read", offset: box.offset
            )
        }
        guard format.channelsPerFrame > 0, format.channelsPerFrame <= 1024 else {
            throw AudioFileError.malformed("mp4: \(format.channelsPerFrame) channels cannot be", offset: box.offset)
        }
        framesPerDuration = audio.timescale > 0 ? format.sampleRate / Double(audio.timescale) : 1
        if !entry.knowsFramesPerPacket, let delta = table.uniformDelta, !isFragmented {
            let frames = (Double(delta) * framesPerDuration).rounded()
            if frames >= 1, frames <= Double(1 << 20) { format.framesPerPacket = UInt32(frames) }
        }
        context.properties.dataFormat = format
        context.properties.formatList = entry.formatList.count > 1 ? entry.formatList : [format]
        context.properties.magicCookie = entry.cookie
        context.properties.isOptimized = earlyMedia == nil
        context.properties.loudnessInfo = audio.loudness ?? movieLoudness
        context.announce(.fileFormat)
        context.announce(.dataFormat)
        context.announce(.formatList)
        if entry.cookie != nil { context.announce(.magicCookie) }
        if !context.properties.infoDictionary.isEmpty { context.announce(.infoDictionary) }
        if let first = table.runs.first {
            context.properties.dataOffset = first.offset
            context.announce(.dataOffset)
        }
        if !isFragmented {
            context.properties.audioDataPacketCount = table.sampleCount
            context.properties.audioDataByteCount = table.byteCount
            context.properties.packetTableInfo = gaplessInfo(
                decodedFrames: decodedFrames(
                    packets: table.sampleCount,
                    duration: table.totalDuration), exactDuration: table.totalDuration)
            context.announce(.audioDataPacketCount)
            context.announce(.audioDataByteCount)
            if context.properties.packetTableInfo != nil { context.announce(.packetTableInfo) }
            context.announce(.bitRate)
        }
        context.properties.maximumPacketSize = table.maximumSize
        context.announce(.maximumPacketSize)
        context.announce(.readyToProducePackets)
        context.announcedReady = true
        self.audio?.sizes = []
        self.audio?.chunkOffsets = []
        // Audio that came before the table: replay what was held, or ask for it again.
        if !context.retained.isEmpty { context.retained.isReplaying = true }
        if !isAtMedia, let seek = earlyMediaSeek(after: box) { pendingSeekRequest = seek }
        findChapters(after: box)
    }

    /// The chapter track's titles: read from the audio held before `moov`, else where a seek leads (a file read by
    /// index passes over `mdat`; a stream that can seek has passed them), else as the bytes pass (a stream that
    /// cannot seek, `moov` first).
    mutating func findChapters(after movie: Box) {
        let referenced = audio?.chapterReferences ?? []
        // The text track the sound track names in `tref/chap`; where it names none, the first text track.
        guard let track = textTracks.first(where: { referenced.contains($0.id) }) ?? textTracks.first,
            !isFragmented
        else { return }
        chapterSamples = chapterSamples(of: track)
        textTracks = []
        for index in chapterSamples.indices.reversed() {
            let sample = chapterSamples[index]
            if let held = context.retained.index(of: sample.offset, count: sample.size) {
                let bytes = Array(context.retained.bytes[held..<held + sample.size])
                bytes.withUnsafeBytes { readChapterTitle(index, from: ByteCursor($0)) }
            }
        }
        chapterSamples.removeAll { $0.size < 0 }
        let position = movie.end ?? 0
        guard let first = chapterSamples.first else { return }
        if context.mode == .indexing && mediaBoxes.isEmpty {
            chaptersAwaitMedia = true
        } else if context.mode == .indexing || requestsSeeks && first.offset < position {
            seekChapterTitles(returningTo: pendingSeekRequest ?? (position, .boxHeader))
        }
    }

    /// Seeks to the first of the titles that lie inside a `mdat` seen (a title a table puts elsewhere is said, not
    /// sought: a seek past the end of the file would end the walk before the audio), then to `returnTo`.
    mutating func seekChapterTitles(returningTo returnTo: (target: Int64, then: State)) {
        let boxes = mediaBoxes
        let outside = chapterSamples.filter { sample in
            !boxes.contains { sample.offset >= $0.bodyOffset && sample.offset + Int64(sample.size) <= $0.end ?? -1 }
        }
        if let first = outside.first {
            context.properties.warnings.append(
                "mp4: \(outside.count) of the chapter track's titles lie outside the media data ('mdat'), the first at "
                    + "byte \(first.offset): not read")
            chapterSamples.removeAll { sample in outside.contains { $0.offset == sample.offset } }
        }
        guard let first = chapterSamples.first else { return }
        afterChapters = returnTo
        pendingSeekRequest = (first.offset, .chapterSample(0))
    }

    /// The most chapters read from a chapter track: memory stays bounded whatever its table counts.
    static let maximumChaptersRead = 1000
    /// The most text tracks kept while `moov` is read, for the chapter track to be chosen among.
    static let maximumTextTracks = 4
    /// The most tracks a `tref/chap` names that are kept.
    static let maximumChapterReferences = 16

    /// Where a text track's samples lie and when each runs (its table, as the sound track's is built), at most
    /// ``maximumChaptersRead`` of at most 4 KiB each (more are said, not read): what a chapter track holds. A table
    /// that does not hold together gives none.
    mutating func chapterSamples(of track: Track) -> [ChapterSample] {
        var chapters = MP4SampleTable()
        guard track.timescale > 0, (try? buildTable(track, into: &chapters)) != nil,
            var cursor = chapters.cursor(at: 0)
        else {
            if track.sampleCount > 0 {
                context.properties.warnings.append(
                    "mp4: the chapter track's sample table (at byte \(track.tableOffset)) does not hold together: its "
                        + "\(track.sampleCount) chapters are not read")
            }
            return []
        }
        let scale = Double(track.timescale)
        var samples: [ChapterSample] = []
        var time: Int64 = 0
        // Where its edits put it on the movie's clock: after its empty edits, from its first edit's media time.
        var shift = 0.0
        if movieTimescale > 0 {
            let empty = track.edits.prefix { $0.mediaTime < 0 }.reduce(Int64(0)) { $0.saturatingAdd($1.duration) }
            shift = Double(empty) / Double(movieTimescale)
        }
        if let first = track.edits.first(where: { $0.mediaTime >= 0 }) { shift -= Double(first.mediaTime) / scale }
        // Where its edits end it: a title's sample may run past what they show (afkit's last one does, by a late
        // first chapter's lead-in, for FFmpeg), and a chapter ends there at the latest.
        var shown = Double.infinity
        if movieTimescale > 0, !track.edits.isEmpty, track.edits.allSatisfy({ $0.duration > 0 }) {
            shown = Double(track.edits.reduce(Int64(0)) { $0.saturatingAdd($1.duration) }) / Double(movieTimescale)
        }
        var unreadable = 0
        let cap = Int64(Self.maximumChaptersRead)
        if chapters.sampleCount > cap {
            let more = chapters.sampleCount - cap
            context.noteNotRead(
                "mp4: the chapter track holds \(chapters.sampleCount) chapters; the first \(Self.maximumChaptersRead) are "
                    + "read, \(more) more chapters not read",
                NotRead(what: "chapter track", count: more, unit: "chapters", offset: nil))
        }
        for _ in 0..<min(chapters.sampleCount, cap) {
            guard let sample = chapters.sample(at: cursor) else { break }
            let start = max(0, Double(time) / scale + shift)
            time += Int64(sample.duration)
            if (2...4096).contains(sample.size) {
                samples.append(
                    ChapterSample(
                        offset: sample.offset, size: Int(sample.size), start: start,
                        end: max(start, min(shown, Double(time) / scale + shift))))
            } else {
                unreadable += 1
            }
            chapters.advance(&cursor)
        }
        if unreadable > 0 {
            context.properties.warnings.append(
                "mp4: \(unreadable) of the chapter track's samples (its table at byte \(track.tableOffset)) are not "
                    + "2 to 4096 bytes, as a title is: not read")
        }
        return samples.sorted { $0.offset < $1.offset }
    }

    /// A chapter sample's title (a 16-bit length, then UTF-8, or UTF-16 after its byte-order mark) into the
    /// chapters, in time order, replacing `chpl`'s; the sample is then done (its size set to -1).
    mutating func readChapterTitle(_ index: Int, from cursor: ByteCursor) {
        let sample = chapterSamples[index]
        chapterSamples[index].size = -1
        guard let length = cursor.getInteger(at: cursor.position, endianness: .big, as: UInt16.self),
            Int(length) + 2 <= min(sample.size, cursor.remaining)
        else {
            context.properties.warnings.append(
                "mp4: the chapter title at byte \(sample.offset) does not fit its \(sample.size)-byte sample"
                    + (cursor.remaining < sample.size ? " (the file ends inside it)" : "") + ": not read")
            return
        }
        let text = Array(cursor.bytes[cursor.position + 2..<cursor.position + 2 + Int(length)])
        let title: String
        if text.starts(with: [0xFE, 0xFF]) || text.starts(with: [0xFF, 0xFE]) {
            let big = text[0] == 0xFE
            let units = stride(from: 2, to: text.count - 1, by: 2).map { (at: Int) -> UInt16 in
                let (high, low) = big ? (text[at], text[at + 1]) : (text[at + 1], text[at])
                return UInt16(high) << 8 | UInt16(low)
            }
            title = String(decoding: units, as: UTF16.self)
        } else {
            title = String(decoding: text, as: UTF8.self)
        }
        if !readsChapterTrack {
            readsChapterTrack = true
            context.properties.chapters = []
            context.properties.chapterSource = "chapter track"
        }
        let chapter = Chapter(startTime: sample.start, endTime: sample.end, title: title)
        let place = context.properties.chapters.firstIndex { $0.startTime > sample.start }
        context.properties.chapters.insert(chapter, at: place ?? context.properties.chapters.endIndex)
    }

    /// `stsz`'s constant size, but for QuickTime-classic PCM whose `stts` does not time every sample (else
    /// ``constantPacket(of:)`` reads it): its `stsz` says 1, and a sample is a frame.
    func constantSize(_ track: Track) -> UInt32 {
        guard track.constantSize == 1, let format = track.entry?.format, format.formatID == .lpcm,
            format.bytesPerFrame > 1
        else { return track.constantSize }
        return format.bytesPerFrame
    }

    /// The sample table of a non-fragmented track: chunks from `stco`, samples per chunk from `stsc`, durations
    /// from `stts`.
    mutating func buildTable(_ track: Track, into table: inout MP4SampleTable) throws {
        for run in track.timeToSample { table.appendDurations(count: Int64(run.count), delta: run.delta) }
        let packet = constantPacket(of: track)
        let declared = track.sampleCount
        var sample: Int64 = 0
        var entry = 0
        // Where the next sample's duration is (for packets of the description): an `stts` entry, samples used of it.
        var timing = 0
        var timed: Int64 = 0
        for (index, offset) in track.chunkOffsets.enumerated() {
            let chunk = UInt32(truncatingIfNeeded: index + 1)
            while entry + 1 < track.samplesPerChunk.count, track.samplesPerChunk[entry + 1].firstChunk <= chunk {
                entry += 1
            }
            guard entry < track.samplesPerChunk.count, track.samplesPerChunk[entry].firstChunk <= chunk else {
                continue
            }
            let count = min(Int64(track.samplesPerChunk[entry].samples), declared - sample)
            guard count > 0 else { break }
            let sizes = track.constantSize > 0 ? [] : track.sizes[Int(sample)..<Int(sample + count)]
            sample += count
            guard let packet else {
                try table.append(
                    offset: offset, count: count, constantSize: constantSize(track), sampleSizes: sizes,
                    tableOffset: track.tableOffset)
                continue
            }
            // Packets of the description: the bytes `stsz` lists, else the frames the samples last.
            var packets: Int64
            if !sizes.isEmpty {
                packets = sizes.reduce(Int64(0)) { $0 + Int64($1) } / packet.bytes
            } else {
                var ticks: Int64 = 0
                var left = count
                while left > 0, timing < track.timeToSample.count {
                    let run = track.timeToSample[timing]
                    let taken = min(left, Int64(run.count) - timed)
                    ticks = ticks.saturatingAdd(taken.multipliedOrNil(by: Int64(run.delta)) ?? Int64.max)
                    left -= taken
                    timed += taken
                    if timed == Int64(run.count) {
                        timing += 1
                        timed = 0
                    }
                }
                let frames = Int64(exactly: (Double(ticks) * packet.framesPerTick).rounded()) ?? Int64.max
                packets = frames / packet.frames + (frames % packet.frames > 0 ? 1 : 0)
            }
            guard packets <= Int64(UInt32.max) else {
                throw AudioFileError.malformed(
                    "mp4: chunk \(index + 1) holds \(packets) packets, which cannot be", offset: track.tableOffset)
            }
            try table.append(
                offset: offset, count: packets, constantSize: UInt32(packet.bytes), sampleSizes: [],
                tableOffset: track.tableOffset)
        }
        if sample < declared {
            context.properties.trace.append(
                offset: track.tableOffset,
                "'stsz' counts \(declared) samples; the chunks of 'stsc' and 'stco' hold \(sample)")
        }
        let timedSamples = track.timedSampleCount
        if packet == nil, timedSamples != table.sampleCount {
            context.properties.trace.append(
                offset: track.tableOffset,
                "'stts' times \(timedSamples) samples; the table holds \(table.sampleCount)")
        }
    }

    /// The bytes and frames of every packet, where the sound description fixes both (PCM, IMA4, MACE, GSM,
    /// ISO/IEC 23003-5 PCM), and `stts` times every sample `stsz` counts with a duration: there a sample of the
    /// table is any number of frames (QuickTime's version 0 and 1 tables count frames, a sample a frame with an
    /// `stsz` of 1, or a chunk's worth a sample), and a chunk holds the packets of the frames its samples last
    /// (or of the bytes `stsz` lists), a last one partly filled counted whole.
    func constantPacket(of track: Track) -> (bytes: Int64, frames: Int64, framesPerTick: Double)? {
        guard let format = track.entry?.format, format.bytesPerPacket > 0, format.framesPerPacket > 0,
            track.timescale > 0, format.sampleRate >= 1, format.sampleRate.isFinite,
            track.timeToSample.allSatisfy({ $0.delta > 0 }),
            track.timeToSample.reduce(Int64(0), { $0 + Int64($1.count) }) == track.sampleCount
        else { return nil }
        return (
            Int64(format.bytesPerPacket), Int64(format.framesPerPacket), format.sampleRate / Double(track.timescale)
        )
    }

    func decodedFrames(packets: Int64, duration: Int64) -> Int64 {
        guard let format = context.properties.dataFormat else { return 0 }
        if format.framesPerPacket > 0 { return packets.multipliedOrNil(by: Int64(format.framesPerPacket)) ?? Int64.max }
        return frames(max(0, duration - silentFirstPacketTicks), scale: framesPerDuration)
    }

    func frames(_ time: Int64, scale: Double) -> Int64 {
        Int64(clamping: Int64(exactly: (Double(time) * scale).rounded()) ?? Int64.max)
    }

    /// Priming, remainder and valid frames from the edit list, else from `iTunSMPB`, else `nil`.
    /// `exactDuration` is the media's length in its timescale where the whole table is known: no edit
    /// runs past it.
    func gaplessInfo(decodedFrames: Int64, exactDuration: Int64?) -> PacketTableInfo? {
        guard let audio, let format = context.properties.dataFormat else { return nil }
        var priming: Int64
        var valid: Int64
        if let edit = audio.edits.first(where: { $0.mediaTime >= 0 }) {
            priming = frames(max(0, edit.mediaTime - silentFirstPacketTicks), scale: framesPerDuration)
            if edit.duration == 0 || movieTimescale == 0 {
                valid = decodedFrames - priming
            } else {
                // The edit's own duration, never past the media's end (a coarse movie timescale's rounding
                // up); an edit that ends before the media's end is taken as it is.
                valid = frames(edit.duration, scale: format.sampleRate / Double(movieTimescale))
                if let exactDuration {
                    let decoded = frames(exactDuration - silentFirstPacketTicks, scale: framesPerDuration)
                    valid = min(valid, decoded - priming)
                }
            }
        } else if let tag = itunesGapless {
            priming = tag.priming
            valid = tag.valid
        } else if format.formatID == .opus, let head = context.properties.magicCookie, head.count >= 12 {
            // No edit list: the pre-skip `dOps` states is the priming, as FFmpeg reads it.
            priming = Int64(head[10]) | Int64(head[11]) << 8
            valid = decodedFrames - priming
        } else if [FourCharCode.alac, .flac].contains(format.formatID), let exactDuration,
            case let timed = frames(exactDuration, scale: framesPerDuration), timed < decodedFrames,
            decodedFrames - timed < Int64(format.framesPerPacket)
        {
            // No edit list; packets that say their own frames (ALAC's and FLAC's last is short), and a sample table
            // that times the last one short, as Apple and FFmpeg write them: the table's time is the sound's.
            priming = 0
            valid = timed
        } else if format.framesPerPacket == 0 {
            // Packets of varying frames (a fragmented file's): the frames are the samples' durations.
            priming = 0
            valid = decodedFrames
        } else {
            return nil
        }
        priming = min(max(priming, 0), decodedFrames, Int64(Int32.max))
        valid = min(max(valid, 0), decodedFrames - priming)
        let remainder = min(decodedFrames - priming - valid, Int64(Int32.max))
        return PacketTableInfo(validFrames: valid, primingFrames: Int32(priming), remainderFrames: Int32(remainder))
    }

    mutating func beginMedia(_ box: Box) {
        if mediaBoxes.count < 4096 { mediaBoxes.append(box) }
        context.properties.trace.append(offset: box.offset, chunk: box.type, size: box.bodySize, "audio data")
        if context.mode == .indexing {
            if !movieParsed && earlyMedia == nil { earlyMedia = box }
            state = .skip(remaining: box.bodySize)
            if chaptersAwaitMedia {
                chaptersAwaitMedia = false
                seekChapterTitles(returningTo: (box.bodyOffset, .skip(remaining: box.bodySize)))
            }
        } else if movieParsed {
            state = .media(box)
        } else {
            if earlyMedia == nil { earlyMedia = box }
            if requestsSeeks, let end = box.end {
                pendingSeekRequest = (end, .boxHeader)
                state = .skip(remaining: 0)
            } else {
                state = .retaining(box)
            }
        }
    }

    /// Counts a packet the cursor passes, delivered or not.
    mutating func advance() {
        if let sample = table.sample(at: sampleCursor) { tally.add(size: sample.size, duration: sample.duration) }
        table.advance(&sampleCursor)
    }

    /// The frames a packet of `duration` decodes to (0 where the format fixes them); the first (`sample` 0) of a
    /// codec whose first packet decodes to none, none.
    func framesOf(_ duration: UInt32, sample: Int64) -> UInt32 {
        guard context.properties.dataFormat?.framesPerPacket == 0, sample > 0 || silentFirstPacketTicks == 0 else {
            return 0
        }
        return UInt32(clamping: frames(Int64(duration), scale: framesPerDuration))
    }

    /// One step inside `mdat`: a run of whole packets, or bytes stepped over or awaited.
    mutating func produceMedia(_ cursor: inout ByteCursor, in box: Box) throws -> ParserStep? {
        let position = cursor.absoluteOffset
        let end = box.end ?? Int64.max
        guard let available = mediaBytesPresent(in: box, at: position, remaining: cursor.remaining) else { return nil }
        guard available > 0 else { return .needMore(1) }
        // A chapter title between the packets, in a stream that cannot seek back for it: read as it passes.
        let gapEnd = min(table.sample(at: sampleCursor)?.offset ?? end, end)
        if gapEnd > position,
            let index = chapterSamples.firstIndex(where: { $0.size >= 0 && $0.offset >= position && $0.offset < gapEnd }
            )
        {
            let sample = chapterSamples[index]
            if sample.offset > position {
                _ = cursor.skip(Int(min(Int64(available), sample.offset - position)))
                return nil
            }
            guard cursor.remaining >= sample.size else { return .needMore(sample.size) }
            readChapterTitle(index, from: cursor)
            return nil
        }
        guard let next = table.sample(at: sampleCursor), next.offset < end else {
            _ = cursor.skip(available)
            return nil
        }
        if next.offset < position {
            skipUnreachable(before: position)
            return nil
        }
        if next.offset > position {
            _ = cursor.skip(Int(min(Int64(available), next.offset - position)))
            return nil
        }
        if let movie = movieAwaitingFirstFrame {
            let count = Int(min(Int64(firstSampleBytesRead), end - position))
            guard available >= count else { return .needMore(count) }
            readFirstFrameHeader(
                UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + count]))
            try announceMovie(movie, isAtMedia: true)
            return nil
        }
        let first = tally.packets
        let span = cutPackets(from: position, available: available)
        if context.descriptions.isEmpty {
            if Int64(next.size) > end - position {
                context.properties.trace.append(
                    offset: position,
                    "sample \(sampleCursor.sample) of \(next.size) bytes runs past the end of 'mdat'; it is not a packet"
                )
                table.advance(&sampleCursor)
                return nil
            }
            guard Int(next.size) <= context.limits.maximumRetainedAudioBytes else {
                throw AudioFileError.limitExceeded(
                    "mp4: packet \(sampleCursor.sample) of \(next.size) bytes is larger than the parser may hold",
                    offset: position)
            }
            return .needMore(Int(next.size))
        }
        let run = PacketRun(
            source: .input(index: cursor.position), firstPacket: first,
            packetCount: context.descriptions.count, absoluteOffset: position, byteCount: span, hasDescriptions: true)
        _ = cursor.skip(span)
        table.trim(&sampleCursor)
        return .packets(run)
    }

    /// Passes over samples that lie before `position`, outside any `mdat` the stream passed through: a
    /// stream cannot go back for them, and the file API does not count them either.
    mutating func skipUnreachable(before position: Int64) {
        var skipped: Int64 = 0
        let first = sampleCursor.sample
        while let sample = table.sample(at: sampleCursor), sample.offset < position {
            let run = table.runs[sampleCursor.run]
            if run.end <= position, sampleCursor.runOffset == 0 {
                skipped += run.count
                sampleCursor.run += 1
                sampleCursor.sample += run.count
                if let cursor = table.cursor(at: sampleCursor.sample) { sampleCursor = cursor }
                continue
            }
            table.advance(&sampleCursor)
            skipped += 1
        }
        context.properties.trace.append(
            offset: position,
            "\(skipped) samples from sample \(first) lie outside the media data the stream passed; they are not packets"
        )
    }

    /// Packets whose bytes were held while `moov` was awaited.
    mutating func replayRetained(before position: Int64) -> PacketRun? {
        guard let sample = table.sample(at: sampleCursor), sample.offset < position,
            let index = context.retained.index(of: sample.offset, count: Int(sample.size))
        else {
            context.retained.release()
            return nil
        }
        let first = tally.packets
        let span = cutPackets(from: sample.offset, available: context.retained.heldBytes(from: sample.offset))
        return PacketRun(
            source: .retained(index: index), firstPacket: first, packetCount: context.descriptions.count,
            absoluteOffset: sample.offset, byteCount: span, hasDescriptions: true)
    }

    /// Fills `context.descriptions` with the whole packets, from the next one on, that lie in the
    /// `available` bytes from `start`; returns the bytes they span.
    mutating func cutPackets(from start: Int64, available: Int) -> Int {
        context.beginPacketRun()
        var span = 0
        while context.descriptions.count < Self.maximumPacketsPerRun, let sample = table.sample(at: sampleCursor) {
            let offset = sample.offset - start
            guard offset >= Int64(span), offset + Int64(sample.size) <= Int64(available) else { break }
            span = context.appendPacket(
                at: offset, size: sample.size, frames: framesOf(sample.duration, sample: sampleCursor.sample))
            advance()
        }
        return span
    }

    // MARK: The end

    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        // A stream that ends before its first MPEG audio frame: the sample entry's format, as it is.
        if let movie = movieAwaitingFirstFrame { try announceMovie(movie) }
        try checkEndInState(endOffset: endOffset, unconsumed: unconsumed)
        guard movieParsed else { throw missingMovieError(endOffset: endOffset) }
        if let first = table.runs.first, first.offset >= endOffset {
            // `moov` is whole: the file is read, with no packet, and truncated (as a cut WAV or CAF is); the
            // audio would have begun where the stream ends.
            context.properties.trace.append(
                offset: endOffset, "the stream ends before the audio begins at byte \(first.offset)")
            context.properties.dataOffset = endOffset
        }
        var reached = sampleCursor.sample
        if context.mode == .indexing { reached = indexPackets(endingBy: endOffset) }
        let claimed = table.sampleCount
        if reached < claimed { notePacketsPastTheEnd(claimed - reached, of: claimed, endOffset: endOffset) }
        context.properties.audioDataPacketCount = tally.packets
        context.properties.audioDataByteCount = tally.bytes
        context.properties.maximumPacketSize = tally.largest
        if context.properties.dataOffset == nil {
            context.properties.dataOffset = min(
                table.runs.first?.offset ?? mediaBoxes.first?.bodyOffset ?? endOffset, endOffset)
        }
        let complete = reached == claimed && !isFragmented
        context.properties.packetTableInfo = gaplessInfo(
            decodedFrames: decodedFrames(packets: tally.packets, duration: tally.duration),
            exactDuration: complete ? table.totalDuration : nil)
        context.announce(.packetTableInfo)
    }

    /// Where the stream ends in a box (of the movie, or before it) or a box header, or while the parser waits
    /// for a seek to a `moov` after the audio, the error that says so; otherwise the bytes left unread are traced.
    private mutating func checkEndInState(endOffset: Int64, unconsumed: Int) throws {
        switch state {
        case .boxBody(let box) where !movieParsed || open.contains(where: { $0.type == "moov" }):
            throw AudioFileError.truncated(
                "mp4: the stream ends inside the '\(box.type)' box (\(box.bodySize ?? 0) bytes declared, \(unconsumed) present)",
                offset: box.offset)
        case .boxHeader where unconsumed > 0 && !movieParsed, .metaHeader where !movieParsed:
            throw AudioFileError.truncated(
                "mp4: the stream ends inside a box header", offset: endOffset - Int64(unconsumed))
        case .awaitingSeek(let target, _) where !movieParsed:
            throw AudioFileError.notOptimized(
                "mp4: 'moov' follows the audio; the parser asked for byte \(target) and the stream ended without it",
                offset: earlyMedia?.offset)
        default:
            if unconsumed > 0 {
                context.properties.trace.append(
                    offset: endOffset - Int64(unconsumed), "\(unconsumed) bytes at the end not read")
            }
        }
    }

    /// Why a stream that ended without a whole `moov` cannot be read: cut inside it, its `mdat` first, or none.
    private func missingMovieError(endOffset: Int64) -> AudioFileError {
        if let movie = open.first(where: { $0.type == "moov" }) {
            let length = movie.end.map { "\($0 - movie.offset) bytes long" } ?? "running to the end"
            return AudioFileError.truncated(
                "mp4: the stream ends inside its 'moov' box (at byte \(movie.offset), \(length)): the file is cut short",
                offset: endOffset)
        }
        if let early = earlyMedia {
            return AudioFileError.truncated(
                "mp4: the stream ends without a 'moov' box (its 'mdat' at byte \(early.offset) came first)",
                offset: endOffset)
        }
        return AudioFileError.truncated("mp4: no 'moov' box before the end of the stream", offset: endOffset)
    }

    /// Indexes every packet whose bytes lie within the file, in order, and tallies them; a packet outside every
    /// `mdat` is lost (noted as damage). Returns the number of the first sample not reached.
    private mutating func indexPackets(endingBy endOffset: Int64) -> Int64 {
        var index: [PacketDescription] = []
        var cursor = table.cursor(at: 0) ?? MP4SampleTable.Cursor()
        tally = Tally()
        var box = 0
        var outside: Int64 = 0
        while let sample = table.sample(at: cursor), sample.offset + Int64(sample.size) <= endOffset {
            let number = cursor.sample
            table.advance(&cursor)
            while box < mediaBoxes.count, (mediaBoxes[box].end ?? Int64.max) <= sample.offset { box += 1 }
            guard
                mediaBoxes.count >= 4096
                    || box < mediaBoxes.count && mediaBoxes[box].bodyOffset <= sample.offset
                        && sample.offset + Int64(sample.size) <= (mediaBoxes[box].end ?? Int64.max)
            else {
                outside += 1
                continue
            }
            index.append(
                PacketDescription(
                    startOffset: sample.offset, variableFramesInPacket: framesOf(sample.duration, sample: number),
                    dataByteSize: sample.size))
            tally.add(size: sample.size, duration: sample.duration)
        }
        if outside > 0 {
            context.noteDamage(
                "mp4: the sample table puts \(outside) packets outside the media data ('mdat'); they are lost")
        }
        context.packetIndex = index
        return cursor.sample
    }

    /// `missing` of the table's `claimed` packets lie past the end: the stream is cut short where it ends inside
    /// the media data; where every `mdat` is whole (and the file is not fragmented), the table is damaged.
    private mutating func notePacketsPastTheEnd(_ missing: Int64, of claimed: Int64, endOffset: Int64) {
        let mediaWhole = !mediaBoxes.isEmpty && mediaBoxes.allSatisfy { ($0.end ?? Int64.max) <= endOffset }
        let note = "\(missing) of \(claimed) packets lie past the end of the stream"
        if mediaWhole && !isFragmented {
            context.noteDamage(
                "mp4: the sample table puts \(missing) of its \(claimed) packets past the end of the "
                    + "stream, though the media data ('mdat') is whole: the table is damaged; they are lost")
        } else {
            context.properties.isTruncated = true
            context.properties.truncationOffset = endOffset
            context.properties.trace.append(offset: endOffset, note)
        }
    }
}
