import AudioFormats
import StreamParsing

extension CAF {
    package struct Container: ChunkedContainer {
        static let name = "caf"
        let layout = ChunkLayout(sizeEndianness: .big, sizeWidth: 8, alignment: 1)
        static let fileHeaderSize = 8
        var outerEnd: Int64? { nil }
        var packetTable: (packets: Int64, info: PacketTableInfo, offset: Int64)?
        /// Bytes the packet table's packets add up to.
        var packetTableBytes: Int64 = 0
        /// `strg` strings by ID (marker names), and `regn` regions by ID, resolved at the end.
        var strings: [Int: String] = [:]
        var regions: [Int: (flags: UInt32, markers: [Marker])] = [:]
        var regionOrder: [Int] = []

        init() {}

        mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws {
            let offset = cursor.absoluteOffset
            guard cursor.readFourCharCode() == CAF.fileType else {
                throw AudioFileError.unsupportedFileType("caf: the file does not start with 'caff'", offset: offset)
            }
            let version = cursor.readInteger(endianness: .big, as: UInt16.self) ?? 0
            _ = cursor.readInteger(endianness: .big, as: UInt16.self)
            guard version == 1 else {
                throw AudioFileError.unsupportedFileType(
                    "caf: file version \(version); only version 1 exists",
                    offset: offset + 4)
            }
            context.properties.fileType = .caf
            context.announce(.fileFormat)
        }

        func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool) {
            switch id {
            case ChunkType.desc: (limits.maximumFormatChunkBytes, true)
            case ChunkType.pakt, ChunkType.kuki: (limits.maximumTableChunkBytes, true)
            default: (limits.maximumMetadataChunkBytes, false)
            }
        }

        mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws
            -> ChunkDisposition
        {
            if chunk.size == nil && chunk.id != ChunkType.data {
                throw AudioFileError.invalidChunk(
                    "caf: only the 'data' chunk may have size -1, not '\(chunk.id)'", offset: chunk.offset + 4)
            }
            if context.properties.dataFormat == nil && chunk.id != ChunkType.desc {
                throw AudioFileError.malformed(
                    "caf: the first chunk must be 'desc', not '\(chunk.id)'", offset: chunk.offset)
            }
            switch chunk.id {
            case ChunkType.desc:
                if context.properties.dataFormat != nil {
                    return .skip(note: "a second 'desc' chunk ignored")
                }
                return .read
            case ChunkType.data: return .audioData(prefix: 4)
            case ChunkType.pakt where packetTable != nil:
                // The first table found the packets already delivered; another would contradict them.
                return .skip(note: "a second 'pakt' chunk ignored")
            case ChunkType.pakt, ChunkType.kuki, ChunkType.chan, ChunkType.info, "mark", "strg", "regn", "inst":
                return .read
            case ChunkType.free: return .skip(note: "")
            default: return .skip(note: "unknown chunk skipped")
            }
        }

        mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            switch chunk.id {
            case ChunkType.desc: try parseDescription(chunk, &body, &context)
            case ChunkType.pakt: try parsePacketTable(chunk, &body, &context)
            case ChunkType.kuki:
                context.properties.magicCookie = Array(body.bytes)
                context.announce(.magicCookie)
            case ChunkType.chan:
                context.properties.channelLayout = try parseChannelLayout(chunk, &body)
                context.announce(.channelLayout)
            case ChunkType.info:
                parseInformation(chunk, &body, &context)
            case "strg": parseStrings(&body)
            case "mark":
                _ = body.skip(4)  // SMPTE time type
                let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                context.properties.markers += readMarkers(min(count, body.remaining / 28), &body)
                context.announce(.markers)
            case "regn": parseRegions(&body)
            case "inst": parseInstrument(&body, &context)
            default: break
            }
        }

        mutating func parseAudioPrefix(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        )
            throws -> Int64
        {
            // mEditCount: bumped by editors; nothing to check. A table read before 'data' must fit in it.
            if let table = packetTable, let size = chunk.size, packetTableBytes > size - 4 {
                throw AudioFileError.invalidChunk(
                    "caf: 'pakt' packets add up to \(packetTableBytes) bytes, more than the \(size - 4) of 'data'",
                    offset: table.offset)
            }
            return 0
        }

        private func parseDescription(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext)
            throws
        {
            guard body.remaining >= 32 else {
                throw AudioFileError.invalidChunk(
                    "caf: 'desc' chunk is \(body.remaining) bytes; expected 32", offset: chunk.offset)
            }
            let rateBits = body.readInteger(endianness: .big, as: UInt64.self) ?? 0
            let sampleRate = Double(bitPattern: rateBits)
            let formatID = body.readFourCharCode() ?? FourCharCode(rawValue: 0)
            let cafFlags = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let bytesPerPacket = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let framesPerPacket = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let channels = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let bits = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            try checkRateAndChannels("caf", sampleRate: sampleRate, channels: channels, offset: chunk.bodyOffset)

            var format: StreamDescription
            if formatID == .lpcm {
                guard bits > 0, bytesPerPacket > 0, framesPerPacket == 1, bytesPerPacket % channels == 0,
                    bytesPerPacket / channels <= 8, bits <= bytesPerPacket / channels * 8
                else {
                    throw AudioFileError.malformed(
                        "caf: linear PCM with \(bits) bits in \(bytesPerPacket)-byte packets of \(framesPerPacket) "
                            + "frames for \(channels) channels cannot be", offset: chunk.bodyOffset + 12)
                }
                let isFloat = cafFlags & LinearPCMFlags.isFloat != 0
                if isFloat && bits != 32 && bits != 64 {
                    throw AudioFileError.malformed(
                        "caf: \(bits)-bit float samples cannot be",
                        offset: chunk.bodyOffset + 28)
                }
                // CAF's linear PCM is signed whatever its width.
                format = .linearPCM(
                    sampleRate: sampleRate, channels: channels, bitsPerChannel: bits, isFloat: isFloat,
                    isBigEndian: cafFlags & LinearPCMFlags.isLittleEndian == 0,
                    bytesPerSample: bytesPerPacket / channels, signed8: true)
            } else {
                format = StreamDescription(
                    sampleRate: sampleRate, formatID: formatID,
                    formatFlags: StreamDescription.FormatFlags(rawValue: cafFlags),
                    bytesPerPacket: bytesPerPacket, framesPerPacket: framesPerPacket,
                    bytesPerFrame: framesPerPacket == 1 ? bytesPerPacket : 0, channelsPerFrame: channels,
                    bitsPerChannel: bits)
                switch formatID {
                case .ima4:
                    guard bytesPerPacket == 34 * channels, framesPerPacket == 64 else {
                        throw AudioFileError.malformed(
                            "caf: IMA4 packets are 64 frames in 34 bytes per channel, not \(framesPerPacket) "
                                + "frames in \(bytesPerPacket) bytes", offset: chunk.bodyOffset + 16)
                    }
                    // Writers disagree on bitsPerChannel (FFmpeg writes 4); Apple's description has 0.
                    format = .appleIMA4(sampleRate: sampleRate, channels: channels)
                case .ulaw, .alaw:
                    guard bytesPerPacket == channels, framesPerPacket == 1 else {
                        throw AudioFileError.malformed(
                            "caf: G.711 packets are one byte per channel, not \(bytesPerPacket) bytes for "
                                + "\(channels) channels", offset: chunk.bodyOffset + 16)
                    }
                    format = .g711(formatID, sampleRate: sampleRate, channels: channels)
                default:
                    break
                }
            }
            context.properties.dataFormat = format
            context.announce(.dataFormat)
        }

        /// `pakt`: packet count, valid frames, priming and remainder frames, then one or two varints per
        /// packet (size where packets vary in size, frames where they vary in frames).
        private mutating func parsePacketTable(
            _ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext
        ) throws {
            guard let format = context.properties.dataFormat else { return }
            guard body.remaining >= 24,
                let packets = body.readInteger(endianness: .big, as: Int64.self),
                let valid = body.readInteger(endianness: .big, as: Int64.self),
                let priming = body.readInteger(endianness: .big, as: Int32.self),
                let remainder = body.readInteger(endianness: .big, as: Int32.self)
            else {
                throw AudioFileError.invalidChunk(
                    "caf: 'pakt' chunk is \(body.remaining) bytes; it needs at least 24", offset: chunk.offset)
            }
            guard packets >= 0, valid >= 0, priming >= 0, remainder >= 0 else {
                throw AudioFileError.malformed(
                    "caf: 'pakt' has a negative count (packets \(packets), valid frames \(valid), priming \(priming), "
                        + "remainder \(remainder))", offset: chunk.bodyOffset)
            }
            let needsSizes = format.bytesPerPacket == 0
            let needsFrames = format.framesPerPacket == 0
            if needsSizes || needsFrames {
                // Each entry takes at least one byte: a count the chunk cannot hold is a lie, caught before
                // anything is allocated for it.
                let perEntry: Int64 = (needsSizes ? 1 : 0) + (needsFrames ? 1 : 0)
                guard packets <= Int64(body.remaining) / perEntry else {
                    throw AudioFileError.invalidChunk(
                        "caf: 'pakt' declares \(packets) packets but its \(body.remaining) bytes of table hold at "
                            + "most \(Int64(body.remaining) / perEntry)", offset: chunk.offset)
                }
                var sizes: [UInt32] = []
                var frames: [UInt32] = []
                if needsSizes { sizes.reserveCapacity(Int(packets)) }
                if needsFrames { frames.reserveCapacity(Int(packets)) }
                var totalBytes: Int64 = 0
                for index in 0..<packets {
                    if needsSizes {
                        let size = try readEntry(&body, index: index, of: packets, chunk: chunk)
                        sizes.append(size)
                        totalBytes += Int64(size)
                    }
                    if needsFrames { frames.append(try readEntry(&body, index: index, of: packets, chunk: chunk)) }
                }
                if !needsSizes { totalBytes = packets * Int64(format.bytesPerPacket) }
                packetTableBytes = totalBytes
                if let declared = context.declaredAudioBytes ?? context.properties.audioDataByteCount,
                    context.sawAudioChunk, totalBytes > declared
                {
                    throw AudioFileError.invalidChunk(
                        "caf: 'pakt' packets add up to \(totalBytes) bytes, more than the \(declared) of 'data'",
                        offset: chunk.offset)
                }
                context.packetSizes = needsSizes ? sizes : nil
                context.packetFrames = needsFrames ? frames : nil
                let framesTotal =
                    needsFrames
                    ? frames.reduce(Int64(0)) { $0 + Int64($1) } : packets * Int64(format.framesPerPacket)
                if PacketTableInfo(validFrames: valid, primingFrames: priming, remainderFrames: remainder).totalFrames
                    != framesTotal
                {
                    context.properties.trace.append(
                        offset: chunk.offset, chunk: chunk.id,
                        "valid \(valid) + priming \(priming) + remainder \(remainder) frames differ from the "
                            + "\(framesTotal) frames of the packets")
                }
            }
            packetTable = (
                packets,
                PacketTableInfo(
                    validFrames: valid, primingFrames: priming,
                    remainderFrames: remainder), chunk.offset
            )
            context.properties.packetTableInfo = packetTable?.info
            context.properties.audioDataPacketCount = packets
            context.announce(.packetTableInfo)
            context.announce(.audioDataPacketCount)
        }

        private func readEntry(_ body: inout ByteCursor, index: Int64, of packets: Int64, chunk: ChunkHeader) throws
            -> UInt32
        {
            let offset = body.absoluteOffset
            switch body.readCAFVarint() {
            case .value(let value)? where value <= Int64(UInt32.max):
                return UInt32(value)
            case .value, .overflow:
                throw AudioFileError.malformed(
                    "caf: 'pakt' entry \(index) does not fit in 32 bits", offset: offset)
            case nil:
                throw AudioFileError.invalidChunk(
                    "caf: 'pakt' ends at entry \(index) of \(packets)", offset: offset)
            }
        }

        private func parseChannelLayout(_ chunk: ChunkHeader, _ body: inout ByteCursor) throws -> ChannelLayout {
            guard let tag = body.readInteger(endianness: .big, as: UInt32.self),
                let bitmap = body.readInteger(endianness: .big, as: UInt32.self),
                let count = body.readInteger(endianness: .big, as: UInt32.self)
            else {
                throw AudioFileError.invalidChunk(
                    "caf: 'chan' chunk is \(body.bytes.count) bytes; it needs at least 12", offset: chunk.offset)
            }
            guard Int64(count) * 20 <= Int64(body.remaining) else {
                throw AudioFileError.invalidChunk(
                    "caf: 'chan' declares \(count) channel descriptions but holds \(body.remaining / 20)",
                    offset: chunk.offset)
            }
            var descriptions: [ChannelDescription] = []
            for _ in 0..<count {
                let label = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                let flags = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                let x = Float(bitPattern: body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                let y = Float(bitPattern: body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                let z = Float(bitPattern: body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                descriptions.append(ChannelDescription(label: label, flags: flags, coordinates: (x, y, z)))
            }
            return ChannelLayout(tag: tag, bitmap: bitmap, descriptions: descriptions)
        }

        /// `info`: an entry count, then pairs of NUL-terminated UTF-8 strings.
        /// Marker names from `strg`; loops from the looping regions (the instrument's sustain and release
        /// regions take their play modes and first and last markers).
        private func resolveMarkersAndRegions(_ context: inout ParseContext) {
            for index in context.properties.markers.indices {
                if let name = strings[context.properties.markers[index].id] {
                    context.properties.markers[index].name = name
                }
            }
            for id in regionOrder {
                guard let region = regions[id], let mode = Self.playMode(region.flags),
                    let start = region.markers.map(\.framePosition).min(),
                    let end = region.markers.map(\.framePosition).max(), end > start
                else { continue }
                context.properties.loops.append(Loop(start: start, end: end, playMode: mode))
            }
            guard var instrument = context.properties.instrument else { return }
            func loop(_ named: InstrumentLoop?) -> InstrumentLoop? {
                guard let named, let region = regions[named.beginMarker] else { return named }
                return InstrumentLoop(
                    playMode: Self.playMode(region.flags), beginMarker: region.markers.first?.id ?? 0,
                    endMarker: region.markers.last?.id ?? 0)
            }
            instrument.sustainLoop = loop(instrument.sustainLoop)
            instrument.releaseLoop = loop(instrument.releaseLoop)
            context.properties.instrument = instrument
        }

        /// `strg`: a table of string IDs and offsets, then the NUL-terminated strings.
        private mutating func parseStrings(_ body: inout ByteCursor) {
            let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            guard count <= body.remaining / 12 else { return }
            var entries: [(id: Int, offset: Int64)] = []
            for _ in 0..<count {
                let id = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                let offset = body.readInteger(endianness: .big, as: Int64.self) ?? -1
                entries.append((id, offset))
            }
            let base = body.position
            for entry in entries where entry.offset >= 0 && entry.offset < Int64(body.remaining) {
                let text = UnsafeRawBufferPointer(rebasing: body.bytes[(base + Int(entry.offset))...])
                strings[entry.id] = decodeText(text)
            }
        }

        /// Markers of `mark` and `regn`: type, frame position (a double), ID, SMPTE time, channel.
        private func readMarkers(_ count: Int, _ body: inout ByteCursor) -> [Marker] {
            (0..<count).map { _ in
                _ = body.skip(4)  // marker type
                let position = Double(bitPattern: body.readInteger(endianness: .big, as: UInt64.self) ?? 0)
                let id = Int(body.readInteger(endianness: .big, as: Int32.self) ?? 0)
                _ = body.skip(12)  // SMPTE time, channel
                return Marker(
                    id: id, framePosition: Int64(saturating: position.isFinite ? position.rounded() : 0), name: "")
            }
        }

        /// `regn`: regions, each an ID, flags (1 loop, 2 play forward, 4 play backward) and its markers.
        private mutating func parseRegions(_ body: inout ByteCursor) {
            _ = body.skip(4)  // SMPTE time type
            let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            for _ in 0..<count {
                guard body.remaining >= 12 else { break }
                let id = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                let flags = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                let markers = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                regions[id] = (flags, readMarkers(min(markers, body.remaining / 28), &body))
                regionOrder.append(id)
            }
        }

        /// The play mode of a region's flags, or `nil` where it does not loop.
        static func playMode(_ flags: UInt32) -> LoopPlayMode? {
            guard flags & 1 != 0 else { return nil }
            switch (flags & 2 != 0, flags & 4 != 0) {
            case (true, true): return .pingpong
            case (false, true): return .backward
            default: return .forward
            }
        }

        /// `inst`: base note (a float), note and velocity ranges, gain (dB, a float), then the start, sustain
        /// and release regions' IDs.
        private mutating func parseInstrument(_ body: inout ByteCursor, _ context: inout ParseContext) {
            guard body.remaining >= 28 else { return }
            let base = Float(bitPattern: body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            func byte() -> Int { Int(body.readInteger(endianness: .big, as: UInt8.self) ?? 0) }
            let lowNote = byte(), highNote = byte(), lowVelocity = byte(), highVelocity = byte()
            let gain = Float(bitPattern: body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            _ = body.skip(4)  // start region
            let sustain = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            let release = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            // The nearest note, and the cents (-50 to 50) from it.
            let note = base.isFinite ? min(max(Double(base), 0), 127) : 60
            context.properties.instrument = Instrument(
                baseNote: Int(note.rounded()),
                detune: Int(((note - note.rounded()) * 100).rounded()), lowNote: lowNote, highNote: highNote,
                lowVelocity: lowVelocity, highVelocity: highVelocity,
                gain: gain.isFinite ? Int(max(min(gain, 1000), -1000).rounded()) : 0,
                sustainLoop: sustain == 0
                    ? nil : InstrumentLoop(playMode: nil, beginMarker: sustain, endMarker: sustain),
                releaseLoop: release == 0
                    ? nil : InstrumentLoop(playMode: nil, beginMarker: release, endMarker: release))
        }

        private func parseInformation(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) {
            guard let count = body.readInteger(endianness: .big, as: UInt32.self) else { return }
            var strings: [String] = []
            var start = body.position
            for index in body.position..<body.bytes.count where body.bytes[index] == 0 {
                strings.append(
                    String(
                        decoding: UnsafeRawBufferPointer(rebasing: body.bytes[start..<index]),
                        as: UTF8.self))
                start = index + 1
                if strings.count == Int(min(count, UInt32(Int32.max))) * 2 { break }
            }
            if strings.count < Int(count) * 2 {
                context.properties.trace.append(
                    offset: chunk.offset, chunk: chunk.id,
                    "declares \(count) entries; \(strings.count / 2) are complete")
            }
            for pair in stride(from: 0, to: strings.count - 1, by: 2) {
                context.properties.infoDictionary[strings[pair].lowercased()] = strings[pair + 1]
            }
            context.announce(.infoDictionary)
        }

        package mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws {
            resolveMarkersAndRegions(&context)
            guard let format = context.properties.dataFormat, let present = context.properties.audioDataPacketCount
            else { return }
            guard let table = packetTable else { return }
            if format.hasConstantPackets && table.packets > present && !context.properties.isTruncated {
                // A constant-size format's table cannot name more packets than 'data' holds.
                throw AudioFileError.invalidChunk(
                    "caf: 'pakt' declares \(table.packets) packets; 'data' holds \(present)", offset: table.offset)
            }
            if present < table.packets {
                // Truncated: keep the file's trims, but count only frames that are present.
                let info = table.info
                let framesPresent =
                    format.framesPerPacket > 0
                    ? present * Int64(format.framesPerPacket)
                    : (context.packetFrames ?? []).prefix(Int(present)).reduce(Int64(0)) { $0 + Int64($1) }
                let valid = max(0, min(info.validFrames, framesPresent - Int64(info.primingFrames)))
                let remainder = max(0, framesPresent - Int64(info.primingFrames) - valid)
                context.properties.packetTableInfo = PacketTableInfo(
                    validFrames: valid, primingFrames: info.primingFrames, remainderFrames: Int32(clamping: remainder))
            }
        }
    }
}
