import AudioFormats
import StreamParsing

/// Sony Wave64 (`.w64`): WAV's chunks with 16-byte GUIDs for IDs and 64-bit little-endian sizes that
/// count the chunk's own 24-byte header, each chunk starting on an 8-byte boundary. The GUIDs of the
/// chunks WAV knows begin with their FourCC (`fmt `, `data`, `fact`), so WAV's container half reads
/// their bodies; only the file header differs: the `riff` GUID, the file's size, the `wave` GUID.
package enum Wave64 {
    /// The `riff` GUID (66666972-912E-11CF-A5D6-28DB04C10000) as the file stores it.
    static let riffGUID: [UInt8] = [
        0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00,
    ]
    /// The `wave` GUID (65766177-ACF3-11D3-8CD1-00C04F8EDB8A) as the file stores it.
    static let waveGUID: [UInt8] = [
        0x77, 0x61, 0x76, 0x65, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A,
    ]

    package struct Container: ChunkedContainer {
        static let name = "w64"
        let layout = ChunkLayout(
            sizeEndianness: .little, sizeWidth: 8, alignment: 8, idWidth: 16, sizeCountsHeader: true)
        static let fileHeaderSize = 40
        /// WAV's half, for the chunks both share.
        var wave = WAVE.Container()
        var outerEnd: Int64?

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let offset = cursor.absoluteOffset
            guard let riff = cursor.readSlice(16), riff.elementsEqual(Wave64.riffGUID),
                let size = cursor.readInteger(endianness: .little, as: UInt64.self),
                let wave = cursor.readSlice(16), wave.elementsEqual(Wave64.waveGUID)
            else {
                throw AudioFileError.unsupportedFileType(
                    "w64: the file does not start with Wave64's 'riff' and 'wave' GUIDs", offset: offset)
            }
            // The size counts the whole file; one that cannot hold the header bounds nothing.
            outerEnd = size >= 40 && size < UInt64(Int64.max) ? offset + Int64(size) : nil
            context.properties.fileType = .w64
            context.announce(.fileFormat)
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            wave.readLimit(for: id, limits: limits)
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            try wave.disposition(of: &chunk, &context)
        }

        mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            try wave.parseChunk(chunk, &body, &context)
        }

        mutating func parseAudioPrefix(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        )
            throws -> Int64
        {
            try wave.parseAudioPrefix(chunk, &body, &context)
        }

        package mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {
            try wave.finish(&context, endOffset: endOffset)
        }
    }
}

extension FileType {
    /// Sony Wave64.
    public static let w64 = FileType(rawValue: "w64")
}

extension Wave64 {
    /// Wave64, read only.
    package static let descriptor = ContainerDescriptor(
        .w64, name: "Wave64", kind: "a Sony Wave64 file", fileTypeID: "W64f", extensions: ["w64"],
        signatures: [
            FileSignature.Entry(outcome: .read(.w64)) { bytes, _ in
                FileSignature.all(
                    FileSignature.magic(bytes, Wave64.riffGUID), FileSignature.magic(bytes, Wave64.waveGUID, at: 24))
            }
        ],
        makeParser: { ChunkWalker<Wave64.Container>(mode: $0.mode, limits: $0.limits) })
}
