import AudioFormats

/// How an afconvert-style encoder spends its bits (`-s`): Apple's bit-rate control modes.
public enum BitRateStrategy: Int, Hashable, Sendable, CaseIterable {
    case constant = 0
    case longTermAverage = 1
    case variableConstrained = 2
    case variable = 3
}

/// What an encoder is asked to make: the packets' format and the choices afconvert exposes.
public struct EncoderSettings: Sendable {
    /// The format of the packets to make (rate and channels included).
    public var format: StreamDescription
    /// The format the frames were decoded from (it decides whether PCM output is dithered).
    public var sourceFormat: StreamDescription
    /// How IMA encoders search.
    public var imaQuality: IMAEncodingQuality = .balanced
    /// Bits per second (`-b`), for codecs with a bit rate.
    public var bitRate: Int?
    /// Codec quality on afconvert's scale (`-q`, 0 to 127, higher is better and slower).
    public var quality: Int?
    /// Bit-rate control (`-s`).
    public var strategy: BitRateStrategy?
    /// Bits of the source's samples, for lossless codecs that keep them (16, 20, 24 or 32).
    public var sourceBitDepth: Int?
    /// Whether the stream carries the encoder's own header (LAME's Xing/LAME tag frame, which only an MP3 file
    /// holds); in another container the container's tables state the priming and remainder.
    public var writesStreamHeader = true
    /// The seed of PCM's TPDF dither: the converter takes it from the source's content, so an output
    /// depends on the input's bytes alone, and two sources never share a dither sequence.
    public var ditherSeed: UInt64 = 0x5EED

    /// Settings for packets of `format` made from frames decoded from `sourceFormat`.
    public init(format: StreamDescription, sourceFormat: StreamDescription) {
        self.format = format
        self.sourceFormat = sourceFormat
    }
}

/// What an encoder can take, so a converter fits a request to it before making one (and says so in
/// a note): the rates the codec signals, its most channels and the bit rates it holds. Registered beside
/// the encoder; the registry checks a request against them where it makes the encoder, and nowhere else.
public struct EncoderLimits: Sendable {
    /// The rates the codec holds; `nil`: any.
    public var sampleRates: [Double]?
    /// The most channels the encoder takes.
    public var maximumChannels: Int
    /// The bit rates (bits per second) it takes at a rate and a channel count; `nil`: it takes none.
    public var bitRates: (@Sendable (_ sampleRate: Double, _ channels: Int) -> ClosedRange<Int>)?

    /// Limits of `sampleRates` (`nil`: any), at most `maximumChannels` channels, and where the codec takes a
    /// bit rate, the `bitRates` it takes.
    public init(
        sampleRates: [Double]? = nil, maximumChannels: Int = 64,
        bitRates: (@Sendable (_ sampleRate: Double, _ channels: Int) -> ClosedRange<Int>)? = nil
    ) {
        self.sampleRates = sampleRates
        self.maximumChannels = maximumChannels
        self.bitRates = bitRates
    }

    /// The held rate nearest `rate` (`rate` itself where any is held or it is one of them).
    public func sampleRate(nearest rate: Double) -> Double {
        guard let sampleRates, !sampleRates.contains(rate) else { return rate }
        return sampleRates.min { abs($0 - rate) < abs($1 - rate) } ?? rate
    }

    /// Throws where `settings` ask what the encoder cannot take: a rate it does not hold, too many channels, a
    /// bit rate outside its range, a quality outside 0 to 127.
    public func check(_ settings: EncoderSettings, codec: String) throws(EncoderSettingsError) {
        let rate = settings.format.sampleRate
        let channels = Int(settings.format.channelsPerFrame)
        if let sampleRates, !sampleRates.contains(rate) {
            throw EncoderSettingsError(
                "\(codec) cannot hold \(formatSampleRate(rate)) Hz; it holds "
                    + sampleRates.map { formatSampleRate($0) }.joined(separator: ", ") + " Hz")
        }
        guard (1...maximumChannels).contains(channels) else {
            throw EncoderSettingsError("\(codec) holds 1 to \(maximumChannels) channels, not \(channels)")
        }
        if let bitRate = settings.bitRate, let range = bitRates?(rate, channels), !range.contains(bitRate) {
            throw EncoderSettingsError(
                "-b \(bitRate): \(codec) at \(formatSampleRate(rate)) Hz with \(channels) "
                    + "channel\(channels == 1 ? "" : "s") takes \(range.lowerBound) to \(range.upperBound) bits per second"
            )
        }
        if let quality = settings.quality, !(0...127).contains(quality) {
            throw EncoderSettingsError("-q \(quality): quality is 0 to 127")
        }
    }
}

/// Settings an encoder cannot take (a bit rate out of its range, a rate it does not hold): the request's to
/// change, found before anything is read.
public struct EncoderSettingsError: Error, CustomStringConvertible, Sendable {
    /// What was asked and what the encoder takes.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Format ID to decoder and encoder factories: the one place a conversion, the validator or a test
/// asks for a codec. ``builtIn`` holds afkit's pure-Swift codecs; AudioEngines' `standard` adds
/// the C-backed ones (MP3, AAC, Opus, ...). A registry is a value: extending one never changes another.
public struct AudioCodecRegistry: Sendable {
    /// Makes a decoder for a format and its magic cookie.
    public typealias DecoderFactory =
        @Sendable (_ format: StreamDescription, _ magicCookie: [UInt8]?) throws
        -> any AudioDecoder
    /// Makes an encoder for settings whose format has the registered ID.
    public typealias EncoderFactory = @Sendable (_ settings: EncoderSettings) throws -> any AudioEncoder

