import AudioFormats

/// afconvert's codec options an encoder takes: `-b` (bit rate), `-q` (quality), `-s` (bit-rate strategy).
public struct CodecOptions: OptionSet, Hashable, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// The options of `rawValue`'s bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `-b`: bits per second.
    public static let bitRate = CodecOptions(rawValue: 1)
    /// `-q`: quality on afconvert's scale, 0 to 127.
    public static let quality = CodecOptions(rawValue: 2)
    /// `-s`: constant, average, constrained or free variable bit rate.
    public static let strategy = CodecOptions(rawValue: 4)

    /// The option's flag, as afconvert spells it.
    public var flags: [String] {
        [(CodecOptions.bitRate, "-b"), (.quality, "-q"), (.strategy, "-s")].filter { contains($0.0) }.map(\.1)
    }
}

/// What `-d 0` (the source's own format) does with a codec's source.
public enum KeptBySourceFormat: Sendable {
    /// Its packets are copied untouched (AAC, Apple Lossless).
    case copiesPackets
    /// It is written again in its own format, where a change (a cut, a rate) asks for an encode anyway.
    case encodesAgain
}

/// What afkit writes of a codec: its `-d` names, the stream description of a rate and channel count, a cookie that
/// stands in for its own in a writer's dry run, how `-d 0` keeps it and how its options are spelled in help.
public struct EncodingFacts: Sendable {
    /// Its names as `-d` takes them (afconvert's spelling), the usual one first: what help and `-hf` list.
    public let dataFormatNames: [String]
    /// Further spellings `-d` accepts (`mp3` for `.mp3`, Apple's code), not listed.
    public let aliases: [String]
    /// The stream description its encoder is asked for at a rate and channel count (a lossless encoder of
    /// integers chooses the depth from the source: 16 stands in).
    public let streamDescription: @Sendable (_ sampleRate: Double, _ channels: UInt32) -> StreamDescription
    /// A cookie in its shape, for a writer's dry run where a sample entry or header needs one.
    public let dryRunCookie: [UInt8]?
    /// What `-d 0` does with a source of it (`nil`: `-d 0` does not keep it).
    public let keptBySourceFormat: KeptBySourceFormat?
    /// What `-q` means for it, in `-q`'s help ("FLAC: level q/16").
    public let qualityHelp: String?
    /// Whether a bit rate (`-b`) sets what `-q` would, so `-q` is not used beside it (Vorbis: `-q` is the quality
    /// its VBR aims at, which the mode for a bit rate sets in its place, as with oggenc's `-q` and `-b`).
    public let bitRateReplacesQuality: Bool

    init(
        _ names: [String], aliases: [String] = [], dryRunCookie: [UInt8]? = nil,
        keptBySourceFormat: KeptBySourceFormat? = nil, qualityHelp: String? = nil, bitRateReplacesQuality: Bool = false,
        streamDescription: @escaping @Sendable (Double, UInt32) -> StreamDescription
    ) {
        self.bitRateReplacesQuality = bitRateReplacesQuality
        dataFormatNames = names
        self.aliases = aliases
        self.streamDescription = streamDescription
        self.dryRunCookie = dryRunCookie
        self.keptBySourceFormat = keptBySourceFormat
        self.qualityHelp = qualityHelp
    }
}

/// What afkit knows of a codec whichever engine decodes or encodes it: the one name `info`, the validator
/// and every message use, whether it loses anything, whether it fixes its channels' order, the options its
/// encoder takes and the depths a lossless integer codec stores. The plan, the validator and the encoders ask
/// these, never a list of their own.
public struct CodecDescriptor: Sendable {
    /// Apple's format ID.
    public let formatID: FourCharCode
    /// The codec's usual name ("Apple IMA4", "AAC", "FLAC").
    public let name: String
    /// Whether decoding gives back exactly what was encoded.
    public let isLossless: Bool
    /// Whether the codec orders its channels itself (so an output layout cannot be chosen with `-l`).
    public let fixesChannelOrder: Bool
    /// Which of `-b`, `-q` and `-s` its encoder takes.
    public let options: CodecOptions
    /// For a lossless codec of integers: the depths it stores, in order (`nil` for others). A source is
    /// stored at the least of them that holds its depth (the deepest where none does); floating point at 24.
    public let storedDepths: [Int]?
    /// Apple's roll distance: the packets before a packet a decoder must be given for that packet's frames to
    /// come out right (an MDCT's overlap, MP3's bit reservoir); 0 where every packet stands alone.
    public let rollDistance: Int
    /// What afkit writes of it (`nil`: afkit does not encode it).
    public let encoding: EncodingFacts?
    /// Its `CODECS` name (RFC 6381, as HLS uses it) for a format and cookie (`nil`: HLS does not name it).
    public let codecString: (@Sendable (StreamDescription, [UInt8]?) -> String)?
    /// Frames of pre-roll decoded before a seek's target besides (Opus: RFC 7845 asks for at least 80 ms; its
    /// decoder's state matches a decode from the start to within a step after about 200 ms, 9600 frames).
    public let preRollFrames: Int

