// The invariants every fuzz target checks, shared by the libFuzzer binary (Fuzz/build.sh compiles
// this file into it) and by `make test`, which replays the committed corpus and every input that
// ever broke an invariant. Each check returns what went wrong, or nil.
import AssetValidation
import AudioCodecs
import AudioContainers
import AudioFormats
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a stream parser reported, flattened to single packets so any chunking compares equal.
struct StreamRecording: Equatable {
    var properties: [String] = []
    /// Absolute offset and byte size of each packet.
    var packets: [[Int64]] = []
    var frames: [UInt32] = []
    var error: String?
    var unexpectedError: String?
}

/// Streams `bytes` in pieces of the given sizes (cycled), optionally flagging a discontinuity
/// at one offset, and records the events.
func recordStream(_ bytes: [UInt8], sizes: [Int], discontinuityAt: Int? = nil) -> (StreamRecording, StreamProperties) {
    var recording = StreamRecording()
    var parser = AudioFileStream()
    let handler: (AudioFileStream.Event) -> Void = { event in
        switch event {
        case .propertyChanged(let id, _): recording.properties.append("\(id)")
        case .packets(let run):
            let size = run.count > 0 ? run.bytes.count / run.count : 0
            for index in 0..<run.count {
                let description = run.descriptions?[index]
                let offset = run.streamOffset + (description?.startOffset ?? Int64(index * size))
                recording.packets.append([offset, Int64(description?.dataByteSize ?? UInt32(size))])
                recording.frames.append(description?.variableFramesInPacket ?? 0)
            }
        case .seekRequested: break  // not made with requestsSeeks
        }
    }
    do {
        var index = 0
        var turn = 0
        while index < bytes.count {
            let size = max(1, min(sizes[turn % sizes.count], bytes.count - index))
            let flags: AudioFileStream.ParseFlags = discontinuityAt == index ? .discontinuity : []
            try bytes[index..<index + size].withUnsafeBytes {
                try parser.parse($0, flags: flags, streamOffset: Int64(index), handler)
            }
            index += size
            turn += 1
        }
        try parser.finish(handler)
    } catch let error as AudioFileError {
        recording.error = "\(error.code) \(error.offset.map(String.init) ?? "-")"
    } catch {
        recording.unexpectedError = "\(error)"
    }
    return (recording, parser.properties)
}

/// Packets lie inside the input, in order, without overlapping. A paged container's (Ogg's) are placed
/// at the page they begin on: in order, each page inside the input, no packet larger than the input.
private func checkPlacement(_ packets: [[Int64]], inputSize: Int, pagePlaced: Bool = false) -> String? {
    var end: Int64 = 0
    for packet in packets {
        if pagePlaced {
            if packet[0] < end || packet[0] >= Int64(inputSize) || packet[1] < 0 || packet[1] > Int64(inputSize) {
                return "packet \(packet) is placed outside the input or before the page before (at \(end))"
            }
            end = packet[0]
            continue
        }
        if packet[0] < end || packet[1] < 0 || packet[0] + packet[1] > Int64(inputSize) {
            return "packet \(packet) lies outside the input or overlaps the one before (which ended at \(end))"
        }
        end = packet[0] + packet[1]
    }
    return nil
}

