import AudioFormats

/// Everything a parser has learned about a stream: Audio File Stream Services' properties.
///
/// Values arrive as the parser meets them; after `finish` they describe what the input really
/// holds (whole packets present, truncation noted).
public struct StreamProperties: Sendable {
    /// The container, detected from the bytes.
    public var fileType: FileType?
    /// The data format of the audio.
    public var dataFormat: StreamDescription?
    /// Every layer of the format, richest first: for HE-AAC the SBR (and PS) layers and the AAC core,
    /// so a player can pick the full rate; else the data format alone.
    public var formatList: [StreamDescription] {
        get { formatLayers.isEmpty ? dataFormat.map { [$0] } ?? [] : formatLayers }
        set { formatLayers = newValue }
    }
    private var formatLayers: [StreamDescription] = []
    /// For MPEG-4 files: whether `moov` comes before the audio (`mdat`), as a streaming player needs.
    public var isOptimized: Bool?
    /// Codec-specific configuration (`kuki` in CAF, the AudioSpecificConfig for AAC, ...).
    public var magicCookie: [UInt8]?
    /// Absolute byte offset of the first audio byte.
    public var dataOffset: Int64?
    /// Bytes of audio data: as the header states until the end, then as present.
    public var audioDataByteCount: Int64?
    /// Packets of audio data: as the header states until the end, then as present.
    public var audioDataPacketCount: Int64?
    /// The largest packet in bytes.
    public var maximumPacketSize: UInt32?
    /// The bit rate the stream's headers state: a constant-rate MPEG audio stream's frames' (128000, where the average
    /// over the bytes may read 127999), a VBR header's bytes over its frames' duration; `nil` once a frame of a stream
    /// with no VBR header differs, or where no header states one.
    public var headerBitRate: Int64?
    /// How the encoder spent its bits, where the stream's encoder header says (an MPEG audio stream's LAME tag):
    /// what a conversion keeping the file's format asks of its encoder again.
    public var bitRateMode: BitRateMode?
    /// Valid, priming and remainder frames, where the file states them.
    public var packetTableInfo: PacketTableInfo?
    /// The channel layout, where the file states one.
    public var channelLayout: ChannelLayout?
    /// Text tags (title, artist, comment, ...), keyed by lower-case names.
    public var infoDictionary: [String: String] = [:]
    /// The pictures the file carries (cover art), in the order they stand.
    public var pictures: [Picture] = []
    /// Markers (AIFF `MARK`, WAV `cue ` with its `LIST/adtl` labels, CAF `mark`), in file order.
    public var markers: [Marker] = []
    /// Chapters (MP4 `chpl`, ID3 `CHAP`, Vorbis comments' `CHAPTERnnn`), in time order.
    public var chapters: [Chapter] = []
    /// Which of a container's chapter forms ``chapters`` come from, where it has two (MPEG-4: `"chapter track"`,
    /// QuickTime's, preferred; `"chpl"`, Nero's list); `nil` elsewhere.
    public var chapterSource: String?
    /// Comments tied to times and markers (AIFF `COMT`), in file order.
    public var comments: [Comment] = []
    /// Annotations (AIFF `ANNO`, every one, in order).
    public var annotations: [String] = []
    /// How a sampler plays the sound (AIFF `INST`, WAV `smpl` and `inst`, CAF `inst`).
    public var instrument: Instrument?
    /// The loops, resolved to frames whatever the container (from `INST`'s markers, `smpl`'s loops,
    /// CAF's regions).
    public var loops: [Loop] = []
    /// The loudness the file states for its sound (MPEG-4 `ludt`: the sound track's, else the movie's).
    public var loudnessInfo: LoudnessInfo?
    /// Whether the audio ends before its header says it should, or a packet is cut short.
    public var isTruncated = false
    /// Where the stream ends short, where the parser says (every whole packet before it is read).
    public var truncationOffset: Int64?
    /// Disagreements in the header a person should know of (AIFF's COMM counting other frames than
    /// SSND holds), shown by `afkit info` as warnings; the parse goes on with what the audio holds.
    public var warnings: [String] = []
    /// Where the parser skipped what should have been audio and could not be trusted (a page or frame
    /// failing its check, bytes between frames, pages missing), each said where and how much; also among
    /// ``warnings``. The file was read to its end (``isTruncated`` is for one that ends early).
    public var damage: [String] = []
    /// Whether audio was skipped as damaged (``damage`` says where).
    public var isDamaged: Bool { !damage.isEmpty }
    /// What of the file's metadata the parser left unread to keep its memory bounded (a comment block past the
    /// read limit, chapters past the thousand read), each said how much and where; also among ``warnings``.
    public var notRead: [NotRead] = []
    /// What the parser saw, chunk by chunk.
    public var trace = ParseTrace()

