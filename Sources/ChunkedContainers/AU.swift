import AudioFormats
import StreamParsing

/// Sun/NeXT audio (`.au`, `.snd`): a 24-byte header (`.snd`, the data's offset, its size, the encoding,
/// the rate, the channels), an annotation up to the data's offset, then the samples, all big-endian
/// (`dns.` and every field little-endian, as DEC wrote them). A size of 0xFFFFFFFF means "to the end".
/// A header and one implicit chunk: the chunk walker reads the audio as it reads any other container's.
package enum AU {
    /// The encodings afkit reads: u-law, A-law, linear PCM of 8 to 32 bits, float and double.
    static func format(encoding: UInt32, sampleRate: Double, channels: UInt32, isBigEndian: Bool)
        -> StreamDescription?
    {
        switch encoding {
        case 1: return .g711(.ulaw, sampleRate: sampleRate, channels: channels)
        case 27: return .g711(.alaw, sampleRate: sampleRate, channels: channels)
        case 2...5:
            // 8-bit linear samples are signed in AU.
            let bits = UInt32(encoding - 1) * 8
            return .linearPCM(
                sampleRate: sampleRate, channels: channels, bitsPerChannel: bits, isBigEndian: isBigEndian,
                signed8: true)
        case 6, 7:
            return .linearPCM(
                sampleRate: sampleRate, channels: channels, bitsPerChannel: encoding == 6 ? 32 : 64, isFloat: true,
                isBigEndian: isBigEndian)
        default: return nil
        }
    }

    /// The names of the encodings afkit does not read, for the refusal.
    static let encodingNames: [UInt32: String] = [
        8: "fragmented samples", 10: "DSP program", 11: "8-bit fixed point", 12: "16-bit fixed point",
        13: "24-bit fixed point", 14: "32-bit fixed point", 18: "16-bit linear with emphasis",
        19: "16-bit linear, compressed", 20: "16-bit linear with emphasis, compressed", 21: "Music Kit DSP commands",
        23: "G.721 ADPCM", 24: "G.722 ADPCM", 25: "G.723 3-bit ADPCM", 26: "G.723 5-bit ADPCM",
    ]
}

extension FileType {
    /// Sun/NeXT audio.
    public static let au = FileType(rawValue: "au")
}

extension AU {
    /// AU, whose writer is in `AU+Writer.swift`.
    package static let descriptor = ContainerDescriptor(
        .au, name: "AU", kind: "a Sun/NeXT AU file", fileTypeID: "NeXT", extensions: ["au", "snd"],
        formatCodes: ["NeXT"], writtenExtensions: [".au", ".snd"], mediaTypes: ["audio/basic"],
        signatures: [
            FileSignature.Entry(outcome: .read(.au)) { bytes, _ in
                FileSignature.any(FileSignature.magic(bytes, ".snd"), FileSignature.magic(bytes, "dns."))
            }
        ],
        makeParser: { ChunkWalker<AU.Container>(mode: $0.mode, limits: $0.limits) },
        writer: ContainerWriter(
            policy: WriterPolicy(
                defaultDataFormat: "BEI16", pcmByteOrder: .bigEndian,
                pictureRefusal: { _, _ in "AU holds no picture" }, wholeSampleRates: true)
        ) { format, options, counts, _ in try AU.layout(format: format, options: options, counts: counts) })
}
