/// AIFF-C compression types afkit reads: the four-character code of the `COMM` chunk that names the sample
/// words or the codec, and the stream each describes. QuickTime's sample entries in ISO base media name the
/// same words, so both kinds read them here.
public enum AIFFCompressionType {
    /// Big-endian integers, uncompressed.
    public static let NONE: FourCharCode = "NONE"
    /// Little-endian 16-bit integers.
    public static let sowt: FourCharCode = "sowt"
    /// Big-endian integers (QuickTime's name).
    public static let twos: FourCharCode = "twos"
    /// Unsigned 8-bit samples.
    public static let raw: FourCharCode = "raw "
    /// 24-bit big-endian integers.
    public static let in24: FourCharCode = "in24"
    /// 32-bit big-endian integers.
    public static let in32: FourCharCode = "in32"
    /// 32-bit big-endian floats.
    public static let fl32: FourCharCode = "fl32"
    /// 64-bit big-endian floats.
    public static let fl64: FourCharCode = "fl64"
    /// Apple IMA4.
    public static let ima4: FourCharCode = "ima4"
    /// G.711 u-law.
    public static let ulaw: FourCharCode = "ulaw"
    /// G.711 A-law.
    public static let alaw: FourCharCode = "alaw"

    /// The stream description for a COMM compression type.
    package static func streamDescription(
        compression: FourCharCode, channels: UInt32, sampleSize: Int, sampleRate: Double, offset: Int64
    ) throws -> StreamDescription {
        func pcm(_ bits: Int, isFloat: Bool = false, isBigEndian: Bool = true, signed8: Bool = true) throws
            -> StreamDescription
        {
            guard (1...64).contains(bits) else {
                throw AudioFileError.malformed("aiff: \(bits)-bit samples cannot be", offset: offset + 6)
            }
            return .linearPCM(
                sampleRate: sampleRate, channels: channels, bitsPerChannel: UInt32(bits),
                isFloat: isFloat, isBigEndian: isBigEndian, signed8: signed8)
        }
        switch FourCharCode(rawValue: compression.rawValue) {
        case Self.NONE, "none", Self.twos:
            guard sampleSize <= 32 else {
                throw AudioFileError.malformed(
                    "aiff: \(sampleSize)-bit integer samples cannot be",
                    offset: offset + 6)
            }
            return try pcm(sampleSize)
        case Self.sowt: return try pcm(sampleSize, isBigEndian: false)
        case Self.raw: return try pcm(8, signed8: false)
        case Self.in24: return try pcm(24)
        case Self.in32: return try pcm(32)
        // Apple's little-endian integers: the big-endian codes spelled backwards.
        case "42ni": return try pcm(24, isBigEndian: false)
        case "23ni": return try pcm(32, isBigEndian: false)
        case Self.fl32, "FL32": return try pcm(32, isFloat: true)
        case Self.fl64, "FL64": return try pcm(64, isFloat: true)
        case Self.ima4, "IMA4": return .appleIMA4(sampleRate: sampleRate, channels: channels)
        case Self.ulaw, "ULAW": return .g711(.ulaw, sampleRate: sampleRate, channels: channels)
        case Self.alaw, "ALAW": return .g711(.alaw, sampleRate: sampleRate, channels: channels)
        // Codecs of packets of a constant size (frames and bytes per channel): MACE 3:1 and 6:1, GSM 6.10,
        // G.722 (two 4-bit codes to a byte), QUALCOMM PureVoice (full-rate frames).
        case "MAC3", "MAC6", "GSM ", "agsm", "G722", "Qclp", "qclp":
            let (id, frames, bytes): (FourCharCode, UInt32, UInt32) =
                switch compression.rawValue {
                case FourCharCode("MAC3").rawValue: ("MAC3", 6, 2)
                case FourCharCode("MAC6").rawValue: ("MAC6", 6, 1)
                case FourCharCode("G722").rawValue: ("G722", 2, 1)
                // As the file writes it: Apple's 'Qclp', or 'qclp'.
                case FourCharCode("Qclp").rawValue, FourCharCode("qclp").rawValue: (compression, 160, 35)
                default: ("GSM ", 160, 33)
                }
            return StreamDescription(
                sampleRate: sampleRate, formatID: id, bytesPerPacket: bytes * channels,
                framesPerPacket: frames, bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
        // Codecs whose packets the file does not delimit (DWVW's variable-width words, QDesign's
        // packets): SSND is one packet of the frames COMM counts.
        case "DWVW", "QDM2", "QDMC":
            return StreamDescription(
                sampleRate: sampleRate, formatID: compression, bytesPerPacket: 0,
                framesPerPacket: 0, bytesPerFrame: 0, channelsPerFrame: channels,
                bitsPerChannel: compression == "DWVW" ? UInt32(max(sampleSize, 0)) : 0)
        default:
            throw AudioFileError.unsupportedDataFormat(
                "aiff: compression type '\(compression)' is not supported", offset: offset + 18)
        }
    }
}
