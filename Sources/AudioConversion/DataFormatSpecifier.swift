import AudioCodecs
import AudioContainers
import AudioFormats

/// An output data format in afconvert's spelling: `LEI16`, `BEI24`, `LEF32`, `I8`, `UI8`, `ima4`,
/// `ulaw`, `alaw` (and `ima-adpcm` for WAV's IMA ADPCM), with an optional `@RATE`.
public struct DataFormatSpecifier: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case linearPCM(bits: UInt32, isFloat: Bool, isBigEndian: Bool, isSigned: Bool)
        case ima4, imaADPCM, ulaw, alaw
    }

    public var kind: Kind
    public var sampleRate: Double?
    public let description: String

    public init?(_ text: String) {
        description = text
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            guard let rate = Double(parts[1]), rate.isFinite, rate >= 1, rate <= 1_536_000 else { return nil }
            sampleRate = rate
        }
        switch parts.first ?? "" {
        case "ima4": kind = .ima4
        case "ima-adpcm", "ms\u{0}\u{11}": kind = .imaADPCM
        case "ulaw": kind = .ulaw
        case "alaw": kind = .alaw
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

    /// The stream description for a rate and channel count.
    public func streamDescription(sampleRate: Double, channels: UInt32) -> StreamDescription {
        switch kind {
        case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned):
            .linearPCM(sampleRate: sampleRate, channels: channels, bitsPerChannel: bits, isFloat: isFloat,
                isBigEndian: isBigEndian, signed8: isSigned)
        case .ima4: .appleIMA4(sampleRate: sampleRate, channels: channels)
        case .imaADPCM: IMAADPCMWAVE.format(sampleRate: sampleRate, channels: channels)
        case .ulaw: .g711(.ulaw, sampleRate: sampleRate, channels: channels)
        case .alaw: .g711(.alaw, sampleRate: sampleRate, channels: channels)
        }
    }
}

extension FileType {
    /// A file type from afconvert's `-f` codes (`caff`, `AIFF`, `AIFC`, `WAVE`, `RF64`).
    public init?(afconvertCode code: String) {
        switch code {
        case "caff", "caf": self = .caf
        case "AIFF": self = .aiff
        case "AIFC": self = .aifc
        case "WAVE", "wav": self = .wav
        case "RF64": self = .rf64
        default: return nil
        }
    }

    /// The file type an output file name asks for.
    public init?(outputPath: String) {
        let name = outputPath.split(separator: "/").last.map(String.init) ?? outputPath
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "caf", "caff": self = .caf
        case "aif", "aiff": self = .aiff
        case "aifc": self = .aifc
        case "wav", "wave": self = .wav
        default: return nil
        }
    }
}
