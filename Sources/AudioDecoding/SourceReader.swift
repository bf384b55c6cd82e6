import AudioCodecs
import AudioContainers
import AudioFormats

/// The one reader of decoded audio: any input afkit parses, as interleaved Float32 frames a block at a
/// time, with the priming, the decoder's own drop at the start and the remainder applied once: exactly
/// the source's valid frames. The converter, the validator and the loudness meter all read through it,
/// so they see the same frames; a change to how frames are counted starts here (the others are the
/// plan, `ConversionPlan`, and the feeder, AudioContainers'
/// `AudioFileStream.feed(size:chunkSize:passingOverUnneededBytes:read:_:)`).
///
/// Linear PCM, IMA4 and FLAC can also be read exactly as integers (``readLinearPCM(maximum:into:)``,
/// ``readDecodedIntegers(maximum:into:)``), which the converter's exact routes use.
public final class SourceReader {
    /// The file read.
    public let path: String
    /// The source's data format, as the parser reports it.
    public let format: StreamDescription
    /// Frames per second.
    public let sampleRate: Double
    /// Channels per frame.
    public let channels: Int
    /// Valid frames, where known in advance.
    public let frameCount: Int64?
    /// Text tags (title, artist, ...), as the file names them.
    public let metadata: [String: String]
    /// Markers and cue points, where the file has them.
    public let markers: [Marker]
    /// Loops, where the file has them.
    public private(set) var loops: [Loop] = []
    /// Chapters, where the file has them.
    public private(set) var chapters: [Chapter] = []
    /// The instrument (base note, gain, key and velocity range), where the file has one.
    public private(set) var instrument: Instrument?
    /// Comments with their times (AIFF `COMT`).
    public private(set) var comments: [Comment] = []
    /// Annotations (AIFF `ANNO`).
    public private(set) var annotations: [String] = []
    /// The codec configuration (an AAC AudioSpecificConfig or ES descriptor, an ALACSpecificConfig).
    public private(set) var magicCookie: [UInt8]?
    /// Which speaker each channel feeds, where the file says.
    public private(set) var channelLayout: ChannelLayout?
    /// The parsed file, for sources afkit parses itself (its packets can be copied untouched).
    public private(set) var audioFile: AudioFile?
    /// The bits of the source's samples: its PCM depth (32 for float), the depth a lossless codec names
    /// (Apple Lossless; FLAC's `STREAMINFO`, which names depths Apple's flags cannot, 8 or 12), or 16 for
    /// lossy codecs.
    public var bitDepth: Int {
        if format.formatID == .flac, let cookie = audioFile?.properties.magicCookie,
            let info = FLACStreamInfo(cookie: cookie)
        {
            return info.bitsPerSample
        }
        return format.isLinearPCM && format.formatFlags.contains(.isFloat) ? 32 : format.losslessBitDepth ?? 16
    }

    private enum Backend {
        case afkit(AudioFile, any AudioDecoder, nextPacket: Int64)
        case external(ExternalDecoder)
    }
    private var backend: Backend
    private var skip: Int64
    private var remaining: Int64
    /// The valid frame the next read gives (Apple's ExtAudioFileTell).
    public private(set) var position: Int64 = 0
    /// The source's priming: decoded frames before the first valid one.
    private var primingFrames: Int64 = 0
    /// After a seek through a codec with pre-roll: the decoded frame sought (counted from the first packet's
    /// first frame) and the frames decoded since the seek, until the first output places them.
    private var aligning: (target: Int64, produced: Int64)?
    private var pending: [Float] = []
    private var pendingStart = 0
    /// A run of packets read from the file, and their descriptions: storage reused run after run.
    private var packetBytes: [UInt8] = []
    private var packetDescriptions: [PacketDescription] = []
    /// Where a run of packets is decoded before its frames join `pending`.
    private var decodeRoom: [Float] = []
    /// Decoded integer frames not yet delivered (``readDecodedIntegers(maximum:into:)``), as bytes.
    private var integersPending: [UInt8] = []
    private var integersStart = 0

