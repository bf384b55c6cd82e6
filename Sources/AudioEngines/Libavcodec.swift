import AudioCodecs
import AudioFormats
internal import CAVCodec

/// libavcodec's functions, loaded when a codec first needs them (the CAVCodec shim says why): a
/// conversion that uses no libavcodec codec never loads it, and afkit runs where it is not installed.
enum LibAV {
    private static let loaded = loadFunctionTable(of: "libavcodec", with: afkit_av_load)

    /// The functions, or why libavcodec cannot be used.
    static func functions() throws -> afkit_av { try loaded.get() }

    /// Whether libavcodec could be loaded (a decoder with another engine can stand in where not).
    static var isAvailable: Bool { (try? loaded.get()) != nil }
}

/// One opened libavcodec codec context with its reusable frame and packet: the engine under afkit's
/// AAC and ALAC codecs. Frames go in planar, packets come out whole; the context is freed with the
/// object. libavcodec's own log is silenced: afkit's errors say what went wrong.
final class LibavcodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    let packet: UnsafeMutablePointer<AVPacket>
    let name: String
    let av: afkit_av

    /// Opens the encoder or decoder called `name` after `configure` has set the context's fields;
    /// `options` are the codec's private AVOptions (`aac_coder`, ...).
    init(
        name: String, encoder: Bool, options: [String: String] = [:],
        configure: (UnsafeMutablePointer<AVCodecContext>, afkit_av) throws -> Void
    ) throws {
        self.name = name
        let av = try LibAV.functions()
        self.av = av
        av.av_log_set_level(AV_LOG_QUIET)
        let codec = encoder ? av.avcodec_find_encoder_by_name(name) : av.avcodec_find_decoder_by_name(name)
        guard let codec, let context = av.avcodec_alloc_context3(codec) else {
            throw AudioFileError.unsupportedDataFormat(
                "\(name): this libavcodec has no \(name) \(encoder ? "encoder" : "decoder")",
                offset: nil)
        }
        guard let frame = av.av_frame_alloc(), let packet = av.av_packet_alloc() else {
            var context: UnsafeMutablePointer<AVCodecContext>? = context
            av.avcodec_free_context(&context)
            throw AudioFileError.limitExceeded("\(name): out of memory", offset: nil)
        }
        self.context = context
        self.frame = frame
        self.packet = packet
        try configure(context, av)
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { _ = av.av_dict_set(&dictionary, key, value, 0) }
        let status = av.avcodec_open2(context, codec, &dictionary)
        av.av_dict_free(&dictionary)
        guard status >= 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "\(name): libavcodec cannot open the codec with these settings "
                    + "(\(Self.describe(status, av: av)))", offset: nil)
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        av.avcodec_free_context(&context)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av.av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av.av_packet_free(&packet)
    }

    /// The codec's extradata (an AudioSpecificConfig for AAC, the `alac` atom for ALAC).
    var extradata: [UInt8] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Sets a context's extradata (a copy, padded as libavcodec requires), before it is opened.
    static func setExtradata(_ bytes: [UInt8], of context: UnsafeMutablePointer<AVCodecContext>, av: afkit_av) throws {
        guard let buffer = av.av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw AudioFileError.limitExceeded("libavcodec: out of memory", offset: nil)
        }
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { buffer.copyMemory(from: source, byteCount: raw.count) }
        }
        av.av_free(context.pointee.extradata)
        context.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        context.pointee.extradata_size = Int32(bytes.count)
    }

    /// Gives the encoder `frames` planar frames already in `frame` (or `nil` frame to drain), then
    /// appends every packet it has ready to `packets` (AAC and ALAC state a constant frame count per
    /// packet, so descriptions carry sizes only).
    func encode(frames: Int?, into packets: inout EncodedPackets) throws {
        let status: Int32
        if let frames {
            frame.pointee.nb_samples = Int32(frames)
            status = av.avcodec_send_frame(context, frame)
        } else {
            status = av.avcodec_send_frame(context, nil)
        }
        guard status >= 0 else { throw failure("could not encode", status) }
        while true {
            let received = av.avcodec_receive_packet(context, packet)
            if received == afkit_averror_again() || received == afkit_averror_eof() { return }
            guard received >= 0 else { throw failure("could not encode", received) }
            defer { av.av_packet_unref(packet) }
            let size = Int(packet.pointee.size)
            guard size > 0, let data = packet.pointee.data else { continue }
            packets.append(packet: UnsafeRawBufferPointer(start: data, count: size))
        }
    }

    /// Makes `frame` hold `count` frames of the context's sample format and channels, writable.
    func prepareFrame(count: Int) throws {
        if frame.pointee.nb_samples != Int32(count) || frame.pointee.data.0 == nil {
            av.av_frame_unref(frame)
            frame.pointee.format = context.pointee.sample_fmt.rawValue
            frame.pointee.nb_samples = Int32(count)
            frame.pointee.sample_rate = context.pointee.sample_rate
            guard av.av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout) >= 0,
                av.av_frame_get_buffer(frame, 0) >= 0
            else { throw AudioFileError.limitExceeded("\(name): out of memory for a frame", offset: nil) }
        }
        guard av.av_frame_make_writable(frame) >= 0 else {
            throw AudioFileError.limitExceeded("\(name): out of memory for a frame", offset: nil)
        }
    }

    /// Channel `channel`'s plane of `frame`.
    func plane<T>(_ channel: Int, as type: T.Type) -> UnsafeMutablePointer<T> {
        guard let plane = frame.pointee.extended_data[channel] else {
            preconditionFailure(
                "libavcodec: a frame allocated for \(channel + 1) channels or more has no plane \(channel)")
        }
        return plane.withMemoryRebound(to: T.self, capacity: 1) { $0 }
    }

    /// libavcodec's refusal, worded; `offset`: where the packet starts in the bytes the decoder was given.
    func failure(_ what: String, _ status: Int32, offset: Int? = nil) -> AudioFileError {
        .malformed("\(name): libavcodec \(what) (\(Self.describe(status, av: av)))", offset: offset.map(Int64.init))
    }

    static func describe(_ status: Int32, av: afkit_av) -> String {
        var text = [CChar](repeating: 0, count: 128)
        _ = av.av_strerror(status, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Any libavcodec audio decoder as an `AudioDecoder`: packets in (each with its description),
/// interleaved Float32 out, whatever sample format the codec gives.
public final class LibavcodecDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The most frames one packet decodes to.
    public let maximumFramesPerPacket: Int
    /// Whether a packet the codec refuses decodes to a packet of silence instead of an error (MPEG
    /// audio: a damaged frame, or one whose bit reservoir lies before a cut, costs one frame, as
    /// players and libmp3lame's decoder treat it).
    public let concealsErrors: Bool
    /// Packets replaced with silence so far.
    public private(set) var concealedPackets = 0
    private let engine: LibavcodecContext

    /// Packets of a constant size given to the engine at once (codecs that take any whole number of
    /// them, such as MACE and G.722, whose packets are a few bytes).
    public let packetsPerCall: Int
    /// Whether a packet that decodes to one channel of a two-channel stream fills both (MPEG audio, whose
    /// frames may switch between mono and stereo: the stream is read at its larger layout, as FFmpeg does).
    private let upmixesMono: Bool
    /// Which packets carry no sound of their own and decode to a packet of silence, never reaching the engine
    /// (AMR's NO_DATA and comfort-noise frames, legal in a stream, which libavcodec refuses).
    private let isSilentPacket: (@Sendable (UnsafeRawBufferPointer) -> Bool)?

    /// `codec` is libavcodec's decoder name (`alac`, `aac`, `mp3float`); `extradata` its configuration;
    /// `setsBlockAlign` gives the engine the constant packet size too (as FFmpeg's demuxers do for QDesign).
    public init(
        codec: String, format: StreamDescription, extradata: [UInt8]?, maximumFramesPerPacket: Int,
        concealsErrors: Bool = false, packetsPerCall: Int = 1, setsBlockAlign: Bool = false,
        isSilentPacket: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil, upmixesMono: Bool = false
    ) throws {
        sourceFormat = format
        self.isSilentPacket = isSilentPacket
        self.upmixesMono = upmixesMono
        self.maximumFramesPerPacket = maximumFramesPerPacket
        self.concealsErrors = concealsErrors
        self.packetsPerCall = max(packetsPerCall, 1)
        engine = try LibavcodecContext(name: codec, encoder: false) { context, av in
            context.pointee.sample_rate = Int32(clamping: Int64(saturating: format.sampleRate))
            av.av_channel_layout_default(&context.pointee.ch_layout, Int32(format.channelsPerFrame))
            if setsBlockAlign { context.pointee.block_align = Int32(clamping: format.bytesPerPacket) }
            if let extradata { try LibavcodecContext.setExtradata(extradata, of: context, av: av) }
        }
    }

    /// Forgets the state kept between packets (after a seek).
    public func reset() { engine.av.avcodec_flush_buffers(engine.context) }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        let name = engine.name
        guard packetCount > 0 else { return 0 }
        guard let base = bytes.baseAddress, descriptions != nil || sourceFormat.bytesPerPacket > 0 else {
            throw AudioFileError.invalidPacket("\(name): packets vary in size; each needs a description", offset: nil)
        }
        // Packets of a constant size go to the engine `packetsPerCall` at a time.
        let constant = Int(sourceFormat.bytesPerPacket)
        let calls = descriptions == nil ? (packetCount + packetsPerCall - 1) / packetsPerCall : packetCount
        let channels = Int(sourceFormat.channelsPerFrame)
        var written = 0
        for index in 0..<calls {
            let start = descriptions.map { Int($0[index].startOffset) } ?? index * packetsPerCall * constant
            let size =
                descriptions.map { Int($0[index].dataByteSize) }
                ?? min(packetsPerCall, packetCount - index * packetsPerCall) * constant
            guard start >= 0, size > 0, start + size <= bytes.count else {
                throw AudioFileError.invalidPacket(
                    "\(name): a packet lies outside the bytes given", offset: Int64(max(0, start)))
            }
            if let isSilentPacket, descriptions != nil,
                isSilentPacket(UnsafeRawBufferPointer(start: base + start, count: size))
            {
                let frames = Int(sourceFormat.framesPerPacket)
                guard (written + frames) * channels <= output.count else {
                    throw AudioFileError.invalidPacket(
                        "\(name): more frames than the output holds", offset: Int64(start))
                }
                for sample in written * channels..<(written + frames) * channels { output[sample] = 0 }
                written += frames
                continue
            }
            engine.packet.pointee.data = UnsafeMutablePointer(
                mutating: (base + start).assumingMemoryBound(to: UInt8.self))
            engine.packet.pointee.size = Int32(size)
            let sent = engine.av.avcodec_send_packet(engine.context, engine.packet)
            engine.packet.pointee.data = nil
            engine.packet.pointee.size = 0
            func refuse(_ status: Int32) throws {
                let frames = Int(sourceFormat.framesPerPacket)
                guard concealsErrors, frames > 0, (written + frames) * channels <= output.count else {
                    throw engine.failure("could not decode the packet", status, offset: start)
                }
                for sample in written * channels..<(written + frames) * channels { output[sample] = 0 }
                written += frames
                concealedPackets += 1
            }
            guard sent >= 0 else {
                try refuse(sent)
                continue
            }
            while true {
                let received = engine.av.avcodec_receive_frame(engine.context, engine.frame)
                if received == afkit_averror_again() || received == afkit_averror_eof() { break }
                guard received >= 0 else {
                    try refuse(received)
                    break
                }
                defer { engine.av.av_frame_unref(engine.frame) }
                let frames = Int(engine.frame.pointee.nb_samples)
                let decodedChannels = Int(engine.frame.pointee.ch_layout.nb_channels)
                // A mono frame of a stream that is stereo elsewhere (MPEG audio may switch) fills both channels.
                let spreadsMono = upmixesMono && decodedChannels == 1 && channels == 2
                guard decodedChannels == channels || spreadsMono else {
                    throw AudioFileError.invalidPacket(
                        "\(name): a packet decodes to \(decodedChannels) channels; the stream has \(channels)",
                        offset: Int64(start))
                }
                guard (written + frames) * channels <= output.count else {
                    // More frames than the packets can hold: a packet's bytes are not one packet (a damaged table).
                    throw AudioFileError.invalidPacket(
                        "\(name): the packets decode to more than the \(output.count / channels) frames they can hold "
                            + "(\(written + frames)): a packet's size or place is damaged", offset: Int64(start))
                }
                let region = UnsafeMutableBufferPointer(rebasing: output[(written * channels)...])
                try interleave(frames, channels: decodedChannels, into: region)
                if spreadsMono {
                    for frame in (0..<frames).reversed() {
                        region[2 * frame + 1] = region[frame]
                        region[2 * frame] = region[frame]
                    }
                }
                written += frames
            }
        }
        return written
    }

    /// Copies the decoded frame's planes (or its one interleaved plane) into `output` as Float32.
    private func interleave(_ frames: Int, channels: Int, into output: UnsafeMutableBufferPointer<Float>) throws {
        let format = AVSampleFormat(rawValue: engine.frame.pointee.format)
        @inline(__always) func copy<T>(_ type: T.Type, planar: Bool, _ convert: (T) -> Float) {
            guard planar else {
                let samples = engine.plane(0, as: T.self)
                for index in 0..<frames * channels { output[index] = convert(samples[index]) }
                return
            }
            if channels == 2 {
                // Stereo, the common case: both planes in one pass, the output written in order.
                let (left, right) = (engine.plane(0, as: T.self), engine.plane(1, as: T.self))
                for frame in 0..<frames {
                    output[2 * frame] = convert(left[frame])
                    output[2 * frame + 1] = convert(right[frame])
                }
                return
            }
            for channel in 0..<channels {
                let plane = engine.plane(channel, as: T.self)
                for frame in 0..<frames { output[frame * channels + channel] = convert(plane[frame]) }
            }
        }
        switch format {
        case AV_SAMPLE_FMT_FLTP: copy(Float.self, planar: true) { $0 }
        case AV_SAMPLE_FMT_FLT: copy(Float.self, planar: false) { $0 }
        case AV_SAMPLE_FMT_S16P: copy(Int16.self, planar: true) { Float($0) / 32768 }
        case AV_SAMPLE_FMT_S16: copy(Int16.self, planar: false) { Float($0) / 32768 }
        case AV_SAMPLE_FMT_S32P: copy(Int32.self, planar: true) { Float(Double($0) / 2_147_483_648) }
        case AV_SAMPLE_FMT_S32: copy(Int32.self, planar: false) { Float(Double($0) / 2_147_483_648) }
        default:
            throw AudioFileError.unsupportedDataFormat(
                "\(engine.name): sample format \(format.rawValue) is not handled",
                offset: nil)
        }
    }
}
