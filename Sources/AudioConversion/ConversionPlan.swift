import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

/// Every decision of one conversion, worked out once from the source's description and the settings:
/// the output's container and data format, the route the frames take, what the float pipeline does to
/// them (cut, fades, gain, limiter), the encoder's settings, what the writer records, and the notes
/// on what was chosen that the user did not ask for. ``AudioConverter`` only carries it out.
///
/// The writers answer which formats their containers hold (`AudioFileWriter.check(_:in:)`) and the
/// encoders which rates and channels they take (`AudioCodecRegistry.encoderLimits(for:)`); the plan
/// composes their answers.
public struct ConversionPlan {
    /// How the frames travel from the source to the writer.
    public enum Route: Sendable, Equatable {
        /// The source's packets, untouched (AAC or Apple Lossless into another container).
        case copyPackets
        /// Linear PCM rewritten from the stored samples (or an ADPCM decoder's 16-bit ones), exactly.
        case exactPCM
        /// Stored integers into an integer encoder (Apple Lossless): every bit kept, whatever the depth.
        case integers
        /// Decoded to Float32, then cut and faded, mixed, resampled, gained and limited, and encoded.
        case float
    }

    /// Where the output goes and in what, as far as the settings decide before the source is opened.
    /// The command works it out while it checks its options, so a usage error comes before any work.
    public struct Destination: Sendable {
        /// The output's container (AIFF may still become AIFF-C for data plain AIFF cannot hold).
        public var fileType: FileType
        /// The data format asked for; `nil`: the source's sample format where the container holds it,
        /// else the container's default.
        public var dataFormat: DataFormatSpecifier?

        /// Whether integer PCM is asked for, which a source of more bits (or of floats, or compressed) is
        /// dithered to.
        public var mayDither: Bool {
            if case .linearPCM(_, false, _, _) = dataFormat?.kind { return true }
            return false
        }

        /// The destination of `output` under `settings`; throws ``ConversionUsageError`` for a name,
        /// container and data format that do not go together, saying what would fit.
        public init(output: String, settings: ConversionSettings) throws {
            fileType = try Self.fileType(for: output, settings: settings)
            var specifier = settings.dataFormat
            // A preset's AAC gives way to the MP3 an `.mp3` name needs (a `-d aac` the user gives stays, and is
            // refused there).
            if fileType == .mp3, specifier?.kind == .aac, settings.adaptsToContainer {
                specifier = DataFormatSpecifier(".mp3")
            }
            // A preset's Apple Lossless is FLAC in a FLAC file: lossless either way.
            if fileType == .flac, settings.adaptsToContainer, specifier?.kind == .alac {
                specifier = DataFormatSpecifier("flac")
            }
            // A preset's 16-bit PCM takes plain AIFF's byte order where `-f AIFF` asks for plain AIFF (an `.aif`
            // name alone becomes AIFF-C for it, as before).
            if settings.fileType == .aiff, settings.adaptsToContainer,
                case .linearPCM(let bits, false, false, true)? = specifier?.kind, bits > 8
            {
                specifier = DataFormatSpecifier("BEI\(bits)")
            }
            // `-d 0` is checked against the source, when the plan is made.
            if let specifier, specifier.kind != .copy { try Self.check(specifier, in: fileType) }
            dataFormat = specifier
        }

        /// The container an output gets: `-f`, else the name's (within what a preset allows), else the
        /// preset's first.
        static func fileType(for output: String, settings: ConversionSettings) throws -> FileType {
            let named = FileType(outputPath: output)
            func same(_ a: FileType, _ b: FileType) -> Bool {
                a == b || (a.isAIFF && b.isAIFF) || ([.wav, .rf64].contains(a) && [.wav, .rf64].contains(b))
            }
            let name = output.split(separator: "/").last.map(String.init) ?? output
            if let explicit = settings.fileType {
                if let named, !same(named, explicit) {
                    throw ConversionUsageError(
                        "-f \(explicit.afconvertCode) writes \(explicit.fileNameExtensions[0]) files, "
                            + "but the output is named '\(name)': name it \(explicit.fileNameExtensions.joined(separator: " or "))"
                    )
                }
                if let allowed = settings.allowedFileTypes, !allowed.contains(where: { same($0, explicit) }) {
                    throw ConversionUsageError(
                        "\(settings.name ?? "these settings") cannot write -f \(explicit.afconvertCode); "
                            + "it writes "
                            + allowed.flatMap { $0 == .wav ? [.wav, .rf64] : [$0] }.map(\.afconvertCode)
                            .joined(separator: ", "))
                }
                return explicit
            }
            if let allowed = settings.allowedFileTypes {
                guard let named else { return allowed[0] }
                guard allowed.contains(where: { same($0, named) }) else {
                    throw ConversionUsageError(
                        "\(settings.name ?? "these settings") cannot write '\(name)': name the output "
                            + allowed.map { $0.fileNameExtensions[0] }.joined(separator: ", "))
                }
                return named
            }
            guard let named else {
                var names: [String] = []
                for written in ContainerRegistry.written {
                    for suffix in written.writtenExtensions where !names.contains(suffix) { names.append(suffix) }
                }
                throw ConversionUsageError(
                    "cannot tell the output type from '\(name)'; give -f or name it "
                        + spokenList(names))
            }
            return named
        }

        /// The `-d` names `fileType` holds, as its writer and the checks of `-d` answer (afconvert's `-hf`).
        public static func dataFormats(in fileType: FileType) -> [String] {
            DataFormatSpecifier.names.filter { name in
                DataFormatSpecifier(name).map { (try? check($0, in: fileType)) != nil } ?? false
            }
        }

