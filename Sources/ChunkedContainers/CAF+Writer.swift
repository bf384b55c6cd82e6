import AudioFormats
import StreamParsing

extension CAF {
    /// Header and trailer of a CAF file: `desc`, `chan`, `kuki`, `info`, a fixed-size `pakt` for
    /// constant packets of several frames (so IMA4 can state its remainder), then `data`; for
    /// variable packets the full `pakt` follows the audio. While the file is open `data` has size -1,
    /// so a file cut off mid-write still reads to its end.
    /// Markers in `mark` named in `strg` (string ID = marker ID), loops as looping regions in `regn` (IDs
    /// from 1), the instrument in `inst` with the first two loops as its sustain and release regions.
    static func markerChunks(_ options: AudioFileWriterOptions) -> [(FourCharCode, [UInt8])] {
        var chunks: [(FourCharCode, [UInt8])] = []
        func appendMarker(_ body: inout [UInt8], type: FourCharCode, position: Int64, id: Int) {
            body.appendFourCharCode(type)
            body.appendInteger(Double(position).bitPattern, endianness: .big)
            body.appendInteger(Int32(clamping: id), endianness: .big)
            body.appendInteger(UInt32.max, endianness: .big)  // no SMPTE time
            body.appendInteger(UInt32(0), endianness: .big)
            body.appendInteger(UInt32(0), endianness: .big)  // all channels
        }
        if !options.markers.isEmpty {
            var mark: [UInt8] = []
            mark.appendInteger(UInt32(0), endianness: .big)  // SMPTE time type: none
            mark.appendInteger(UInt32(options.markers.count), endianness: .big)
            for marker in options.markers {
                appendMarker(&mark, type: FourCharCode(rawValue: 0), position: marker.framePosition, id: marker.id)
            }
            chunks.append(("mark", mark))
            let named = options.markers.filter { !$0.name.isEmpty }
            if !named.isEmpty {
                var table: [UInt8] = []
                var strings: [UInt8] = []
                for marker in named {
                    table.appendInteger(UInt32(truncatingIfNeeded: marker.id), endianness: .big)
                    table.appendInteger(Int64(strings.count), endianness: .big)
                    strings += Array(marker.name.utf8) + [0]
                }
                var strg: [UInt8] = []
                strg.appendInteger(UInt32(named.count), endianness: .big)
                chunks.append(("strg", strg + table + strings))
            }
        }
        if !options.loops.isEmpty {
            var regn: [UInt8] = []
            regn.appendInteger(UInt32(0), endianness: .big)
            regn.appendInteger(UInt32(options.loops.count), endianness: .big)
            for (index, loop) in options.loops.enumerated() {
                let flags: UInt32 = 1 | (loop.playMode == .backward ? 0 : 2) | (loop.playMode == .forward ? 0 : 4)
                regn.appendInteger(UInt32(index + 1), endianness: .big)
                regn.appendInteger(flags, endianness: .big)
                regn.appendInteger(UInt32(2), endianness: .big)
                appendMarker(&regn, type: "rbeg", position: loop.start, id: 0)
                appendMarker(&regn, type: "rend", position: loop.end, id: 0)
            }
            chunks.append(("regn", regn))
        }
        if options.instrument != nil || !options.loops.isEmpty {
            let instrument = options.instrument ?? Instrument()
            var inst: [UInt8] = []
            inst.appendInteger(
                Float(Double(instrument.baseNote) + Double(instrument.detune) / 100).bitPattern, endianness: .big)
            for value in [instrument.lowNote, instrument.highNote, instrument.lowVelocity, instrument.highVelocity] {
                inst.append(UInt8(clamping: value))
            }
            inst.appendInteger(Float(instrument.gain).bitPattern, endianness: .big)
            inst.appendInteger(UInt32(0), endianness: .big)  // start region
            inst.appendInteger(UInt32(options.loops.count >= 1 ? 1 : 0), endianness: .big)
            inst.appendInteger(UInt32(options.loops.count >= 2 ? 2 : 0), endianness: .big)
            inst.appendInteger(UInt32(0), endianness: .big)  // instrument ID
            chunks.append(("inst", inst))
        }
        return chunks
    }

