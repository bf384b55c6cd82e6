import AudioFormats
import StreamParsing

/// The push parser for streams of self-synchronizing frames: MPEG audio and ADTS. Like the shared
/// chunk walker of the chunked containers, it holds what both have in common:
///
/// - ID3v2 tags anywhere, ID3v1 and APEv2 tags are skipped (their text is reported as metadata); a
///   signature right after a leading tag (FLAC, Ogg, ...) is refused by name, as at the start;
/// - a stream starts only on strong evidence (``evidence(_:first:atEnd:)``): a run of consistent frames
///   from a clean start, a longer one that also outweighs the junk before it otherwise;
/// - inside a stream, a frame right where the last ended, with the first frame's parameters, is a packet as
///   soon as its bytes are whole (Apple's delivery: the last packet comes without a close); any other frame
///   (after junk, at another rate, free format) only when the header right after it parses and belongs to the
///   same stream (same version, layer and rate; same profile, rate and channels), or a tag or the end follows;
/// - anything else is skipped a byte at a time (resync), and noted;
/// - the stream's parameters are fixed by its first frame: a header that changes them is not a frame;
/// - a free-format MPEG frame's length is measured to the next matching header;
/// - a last frame cut short is not a packet, and marks the stream truncated.
package struct ElementaryStreamParser: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    package var runDescriptions: [PacketDescription] { context.descriptions }
    package var packetIndexIsKnown: Bool { context.packetIndexIsKnown }
    package var retainedBytes: [UInt8] { context.retained.bytes }

    enum Header {
        case mpeg(MPEGAudio.FrameHeader)
        case adts(ADTS.FrameHeader)
    }

    /// Where the parser is: before the stream's first frame, or inside a stream whose kind and
    /// parameters that frame fixed.
    enum State {
        case searching
        case framing(Header)
    }

    /// What lies between frames: the rest of a tag being stepped over, or a run of junk being passed
    /// a byte at a time (resync), noted once it ends.
    struct Gap {
        var tagRemaining: Int64 = 0
        /// The kind of tag being stepped over ("ID3v2", "APEv2"), for what is said of it.
        var tagKind = "ID3v2"
        /// An ID3v2 tag larger than the parser reads whole, walked a frame at a time: its version and where it
        /// ends (the frames before that still to come).
        var id3Walk: (version: UInt8, end: Int64)?
        var junkStart: Int64?
        var junkBytes: Int64 = 0
        /// Bytes skipped before the first frame, tags and the zero padding right after a tag not counted.
        var leadingJunk: Int64 = 0
        /// Whether the bytes skipped since the last tag are all zero.
        var isPaddingAfterTag = false
        /// Where the last leading tag ended: the signature table is asked about the bytes there.
        var checkSignatureAt: Int64?
        /// Where the last tag met while searching ends: the search for a first frame counts from there (a
        /// leading tag may hold megabytes of cover art).
        var leadingTagEnd: Int64 = 0
        /// An ID3v2 tag the stream ended inside: where, its size, the bytes present.
        var tagCutShort: (offset: Int64, total: Int, present: Int)?
    }

    /// Figures over the audio frames so far.
    struct FrameTally {
        var firstOffset: Int64?
        var lastEnd: Int64?
        var largest = 0
        /// Whether the first frame has been checked for a Xing/Info/VBRI header.
        var checkedFirst = false
        var notedRateChange = false
        /// The most channels an MPEG audio frame has had: a stream that switches between mono and stereo
        /// (legal; ISO's conformance streams do) is read at its larger layout, its mono frames filling both.
        var mostChannels = 0
        /// Audio frames accepted (whatever their numbering after a seek).
        var frameCount: Int64 = 0
    }

    package var context: ParseContext
    private let hint: FileType?
    /// The signature table's verdict on bytes (``FileSignature``'s, given by the registry above this module):
    /// a file with a signature behind a leading tag is what the signature says.
    private let identify: @Sendable (UnsafeRawBufferPointer, _ atEnd: Bool) -> FileSignature.Identification
    private(set) var state = State.searching
    private var gap = Gap()
    private var tally = FrameTally()
    private(set) var encoderHeader: MPEGAudio.EncoderHeader?
    /// The most frames one run gathers.
    static let maximumRunPackets = 256

    private var isSearching: Bool { if case .searching = state { true } else { false } }
    private var mpeg: MPEGAudio.FrameHeader? { if case .framing(.mpeg(let first)) = state { first } else { nil } }
    private var adts: ADTS.FrameHeader? { if case .framing(.adts(let first)) = state { first } else { nil } }

    /// How far to look for the next header of a free-format frame.
    static let freeFormatWindow = 8192
    /// How far into a stream to look for a first frame before giving up on it.
    static let maximumLeadingBytes: Int64 = 1 << 20

    // The rule for a stream's start (Documentation/RecognisingFiles.md). A first frame at a clean start (the
    // stream's first byte, or right after ID3v2/APE tags and zero padding) needs this many consistent
    // frames in a row, the first included; or frames that run consistently to the end of the input or
    // to a tag (a stream of one to three frames).
    static let framesAtCleanStart = 4
    /// After junk, more frames, which must also cover at least as many bytes as the junk before them.
    static let framesAfterJunk = 8
    /// Junk (bytes other than tags and zero padding) allowed before a first frame.
    static let maximumLeadingJunk: Int64 = 64 << 10
    /// Frames of the other kind than the type hint names need this many more.
    static let framesAgainstHint = 2

    package init(
        mode: ParseMode, limits: ParserLimits, hint: FileType?,
        identify: @escaping @Sendable (UnsafeRawBufferPointer, _ atEnd: Bool) -> FileSignature.Identification
    ) {
        self.identify = identify
        context = ParseContext(mode: mode, limits: limits)
        self.hint = hint
        if mode == .indexing { context.packetIndex = [] }
    }

    package var skippableByteCount: Int64 { gap.tagRemaining }

    package mutating func skip(_ count: Int64) { gap.tagRemaining = max(gap.tagRemaining - count, 0) }

    package mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }

    package mutating func discontinuity() {
        confirmedHeader = nil
        gap.tagRemaining = 0
        endGarbage(at: nil)
    }

    private var containerName: String { context.properties.fileType == .adts ? "adts" : "mp3" }

    // MARK: Parsing

    package mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            if gap.tagRemaining > 0 {
                let count = Int(min(Int64(cursor.remaining), gap.tagRemaining))
                _ = cursor.skip(count)
                gap.tagRemaining -= Int64(count)
                if gap.tagRemaining > 0 { return .needMore(cursor.remaining + 1) }
            }
            if gap.id3Walk != nil {
                if let step = walkID3Frame(&cursor, atEnd: atEnd) { return step }
                continue
            }
            guard cursor.remaining > 0 else { return .needMore(1) }
            if isSearching && cursor.absoluteOffset - gap.leadingTagEnd >= Self.maximumLeadingBytes {
                throw Self.unrecognised("its first \(Self.maximumLeadingBytes) bytes")
            }
            let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
            let offset = cursor.absoluteOffset
            if isSearching, gap.checkSignatureAt == offset {
                // Right after a leading tag: a file with a signature behind an ID3 tag is what it says.
                switch identify(bytes, atEnd) {
                case .needMore(let count): return .needMore(count)
                case .container(let container):
                    throw AudioFileError.unsupportedFileType(
                        "a \(container) file behind an ID3 tag: afkit reads it only without the tag", offset: offset)
                case .refused(let refusal): throw refusal.error(at: offset)
                case .unknown: gap.checkSignatureAt = nil
                }
            }
            switch bytes[0] {
            case 0x49:  // "ID3"
                if let step = try skipID3(&cursor, atEnd: atEnd) { return step }
                continue
            case 0x54:  // "TAG"
                if bytes.count < 3 && !atEnd { return .needMore(3) }
                if bytes.count >= 3 && bytes[1] == 0x41 && bytes[2] == 0x47 {
                    if bytes.count < ID3.version1Size {
                        if !atEnd { return .needMore(ID3.version1Size) }
                    } else {
                        endGarbage(at: offset)
                        if ID3.Contents(text: ID3.version1Fields(bytes)).merge(into: &context.properties) {
                            context.announce(.infoDictionary)
                        }
                        context.properties.trace.append(offset: offset, chunk: "TAG ", size: 128, "ID3v1 tag")
                        _ = cursor.skip(ID3.version1Size)
                        continue
                    }
                }
            case 0x41:  // "APETAGEX"
                if bytes.count < 32 && !atEnd { return .needMore(32) }
                if bytes.count >= 32, bytes[0..<8].elementsEqual("APETAGEX".utf8) {
                    endGarbage(at: offset)
                    let reader = ByteCursor(bytes)
                    let size = Int64(reader.getInteger(at: 12, endianness: .little, as: UInt32.self) ?? 0)
                    let flags = reader.getInteger(at: 20, endianness: .little, as: UInt32.self) ?? 0
                    let isHeader = flags & (1 << 29) != 0
                    let total = isHeader ? 32 + size : 32
                    context.properties.trace.append(offset: offset, chunk: "APE ", size: total, "APEv2 tag skipped")
                    _ = cursor.skip(32)
                    gap.tagRemaining = total - 32
                    gap.tagKind = "APEv2"
                    continue
                }
            case 0xFF:
                guard let step = try frame(&cursor, atEnd: atEnd) else { continue }
                guard case .packets(let first) = step else { return step }
                // The whole MPEG frames that follow in this input join the run: one event for many frames.
                // (ADTS payloads are separated by their headers: a run's bytes stay contiguous, one frame each.)
                var run = first
                while run.packetCount < Self.maximumRunPackets, !isSearching, adts == nil, !context.hasAnnouncements,
                    cursor.remaining > 0, cursor.bytes[cursor.position] == 0xFF,
                    case .packets(let extended)? = try frame(&cursor, atEnd: atEnd, extending: run)
                {
                    run = extended
                }
                return .packets(run)
            default:
                break
            }
            // Not a frame, not a tag: skip to the next byte that could start one.
            if gap.junkStart == nil { gap.junkStart = offset }
            var skip = 1
            while skip < bytes.count, ![0xFF, 0x49, 0x54, 0x41].contains(bytes[skip]) { skip += 1 }
            gap.junkBytes += Int64(skip)
            if isSearching { try countLeadingJunk(UnsafeRawBufferPointer(rebasing: bytes[0..<skip]), at: offset) }
            _ = cursor.skip(skip)
        }
    }

    /// An ID3v2 tag: read whole (for its text) when small, else stepped over.
    private mutating func skipID3(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep? {
        let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
        if bytes.count < ID3.headerSize && !atEnd { return .needMore(ID3.headerSize) }
        guard let header = ID3.header(bytes) else {
            try garbage(&cursor)
            return nil
        }
        let offset = cursor.absoluteOffset
        endGarbage(at: offset)
        let total = header.totalSize
        if total <= context.limits.maximumMetadataChunkBytes {
            if bytes.count < total {
                if !atEnd { return .needMore(total) }
                context.properties.trace.append(
                    offset: offset, chunk: "ID3 ", size: Int64(total), "cut short by the end")
                gap.tagCutShort = (offset, total, bytes.count)
                _ = cursor.skip(bytes.count)
                return nil
            }
            let contents = ID3.frames(UnsafeRawBufferPointer(rebasing: bytes[0..<total]), at: offset)
            if contents.merge(into: &context.properties) { context.announce(.infoDictionary) }
            context.properties.trace.append(
                offset: offset, chunk: "ID3 ", size: Int64(total),
                "ID3v2.\(header.majorVersion) tag")
            _ = cursor.skip(total)
            if isSearching && gap.leadingJunk == 0 { gap.checkSignatureAt = cursor.absoluteOffset }
            if isSearching { gap.leadingTagEnd = cursor.absoluteOffset }
            gap.isPaddingAfterTag = true
        } else if (3...4).contains(header.majorVersion), header.flags & 0xC0 == 0 {
            // Larger than the parser holds (a cover of megabytes): walked a frame at a time, each text frame and
            // each picture's header read, the pictures' data stepped over.
            context.properties.trace.append(
                offset: offset, chunk: "ID3 ", size: Int64(total), "ID3v2.\(header.majorVersion) tag, walked by frame")
            _ = cursor.skip(ID3.headerSize)
            gap.id3Walk = (header.majorVersion, offset + Int64(ID3.headerSize + header.bodySize))
            // A footer after the frames is stepped over with them.
            gap.tagRemaining = 0
            if isSearching && gap.leadingJunk == 0 { gap.checkSignatureAt = offset + Int64(total) }
            if isSearching { gap.leadingTagEnd = offset + Int64(total) }
            gap.isPaddingAfterTag = true
        } else {
            // Unsynchronised as a whole (sizes of the resynchronised bytes) or with an extended header: stepped over.
            context.properties.trace.append(
                offset: offset, chunk: "ID3 ", size: Int64(total),
                "ID3v2 tag too large to read; skipped")
            _ = cursor.skip(ID3.headerSize)
            gap.tagRemaining = Int64(total - ID3.headerSize)
            gap.tagKind = "ID3v2"
            if isSearching && gap.leadingJunk == 0 { gap.checkSignatureAt = offset + Int64(total) }
            if isSearching { gap.leadingTagEnd = offset + Int64(total) }
            gap.isPaddingAfterTag = true
        }
        return nil
    }

    /// One frame of a tag walked by frame (``Gap/id3Walk``): a text frame read whole (as a one-frame tag), a
    /// picture's header read and its data stepped over, anything else stepped over; the walk ends at the tag's
    /// end, its padding or a frame that does not fit.
    private mutating func walkID3Frame(_ cursor: inout ByteCursor, atEnd: Bool) -> ParserStep? {
        guard let walk = gap.id3Walk else { return nil }
        let position = cursor.absoluteOffset
        let left = walk.end - position
        let headerLength = 10
        func stop() {
            gap.id3Walk = nil
            gap.tagRemaining = max(left, 0)
            gap.tagKind = "ID3v2"
        }
        guard left >= Int64(headerLength) else {
            stop()
            return nil
        }
        guard cursor.remaining >= headerLength else {
            if atEnd { stop() }
            return atEnd ? nil : .needMore(headerLength)
        }
        let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + headerLength])
        let size = ID3.frameSize(bytes[4..<8], version: walk.version)
        guard bytes[0] != 0, Int64(size) <= left - Int64(headerLength) else {
            stop()  // padding, or a frame that runs past the tag
            return nil
        }
        let id = String(decoding: bytes[0..<4], as: UTF8.self)
        let frame = headerLength + size
        // A picture needs its header (encoding, MIME type, role, description): at most this much of it.
        let wanted = id == "APIC" ? min(frame, headerLength + 4096) : frame
        if id == "APIC"
            || (id.hasPrefix("T") || id.hasPrefix("COM") || id == "CHAP")
                && size <= context.limits.maximumMetadataChunkBytes
        {
            guard cursor.remaining >= wanted else {
                if atEnd {
                    stop()
                    return nil
                }
                return .needMore(wanted)
            }
            // The frame (or a picture's first bytes) as a one-frame tag of the same version.
            var prefix = Array(cursor.bytes[cursor.position..<cursor.position + wanted])
            // A picture's frame cut to its first bytes says their size, so it reads as a whole frame.
            prefix.replaceSubrange(4..<8, with: ID3.frameSizeField(prefix.count - headerLength, version: walk.version))
            let tag = Array("ID3".utf8) + [walk.version, 0, 0] + ID3.syncsafe(prefix.count) + prefix
            var contents = tag.withUnsafeBytes { ID3.frames($0, at: nil) }
            let pictures = contents.pictures
            contents.pictures = []
            if contents.merge(into: &context.properties) { context.announce(.infoDictionary) }
            let flags = Int(bytes[8]) << 8 | Int(bytes[9])
            for var picture in pictures {
                // The picture's whole size, and where its bytes lie when stored as they are.
                let headerPart = prefix.count - headerLength - picture.byteCount
                picture.byteCount = size - headerPart
                let stored = walk.version == 3 ? flags & 0x00C0 == 0 : flags & 0x000F == 0
                picture.dataOffset = stored ? position + Int64(headerLength + headerPart) : nil
                context.properties.pictures.append(picture)
            }
        } else if id.hasPrefix("T") || id.hasPrefix("COM") || id == "CHAP" {
            // A text, comment or chapter frame past the read limit: memory stays bounded, and its loss is said.
            context.noteNotRead(
                "id3: the '\(id)' frame at byte \(position) is \(size) bytes, more than the "
                    + "\(context.limits.maximumMetadataChunkBytes) afkit reads: stepped over, not read",
                NotRead(what: "ID3 '\(id)' frame", count: Int64(size), unit: "bytes", offset: position))
        }
        gap.tagRemaining = Int64(frame)
        return nil
    }

    private mutating func garbage(_ cursor: inout ByteCursor) throws {
        if gap.junkStart == nil { gap.junkStart = cursor.absoluteOffset }
        gap.junkBytes += 1
        if isSearching {
            try countLeadingJunk(
                UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + 1]),
                at: cursor.absoluteOffset)
        }
        _ = cursor.skip(1)
    }

    /// Counts skipped bytes before the first frame (zero padding is free); past the limit the input is
    /// no stream.
    private mutating func countLeadingJunk(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var count = 0
        for byte in bytes {
            if byte == 0 && gap.isPaddingAfterTag { continue }
            gap.isPaddingAfterTag = false
            count += 1
        }
        gap.leadingJunk += Int64(count)
        if gap.leadingJunk > Self.maximumLeadingJunk {
            throw Self.unrecognised("its first \(Self.maximumLeadingJunk) bytes (after any tags)")
        }
    }

    /// The refusal of bytes that are no format afkit knows.
    static func unrecognised(_ detail: String) -> AudioFileError {
        .unsupportedFileType(
            "not an audio file afkit recognises: no signature of a known format, and no MPEG audio or "
                + "ADTS stream in \(detail)", offset: 0)
    }

    /// Ends a run of bytes that are not frames; `beforeFrame`: a frame of the stream follows it, so a run
    /// after the stream was found is damage, said.
    private mutating func endGarbage(at offset: Int64?, beforeFrame: Bool = false) {
        guard let start = gap.junkStart else { return }
        context.properties.trace.append(
            offset: start, size: gap.junkBytes,
            "\(gap.junkBytes) bytes that are not frames skipped" + (isSearching ? "" : " (resync)"))
        if beforeFrame && !isSearching {
            context.noteDamage(
                "\(containerName): \(gap.junkBytes) bytes at byte \(start) are not frames of the stream; skipped")
        }
        gap.junkStart = nil
        gap.junkBytes = 0
    }

    /// Parses a frame header at the cursor, if one is there, for the stream's kind.
    private func header(at bytes: UnsafeRawBufferPointer) -> Header? {
        if bytes.count >= 2 && bytes[1] & 0xF6 == 0xF0 {
            guard mpeg == nil, let header = ADTS.FrameHeader(bytes) else { return nil }
            if let stream = adts, !stream.continues(header) { return nil }
            return .adts(header)
        }
        guard adts == nil, let header = MPEGAudio.FrameHeader(bytes) else { return nil }
        // A stream keeps its version and layer; its rate may change (concatenated streams, conformance
        // streams), where the next header confirms the new rate.
        if let stream = mpeg, !stream.continuesAllowingRateChange(header) { return nil }
        return .mpeg(header)
    }

    /// The header that confirmed the last frame (a stream's next frame): not parsed a second time.
    private var confirmedHeader: (offset: Int64, header: Header)?

    /// Whether `bytes` confirm a frame ending there, and the header that did (none for a tag).
    private func confirmation(_ bytes: UnsafeRawBufferPointer, first: Header) -> (confirms: Bool, header: Header?) {
        guard bytes.count >= 3 else { return (false, nil) }
        if let next = header(at: bytes) {
            switch (first, next) {
            case (.mpeg(let a), .mpeg(let b)):
                if isSearching ? a.continues(b) : a.continuesAllowingRateChange(b) { return (true, next) }
            case (.adts(let a), .adts(let b)):
                if a.continues(b) { return (true, next) }
            default: break
            }
            return (false, nil)
        }
        // A tag after the last frame ("ID3", "TAG", "APETAGEX").
        if bytes[0] == 0x49 && bytes[1] == 0x44 && bytes[2] == 0x33 { return (true, nil) }
        if bytes[0] == 0x54 && bytes[1] == 0x41 && bytes[2] == 0x47 { return (true, nil) }
        return (bytes.count >= 8 && bytes[0..<8].elementsEqual("APETAGEX".utf8), nil)
    }

    /// One frame at the cursor: a run of it alone, or `run` extended by it.
    private mutating func frame(_ cursor: inout ByteCursor, atEnd: Bool, extending run: PacketRun? = nil) throws
        -> ParserStep?
    {
        let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
        let headerBytes = bytes.count >= 2 && bytes[1] & 0xF6 == 0xF0 ? 7 : 4
        if bytes.count < headerBytes {
            if !atEnd { return .needMore(headerBytes) }
            try garbage(&cursor)
            return nil
        }
        let cached = confirmedHeader
        confirmedHeader = nil
        guard let header = cached?.offset == cursor.absoluteOffset ? cached?.header : header(at: bytes) else {
            try garbage(&cursor)
            return nil
        }
        if isSearching {
            // A stream's first frame: the frames after it decide.
            switch evidence(bytes, first: header, atEnd: atEnd) {
            case .needMore(let count): return .needMore(count)
            case .rejected:
                try garbage(&cursor)
                return nil
            case .confirmed: break
            }
        }
        // The frame's length: from the header, or measured to the next matching header (free format).
        let length: Int
        switch frameLength(of: header, in: bytes, atEnd: atEnd) {
        case .length(let measured): length = measured
        case .needMore(let count): return .needMore(count)
        case .none:
            try garbage(&cursor)
            return nil
        }
        // A frame right where the last ended, with the stream's parameters and a length its header states, is a
        // packet as soon as its bytes are whole (as Apple's parser delivers it: a client that never closes the
        // stream still gets the last); any other frame waits for the header after it to confirm it.
        let isNextInLine =
            !isSearching && tally.lastEnd == cursor.absoluteOffset && Self.fixedLength(of: header) != nil
            && keepsParameters(header)
        let nextHeaderBytes = isNextInLine ? 0 : 9
        if bytes.count < length + nextHeaderBytes && !atEnd { return .needMore(length + nextHeaderBytes) }
        if bytes.count < length {
            // The end comes inside the frame: a confirmed stream's last frame is cut short.
            context.properties.isTruncated = true
            if context.properties.truncationOffset == nil {
                context.properties.truncationOffset = cursor.absoluteOffset
            }
            context.properties.trace.append(
                offset: cursor.absoluteOffset, size: Int64(length),
                "the last frame is cut short (\(bytes.count) of \(length) bytes): not a packet")
            _ = cursor.skip(bytes.count)
            return nil
        }
        if bytes.count > length && !isNextInLine {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[length...])
            let confirmation = confirmation(rest, first: header)
            if !confirmation.confirms && !(atEnd && isHeaderCutShort(rest, first: header)) {
                // The stream's last frame, right where the frame before ended, stands though no header follows it
                // (zeros padding the file, junk after the audio): where nothing of the stream follows to the end.
                // Within the stream, a frame not followed by the next is damage, as FFmpeg takes it.
                let contiguous = !isSearching && tally.lastEnd == cursor.absoluteOffset
                let trailing = Self.trailingWindow
                if contiguous && !atEnd && rest.count < trailing && !Self.holdsFrame(rest, of: header, self) {
                    return .needMore(length + trailing)
                }
                if !(contiguous && atEnd && !Self.holdsFrame(rest, of: header, self)) {
                    try garbage(&cursor)
                    return nil
                }
            }
            if let next = confirmation.header { confirmedHeader = (cursor.absoluteOffset + Int64(length), next) }
        }
        return try accept(header, length: length, cursor: &cursor, extending: run)
    }

    /// Whether a frame keeps the parameters of the stream's first (an MPEG frame at another rate waits for the
    /// header after it to confirm the change).
    private func keepsParameters(_ header: Header) -> Bool {
        switch (state, header) {
        case (.framing(.mpeg(let first)), .mpeg(let frame)): first.continues(frame)
        case (.framing(.adts(let first)), .adts(let frame)): first.continues(frame)
        default: false
        }
    }

    /// How far past a frame not followed by the next the parser looks for the end of the stream: bytes after the
    /// last frame up to this many are trailing junk; a frame followed by more is damage.
    static let trailingWindow = 4096

    /// Whether a frame of the stream starts anywhere in `bytes`.
    private static func holdsFrame(_ bytes: UnsafeRawBufferPointer, of first: Header, _ parser: Self) -> Bool {
        var index = 0
        while index + 4 <= bytes.count {
            if bytes[index] == 0xFF,
                parser.confirmation(UnsafeRawBufferPointer(rebasing: bytes[index...]), first: first).confirms
            {
                return true
            }
            index += 1
        }
        return false
    }

    /// A frame's length in bytes.
    enum FrameLength {
        case length(Int)
        case needMore(Int)
        /// A free-format frame whose end cannot be found.
        case none
    }

    /// The length of the frame at the start of `bytes`: its header's, or for a free-format MPEG frame
    /// the distance to the next header of the same stream (or the end of the input).
    private func frameLength(of header: Header, in bytes: UnsafeRawBufferPointer, atEnd: Bool) -> FrameLength {
        switch header {
        case .adts(let adts): return .length(adts.frameLength)
        case .mpeg(let mpeg):
            if let fixed = mpeg.frameLength { return .length(fixed) }
            let minimum = mpeg.xingOffset
            let window = min(Self.freeFormatWindow, mpeg.maximumFreeFormatLength + 4)
            var probe = minimum
            while probe + 4 <= min(bytes.count, window) {
                if bytes[probe] == 0xFF,
                    let next = MPEGAudio.FrameHeader(UnsafeRawBufferPointer(rebasing: bytes[probe...])),
                    mpeg.continues(next), next.channelMode == mpeg.channelMode
                {
                    return .length(probe)
                }
                probe += 1
            }
            if bytes.count < window && !atEnd { return .needMore(min(bytes.count * 2 + 64, window)) }
            if atEnd && bytes.count > minimum && bytes.count <= window { return .length(bytes.count) }
            return .none
        }
    }

    /// What the frames from a stream's first one say about it.
    enum Evidence {
        case confirmed
        case rejected
        case needMore(Int)
    }

    /// Whether the frame at the start of `bytes` starts a stream: the rule in Documentation/RecognisingFiles.md.
    /// From a clean start (nothing but tags and zero padding before it), ``framesAtCleanStart``
    /// consistent frames in a row, or consistent frames up to the end of the input or a tag; after junk,
    /// ``framesAfterJunk`` in a row that also cover at least as many bytes as the junk, and a free-format
    /// frame never. Frames of the other kind than the type hint names need ``framesAgainstHint`` more.
    private func evidence(_ bytes: UnsafeRawBufferPointer, first: Header, atEnd: Bool) -> Evidence {
        let clean = gap.leadingJunk == 0
        if !clean && Self.fixedLength(of: first) == nil { return .rejected }
        let required =
            (clean ? Self.framesAtCleanStart : Self.framesAfterJunk)
            + (contradictsHint(first) ? Self.framesAgainstHint : 0)
        var frames = 0
        var position = 0
        var current = first
        var firstLength = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[position...])
            let length: Int
            switch frameLength(of: current, in: rest, atEnd: atEnd) {
            case .length(let measured): length = measured
            case .needMore(let count): return .needMore(position + count)
            case .none: return .rejected
            }
            // Free format keeps one bit rate: every frame is as long as the first, but for its padding slot.
            if frames == 0 { firstLength = length }
            if case .mpeg(let mpeg) = current, mpeg.frameLength == nil, case .mpeg(let firstMPEG) = first,
                length - mpeg.paddingBytes != firstLength - firstMPEG.paddingBytes, position + length < bytes.count
            {
                return .rejected
            }
            frames += 1
            position += length
            if frames >= required && Int64(position) >= gap.leadingJunk { return .confirmed }
            // The next header: 9 bytes cover every kind's header and a tag's first bytes.
            if bytes.count < position + 9 && !atEnd { return .needMore(position + 9) }
            if position >= bytes.count {
                // The input ends at or inside this frame: a short stream, from a clean start only (a lone
                // frame cut short is none).
                if clean { return frames > 1 || position == bytes.count ? .confirmed : .rejected }
                // After junk, a run to the end of the input (its last frame whole or cut short) of as many whole
                // frames as a clean start needs, covering the junk: a stream whose start was lost (taglib's
                // invalid-frames3: 969 bytes of junk, six frames and a seventh cut short).
                let whole = frames - (position > bytes.count ? 1 : 0)
                let wholeBytes = position > bytes.count ? position - length : position
                return whole >= Self.framesAtCleanStart && Int64(wholeBytes) >= gap.leadingJunk ? .confirmed : .rejected
            }
            let following = UnsafeRawBufferPointer(rebasing: bytes[position...])
            let confirmation = confirmation(following, first: first)
            if let next = confirmation.header {
                current = next
                continue
            }
            // A tag after the frames, or a header cut short by the end, ends a short stream.
            if clean && (confirmation.confirms || atEnd && isHeaderCutShort(following, first: first)) {
                return .confirmed
            }
            return .rejected
        }
    }

    /// Whether `bytes`, the last of the input, are the start of a header of the stream cut short.
    private func isHeaderCutShort(_ bytes: UnsafeRawBufferPointer, first: Header) -> Bool {
        switch first {
        case .mpeg: return bytes.count < 4 && (bytes.isEmpty || bytes[0] == 0xFF)
        case .adts(let adts): return bytes.count < adts.headerLength && (bytes.isEmpty || bytes[0] == 0xFF)
        }
    }

    /// Whether a frame is of the other elementary kind than the type hint names.
    private func contradictsHint(_ header: Header) -> Bool {
        switch (header, hint) {
        case (.mpeg, .adts?), (.adts, .mp3?): true
        default: false
        }
    }

    private static func fixedLength(of header: Header) -> Int? {
        switch header {
        case .adts(let adts): adts.frameLength
        case .mpeg(let mpeg): mpeg.frameLength
        }
    }

    private mutating func accept(_ header: Header, length: Int, cursor: inout ByteCursor, extending open: PacketRun?)
        throws -> ParserStep?
    {
        let offset = cursor.absoluteOffset
        endGarbage(at: offset, beforeFrame: true)
        let frameBytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position..<cursor.position + length])
        if isSearching { lockOnFirstFrame(header, frameBytes) }
        if !tally.checkedFirst {
            tally.checkedFirst = true
            if case .mpeg(let mpegHeader) = header,
                readEncoderHeader(in: frameBytes, header: mpegHeader, at: offset, length: length)
            {
                _ = cursor.skip(length)
                return nil
            }
        }
        let payloadOffset: Int
        var frames: UInt32 = 0
        switch header {
        case .adts(let adts):
            payloadOffset = adts.headerLength
            if adts.rawDataBlocks > 1 { frames = UInt32(1024 * adts.rawDataBlocks) }
        case .mpeg: payloadOffset = 0
        }
        if tally.firstOffset == nil {
            tally.firstOffset = offset
            context.properties.dataOffset = offset
            context.announce(.dataOffset)
            context.announcedReady = true
            context.announce(.readyToProducePackets)
        }
        if case .mpeg(let frame) = header { noteChanges(in: frame, at: offset) }
        let size = length - payloadOffset
        tally.largest = max(tally.largest, size)
        tally.lastEnd = offset + Int64(length)
        tally.frameCount += 1
        let start = offset + Int64(payloadOffset)
        numberResumedPacket(at: start)
        let packet = context.nextPacket
        context.noteSeenPacket(packet, at: start)
        context.nextPacket += 1
        context.packetIndex?.append(
            PacketDescription(
                startOffset: start, variableFramesInPacket: frames,
                dataByteSize: UInt32(size)))
        _ = cursor.skip(length)
        if context.mode == .indexing { return nil }
        if var run = open {
            // The next frame of the run being gathered, right after its last.
            run.byteCount = context.appendPacket(at: start - run.absoluteOffset, size: UInt32(size), frames: frames)
            run.packetCount += 1
            return .packets(run)
        }
        context.beginPacketRun()
        _ = context.appendPacket(at: 0, size: UInt32(size), frames: frames)
        return .packets(
            PacketRun(
                source: .input(index: cursor.position - length + payloadOffset), firstPacket: packet,
                packetCount: 1, absoluteOffset: start, byteCount: size, hasDescriptions: true))
    }

    /// Locks the stream on its first frame; ADTS with channel configuration 0 takes its channels from the first
    /// frame's program config element.
    private mutating func lockOnFirstFrame(_ header: Header, _ frameBytes: UnsafeRawBufferPointer) {
        lock(header)
        if case .adts(let adts) = header, adts.channelConfiguration == 0,
            let channels = AudioSpecificConfig.programConfigChannels(
                inRawDataBlock: Array(frameBytes.dropFirst(adts.headerLength))),
            channels > 0
        {
            context.properties.dataFormat?.channelsPerFrame = UInt32(channels)
        }
    }

    /// Whether the first MPEG audio frame is an encoder's header (Xing, Info, VBRI, LAME): kept, traced and its
    /// gapless counts reported, it is not an audio packet.
    private mutating func readEncoderHeader(
        in frameBytes: UnsafeRawBufferPointer, header mpegHeader: MPEGAudio.FrameHeader, at offset: Int64, length: Int
    ) -> Bool {
        guard let encoder = MPEGAudio.encoderHeader(in: frameBytes, header: mpegHeader) else { return false }
        encoderHeader = encoder
        context.properties.bitRateMode = encoder.bitRateMode
        context.properties.trace.append(
            offset: offset, size: Int64(length),
            "\(encoder.kind.rawValue) header frame" + (encoder.encoder.map { " (\($0))" } ?? "")
                + ": not an audio packet")
        if let (priming, remainder) = encoder.gapless {
            // The tag's frame count gives the valid frames from the start (as Apple's parser says them);
            // the end settles them to the frames present.
            let stated = Int64(encoder.frameCount ?? 0) * Int64(mpegHeader.samplesPerFrame)
            context.properties.packetTableInfo = PacketTableInfo(
                validFrames: max(stated - Int64(priming) - Int64(remainder), 0),
                primingFrames: Int32(priming), remainderFrames: Int32(remainder))
            context.announce(.packetTableInfo)
        }
        return true
    }

    /// What an MPEG audio frame changes from those before it: a rate change (said once; the first rate is
    /// reported), mono to stereo (the stream is read as stereo), and a bit rate that varies (no rate stated).
    private mutating func noteChanges(in frame: MPEGAudio.FrameHeader, at offset: Int64) {
        if let first = mpeg, frame.sampleRate != first.sampleRate, !tally.notedRateChange {
            tally.notedRateChange = true
            let note =
                "the sample rate changes from \(first.sampleRate) Hz to \(frame.sampleRate) Hz at byte \(offset); "
                + "every frame is counted, the first rate reported"
            context.properties.trace.append(offset: offset, note)
            context.properties.warnings.append(note)
        }
        if frame.channels != tally.mostChannels {
            if tally.mostChannels > 0, frame.channels > tally.mostChannels {
                context.properties.trace.append(
                    offset: offset,
                    "the channels change from mono to stereo at byte \(offset): the stream is read as stereo, its "
                        + "mono frames in both channels")
            }
            tally.mostChannels = max(tally.mostChannels, frame.channels)
        }
        if tally.frameCount == 0 {
            context.properties.headerBitRate = statedBitRate(firstFrame: frame)
            context.announce(.bitRate)
        } else if !hasVBRHeader, context.properties.headerBitRate != Int64(frame.bitrate) {
            context.properties.headerBitRate = nil
        }
    }

    /// Whether the stream opens with a VBR header (Xing, VBRI), whose counts state its rate; an Info header says the
    /// stream is constant-rate.
    private var hasVBRHeader: Bool { encoderHeader.map { $0.kind != .info } ?? false }

    /// The bit rate the stream states at its first audio frame: a VBR header's (Xing, VBRI) bytes over its frames'
    /// duration; else the frame's own (a constant-rate stream's, as an Info header says it is).
    private func statedBitRate(firstFrame frame: MPEGAudio.FrameHeader) -> Int64? {
        if let encoder = encoderHeader, hasVBRHeader {
            guard let frames = encoder.frameCount, frames > 0, let bytes = encoder.byteCount, bytes > 0 else {
                return nil
            }
            let seconds = Double(frames * frame.samplesPerFrame) / Double(frame.sampleRate)
            return Int64((Double(bytes) * 8 / seconds).rounded())
        }
        return frame.bitrate > 0 ? Int64(frame.bitrate) : nil
    }

    /// Fixes the stream's kind and format from its first frame.
    private mutating func lock(_ header: Header) {
        state = .framing(header)
        switch header {
        case .mpeg(let first):
            context.properties.fileType = .mp3
            context.properties.dataFormat = first.streamDescription
        case .adts(let first):
            context.properties.fileType = .adts
            context.properties.dataFormat = first.streamDescription
            context.properties.magicCookie = first.audioSpecificConfig
            context.announce(.magicCookie)
        }
        context.announce(.fileFormat)
        context.announce(.dataFormat)
    }

    // MARK: Ending and seeking

    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        endGarbage(at: endOffset)
        guard let format = context.properties.dataFormat else {
            // A file that ends inside its leading ID3v2 tag is cut short, not unknown: whatever followed the tag
            // (the audio) is missing.
            if let cut = gap.tagCutShort {
                throw AudioFileError.truncated(
                    "the file ends inside its ID3v2 tag (\(cut.present) of its \(cut.total) bytes, from byte "
                        + "\(cut.offset)), before any audio: it is cut short", offset: endOffset)
            }
            // A tag that claims more bytes than the stream holds hides whatever follows it: say so.
            let cut =
                gap.tagRemaining > 0
                ? " (it ends \(gap.tagRemaining) bytes before the end its \(gap.tagKind) tag claims)" : ""
            throw Self.unrecognised("its \(endOffset) bytes\(cut)")
        }
        if gap.tagRemaining > 0 {
            context.properties.trace.append(offset: endOffset, "the stream ends \(gap.tagRemaining) bytes inside a tag")
        }
        let packets = context.nextPacket
        if tally.mostChannels > Int(format.channelsPerFrame), format.channelsPerFrame > 0 {
            context.properties.dataFormat?.channelsPerFrame = UInt32(tally.mostChannels)
            context.announce(.dataFormat)
        }
        context.properties.audioDataPacketCount = packets
        context.properties.audioDataByteCount =
            tally.firstOffset.flatMap { first in tally.lastEnd.map { $0 - first } } ?? 0
        if context.properties.dataOffset == nil { context.properties.dataOffset = tally.lastEnd ?? endOffset }
        context.properties.maximumPacketSize = UInt32(tally.largest)
        // The encoder's header counts the frames and bytes it wrote: fewer here is a stream cut short. (Its
        // padding is still the remainder: the contract states priming and remainder from the LAME tag alone.)
        let bytesSeen = tally.firstOffset.flatMap { first in tally.lastEnd.map { $0 - first } } ?? 0
        // (Both counts must fall short, by more than the header frame itself: one lying count is not a cut.)
        if let encoder = encoderHeader, let stated = encoder.frameCount, stated > Int(packets) + 1,
            let statedBytes = encoder.byteCount, Int64(statedBytes) - bytesSeen > 2 * Int64(max(tally.largest, 1))
        {
            context.properties.isTruncated = true
            if context.properties.truncationOffset == nil { context.properties.truncationOffset = tally.lastEnd }
        }
        if let info = context.properties.packetTableInfo {
            let total = packets * Int64(format.framesPerPacket)
            context.properties.packetTableInfo = PacketTableInfo(
                validFrames: max(total - Int64(info.primingFrames) - Int64(info.remainderFrames), 0),
                primingFrames: info.primingFrames, remainderFrames: info.remainderFrames)
        }
        if let encoder = encoderHeader, let stated = encoder.frameCount, stated != Int(packets),
            encoder.kind != .info || stated != 0
        {
            context.properties.trace.append(
                offset: endOffset,
                "the \(encoder.kind.rawValue) header states \(stated) frames; \(packets) were found, which are used")
        }
    }

    /// Resumes at a packet: exact from the packet index (a file read for indexing), else at the estimate of
    /// ``packetToByte(_:averagePacketSize:)``; the frame found there is numbered from its own offset.
    package mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        confirmedHeader = nil
        guard let dataOffset = context.properties.dataOffset, packet >= 0,
            let estimate = packetToByte(packet, averagePacketSize: averagePacketSize)
        else {
            throw AudioFileError.illegalOperation("\(containerName): cannot seek before the first frame")
        }
        resumeNumbering(atPacket: packet, isEstimate: estimate.isEstimate, averagePacketSize: averagePacketSize)
        gap.tagRemaining = 0
        // The index holds where a packet's payload begins; an ADTS frame's header comes before it.
        let header = estimate.isEstimate ? 0 : Int64(adts?.headerLength ?? 0)
        let (offset, overflow) = dataOffset.addingReportingOverflow(max(estimate.offset - header, 0))
        return (overflow ? Int64.max : offset, estimate.isEstimate)
    }

    /// A packet's offset: exact from the packet index, else estimated from the Xing table of contents, the
    /// VBRI table, or the average packet size (the one estimator behind seeking and Apple's PacketToByte).
    package func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (offset: Int64, isEstimate: Bool)? {
        guard packet >= 0 else { return nil }
        if let start = context.knownStart(ofPacket: packet), let dataOffset = context.properties.dataOffset {
            return (start - dataOffset, false)
        }
        if let encoder = encoderHeader, let toc = encoder.tableOfContents, let frames = encoder.frameCount, frames > 0,
            let bytes = encoder.byteCount
        {
            let percent = min(Double(packet) / Double(frames) * 100, 99.999)
            let index = Int(percent)
            let low = Double(toc[index])
            let high = index < 99 ? Double(toc[index + 1]) : 256
            let fraction = (low + (high - low) * (percent - Double(index))) / 256
            return (Int64(fraction * Double(bytes)), true)
        }
        if let encoder = encoderHeader, let entries = encoder.vbriEntries, let perEntry = encoder.framesPerEntry,
            perEntry > 0
        {
            let whole = Int(min(packet / Int64(perEntry), Int64(entries.count)))
            var estimate = Int64(entries.prefix(whole).reduce(0, +))
            if whole < entries.count {
                estimate += Int64(entries[whole]) * (packet % Int64(perEntry)) / Int64(perEntry)
            }
            return (estimate, true)
        }
        return averageEstimate(packet, averagePacketSize: averagePacketSize ?? averageFrameSize)
    }

    /// The packet a byte of the audio lies in: the inverse of ``packetToByte(_:averagePacketSize:)``.
    package func byteToPacket(_ byte: Int64, averagePacketSize: Double?) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )? {
        guard byte >= 0 else { return nil }
        if let index = context.packetIndex, let dataOffset = context.properties.dataOffset, let last = index.last,
            byte < last.startOffset + Int64(last.dataByteSize) - dataOffset
        {
            return exactPacket(holding: byte)
        }
        if let encoder = encoderHeader, let toc = encoder.tableOfContents, let frames = encoder.frameCount, frames > 0,
            let bytes = encoder.byteCount, bytes > 0
        {
            let position = min(Double(byte) / Double(bytes) * 256, 255.999)
            // The last entry at or before the byte, and the share of the way to the next.
            let index = toc.lastIndex { Double($0) <= position } ?? 0
            let low = Double(toc[index])
            let high = index < 99 ? Double(toc[index + 1]) : 256
            let share = high > low ? (position - low) / (high - low) : 0
            let packet = Int64((Double(index) + min(share, 1)) / 100 * Double(frames))
            return (packet, 0, true)
        }
        if let encoder = encoderHeader, let entries = encoder.vbriEntries, let perEntry = encoder.framesPerEntry,
            perEntry > 0
        {
            var start: Int64 = 0
            for (entry, size) in entries.enumerated() {
                if byte < start + Int64(size) {
                    let packet = Int64(entry * perEntry) + (byte - start) * Int64(perEntry) / Int64(max(size, 1))
                    return (packet, 0, true)
                }
                start += Int64(size)
            }
            return (Int64(entries.count * perEntry), 0, true)
        }
        return averageEstimate(byte: byte, averagePacketSize: averagePacketSize ?? averageFrameSize)
    }

    /// The average length of the frames counted so far (with their headers), where any were.
    private var averageFrameSize: Double? {
        guard tally.frameCount > 0, let first = tally.firstOffset, let end = tally.lastEnd else { return nil }
        return Double(end - first) / Double(tally.frameCount)
    }
}
