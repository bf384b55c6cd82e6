import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats

/// An output data format in afconvert's spelling: a linear PCM layout (`LEI16`, `BEI24`, `LEF32`, `I8`, `UI8`) or a
/// codec by the `-d` names its descriptor declares (`EncodingFacts.dataFormatNames`: `ima4`, `aac`, `.mp3`, ...),
/// with an optional `@RATE`; `0` for the source's own format (AAC and ALAC packets copied; PCM kept; IMA4, IMA
/// ADPCM, µ-law and A-law written again in it where a change, such as a cut, is asked), `0@RATE` for it at
/// another rate.
public struct DataFormatSpecifier: Hashable, Sendable, CustomStringConvertible {
    /// The codec or sample layout named.
    public enum Kind: Hashable, Sendable {
        case linearPCM(bits: UInt32, isFloat: Bool, isBigEndian: Bool, isSigned: Bool)
        /// A codec afkit encodes, by Apple's format ID.
        case encoded(FourCharCode)
        /// `0`: the source's format, as afconvert spells it: packets copied (AAC, Apple Lossless), linear
        /// PCM kept as it is. The plan resolves it against the source.
        case copy

        /// Apple IMA4.
        public static let ima4 = Kind.encoded(.ima4)
        /// IMA ADPCM in WAV.
        public static let imaADPCM = Kind.encoded(.imaADPCMWAVE)
        /// µ-law.
        public static let ulaw = Kind.encoded(.ulaw)
        /// A-law.
        public static let alaw = Kind.encoded(.alaw)
        /// AAC-LC.
        public static let aac = Kind.encoded(.aac)
        /// Apple Lossless.
        public static let alac = Kind.encoded(.alac)
        /// MP3.
        public static let mp3 = Kind.encoded(.mpegLayer3)
        /// FLAC.
        public static let flac = Kind.encoded(.flac)
        /// Opus.
        public static let opus = Kind.encoded(.opus)
    }

    /// Every name afkit writes, in afconvert's spelling (`0` aside), as the codecs' descriptors declare them: what
    /// help, `-hf` and a usage error list.
    public static let names = CodecDescriptor.encoded.flatMap { $0.encoding?.dataFormatNames ?? [] }

    /// What the name asks for.
    public var kind: Kind
    /// The `@RATE` given, in Hz; `nil`: the source's.
    public var sampleRate: Double?
    /// The text as given.
    public let description: String

    /// Reads afconvert's spelling (`LEI16`, `ima4@22050`, `aac`, ...), in any case where that is unambiguous
    /// (`lei16`, `IMA4`, `AAC`); `nil` for a name it does not know.
    public init?(_ text: String) {
        description = text
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            guard let rate = Double(parts[1]), rate.isFinite, rate >= 1, rate <= 1_536_000 else { return nil }
            sampleRate = rate
        }
        let name = parts.first ?? ""
        if name == "0" {
            kind = .copy
        } else if let codec = Self.codec(named: name) {
            kind = .encoded(codec.formatID)
        } else if let layout = Self.pcmLayout(name.uppercased()) {
            kind = layout
        } else {
            return nil
        }
    }

    /// The codec (other than linear PCM) one of whose `-d` names or aliases is `name`, in any case.
    private static func codec(named name: String) -> CodecDescriptor? {
        let lower = name.lowercased()
        return CodecDescriptor.encoded.first { codec in
            guard codec.formatID != .lpcm, let encoding = codec.encoding else { return false }
            return (encoding.dataFormatNames + encoding.aliases).contains { $0 == name || $0.lowercased() == lower }
        }
    }

    /// A linear PCM layout: `I8`, `UI8` or [LE|BE][I|F|UI]bits.
    private static func pcmLayout(_ spec: String) -> Kind? {
        if spec == "I8" { return .linearPCM(bits: 8, isFloat: false, isBigEndian: false, isSigned: true) }
        if spec == "UI8" { return .linearPCM(bits: 8, isFloat: false, isBigEndian: false, isSigned: false) }
        guard spec.count >= 4, let order = ["LE": false, "BE": true][String(spec.prefix(2))] else { return nil }
        let rest = spec.dropFirst(2)
        let isFloat = rest.hasPrefix("F")
        let isUnsigned = rest.hasPrefix("UI")
        guard isFloat || rest.hasPrefix("I") || isUnsigned,
            let bits = UInt32(rest.dropFirst(isUnsigned ? 2 : 1)),
            isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits)
        else { return nil }
        return .linearPCM(bits: bits, isFloat: isFloat, isBigEndian: order, isSigned: !isUnsigned)
    }

    /// The codec's descriptor (linear PCM's for a layout; `nil` for `0`).
    public var codec: CodecDescriptor? {
        switch kind {
        case .linearPCM: CodecDescriptor.linearPCM
        case .encoded(let formatID): CodecDescriptor.of(formatID)
        case .copy: nil
        }
    }

    /// The stream description for a rate and channel count, as the codec's descriptor declares it (ALAC and FLAC:
    /// 16-bit; their encoders choose the depth from the source).
    public func streamDescription(sampleRate: Double, channels: UInt32) -> StreamDescription {
        switch kind {
        case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned):
            .linearPCM(
                sampleRate: sampleRate, channels: channels, bitsPerChannel: bits, isFloat: isFloat,
                isBigEndian: isBigEndian, signed8: isSigned)
        case .encoded(let formatID):
            CodecDescriptor.of(formatID)?.encoding?.streamDescription(sampleRate, channels)
                ?? .linearPCM(sampleRate: sampleRate, channels: channels, bitsPerChannel: 16)
        // Resolved to the source's format before anything is made of it; 16-bit PCM stands in.
        case .copy: .linearPCM(sampleRate: sampleRate, channels: channels, bitsPerChannel: 16)
        }
    }
}