/// `AudioFileStream`: chunked parsing equals whole parsing; packets inside the input, in order;
/// byte counts within the input; the packet count equals the packets delivered; a discontinuity
/// anywhere never breaks placement.
func checkStream(_ bytes: [UInt8]) -> String? {
    let (whole, properties) = recordStream(bytes, sizes: [max(bytes.count, 1)])
    if let error = whole.unexpectedError { return "an error that is not an AudioFileError: \(error)" }
    // Piece sizes and the discontinuity's place come from the input itself, so that the fuzzer
    // explores them and every run of one input is the same.
    let sizes = bytes.count >= 3 ? [Int(bytes[0] % 17) + 1, Int(bytes[1] % 5) + 1, Int(bytes[2]) + 1] : [1]
    let (chunked, _) = recordStream(bytes, sizes: sizes)
    if whole != chunked {
        return "chunked parsing (pieces of \(sizes)) differs from whole parsing: \(whole.packets.count) packets, "
            + "error \(whole.error ?? "none") whole; \(chunked.packets.count) packets, error \(chunked.error ?? "none") chunked"
    }
    let pagePlaced = properties.fileType == .ogg
    if let problem = checkPlacement(whole.packets, inputSize: bytes.count, pagePlaced: pagePlaced) { return problem }
    if whole.error == nil {
        if let count = properties.audioDataByteCount, count > Int64(bytes.count) {
            return "audio byte count \(count) exceeds the \(bytes.count)-byte input"
        }
        if let offset = properties.dataOffset, offset > Int64(bytes.count) {
            return "data offset \(offset) lies past the \(bytes.count)-byte input"
        }
        if let packets = properties.audioDataPacketCount, packets != Int64(whole.packets.count) {
            return "packet count \(packets) differs from the \(whole.packets.count) packets delivered"
        }
    }
    if bytes.count > 8 {
        let cut = bytes.count * Int(bytes[bytes.count - 1]) / 256 / 7 * 7
        let (resumed, _) = recordStream(bytes, sizes: [7], discontinuityAt: cut)
        if let error = resumed.unexpectedError { return "after a discontinuity: an error of another type: \(error)" }
        if let problem = checkPlacement(resumed.packets, inputSize: bytes.count, pagePlaced: pagePlaced) {
            return "after a discontinuity: \(problem)"
        }
        if let problem = checkSeek(bytes, packets: whole.packets.count) { return "after a seek: \(problem)" }
    }
    return nil
}

/// A seek from the middle of the input to a packet the input picks: the offset answered lies at or after
/// the data, and the packets after it lie inside the input, each labelled with a true index only where one
/// is known (never below 0).
func checkSeek(_ bytes: [UInt8], packets: Int) -> String? {
    var stream = AudioFileStream()
    let half = bytes.count / 2
    guard (try? stream.parse(Array(bytes[0..<half])) { _ in }) != nil, stream.properties.dataFormat != nil else {
        return nil
    }
    let target = Int64(bytes[bytes.count - 2]) * Int64(max(packets, 1)) / 256
    guard let (offset, _) = try? stream.seek(toPacket: target) else { return nil }
    if let dataOffset = stream.properties.dataOffset, offset < dataOffset {
        return "packet \(target) placed at \(offset), before the audio at \(dataOffset)"
    }
    guard offset >= 0, offset < Int64(bytes.count) else { return nil }
    var problem: String?
    let handler: (AudioFileStream.Event) -> Void = { event in
        guard problem == nil, case .packets(let run) = event else { return }
        if run.streamOffset < 0 || run.streamOffset + Int64(run.bytes.count) > Int64(bytes.count) {
            problem = "packets at \(run.streamOffset) (\(run.bytes.count) bytes) lie outside the input"
        } else if run.firstPacket < 0 {
            problem = "packet index \(run.firstPacket)"
        }
    }
    do {
        try stream.parse(Array(bytes[Int(offset)...]), flags: .discontinuity, handler)
        try stream.finish(handler)
    } catch is AudioFileError {
    } catch {
        return "an error of another type: \(error)"
    }
    return problem
}

