import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats

/// An output data format in afconvert's spelling: `LEI16`, `BEI24`, `LEF32`, `I8`, `UI8`, `ima4`,
/// `ulaw`, `alaw` (and `ima-adpcm` for WAV's IMA ADPCM), `aac` (AAC-LC), `alac` (Apple Lossless), `.mp3`,
/// `flac` and `opus`, with an optional `@RATE`; `0` for the source's own format (AAC and ALAC packets copied;
/// PCM kept; IMA4, IMA ADPCM, µ-law and A-law written again in it where a change, such as a cut, is asked).
public struct DataFormatSpecifier: Hashable, Sendable, CustomStringConvertible {
    /// The codec or sample layout named.
    public enum Kind: Hashable, Sendable {
        case linearPCM(bits: UInt32, isFloat: Bool, isBigEndian: Bool, isSigned: Bool)
        case ima4, imaADPCM, ulaw, alaw
        case aac, alac, mp3
        case flac, opus
        /// `0`: the source's format, as afconvert spells it: packets copied (AAC, Apple Lossless), linear
        /// PCM kept as it is. The plan resolves it against the source.
        case copy
    }

    /// Whether the format is compressed with a delay or variable packets (AAC, ALAC, MP3): the
    /// containers that hold them are CAF, M4A, and ADTS or MP3 for their own codec.
    public var isVariablePacketCodec: Bool {
        switch kind {
        case .aac, .alac, .mp3, .flac, .opus: true
        default: false
        }
    }

    /// Every name afkit writes, in afconvert's spelling (`0` aside): what a usage error lists.
    public static let names = [
        "LEI16", "BEI16", "LEI24", "BEI24", "LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64", "I8", "UI8", "ima4",
        "ima-adpcm", "ulaw", "alaw", "aac", "alac", ".mp3", "flac", "opus",
    ]

    /// What the name asks for.
    public var kind: Kind
    /// The `@RATE` given, in Hz; `nil`: the source's.
    public var sampleRate: Double?
    /// The text as given.
    public let description: String

    /// Reads afconvert's spelling (`LEI16`, `ima4@22050`, `aac`, ...); `nil` for a name it does not know.
    public init?(_ text: String) {
        description = text
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            guard let rate = Double(parts[1]), rate.isFinite, rate >= 1, rate <= 1_536_000 else { return nil }
            sampleRate = rate
        }
        // afconvert's spellings, or any case of them where that is unambiguous (`lei16`, `IMA4`, `AAC`).
        var name = parts.first ?? ""
        let lower = name.lowercased()
        if ["ima4", "ima-adpcm", "ulaw", "alaw", "aac", "alac", ".mp3", "mp3", "flac", "opus", "0"].contains(lower) {
            name = lower
        } else if lower.hasPrefix("le") || lower.hasPrefix("be") || lower == "i8" || lower == "ui8" {
            name = name.uppercased()
        }
        switch name {
        case "ima4": kind = .ima4
        case "ima-adpcm", "ms\u{0}\u{11}": kind = .imaADPCM
        case "ulaw": kind = .ulaw
        case "alaw": kind = .alaw
        case "aac", "aac ": kind = .aac
        case "alac": kind = .alac
        case ".mp3", "mp3": kind = .mp3
        case "flac": kind = .flac
        case "opus": kind = .opus
        case "0" where sampleRate == nil: kind = .copy
        case "I8": kind = .linearPCM(bits: 8, isFloat: false, isBigEndian: false, isSigned: true)
        case "UI8": kind = .linearPCM(bits: 8, isFloat: false, isBigEndian: false, isSigned: false)
        case let spec:
            // [LE|BE][I|F|UI]bits
            guard spec.count >= 4, let order = ["LE": false, "BE": true][String(spec.prefix(2))] else { return nil }
            let rest = spec.dropFirst(2)
            let isFloat = rest.hasPrefix("F")
            let isUnsigned = rest.hasPrefix("UI")
            guard isFloat || rest.hasPrefix("I") || isUnsigned,
                let bits = UInt32(rest.dropFirst(isUnsigned ? 2 : 1)),
                isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits)
            else { return nil }
            kind = .linearPCM(bits: bits, isFloat: isFloat, isBigEndian: order, isSigned: !isUnsigned)
        }
    }

    /// The stream description for a rate and channel count (ALAC and FLAC: 16-bit; their encoders choose
    /// the depth from the source).
    public func streamDescription(sampleRate: Double, channels: UInt32) -> StreamDescription {
        switch kind {
        case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned):
            .linearPCM(
                sampleRate: sampleRate, channels: channels, bitsPerChannel: bits, isFloat: isFloat,
                isBigEndian: isBigEndian, signed8: isSigned)
        case .ima4: .appleIMA4(sampleRate: sampleRate, channels: channels)
        case .imaADPCM: IMAADPCMWAVE.format(sampleRate: sampleRate, channels: channels)
        case .ulaw: .g711(.ulaw, sampleRate: sampleRate, channels: channels)
        case .alaw: .g711(.alaw, sampleRate: sampleRate, channels: channels)
        case .aac:
            StreamDescription(
                sampleRate: sampleRate, formatID: .aac, bytesPerPacket: 0, framesPerPacket: 1024,
                bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
        case .alac: AppleLossless.format(sampleRate: sampleRate, channels: channels, bitDepth: 16)
        case .mp3:
            StreamDescription(
                sampleRate: sampleRate, formatID: .mpegLayer3, bytesPerPacket: 0,
                framesPerPacket: sampleRate >= 32000 ? 1152 : 576, bytesPerFrame: 0, channelsPerFrame: channels,
                bitsPerChannel: 0)
        case .flac: .flac(sampleRate: sampleRate, channels: channels, bitDepth: 16, framesPerPacket: 4096)
        case .opus:
            StreamDescription(
                sampleRate: sampleRate, formatID: .opus, bytesPerPacket: 0, framesPerPacket: 960, bytesPerFrame: 0,
                channelsPerFrame: channels, bitsPerChannel: 0)
        // Resolved to the source's format before anything is made of it; 16-bit PCM stands in.
        case .copy: .linearPCM(sampleRate: sampleRate, channels: channels, bitsPerChannel: 16)
        }
    }
}