    private var decoders: [FourCharCode: DecoderFactory] = [:]
    private var encoders: [FourCharCode: EncoderFactory] = [:]
    private var limits: [FourCharCode: EncoderLimits] = [:]
    /// Whether the field's engines are registered (`AudioCodecRegistry.standard`, in the AudioEngines product):
    /// an error for a codec a registry without them lacks names the product that has them.
    public var hasEngines = false

    /// An empty registry.
    public init() {}

    /// Registers (or replaces) the decoder for `formatID`.
    public mutating func registerDecoder(for formatID: FourCharCode, _ factory: @escaping DecoderFactory) {
        decoders[formatID] = factory
    }

    /// Registers (or replaces) the encoder for `formatID`, with what it can take where that is less
    /// than any rate and 64 channels.
    public mutating func registerEncoder(
        for formatID: FourCharCode, limits: EncoderLimits? = nil,
        _ factory: @escaping EncoderFactory
    ) {
        encoders[formatID] = factory
        self.limits[formatID] = limits
    }

    /// What the encoder for `formatID` can take; `nil` where it registered no limits.
    public func encoderLimits(for formatID: FourCharCode) -> EncoderLimits? { limits[formatID] }

    /// What afkit knows of the codec `formatID` (its name, whether it is lossless, the options it takes).
    public func descriptor(for formatID: FourCharCode) -> CodecDescriptor? { CodecDescriptor.of(formatID) }

    /// The names of the codecs this registry encodes whose encoders take `option`, in ``CodecDescriptor/all``'s
    /// order ("AAC, MP3 and Opus" take `-b`).
    public func encodedCodecs(taking option: CodecOptions) -> [String] {
        CodecDescriptor.all.filter { canEncode($0.formatID) && $0.options.contains(option) }.map(\.name)
    }

    /// The formats a decoder is registered for.
    public var decodedFormats: Set<FourCharCode> { Set(decoders.keys) }

    /// The formats an encoder is registered for.
    public var encodedFormats: Set<FourCharCode> { Set(encoders.keys) }

    /// Whether a decoder is registered for the format.
    public func canDecode(_ formatID: FourCharCode) -> Bool { decoders[formatID] != nil }

    /// Whether an encoder is registered for the format.
    public func canEncode(_ formatID: FourCharCode) -> Bool { encoders[formatID] != nil }

    /// A decoder for `format`; throws `fmt?` where none is registered.
    public func decoder(for format: StreamDescription, magicCookie: [UInt8]? = nil) throws -> any AudioDecoder {
        guard let factory = decoders[format.formatID] else {
            throw AudioFileError.unsupportedDataFormat(
                "codecs: afkit has no decoder for '\(format.formatID)'", offset: nil)
        }
        return try factory(format, magicCookie)
    }

    /// An encoder for `settings.format`; throws `fmt?` where none is registered, and
    /// ``EncoderSettingsError`` where the settings ask what its limits do not hold.
    public func encoder(_ settings: EncoderSettings) throws -> any AudioEncoder {
        let id = settings.format.formatID
        guard let factory = encoders[id] else {
            throw AudioFileError.unsupportedDataFormat("codecs: afkit does not encode '\(id)'", offset: nil)
        }
        try limits[id]?.check(settings, codec: CodecDescriptor.of(id)?.name ?? "'\(id)'")
        return try factory(settings)
    }

    /// afkit's own codecs, pure Swift: linear PCM, Apple IMA4, WAV IMA ADPCM, u-law and A-law, and the
    /// Apple Lossless encoder.
    public static let builtIn: AudioCodecRegistry = {
        var registry = AudioCodecRegistry()
        registry.registerDecoder(for: .lpcm) { format, _ in try PCMDecoder(format: format) }
        registry.registerDecoder(for: .ima4) { format, _ in AppleIMA4Decoder(format: format) }
        registry.registerDecoder(for: .imaADPCMWAVE) { format, _ in try IMAADPCMWAVEDecoder(format: format) }
        registry.registerDecoder(for: .ulaw) { format, _ in G711Decoder(format: format) }
        registry.registerDecoder(for: .alaw) { format, _ in G711Decoder(format: format) }
        registry.registerDecoder(for: .flac) { format, cookie in try FLACDecoder(format: format, magicCookie: cookie) }
        registry.registerEncoder(for: .lpcm) { settings in
            try PCMEncoder(
                format: settings.format, dither: PCM.shouldDither(from: settings.sourceFormat, to: settings.format),
                seed: settings.ditherSeed)
        }
        registry.registerEncoder(for: .ima4) { settings in
            AppleIMA4Encoder(format: settings.format, quality: settings.imaQuality)
        }
        registry.registerEncoder(for: .imaADPCMWAVE) { settings in
            try IMAADPCMWAVEEncoder(format: settings.format, quality: settings.imaQuality)
        }
        registry.registerEncoder(for: .alac) { settings in try AppleLosslessEncoder(settings) }
        registry.registerEncoder(for: .ulaw) { settings in G711Encoder(format: settings.format) }
        registry.registerEncoder(for: .alaw) { settings in G711Encoder(format: settings.format) }
        return registry
    }()
}
