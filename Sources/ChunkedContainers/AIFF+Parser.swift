import AudioFormats
import StreamParsing

extension AIFF {
    package struct Container: ChunkedContainer {
        static let name = "aiff"
        let layout = ChunkLayout(sizeEndianness: .big, sizeWidth: 4, alignment: 2)
        static let fileHeaderSize = 12
        var outerEnd: Int64?
        var isAIFC = false
        /// COMM's frame count (packets for `ima4`) and where COMM sits.
        var commonFrames: (count: Int64, offset: Int64)?
        /// Whether the codec's packets are not delimited in the file (DWVW, QDesign without its
        /// configuration): SSND is one packet.
        var isUndelimited = false
        /// Whether COMM counts packets rather than frames (`ima4` as Apple writes it; QDesign).
        var countsPackets = false
        /// Whether SSND's size was left without its audio by its writer (read to the end).
        var sizeLeftUnset = false

        /// For a codec whose packets the file does not delimit, once COMM and SSND's size are known: one
        /// packet of all of SSND, holding the frames COMM counts.
        func describeUndelimitedAudio(_ context: inout ParseContext) {
            guard isUndelimited, context.packetSizes == nil, let frames = commonFrames?.count,
                let bytes = context.declaredAudioBytes, bytes > 0
            else { return }
            context.packetSizes = [UInt32(clamping: bytes)]
            context.packetFrames = [UInt32(clamping: frames)]
        }

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let offset = cursor.absoluteOffset
            guard cursor.readFourCharCode() == ChunkType.FORM,
                let size = cursor.readInteger(endianness: .big, as: UInt32.self),
                let form = cursor.readFourCharCode(), form == ChunkType.AIFF || form == ChunkType.AIFC
            else {
                throw AudioFileError.unsupportedFileType(
                    "aiff: the file does not start with 'FORM' and 'AIFF' or 'AIFC'", offset: offset)
            }
            isAIFC = form == ChunkType.AIFC
            outerEnd = size >= 4 ? offset + 8 + Int64(size) : nil
            context.properties.fileType = isAIFC ? .aifc : .aiff
            context.announce(.fileFormat)
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            switch id {
            case ChunkType.COMM: (limits.maximumFormatChunkBytes, true)
            case ChunkType.ID3, "id3 ": (limits.maximumPictureChunkBytes, false)
            default: (limits.maximumMetadataChunkBytes, false)
            }
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            switch chunk.id {
            case ChunkType.COMM:
                return context.properties.dataFormat == nil ? .read : .skip(note: "a second 'COMM' chunk ignored")
            case ChunkType.SSND:
                if chunk.size == 8, let frames = commonFrames?.count, frames > 0 {
                    // An offset and a block size, no audio, though COMM counts frames: a recording whose writer
                    // never came back to fill in the size. The audio is what COMM counts (or runs to the end where
                    // its frames have no fixed size), and that is said.
                    let bytesPerFrame = Int64(context.properties.dataFormat?.bytesPerFrame ?? 0)
                    chunk.size =
                        bytesPerFrame > 0 && !countsPackets
                        ? frames.multipliedOrNil(by: bytesPerFrame).map { $0 + 8 } : nil
                    sizeLeftUnset = true
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
                        "size 8 under a COMM of \(frames) frames: audio to the end")
                } else if chunk.size == 0 {
                    // FFmpeg writing to a pipe leaves FORM and SSND sizes at 0: audio to the end.
                    chunk.size = nil
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
                        "size 0: audio runs to the end of the stream")
                }
                return .audioData(prefix: 8)
            case ChunkType.FVER, ChunkType.NAME, ChunkType.AUTH, ChunkType.copyright, ChunkType.ANNO,
                ChunkType.COMT, ChunkType.MARK, ChunkType.INST, ChunkType.ID3, "id3 ":
                return .read
            case ChunkType.wave:
                return isQDesign(context) ? .read : .skip(note: "a codec configuration for no QDesign stream skipped")
            case ChunkType.APPL: return .skip(note: "application data skipped")
            default: return .skip(note: "unknown chunk skipped")
            }
        }

        mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            switch chunk.id {
            case ChunkType.COMM: try parseCommon(chunk, &body, &context)
            case ChunkType.FVER:
                if let version = body.readInteger(endianness: .big, as: UInt32.self), version != aifcVersion1 {
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
                        "unknown AIFF-C version 0x\(String(version, radix: 16))")
                }
            case ChunkType.NAME: setText("title", body, &context)
            case ChunkType.AUTH: setText("artist", body, &context)
            case ChunkType.copyright: setText("copyright", body, &context)
            case ChunkType.ANNO:
                // Every annotation, in order; the first also stays the `comments` text tag.
                let text = decodeText(body.bytes)
                context.properties.annotations.append(text)
                if context.properties.infoDictionary["comments"] == nil { setText("comments", body, &context) }
                context.announce(.infoDictionary)
            case ChunkType.COMT: parseComments(&body, &context)
            case ChunkType.wave: parseQDesignConfiguration(chunk, body, &context)
            case ChunkType.MARK: parseMarkers(chunk, &body, &context)
            case ChunkType.INST: parseInstrument(chunk, &body, &context)
            case ChunkType.ID3, "id3 ":
                ID3.frames(body.bytes, at: body.baseOffset).merge(into: &context.properties)
                context.announce(.infoDictionary)
            default: break
            }
        }

        private func setText(_ key: String, _ body: ByteCursor, _ context: inout ParseContext) {
            context.properties.infoDictionary[key] = decodeText(body.bytes)
            context.announce(.infoDictionary)
        }

        /// COMM: channels, frames, sample size, 80-bit rate; in AIFF-C, a compression type and its name.
        private mutating func parseCommon(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        ) throws {
            guard body.remaining >= 18,
                let channels = body.readInteger(endianness: .big, as: Int16.self),
                let frames = body.readInteger(endianness: .big, as: UInt32.self),
                let sampleSize = body.readInteger(endianness: .big, as: Int16.self),
                let rateBits = body.readExtended80()
            else {
                throw AudioFileError.invalidChunk(
                    "aiff: 'COMM' chunk is \(body.remaining) bytes; it needs at least 18", offset: chunk.offset)
            }
            guard let rate = rateBits.doubleValue else {
                throw AudioFileError.malformed(
                    "aiff: the sample rate is infinite or not a number",
                    offset: chunk.bodyOffset + 8)
            }
            try checkRateAndChannels(
                "aiff", sampleRate: rate, channels: UInt32(max(channels, 0)),
                offset: chunk.bodyOffset)
            var compression = CompressionType.NONE
            if isAIFC {
                if let type = body.readFourCharCode() {
                    compression = type
                } else {
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
                        "AIFF-C 'COMM' without a compression type; taken as 'NONE'")
                }
            }
            let format = try AIFFCompressionType.streamDescription(
                compression: compression, channels: UInt32(channels), sampleSize: Int(sampleSize), sampleRate: rate,
                offset: chunk.bodyOffset)
            // The audio is what SSND holds, as Apple reads it: COMM's count is compared at the end, never
            // used to cut or stretch it.
            commonFrames = (Int64(frames), chunk.offset)
            isUndelimited = format.framesPerPacket == 0
            countsPackets = format.formatID == .ima4
            context.properties.dataFormat = format
            context.announce(.dataFormat)
            describeUndelimitedAudio(&context)
        }

        func isQDesign(_ context: ParseContext) -> Bool {
            guard let id = context.properties.dataFormat?.formatID else { return false }
            return id == "QDM2" || id == "QDMC"
        }

        /// `wave`: QDesign's configuration, as QuickTime stores it (`frma`, then the `QDCA` atom whose
        /// words say the frames and bytes of every packet). It is the decoder's magic cookie, whole, and
        /// it makes SSND a run of constant packets, which COMM counts (as it counts `ima4`'s).
        private mutating func parseQDesignConfiguration(
            _ chunk: ChunkHeader, _ body: ByteCursor, _ context: inout ParseContext
        ) {
            guard var format = context.properties.dataFormat, isQDesign(context), isUndelimited, body.bytes.count >= 48
            else {
                context.properties.trace.append(offset: chunk.offset, chunk: chunk.id, "no QDesign configuration in it")
                return
            }
            func word(_ index: Int) -> UInt32 { body.getInteger(at: 4 * index, endianness: .big, as: UInt32.self) ?? 0 }
            // QDCA: (size, 'QDCA', 1, channels, rate, bit rate, frames a packet, frame size, bytes a packet, ...)
            let frames = word(9)
            let bytes = word(11)
            guard word(4) == FourCharCode("QDCA").rawValue, (1...65536).contains(frames), (1...65536).contains(bytes)
            else {
                context.properties.trace.append(
                    offset: chunk.offset, chunk: chunk.id,
                    "a QDesign configuration without a usable 'QDCA' atom: the audio stays one packet")
                return
            }
            format.framesPerPacket = frames
            format.bytesPerPacket = bytes
            isUndelimited = false
            countsPackets = true
            context.properties.dataFormat = format
            context.properties.magicCookie = Array(body.bytes)
            context.announce(.dataFormat)
            context.announce(.magicCookie)
        }

        /// COMT: comments, each with a time stamp and the marker it belongs to (0: none).
        private func parseComments(_ body: inout ByteCursor, _ context: inout ParseContext) {
            guard let count = body.readInteger(endianness: .big, as: UInt16.self) else { return }
            var texts: [String] = []
            for _ in 0..<count {
                guard let time = body.readInteger(endianness: .big, as: UInt32.self),
                    let marker = body.readInteger(endianness: .big, as: Int16.self),
                    let length = body.readInteger(endianness: .big, as: UInt16.self),
                    let text = body.readSlice(Int(length))
                else { break }
                texts.append(decodeText(text))
                context.properties.comments.append(
                    Comment(timeStamp: time, marker: Int(marker), text: texts[texts.count - 1]))
                if length % 2 == 1 { _ = body.skip(1) }
            }
            if !texts.isEmpty {
                context.properties.infoDictionary["comments"] = texts.joined(separator: "\n")
                context.announce(.infoDictionary)
            }
        }

        private func parseMarkers(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            guard let count = body.readInteger(endianness: .big, as: UInt16.self) else { return }
            for _ in 0..<count {
                guard let id = body.readInteger(endianness: .big, as: Int16.self),
                    let position = body.readInteger(endianness: .big, as: UInt32.self),
                    let length = body.readInteger(endianness: .big, as: UInt8.self),
                    let name = body.readSlice(Int(length))
                else {
                    context.properties.trace.append(offset: chunk.offset, chunk: chunk.id, "marker list cut short")
                    break
                }
                // Pascal string: length byte plus text, padded to an even total.
                if length % 2 == 0 { _ = body.skip(1) }
                context.properties.markers.append(
                    Marker(id: Int(id), framePosition: Int64(position), name: decodeText(name)))
            }
            context.announce(.markers)
        }

        /// INST: base note, detune, note and velocity ranges, gain, then the sustain and release loops
        /// (a play mode between two markers' IDs).
        private func parseInstrument(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            guard body.remaining >= 20 else {
                context.properties.trace.append(offset: chunk.offset, chunk: chunk.id, "shorter than 20 bytes; ignored")
                return
            }
            func byte() -> Int { Int(body.readInteger(endianness: .big, as: Int8.self) ?? 0) }
            func word() -> Int { Int(body.readInteger(endianness: .big, as: Int16.self) ?? 0) }
            func loop() -> InstrumentLoop {
                let mode = word()
                let begin = word()
                let end = word()
                let playMode: LoopPlayMode? = mode == 1 ? .forward : mode == 2 ? .pingpong : nil
                return InstrumentLoop(playMode: playMode, beginMarker: begin, endMarker: end)
            }
            let baseNote = byte(), detune = byte(), lowNote = byte(), highNote = byte()
            let lowVelocity = byte(), highVelocity = byte(), gain = word()
            let sustain = loop()
            let release = loop()
            context.properties.instrument = Instrument(
                baseNote: baseNote, detune: detune, lowNote: lowNote,
                highNote: highNote, lowVelocity: lowVelocity, highVelocity: highVelocity, gain: gain,
                sustainLoop: sustain, releaseLoop: release)
        }

        mutating func parseAudioPrefix(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        )
            throws -> Int64
        {
            let offset = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let blockSize = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            if blockSize != 0 {
                context.properties.trace.append(offset: chunk.offset, chunk: chunk.id, "block size \(blockSize)")
            }
            if isUndelimited, let size = chunk.size {
                context.declaredAudioBytes = size - 8 - Int64(offset)
                describeUndelimitedAudio(&context)
            }
            return Int64(offset)
        }

        package mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {
            context.properties.loops = resolvedLoops(context)
            if sizeLeftUnset, let bytes = context.properties.audioDataByteCount, bytes > 0 {
                context.noteDamage(
                    "aiff: the 'SSND' chunk states no audio though 'COMM' counts frames (a recording never finished); "
                        + "the \(bytes) bytes after it, to the end of the file, are read as its audio")
            }
            guard let (frames, offset) = commonFrames, let present = context.properties.audioDataPacketCount,
                let format = context.properties.dataFormat
            else { return }
            if isUndelimited {
                // One packet of the frames COMM counts, where SSND arrived whole.
                context.properties.packetTableInfo = PacketTableInfo(
                    validFrames: present > 0 ? frames : 0,
                    primingFrames: 0, remainderFrames: 0)
                return
            }
            // COMM counts sample frames (packets of 64 frames for ima4); a count of 0 with audio behind it is
            // a streaming writer's placeholder. Where SSND holds another number, SSND's is the audio.
            // COMM counts packets for ima4 (as Apple writes it) and QDesign, sample frames for everything else.
            let held = countsPackets ? present : present.multipliedOrNil(by: Int64(format.framesPerPacket)) ?? present
            guard frames != held, frames > 0 || held == 0 else { return }
            let unit = countsPackets ? "packets" : "frames"
            let note = "'COMM' counts \(frames) \(unit); 'SSND' holds \(held), which are the audio"
            context.properties.trace.append(offset: offset, chunk: ChunkType.COMM, note)
            context.properties.warnings.append(note)
        }

        /// The instrument's loops in frames, from the positions of the markers they name.
        func resolvedLoops(_ context: ParseContext) -> [Loop] {
            guard let instrument = context.properties.instrument else { return [] }
            return [instrument.sustainLoop, instrument.releaseLoop].compactMap { loop in
                guard let loop, let mode = loop.playMode,
                    let start = context.properties.markers.first(where: { $0.id == loop.beginMarker })?.framePosition,
                    let end = context.properties.markers.first(where: { $0.id == loop.endMarker })?.framePosition,
                    end > start
                else { return nil }
                return Loop(start: start, end: end, playMode: mode)
            }
        }

        /// A file with COMM and no SSND is an empty sound.
        static let allowsMissingAudio = true
    }
}