    init(
        _ formatID: FourCharCode, _ name: String, lossless: Bool = false, fixesChannelOrder: Bool = false,
        options: CodecOptions = [], storedDepths: [Int]? = nil, roll: Int = 0, preRollFrames: Int = 0,
        encoding: EncodingFacts? = nil, codecString: (@Sendable (StreamDescription, [UInt8]?) -> String)? = nil
    ) {
        self.encoding = encoding
        self.codecString = codecString
        self.rollDistance = roll
        self.preRollFrames = preRollFrames
        self.formatID = formatID
        self.name = name
        self.isLossless = lossless
        self.fixesChannelOrder = fixesChannelOrder
        self.options = options
        self.storedDepths = storedDepths
    }

    /// The name with Apple's code, for messages: `AAC ('aac ')`.
    public var spokenName: String { "\(name) ('\(formatID)')" }

    /// The depth a lossless integer codec stores a source of `bits` at (`nil`: 16); `nil` for other codecs.
    public func storedDepth(forSourceBits bits: Int?, isFloat: Bool) -> Int? {
        guard let storedDepths, let deepest = storedDepths.last else { return nil }
        if isFloat { return 24 }
        let bits = bits ?? 16
        return storedDepths.first { $0 >= bits } ?? deepest
    }

    /// Every codec afkit names, encoders' first in the order help and messages list them.
    public static let all: [CodecDescriptor] = [
        linearPCM,
        CodecDescriptor(
            .ima4, "Apple IMA4",
            encoding: EncodingFacts(["ima4"], keptBySourceFormat: .encodesAgain) {
                .appleIMA4(sampleRate: $0, channels: $1)
            }),
        CodecDescriptor(
            .imaADPCMWAVE, "IMA ADPCM in WAV",
            encoding: EncodingFacts(["ima-adpcm"], aliases: ["ms\u{0}\u{11}"], keptBySourceFormat: .encodesAgain) {
                IMAADPCMWAVE.format(sampleRate: $0, channels: $1)
            }),
        CodecDescriptor(
            .ulaw, "u-law",
            encoding: EncodingFacts(["ulaw"], keptBySourceFormat: .encodesAgain) {
                .g711(.ulaw, sampleRate: $0, channels: $1)
            }),
        CodecDescriptor(
            .alaw, "A-law",
            encoding: EncodingFacts(["alaw"], keptBySourceFormat: .encodesAgain) {
                .g711(.alaw, sampleRate: $0, channels: $1)
            }),
        CodecDescriptor(
            .aac, "AAC", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 2,
            // (AAC-LC, 44.1 kHz stereo: what an MPEG-4 sample entry and ADTS's headers are made from.)
            encoding: EncodingFacts(
                ["aac"], aliases: ["aac "], dryRunCookie: [0x12, 0x10], keptBySourceFormat: .copiesPackets,
                qualityHelp: "AAC: below 32 the fast search"
            ) { rate, channels in
                StreamDescription(
                    sampleRate: rate, formatID: .aac, bytesPerPacket: 0, framesPerPacket: 1024, bytesPerFrame: 0,
                    channelsPerFrame: channels, bitsPerChannel: 0)
            }, codecString: mpeg4AudioCodecString),
        appleLossless,
        // (A frame's main data may begin up to 511 bytes back: ten frames cover it at any bit rate.)
        CodecDescriptor(
            .mpegLayer3, "MP3", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 10,
            encoding: EncodingFacts(
                [".mp3"], aliases: ["mp3"], qualityHelp: "MP3: LAME's -q 9-q×9/127, with -s 2 or 3 its -V 9-q×9/127"
            ) {
                rate, channels in
                StreamDescription(
                    sampleRate: rate, formatID: .mpegLayer3, bytesPerPacket: 0,
                    framesPerPacket: rate >= 32000 ? 1152 : 576, bytesPerFrame: 0, channelsPerFrame: channels,
                    bitsPerChannel: 0)
            }, codecString: { _, _ in "mp4a.40.34" }),
        flac,
        CodecDescriptor(
            .opus, "Opus", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 1,
            preRollFrames: 9600,
            encoding: EncodingFacts(
                ["opus"], dryRunCookie: Array("OpusHead".utf8) + [1, 2] + [UInt8](repeating: 0, count: 9),
                qualityHelp: "Opus: complexity q×10/127"
            ) { rate, channels in
                StreamDescription(
                    sampleRate: rate, formatID: .opus, bytesPerPacket: 0, framesPerPacket: 960, bytesPerFrame: 0,
                    channelsPerFrame: channels, bitsPerChannel: 0)
            }, codecString: { _, _ in "Opus" }),
        // (The dry run's cookie: three empty headers, laced; the Ogg writer checks only that there are three.)
        CodecDescriptor(
            .vorbis, "Vorbis", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 2,
            encoding: EncodingFacts(
                ["vorbis"], aliases: ["vorb"], dryRunCookie: [2, 0, 0], qualityHelp: "Vorbis: oggenc -q q×11/127-1",
                bitRateReplacesQuality: true
            ) { rate, channels in
                StreamDescription(
                    sampleRate: rate, formatID: .vorbis, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
                    channelsPerFrame: channels, bitsPerChannel: 0)
            }),
        CodecDescriptor(
            .aacSpectralBandReplication, "HE-AAC", fixesChannelOrder: true, roll: 3, codecString: mpeg4AudioCodecString),
        CodecDescriptor(
            .aacParametricStereo, "HE-AAC v2", fixesChannelOrder: true, roll: 3, codecString: mpeg4AudioCodecString),
        CodecDescriptor(.latmAAC, "AAC in LATM", fixesChannelOrder: true, roll: 2),
        CodecDescriptor(.mpegLayer2, "MPEG Layer II", fixesChannelOrder: true, roll: 1),
        CodecDescriptor(.mpegLayer1, "MPEG Layer I", fixesChannelOrder: true, roll: 1),
        CodecDescriptor(.ac3, "AC-3", fixesChannelOrder: true, roll: 1, codecString: { _, _ in "ac-3" }),
        CodecDescriptor(.enhancedAC3, "E-AC-3", fixesChannelOrder: true, roll: 1, codecString: { _, _ in "ec-3" }),
        CodecDescriptor("samr", "AMR"),
        CodecDescriptor("sawb", "AMR-WB"),
        CodecDescriptor("QDM2", "QDesign Music 2"),
        CodecDescriptor("QDMC", "QDesign Music"),
        CodecDescriptor("Qclp", "QUALCOMM PureVoice"),
        CodecDescriptor("qclp", "QUALCOMM PureVoice"),
        CodecDescriptor("GSM ", "GSM 06.10"),
        CodecDescriptor("MAC3", "MACE 3:1"),
        CodecDescriptor("MAC6", "MACE 6:1"),
        CodecDescriptor("G722", "G.722"),
        CodecDescriptor("DWVW", "Delta With Variable Word width"),
        // Codecs MPEG-4 files carry that afkit does not decode, named as their sample entries are (ETSI TS 102 114
        // for DTS; mp4ra.org for the rest).
        CodecDescriptor("dtsc", "DTS"),
        CodecDescriptor("dtsh", "DTS-HD"),
        CodecDescriptor("dtsl", "DTS-HD Master Audio"),
        CodecDescriptor("dtse", "DTS Express"),
        CodecDescriptor("ac-4", "AC-4"),
        CodecDescriptor("mlpa", "Dolby TrueHD"),
        CodecDescriptor("mha1", "MPEG-H 3D Audio"),
        CodecDescriptor("mhm1", "MPEG-H 3D Audio"),
        CodecDescriptor("sevc", "EVRC"),
    ]

