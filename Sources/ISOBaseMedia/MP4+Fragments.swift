import AudioFormats
import StreamParsing

/// Fragmented MPEG-4 (ISO/IEC 14496-12 movie fragments) as HTTP Live Streaming and CMAF carry audio: an
/// initialization section (`ftyp` + a `moov` with empty sample tables and `mvex`) and media segments
/// (`styp`, one `moof` with its `tfdt` decode time, and the `mdat`), written here; and what a segment's
/// fragments say about themselves, read back for the validator. The samples themselves are read by
/// ``MP4Parser``'s fragment support, over the initialization section and the segments in order.
extension MP4 {
    /// The initialization section of a fragmented audio track: `ftyp` (`iso6`), then a `moov` whose edit
    /// list skips `primingFrames` and lasts `validFrames` (an open-ended stream: 0), whose sample entry holds
    /// `magicCookie`, and whose `trex` gives each sample one packet's frames; with the text tags `metadata` (none:
    /// no `udta`) and the track's `loudness` (`trak/udta/ludt`; `nil`: none).
    public static func fragmentedInitialization(
        format: StreamDescription, magicCookie: [UInt8], primingFrames: Int64, validFrames: Int64,
        metadata: [String: String] = [:], loudness: LoudnessInfo? = nil
    ) throws -> [UInt8] {
        guard format.formatID == .aac || format.formatID == .alac, format.framesPerPacket > 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "mp4: afkit writes AAC and Apple Lossless into fragmented MPEG-4, not '\(format.formatID)'",
                offset: nil)
        }
        guard format.sampleRate >= 1, format.sampleRate < 4_294_967_296,
            format.sampleRate == format.sampleRate.rounded(), !magicCookie.isEmpty
        else {
            throw AudioFileError.unsupportedDataFormat(
                "mp4: a fragmented track needs a whole sample rate and a magic cookie", offset: nil)
        }
        var ftyp: [UInt8] = []
        ftyp.appendFourCharCode("iso6")
        ftyp.appendInteger(UInt32(0), endianness: .big)
        for brand: FourCharCode in ["iso6", "mp41"] { ftyp.appendFourCharCode(brand) }
        var options = AudioFileWriterOptions()
        options.metadata = metadata
        options.loudnessInfo = loudness
        var bytes: [UInt8] = []
        appendBox(&bytes, BoxType.ftyp, ftyp)
        bytes += moov(
            format: format, options: options, cookie: magicCookie, sizes: [], lastFrames: 0, mediaFrames: 0,
            priming: primingFrames, validFrames: validFrames, remainder: 0, chunkOffsets: [], wideOffsets: false,
            fragmented: true)
        return bytes
    }

    /// A media segment of one fragment: `styp`, a `moof` (sequence number, `tfdt` = `baseDecodeTime` in the
    /// track's timescale, a `trun` of `sampleSizes`) and the `mdat` holding `data`, the samples in order.
    /// Every sample lasts the `trex` default (one packet) and is a sync sample.
    public static func mediaSegment(
        sequenceNumber: UInt32, baseDecodeTime: UInt64, sampleSizes: [UInt32], data: [UInt8]
    ) -> [UInt8] {
        var styp: [UInt8] = []
        styp.appendFourCharCode("msdh")
        styp.appendInteger(UInt32(0), endianness: .big)
        styp.appendFourCharCode("msdh")  // (not `msix`: the segments have no `sidx`)
        var mfhd = fullBoxHeader(version: 0, flags: 0)
        mfhd.appendInteger(sequenceNumber, endianness: .big)
        // Offsets from the start of the moof (default-base-is-moof), the track's defaults from trex.
        var tfhd = fullBoxHeader(version: 0, flags: 0x02_0000)
        tfhd.appendInteger(UInt32(1), endianness: .big)
        var tfdt = fullBoxHeader(version: 1, flags: 0)
        tfdt.appendInteger(baseDecodeTime, endianness: .big)
        // trun: data offset and a size a sample. The offset is the moof's size plus the mdat's header.
        let trunSize = 8 + 4 + 4 + 4 + 4 * sampleSizes.count
        let moofSize = 8 + (8 + mfhd.count) + 8 + (8 + tfhd.count) + (8 + tfdt.count) + trunSize
        var trun = fullBoxHeader(version: 0, flags: 0x00_0201)
        trun.appendInteger(UInt32(sampleSizes.count), endianness: .big)
        trun.appendInteger(UInt32(moofSize + 8), endianness: .big)
        for size in sampleSizes { trun.appendInteger(size, endianness: .big) }
        var traf: [UInt8] = []
        appendBox(&traf, "tfhd", tfhd)
        appendBox(&traf, "tfdt", tfdt)
        appendBox(&traf, "trun", trun)
        var moof: [UInt8] = []
        appendBox(&moof, "mfhd", mfhd)
        appendBox(&moof, "traf", traf)
        var bytes: [UInt8] = []
        appendBox(&bytes, "styp", styp)
        appendBox(&bytes, "moof", moof)
        bytes.reserveCapacity(bytes.count + 8 + data.count)
        appendBox(&bytes, BoxType.mdat, data)
        return bytes
    }

    /// What one track fragment of a segment says about itself.
    public struct TrackFragment: Hashable, Sendable {
        /// The `mfhd` sequence number of its movie fragment.
        public var sequenceNumber: UInt32
        /// `tfhd`'s track.
        public var trackID: UInt32
        /// `tfdt`'s decode time of its first sample (track timescale), where it has one.
        public var baseDecodeTime: UInt64?
        /// The samples of its runs.
        public var sampleCount: Int64
        /// The sum of its samples' durations where the fragment states them (`trun` or `tfhd`), else `nil`
        /// (the `trex` default applies).
        public var duration: Int64?
        /// Whether its first sample is a sync sample, where the fragment says (`nil`: the `trex` default).
        public var firstSampleIsSync: Bool?
        /// The byte offset of its `traf` in the segment.
        public var offset: Int64
    }

    /// The track fragments of a media segment's `moof` boxes, in order. The boxes are walked within their
    /// sizes; a box that overruns its parent is an error with its offset.
    public static func trackFragments(in segment: [UInt8]) throws -> [TrackFragment] {
        var fragments: [TrackFragment] = []
        try segment.withUnsafeBytes { bytes in
            func boxes(_ start: Int, _ end: Int, _ body: (FourCharCode, Int, Int) throws -> Void) throws {
                try walkBoxes(bytes, start, end, body)
            }
            func word(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian }
            try boxes(0, bytes.count) { type, start, end in
                guard type == "moof" else { return }
                var sequence: UInt32 = 0
                try boxes(start, end) { type, start, end in
                    if type == "mfhd", end - start >= 8 { sequence = word(start + 4) }
                    guard type == "traf" else { return }
                    var fragment = TrackFragment(
                        sequenceNumber: sequence, trackID: 0, baseDecodeTime: nil, sampleCount: 0, duration: 0,
                        firstSampleIsSync: nil, offset: Int64(start - 8))
                    var defaultDuration: UInt32?
                    var defaultFlags: UInt32?
                    try boxes(start, end) { type, start, end in
                        guard end - start >= 4 else { return }
                        let version = bytes[start]
                        let flags = word(start) & 0xFF_FFFF
                        var at = start + 4
                        func next(_ width: Int) throws -> UInt64 {
                            guard at + width <= end else {
                                throw AudioFileError.malformed(
                                    "mp4: the '\(type)' box is too short for its fields", offset: Int64(start - 8))
                            }
                            defer { at += width }
                            return width == 8
                                ? bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).bigEndian
                                : UInt64(word(at))
                        }
                        switch type {
                        case "tfhd":
                            fragment.trackID = UInt32(try next(4))
                            if flags & 0x01 != 0 { _ = try next(8) }
                            if flags & 0x02 != 0 { _ = try next(4) }
                            if flags & 0x08 != 0 { defaultDuration = UInt32(try next(4)) }
                            if flags & 0x10 != 0 { _ = try next(4) }
                            if flags & 0x20 != 0 { defaultFlags = UInt32(try next(4)) }
                        case "tfdt":
                            fragment.baseDecodeTime = try next(version == 1 ? 8 : 4)
                        case "trun":
                            let count = try next(4)
                            if flags & 0x01 != 0 { _ = try next(4) }
                            var firstFlags: UInt32? = flags & 0x04 != 0 ? UInt32(try next(4)) : nil
                            let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }
                            guard count * UInt64(4 * fields.count) <= UInt64(end - at) else {
                                throw AudioFileError.malformed(
                                    "mp4: 'trun' counts \(count) samples its box cannot hold", offset: Int64(start - 8))
                            }
                            if !fields.isEmpty {
                                for index in 0..<Int(count) {
                                    for field in fields {
                                        let value = UInt32(try next(4))
                                        if field == 0x100 { fragment.duration? += Int64(value) }
                                        if field == 0x400, index == 0, firstFlags == nil { firstFlags = value }
                                    }
                                }
                            }
                            if flags & 0x100 == 0 {
                                fragment.duration = defaultDuration.flatMap { duration in
                                    fragment.duration.map { $0 + Int64(duration) * Int64(count) }
                                }
                            }
                            if fragment.sampleCount == 0, count > 0 {
                                let first = firstFlags ?? defaultFlags
                                fragment.firstSampleIsSync = first.map { $0 & 0x0001_0000 == 0 }
                            }
                            fragment.sampleCount += Int64(count)
                        default: return
                        }
                    }
                    fragments.append(fragment)
                }
            }
        }
        return fragments
    }

    /// What an initialization section says about the samples its segments hold: the first track's media
    /// timescale (`mdhd`: the unit of `tfdt`), its edit list (`elst`: where the presentation starts in the media,
    /// and for how long, in the movie's timescale, `mvhd`; 0 where it does not say) and the `trex` defaults.
    public struct InitializationFacts: Hashable, Sendable {
        /// `mdhd`'s timescale.
        public var mediaTimescale: UInt32?
        /// `mvhd`'s timescale.
        public var movieTimescale: UInt32?
        /// The first edit's media time (media timescale): the frames the presentation skips (the priming).
        public var editMediaTime: Int64?
        /// The first edit's duration (movie timescale); 0 or `nil`: to the end.
        public var editDuration: Int64?
        /// `trex`'s default sample duration and flags.
        public var defaultSampleDuration: UInt32?
        /// `trex`'s default sample flags (bit 16: not a sync sample).
        public var defaultSampleFlags: UInt32?
        /// `ftyp`'s major and compatible brands, in order (empty without `ftyp`).
        public var brands: [FourCharCode] = []
        /// `mvhd`'s duration (movie timescale).
        public var movieDuration: UInt64?
        /// The first track's `tkhd` duration (movie timescale).
        public var trackDuration: UInt64?
        /// The tracks (`trak` boxes) of the movie.
        public var trackCount = 0
        /// The first track's `hdlr` handler type (`soun` for sound).
        public var handlerType: FourCharCode?
        /// The first track's sample table's samples (`stsz`'s count, else what `stts` adds up to), where it has one.
        public var sampleCount: UInt64?
        /// Whether the movie has a Movie Extends box (`mvex`) after its last track.
        public var movieExtendsFollowsTracks = false

        /// The media span the presentation shows, in media timescale units: from the edit's media time, for its
        /// duration (to the end where it has none).
        public var presentedMedia: Range<Int64>? {
            guard let start = editMediaTime, start >= 0 else { return nil }
            guard let duration = editDuration, duration > 0, let movie = movieTimescale, movie > 0,
                let media = mediaTimescale, media > 0
            else { return start..<Int64.max }
            let length = Double(duration) * Double(media) / Double(movie)
            guard length < 9e18 else { return start..<Int64.max }
            return start..<start + Int64(length.rounded())
        }
    }

    /// The facts of an initialization section (or any file with a `moov`); boxes that overrun are an error.
    public static func initializationFacts(_ bytes: [UInt8]) throws -> InitializationFacts {
        var facts = InitializationFacts()
        try bytes.withUnsafeBytes { bytes in
            func word(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian }
            func wide(_ at: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).bigEndian }
            var seenMovieExtends = false
            func descend(_ start: Int, _ end: Int) throws {
                try walkBoxes(bytes, start, end) { type, start, end in
                    let version = end > start ? bytes[start] : 0
                    switch type {
                    case "ftyp" where end - start >= 8:
                        facts.brands = [FourCharCode(rawValue: word(start))]
                        for at in stride(from: start + 8, to: end - 3, by: 4) {
                            facts.brands.append(FourCharCode(rawValue: word(at)))
                        }
                    case "trak":
                        facts.trackCount += 1
                        // A track after mvex: the Movie Extends box does not follow the last track.
                        facts.movieExtendsFollowsTracks = false
                        if facts.trackCount == 1 { try descend(start, end) }
                    case "mvex":
                        facts.movieExtendsFollowsTracks = true
                        if !seenMovieExtends { try descend(start, end) }
                        seenMovieExtends = true
                    case "moov", "mdia", "edts", "minf", "stbl": try descend(start, end)
                    case "mvhd" where end - start >= (version == 1 ? 32 : 20):
                        facts.movieTimescale = word(start + (version == 1 ? 20 : 12))
                        facts.movieDuration = version == 1 ? wide(start + 24) : UInt64(word(start + 16))
                    case "tkhd" where end - start >= (version == 1 ? 36 : 24):
                        facts.trackDuration = version == 1 ? wide(start + 28) : UInt64(word(start + 20))
                    case "hdlr" where end - start >= 12: facts.handlerType = FourCharCode(rawValue: word(start + 8))
                    case "stsz" where end - start >= 12: facts.sampleCount = UInt64(word(start + 8))
                    case "stts" where end - start >= 8 && facts.sampleCount == nil:
                        // Each entry: a count of samples and their duration; the count is bounded by the box's bytes.
                        let entries = min(Int(word(start + 4)), (end - start - 8) / 8)
                        facts.sampleCount = (0..<entries).reduce(UInt64(0)) { $0 + UInt64(word(start + 8 + 8 * $1)) }
                    case "mdhd" where end - start >= (version == 1 ? 24 : 16):
                        facts.mediaTimescale = word(start + (version == 1 ? 20 : 12))
                    case "elst" where end - start >= 8 && word(start + 4) > 0:
                        let entry = start + 8
                        if version == 1, end - entry >= 16 {
                            facts.editDuration = Int64(bitPattern: wide(entry))
                            facts.editMediaTime = Int64(bitPattern: wide(entry + 8))
                        } else if version == 0, end - entry >= 8 {
                            facts.editDuration = Int64(word(entry))
                            facts.editMediaTime = Int64(Int32(bitPattern: word(entry + 4)))
                        }
                    case "trex" where end - start >= 24 && facts.defaultSampleDuration == nil:
                        facts.defaultSampleDuration = word(start + 12)
                        facts.defaultSampleFlags = word(start + 20)
                    default: return
                    }
                }
            }
            try descend(0, bytes.count)
        }
        return facts
    }

    /// The media timescale (`mdhd`) of the first track of an initialization section; `nil` where it has none.
    public static func mediaTimescale(inInitialization bytes: [UInt8]) throws -> UInt32? {
        try initializationFacts(bytes).mediaTimescale
    }

    /// Calls `body` with each box's type and its body's range between `start` and `end`; a box that overruns
    /// them is an error with its offset.
    static func walkBoxes(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ body: (FourCharCode, Int, Int) throws -> Void
    ) throws {
        var position = start
        while position + 8 <= end {
            var size = Int(bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).bigEndian)
            let type = FourCharCode(
                rawValue: bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).bigEndian)
            var header = 8
            if size == 1 {
                guard position + 16 <= end else { break }
                let wide = bytes.loadUnaligned(fromByteOffset: position + 8, as: UInt64.self).bigEndian
                guard wide <= UInt64(end - position) else {
                    throw AudioFileError.malformed(
                        "mp4: the '\(type)' box's \(wide) bytes run past its parent", offset: Int64(position))
                }
                size = Int(wide)
                header = 16
            } else if size == 0 {
                size = end - position
            }
            guard size >= header, position + size <= end else {
                throw AudioFileError.malformed(
                    "mp4: the '\(type)' box's \(size) bytes run past its parent", offset: Int64(position))
            }
            try body(type, position + header, position + size)
            position += size
        }
    }
}