    /// Nothing known yet.
    public init() {}

    /// Valid frames: those the file states (CAF `pakt`, WAV `fact`, ...), else packets times frames
    /// per packet, less priming and remainder frames.
    public var validFrameCount: Int64? {
        if let info = packetTableInfo { return info.validFrames }
        guard let format = dataFormat, let packets = audioDataPacketCount, format.framesPerPacket > 0 else {
            return nil
        }
        return packets.multipliedOrNil(by: Int64(format.framesPerPacket))
    }

    /// Frames the packets decode to, before trimming.
    public var decodedFrameCount: Int64? {
        guard let format = dataFormat, let packets = audioDataPacketCount else { return nil }
        if format.framesPerPacket > 0 { return packets.multipliedOrNil(by: Int64(format.framesPerPacket)) }
        guard let info = packetTableInfo else { return nil }
        return info.totalFrames
    }

    /// Average bits per second over the audio data, rounded.
    public var bitRate: Int64? {
        guard let format = dataFormat, let bytes = audioDataByteCount, let frames = decodedFrameCount,
            frames > 0, format.sampleRate > 0
        else { return nil }
        return Int64(saturating: Double(bytes) * 8 * format.sampleRate / Double(frames))
    }

    /// The largest a packet of this format can be (Apple's PacketSizeUpperBound): the constant size, the
    /// codec's ceiling (AAC: 6144 bits a channel; MPEG audio: its largest frame; ALAC: its config's
    /// maximum frame bytes), never less than the largest packet seen.
    public var packetSizeUpperBound: UInt32? {
        guard let format = dataFormat else { return nil }
        if format.bytesPerPacket > 0 { return format.bytesPerPacket }
        let channels = max(format.channelsPerFrame, 1)
        var bound: UInt32
        switch format.formatID {
        case .aac, .aacSpectralBandReplication, .aacParametricStereo: bound = 768 * channels
        case .mpegLayer3: bound = 1441  // 320 kbit/s at 32 kHz, padded
        case .mpegLayer2: bound = 1729  // 384 kbit/s at 32 kHz, padded
        case .mpegLayer1: bound = 676  // 448 kbit/s at 32 kHz, padded
        case .alac:
            let cookie = magicCookie ?? []
            let declared = cookie.count >= 16 ? cookie[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
            bound = declared > 0 ? declared : format.framesPerPacket * channels * 4 + 64
        default: bound = 0
        }
        return max(bound, maximumPacketSize ?? 0)
    }

    /// Seconds of valid audio.
    public var duration: Double? {
        guard let frames = validFrameCount, let rate = dataFormat?.sampleRate, rate > 0 else { return nil }
        return Double(frames) / rate
    }
}

/// A position in the audio with a name.
public struct Marker: Hashable, Sendable {
    /// The marker's id (what loops and comments refer to).
    public var id: Int
    /// The frame it marks.
    public var framePosition: Int64
    /// Its name.
    public var name: String

