import AudioFormats
import StreamParsing

extension Wave64 {
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