    /// Linear PCM: `-d` spells its layouts ([LE|BE][I|F]bits, I8, UI8); `-d 0` keeps a source's layout.
    public static let linearPCM = CodecDescriptor(
        .lpcm, "linear PCM", lossless: true,
        encoding: EncodingFacts(
            ["LEI16", "BEI16", "LEI24", "BEI24", "LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64", "I8", "UI8"],
            keptBySourceFormat: .encodesAgain
        ) { .linearPCM(sampleRate: $0, channels: $1, bitsPerChannel: 16) })
    /// Apple Lossless: 16, 20, 24 or 32 bits stored.
    public static let appleLossless = CodecDescriptor(
        .alac, "Apple Lossless", lossless: true, fixesChannelOrder: true, storedDepths: [16, 20, 24, 32],
        encoding: EncodingFacts(
            ["alac"], dryRunCookie: [UInt8](repeating: 0, count: 24), keptBySourceFormat: .copiesPackets
        ) { AppleLossless.format(sampleRate: $0, channels: $1, bitDepth: 16) }, codecString: { _, _ in "alac" })
    /// FLAC: 4 to 24 bits stored (what FFmpeg and Apple decode), `-q` its compression level.
    public static let flac = CodecDescriptor(
        .flac, "FLAC", lossless: true, fixesChannelOrder: true, options: [.quality], storedDepths: Array(4...24),
        encoding: EncodingFacts(["flac"], keptBySourceFormat: .encodesAgain, qualityHelp: "FLAC: level q/16") {
            .flac(sampleRate: $0, channels: $1, bitDepth: 16, framesPerPacket: 4096)
        }, codecString: { _, _ in "fLaC" })

