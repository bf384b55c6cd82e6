import AudioFormats
import StreamParsing

/// Apple's Audio Interchange File Format, AIFF and AIFF-C: chunk codes here, the incremental parser half
/// in `AIFF+Parser.swift`, the writer in `AIFF+Writer.swift`.
///
/// Layout: `FORM`, a 32-bit big-endian size, `AIFF` or `AIFC`; then chunks of a type and a 32-bit
/// big-endian size, padded to an even length.
public enum AIFF {
    /// Chunk types, spelled as in the specification.
    public enum ChunkType {
        /// The `'FORM'` container chunk.
        public static let FORM: FourCharCode = "FORM"
        /// The form type of AIFF.
        public static let AIFF: FourCharCode = "AIFF"
        /// The form type of AIFF-C.
        public static let AIFC: FourCharCode = "AIFC"
        /// The `'COMM'` chunk.
        public static let COMM: FourCharCode = "COMM"
        /// The `'SSND'` chunk.
        public static let SSND: FourCharCode = "SSND"
        /// The `'FVER'` chunk.
        public static let FVER: FourCharCode = "FVER"
        /// The `'NAME'` chunk.
        public static let NAME: FourCharCode = "NAME"
        /// The `'AUTH'` chunk.
        public static let AUTH: FourCharCode = "AUTH"
        /// The `'(c) '` chunk.
        public static let copyright: FourCharCode = "(c) "
        /// The `'ANNO'` chunk.
        public static let ANNO: FourCharCode = "ANNO"
        /// The `'COMT'` chunk.
        public static let COMT: FourCharCode = "COMT"
        /// The `'MARK'` chunk.
        public static let MARK: FourCharCode = "MARK"
        /// The `'INST'` chunk.
        public static let INST: FourCharCode = "INST"
        /// The `'APPL'` chunk.
        public static let APPL: FourCharCode = "APPL"
        /// The `'ID3 '` chunk.
        public static let ID3: FourCharCode = "ID3 "
        /// QuickTime's codec configuration atoms, as QDesign files carry them.
        public static let wave: FourCharCode = "wave"
    }

    /// AIFF-C compression types afkit reads (AudioFormats': QuickTime's sample entries name the same words).
    public typealias CompressionType = AIFFCompressionType

    /// The AIFF-C version timestamp that `FVER` carries (May 23, 1990, 2:40 pm).
    public static let aifcVersion1: UInt32 = 0xA280_5140
}

extension FileType {
    /// AIFF: uncompressed big-endian PCM.
    public static let aiff = FileType(rawValue: "aiff")
    /// AIFF-C: AIFF with a compression type (`sowt`, `ima4`, `ulaw`, ...).
    public static let aifc = FileType(rawValue: "aifc")
}

extension AIFF {
    /// AIFF, whose parser also reads AIFF-C.
    package static let descriptor = ContainerDescriptor(
        .aiff, name: "AIFF", kind: "an AIFF file", fileTypeID: "AIFF", extensions: ["aif", "aiff"],
        otherExtensions: ["aifc"], hintExtensions: ["aif", "aiff"], formatCodes: ["AIFF"],
        writtenExtensions: [".aif", ".aiff"], mediaTypes: ["audio/aiff", "audio/x-aiff"],
        keeps: WrittenTimeline(markers: true, loops: 2),
        signatures: [
            FileSignature.Entry(outcome: .read(.aiff)) { bytes, _ in
                FileSignature.all(
                    FileSignature.magic(bytes, "FORM"),
                    FileSignature.any(
                        FileSignature.magic(bytes, "AIFF", at: 8), FileSignature.magic(bytes, "AIFC", at: 8)))
            }
        ],
        makeParser: { ChunkWalker<AIFF.Container>(mode: $0.mode, limits: $0.limits) },
        writer: ContainerWriter(
            policy: WriterPolicy(defaultDataFormat: "BEI16", pcmByteOrder: .bigEndian, widensTo: .aifc)
        ) { format, options, counts, _ in
            try AIFF.layout(format: format, options: options, counts: counts, aifc: false)
        })

    /// AIFF-C, found by AIFF's parser.
    package static let compressedDescriptor = ContainerDescriptor(
        .aifc, name: "AIFF-C", kind: "an AIFF-C file", fileTypeID: "AIFC", extensions: ["aifc"],
        otherExtensions: ["aif", "aiff"], hintExtensions: ["aifc"], formatCodes: ["AIFC"],
        writtenExtensions: [".aifc", ".aif"],
        keeps: WrittenTimeline(markers: true, loops: 2),
        writer: ContainerWriter(
            policy: WriterPolicy(defaultDataFormat: "BEI16", pcmByteOrder: .bigEndian, family: .aiff)
        ) { format, options, counts, _ in
            try AIFF.layout(format: format, options: options, counts: counts, aifc: true)
        })
}
