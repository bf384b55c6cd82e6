import AudioFormats
import StreamParsing

/// Microsoft's RIFF WAVE and the EBU's RF64 (and BW64): chunk codes here, the incremental parser half
/// in `WAVE+Parser.swift`, the writer in `WAVE+Writer.swift`.
///
/// Layout: `RIFF` (or `RF64`/`BW64` with a `ds64` chunk holding 64-bit sizes), a 32-bit
/// little-endian size, `WAVE`; then chunks of a type and a 32-bit little-endian size, padded to
/// an even length.
public enum WAVE {
    /// Chunk types, spelled as in the specifications.
    public enum ChunkType {
        /// The RIFF container chunk.
        public static let RIFF: FourCharCode = "RIFF"
        /// RIFF's big-endian twin: every size and number, and the samples, big-endian.
        public static let RIFX: FourCharCode = "RIFX"
        /// RF64's container chunk (EBU Tech 3306).
        public static let RF64: FourCharCode = "RF64"
        /// BW64's container chunk (ITU-R BS.2088).
        public static let BW64: FourCharCode = "BW64"
        /// The form type of WAV.
        public static let WAVE: FourCharCode = "WAVE"
        /// The `'ds64'` chunk.
        public static let ds64: FourCharCode = "ds64"
        /// The `'fmt '` chunk.
        public static let fmt: FourCharCode = "fmt "
        /// The `'fact'` chunk.
        public static let fact: FourCharCode = "fact"
        /// The `'data'` chunk.
        public static let data: FourCharCode = "data"
        /// The `'LIST'` chunk.
        public static let LIST: FourCharCode = "LIST"
        /// The `'INFO'` chunk.
        public static let INFO: FourCharCode = "INFO"
        /// The `'JUNK'` chunk.
        public static let JUNK: FourCharCode = "JUNK"
    }

    /// `wFormatTag` values afkit reads.
    public enum FormatTag {
        /// `WAVE_FORMAT_PCM`.
        public static let pcm: UInt16 = 0x0001
        /// `WAVE_FORMAT_IEEE_FLOAT`.
        public static let ieeeFloat: UInt16 = 0x0003
        /// `WAVE_FORMAT_ALAW`.
        public static let alaw: UInt16 = 0x0006
        /// `WAVE_FORMAT_MULAW`.
        public static let mulaw: UInt16 = 0x0007
        /// `WAVE_FORMAT_IMA_ADPCM`.
        public static let imaADPCM: UInt16 = 0x0011
        /// `WAVE_FORMAT_EXTENSIBLE`: the sub-format GUID says.
        public static let extensible: UInt16 = 0xFFFE
    }

    /// The tail every WAVE_FORMAT_EXTENSIBLE subformat GUID shares after its leading format tag.
    static let subformatGUIDTail: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]

    /// LIST/INFO keys and the names afkit reports them under.
    static let infoKeys: [FourCharCode: String] = [
        "INAM": "title", "IART": "artist", "IPRD": "album", "ICMT": "comments", "ICRD": "year",
        "IGNR": "genre", "ICOP": "copyright", "ISFT": "encoding application", "ITRK": "track number",
        "IENG": "engineer", "ISBJ": "subject", "IKEY": "keywords", "ILNG": "language",
    ]
}

extension FileType {
    /// RIFF WAVE (and BW64 read as it).
    public static let wav = FileType(rawValue: "wav")
    /// RF64: WAVE with 64-bit sizes (EBU Tech 3306).
    public static let rf64 = FileType(rawValue: "rf64")
}

extension WAVE {
    /// WAV, whose parser also reads RF64 and BW64.
    package static let descriptor = ContainerDescriptor(
        .wav, name: "WAV", kind: "a WAV file", fileTypeID: "WAVE", extensions: ["wav", "wave", "bwf"],
        otherExtensions: ["rf64"], hintExtensions: ["wav", "wave"], formatCodes: ["WAVE", "wav"],
        writtenExtensions: [".wav"], mediaTypes: ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"],
        keeps: WrittenTimeline(markers: true, loops: .max),
        signatures: [
            FileSignature.Entry(outcome: .read(.wav)) { bytes, _ in
                FileSignature.all(
                    FileSignature.any(
                        FileSignature.magic(bytes, "RIFF"), FileSignature.magic(bytes, "RIFX"),
                        FileSignature.magic(bytes, "RF64"), FileSignature.magic(bytes, "BW64")),
                    FileSignature.magic(bytes, "WAVE", at: 8))
            }
        ],
        makeParser: { ChunkWalker<WAVE.Container>(mode: $0.mode, limits: $0.limits) },
        writer: ContainerWriter(policy: WAVE.writerPolicy(family: nil)) { format, options, counts, _ in
            try WAVE.layout(format: format, options: options, counts: counts, forceRF64: false)
        })

    /// RF64, found by WAV's parser.
    package static let rf64Descriptor = ContainerDescriptor(
        .rf64, name: "RF64", kind: "an RF64 file", fileTypeID: "RF64", extensions: ["rf64"],
        otherExtensions: ["wav", "wave", "bwf"], hintExtensions: ["rf64"], formatCodes: ["RF64"],
        writtenExtensions: [".wav", ".rf64"],
        keeps: WrittenTimeline(markers: true, loops: .max),
        writer: ContainerWriter(policy: WAVE.writerPolicy(family: .wav)) { format, options, counts, _ in
            try WAVE.layout(format: format, options: options, counts: counts, forceRF64: true)
        })

    /// WAV's and RF64's policy: little-endian PCM, 8-bit samples unsigned, speakers by a channel mask, whole rates.
    private static func writerPolicy(family: FileType?) -> WriterPolicy {
        WriterPolicy(
            defaultDataFormat: "LEI16", pcmByteOrder: .littleEndian, signedEightBit: false,
            channelLayouts: .waveChannelMask, wholeSampleRates: true, family: family)
    }
}
