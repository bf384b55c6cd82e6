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

    /// The settings the plan was made from.
    public let settings: ConversionSettings
    /// The output's container.
    public internal(set) var fileType: FileType
    /// The output's data format in afconvert's spelling.
    public let dataFormat: DataFormatSpecifier
    /// The format of the packets written.
    public let format: StreamDescription
    /// What the writer records besides the packets: metadata, provenance, markers and loops moved with
    /// the cut and the rate, the cookie, the channel layout and size estimates.
    public internal(set) var writerOptions = AudioFileWriterOptions()
    /// What was chosen that the user did not ask for (a rate the codec cannot hold, ...).
    public internal(set) var notes: [String] = []
    /// Each marker, loop and chapter of the source: carried, moved or dropped (what `convert -v` lists).
    public internal(set) var timeline: [String] = []
    /// The chapters placed on the output's clock (``ConversionResult/chapters``).
    var placedChapters: [Chapter] = []
    /// Whether a forward loop of the source, placed, runs from the output's first frame to its last.
    var loopsWhole = false
    /// The frames of the wrap ``loopWrap`` gives the encoder each side: two AAC packets, so the first valid packet's
    /// transform overlaps the loop's end, not silence.
    static let loopWrapFrames = 2048

    /// The frames of a whole loop's end an AAC encoder is given before its start, and of its start after its end,
    /// recorded as priming and remainder (the valid frames are the loop's own): the encoder then codes the wrap as
    /// the loop plays it, where it coded the start out of silence and the end into it (a chord of whole periods
    /// wrapped with a bend of 17.3 dB at 128 kbit/s, a click to the loop-seam rule; 5.8 dB with the wrap). 0 where
    /// the output does not loop whole, is not AAC in a container that records priming, or is padded, faded,
    /// levelled or DC-blocked (the wrap is rendered apart, so the render must not depend on where a frame lies).
    var loopWrap: Int {
        guard loopsWhole, settings.encodesLoopWrap, copier == nil, format.formatID == .aac, primingFrames > 0,
            fileType.descriptor.recordsPriming,
            render.padStart == 0, render.padEnd == 0, render.fadeIn == 0, render.fadeOut == 0,
            render.levelCurve == nil, render.loopCrossfades.isEmpty, !render.removesDC,
            let frames = expectedFrameCount, frames >= Int64(2 * Self.loopWrapFrames)
        else { return 0 }
        return Self.loopWrapFrames
    }
    /// Source frames cut as silence from the start and from the end (`--trim-silence`).
    public internal(set) var trimmedFrames: (leading: Int64, trailing: Int64)?
    /// The part of the source taken and what the float pipeline does to it; normalization sets its gain.
    var render = RenderPlan()
    /// The source's packets, when they are copied untouched.
    let copier: PacketCopier?
    /// What each round's encoder is made from (`nil` when packets are copied).
    let encoderSettings: EncoderSettings?
    /// The frames the output will hold, where the source's length is known.
    public internal(set) var expectedFrameCount: Int64?
    /// The encoder's delay (or the copied packets' priming), for the packet-count estimate.
    let primingFrames: Int
    /// The encoder the plan made, until a round takes it.
    private var nextEncoder: (any AudioEncoder)?
    /// The bits an integer encoder (Apple Lossless) keeps; `nil` for other encoders.
    private let integerBitDepth: Int?
    /// The codecs the plan's encoders come from, and their limits.
    let registry: AudioCodecRegistry

    /// Plans the conversion of `source` to `destination` under `settings`, with `registry`'s encoders.
    public init(
        source: SourceReader, destination: Destination, settings: ConversionSettings,
        registry: AudioCodecRegistry = AudioConverter.registry
    ) throws {
        self.settings = settings
        self.registry = registry
        fileType = destination.fileType
        let writer = try Self.writer(of: fileType)
        guard
            var specifier = destination.dataFormat ?? Self.keptSampleFormat(of: source, in: fileType)
                ?? Self.containerDefault(fileType)
        else { throw ConversionUsageError("no data format for \(fileType.afconvertCode) files") }
        let copyAsked = specifier.kind == .copy
        if copyAsked {
            specifier = try Self.sourceFormat(of: source, in: fileType, explicit: settings.fileType != nil)
        }
        dataFormat = specifier
        if try Self.copiesPackets(of: source, as: specifier, copyAsked: copyAsked, settings: settings),
            let file = source.audioFile
        {
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
                specifier, fileType: fileType, source: source, settings: settings, registry: registry)
            var notes = fitted
            if let note = Self.secondGenerationNote(source: source.format, destination: settings.format) {
                notes.append(note)
            }
            notes += Self.unusedCodecOptions(settings, registry: registry)
            self.notes = notes
            encoderSettings = settings
            // The encoder made here says what it makes (ALAC's depth, AAC's packets) and its cookie, and
            // writes the first round.
            let encoder: any AudioEncoder
            do {
                encoder = try registry.encoder(settings)
            } catch let error as EncoderSettingsError {
                // What the codec cannot take is the user's to change, before anything is read.
                throw ConversionUsageError(error.description)
            }
            nextEncoder = encoder
            integerBitDepth = (encoder as? any IntegerSampleEncoder)?.integerBitDepth
            format = encoder.destinationFormat
            writerOptions.magicCookie = writer.cookiePlacement == .header ? encoder.magicCookie : nil
            primingFrames = encoder.primingFrames
        }
        notes += source.conditionNotes(whatIsHeld: "converted")
        if case nil = settings.fileType, let widened = writer.policy.widensTo,
            (try? AudioFileWriter.check(format, in: fileType)) == nil
        {
            // A `.aif` name with data plain AIFF cannot hold (little-endian, float, IMA4, G.711): AIFF-C.
            fileType = widened
        }
        if format.sampleRate != source.sampleRate {
            // A ratio no resampler takes is refused before anything is sized by it.
            try ResamplerChoice.checkRatio(from: source.sampleRate, to: format.sampleRate)
        }
        writerOptions.channelLayout = Self.channelLayout(for: format, source: source)
        try applyMix(source: source)
        if let layout = settings.channelLayout { try apply(layout, source: source) }
    }

    /// Whether the source's packets are copied untouched: AAC where nothing asks it changed (re-encoding loses
    /// quality: a second generation), Apple Lossless always (re-encoding gains nothing, and decoding a 32-bit
    /// stream to Float would lose its lowest bits), either where `-d 0` asks; a usage error where `-d 0` asks for
    /// what cannot be.
    private static func copiesPackets(
        of source: SourceReader, as specifier: DataFormatSpecifier, copyAsked: Bool, settings: ConversionSettings
    ) throws -> Bool {
        let processes =
            settings.loudness != nil || settings.peak != nil || settings.loopCrossfade != nil
            || settings.silenceThreshold != nil || settings.mixMatrix != nil
            || settings.channelMap != nil || settings.channelLayout != nil || !settings.edits.isEmpty
        let codec = specifier.codec
        let sameCodec =
            codec?.encoding?.keptBySourceFormat == .copiesPackets && codec?.formatID == source.format.formatID
        let reencodingAsked = settings.bitRate != nil || settings.quality != nil || settings.strategy != nil
        // (A rate asked that is the source's own changes nothing: `-d 0@44100` of a 44.1 kHz source copies.)
        let keepsRate = [settings.sampleRate, specifier.sampleRate].allSatisfy { $0 == nil || $0 == source.sampleRate }
        let untouched =
            keepsRate && settings.channels == nil
            && settings.maximumSeconds == nil && !processes
            && source.sampleRate <= settings.maximumSampleRate ?? .infinity
            && source.channels <= settings.maximumChannels ?? Int.max
        let copiesCodec = sameCodec && (codec?.isLossless == true || !reencodingAsked)
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
        return copiesCodec && untouched && copyable
    }

    /// `-m` or `--mix`: the matrix that takes each output channel from the source's (a channel map's, one source
    /// channel each; none: silence), checked against the source's channels.
    private mutating func applyMix(source: SourceReader) throws {
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
        switch fileType.descriptor.writer?.policy.channelLayouts ?? ChannelLayoutRecording.none {
        case .any: writerOptions.channelLayout = layout
        case .waveChannelMask:
            guard let mask = layout.waveChannelMask else {
                throw ConversionUsageError(
                    "-l \(name): WAV keeps its speakers in one fixed order and this layout is not in it; write CAF, "
                        + "or name a layout in WAV's order (such as MPEG_5_1_A)")
            }
            writerOptions.channelLayout = ChannelLayout(waveChannelMask: mask)
        case .none:
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

    /// The level a loudness normalization sets for the next round: the gain and the limiter's ceiling.
    mutating func setLevel(from normalizer: any LevelNormalizer) {
        render.gain = normalizer.gain
        render.limiterCeiling = normalizer.limiterCeiling
        render.levelCurve = normalizer.levelCurve
    }

    /// The encoder for a round of writing: the one the plan made for the first, a fresh one for each
    /// further round; `nil` when packets are copied.
    mutating func takeEncoder() throws -> (any AudioEncoder)? {
        defer { nextEncoder = nil }
        return try nextEncoder ?? encoderSettings.map { try registry.encoder($0) }
    }

    // MARK: - Decisions

    /// With no `-d`, a linear PCM source keeps its sample format (24-bit stays 24-bit, float stays float,
    /// as SoX does) in the container's byte order (CAF: the source's), instead of becoming 16-bit; a
    /// lossless source (Apple Lossless, FLAC) becomes integers of its own depth.
    /// Other sources (lossy, or PCM the container cannot hold) get the container's default.
    static func keptSampleFormat(of source: SourceReader, in fileType: FileType) -> DataFormatSpecifier? {
        let format = source.format
        guard let policy = fileType.descriptor.writer?.policy, policy.pcmByteOrder != nil else { return nil }
        let isFloat = format.isLinearPCM && format.formatFlags.contains(.isFloat)
        guard isFloat || format.losslessBitDepth != nil else { return nil }
        let depth = UInt32(format.losslessBitDepth ?? 32)
        let bits = isFloat ? (format.bitsPerChannel > 32 ? 64 : 32) : min(32, (depth + 7) / 8 * 8)
        // (A codec's flags say other things: little-endian where the container leaves the order to the source.)
        return pcmSpecifier(
            bits: bits, isFloat: isFloat,
            sourceIsBigEndian: format.isLinearPCM && format.formatFlags.contains(.isBigEndian),
            policy: policy)
    }

    /// Linear PCM of `bits` as a container stores it: in its byte order (the source's where it leaves the order
    /// free) and its 8-bit sign.
    private static func pcmSpecifier(bits: UInt32, isFloat: Bool, sourceIsBigEndian: Bool, policy: WriterPolicy)
        -> DataFormatSpecifier?
    {
        if bits == 8 && !isFloat { return DataFormatSpecifier(policy.signedEightBit ? "I8" : "UI8") }
        let bigEndian =
            switch policy.pcmByteOrder {
            case .bigEndian?: true
            case .littleEndian?: false
            case .source?, nil: sourceIsBigEndian
            }
        return DataFormatSpecifier("\(bigEndian ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)")
    }

    /// `-d 0`: the source's own format where the output can hold it: linear PCM in its layout (the
    /// container's byte order: AIFF's big-endian, WAV's little-endian, CAF the source's), AAC and Apple
    /// Lossless (their packets are copied), and the codecs written again in their own format. Anything else is
    /// a usage error that says what to give.
    static func sourceFormat(of source: SourceReader, in fileType: FileType, explicit: Bool) throws
        -> DataFormatSpecifier
    {
        let format = source.format
        var specifier: DataFormatSpecifier?
        if let codec = CodecDescriptor.of(format.formatID), codec.encoding?.keptBySourceFormat != nil {
            if format.formatID == .lpcm {
                let policy = fileType.descriptor.writer?.policy ?? WriterPolicy(defaultDataFormat: "LEI16")
                specifier = pcmSpecifier(
                    bits: (format.bitsPerChannel + 7) / 8 * 8, isFloat: format.formatFlags.contains(.isFloat),
                    sourceIsBigEndian: format.formatFlags.contains(.isBigEndian), policy: policy)
            } else {
                specifier = codec.encoding?.dataFormatNames.first.flatMap(DataFormatSpecifier.init)
            }
        }
        guard let specifier else {
            let kept = CodecDescriptor.encoded.filter { $0.encoding?.keptBySourceFormat == .encodesAgain }
            let copied = CodecDescriptor.encoded.filter { $0.encoding?.keptBySourceFormat == .copiesPackets }
            throw ConversionUsageError(
                "-d 0 keeps \(spokenList(kept.map(\.name), conjunction: "and")) and copies "
                    + "\(spokenList(copied.map(\.name), conjunction: "and")) packets; the source is "
                    + "\(CodecDescriptor.spokenName(of: format.formatID)): give a data format")
        }
        try Destination.check(specifier, in: fileType, explicit: explicit)
        return specifier
    }

    /// Notes for afconvert's codec options the output's format has no use for: said, never silently ignored.
    static func unusedCodecOptions(_ settings: EncoderSettings, registry: AudioCodecRegistry) -> [String] {
        let takes = CodecDescriptor.of(settings.format.formatID)?.options ?? []
        let given: [(CodecOptions, Bool)] = [
            (.bitRate, settings.bitRate != nil), (.quality, settings.quality != nil),
            (.strategy, settings.strategy != nil),
        ]
        var notes = given.filter { $0.1 && !takes.contains($0.0) }.map { option, _ in
            let codecs = spokenList(registry.encodedCodecs(taking: option), conjunction: "and")
            let output = CodecDescriptor.spokenName(of: settings.format.formatID)
            return "\(option.flags.joined()) applies to \(codecs); the output is \(output): not used"
        }
        if let bitRate = settings.bitRate, settings.quality != nil,
            let codec = CodecDescriptor.of(settings.format.formatID), codec.encoding?.bitRateReplacesQuality == true
        {
            notes.append(
                "-q sets \(codec.name)'s quality where no bit rate is given; -b \(bitRate / 1000)k sets it here: -q not used"
            )
        }
        return notes
    }

    /// The note a lossy source encoded again with a lossy codec gets (`nil` otherwise).
    static func secondGenerationNote(source: StreamDescription, destination: StreamDescription) -> String? {
        guard !CodecDescriptor.isLossless(source.formatID), !CodecDescriptor.isLossless(destination.formatID) else {
            return nil
        }
        return "the \(CodecDescriptor.spokenName(of: source.formatID)) source is decoded and encoded again as "
            + "\(CodecDescriptor.spokenName(of: destination.formatID)): a second generation of loss"
    }

    /// What a container gets when neither the settings nor the source decide: its writer's default (AAC for
    /// MPEG-4 and ADTS, MP3 for `.mp3`, FLAC for `.flac`, Opus for Ogg, 16-bit PCM in the container's byte order
    /// otherwise).
    static func containerDefault(_ fileType: FileType) -> DataFormatSpecifier? {
        fileType.descriptor.writer.flatMap { DataFormatSpecifier($0.policy.defaultDataFormat) }
    }

    /// The encoder's settings: the rate and channels fitted to what the encoder and the container take
    /// (with a note for each change), the dither seed, the codec options.
    private static func encoderSettings(
        _ specifier: DataFormatSpecifier, fileType: FileType, source: SourceReader,
        settings: ConversionSettings, registry: AudioCodecRegistry
    ) throws -> (EncoderSettings, [String]) {
        let writer = try Self.writer(of: fileType)
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
        if let limits = registry.encoderLimits(for: formatID) {
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
            if writer.policy.wholeSampleRates, rate != rate.rounded(), rate.isFinite {
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
        encoderSettings.writesStreamHeader = writer.cookiePlacement == .firstPacket
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
        encoderSettings.strategy =
            settings.strategy
            ?? (writer.policy.constantBitRateCodecs.contains(encoderSettings.format.formatID) ? .constant : nil)
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

    /// How `fileType` is written; a usage error for a container afkit does not write.
    static func writer(of fileType: FileType) throws -> ContainerWriter {
        guard let writer = fileType.descriptor.writer else {
            throw ConversionUsageError("\(fileType.name) files: afkit reads them but does not write them")
        }
        return writer
    }

    /// The largest picture a conversion carries (a cover larger than any store's is a mistake, not art).
    static let largestCarriedPicture = 16 << 20
}