    /// Opens `path` with afkit's own parser and decodes it with `registry`'s decoder for its format.
    /// Where the registry has none, `fallback` (an engine that reads whole files, such as libsndfile for
    /// DWVW) is asked to decode the file afkit has parsed; where it has none either, the codec is named.
    /// With `hashingContent`, the file's content hash is taken in the same read that parses it
    /// (`AudioFile.contentHash`).
    public convenience init(
        path: String, registry: AudioCodecRegistry,
        fallback: ((String) throws -> ExternalDecoder)? = nil, hashingContent: Bool = false
    ) throws {
        // afkit's own parser decides what the file is, for every command alike: what it refuses is
        // refused here with the same words.
        try self.init(
            file: try AudioFile(path: path, hashingContent: hashingContent), registry: registry, fallback: fallback)
    }

    /// Reads a parsed `file` (of the path it was parsed from) as ``init(path:registry:fallback:hashingContent:)``
    /// does: `registry`'s decoder for its format, else `fallback`, else an error naming the codec.
    public convenience init(
        file: AudioFile, registry: AudioCodecRegistry, fallback: ((String) throws -> ExternalDecoder)? = nil
    ) throws {
        let path = file.path
        let format = file.decodingFormat
        if registry.canDecode(format.formatID) {
            try self.init(
                file: file, decoder: try registry.decoder(for: format, magicCookie: file.properties.magicCookie))
        } else if let fallback, let external = try? fallback(path) {
            try self.init(file: file, backend: .external(external))
        } else if !registry.hasEngines {
            let container = file.properties.fileType?.rawValue ?? "the file"
            throw AudioFileError.unsupportedDataFormat(
                "\(container): the audio is \(CodecDescriptor.spokenName(of: format.formatID)), which afkit's own decoders "
                    + "do not read: AudioCodecRegistry.standard, in the AudioEngines product (AudioFileKit links it), has the "
                    + "field's decoders", offset: file.properties.dataOffset)
        } else {
            let container = file.properties.fileType?.rawValue ?? "the file"
            throw AudioFileError.unsupportedDataFormat(
                "\(container): the audio is \(CodecDescriptor.spokenName(of: format.formatID)), which afkit does not decode; "
                    + AudioFileError.convertFirstAdvice, offset: file.properties.dataOffset)
        }
    }

    /// Reads the valid frames of a parsed `file` through `decoder` (made for the file's format and cookie).
    public convenience init(file: AudioFile, decoder: any AudioDecoder) throws {
        try self.init(file: file, backend: .afkit(file, decoder, nextPacket: 0))
    }

    /// Frames made by `frames` rather than read from one file (sounds joined or mixed): `format` says what they
    /// stand for (its rate and channels are theirs; its sample format decides dither as a file's would), `name` names
    /// them in messages, and the tags, chapters and layout are what the output is to carry.
    public init(
        composedAs name: String, format: StreamDescription, metadata: [String: String], chapters: [Chapter],
        channelLayout: ChannelLayout?, frames: ExternalDecoder
    ) {
        path = name
        self.format = format
        sampleRate = format.sampleRate
        channels = Int(format.channelsPerFrame)
        frameCount = frames.frameCount
        self.metadata = metadata
        markers = []
        self.chapters = chapters
        self.channelLayout = channelLayout
        backend = .external(frames)
        skip = 0
        remaining = frames.frameCount
    }

