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
    /// Frames of pre-roll decoded before a seek's target besides (Opus: RFC 7845 asks for at least 80 ms; its
    /// decoder's state matches a decode from the start to within a step after about 200 ms, 9600 frames).
    public let preRollFrames: Int

    init(
        _ formatID: FourCharCode, _ name: String, lossless: Bool = false, fixesChannelOrder: Bool = false,
        options: CodecOptions = [], storedDepths: [Int]? = nil, roll: Int = 0, preRollFrames: Int = 0
    ) {
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

    /// Every codec afkit names, encoders' first in the order messages list them.
    public static let all: [CodecDescriptor] = [
        CodecDescriptor(.lpcm, "linear PCM", lossless: true),
        CodecDescriptor(.aac, "AAC", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 2),
        // (A frame's main data may begin up to 511 bytes back: ten frames cover it at any bit rate.)
        CodecDescriptor(.mpegLayer3, "MP3", fixesChannelOrder: true, options: [.bitRate, .quality], roll: 10),
        appleLossless, flac,
        CodecDescriptor(
            .opus, "Opus", fixesChannelOrder: true, options: [.bitRate, .quality, .strategy], roll: 1,
            preRollFrames: 9600),
        CodecDescriptor(.ima4, "Apple IMA4"),
        CodecDescriptor(.imaADPCMWAVE, "IMA ADPCM in WAV"),
        CodecDescriptor(.ulaw, "u-law"),
        CodecDescriptor(.alaw, "A-law"),
        CodecDescriptor(.aacSpectralBandReplication, "HE-AAC", fixesChannelOrder: true, roll: 3),
        CodecDescriptor(.aacParametricStereo, "HE-AAC v2", fixesChannelOrder: true, roll: 3),
        CodecDescriptor(.latmAAC, "AAC in LATM", fixesChannelOrder: true, roll: 2),
        CodecDescriptor(.mpegLayer2, "MPEG Layer II", fixesChannelOrder: true, roll: 1),
        CodecDescriptor(.mpegLayer1, "MPEG Layer I", fixesChannelOrder: true, roll: 1),
        CodecDescriptor(.vorbis, "Vorbis", fixesChannelOrder: true, roll: 2),
        CodecDescriptor(.ac3, "AC-3", fixesChannelOrder: true, roll: 1),
        CodecDescriptor(.enhancedAC3, "E-AC-3", fixesChannelOrder: true, roll: 1),
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

    /// Apple Lossless: 16, 20, 24 or 32 bits stored.
    public static let appleLossless = CodecDescriptor(
        .alac, "Apple Lossless", lossless: true, fixesChannelOrder: true, storedDepths: [16, 20, 24, 32])
    /// FLAC: 4 to 24 bits stored (what FFmpeg and Apple decode), `-q` its compression level.
    public static let flac = CodecDescriptor(
        .flac, "FLAC", lossless: true, fixesChannelOrder: true, options: [.quality], storedDepths: Array(4...24))

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
        let names: [FourCharCode: String] = [
            .ima4: "ima4", .ulaw: "ulaw", .alaw: "alaw", .aac: "aac", .alac: "alac", .mpegLayer3: ".mp3",
            .flac: "flac", .opus: "opus", FourCharCode(rawValue: 0x6D73_0011): "ima-adpcm",
        ]
        return names[format.formatID]
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
