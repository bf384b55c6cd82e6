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
/// a note): the rates the codec signals and its most channels. Registered beside the encoder.
public struct EncoderLimits: Sendable {
    /// The codec's name in messages ("AAC-LC", "MP3").
    public var name: String
    /// The rates the codec holds; `nil`: any.
    public var sampleRates: [Double]?
    /// The most channels the encoder takes.
    public var maximumChannels: Int
    /// The bit rates (bits per second) it takes at a rate and a channel count; `nil`: it takes none.
    public var bitRates: (@Sendable (_ sampleRate: Double, _ channels: Int) -> ClosedRange<Int>)?

    /// Limits named `name`: `sampleRates` (`nil`: any), at most `maximumChannels` channels, and where the
    /// codec takes a bit rate, the `bitRates` it takes.
    public init(
        name: String, sampleRates: [Double]? = nil, maximumChannels: Int = 64,
        bitRates: (@Sendable (_ sampleRate: Double, _ channels: Int) -> ClosedRange<Int>)? = nil
    ) {
        self.name = name
        self.sampleRates = sampleRates
        self.maximumChannels = maximumChannels
        self.bitRates = bitRates
    }

    /// The held rate nearest `rate` (`rate` itself where any is held or it is one of them).
    public func sampleRate(nearest rate: Double) -> Double {
        guard let sampleRates, !sampleRates.contains(rate) else { return rate }
        return sampleRates.min { abs($0 - rate) < abs($1 - rate) } ?? rate
    }
}

/// Format ID to decoder and encoder factories: the one place a conversion, the validator or a test
/// asks for a codec. ``builtIn`` holds afkit's pure-Swift codecs; AudioConversion's `standard` adds
/// the C-backed ones (MP3, AAC, ALAC). A registry is a value: extending one never changes another.
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

    /// An encoder for `settings.format`; throws `fmt?` where none is registered.
    public func encoder(_ settings: EncoderSettings) throws -> any AudioEncoder {
        guard let factory = encoders[settings.format.formatID] else {
            throw AudioFileError.unsupportedDataFormat(
                "codecs: afkit does not encode '\(settings.format.formatID)'", offset: nil)
        }
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
