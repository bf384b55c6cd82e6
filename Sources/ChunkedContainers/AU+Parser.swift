import AudioFormats
import StreamParsing

extension AU {
    package struct Container: ChunkedContainer {
        static let name = "au"
        let layout = ChunkLayout(sizeEndianness: .big, sizeWidth: 4, alignment: 1)
        static let fileHeaderSize = 24
        var outerEnd: Int64?
        /// The audio as a chunk: from the end of the header, the annotation then the samples.
        private var audio: (chunk: ChunkHeader, annotation: Int64)?

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let start = cursor.absoluteOffset
            guard let magic = cursor.readFourCharCode(), magic == ".snd" || magic == "dns." else {
                throw AudioFileError.unsupportedFileType("au: the file does not start with '.snd'", offset: start)
            }
            let order: Endianness = magic == ".snd" ? .big : .little
            func field() -> UInt32 { cursor.readInteger(endianness: order, as: UInt32.self) ?? 0 }
            let dataOffset = field()
            let dataSize = field()
            let encoding = field()
            let rate = field()
            let channels = field()
            guard dataOffset >= 24 else {
                throw AudioFileError.malformed(
                    "au: the data offset is \(dataOffset), inside the 24-byte header", offset: start + 4)
            }
            guard rate > 0, channels > 0, channels <= 1024 else {
                throw AudioFileError.malformed(
                    "au: \(channels) channels at \(rate) Hz", offset: start + (rate == 0 ? 16 : 20))
            }
            guard
                let format = AU.format(
                    encoding: encoding, sampleRate: Double(rate), channels: channels, isBigEndian: order == .big)
            else {
                let name = AU.encodingNames[encoding].map { " (\($0))" } ?? ""
                throw AudioFileError.unsupportedDataFormat(
                    "au: encoding \(encoding)\(name); afkit reads u-law, A-law, linear PCM and float AU files",
                    offset: start + 12)
            }
            context.properties.fileType = .au
            context.properties.dataFormat = format
            context.announce(.fileFormat)
            context.announce(.dataFormat)
            let annotation = Int64(dataOffset) - 24
            let size: Int64? = dataSize == UInt32.max ? nil : Int64(dataSize) + annotation
            outerEnd = size.map { start + 24 + $0 }
            audio = (ChunkHeader(id: "data", offset: start, size: size, bodyOffset: start + 24), annotation)
            if dataSize == UInt32.max {
                context.properties.trace.append(
                    offset: start + 8, "data size 0xFFFFFFFF: audio runs to the end of the stream")
            }
        }

        mutating func implicitAudioChunk() -> (chunk: ChunkHeader, lead: Int64)? {
            defer { audio = nil }
            return audio.map { ($0.chunk, $0.annotation) }
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            (limits.maximumMetadataChunkBytes, false)
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            .skip(note: "bytes after the audio ignored")
        }

        mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {}

        mutating func parseAudioPrefix(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        )
            -> Int64
        { 0 }

        package mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {}
    }
}