    private init(file: AudioFile, backend: Backend) throws {
        let summary = try AudioFileSummary(file.properties)
        path = file.path
        format = file.dataFormat
        sampleRate = format.sampleRate
        channels = Int(format.channelsPerFrame)
        frameCount = summary.frameCount
        metadata = file.properties.infoDictionary
        markers = file.properties.markers
        loops = file.properties.loops
        chapters = file.properties.chapters
        instrument = file.properties.instrument
        comments = file.properties.comments
        annotations = file.properties.annotations
        magicCookie = file.properties.magicCookie
        // afkit's AAC and ALAC decoders deliver WAV's order, whatever order the file's layout names.
        channelLayout =
            [.aac, .alac].contains(format.formatID) && channels > 2
            ? ChannelLayout.waveOrder(channels: channels) : file.properties.channelLayout
        audioFile = file
        self.backend = backend
        switch backend {
        case .afkit(let file, var decoder, let next):
            // A stream that records less priming than the decoder drops (ADTS and LOAS record none: every
            // decoded frame counts, as FFmpeg decodes them) has the decoder deliver those frames too.
            if summary.primingFrames < Int64(decoder.framesDroppedAtStart) {
                decoder.keepFramesDroppedAtStart()
                self.backend = .afkit(file, decoder, nextPacket: next)
            }
            // The priming still to drop from what the decoder outputs: an AAC decoder never outputs its
            // first packet's frames, so that much of the priming is gone already.
            skip = max(0, summary.primingFrames - Int64(decoder.framesDroppedAtStart))
            remaining = summary.frameCount
            primingFrames = summary.primingFrames
        case .external(let external):
            skip = 0
            remaining = external.frameCount
        }
    }

    /// Packets the decoder could not decode and replaced with silence so far (a damaged MP3 or AAC packet).
    public var concealedPackets: Int {
        if case .afkit(_, let decoder, _) = backend { return decoder.concealedPackets }
        return 0
    }

    /// The runs of packets in which the decoder concealed damage: first and last packet, and the first's offset.
    public private(set) var concealedRuns: [(first: Int64, last: Int64, offset: Int64?)] = []

    /// Where the concealed packets lie, for a person: "in packets 100-163 (from byte 8000)", the first five runs.
    public var concealedPlaces: String {
        let places = concealedRuns.prefix(5).map { run in
            (run.first == run.last ? "packet \(run.first)" : "packets \(run.first)-\(run.last)")
                + (run.offset.map { " (from byte \($0))" } ?? "")
        }
        guard !places.isEmpty else { return "" }
        return "in " + places.joined(separator: ", ")
            + (concealedRuns.count > 5 ? " and \(concealedRuns.count - 5) more" : "")
    }

    /// What a command says of packets the decoder replaced with silence, once the audio has been read: how many,
    /// and where.
    public var concealmentNote: String? {
        let count = concealedPackets
        guard count > 0 else { return nil }
        return "the source is damaged: \(count) packet\(count == 1 ? "" : "s") of its audio could not be decoded"
            + (concealedPlaces.isEmpty ? "" : " (\(concealedPlaces))")
            + "; silence stands in for \(count == 1 ? "it" : "them"), as players conceal damage"
    }

    /// What a command says of a source cut short or damaged, `done` naming what becomes of what it holds
    /// ("converted", "drawn"): the cut, each place audio was skipped (the first five, then how many more), and
    /// the metadata left unread.
    public func conditionNotes(whatIsHeld done: String) -> [String] {
        guard let properties = audioFile?.properties else { return [] }
        var notes: [String] = []
        // The whole packets a cut file holds are used; the user learns the source was cut.
        if properties.isTruncated {
            let place = properties.truncationOffset.map { " at byte \($0)" } ?? ""
            notes.append("the source is cut short (truncated)\(place): what it holds is \(done)")
        }
        for place in properties.damage.prefix(5) { notes.append("the source is damaged: \(place)") }
        if properties.damage.count > 5 {
            notes.append("the source is damaged in \(properties.damage.count - 5) more places (afkit info lists them)")
        }
        for left in properties.notRead {
            let place = left.offset.map { " at byte \($0)" } ?? ""
            notes.append(
                "\(left.count) \(left.unit) of the source's \(left.what)\(place) not read (\(left.reason))")
        }
        return notes
    }

    /// Passes over the next `count` valid frames (before any are read).
    public func skipFrames(_ count: Int64) {
        let passed = min(max(0, count), remaining)
        skip += passed
        remaining -= passed
        position += passed
    }