    /// A marker `id` at `framePosition` named `name`.
    public init(id: Int, framePosition: Int64, name: String) {
        self.id = id
        self.framePosition = framePosition
        self.name = name
    }
}

/// A chapter: a titled part of the sound from a time (audiobooks, podcasts, DJ mixes).
public struct Chapter: Hashable, Sendable {
    /// Where it starts, in seconds from the start of the sound.
    public var startTime: Double
    /// Where it ends, in seconds, where the file says (ID3 `CHAP` does; MP4 `chpl` and Vorbis comments
    /// give only starts, each chapter ending where the next begins).
    public var endTime: Double?
    /// Its title ("" where it has none).
    public var title: String

    /// A chapter from `startTime` (to `endTime`, where known) titled `title`.
    public init(startTime: Double, endTime: Double? = nil, title: String) {
        self.startTime = startTime
        self.endTime = endTime
        self.title = title
    }
}

/// A comment at a time, perhaps tied to a marker (AIFF `COMT`).
public struct Comment: Hashable, Sendable {
    /// Seconds since 1904-01-01, as AIFF counts them.
    public var timeStamp: UInt32
    /// The marker it belongs to; 0 when none.
    public var marker: Int
    /// The comment.
    public var text: String

    /// A comment at `timeStamp`, tied to `marker` (0: none).
    public init(timeStamp: UInt32, marker: Int, text: String) {
        self.timeStamp = timeStamp
        self.marker = marker
        self.text = text
    }
}

/// How a loop plays.
public enum LoopPlayMode: String, Hashable, Sendable {
    case forward, pingpong, backward
}

/// A loop as an instrument names it: a play mode between two markers.
public struct InstrumentLoop: Hashable, Sendable {
    /// `nil`: the loop is off (AIFF's play mode 0).
    public var playMode: LoopPlayMode?
    /// The marker where the loop starts.
    public var beginMarker: Int
    /// The marker where it ends.
    public var endMarker: Int

    /// A loop from `beginMarker` to `endMarker` played in `playMode`.
    public init(playMode: LoopPlayMode?, beginMarker: Int, endMarker: Int) {
        self.playMode = playMode
        self.beginMarker = beginMarker
        self.endMarker = endMarker
    }
}

/// How a sampler plays a sound: its MIDI note and ranges, gain, and sustain and release loops.
public struct Instrument: Hashable, Sendable {
    /// The MIDI note the sound plays at as recorded.
    public var baseNote: Int
    /// Cents; AIFF stores -50...50.
    public var detune: Int
    /// The lowest MIDI note it plays for.
    public var lowNote: Int
    /// The highest MIDI note it plays for.
    public var highNote: Int
    /// The lowest velocity it plays for.
    public var lowVelocity: Int
    /// The highest velocity it plays for.
    public var highVelocity: Int
    /// Decibels.
    public var gain: Int
    /// The loop played while the note is held.
    public var sustainLoop: InstrumentLoop?
    /// The loop played after it is released.
    public var releaseLoop: InstrumentLoop?

    /// An instrument; the defaults span every note and velocity.
    public init(
        baseNote: Int = 60, detune: Int = 0, lowNote: Int = 0, highNote: Int = 127, lowVelocity: Int = 1,
        highVelocity: Int = 127, gain: Int = 0, sustainLoop: InstrumentLoop? = nil, releaseLoop: InstrumentLoop? = nil
    ) {
        self.baseNote = baseNote
        self.detune = detune
        self.lowNote = lowNote
        self.highNote = highNote
        self.lowVelocity = lowVelocity
        self.highVelocity = highVelocity
        self.gain = gain
        self.sustainLoop = sustainLoop
        self.releaseLoop = releaseLoop
    }
}

/// A loop in frames: from `start` up to (not including) `end`.
public struct Loop: Hashable, Sendable {
    /// The loop's first frame.
    public var start: Int64
    /// The frame after its last.
    public var end: Int64
    /// How it plays: forward, or back and forth.
    public var playMode: LoopPlayMode