/// `AudioFile`: every packet description lies inside the file, in order; reads succeed or throw.
func checkFile(_ bytes: [UInt8]) -> String? {
    // (One file a check: the test replays its inputs in parallel, in one process.)
    let path = "/tmp/afkit-fuzz-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).bin"
    guard let handle = fopen(path, "wb") else { return nil }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
    fclose(handle)
    defer { unlink(path) }
    guard let file = try? AudioFile(path: path) else { return nil }
    var next: Int64 = 0
    // Ogg's packets are placed at their pages; their bytes are read from where they lie.
    let pagePlaced = file.properties.fileType == .ogg
    for packet in 0..<min(file.packetCount, 4096) {
        guard let description = try? file.packetDescription(packet) else {
            return "packet \(packet) of \(file.packetCount) has no description"
        }
        if pagePlaced {
            if description.startOffset < next || description.startOffset >= Int64(bytes.count)
                || Int64(description.dataByteSize) > Int64(bytes.count)
            {
                return
                    "file packet \(packet)'s page at \(description.startOffset) lies outside the file or out of order"
            }
            next = description.startOffset
            continue
        }
        if description.startOffset < next
            || description.startOffset + Int64(description.dataByteSize) > Int64(bytes.count)
        {
            return
                "file packet \(packet) at \(description.startOffset) (\(description.dataByteSize) bytes) lies outside the file"
        }
        next = description.startOffset + Int64(description.dataByteSize)
    }
    if let count = file.properties.audioDataByteCount, count > Int64(bytes.count) {
        return "audio byte count \(count) exceeds the \(bytes.count)-byte file"
    }
    // The first packets read: their descriptions inside the bytes (back to back where joined, as Ogg's).
    if let (read, descriptions) = try? file.readPackets(from: 0, count: 64) {
        let total = descriptions.reduce(0) { $0 + Int($1.dataByteSize) }
        let inside = descriptions.allSatisfy {
            $0.startOffset >= 0 && $0.startOffset + Int64($0.dataByteSize) <= read.count
        }
        if !inside || (pagePlaced ? read.count != total : read.count < total) {
            return "the first packets read are \(read.count) bytes; their descriptions say otherwise"
        }
    }
    return nil
}

/// The IMA4, IMA ADPCM (WAV), G.711 and PCM decoders: the first byte picks format and channel count;
/// decoded frames equal packets × frames per packet; samples of the ADPCM and G.711 codecs stay in
/// [-1, 1); every encoder turns the result, non-finite samples included, back into whole packets
/// (Apple Lossless into one packet per 4096 frames begun, within its stated bound).
/// The payload as one FLAC frame (the stream's depth from the selector, its channels from the header
/// where one parses): decoded to at most the stream's largest block, every sample in [-1, 1], or refused
/// with a typed error.
func checkFLACFrame(_ payload: [UInt8], selector: UInt8) -> String? {
    let header = payload.withUnsafeBytes { FLACFrameHeader($0) }
    let channels = UInt32(header?.channels ?? Int(selector % 3) + 1)
    let format = StreamDescription.flac(
        sampleRate: 44100, channels: channels, bitDepth: [16, 24, 20][Int(selector >> 6) % 3], framesPerPacket: 0)
    guard var decoder = try? FLACDecoder(format: format, magicCookie: nil) else { return "no FLAC decoder" }
    let descriptions = [
        PacketDescription(startOffset: 0, variableFramesInPacket: 0, dataByteSize: UInt32(payload.count))
    ]
    var output: [Float] = []
    let decoded = try? payload.withUnsafeBytes { raw in
        try descriptions.withUnsafeBufferPointer {
            try decoder.decode(raw, packetCount: 1, descriptions: $0, appendingTo: &output)
        }
    }
    guard let frames = decoded else { return nil }
    if frames > decoder.maximumFramesPerPacket || output.count != frames * Int(channels) {
        return "flac: \(frames) frames, \(output.count) samples from one frame"
    }
    if output.contains(where: { !($0 >= -1 && $0 < 1) }) { return "flac: a decoded sample outside [-1, 1)" }
    return nil
}