    /// Moves to valid frame `frame` (0 up to ``frameCount``) exactly, as ExtAudioFileSeek does: decoding
    /// restarts at the packet that covers the codec's pre-roll before it (Apple's roll distance, and Opus's
    /// 80 ms; a codec afkit does not name, from the first packet), and the frames before it are decoded and
    /// dropped. Where the codec has pre-roll, the frames the decoder gives are placed by where they end
    /// (the packets' frame counts): a decoder that gives nothing for its first packets after a reset is
    /// placed right.
    public func seek(toFrame frame: Int64) throws {
        guard case .afkit(let file, var decoder, _) = backend else {
            throw AudioFileError.illegalOperation("\(path): the engine that reads this file cannot seek")
        }
        let total = frameCount ?? 0
        guard frame >= 0, frame <= total else {
            throw AudioFileError.invalidPacket("\(path): frame \(frame) of \(total) does not exist", offset: nil)
        }
        let target = frame + primingFrames
        let packet = try self.packet(holding: target, in: file)
        let codec = CodecDescriptor.of(format.formatID)
        var first = packet
        if format.formatID != .lpcm {
            if codec == nil {
                first = 0
            } else if let codec {
                first = max(0, packet - Int64(codec.rollDistance))
                while first > 0, try start(of: first, in: file) > target - Int64(codec.preRollFrames) { first -= 1 }
            }
        }
        decoder.reset()
        backend = .afkit(file, decoder, nextPacket: first)
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        integersPending.removeAll(keepingCapacity: true)
        integersStart = 0
        remaining = total - frame
        position = frame
        if first == packet && codec.map({ $0.rollDistance == 0 && $0.preRollFrames == 0 }) ?? true {
            // Packets that stand alone: the frames before the target in its packet are dropped.
            skip = target - (try start(of: packet, in: file))
            aligning = nil
        } else {
            skip = 0
            aligning = (target, 0)
        }
    }

    /// The decoded frame (from the first packet's first) `packet` starts at.
    private func start(of packet: Int64, in file: AudioFile) throws -> Int64 {
        guard let frame = file.frame(ofPacket: min(packet, file.packetCount)) else {
            throw AudioFileError.illegalOperation("\(path): the packets' frames are not known: it cannot seek")
        }
        return frame
    }

    /// The packet holding decoded frame `frame` (the last packet, for the end).
    private func packet(holding frame: Int64, in file: AudioFile) throws -> Int64 {
        guard let found = file.packet(ofFrame: frame) else {
            throw AudioFileError.illegalOperation("\(path): the packets' frames are not known: it cannot seek")
        }
        return found.packet
    }

    /// Places the first frames decoded after a seek with pre-roll: `appended` frames came from packets up to
    /// `end` (exclusive), so they end at that packet's start; the frames before the target are dropped.
    private func align(appended: Int, endingBefore end: Int64, in file: AudioFile) throws {
        guard var state = aligning else { return }
        state.produced += Int64(appended)
        guard state.produced > 0 else {
            aligning = state
            return
        }
        let firstOutput = try start(of: end, in: file) - state.produced
        skip = max(0, state.target - firstOutput)
        aligning = nil
    }

    /// Appends up to `maximum` frames to `output`; returns how many (0 at the end).
    public func read(maximum: Int, into output: inout [Float]) throws -> Int {
        try deliver(maximum: maximum, from: &pending, start: &pendingStart, elementsPerFrame: channels, into: &output) {
            try refill(into: &$0)
        }
    }

    /// Hands every frame from where the reader stands to its end to `body`, a block of up to `maximum`
    /// interleaved frames at a time (the samples, and how many frames they hold).
    public func forEachBlock(
        maximum: Int = 16384, _ body: (UnsafeBufferPointer<Float>, Int) throws -> Void
    ) throws {
        var block: [Float] = []
        while true {
            block.removeAll(keepingCapacity: true)
            let frames = try read(maximum: maximum, into: &block)
            if frames == 0 { return }
            try block.withUnsafeBufferPointer { try body($0, frames) }
        }
    }

