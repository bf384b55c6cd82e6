import AudioFormats
import StreamParsing

extension WAVE {
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
                let (subformat, valid) = try readExtensibleFormat(chunk, extraSize: extraSize, &body, &context)
                tag = subformat
                if valid > 0 { validBits = UInt32(valid) }
            }
            guard blockAlign > 0 else {
                throw AudioFileError.malformed("wav: block align is 0", offset: base + 12)
            }
            let channelCount = UInt32(channels)
            let sampleRate = Double(rate)
            var format: StreamDescription
            switch tag {
            case FormatTag.pcm, FormatTag.ieeeFloat:
                format = try linearPCMFormat(
                    isFloat: tag == FormatTag.ieeeFloat, validBits: validBits, blockAlign: blockAlign,
                    channels: channelCount, sampleRate: sampleRate, isExtensible: isExtensible, offset: base + 12)
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
                format = try imaADPCMFormat(
                    chunk, extraSize: extraSize, bits: bits, blockAlign: blockAlign, channels: channelCount,
                    sampleRate: sampleRate, &body, &context)
            default:
                throw AudioFileError.unsupportedDataFormat(
                    "wav: format tag 0x\(String(tag, radix: 16, uppercase: true)) is not supported", offset: base)
            }
            context.properties.dataFormat = format
            context.announce(.dataFormat)
        }

        /// WAVE_FORMAT_EXTENSIBLE's extension: the subformat's tag (its GUID must be a standard format tag's) and
        /// the valid bits; its channel mask, where it has one, is the channel layout.
        private func readExtensibleFormat(
            _ chunk: ChunkHeader, extraSize: UInt16, _ body: inout ByteCursor, _ context: inout ParseContext
        ) throws -> (tag: UInt16, validBits: UInt16) {
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
                    "wav: WAVE_FORMAT_EXTENSIBLE subformat GUID is not a standard format tag",
                    offset: chunk.bodyOffset + 24)
            }
            if mask != 0 {
                context.properties.channelLayout = ChannelLayout(waveChannelMask: mask)
                context.announce(.channelLayout)
            }
            return (subformat, valid)
        }

        /// Integer PCM or float: the sample width the block align gives each channel, holding `validBits`; a
        /// combination no WAVE writer makes is refused.
        private func linearPCMFormat(
            isFloat: Bool, validBits: UInt32, blockAlign: UInt16, channels channelCount: UInt32, sampleRate: Double,
            isExtensible: Bool, offset: Int64
        ) throws -> StreamDescription {
            let width = UInt32(blockAlign) / channelCount
            guard width * channelCount == UInt32(blockAlign), width >= 1, width <= 8, validBits >= 1,
                validBits <= width * 8,
                !isFloat || (validBits == 32 && width == 4) || (validBits == 64 && width == 8)
            else {
                throw AudioFileError.malformed(
                    "wav: \(isFloat ? "float" : "PCM") with \(validBits) bits in \(blockAlign)-byte frames of "
                        + "\(channelCount) channels cannot be", offset: offset)
            }
            // WAVE_FORMAT_EXTENSIBLE's valid bits, and a sample size that is no whole number of bytes, sit at
            // the top of their container; PCMWAVEFORMAT's whole spare bytes (24 bits in 4, as ALSA's arecord
            // writes S24_LE) at its bottom, as hound reads them.
            return .linearPCM(
                sampleRate: sampleRate, channels: channelCount, bitsPerChannel: validBits, isFloat: isFloat,
                isBigEndian: order == .big && width > 1, bytesPerSample: width,
                isAlignedLow: !isExtensible && !isFloat && width * 8 - validBits >= 8)
        }

        /// IMA ADPCM: the samples per block the block align gives (a declared count that disagrees is traced, the
        /// block align wins).
        private mutating func imaADPCMFormat(
            _ chunk: ChunkHeader, extraSize: UInt16, bits: UInt16, blockAlign: UInt16, channels channelCount: UInt32,
            sampleRate: Double, _ body: inout ByteCursor, _ context: inout ParseContext
        ) throws -> StreamDescription {
            let declared = extraSize >= 2 ? UInt32(body.readInteger(endianness: order, as: UInt16.self) ?? 0) : 0
            // Each channel has a 4-byte header (one frame) and then 4-bit codes, 8 frames a 4-byte group.
            let perChannel = UInt32(blockAlign) / channelCount
            guard perChannel > 4, perChannel * channelCount == UInt32(blockAlign), bits == 4 || bits == 0 else {
                throw AudioFileError.malformed(
                    "wav: IMA ADPCM block align \(blockAlign) does not fit \(channelCount) channels of 4-bit codes",
                    offset: chunk.bodyOffset + 12)
            }
            let computed = (perChannel - 4) * 2 + 1
            if declared != 0 && declared != computed {
                context.properties.trace.append(
                    offset: chunk.offset, chunk: chunk.id,
                    "samples per block \(declared) disagrees with block align (\(computed)); block align wins")
            }
            samplesPerBlock = computed
            return StreamDescription(
                sampleRate: sampleRate, formatID: .imaADPCMWAVE, bytesPerPacket: UInt32(blockAlign),
                framesPerPacket: computed, bytesPerFrame: 0, channelsPerFrame: channelCount, bitsPerChannel: 0)
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