    /// MPEG-4 audio's `CODECS` name by its object type, from the cookie where there is one (2 AAC-LC, 5 HE-AAC,
    /// 29 HE-AAC v2), else from the format ID.
    private static let mpeg4AudioCodecString: @Sendable (StreamDescription, [UInt8]?) -> String = { format, cookie in
        let config = cookie.flatMap { AudioSpecificConfig.audioSpecificConfig(inCookie: $0) }
        let objectType =
            config.flatMap { AudioSpecificConfig($0) }.map { config in
                config.hasParametricStereo ? 29 : config.extensionSampleRate != nil ? 5 : config.objectType
            }
            ?? (format.formatID == .aacParametricStereo ? 29 : format.formatID == .aacSpectralBandReplication ? 5 : 2)
        return "mp4a.40.\(objectType)"
    }

    /// The `CODECS` name of a stream's format (RFC 6381, as HLS uses it): `mp4a.40.N` for MPEG-4 audio by its
    /// object type, `mp4a.40.34` for MP3, `ac-3`, `ec-3`, `fLaC`, `Opus`, `alac`; `nil` for a format HLS does not
    /// name.
    public static func codecString(for format: StreamDescription, magicCookie: [UInt8]?) -> String? {
        of(format.formatID)?.codecString?(format, magicCookie)
    }

    /// The codecs afkit encodes, in the order help lists them.
    public static let encoded: [CodecDescriptor] = all.filter { $0.encoding != nil }

    private static let byFormatID = Dictionary(all.map { ($0.formatID, $0) }, uniquingKeysWith: { first, _ in first })

    /// The codec with Apple's format ID `formatID`, or `nil` for one afkit does not name.
    public static func of(_ formatID: FourCharCode) -> CodecDescriptor? { byFormatID[formatID] }

    /// A format as `-d` spells it (afconvert's spelling: `LEI16`, `BEF32`, `I8`, `UI8`, `ima4`, `ulaw`, `alaw`,
    /// `ima-adpcm`, `aac`, `alac`, `.mp3`, `flac`, `opus`), or `nil` for one afkit does not write: what a fix
    /// that keeps a file's format names.
    public static func afconvertName(of format: StreamDescription) -> String? {
        if format.formatID == .lpcm {
            let bits = format.bitsPerChannel
            if bits == 8 && !format.formatFlags.contains(.isFloat) {
                return format.formatFlags.contains(.isSignedInteger) ? "I8" : "UI8"
            }
            let kind = format.formatFlags.contains(.isFloat) ? "F" : "I"
            guard (kind == "F" ? [32, 64] : [16, 24, 32]).contains(bits) else { return nil }
            return (format.formatFlags.contains(.isBigEndian) ? "BE" : "LE") + kind + "\(bits)"
        }
        return of(format.formatID)?.encoding?.dataFormatNames.first
    }

    /// `formatID`'s name with its code (`AAC ('aac ')`), or the code alone for a codec afkit does not name.
    public static func spokenName(of formatID: FourCharCode) -> String {
        of(formatID)?.spokenName ?? "'\(formatID)'"
    }

    /// Apple's roll distance for `formatID` (0 for a codec afkit does not name: it is decoded from the start).
    public static func rollDistance(of formatID: FourCharCode) -> Int { of(formatID)?.rollDistance ?? 0 }

    /// Whether `formatID` loses nothing (an unnamed codec counts as lossy).
    public static func isLossless(_ formatID: FourCharCode) -> Bool { of(formatID)?.isLossless ?? false }
}

/// afconvert's quality scale (0 to 127, best last) on LAME's VBR levels (`-V 9`, smallest, to `-V 0`, best): the MP3
/// encoder's `-q` with `-s 2` or `3`, and a fix that keeps a VBR MP3's level.
public enum LAMEScale {
    /// The `-V` level of a quality: 9 − q×9/127, rounded.
    public static func level(quality: Int) -> Int { Int((9 - Double(min(127, max(0, quality))) * 9 / 127).rounded()) }

    /// The quality whose level is `level` (0 to 9): (9 − V)×127/9, rounded.
    public static func quality(level: Int) -> Int { Int((Double(9 - min(9, max(0, level))) * 127 / 9).rounded()) }
}
