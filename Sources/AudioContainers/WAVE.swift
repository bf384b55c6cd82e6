import AudioFormats

/// Microsoft's RIFF WAVE and the EBU's RF64 (and BW64): chunk codes, the incremental parser half
/// and the writer.
///
/// Layout: `RIFF` (or `RF64`/`BW64` with a `ds64` chunk holding 64-bit sizes), a 32-bit
/// little-endian size, `WAVE`; then chunks of a type and a 32-bit little-endian size, padded to
/// an even length.
public enum WAVE {
    /// Chunk types, spelled as in the specifications.
    public enum ChunkType {
        public static let RIFF: FourCharCode = "RIFF"
        public static let RF64: FourCharCode = "RF64"
        public static let BW64: FourCharCode = "BW64"
        public static let WAVE: FourCharCode = "WAVE"
        public static let ds64: FourCharCode = "ds64"
        public static let fmt: FourCharCode = "fmt "
        public static let fact: FourCharCode = "fact"
        public static let data: FourCharCode = "data"
        public static let LIST: FourCharCode = "LIST"
        public static let INFO: FourCharCode = "INFO"
        public static let JUNK: FourCharCode = "JUNK"
    }

    /// `wFormatTag` values afkit reads.
    public enum FormatTag {
        public static let pcm: UInt16 = 0x0001
        public static let ieeeFloat: UInt16 = 0x0003
        public static let alaw: UInt16 = 0x0006
        public static let mulaw: UInt16 = 0x0007
        public static let imaADPCM: UInt16 = 0x0011
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
        "IENG": "engineer", "ISBJ": "subject", "IKEY": "keywords",
    ]

    struct Container: ChunkedContainer {
        static let name = "wav"
        static let layout = ChunkLayout(sizeEndianness: .little, sizeWidth: 4, padsToEven: true)
        static let fileHeaderSize = 12
        var outerEnd: Int64?
        var isRF64 = false
        /// 64-bit sizes from `ds64`: the data chunk's, and others by chunk type.
        var ds64DataSize: Int64?
        var ds64Sizes: [FourCharCode: Int64] = [:]
        var factFrames: (count: Int64, offset: Int64)?
        var samplesPerBlock: UInt32 = 0

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let offset = cursor.absoluteOffset
            guard let riff = cursor.readFourCharCode(),
                riff == ChunkType.RIFF || riff == ChunkType.RF64 || riff == ChunkType.BW64,
                let size = cursor.readInteger(endianness: .little, as: UInt32.self),
                cursor.readFourCharCode() == ChunkType.WAVE
            else {
                throw AudioFileError.unsupportedFileType(
                    "wav: the file does not start with 'RIFF' (or 'RF64') and 'WAVE'", offset: offset)
            }
            isRF64 = riff != ChunkType.RIFF
            // 0 and 0xFFFFFFFF are what streaming writers leave; they bound nothing.
            outerEnd = !isRF64 && size >= 4 && size != UInt32.max ? offset + 8 + Int64(size) : nil
            context.properties.fileType = isRF64 ? .rf64 : .wav
            context.announce(.fileFormat)
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            switch id {
            case ChunkType.fmt, ChunkType.ds64: (limits.maximumFormatChunkBytes, true)
            default: (limits.maximumMetadataChunkBytes, false)
            }
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            if chunk.size == 0xFFFF_FFFF {
                if isRF64, let size = chunk.id == ChunkType.data ? ds64DataSize : ds64Sizes[chunk.id] {
                    chunk.size = size
                } else if chunk.id == ChunkType.data {
                    // A stream whose writer could not go back to fill in the size: audio to the end.
                    chunk.size = nil
                    context.properties.trace.append(offset: chunk.offset, chunk: chunk.id,
                        "size 0xFFFFFFFF: audio runs to the end of the stream")
                }
            }
            switch chunk.id {
            case ChunkType.ds64:
                guard isRF64 else { return .skip(note: "'ds64' outside an RF64 file ignored") }
                return .read
            case ChunkType.fmt:
                return context.properties.dataFormat == nil ? .read : .skip(note: "a second 'fmt ' chunk ignored")
            case ChunkType.data: return .audioData(prefix: 0)
            case ChunkType.fact, ChunkType.LIST: return .read
            case ChunkType.JUNK, "PAD ", "FLLR": return .skip(note: "")
            default: return .skip(note: "unknown chunk skipped")
            }
        }

        mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            switch chunk.id {
            case ChunkType.ds64: try parseDataSize64(chunk, &body)
            case ChunkType.fmt: try parseFormat(chunk, &body, &context)
            case ChunkType.fact:
                if let frames = body.readInteger(endianness: .little, as: UInt32.self) {
                    factFrames = (Int64(frames), chunk.offset)
                }
            case ChunkType.LIST: parseList(chunk, &body, &context)
            default: break
            }
        }

        /// `ds64`: 64-bit RIFF size, data size and sample count, then a table of other chunks' sizes.
        private mutating func parseDataSize64(_ chunk: ChunkHeader, _ body: inout ByteCursor) throws {
            guard let riffSize = body.readInteger(endianness: .little, as: UInt64.self),
                let dataSize = body.readInteger(endianness: .little, as: UInt64.self),
                body.readInteger(endianness: .little, as: UInt64.self) != nil
            else {
                throw AudioFileError.invalidChunk(
                    "wav: 'ds64' chunk is \(body.bytes.count) bytes; it needs at least 24", offset: chunk.offset)
            }
            guard dataSize <= UInt64(Int64.max), riffSize <= UInt64(Int64.max) else {
                throw AudioFileError.malformed("wav: 'ds64' sizes do not fit in 63 bits", offset: chunk.bodyOffset)
            }
            ds64DataSize = Int64(dataSize)
            outerEnd = riffSize >= 4 ? 8 + Int64(riffSize) : nil
            let count = body.readInteger(endianness: .little, as: UInt32.self) ?? 0
            for _ in 0..<min(count, UInt32(body.remaining / 12)) {
                guard let id = body.readFourCharCode(), let size = body.readInteger(endianness: .little, as: UInt64.self)
                else { break }
                ds64Sizes[id] = Int64(clamping: size)
            }
        }

        /// `fmt `: WAVEFORMATEX and its extensions.
        private mutating func parseFormat(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            guard body.remaining >= 14,
                var tag = body.readInteger(endianness: .little, as: UInt16.self),
                let channels = body.readInteger(endianness: .little, as: UInt16.self),
                let rate = body.readInteger(endianness: .little, as: UInt32.self),
                body.readInteger(endianness: .little, as: UInt32.self) != nil,  // average bytes per second
                let blockAlign = body.readInteger(endianness: .little, as: UInt16.self)
            else {
                throw AudioFileError.invalidChunk(
                    "wav: 'fmt ' chunk is \(body.bytes.count) bytes; it needs at least 14", offset: chunk.offset)
            }
            let bits = body.readInteger(endianness: .little, as: UInt16.self) ?? 0
            let extraSize = body.readInteger(endianness: .little, as: UInt16.self) ?? 0
            let base = chunk.bodyOffset
            try checkRateAndChannels("wav", sampleRate: Double(rate), channels: UInt32(channels), offset: base + 2)
            var validBits = UInt32(bits)
            if tag == FormatTag.extensible {
                guard extraSize >= 22, body.remaining >= 22,
                    let valid = body.readInteger(endianness: .little, as: UInt16.self),
                    let mask = body.readInteger(endianness: .little, as: UInt32.self),
                    let subformat = body.readInteger(endianness: .little, as: UInt16.self),
                    let guidTail = body.readBytes(14)
                else {
                    throw AudioFileError.invalidChunk(
                        "wav: WAVE_FORMAT_EXTENSIBLE needs 22 bytes of extension; 'fmt ' has \(extraSize)",
                        offset: chunk.offset)
                }
                guard guidTail == WAVE.subformatGUIDTail else {
                    throw AudioFileError.unsupportedDataFormat(
                        "wav: WAVE_FORMAT_EXTENSIBLE subformat GUID is not a standard format tag", offset: base + 24)
                }
                tag = subformat
                if valid > 0 { validBits = UInt32(valid) }
                if mask != 0 {
                    context.properties.channelLayout = ChannelLayout(waveChannelMask: mask)
                    context.announce(.channelLayout)
                }
            }
            guard blockAlign > 0 else {
                throw AudioFileError.malformed("wav: block align is 0", offset: base + 12)
            }
            let channelCount = UInt32(channels)
            let sampleRate = Double(rate)
            var format: StreamDescription
            switch tag {
            case FormatTag.pcm, FormatTag.ieeeFloat:
                let isFloat = tag == FormatTag.ieeeFloat
                let width = UInt32(blockAlign) / channelCount
                guard width * channelCount == UInt32(blockAlign), width >= 1, width <= 8, validBits >= 1,
                    validBits <= width * 8, !isFloat || (validBits == 32 && width == 4) || (validBits == 64 && width == 8)
                else {
                    throw AudioFileError.malformed(
                        "wav: \(isFloat ? "float" : "PCM") with \(validBits) bits in \(blockAlign)-byte frames of "
                            + "\(channels) channels cannot be", offset: base + 12)
                }
                format = .linearPCM(
                    sampleRate: sampleRate, channels: channelCount, bitsPerChannel: validBits, isFloat: isFloat,
                    bytesPerSample: width)
            case FormatTag.mulaw, FormatTag.alaw:
                guard UInt32(blockAlign) == channelCount else {
                    throw AudioFileError.malformed(
                        "wav: G.711 needs one byte per sample; block align is \(blockAlign) for \(channels) channels",
                        offset: base + 12)
                }
                format = .g711(tag == FormatTag.mulaw ? .ulaw : .alaw, sampleRate: sampleRate, channels: channelCount)
            case FormatTag.imaADPCM:
                let declared = extraSize >= 2 ? UInt32(body.readInteger(endianness: .little, as: UInt16.self) ?? 0) : 0
                // Each channel has a 4-byte header (one frame) and then 4-bit codes, 8 frames a 4-byte group.
                let perChannel = UInt32(blockAlign) / channelCount
                guard perChannel > 4, perChannel * channelCount == UInt32(blockAlign), bits == 4 || bits == 0 else {
                    throw AudioFileError.malformed(
                        "wav: IMA ADPCM block align \(blockAlign) does not fit \(channels) channels of 4-bit codes",
                        offset: base + 12)
                }
                let computed = (perChannel - 4) * 2 + 1
                if declared != 0 && declared != computed {
                    context.properties.trace.append(offset: chunk.offset, chunk: chunk.id,
                        "samples per block \(declared) disagrees with block align (\(computed)); block align wins")
                }
                samplesPerBlock = computed
                format = StreamDescription(
                    sampleRate: sampleRate, formatID: .imaADPCMWAVE, bytesPerPacket: UInt32(blockAlign),
                    framesPerPacket: computed, bytesPerFrame: 0, channelsPerFrame: channelCount, bitsPerChannel: 0)
            default:
                throw AudioFileError.unsupportedDataFormat(
                    "wav: format tag 0x\(String(tag, radix: 16, uppercase: true)) is not supported", offset: base)
            }
            context.properties.dataFormat = format
            context.announce(.dataFormat)
        }

        /// `LIST` of type `INFO`: text subchunks, NUL-terminated, padded to even.
        private func parseList(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            guard body.readFourCharCode() == ChunkType.INFO else { return }
            while let id = body.readFourCharCode(), let size = body.readInteger(endianness: .little, as: UInt32.self) {
                guard let text = body.readSlice(Int(min(size, UInt32(body.remaining)))) else { break }
                if size % 2 == 1 { _ = body.skip(1) }
                let key = WAVE.infoKeys[id] ?? id.description
                context.properties.infoDictionary[key] = decodeText(text)
            }
            context.announce(.infoDictionary)
        }

        mutating func parseAudioPrefix(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws -> Int64
        { 0 }

        mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {
            guard let format = context.properties.dataFormat, format.formatID == .imaADPCMWAVE,
                let packets = context.properties.audioDataPacketCount
            else { return }
            // IMA ADPCM: `fact` states the valid frames where it is not more than the blocks hold.
            let blockFrames = packets * Int64(format.framesPerPacket)
            if let (frames, offset) = factFrames {
                if frames <= blockFrames {
                    context.properties.packetTableInfo = PacketTableInfo(
                        validFrames: frames, primingFrames: 0, remainderFrames: Int32(clamping: blockFrames - frames))
                } else {
                    context.properties.trace.append(offset: offset, chunk: ChunkType.fact,
                        "states \(frames) frames; the blocks hold \(blockFrames), which are used")
                }
            }
        }
    }
}