func checkCodecs(_ bytes: [UInt8]) -> String? {
    guard let selector = bytes.first else { return nil }
    let channels = UInt32(selector % 3) + 1
    let payload = Array(bytes.dropFirst())
    let formats: [StreamDescription] = [
        .appleIMA4(sampleRate: 8000, channels: channels),
        IMAADPCMWAVE.format(sampleRate: 8000, channels: channels, blockAlign: 64 * Int(channels)),
        .g711(.ulaw, sampleRate: 8000, channels: channels),
        .g711(.alaw, sampleRate: 8000, channels: channels),
        .linearPCM(sampleRate: 8000, channels: channels, bitsPerChannel: 24, isBigEndian: selector & 8 != 0),
        .linearPCM(sampleRate: 8000, channels: channels, bitsPerChannel: 32, isFloat: true),
    ]
    if let problem = checkFLACFrame(payload, selector: selector) { return problem }
    let format = formats[Int(selector / 3) % formats.count]
    guard var decoder = try? AudioCodecRegistry.builtIn.decoder(for: format) else {
        return "no decoder for \(format.formatID)"
    }
    let packets = payload.count / Int(format.bytesPerPacket)
    var output: [Float] = []
    guard let frames = try? decoder.decode(payload, packetCount: packets, appendingTo: &output) else { return nil }
    if frames != packets * Int(max(format.framesPerPacket, 1)) {
        return "\(format.formatID): \(frames) frames decoded from \(packets) packets"
    }
    if output.count != frames * Int(channels) { return "output holds \(output.count) samples for \(frames) frames" }
    if format.formatID != .lpcm, output.contains(where: { !($0 >= -1 && $0 < 1) }) {
        return "\(format.formatID): a decoded sample outside [-1, 1)"
    }
    // Whatever was decoded (float PCM brings NaN, infinities and 1e38) goes straight into every encoder.
    var encoders: [(any ConstantPacketEncoder, StreamDescription)] = []
    let ima4 = StreamDescription.appleIMA4(sampleRate: 8000, channels: channels)
    encoders.append((AppleIMA4Encoder(format: ima4, quality: .search(width: 4)), ima4))
    let wave = IMAADPCMWAVE.format(sampleRate: 8000, channels: channels)
    if let encoder = try? IMAADPCMWAVEEncoder(format: wave, quality: .fast) { encoders.append((encoder, wave)) }
    let ulaw = StreamDescription.g711(.ulaw, sampleRate: 8000, channels: channels)
    encoders.append((G711Encoder(format: ulaw), ulaw))
    let s16 = StreamDescription.linearPCM(sampleRate: 8000, channels: channels, bitsPerChannel: 16)
    if let encoder = try? PCMEncoder(format: s16, dither: true) { encoders.append((encoder, s16)) }
    for (encoder, format) in encoders {
        var encoder = encoder
        var encoded: [UInt8] = []
        guard (try? encoder.encode(output, into: &encoded)) != nil, (try? encoder.finish(into: &encoded)) != nil else {
            return "the \(format.formatID) encoder refused \(frames) decoded frames"
        }
        if encoded.count % Int(format.bytesPerPacket) != 0 {
            return "the \(format.formatID) encoder wrote \(encoded.count) bytes: not whole packets"
        }
    }
    // Apple Lossless varies its packets: one per 4096 frames begun, none larger than it says, the padding
    // of the last one returned as the remainder.
    var settings = EncoderSettings(
        format: AppleLossless.format(sampleRate: 8000, channels: channels, bitDepth: 16),
        sourceFormat: s16)
    settings.sourceBitDepth = [16, 20, 24, 32][Int(selector >> 4) % 4]
    guard var alac = try? AppleLosslessEncoder(settings) else { return "no ALAC encoder for \(channels) channels" }
    var alacPackets = EncodedPackets()
    guard (try? output.withUnsafeBufferPointer({ try alac.encode($0, into: &alacPackets) })) != nil,
        let remainder = try? alac.finish(into: &alacPackets)
    else { return "the ALAC encoder refused \(frames) decoded frames" }
    let expected = (frames + AppleLossless.framesPerPacket - 1) / AppleLossless.framesPerPacket
    if alacPackets.packetCount != expected || alacPackets.descriptions.count != expected {
        return "ALAC: \(alacPackets.packetCount) packets for \(frames) frames"
    }
    if let large = alacPackets.descriptions.first(where: { Int($0.dataByteSize) > alac.maximumPacketSize }) {
        return "ALAC: a \(large.dataByteSize)-byte packet; the encoder's bound is \(alac.maximumPacketSize)"
    }
    if frames > 0 && remainder != expected * AppleLossless.framesPerPacket - frames {
        return "ALAC: remainder \(remainder) for \(frames) frames"
    }
    return nil
}