    /// A loop over `start..<end` played in `playMode`.
    public init(start: Int64, end: Int64, playMode: LoopPlayMode) {
        self.start = start
        self.end = end
        self.playMode = playMode
    }
}

/// Structured notes a parser keeps as it goes: which chunk at which offset, what it did with it.
public struct ParseTrace: Sendable, Hashable {
    /// One note.
    public struct Record: Sendable, Hashable, CustomStringConvertible {
        /// Where in the stream.
        public var offset: Int64
        /// The chunk or box, where there is one.
        public var chunk: FourCharCode?
        /// Its size, bytes.
        public var size: Int64?
        /// What the parser did with it.
        public var note: String

        /// `@offset 'chunk' size bytes: note`.
        public var description: String {
            var text = "@\(offset)"
            if let chunk { text += " '\(chunk)'" }
            if let size { text += " \(size) bytes" }
            return note.isEmpty ? text : text + ": " + note
        }
    }

    /// The notes, in stream order; at most ``limit``.
    public private(set) var records: [Record] = []
    /// Notes dropped once the limit was reached.
    public private(set) var droppedCount = 0
    /// The most notes kept, so a file of a million tiny chunks cannot grow the trace without bound.
    public static let limit = 4096

    /// An empty trace.
    public init() {}

    package mutating func append(offset: Int64, chunk: FourCharCode? = nil, size: Int64? = nil, _ note: String = "") {
        guard records.count < Self.limit else {
            droppedCount += 1
            return
        }
        records.append(Record(offset: offset, chunk: chunk, size: size, note: note))
    }

    /// Whether any note contains `text`.
    public func contains(_ text: String) -> Bool { records.contains { $0.note.contains(text) } }
}

extension Int64 {
    /// The product, or nil where a header's numbers would overflow it.
    package func multipliedOrNil(by other: Int64) -> Int64? {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? nil : product
    }
}

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
    /// The largest tag chunk that may hold cover art (AIFF's `ID3 `, WAV's `id3 `) read whole: the largest
    /// picture afkit carries (16 MiB) and its text.
    public var maximumPictureChunkBytes = 17 << 20
    /// The largest format chunk (`desc`, `fmt `, `COMM`); bigger ones are malformed.
    public var maximumFormatChunkBytes = 1 << 16
    /// Packets whose places a stream parser remembers as they pass (8 bytes each), so a seek back to one of them
    /// is exact where the container has no table (MPEG audio, ADTS, AC-3, Ogg): about 1.9 hours of MP3 by
    /// default; 0 remembers none (a server holding many live streams).
    public var maximumSeekIndexPackets = 1 << 18

    /// The defaults: generous for real files, bounded for hostile ones.
    public init() {}
}

/// Metadata a parser left unread, to keep its memory bounded or because it is broken: what, how much of it, where
/// it begins, and why.
public struct NotRead: Hashable, Sendable {
    /// What was left (all or part of), in words ("VORBIS_COMMENT block", "chapter track").
    public var what: String
    /// How much of it was left, in `unit`s.
    public var count: Int64
    /// What `count` counts ("bytes", "chapters").
    public var unit: String
    /// The byte offset where it begins in the file, where known.
    public var offset: Int64?
    /// Why, in words after the rest ("memory stays bounded", "it is broken").
    public var reason: String

    /// Metadata left unread to keep memory bounded.
    public init(what: String, count: Int64, unit: String, offset: Int64?) {
        self.init(what: what, count: count, unit: unit, offset: offset, reason: "memory stays bounded")
    }

    /// Metadata left unread, and why.
    public init(what: String, count: Int64, unit: String, offset: Int64?, reason: String) {
        self.what = what
        self.count = count
        self.unit = unit
        self.offset = offset
        self.reason = reason
    }
}

/// How an encoder spent a stream's bits, as its header states it.
public enum BitRateMode: Sendable, Hashable {
    /// One bit rate throughout (`headerBitRate`).
    case constant
    /// An average bit rate held over time (LAME's ABR), bits per second.
    case average(bitRate: Int)
    /// A constant quality: LAME's `-V` level (0 best, 9 smallest) where the header states it unambiguously.
    case variable(level: Int?)
}
