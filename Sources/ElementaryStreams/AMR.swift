import AudioFormats
import StreamParsing

/// AMR and AMR-WB in their storage format (RFC 4867, section 5): `#!AMR\n` or `#!AMR-WB\n`, then 20 ms
/// frames, each a header byte (its frame type gives the size) and the speech bits. Apple's `samr` and
/// `sawb`: 160 frames a packet at 8 kHz, 320 at 16 kHz, mono.
package struct AMR: FrameFormat {
    static let fileType = FileType.amr
    static let headerSize = 1
    static let confirmsByNext = false

    /// Packet sizes by frame type, the header byte included (types 9 to 15: comfort noise of other
    /// standards, lost and empty frames).
    static let narrowbandSizes = [13, 14, 16, 18, 20, 21, 27, 32, 6, 1, 1, 1, 1, 1, 1, 1]
    static let widebandSizes = [18, 24, 33, 37, 41, 47, 51, 59, 61, 6, 1, 1, 1, 1, 1, 1]

    /// Whether the stream is AMR-WB: fixed by its magic. Frames carry no mark of it.
    var wideband = false

    init() {}

    mutating func leaderLength(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> Int? {
        for (magic, isWide) in [("#!AMR\n", false), ("#!AMR-WB\n", true)] where bytes.starts(with: magic.utf8) {
            wideband = isWide
            return magic.utf8.count
        }
        if bytes.starts(with: "#!AMR_MC1.0\n".utf8) || bytes.starts(with: "#!AMR-WB_MC1.0\n".utf8) {
            throw AudioFileError.unsupportedDataFormat(
                "amr: multichannel AMR; afkit reads mono AMR and AMR-WB; " + AudioFileError.convertFirstAdvice,
                offset: 0)
        }
        if bytes.count < 9 && !atEnd { return nil }
        throw AudioFileError.unsupportedFileType("amr: no '#!AMR' magic", offset: 0)
    }

    func frame(_ bytes: UnsafeRawBufferPointer) -> FrameInfo? {
        let header = bytes[0]
        // The padding bits must be 0.
        guard header & 0x83 == 0 else { return nil }
        let type = Int(header >> 3) & 0x0F
        let size = (wideband ? Self.widebandSizes : Self.narrowbandSizes)[type]
        let format = StreamDescription(
            sampleRate: wideband ? 16000 : 8000, formatID: wideband ? "sawb" : "samr", bytesPerPacket: 0,
            framesPerPacket: wideband ? 320 : 160, bytesPerFrame: 0, channelsPerFrame: 1, bitsPerChannel: 0)
        return FrameInfo(length: size, frames: wideband ? 320 : 160, format: format)
    }
}

extension FileType {
    /// AMR and AMR-WB in the storage format.
    public static let amr = FileType(rawValue: "amr")
}

extension AMR {
    /// AMR and AMR-WB, read only.
    package static let descriptor = ContainerDescriptor(
        .amr, name: "AMR", kind: "an AMR file", fileTypeID: "amrf", extensions: ["amr", "awb"],
        mediaTypes: ["audio/amr", "audio/amr-wb"],
        signatures: [
            FileSignature.Entry(outcome: .read(.amr)) { bytes, _ in
                FileSignature.any(FileSignature.magic(bytes, "#!AMR\n"), FileSignature.magic(bytes, "#!AMR_MC1.0\n"))
            },
            FileSignature.Entry(outcome: .read(.amr)) { bytes, _ in
                FileSignature.any(
                    FileSignature.magic(bytes, "#!AMR-WB\n"), FileSignature.magic(bytes, "#!AMR-WB_MC1.0\n"))
            },
        ],
        makeParser: { FramedStreamParser<AMR>(mode: $0.mode, limits: $0.limits) })
}
