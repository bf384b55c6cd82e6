import AudioFormats
import StreamParsing

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