    /// Up to `maximum` valid frames from a buffer of decoded frames (`elementsPerFrame` elements each),
    /// read from `start` and refilled by `refill` when spent (`false` at the end): the frames still to be
    /// skipped are dropped, the rest appended to `output`. Returns the frames appended.
    private func deliver<Element>(
        maximum: Int, from buffer: inout [Element], start: inout Int, elementsPerFrame: Int,
        into output: inout [Element],
        refill: (inout [Element]) throws -> Bool
    ) throws -> Int {
        var delivered = 0
        while delivered < maximum && remaining > 0 {
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                guard try refill(&buffer) else { break }
                continue
            }
            let available = (buffer.count - start) / elementsPerFrame
            if skip > 0 {
                let dropped = Int(min(Int64(available), skip))
                start += dropped * elementsPerFrame
                skip -= Int64(dropped)
                continue
            }
            let take = Int(min(Int64(min(available, maximum - delivered)), remaining))
            output.append(contentsOf: buffer[start..<start + take * elementsPerFrame])
            start += take * elementsPerFrame
            delivered += take
            remaining -= Int64(take)
            position += Int64(take)
        }
        return delivered
    }

    /// The layout ``readLinearPCM(maximum:into:)`` delivers: the source's own, when it is linear PCM
    /// that afkit reads itself (`nil` otherwise).
    public var linearPCMLayout: PCMLayout? {
        guard case .afkit = backend, format.isLinearPCM else { return nil }
        return try? PCMLayout(format)
    }

    /// Replaces `bytes` with up to `maximum` of the source's valid frames exactly as the file stores them
    /// (in ``linearPCMLayout``); returns how many frames (0 at the end). Use it or ``read(maximum:into:)``
    /// on one reader, not both.
    public func readLinearPCM(maximum: Int, into bytes: inout [UInt8]) throws -> Int {
        guard case .afkit(let file, let decoder, var next) = backend, linearPCMLayout != nil, pending.isEmpty else {
            throw AudioFileError.illegalOperation("\(path): not linear PCM read as stored")
        }
        // Linear PCM has one frame per packet.
        next += skip
        skip = 0
        let count = min(Int64(maximum), remaining, file.packetCount - next)
        guard count > 0 else {
            bytes.removeAll(keepingCapacity: true)
            return 0
        }
        let read = try file.readPacketData(from: next, count: Int(count), into: &bytes)
        remaining -= Int64(read)
        position += Int64(read)
        backend = .afkit(file, decoder, nextPacket: next + Int64(read))
        return read
    }

    /// The integers the exact routes read: the stored linear PCM (``linearPCMLayout``), else an integer
    /// decoder's output (``decodedIntegerLayout``); `nil` for other sources.
    public var exactLayout: PCMLayout? { linearPCMLayout ?? decodedIntegerLayout }

    /// Replaces `bytes` with up to `maximum` valid frames in ``exactLayout``; returns how many (0 at the
    /// end). Use it or ``read(maximum:into:)`` on one reader, not both.
    public func readExact(maximum: Int, into bytes: inout [UInt8]) throws -> Int {
        linearPCMLayout != nil
            ? try readLinearPCM(maximum: maximum, into: &bytes)
            : try readDecodedIntegers(maximum: maximum, into: &bytes)
    }

    /// The layout ``readDecodedIntegers(maximum:into:)`` delivers where the source's decoder gives
    /// integers by nature (IMA4's 16 bits, FLAC's own depth), else `nil`.
    public var decodedIntegerLayout: PCMLayout? {
        guard case .afkit(_, let decoder, _) = backend, let integers = decoder as? any IntegerAudioDecoder,
            pending.isEmpty
        else { return nil }
        return integers.decodedLayout
    }

    /// Replaces `bytes` with up to `maximum` of the source's valid frames decoded to integers
    /// (``decodedIntegerLayout``); returns how many frames (0 at the end). Use it or
    /// ``read(maximum:into:)`` on one reader, not both.
    public func readDecodedIntegers(maximum: Int, into bytes: inout [UInt8]) throws -> Int {
        guard case .afkit(_, let anyDecoder, _) = backend, var decoder = anyDecoder as? any IntegerAudioDecoder else {
            throw AudioFileError.illegalOperation("\(path): its decoder does not give integers")
        }
        let frameBytes = channels * decoder.decodedLayout.width
        bytes.removeAll(keepingCapacity: true)
        return try deliver(
            maximum: maximum, from: &integersPending, start: &integersStart, elementsPerFrame: frameBytes,
            into: &bytes
        ) { buffer in
            let before = buffer.count
            let more = try decodeNextRun { raw, count, descriptions in
                let start = buffer.count
                buffer.append(contentsOf: repeatElement(0, count: count * decoder.maximumFramesPerPacket * frameBytes))
                let frames = try buffer.withUnsafeMutableBytes { output in
                    try decoder.decode(
                        raw, packetCount: count, descriptions: descriptions,
                        integersInto: UnsafeMutableRawBufferPointer(rebasing: output[start...]))
                }
                buffer.removeLast(buffer.count - start - frames * frameBytes)
                return decoder
            }
            if more, case .afkit(let file, _, let next) = backend {
                try align(appended: (buffer.count - before) / frameBytes, endingBefore: next, in: file)
            }
            return more
        }
    }

    /// A decoder's error placed in the file: decoders give, as the offset, where the failing packet starts in
    /// the bytes they were given (a run from packet `first`, described by `descriptions`, or of constant
    /// packets); it becomes the packet's number and its offset in the file. Without one, the run is named.
    private func located(
        _ error: AudioFileError, packets first: Int64, count: Int, in file: AudioFile,
        descriptions: [PacketDescription]? = nil
    ) -> AudioFileError {
        let base = try? file.packetDescription(first).startOffset
        if let relative = error.offset, let base {
            let bytesPerPacket = Int64(file.dataFormat.bytesPerPacket)
            let index =
                descriptions.map { $0.firstIndex { $0.startOffset == relative }.map(Int64.init) }
                ?? (bytesPerPacket > 0 ? relative / bytesPerPacket : nil)
            let name = index.map { "packet \(first + $0)" } ?? "packets from \(first)"
            return error.located(at: base + relative, context: "\(path): \(name)")
        }
        let range = count > 1 ? "packets \(first)-\(first + Int64(count) - 1)" : "packet \(first)"
        return error.located(at: base, context: "\(path): \(range)")
    }

    /// Decodes the next block into `pending`; `false` at the end of the input.
    private func refill(into pending: inout [Float]) throws -> Bool {
        switch backend {
        case .afkit(let file, var decoder, _):
            var appendedFrames = 0
            let more = try decodeNextRun { raw, count, descriptions in
                // Into room for the most a run can decode to (made once, reused), then only the frames made
                // are appended: a Vorbis run has room for 64 × 8192 frames and decodes to a tenth of that,
                // and zeroing the room for every run cost more than decoding.
                let channels = Int(decoder.sourceFormat.channelsPerFrame)
                let room = count * decoder.maximumFramesPerPacket * channels
                if decodeRoom.count < room { decodeRoom = [Float](repeating: 0, count: room) }
                let frames = try decodeRoom.withUnsafeMutableBufferPointer { output in
                    try decoder.decode(
                        raw, packetCount: count, descriptions: descriptions,
                        into: UnsafeMutableBufferPointer(rebasing: output[0..<room]))
                }
                pending.append(contentsOf: decodeRoom[0..<frames * channels])
                appendedFrames = frames
                return decoder
            }
            if more, case .afkit(_, _, let next) = backend {
                try align(appended: appendedFrames, endingBefore: next, in: file)
            }
            return more
        case .external(let external):
            let block = try external.readFloat(8192)
            pending.append(contentsOf: block)
            return !block.isEmpty
        }
    }

    /// Reads the next run of packets and hands it to `decode` (its bytes, packet count and, where packets
    /// vary, descriptions), which returns the decoder with its state after them; `false` at the end of
    /// the input. A run is about 64 KiB of constant packets (the decoded block stays in cache), or up to
    /// 64 varying ones. A decoder's error is placed in the file (``located(_:packets:count:in:descriptions:)``).
    private func decodeNextRun(
        _ decode: (UnsafeRawBufferPointer, Int, UnsafeBufferPointer<PacketDescription>?) throws -> any AudioDecoder
    ) throws -> Bool {
        guard case .afkit(let file, let decoder, let next) = backend else { return false }
        guard next < file.packetCount else { return false }
        let format = file.dataFormat
        // A run never crosses the end of the packets that hold valid frames: the packets after them (wholly
        // outside an edit list, or the remainder's) are decoded in runs of their own, only for a decoder that
        // lags, and one that will not decode is the end, as the edit list says, never a failed file.
        let needed = packetsHoldingValidFrames(file, decoder)
        func limited(_ count: Int) -> Int { next < needed ? Int(min(Int64(count), needed - next)) : count }
        let read: Int
        let updated: any AudioDecoder
        if format.hasConstantPackets {
            read = try file.readPacketData(
                from: next, count: limited(max(64, (64 << 10) / Int(format.bytesPerPacket))), into: &packetBytes)
            do {
                updated = try packetBytes.withUnsafeBytes { try decode($0, read, nil) }
            } catch let error as AudioFileError {
                if next >= needed { return false }
                throw located(error, packets: next, count: read, in: file)
            }
        } else {
            read = try file.readPackets(
                from: next, count: limited(decoder.packetsPerRun(atMost: 64)), into: &packetBytes,
                descriptions: &packetDescriptions)
            do {
                updated = try packetBytes.withUnsafeBytes { raw in
                    try packetDescriptions.withUnsafeBufferPointer { try decode(raw, read, $0) }
                }
            } catch let error as AudioFileError {
                if next >= needed { return false }
                throw located(error, packets: next, count: read, in: file, descriptions: packetDescriptions)
            }
        }
        if updated.concealedPackets > decoder.concealedPackets {
            // Where the decoder concealed damage: the run's packets and where they begin in the file.
            concealedRuns.append(
                (next, next + Int64(read) - 1, try? file.packetDescription(next).startOffset))
        }
        backend = .afkit(file, updated, nextPacket: next + Int64(read))
        return true
    }
}

extension SourceReader {
    /// The packets from the first that hold the file's valid frames (with the frames `decoder` drops at its
    /// start, which push its output later): all of them where the file states no valid count.
    func packetsHoldingValidFrames(_ file: AudioFile, _ decoder: any AudioDecoder) -> Int64 {
        guard let info = file.properties.packetTableInfo, info.validFrames > 0 else { return file.packetCount }
        let last = Int64(info.primingFrames) + info.validFrames - 1 + Int64(decoder.framesDroppedAtStart)
        guard let (packet, _) = file.packet(ofFrame: last) else { return file.packetCount }
        return min(file.packetCount, packet + 1)
    }
}

/// An engine that decodes a whole file afkit parses but has no packet decoder for (libsndfile for
/// DWVW in AIFF-C): its frame count, and interleaved Float32 frames a block at a time.
public struct ExternalDecoder {
    /// The frames the engine will deliver.
    public var frameCount: Int64
    /// Up to the given number of frames, interleaved; empty at the end.
    public var readFloat: (Int) throws -> [Float]

    /// An engine's frame count and reading function.
    public init(frameCount: Int64, readFloat: @escaping (Int) throws -> [Float]) {
        self.frameCount = frameCount
        self.readFloat = readFloat
    }
}