        /// Whether `fileType`'s writer holds `specifier`'s data (AIFF as AIFF-C, which an `.aif` name may
        /// become); a usage error in afconvert's spelling where it does not.
        public static func check(_ specifier: DataFormatSpecifier, in fileType: FileType) throws {
            if case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned) = specifier.kind,
                let advice = pcmAdvice(
                    fileType, bits: bits, isFloat: isFloat, isBigEndian: isBigEndian, isSigned: isSigned)
            {
                throw ConversionUsageError(advice)
            }
            guard !holds(specifier, in: fileType) else { return }
            // What fits, as the writer answers for each of the formats `-d` names (every PCM layout as one).
            var fits: [String] = []
            for candidate in DataFormatSpecifier.names.compactMap(DataFormatSpecifier.init)
            where holds(candidate, in: fileType) {
                var name = candidate.description
                if case .linearPCM = candidate.kind { name = "linear PCM" }
                if !fits.contains(name) { fits.append(name) }
            }
            if fits.isEmpty { fits = ["any format"] }
            throw ConversionUsageError(
                "\(fileType.afconvertCode) files cannot hold -d \(specifier.description): use \(spokenList(fits)), "
                    + "or a .caf output")
        }

        private static func holds(_ specifier: DataFormatSpecifier, in fileType: FileType) -> Bool {
            let format = specifier.streamDescription(sampleRate: 44100, channels: 2)
            return (try? AudioFileWriter.check(format, in: fileType == .aiff ? .aifc : fileType)) != nil
        }