/// The validator: a report for anything, every violation explained, never "ok" with an error.
func checkValidator(_ bytes: [UInt8]) -> String? {
    let names = ["a.wav", "b.caf", "c.aif", "d.mp3", "e.aac", "f.bin"]
    let name = names[Int(bytes.first ?? 0) % names.count]
    let report = AssetValidator(profile: .systemSound).validate(bytes: bytes, name: name)
    if report.violations.contains(where: { $0.message.isEmpty }) { return "a violation without a message" }
    if report.ok && report.violations.contains(where: { $0.severity == .error }) { return "ok despite an error" }
    return nil
}

/// ICY demuxing: the first two bytes pick the metadata interval; audio out never exceeds bytes in
/// and title changes never point past the audio.
func checkICY(_ bytes: [UInt8]) -> String? {
    guard bytes.count > 2 else { return nil }
    let interval = Int(bytes[0]) * 4 + Int(bytes[1]) + 1
    var demuxer = ICYMetadataDemuxer(metadataInterval: interval)
    var audio = 0
    var changes: [ICYMetadataDemuxer.TitleChange] = []
    for start in stride(from: 2, to: bytes.count, by: 13) {
        do {
            changes += try bytes[start..<min(start + 13, bytes.count)].withUnsafeBytes { raw in
                try demuxer.demux(raw) { audio += $0.count }
            }
        } catch let error as AudioFileError {
            // A block that is not metadata: a typed error at a byte that was given.
            guard let offset = error.offset, offset >= 0, offset < Int64(bytes.count - 2) else {
                return "error \(error) at a byte not given"
            }
            break
        } catch {
            return "an untyped error: \(error)"
        }
    }
    if audio > bytes.count - 2 { return "\(audio) audio bytes out of \(bytes.count - 2) in" }
    if Int64(audio) != demuxer.audioByteCount {
        return "audio count \(demuxer.audioByteCount) but \(audio) bytes handed out"
    }
    if changes.contains(where: { $0.audioOffset > Int64(audio) }) { return "a title change past the audio" }
    return nil
}

/// HTTP Live Streaming: a playlist read from any bytes is a typed error or a playlist whose segments have
/// non-negative durations and ranges, and whose own text reads back with as many segments and variants; a
/// segment read from the same bytes leaves facts or an error, and a fragment walk finds its fragments within
/// the bytes.
func checkHLS(_ bytes: [UInt8]) -> String? {
    do {
        switch try HLS.parse(bytes) {
        case .media(let playlist):
            if playlist.segments.contains(where: { $0.duration < 0 || ($0.byteRange?.offset ?? 0) < 0 }) {
                return "a segment with a negative duration or offset"
            }
            guard case .media(let again) = try HLS.parse(Array(playlist.text.utf8)),
                again.segments.count == playlist.segments.count
            else { return "a media playlist's own text reads back differently" }
        case .master(let master):
            // (A master whose tags named nothing complete writes no tag that makes it one.)
            guard !master.variants.isEmpty || !master.renditions.isEmpty else { break }
            guard case .master(let again) = try HLS.parse(Array(master.text.utf8)),
                again.variants.count == master.variants.count
            else { return "a master playlist's own text reads back differently" }
        }
    } catch is AudioFileError {
    } catch {
        return "an untyped error: \(error)"
    }
    // (A run without per-sample fields may count any number of samples: the defaults describe them.)
    if let fragments = try? MP4.trackFragments(in: bytes),
        fragments.contains(where: { $0.offset < 0 || $0.offset >= Int64(bytes.count) })
    {
        return "a track fragment outside the bytes"
    }
    var facts = HLS.SegmentFacts(uri: "s", declaredDuration: 1)
    HLS.measure(bytes, initialization: nil, into: &facts)
    if facts.error == nil, facts.format == nil, facts.kind != .unknown, facts.frames != nil {
        return "a segment with frames and no format"
    }
    _ = ID3.transportStreamTimestamp(atStartOf: bytes)
    return nil
}

/// The fuzz targets by name, as `AFKIT_FUZZ_TARGET` and the corpus folders spell them.
let fuzzChecks: [String: @Sendable ([UInt8]) -> String?] = [
    "stream": { checkStream($0) }, "file": { checkFile($0) }, "codecs": { checkCodecs($0) },
    "validator": { checkValidator($0) }, "icy": { checkICY($0) }, "hls": { checkHLS($0) },
]