    package static func layout(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts) throws
        -> ContainerLayout
    {
        var header: [UInt8] = []
        header.appendFourCharCode(fileType)
        header.appendInteger(UInt16(1), endianness: .big)
        header.appendInteger(UInt16(0), endianness: .big)
        try appendDescription(&header, format)
        if let layout = options.channelLayout { appendChannelLayout(&header, layout) }
        // FLAC's cookie as Apple writes it (a whole `dfLa` box), whatever form it came in. Opus: no cookie,
        // as FFmpeg writes it and Apple's players take it (Apple's layout of an Opus cookie is not published,
        // so more than two channels, which need their mapping, are refused); `pakt` states the pre-skip.
        if format.formatID == .vorbis {
            throw AudioFileError.unsupportedDataFormat(
                "caf: Apple's players do not decode Vorbis in CAF; write .ogg", offset: nil)
        }
        if format.formatID == .opus && format.channelsPerFrame > 2 {
            throw AudioFileError.unsupportedDataFormat(
                "caf: Opus in CAF holds 1 or 2 channels (Apple's layout for more is not published); "
                    + "write .opus, or mix down with -c 2", offset: nil)
        }
        if var cookie = counts.cookie(options), format.formatID != .opus {
            if format.formatID == .flac, let info = FLACStreamInfo(cookie: cookie) { cookie = info.appleCookie }
            appendChunkHeader(&header, ChunkType.kuki, size: Int64(cookie.count))
            header += cookie
        }
        if !options.metadata.isEmpty {
            var body: [UInt8] = []
            body.appendInteger(UInt32(options.metadata.count), endianness: .big)
            for (key, value) in options.metadata.sorted(by: { $0.key < $1.key }) {
                body += Array(key.utf8) + [0] + Array(value.utf8) + [0]
            }
            appendChunkHeader(&header, ChunkType.info, size: Int64(body.count))
            header += body
        }

        for (id, body) in markerChunks(options) {
            appendChunkHeader(&header, id, size: Int64(body.count))
            header += body
        }

        let variable = !format.hasConstantPackets
        if !variable && format.framesPerPacket > 1 { header += packetTable(format, counts, entries: false) }

        appendChunkHeader(&header, ChunkType.data, size: counts.isProvisional ? -1 : counts.dataByteCount + 4)
        header.appendInteger(UInt32(0), endianness: .big)  // edit count
        let trailer = variable && !counts.isProvisional ? packetTable(format, counts, entries: true) : []
        return ContainerLayout(header: header, trailer: trailer)
    }

    /// `desc`: the stream description, linear PCM's flags as CAF states them (float or integer, byte order); 8-bit
    /// unsigned samples are refused.
    private static func appendDescription(_ header: inout [UInt8], _ format: StreamDescription) throws {
        var flags = format.formatFlags.rawValue
        if format.isLinearPCM {
            let isFloat = format.formatFlags.contains(.isFloat)
            guard isFloat || format.formatFlags.contains(.isSignedInteger) || format.bitsPerChannel > 8 else {
                throw AudioFileError.unsupportedDataFormat(
                    "caf: linear PCM in CAF is signed or float; 8-bit unsigned samples need converting", offset: nil)
            }
            flags =
                (isFloat ? LinearPCMFlags.isFloat : 0)
                | (format.formatFlags.contains(.isBigEndian) ? 0 : LinearPCMFlags.isLittleEndian)
        }
        appendChunkHeader(&header, ChunkType.desc, size: 32)
        header.appendInteger(format.sampleRate.bitPattern, endianness: .big)
        header.appendFourCharCode(format.formatID)
        header.appendInteger(flags, endianness: .big)
        header.appendInteger(format.bytesPerPacket, endianness: .big)
        header.appendInteger(format.framesPerPacket, endianness: .big)
        header.appendInteger(format.channelsPerFrame, endianness: .big)
        header.appendInteger(format.bitsPerChannel, endianness: .big)
    }

    /// `chan`: the layout's tag, bitmap and channel descriptions.
    private static func appendChannelLayout(_ header: inout [UInt8], _ layout: ChannelLayout) {
        appendChunkHeader(
            &header, ChunkType.chan,
            size: Int64(ChannelLayout.cafChunkSize(descriptionCount: layout.descriptions.count)))
        header.appendInteger(layout.tag, endianness: .big)
        header.appendInteger(layout.bitmap, endianness: .big)
        header.appendInteger(UInt32(layout.descriptions.count), endianness: .big)
        for description in layout.descriptions {
            header.appendInteger(description.label, endianness: .big)
            header.appendInteger(description.flags, endianness: .big)
            header.appendInteger(description.coordinates.0.bitPattern, endianness: .big)
            header.appendInteger(description.coordinates.1.bitPattern, endianness: .big)
            header.appendInteger(description.coordinates.2.bitPattern, endianness: .big)
        }
    }

    /// `pakt`: the packets, valid, priming and remainder frames (the valid frames every packet holds where the
    /// counts state none), and, with `entries`, each packet's size and frames where they vary.
    private static func packetTable(_ format: StreamDescription, _ counts: WrittenCounts, entries: Bool) -> [UInt8] {
        let table =
            counts.packetTableInfo
            ?? PacketTableInfo(
                validFrames: format.framesPerPacket > 0
                    ? counts.packetCount * Int64(format.framesPerPacket)
                    : counts.packetFrames.reduce(0) { $0 + Int64($1) },
                primingFrames: 0, remainderFrames: 0)
        var body: [UInt8] = []
        body.appendInteger(counts.packetCount, endianness: .big)
        body.appendInteger(table.validFrames, endianness: .big)
        body.appendInteger(table.primingFrames, endianness: .big)
        body.appendInteger(table.remainderFrames, endianness: .big)
        if entries {
            for index in 0..<Int(counts.packetCount) {
                if format.bytesPerPacket == 0 { body.appendCAFVarint(Int64(counts.packetSizes[index])) }
                if format.framesPerPacket == 0 { body.appendCAFVarint(Int64(counts.packetFrames[index])) }
            }
        }
        var chunk: [UInt8] = []
        appendChunkHeader(&chunk, ChunkType.pakt, size: Int64(body.count))
        return chunk + body
    }

    private static func appendChunkHeader(_ bytes: inout [UInt8], _ type: FourCharCode, size: Int64) {
        bytes.appendFourCharCode(type)
        bytes.appendInteger(size, endianness: .big)
    }
}