        /// How to spell the linear PCM a container holds, where it cannot hold the layout asked for
        /// (`nil`: it can).
        private static func pcmAdvice(
            _ fileType: FileType, bits: UInt32, isFloat: Bool, isBigEndian: Bool,
            isSigned: Bool
        ) -> String? {
            let kind = isFloat ? "F" : "I"
            switch fileType {
            case .wav, .rf64:
                if isBigEndian && bits > 8 { return "WAV holds little-endian samples: use -d LE\(kind)\(bits)" }
                if bits == 8 && isSigned { return "WAV holds 8-bit samples unsigned: use -d UI8" }
            case .aiff, .aifc:
                if isFloat && !isBigEndian { return "AIFF-C holds big-endian floats: use -d BEF\(bits)" }
                if !isFloat && !isBigEndian && bits > 16 {
                    return "AIFF holds big-endian \(bits)-bit samples: use -d BEI\(bits)"
                }
                if bits == 8 && !isSigned { return "AIFF holds 8-bit samples signed: use -d I8" }
            case .caf:
                if bits == 8 && !isSigned { return "CAF holds 8-bit samples signed: use -d I8" }
            default: break
            }
            return nil
        }
    }

    /// The settings the plan was made from.
    public let settings: ConversionSettings
    /// The output's container.
    public private(set) var fileType: FileType
    /// The output's data format in afconvert's spelling.
    public let dataFormat: DataFormatSpecifier
    /// The format of the packets written.
    public let format: StreamDescription
    /// What the writer records besides the packets: metadata, provenance, markers and loops moved with
    /// the cut and the rate, the cookie, the channel layout and size estimates.
    public private(set) var writerOptions = AudioFileWriterOptions()
    /// What was chosen that the user did not ask for (a rate the codec cannot hold, ...).
    public private(set) var notes: [String] = []
    /// Each marker, loop and chapter of the source: carried, moved or dropped (what `convert -v` lists).
    public private(set) var timeline: [String] = []
    /// Source frames cut as silence from the start and from the end (`--trim-silence`).
    public private(set) var trimmedFrames: (leading: Int64, trailing: Int64)?
    /// The part of the source taken and what the float pipeline does to it; normalization sets its gain.
    var render = RenderPlan()
    /// The source's packets, when they are copied untouched.
    let copier: PacketCopier?
    /// What each round's encoder is made from (`nil` when packets are copied).
    let encoderSettings: EncoderSettings?
    /// The frames the output will hold, where the source's length is known.
    public private(set) var expectedFrameCount: Int64?
    /// The encoder's delay (or the copied packets' priming), for the packet-count estimate.
    private let primingFrames: Int
    /// The encoder the plan made, until a round takes it.
    private var nextEncoder: (any AudioEncoder)?
    /// The bits an integer encoder (Apple Lossless) keeps; `nil` for other encoders.
    private let integerBitDepth: Int?

    /// Plans the conversion of `source` to `destination` under `settings`.
    public init(source: SourceReader, destination: Destination, settings: ConversionSettings) throws {
        self.settings = settings
        fileType = destination.fileType
        guard
            var specifier = destination.dataFormat ?? Self.keptSampleFormat(of: source, in: fileType)
                ?? Self.containerDefault(fileType)
        else { throw ConversionUsageError("no data format for \(fileType.afconvertCode) files") }
        let copyAsked = specifier.kind == .copy
        if copyAsked { specifier = try Self.sourceFormat(of: source, in: fileType) }
        dataFormat = specifier
        let processes =
            settings.loudness != nil || settings.silenceThreshold != nil || settings.mixMatrix != nil
            || settings.channelMap != nil || settings.channelLayout != nil || !settings.edits.isEmpty
        // AAC is copied where nothing asks it changed (re-encoding loses quality: a second generation);
        // Apple Lossless always (re-encoding gains nothing, and decoding a 32-bit stream to Float would lose
        // its lowest bits); either where `-d 0` asks.
        let sameCodec =
            (specifier.kind == .aac && source.format.formatID == .aac)
            || (specifier.kind == .alac && source.format.formatID == .alac)
        let reencodingAsked = settings.bitRate != nil || settings.quality != nil || settings.strategy != nil
        let untouched =
            settings.sampleRate == nil && settings.channels == nil && specifier.sampleRate == nil
            && settings.maximumSeconds == nil && !processes
            && source.sampleRate <= settings.maximumSampleRate ?? .infinity
            && source.channels <= settings.maximumChannels ?? Int.max
        let copiesCodec = sameCodec && (specifier.kind == .alac || !reencodingAsked)
        // An ADPCM or G.711 source is written again in its format only where a change (a cut, a rate) asks for an
        // encode anyway: with nothing to change, `-d 0` would be a second generation of loss for nothing.
        if copyAsked && untouched && !sameCodec && source.format.formatID != .lpcm {
            throw ConversionUsageError(
                "-d 0 copies nothing from \(CodecDescriptor.spokenName(of: source.format.formatID)): with nothing "
                    + "to change it would only encode the sound again; give -d \(specifier.description) for that, or "
                    + "-d 0 with the change (a cut, a rate, channels) to keep the format")
        }
        // The packets are copyable where afkit parsed them as the codec's own (LOAS frames are LATM) and
        // the format names its channels (an ADTS header's configuration 0 leaves them to the payload).
        let copyable =
            source.audioFile.map { $0.decodingFormat == $0.dataFormat } ?? false && source.format.channelsPerFrame > 0
        if copyAsked && sameCodec && !(untouched && copyable) {
            throw ConversionUsageError(
                copyable
                    ? "-d 0 copies the source's packets: it cannot also change the rate, channels, length or "
                        + "loudness (give -d \(specifier.description) to encode again)"
                    : "-d 0: the source's packets are not \(specifier.description) packets to copy (LATM framing); "
                        + "give -d \(specifier.description) to encode them again")
        }
        if copiesCodec, untouched, copyable, let file = source.audioFile {
            let copier = try PacketCopier(file)
            self.copier = copier
            encoderSettings = nil
            nextEncoder = nil
            integerBitDepth = nil
            format = copier.destinationFormat
            writerOptions.magicCookie = copier.magicCookie
            primingFrames = copier.primingFrames
        } else {
            copier = nil
            let (settings, fitted) = try Self.encoderSettings(
                specifier, fileType: fileType, source: source, settings: settings)
            var notes = fitted
            if let note = Self.secondGenerationNote(source: source.format, destination: settings.format) {
                notes.append(note)
            }
            notes += Self.unusedCodecOptions(settings)
            self.notes = notes
            encoderSettings = settings
            // The encoder made here says what it makes (ALAC's depth, AAC's packets) and its cookie, and
            // writes the first round.
            let encoder: any AudioEncoder
            do {
                encoder = try AudioConverter.registry.encoder(settings)
            } catch let error as EncoderSettingsError {
                // What the codec cannot take is the user's to change, before anything is read.
                throw ConversionUsageError(error.description)
            }
            nextEncoder = encoder
            integerBitDepth = (encoder as? any IntegerSampleEncoder)?.integerBitDepth
            format = encoder.destinationFormat
            writerOptions.magicCookie = fileType == .mp3 ? nil : encoder.magicCookie
            primingFrames = encoder.primingFrames
        }
        notes += source.conditionNotes(whatIsHeld: "converted")
        if fileType == .aiff && settings.fileType == nil && !AIFF.plainAIFFHolds(format) {
            // A `.aif` name with data plain AIFF cannot hold (little-endian, float, IMA4, G.711): AIFF-C.
            fileType = .aifc
        }
        if format.sampleRate != source.sampleRate {
            // A ratio no resampler takes is refused before anything is sized by it.
            try ResamplerChoice.checkRatio(from: source.sampleRate, to: format.sampleRate)
        }
        writerOptions.channelLayout = Self.channelLayout(for: format, source: source)
        // A channel map is the matrix that takes each output's one source channel (none: silence).
        if let missing = settings.channelMap?.first(where: { $0 >= source.channels }) {
            throw ConversionUsageError(
                "-m names source channel \(missing); the source has \(source.channels) (0 to \(source.channels - 1))")
        }
        let channelMapMatrix = settings.channelMap?.map { chosen in
            (0..<source.channels).map { $0 == chosen ? Float(1) : 0 }
        }
        if let matrix = channelMapMatrix ?? settings.mixMatrix {
            guard matrix.allSatisfy({ $0.count == source.channels }), matrix.count == Int(format.channelsPerFrame)
            else {
                throw ConversionUsageError(
                    "the mix has \(matrix.count) rows of \(matrix.first?.count ?? 0) gains; the source has "
                        + "\(source.channels) channels: give one gain per source channel in each row")
            }
            render.mixMatrix = matrix
            writerOptions.channelLayout = nil
        }
        if let layout = settings.channelLayout { try apply(layout, source: source) }
    }

    /// `-l`: the layout recorded, where the container records one and the codec leaves the order free; the
    /// channels reordered where the source names the same speakers in another order.
    private mutating func apply(_ layout: ChannelLayout, source: SourceReader) throws {
        let channels = Int(format.channelsPerFrame)
        let name = layout.spokenName
        guard layout.channelCount == channels else {
            throw ConversionUsageError(
                "-l \(name) has \(layout.channelCount) channels; the output has \(channels) (give -c "
                    + "\(layout.channelCount) to mix to it)")
        }
        guard !(CodecDescriptor.of(format.formatID)?.fixesChannelOrder ?? false) else {
            throw ConversionUsageError(
                "-l: \(CodecDescriptor.spokenName(of: format.formatID)) fixes its channels' order itself; give -l with PCM or "
                    + "IMA4 in CAF or WAV")
        }
        switch fileType {
        case .caf: writerOptions.channelLayout = layout
        case .wav, .rf64:
            guard let mask = layout.waveChannelMask else {
                throw ConversionUsageError(
                    "-l \(name): WAV keeps its speakers in one fixed order and this layout is not in it; write CAF, "
                        + "or name a layout in WAV's order (such as MPEG_5_1_A)")
            }
            writerOptions.channelLayout = ChannelLayout(waveChannelMask: mask)
        default:
            throw ConversionUsageError(
                "-l: \(fileType.name) files record no channel layout; write CAF or WAV")
        }
        // The source's speakers in another order are moved to the named order.
        guard render.mixMatrix == nil, source.channels == channels, let from = source.channelLayout?.labels,
            let to = layout.labels, from != to
        else { return }
        guard from.sorted() == to.sorted(), Set(from).count == from.count else {
            notes.append(
                "the source's layout, \(source.channelLayout?.spokenName ?? ""), is relabelled \(name): its speakers "
                    + "are not the same, so the channels keep their order")
            return
        }
        render.mixMatrix = to.map { label in
            from.map { $0 == label ? Float(1) : 0 }
        }
        notes.append(
            "the channels are reordered from the source's \(source.channelLayout?.spokenName ?? "") to \(name)")
    }

    /// The route the frames take: decided by what the source stores, what is asked of the samples and
    /// what the output holds.
    public func route(for source: SourceReader) -> Route {
        if copier != nil { return .copyPackets }
        let keepsFrames =
            render.keepsSamples && format.sampleRate == source.sampleRate
            && source.channels == Int(format.channelsPerFrame)
        guard keepsFrames, let from = source.exactLayout else { return .float }
        if format.isLinearPCM, let to = try? PCMLayout(format), PCM.transcodesExactly(from: from, to: to) {
            return .exactPCM
        }
        if !from.isFloat, let integerBitDepth, from.bits <= integerBitDepth { return .integers }
        return .float
    }

    /// The encoder for a round of writing: the one the plan made for the first, a fresh one for each
    /// further round; `nil` when packets are copied.
    mutating func takeEncoder() throws -> (any AudioEncoder)? {
        defer { nextEncoder = nil }
        return try nextEncoder ?? encoderSettings.map { try AudioConverter.registry.encoder($0) }
    }

    /// Sets what is taken of the source (a silence cut found by `cut`, the duration limit) and what the
    /// writer records, from the source's description.
    mutating func take(from source: SourceReader, input: String, cut: SilenceCut?) throws {
        if let cut {
            render.start = cut.start
            render.count = cut.count
            render.fadeIn = cut.fadeIn
            render.fadeOut = cut.fadeOut
            trimmedFrames = (cut.start, cut.total - cut.start - cut.count)
        }
        try applyEdits(settings.edits, to: source, input: input)
        let taken = render.count ?? source.frameCount
        // The limit holds for the output: the silence padded counts (at the source's rate).
        let padded = Int64(
            (Double(render.padStart + render.padEnd) * source.sampleRate / format.sampleRate).rounded(.up))
        if let limit = settings.maximumSeconds, padded > 0, Double(padded) >= limit * source.sampleRate {
            throw ConversionUsageError(
                "--pad adds \(shortDecimal(Double(padded) / source.sampleRate)) s, as long as or longer than the "
                    + "\(shortDecimal(limit)) s limit")
        }
        if let allowed = try Self.frameLimit(
            frames: taken.map { $0 + padded }, rate: source.sampleRate, input: input, settings: settings)
        {
            render.count = allowed - padded
            // A fade-out asked for ends the part kept; a silence cut's, at the end cut away, goes.
            render.fadeOut =
                settings.edits.fadeOut.map { Int(min($0.frames(at: source.sampleRate), allowed - padded)) } ?? 0
            notes.append(
                "--trim: cut to \(shortDecimal(settings.maximumSeconds ?? 0)) s, the limit of "
                    + "\(settings.limitName ?? settings.name ?? "the settings") (\(taken.map { shortDecimal(Double($0) / source.sampleRate) } ?? "?") s taken "
                    + "from the source)")
        }
        var options = writerOptions
        options.metadata =
            settings.keepsMetadata ? source.metadata.filter { MetadataKeys.carried.contains($0.key) } : [:]
        if let note = settings.encodingNote { options.metadata["encoding application"] = note }
        let scale = format.sampleRate / source.sampleRate
        if let frames = render.count ?? source.frameCount {
            // The pipeline's own count: the frames taken from the source, at the output's rate, and the padding.
            expectedFrameCount =
                copier != nil
                ? frames : Int64(saturating: Double(frames) * scale) + render.padStart + render.padEnd
        }
        if let provenance = settings.provenance {
            options.metadata[MetadataKeys.source] = provenance
            if let expectedFrameCount { options.metadata[MetadataKeys.frames] = String(expectedFrameCount) }
        }
        carryTimeline(of: source, scale: scale, into: &options)
        // Last, as it asks whether the cover fits beside the rest (Ogg Opus's one-page comment header).
        if settings.keepsMetadata, let file = source.audioFile { carryFrontCover(of: file, into: &options) }
        let priming = Int64(primingFrames)
        if let frames = render.count ?? source.frameCount {
            let outputFrames = Double(frames) * scale
            options.estimatedDataByteCount = Int64(saturating: outputFrames * Double(max(format.bytesPerFrame, 2)))
            if format.framesPerPacket > 0 {
                options.estimatedPacketCount = Int64(saturating: outputFrames / Double(format.framesPerPacket))
                    .saturatingAdd(2 + priming / Int64(format.framesPerPacket))
            }
        }
        writerOptions = options
    }

    /// Markers, loops, chapters and the instrument go where the container holds them, moved with any cut and to
    /// the output's rate, and kept within its frames; a loop the cut shortens or removes, and what an output
    /// cannot hold, is said in a note; ``timeline`` lists each one carried, moved or dropped (`convert -v`).
    mutating func carryTimeline(of source: SourceReader, scale: Double, into options: inout AudioFileWriterOptions) {
        // Positions are judged in the part taken (at the output's rate), then moved past the silence padded
        // before it: what the cut removed stays removed, however much padding comes in its place.
        let end =
            (render.count ?? source.frameCount).map { Int64(saturating: (Double($0) * scale).rounded()) } ?? Int64.max
        let start = render.start
        let container = fileType.descriptor.name
        let padding = render.padStart
        func moved(_ frame: Int64) -> Int64 { Int64(saturating: (Double(frame - start) * scale).rounded()) }
        func span(_ loop: Loop) -> String { "\(loop.start)-\(loop.end)" }
        let keeps = fileType.descriptor.keeps
        let holdsMarkers = keeps.markers
        var markers: [Marker] = []
        for marker in source.markers {
            var carried = marker
            carried.framePosition = moved(marker.framePosition)
            let name = marker.name.isEmpty ? "marker \(marker.id)" : "marker '\(marker.name)'"
            let inside = (0...end).contains(carried.framePosition)
            carried.framePosition = carried.framePosition.saturatingAdd(padding)
            if !inside {
                timeline.append("\(name) at frame \(marker.framePosition): outside the audio kept, dropped")
            } else {
                markers.append(carried)
                timeline.append(
                    "\(name) at frame \(marker.framePosition)"
                        + (carried.framePosition == marker.framePosition ? "" : " moved to \(carried.framePosition)")
                        + (holdsMarkers ? "" : ": not carried"))
            }
        }
        if markers.count < source.markers.count {
            let left = source.markers.count - markers.count
            notes.append(
                "\(left) marker\(left == 1 ? " lies" : "s lie") outside the audio kept and \(left == 1 ? "is" : "are") dropped"
            )
        }
        var loops: [Loop] = []
        for (index, loop) in source.loops.enumerated() {
            let whole = Loop(start: moved(loop.start), end: moved(loop.end), playMode: loop.playMode)
            let kept = Loop(start: max(0, whole.start), end: min(whole.end, end), playMode: loop.playMode)
            let name = "loop \(index + 1) (source frames \(span(loop)))"
            if kept.end <= kept.start {
                notes.append(
                    render.count == nil
                        ? "\(name) lies past the end of the audio (\(end) frames) and is dropped"
                        : "\(name) lies outside the audio kept and is dropped")
                timeline.append("\(name): outside the audio kept, dropped")
                continue
            }
            if kept != whole {
                notes.append(
                    render.count == nil && render.start == 0
                        ? "\(name) runs past the end of the audio: it ends at frame \(kept.end + padding) in the output"
                        : "the cut shortens \(name) to output frames \(kept.start + padding)-\(kept.end + padding)")
            }
            let held = loops.count < keeps.loops
            let placed = Loop(
                start: kept.start.saturatingAdd(padding), end: kept.end.saturatingAdd(padding), playMode: loop.playMode)
            loops.append(placed)
            timeline.append("\(name)" + (placed == loop ? "" : " now \(span(placed))") + (held ? "" : ": not carried"))
        }
        let heldLoops = min(loops.count, keeps.loops)
        // Chapters move with the cut (one that began before it starts at 0), each ending where the next begins and
        // the last at the end; where the output holds markers and no chapters, they become markers.
        let rate = source.sampleRate
        let seconds = Double(start) / rate
        let length = (render.count ?? source.frameCount).map { Double($0) / rate }
        var chapters: [Chapter] = []
        for (index, chapter) in source.chapters.enumerated() {
            let shifted = chapter.startTime - seconds
            let next = index + 1 < source.chapters.count ? source.chapters[index + 1].startTime - seconds : nil
            let ending = [chapter.endTime.map { $0 - seconds }, next, length].compactMap { $0 }.min()
            let name = "chapter '\(chapter.title)' at \(shortDecimal(chapter.startTime)) s"
            if let ending, ending <= max(0, shifted) || length.map({ shifted >= $0 }) == true {
                timeline.append("\(name): outside the audio kept, dropped")
                continue
            }
            // Past the silence padded before the audio.
            let padded = Double(padding) / format.sampleRate
            // Past the most the output holds: not carried (said below, with how many).
            let held = keeps.chapters == 0 || chapters.count < keeps.chapters
            chapters.append(
                Chapter(startTime: max(0, shifted) + padded, endTime: ending.map { $0 + padded }, title: chapter.title))
            timeline.append(
                name + (seconds == 0 && padded == 0 ? "" : " moved to \(shortDecimal(max(0, shifted) + padded)) s")
                    + (held ? "" : ": not carried"))
        }
        if keeps.chapters > 0 {
            if chapters.count > keeps.chapters {
                notes.append(
                    "\(container) holds \(keeps.chapters) chapters: the source's first \(keeps.chapters) are carried, "
                        + "\(chapters.count - keeps.chapters) more are not")
                chapters.removeLast(chapters.count - keeps.chapters)
            }
            options.chapters = chapters
        } else if holdsMarkers && !chapters.isEmpty {
            let firstID = (markers.map(\.id).max() ?? 0) + 1
            markers += chapters.enumerated().map { index, chapter in
                Marker(
                    id: firstID + index, framePosition: Int64((chapter.startTime * format.sampleRate).rounded()),
                    name: chapter.title)
            }
            notes.append("\(container) holds no chapters: the source's \(chapters.count) become markers")
        } else if !chapters.isEmpty {
            notes.append(
                "\(container) holds no chapters: the source's \(chapters.count) chapter\(chapters.count == 1 ? " is" : "s are") not carried"
            )
        }
        if holdsMarkers {
            options.markers = markers
            options.instrument = source.instrument
            options.comments = source.comments
            options.annotations = source.annotations
        } else if !markers.isEmpty {
            notes.append(
                "\(container) holds no markers: the source's \(markers.count) marker"
                    + "\(markers.count == 1 ? " is" : "s are") not carried")
        }
        options.loops = Array(loops.prefix(heldLoops))
        if loops.count > heldLoops {
            let left = loops.count - heldLoops
            let holds = ["no loops", "one loop", "two loops"][min(heldLoops, 2)]
            notes.append(
                "\(container) holds \(holds): the source's \(heldLoops == 0 ? "" : "other ")\(left) loop"
                    + "\(left == 1 ? " is" : "s are") not carried")
        }
    }

    /// The edits in the render plan: the part of the source taken (checked against its length), the fades in
    /// its frames, the padding at the output's rate, the gain.
    mutating func applyEdits(_ edits: Edits, to source: SourceReader, input: String) throws {
        guard !edits.isEmpty else { return }
        let rate = source.sampleRate
        if edits.cuts {
            guard settings.silenceThreshold == nil else {
                throw ConversionUsageError(
                    "--trim-silence finds its own cut: give it or --start/--end/--duration, not both")
            }
            let start = edits.start?.frames(at: rate) ?? 0
            if let total = source.frameCount, start >= total {
                throw ConversionUsageError(
                    "--start \(edits.start?.description ?? "0") is past the end of '\(input)' (\(total) frames, "
                        + "\(shortDecimal((Double(total) / rate * 1000).rounded() / 1000)) s)")
            }
            var end = edits.end.map { $0.frames(at: rate) } ?? edits.duration.map { start + $0.frames(at: rate) }
            if let total = source.frameCount {
                if let asked = end, asked > total {
                    notes.append(
                        "the cut asked to end at \(shortDecimal(Double(asked) / rate)) s, past the source's "
                            + "\(shortDecimal(Double(total) / rate)) s: it goes to the end")
                }
                end = min(end ?? total, total)
            }
            if let end, end <= start {
                throw ConversionUsageError("the cut ends at or before it starts (--end or --duration)")
            }
            render.start = start
            render.count = end.map { $0 - start }
        }
        if edits.fadeIn != nil || edits.fadeOut != nil {
            let taken = render.count ?? source.frameCount.map { $0 - render.start }
            guard let taken else {
                throw ConversionUsageError("--fade-out needs the source's length, which '\(input)' does not state")
            }
            render.count = taken
            // SoX's fades: a fade longer than the sound keeps its slope (the sound ends short of full level), and
            // a fade-in and a fade-out that overlap are refused.
            let fadeIn = edits.fadeIn.map { $0.frames(at: rate) } ?? 0
            let fadeOut = edits.fadeOut.map { $0.frames(at: rate) } ?? 0
            if fadeIn > 0, fadeOut > 0, fadeIn + fadeOut > taken {
                throw ConversionUsageError(
                    "--fade-in and --fade-out overlap: together \(shortDecimal(Double(fadeIn + fadeOut) / rate)) s, the "
                        + "sound kept \(shortDecimal(Double(taken) / rate)) s")
            }
            for (name, length) in [("--fade-in", fadeIn), ("--fade-out", fadeOut)] where length > taken {
                let level = edits.fadeShape.gain((Double(taken) - 0.5) / Double(length))
                notes.append(
                    "\(name) \(shortDecimal(Double(length) / rate)) s is longer than the \(shortDecimal(Double(taken) / rate)) s "
                        + "kept: its slope is kept, so the sound \(name == "--fade-in" ? "ends" : "starts") at "
                        + "\(shortDecimal(level * 100)) % of its level, as SoX fades")
            }
            render.fadeIn = Int(fadeIn)
            render.fadeOut = Int(fadeOut)
            render.fadeShape = edits.fadeShape
        }
        // Padding frames of the source's count become the output's at its rate.
        let scale = format.sampleRate / rate
        func outputFrames(_ time: EditTime?) -> Int64 {
            switch time {
            case .seconds(let seconds)?: Int64((seconds * format.sampleRate).rounded())
            case .frames(let frames)?: Int64((Double(frames) * scale).rounded())
            case nil: 0
            }
        }
        render.padStart = outputFrames(edits.padStart)
        render.padEnd = outputFrames(edits.padEnd)
        if let gain = edits.gain {
            guard settings.loudness == nil else {
                throw ConversionUsageError("--loudness sets the gain itself: give it or --gain, not both")
            }
            render.gain = gain
        }
    }

    // MARK: - Decisions

    /// With no `-d`, a linear PCM source keeps its sample format (24-bit stays 24-bit, float stays float,
    /// as SoX does) in the container's byte order (CAF: the source's), instead of becoming 16-bit; a
    /// lossless source (Apple Lossless, FLAC) becomes integers of its own depth.
    /// Other sources (lossy, or PCM the container cannot hold) get the container's default.
    static func keptSampleFormat(of source: SourceReader, in fileType: FileType) -> DataFormatSpecifier? {
        let format = source.format
        guard [.caf, .wav, .rf64, .aiff, .aifc].contains(fileType) else { return nil }
        let isFloat = format.isLinearPCM && format.formatFlags.contains(.isFloat)
        guard isFloat || format.losslessBitDepth != nil else { return nil }
        let depth = UInt32(format.losslessBitDepth ?? 32)
        let bits = isFloat ? (format.bitsPerChannel > 32 ? 64 : 32) : min(32, (depth + 7) / 8 * 8)
        if bits == 8 { return DataFormatSpecifier(fileType == .wav || fileType == .rf64 ? "UI8" : "I8") }
        let bigEndian =
            switch fileType {
            case .aiff, .aifc: true
            case .wav, .rf64: false
            // CAF keeps a PCM source's order (a codec's flags say other things: little-endian).
            default: format.isLinearPCM && format.formatFlags.contains(.isBigEndian)
            }
        return DataFormatSpecifier("\(bigEndian ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)")
    }

    /// `-d 0`: the source's own format where the output can hold it: linear PCM in its layout (the
    /// container's byte order: AIFF's big-endian, WAV's little-endian, CAF the source's), AAC and Apple
    /// Lossless (their packets are copied). Anything else is a usage error that says what to give.
    static func sourceFormat(of source: SourceReader, in fileType: FileType) throws -> DataFormatSpecifier {
        let format = source.format
        var name: String?
        switch format.formatID {
        case .aac: name = "aac"
        case .alac: name = "alac"
        // Encoded again (a cut, a new rate) in the source's own format.
        case .ima4: name = "ima4"
        case .ulaw: name = "ulaw"
        case .alaw: name = "alaw"
        case .imaADPCMWAVE: name = "ima-adpcm"
        case .lpcm:
            let isFloat = format.formatFlags.contains(.isFloat)
            let bits = (format.bitsPerChannel + 7) / 8 * 8
            if bits == 8 && !isFloat {
                name = [.wav, .rf64].contains(fileType) ? "UI8" : "I8"
            } else {
                let bigEndian =
                    switch fileType {
                    case .aiff, .aifc: true
                    case .wav, .rf64: false
                    default: format.formatFlags.contains(.isBigEndian)
                    }
                name = "\(bigEndian ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)"
            }
        default: name = nil
        }
        guard let name, let specifier = DataFormatSpecifier(name) else {
            throw ConversionUsageError(
                "-d 0 keeps linear PCM, IMA4, IMA ADPCM, µ-law and A-law and copies AAC and Apple Lossless packets; "
                    + "the source is "
                    + "\(CodecDescriptor.spokenName(of: format.formatID)): give a data format")
        }
        try Destination.check(specifier, in: fileType)
        return specifier
    }

    /// Notes for afconvert's codec options the output's format has no use for: said, never silently ignored.
    static func unusedCodecOptions(_ settings: EncoderSettings) -> [String] {
        let takes = CodecDescriptor.of(settings.format.formatID)?.options ?? []
        let given: [(CodecOptions, Bool)] = [
            (.bitRate, settings.bitRate != nil), (.quality, settings.quality != nil),
            (.strategy, settings.strategy != nil),
        ]
        return given.filter { $0.1 && !takes.contains($0.0) }.map { option, _ in
            let codecs = spokenList(AudioConverter.registry.encodedCodecs(taking: option), conjunction: "and")
            let output = CodecDescriptor.spokenName(of: settings.format.formatID)
            return "\(option.flags.joined()) applies to \(codecs); the output is \(output): not used"
        }
    }

    /// The note a lossy source encoded again with a lossy codec gets (`nil` otherwise).
    static func secondGenerationNote(source: StreamDescription, destination: StreamDescription) -> String? {
        guard !CodecDescriptor.isLossless(source.formatID), !CodecDescriptor.isLossless(destination.formatID) else {
            return nil
        }
        return "the \(CodecDescriptor.spokenName(of: source.formatID)) source is decoded and encoded again as "
            + "\(CodecDescriptor.spokenName(of: destination.formatID)): a second generation of loss"
    }

    /// What a container gets when neither the settings nor the source decide: AAC for MPEG-4 and ADTS,
    /// MP3 for `.mp3`, FLAC for `.flac`, Opus for Ogg, 16-bit PCM in the container's byte order otherwise.
    static func containerDefault(_ fileType: FileType) -> DataFormatSpecifier? {
        switch fileType {
        case .m4a, .mp4, .adts: DataFormatSpecifier("aac")
        case .mp3: DataFormatSpecifier(".mp3")
        case .flac: DataFormatSpecifier("flac")
        case .ogg: DataFormatSpecifier("opus")
        case .aiff, .aifc: DataFormatSpecifier("BEI16")
        default: DataFormatSpecifier("LEI16")
        }
    }

    /// The encoder's settings: the rate and channels fitted to what the encoder and the container take
    /// (with a note for each change), the dither seed, the codec options.
    private static func encoderSettings(
        _ specifier: DataFormatSpecifier, fileType: FileType, source: SourceReader,
        settings: ConversionSettings
    ) throws -> (EncoderSettings, [String]) {
        var notes: [String] = []
        var rate = specifier.sampleRate ?? settings.sampleRate ?? source.sampleRate
        if specifier.sampleRate == nil && settings.sampleRate == nil, let most = settings.maximumSampleRate, rate > most
        {
            notes.append(
                "\(settings.name ?? "the settings") keep\(settings.name == nil ? "" : "s") rates up to "
                    + "\(formatSampleRate(most)) Hz: resampled from \(formatSampleRate(rate)) Hz")
            rate = most
        }
        var channels = settings.channels ?? source.channels
        if settings.channels == nil, let most = settings.maximumChannels, channels > most {
            notes.append(
                "\(settings.name ?? "the settings") keep\(settings.name == nil ? "" : "s") \(most) channels at most: "
                    + "mixed down from \(channels) (-c keeps more)")
            channels = most
        }
        guard channels >= 1 && channels <= 64 else {
            throw AudioFileError.unsupportedDataFormat("\(channels) output channels: afkit writes 1 to 64", offset: nil)
        }
        let formatID = specifier.streamDescription(sampleRate: 44100, channels: 1).formatID
        let codec = CodecDescriptor.of(formatID)
        if let limits = AudioConverter.registry.encoderLimits(for: formatID) {
            let name = codec?.name ?? "'\(formatID)'"
            let nearest = limits.sampleRate(nearest: rate)
            if nearest != rate {
                notes.append(
                    "\(name) cannot hold \(formatSampleRate(rate)) Hz: resampled to \(formatSampleRate(nearest)) Hz")
                rate = nearest
            }
            if channels > limits.maximumChannels, settings.channels == nil || formatID == .mpegLayer3 {
                notes.append("\(name) holds \(limits.maximumChannels) channels at most: mixed down from \(channels)")
                channels = limits.maximumChannels
            }
        } else {
            // WAV, RF64 and MPEG-4 store whole rates: a rate with a fraction (8912.75 Hz) is resampled to
            // the nearest whole one, which keeps the duration.
            let wholeRatesOnly: Set<FileType> = [.wav, .rf64, .m4a, .mp4]
            if wholeRatesOnly.contains(fileType), rate != rate.rounded(), rate.isFinite {
                let nearest = max(1, min(rate.rounded(), Double(UInt32.max)))
                notes.append(
                    "\(fileType.rawValue.uppercased()) holds whole sample rates: resampled from "
                        + "\(formatSampleRate(rate)) Hz to \(formatSampleRate(nearest)) Hz")
                rate = nearest
            }
        }
        var encoderSettings = EncoderSettings(
            format: specifier.streamDescription(
                sampleRate: rate,
                channels: UInt32(channels)), sourceFormat: source.format)
        encoderSettings.imaQuality = settings.imaQuality
        encoderSettings.writesStreamHeader = fileType == .mp3
        if PCM.shouldDither(from: source.format, to: encoderSettings.format) {
            // Seeded from the source's content, so an output depends on the input's bytes alone: the hash a
            // batch took for the provenance, or the one taken as the source was opened.
            encoderSettings.ditherSeed =
                (settings.sourceContentHash ?? source.audioFile?.contentHash
                ?? (try? contentHash(ofFileAt: source.path)))?.value ?? encoderSettings.ditherSeed
        }
        encoderSettings.bitRate = settings.bitRate
        encoderSettings.quality = settings.quality
        // Apple's players decode Opus in CAF only at a constant bit rate: CAF's default.
        encoderSettings.strategy = settings.strategy ?? (specifier.kind == .opus && fileType == .caf ? .constant : nil)
        encoderSettings.sourceBitDepth = source.bitDepth
        let isFloat = source.format.isLinearPCM && source.format.formatFlags.contains(.isFloat)
        if let codec, let stored = codec.storedDepth(forSourceBits: source.bitDepth, isFloat: isFloat) {
            if isFloat {
                notes.append("\(codec.name) holds integers: the floating-point source is written at \(stored) bits")
            } else if stored < source.bitDepth {
                notes.append("\(codec.name) is written at \(stored) bits at most: the source has \(source.bitDepth)")
            }
        }
        return (encoderSettings, notes)
    }

    /// The layout an output records: AAC and ALAC of 3 to 8 channels in their decoders' order (the
    /// engine takes frames in WAV order and reorders them; copied packets are in it already); other
    /// formats keep the source's layout (as afkit decodes it) when the channels are kept. Mono and
    /// stereo need none.
    private static func channelLayout(for format: StreamDescription, source: SourceReader) -> ChannelLayout? {
        let channels = Int(format.channelsPerFrame)
        guard channels > 2 else { return nil }
        if format.formatID == .aac || format.formatID == .alac { return ChannelLayout.mpegOrder(channels: channels) }
        return channels == source.channels ? source.channelLayout : nil
    }

    /// The source's front cover (its first picture where none is marked front) into `options`, where the output
    /// holds one; where it does not, or the picture cannot be read, a note says so.
    private mutating func carryFrontCover(of file: AudioFile, into options: inout AudioFileWriterOptions) {
        let pictures = file.properties.pictures
        guard var cover = pictures.first(where: { $0.type == 3 }) ?? pictures.first else { return }
        let what = "the source's cover (\(cover.mimeType), \(cover.byteCount) bytes)"
        let dropped = pictures.count - 1
        if dropped > 0 {
            notes.append("the source's \(dropped) other picture\(dropped == 1 ? " is" : "s are") not carried")
        }
        let reason: String? =
            switch fileType {
            case .caf: "CAF holds no picture"
            // (`where` binds to the last pattern of a list: one pattern a case.)
            case _
            where [.m4a, .mp4].contains(fileType) && !["image/jpeg", "image/png", "image/bmp"].contains(cover.mimeType):
                "MPEG-4's cover art is JPEG, PNG or BMP"
            default: nil
            }
        if let reason {
            notes.append("\(what) is not carried: \(reason)")
            return
        }
        guard cover.byteCount <= Self.largestCarriedPicture, let bytes = try? file.pictureData(cover) else {
            notes.append("\(what) is not carried: it could not be read whole")
            return
        }
        cover.data = bytes
        // Ogg Opus's comment header, as the writer makes it, must fit one page with the cover in it.
        if fileType == .ogg,
            Ogg.commentHeader(metadata: options.metadata, pictures: [cover], loops: options.loops).count
                > Ogg.largestOnePagePacket
        {
            notes.append("\(what) is not carried: afkit writes Ogg Opus's comment header in one page (64 KB)")
            return
        }
        options.pictures = [cover]
    }

    /// The largest picture a conversion carries (a cover larger than any store's is a mistake, not art).
    static let largestCarriedPicture = 16 << 20

    /// The frames a duration limit allows of `frames`, where it cuts them (`nil`: no cut).
    private static func frameLimit(frames: Int64?, rate: Double, input: String, settings: ConversionSettings) throws
        -> Int64?
    {
        guard let maximum = settings.maximumSeconds, let frames else { return nil }
        let allowed = Int64(saturating: (maximum * rate).rounded(.down))
        guard frames > allowed else { return nil }
        guard settings.trimToMaximum else {
            throw AudioFileError.limitExceeded(
                "'\(input)' lasts \(Double(frames) / rate) s; the limit is \(maximum) s "
                    + "(trim it, or convert with --trim)", offset: nil)
        }
        return allowed
    }
}
