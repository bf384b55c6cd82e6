import AudioFormats
import StreamParsing

/// Microsoft's RIFF WAVE and the EBU's RF64 (and BW64): chunk codes, the incremental parser half
/// and the writer.
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
        "IENG": "engineer", "ISBJ": "subject", "IKEY": "keywords",
    ]

    package struct Container: ChunkedContainer {
        static let name = "wav"
        var layout: ChunkLayout { ChunkLayout(sizeEndianness: order, sizeWidth: 4, alignment: 2) }
        static let fileHeaderSize = 12
        var outerEnd: Int64?
        var isRF64 = false
        /// The byte order of every number in the file: little-endian, big-endian in RIFX (its samples too).
        var order = Endianness.little
        /// Whether the `data` chunk's size was left 0 by its writer (read to the end).
        var sizeLeftUnset = false
        /// 64-bit sizes from `ds64`: the data chunk's, and others by chunk type.
        var ds64DataSize: Int64?
        var ds64Sizes: [FourCharCode: Int64] = [:]
        var factFrames: (count: Int64, offset: Int64)?
        var samplesPerBlock: UInt32 = 0
        /// `LIST/adtl` labels by cue ID (the cue list may come before or after them).
        var labels: [Int: String] = [:]
        /// `smpl`'s loops, by the cue they name, resolved at the end.
        var sampleLoops: [(cue: Int, loop: Loop)] = []

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let offset = cursor.absoluteOffset
            guard let riff = cursor.readFourCharCode(),
                [ChunkType.RIFF, ChunkType.RIFX, ChunkType.RF64, ChunkType.BW64].contains(riff),
                let size = cursor.readInteger(endianness: riff == ChunkType.RIFX ? .big : .little, as: UInt32.self),
                cursor.readFourCharCode() == ChunkType.WAVE
            else {
                throw AudioFileError.unsupportedFileType(
                    "wav: the file does not start with 'RIFF' (or 'RIFX', 'RF64') and 'WAVE'", offset: offset)
            }
            order = riff == ChunkType.RIFX ? .big : .little
            isRF64 = riff == ChunkType.RF64 || riff == ChunkType.BW64
            // 0 and 0xFFFFFFFF are what streaming writers leave; they bound nothing.
            outerEnd = !isRF64 && size >= 4 && size != UInt32.max ? offset + 8 + Int64(size) : nil
            context.properties.fileType = isRF64 ? .rf64 : .wav
            context.announce(.fileFormat)
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            switch id {
            case ChunkType.fmt, ChunkType.ds64: (limits.maximumFormatChunkBytes, true)
            // Tags with cover art: up to the largest picture afkit carries.
            case "id3 ", "ID3 ": (limits.maximumPictureChunkBytes, false)
            default: (limits.maximumMetadataChunkBytes, false)
            }
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            if chunk.id == ChunkType.data, chunk.size == 0, !isRF64 {
                // A recording never finished: its writer did not come back to fill in the size. As FFmpeg reads
                // it, the audio runs to the end; said where there is any.
                chunk.size = nil
                sizeLeftUnset = true
                context.properties.trace.append(
                    offset: chunk.offset, chunk: chunk.id, "size 0: audio runs to the end of the stream")
            }
            if chunk.size == 0xFFFF_FFFF {
                if isRF64, let size = chunk.id == ChunkType.data ? ds64DataSize : ds64Sizes[chunk.id] {
                    chunk.size = size
                } else if chunk.id == ChunkType.data {
                    // A stream whose writer could not go back to fill in the size: audio to the end.
                    chunk.size = nil
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
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
            case ChunkType.fact, ChunkType.LIST, "cue ", "smpl", "inst", "bext", "id3 ", "ID3 ": return .read
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
                if let frames = body.readInteger(endianness: order, as: UInt32.self) {
                    factFrames = (Int64(frames), chunk.offset)
                }
            case ChunkType.LIST: parseList(chunk, &body, &context)
            case "cue ": parseCues(chunk, &body, &context)
            case "smpl": parseSampler(chunk, &body, &context)
            case "inst": parseInstrument(&body, &context)
            case "bext": parseBroadcastExtension(&body, &context)
            case "id3 ", "ID3 ":
                ID3.frames(body.bytes, at: body.baseOffset).merge(into: &context.properties)
                context.announce(.infoDictionary)
            default: break
            }
        }

        /// `ds64`: 64-bit RIFF size, data size and sample count, then a table of other chunks' sizes.
        private mutating func parseDataSize64(_ chunk: ChunkHeader, _ body: inout ByteCursor) throws {
            guard let riffSize = body.readInteger(endianness: order, as: UInt64.self),
                let dataSize = body.readInteger(endianness: order, as: UInt64.self),
                body.readInteger(endianness: order, as: UInt64.self) != nil
            else {
                throw AudioFileError.invalidChunk(
                    "wav: 'ds64' chunk is \(body.bytes.count) bytes; it needs at least 24", offset: chunk.offset)
            }
            guard dataSize <= UInt64(Int64.max), riffSize <= UInt64(Int64.max) else {
                throw AudioFileError.malformed("wav: 'ds64' sizes do not fit in 63 bits", offset: chunk.bodyOffset)
            }
            ds64DataSize = Int64(dataSize)
            outerEnd = riffSize >= 4 ? Int64(riffSize).saturatingAdd(8) : nil
            let count = body.readInteger(endianness: order, as: UInt32.self) ?? 0
            for _ in 0..<min(count, UInt32(body.remaining / 12)) {
                guard let id = body.readFourCharCode(),
                    let size = body.readInteger(endianness: order, as: UInt64.self)
                else { break }
                ds64Sizes[id] = Int64(clamping: size)
            }
        }

        /// `fmt `: WAVEFORMATEX and its extensions.
        private mutating func parseFormat(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            guard body.remaining >= 14,
                var tag = body.readInteger(endianness: order, as: UInt16.self),
                let channels = body.readInteger(endianness: order, as: UInt16.self),
                let rate = body.readInteger(endianness: order, as: UInt32.self),
                body.readInteger(endianness: order, as: UInt32.self) != nil,  // average bytes per second
                let blockAlign = body.readInteger(endianness: order, as: UInt16.self)
            else {
                throw AudioFileError.invalidChunk(
                    "wav: 'fmt ' chunk is \(body.bytes.count) bytes; it needs at least 14", offset: chunk.offset)
            }
            let bits = body.readInteger(endianness: order, as: UInt16.self) ?? 0
            let extraSize = body.readInteger(endianness: order, as: UInt16.self) ?? 0
            let base = chunk.bodyOffset
            try checkRateAndChannels("wav", sampleRate: Double(rate), channels: UInt32(channels), offset: base + 2)
            var validBits = UInt32(bits)
            let isExtensible = tag == FormatTag.extensible
            if isExtensible {
                guard extraSize >= 22, body.remaining >= 22,
                    let valid = body.readInteger(endianness: order, as: UInt16.self),
                    let mask = body.readInteger(endianness: order, as: UInt32.self),
                    let subformat = body.readInteger(endianness: order, as: UInt16.self),
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
                    validBits <= width * 8,
                    !isFloat || (validBits == 32 && width == 4) || (validBits == 64 && width == 8)
                else {
                    throw AudioFileError.malformed(
                        "wav: \(isFloat ? "float" : "PCM") with \(validBits) bits in \(blockAlign)-byte frames of "
                            + "\(channels) channels cannot be", offset: base + 12)
                }
                // WAVE_FORMAT_EXTENSIBLE's valid bits, and a sample size that is no whole number of bytes, sit at
                // the top of their container; PCMWAVEFORMAT's whole spare bytes (24 bits in 4, as ALSA's arecord
                // writes S24_LE) at its bottom, as hound reads them.
                format = .linearPCM(
                    sampleRate: sampleRate, channels: channelCount, bitsPerChannel: validBits, isFloat: isFloat,
                    isBigEndian: order == .big && width > 1, bytesPerSample: width,
                    isAlignedLow: !isExtensible && !isFloat && width * 8 - validBits >= 8)
            case FormatTag.mulaw, FormatTag.alaw:
                guard UInt32(blockAlign) == channelCount else {
                    throw AudioFileError.malformed(
                        "wav: G.711 needs one byte per sample; block align is \(blockAlign) for \(channels) channels",
                        offset: base + 12)
                }
                format = .g711(tag == FormatTag.mulaw ? .ulaw : .alaw, sampleRate: sampleRate, channels: channelCount)
            case FormatTag.imaADPCM where order == .big:
                // Its blocks' headers hold 16-bit numbers, in an order no RIFX writer has published.
                throw AudioFileError.unsupportedDataFormat(
                    "wav: IMA ADPCM in a big-endian RIFX file; afkit reads RIFX with PCM, float or G.711", offset: base)
            case FormatTag.imaADPCM:
                let declared = extraSize >= 2 ? UInt32(body.readInteger(endianness: order, as: UInt16.self) ?? 0) : 0
                // Each channel has a 4-byte header (one frame) and then 4-bit codes, 8 frames a 4-byte group.
                let perChannel = UInt32(blockAlign) / channelCount
                guard perChannel > 4, perChannel * channelCount == UInt32(blockAlign), bits == 4 || bits == 0 else {
                    throw AudioFileError.malformed(
                        "wav: IMA ADPCM block align \(blockAlign) does not fit \(channels) channels of 4-bit codes",
                        offset: base + 12)
                }
                let computed = (perChannel - 4) * 2 + 1
                if declared != 0 && declared != computed {
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
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

        /// `LIST` of type `INFO` (text subchunks, NUL-terminated, padded to even) or `adtl` (labels of cues).
        private mutating func parseList(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            let type = body.readFourCharCode()
            if type == "adtl" {
                while let id = body.readFourCharCode(),
                    let size = body.readInteger(endianness: order, as: UInt32.self),
                    let content = body.readSlice(Int(min(size, UInt32(body.remaining))))
                {
                    if size % 2 == 1 { _ = body.skip(1) }
                    guard id == "labl", content.count >= 4 else { continue }
                    let cue = ByteCursor(content).getInteger(at: 0, endianness: order, as: UInt32.self) ?? 0
                    labels[Int(cue)] = decodeText(UnsafeRawBufferPointer(rebasing: content[4...]))
                }
                return
            }
            guard type == ChunkType.INFO else { return }
            while let id = body.readFourCharCode(), let size = body.readInteger(endianness: order, as: UInt32.self) {
                guard let text = body.readSlice(Int(min(size, UInt32(body.remaining)))) else { break }
                if size % 2 == 1 { _ = body.skip(1) }
                let key = WAVE.infoKeys[id] ?? id.description
                context.properties.infoDictionary[key] = decodeText(text)
            }
            context.announce(.infoDictionary)
        }

        /// `cue `: points by ID, each at a sample offset in the data (the markers of WAV).
        private func parseCues(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            let count = Int(body.readInteger(endianness: order, as: UInt32.self) ?? 0)
            let present = min(count, body.remaining / 24)
            if present < count {
                context.properties.trace.append(
                    offset: chunk.offset, chunk: chunk.id,
                    "counts \(count) cue points in \(body.remaining) bytes; those present are read")
            }
            for _ in 0..<present {
                let id = body.readInteger(endianness: order, as: UInt32.self) ?? 0
                _ = body.skip(16)  // play position, data chunk ID, chunk start, block start
                let offset = body.readInteger(endianness: order, as: UInt32.self) ?? 0
                context.properties.markers.append(Marker(id: Int(id), framePosition: Int64(offset), name: ""))
            }
            context.announce(.markers)
        }

        /// `smpl`: the MIDI unity note and pitch fraction, then loops (type 0 forward, 1 alternating,
        /// 2 backward) whose `end` is the loop's last sample.
        private mutating func parseSampler(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        ) {
            guard body.remaining >= 36 else { return }
            _ = body.skip(12)  // manufacturer, product, sample period
            let unityNote = Int(body.readInteger(endianness: order, as: UInt32.self) ?? 60)
            let pitchFraction = body.readInteger(endianness: order, as: UInt32.self) ?? 0
            _ = body.skip(8)  // SMPTE format and offset
            let count = Int(body.readInteger(endianness: order, as: UInt32.self) ?? 0)
            _ = body.skip(4)  // sampler data
            var instrument = context.properties.instrument ?? Instrument()
            // The unity note and the cents above it, as the nearest note and -50 to 50 cents from it.
            let cents = Int((Double(pitchFraction) / 4_294_967_296 * 100).rounded())
            instrument.baseNote = min(max(unityNote + (cents > 50 ? 1 : 0), 0), 127)
            instrument.detune = cents > 50 ? cents - 100 : cents
            for index in 0..<min(count, body.remaining / 24) {
                let cue = Int(body.readInteger(endianness: order, as: UInt32.self) ?? 0)
                let type = body.readInteger(endianness: order, as: UInt32.self) ?? 0
                let start = Int64(body.readInteger(endianness: order, as: UInt32.self) ?? 0)
                let last = Int64(body.readInteger(endianness: order, as: UInt32.self) ?? 0)
                _ = body.skip(8)  // fraction, play count
                let mode: LoopPlayMode = type == 1 ? .pingpong : type == 2 ? .backward : .forward
                sampleLoops.append((cue, Loop(start: start, end: last + 1, playMode: mode)))
                let loop = InstrumentLoop(playMode: mode, beginMarker: cue, endMarker: cue)
                if index == 0 { instrument.sustainLoop = loop } else if index == 1 { instrument.releaseLoop = loop }
            }
            context.properties.instrument = instrument
        }

        /// `inst`: unshifted note, fine tune (cents), gain (dB), note and velocity ranges.
        private func parseInstrument(_ body: inout ByteCursor, _ context: inout ParseContext) {
            guard body.remaining >= 7 else { return }
            func byte(signed: Bool = false) -> Int {
                signed
                    ? Int(body.readInteger(endianness: order, as: Int8.self) ?? 0)
                    : Int(body.readInteger(endianness: order, as: UInt8.self) ?? 0)
            }
            var instrument = context.properties.instrument ?? Instrument()
            instrument.baseNote = byte()
            instrument.detune = byte(signed: true)
            instrument.gain = byte(signed: true)
            instrument.lowNote = byte()
            instrument.highNote = byte()
            instrument.lowVelocity = byte()
            instrument.highVelocity = byte()
            context.properties.instrument = instrument
        }

        /// `bext` (Broadcast Wave): description, originator, its reference, origination date and time.
        private func parseBroadcastExtension(_ body: inout ByteCursor, _ context: inout ParseContext) {
            for (key, width) in [
                ("description", 256), ("originator", 32), ("originator reference", 32),
                ("origination date", 10), ("origination time", 8),
            ] {
                guard let field = body.readSlice(width) else { break }
                let text = decodeText(field)
                if !text.isEmpty { context.properties.infoDictionary[key] = text }
            }
            context.announce(.infoDictionary)
        }

        mutating func parseAudioPrefix(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        )
            throws -> Int64
        { 0 }

        package mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {
            // Cue labels, whichever came first; loops as `smpl` gives them.
            for index in context.properties.markers.indices {
                if let label = labels[context.properties.markers[index].id] {
                    context.properties.markers[index].name = label
                }
            }
            context.properties.loops = sampleLoops.map(\.loop)
            if sizeLeftUnset, let bytes = context.properties.audioDataByteCount, bytes > 0 {
                context.noteDamage(
                    "wav: the 'data' chunk states 0 bytes (a recording never finished); the \(bytes) bytes after it, to "
                        + "the end of the file, are read as its audio")
            }
            guard let format = context.properties.dataFormat, format.formatID == .imaADPCMWAVE,
                let packets = context.properties.audioDataPacketCount
            else { return }
            // IMA ADPCM: `fact` states the valid frames only where it falls inside the last block (more than
            // the other blocks hold, no more than all of them). libsndfile writes about half the real count
            // for stereo: trusting any smaller count would drop audio.
            let blockFrames = packets * Int64(format.framesPerPacket)
            if let (frames, offset) = factFrames {
                if frames <= blockFrames && frames > blockFrames - Int64(format.framesPerPacket) {
                    context.properties.packetTableInfo = PacketTableInfo(
                        validFrames: frames, primingFrames: 0, remainderFrames: Int32(clamping: blockFrames - frames))
                } else {
                    context.properties.trace.append(
                        offset: offset, chunk: ChunkType.fact,
                        "states \(frames) frames, not within the last of the blocks, which hold \(blockFrames): "
                            + "the blocks' frames are used")
                }
            }
        }
    }
}

// MARK: - Writing

extension WAVE {
    /// The usual speaker mask for a channel count (mono is front centre).
    static func defaultChannelMask(channels: UInt32) -> UInt32 {
        switch channels {
        case 1: 0x4
        case 2: 0x3
        case 3: 0x7
        case 4: 0x33
        case 5: 0x37
        case 6: 0x3F
        case 7: 0x13F
        case 8: 0x63F
        default: 0
        }
    }

    /// Bytes of the `ds64` body afkit writes (and reserves as `JUNK` in RIFF files).
    static let dataSize64BodySize = 28

    /// Header and trailer of a WAV file: `JUNK` reserved for `ds64` (unless the audio is known to
    /// stay small), `fmt `, `fact` for non-PCM data, `LIST`/`INFO` text, then `data`. A file whose
    /// sizes pass 32 bits becomes RF64 in place.
    package static func layout(
        format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts,
        forceRF64: Bool
    ) throws -> ContainerLayout {
        let format32Limit: Int64 = 0xFFFF_0000
        let reserve = forceRF64 || (options.estimatedDataByteCount.map { $0 >= format32Limit / 2 } ?? true)
        let fmtBody = try formatChunkBody(format, options)
        let isPCM = format.isLinearPCM && !format.formatFlags.contains(.isFloat)
        var chunks: [UInt8] = []
        func append(_ id: FourCharCode, _ body: [UInt8]) {
            chunks.appendFourCharCode(id)
            chunks.appendInteger(UInt32(body.count), endianness: .little)
            chunks += body
            if body.count % 2 == 1 { chunks.append(0) }
        }
        append(ChunkType.fmt, fmtBody)
        let frames = counts.packetTableInfo?.validFrames ?? counts.packetCount * Int64(max(format.framesPerPacket, 1))
        if !isPCM {
            var body: [UInt8] = []
            body.appendInteger(UInt32(clamping: frames), endianness: .little)
            append(ChunkType.fact, body)
        }
        if !options.metadata.isEmpty || !options.pictures.isEmpty {
            var body: [UInt8] = Array("INFO".utf8)
            let names = Dictionary(infoKeys.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
            for (key, value) in options.metadata.sorted(by: { $0.key < $1.key }) {
                guard let id = names[key] else { continue }
                let text = Array(value.utf8) + [0]
                body.appendFourCharCode(id)
                body.appendInteger(UInt32(text.count), endianness: .little)
                body += text
                if text.count % 2 == 1 { body.append(0) }
            }
            if body.count > 4 { append(ChunkType.LIST, body) }
            // The tags INFO has no ID for (afkit's provenance among them) in an `id3 ` chunk, as FFmpeg writes.
            let tag = ID3.tag(metadata: options.metadata.filter { names[$0.key] == nil }, pictures: options.pictures)
            if !tag.isEmpty { append("id3 ", tag) }
        }
        appendSamplerChunks(options, sampleRate: format.sampleRate, append)
        let headerCount = 12 + (reserve ? 8 + dataSize64BodySize : 0) + chunks.count + 8
        let pad = counts.dataByteCount % 2
        let riffSize = Int64(headerCount) - 8 + counts.dataByteCount + pad
        let rf64 = forceRF64 || riffSize > Int64(UInt32.max) - 1
        guard !rf64 || reserve else {
            throw AudioFileError.limitExceeded(
                "wav: \(counts.dataByteCount) bytes of audio pass 4 GiB in a file written without room for 'ds64'",
                offset: nil)
        }
        var header: [UInt8] = []
        header.appendFourCharCode(rf64 ? ChunkType.RF64 : ChunkType.RIFF)
        header.appendInteger(rf64 ? UInt32.max : UInt32(riffSize), endianness: .little)
        header.appendFourCharCode(ChunkType.WAVE)
        if reserve {
            header.appendFourCharCode(rf64 ? ChunkType.ds64 : ChunkType.JUNK)
            header.appendInteger(UInt32(dataSize64BodySize), endianness: .little)
            if rf64 {
                header.appendInteger(UInt64(riffSize), endianness: .little)
                header.appendInteger(UInt64(counts.dataByteCount), endianness: .little)
                header.appendInteger(UInt64(max(frames, 0)), endianness: .little)
                header.appendInteger(UInt32(0), endianness: .little)
            } else {
                header += [UInt8](repeating: 0, count: dataSize64BodySize)
            }
        }
        header += chunks
        header.appendFourCharCode(ChunkType.data)
        header.appendInteger(rf64 ? UInt32.max : UInt32(counts.dataByteCount), endianness: .little)
        return ContainerLayout(header: header, trailer: pad == 1 ? [0] : [])
    }

    /// Markers as `cue ` points named in `LIST/adtl`, loops in `smpl` (its `end` the loop's last frame),
    /// the instrument's note, tuning, gain and ranges in `smpl` and `inst`.
    static func appendSamplerChunks(
        _ options: AudioFileWriterOptions, sampleRate: Double,
        _ append: (FourCharCode, [UInt8]) -> Void
    ) {
        let markers = options.markers.filter {
            $0.id > 0 && $0.framePosition >= 0 && $0.framePosition <= Int64(UInt32.max)
        }
        if !markers.isEmpty {
            var cue: [UInt8] = []
            cue.appendInteger(UInt32(markers.count), endianness: .little)
            for marker in markers {
                cue.appendInteger(UInt32(marker.id), endianness: .little)
                cue.appendInteger(UInt32(marker.id), endianness: .little)  // play order position
                cue.appendFourCharCode(ChunkType.data)
                cue.appendInteger(UInt32(0), endianness: .little)  // chunk start
                cue.appendInteger(UInt32(0), endianness: .little)  // block start
                cue.appendInteger(UInt32(marker.framePosition), endianness: .little)
            }
            append("cue ", cue)
            var adtl: [UInt8] = Array("adtl".utf8)
            for marker in markers where !marker.name.isEmpty {
                let body =
                    withUnsafeBytes(of: UInt32(marker.id).littleEndian, Array.init) + Array(marker.name.utf8) + [0]
                adtl.appendFourCharCode("labl")
                adtl.appendInteger(UInt32(body.count), endianness: .little)
                adtl += body
                if body.count % 2 == 1 { adtl.append(0) }
            }
            if adtl.count > 4 { append(ChunkType.LIST, adtl) }
        }
        guard options.instrument != nil || !options.loops.isEmpty else { return }
        let instrument = options.instrument ?? Instrument()
        // MIDI unity note and pitch fraction: a negative detune is the note below, tuned up.
        let note = instrument.detune < 0 ? instrument.baseNote - 1 : instrument.baseNote
        let cents = instrument.detune < 0 ? 100 + instrument.detune : instrument.detune
        var smpl: [UInt8] = []
        for value in [UInt32(0), 0, UInt32(min(max(1e9 / max(sampleRate, 1e-9), 0), Double(UInt32.max)))] {
            smpl.appendInteger(value, endianness: .little)
        }
        smpl.appendInteger(UInt32(min(max(note, 0), 127)), endianness: .little)
        smpl.appendInteger(UInt32(Double(min(max(cents, 0), 99)) / 100 * 4_294_967_296), endianness: .little)
        smpl.appendInteger(UInt64(0), endianness: .little)  // SMPTE format and offset
        let loops = options.loops.filter { $0.start >= 0 && $0.end > $0.start && $0.end <= Int64(UInt32.max) }
        smpl.appendInteger(UInt32(loops.count), endianness: .little)
        smpl.appendInteger(UInt32(0), endianness: .little)  // sampler data
        for (index, loop) in loops.enumerated() {
            let cue = markers.first { $0.framePosition == loop.start }?.id ?? index + 1
            smpl.appendInteger(UInt32(cue), endianness: .little)
            smpl.appendInteger(
                UInt32(loop.playMode == .pingpong ? 1 : loop.playMode == .backward ? 2 : 0),
                endianness: .little)
            smpl.appendInteger(UInt32(loop.start), endianness: .little)
            smpl.appendInteger(UInt32(loop.end - 1), endianness: .little)
            smpl.appendInteger(UInt64(0), endianness: .little)  // fraction, play count (forever)
        }
        append("smpl", smpl)
        var inst: [UInt8] = [UInt8(clamping: instrument.baseNote)]
        for value in [instrument.detune, instrument.gain] { inst.append(UInt8(bitPattern: Int8(clamping: value))) }
        for value in [instrument.lowNote, instrument.highNote, instrument.lowVelocity, instrument.highVelocity] {
            inst.append(UInt8(clamping: value))
        }
        append("inst", inst)
    }

    /// The `fmt ` body: WAVEFORMATEX, or WAVE_FORMAT_EXTENSIBLE for more than two channels or
    /// samples that do not fill their bytes.
    static func formatChunkBody(_ format: StreamDescription, _ options: AudioFileWriterOptions) throws
        -> [UInt8]
    {
        let channels = format.channelsPerFrame
        guard format.sampleRate == format.sampleRate.rounded(), format.sampleRate >= 1,
            format.sampleRate <= Double(UInt32.max), channels > 0, channels <= UInt32(UInt16.max)
        else {
            throw AudioFileError.unsupportedDataFormat(
                "wav: a WAV file needs a whole sample rate and 1 to 65535 channels, not \(format.summary)", offset: nil)
        }
        let rate = UInt32(format.sampleRate)
        var tag: UInt16
        var bits: UInt16
        var blockAlign = format.bytesPerPacket
        var extra: [UInt8] = []
        var extensible = false
        switch format.formatID {
        case .lpcm:
            let isFloat = format.formatFlags.contains(.isFloat)
            let width = format.bytesPerFrame / channels
            let signed = format.formatFlags.contains(.isSignedInteger)
            guard !format.formatFlags.contains(.isBigEndian) || width == 1,
                isFloat ? (width == 4 || width == 8) : (width == 1 ? !signed : signed)
            else {
                throw AudioFileError.unsupportedDataFormat(
                    "wav: WAV holds little-endian PCM (8-bit unsigned, wider signed) or float, not \(format.summary)",
                    offset: nil)
            }
            tag = isFloat ? FormatTag.ieeeFloat : FormatTag.pcm
            bits = UInt16(width * 8)
            extensible = channels > 2 || format.bitsPerChannel != width * 8
        case .ulaw, .alaw:
            tag = format.formatID == .ulaw ? FormatTag.mulaw : FormatTag.alaw
            bits = 8
        case .imaADPCMWAVE:
            tag = FormatTag.imaADPCM
            bits = 4
            extra.appendInteger(UInt16(clamping: format.framesPerPacket), endianness: .little)
        default:
            throw AudioFileError.unsupportedDataFormat(
                "wav: afkit does not write '\(format.formatID)' data in WAV files", offset: nil)
        }
        if blockAlign == 0 { blockAlign = format.bytesPerFrame }
        var body: [UInt8] = []
        body.appendInteger(extensible ? FormatTag.extensible : tag, endianness: .little)
        body.appendInteger(UInt16(channels), endianness: .little)
        body.appendInteger(rate, endianness: .little)
        let bytesPerSecond =
            format.framesPerPacket > 0
            ? UInt64(rate) * UInt64(blockAlign) / UInt64(format.framesPerPacket) : 0
        body.appendInteger(UInt32(clamping: bytesPerSecond), endianness: .little)
        body.appendInteger(UInt16(clamping: blockAlign), endianness: .little)
        body.appendInteger(bits, endianness: .little)
        if extensible {
            var mask = defaultChannelMask(channels: channels)
            if let layout = options.channelLayout, layout.tag == ChannelLayout.Tag.useChannelBitmap,
                layout.channelCount == Int(channels)
            {
                mask = layout.bitmap
            }
            body.appendInteger(UInt16(22), endianness: .little)
            body.appendInteger(UInt16(format.bitsPerChannel), endianness: .little)
            body.appendInteger(mask, endianness: .little)
            body.appendInteger(tag, endianness: .little)
            body += subformatGUIDTail
        } else if tag != FormatTag.pcm {
            body.appendInteger(UInt16(extra.count), endianness: .little)
            body += extra
        }
        return body
    }
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
