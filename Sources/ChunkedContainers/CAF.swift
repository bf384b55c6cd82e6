import AudioFormats
import StreamParsing

/// Apple's Core Audio Format: chunk codes here, the incremental parser half
/// in `CAF+Parser.swift`, the writer in `CAF+Writer.swift`.
///
/// Layout: `caff`, version 1, flags 0; then chunks of a four-character type and a signed 64-bit
/// big-endian size (-1 on `data` meaning "to the end of the file"), unpadded.
public enum CAF {
    /// CAF's file type, `'caff'`.
    public static let fileType: FourCharCode = "caff"

    /// Chunk types, spelled as in the specification.
    public enum ChunkType {
        /// The `'desc'` chunk.
        public static let desc: FourCharCode = "desc"
        /// The `'data'` chunk.
        public static let data: FourCharCode = "data"
        /// The `'pakt'` chunk.
        public static let pakt: FourCharCode = "pakt"
        /// The `'kuki'` chunk.
        public static let kuki: FourCharCode = "kuki"
        /// The `'chan'` chunk.
        public static let chan: FourCharCode = "chan"
        /// The `'info'` chunk.
        public static let info: FourCharCode = "info"
        /// The `'free'` chunk.
        public static let free: FourCharCode = "free"
        /// The `'uuid'` chunk.
        public static let uuid: FourCharCode = "uuid"
    }

    /// CAF's own linear PCM flags, which differ from AudioStreamBasicDescription's.
    enum LinearPCMFlags {
        static let isFloat: UInt32 = 1
        static let isLittleEndian: UInt32 = 2
    }
}

extension FileType {
    /// Apple's Core Audio Format.
    public static let caf = FileType(rawValue: "caf")
}

extension CAF {
    /// CAF as afkit reads and writes it.
    package static let descriptor = ContainerDescriptor(
        .caf, name: "CAF", kind: "a CAF file", fileTypeID: "caff", extensions: ["caf", "caff"],
        formatCodes: ["caff", "caf"], writtenExtensions: [".caf", ".caff"], mediaTypes: ["audio/x-caf", "audio/caf"],
        recordsPriming: true,
        keeps: WrittenTimeline(markers: true, loops: .max),
        signatures: [FileSignature.Entry(outcome: .read(.caf)) { bytes, _ in FileSignature.magic(bytes, "caff") }],
        makeParser: { ChunkWalker<CAF.Container>(mode: $0.mode, limits: $0.limits, requestsSeeks: $0.requestsSeeks) },
        writer: ContainerWriter(
            policy: WriterPolicy(
                defaultDataFormat: "LEI16", pcmByteOrder: .source, channelLayouts: .any,
                pictureRefusal: { _, _ in "CAF holds no picture" },
                // Apple's players decode Opus in CAF only at a constant bit rate.
                constantBitRateCodecs: [.opus])
        ) { format, options, counts, _ in try CAF.layout(format: format, options: options, counts: counts) })
}
