import AudioFormats
import StreamParsing

/// MPEG-4 audio files (ISO base media file format, ISO/IEC 14496-12 and 14496-14; Apple's `.m4a`).
/// The writer puts `moov` before `mdat`, as a streaming parser needs (Apple's answers a file whose
/// `moov` comes last with `optm`), with an edit list that skips the encoder's priming and ends at the
/// last valid frame, and the same numbers in an `iTunSMPB` tag for players that read only that.
public enum MP4 {
    /// The most chapters a written file holds: Nero's chapter list (`chpl`) counts them in a byte.
    package static let maximumChapters = 255

    /// Box types, spelled as in the specification.
    public enum BoxType {
        /// The `'ftyp'` box type.
        public static let ftyp: FourCharCode = "ftyp"
        /// The `'moov'` box type.
        public static let moov: FourCharCode = "moov"
        /// The `'mdat'` box type.
        public static let mdat: FourCharCode = "mdat"
        /// The `'free'` box type.
        public static let free: FourCharCode = "free"
        /// The `'mp4a'` box type.
        public static let mp4a: FourCharCode = "mp4a"
        /// The `'esds'` box type.
        public static let esds: FourCharCode = "esds"
        /// The `'alac'` box type.
        public static let alac: FourCharCode = "alac"
    }
}

extension FileType {
    /// MPEG-4 audio (`ftyp` brand `M4A `/`M4B `).
    public static let m4a = FileType(rawValue: "m4a")
    /// Other ISO base media files (MP4, QuickTime).
    public static let mp4 = FileType(rawValue: "mp4")
    /// 3GPP and 3GPP2 files (ISO base media, by their brands).
    public static let threeGP = FileType(rawValue: "3gp")
}

extension MP4 {
    /// ISO base media: the family's parser finds M4A, MP4 and 3GPP by their brands.
    package static let descriptor = ContainerDescriptor(
        .mp4, name: "MPEG-4", kind: "an MPEG-4 file", fileTypeID: "mp4f", extensions: ["mp4"],
        otherExtensions: ["m4a", "m4b", "m4r", "mov", "3gp"], hintExtensions: ["mp4"], mediaTypes: ["video/mp4"],
        recordsPriming: true,
        signatures: [
            FileSignature.Entry(outcome: .read(.mp4)) { bytes, _ in FileSignature.magic(bytes, "ftyp", at: 4) },
            // QuickTime movies from before ISO's file type box begin with their media or movie box, or 'wide' (a
            // placeholder for a 64-bit 'mdat' header) and then 'mdat'.
            FileSignature.Entry(outcome: .read(.mp4)) { bytes, _ in
                FileSignature.any(
                    FileSignature.magic(bytes, "mdat", at: 4), FileSignature.magic(bytes, "moov", at: 4),
                    FileSignature.all(
                        FileSignature.magic(bytes, [0, 0, 0, 8], at: 0), FileSignature.magic(bytes, "wide", at: 4),
                        FileSignature.magic(bytes, "mdat", at: 12)))
            },
        ],
        makeParser: { MP4Parser(mode: $0.mode, limits: $0.limits, requestsSeeks: $0.requestsSeeks) },
        writer: MP4.writer)

    /// M4A: what afkit writes for `-f m4af`.
    package static let audioDescriptor = ContainerDescriptor(
        .m4a, name: "M4A", kind: "an MPEG-4 audio (M4A) file", fileTypeID: "m4af", extensions: ["m4a", "m4b", "m4r"],
        otherExtensions: ["mp4"], hintExtensions: ["m4a", "m4b"], formatCodes: ["m4af", "m4a"],
        writtenExtensions: [".m4a"], mediaTypes: ["audio/mp4", "audio/x-m4a", "audio/m4a"], recordsPriming: true,
        keeps: WrittenTimeline(chapters: MP4.maximumChapters),
        writer: MP4.writer)

    /// MPEG-4's and M4A's writer: AAC by default, whole rates, covers as MPEG-4 holds them, sample tables that may
    /// outgrow the room left for them.
    static let writer = ContainerWriter(
        policy: WriterPolicy(
            defaultDataFormat: "aac",
            pictureRefusal: { picture, _ in
                ["image/jpeg", "image/png", "image/bmp"].contains(picture.mimeType)
                    ? nil : "MPEG-4's cover art is JPEG, PNG or BMP"
            }, wholeSampleRates: true), headerMayGrow: true
    ) { format, options, counts, reserved in
        try MP4.layout(format: format, options: options, counts: counts, reservedHeaderSize: reserved)
    }

    /// 3GPP and 3GPP2, read only.
    package static let threeGPDescriptor = ContainerDescriptor(
        .threeGP, name: "3GPP", kind: "a 3GPP file", fileTypeID: "3gpp", extensions: ["3gp", "3g2"],
        hintExtensions: ["3gp", "3g2", "3gpp"], mediaTypes: ["audio/3gpp", "audio/3gpp2"], recordsPriming: true)
}
