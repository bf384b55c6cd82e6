/// A four-character code, as Apple's audio APIs use for format IDs, file types and chunk types.
///
/// The raw value holds the four bytes big-endian, first character in the high byte,
/// so `FourCharCode("caff").rawValue == 0x6361_6666`.
@frozen
public struct FourCharCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The four bytes, the first in the high byte.
    public var rawValue: UInt32

    /// Wraps a numeric code such as `0x6D73_0011`.
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a code from four ASCII characters; traps on anything else (a programmer error). Read
    /// from the literal's bytes, with no string made: a `switch` over literal codes (the MPEG-4 parser's,
    /// once a box) costs a comparison a case.
    @inlinable
    public init(_ string: StaticString) {
        precondition(string.hasPointerRepresentation && string.utf8CodeUnitCount == 4, "not a four-character code")
        let bytes = string.utf8Start
        precondition(
            bytes[0] < 0x80 && bytes[1] < 0x80 && bytes[2] < 0x80 && bytes[3] < 0x80, "not a four-character code")
        rawValue = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    /// A code from four ASCII characters.
    @inlinable
    public init(stringLiteral value: StaticString) { self.init(value) }

    /// Creates a code from a four-character ASCII string, or `nil` if it is not one.
    public init?(validating string: String) {
        let bytes = Array(string.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four bytes, first character first.
    @inlinable
    public var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
            UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// Whether every byte is printable ASCII (0x20 through 0x7E).
    public var isPrintable: Bool { bytes.allSatisfy { (0x20...0x7E).contains($0) } }

    /// The four characters, or `0x` and eight upper-case hex digits when any byte is unprintable
    /// (`0x6D730011`), as the command-line contract spells them.
    public var description: String {
        if isPrintable { return String(decoding: bytes, as: UTF8.self) }
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Ordered by their numbers.
    public static func < (lhs: FourCharCode, rhs: FourCharCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension FourCharCode {
    // Audio format IDs (Apple's AudioFormatID values).
    /// Linear PCM.
    public static let lpcm: FourCharCode = "lpcm"
    /// Apple IMA4.
    public static let ima4: FourCharCode = "ima4"
    /// G.711 u-law.
    public static let ulaw: FourCharCode = "ulaw"
    /// G.711 A-law.
    public static let alaw: FourCharCode = "alaw"
    /// MPEG-4 AAC.
    public static let aac: FourCharCode = "aac "
    /// AAC in LATM framing, as LOAS frames carry it: afkit's name for the packets a LATM decoder takes
    /// whole (a LOAS file's format is `aac `).
    public static let latmAAC: FourCharCode = "latm"
    /// Apple Lossless.
    public static let alac: FourCharCode = "alac"
    /// HE-AAC (AAC with spectral band replication).
    public static let aacSpectralBandReplication: FourCharCode = "aach"
    /// HE-AAC v2 (SBR with parametric stereo).
    public static let aacParametricStereo: FourCharCode = "aacp"
    /// FLAC.
    public static let flac: FourCharCode = "flac"
    /// Opus.
    public static let opus: FourCharCode = "opus"
    /// Vorbis (the ID the contract gives it; Apple defines none).
    public static let vorbis: FourCharCode = "vorb"
    /// AC-3.
    public static let ac3: FourCharCode = "ac-3"
    /// E-AC-3.
    public static let enhancedAC3: FourCharCode = "ec-3"
    /// MPEG-1/2 Layer I.
    public static let mpegLayer1: FourCharCode = ".mp1"
    /// MPEG-1/2 Layer II.
    public static let mpegLayer2: FourCharCode = ".mp2"
    /// MPEG-1/2/2.5 Layer III.
    public static let mpegLayer3: FourCharCode = ".mp3"
    /// IMA ADPCM as WAV stores it: Apple's `'ms'` prefix plus the WAVE format tag 0x0011.
    public static let imaADPCMWAVE = FourCharCode(rawValue: 0x6D73_0011)

    /// Apple's code for a WAVE format tag with no ID of its own: `'ms'` followed by the 16-bit tag.
    public static func wave(formatTag: UInt16) -> FourCharCode {
        FourCharCode(rawValue: 0x6D73_0000 | UInt32(formatTag))
    }
}
