import AudioCodecs
import AudioFormats
import CAVCodec

/// One opened libavcodec codec context with its reusable frame and packet: the engine under afkit's
/// AAC and ALAC codecs. Frames go in planar, packets come out whole; the context is freed with the
/// object. libavcodec's own log is silenced: afkit's errors say what went wrong.
final class LibavcodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    let packet: UnsafeMutablePointer<AVPacket>
    let name: String

    /// Opens the encoder or decoder called `name` after `configure` has set the context's fields;
    /// `options` are the codec's private AVOptions (`aac_coder`, ...).
    init(name: String, encoder: Bool, options: [String: String] = [:],
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws
    {
        self.name = name
        av_log_set_level(AV_LOG_QUIET)
        let codec = encoder ? avcodec_find_encoder_by_name(name) : avcodec_find_decoder_by_name(name)
        guard let codec, let context = avcodec_alloc_context3(codec) else {
            throw AudioFileError.unsupportedDataFormat("\(name): this libavcodec has no \(name) \(encoder ? "encoder" : "decoder")",
                offset: nil)
        }
        guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            var context: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&context)
            throw AudioFileError.limitExceeded("\(name): out of memory", offset: nil)
        }
        self.context = context
        self.frame = frame
        self.packet = packet
        try configure(context)
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let status = avcodec_open2(context, codec, &dictionary)
        av_dict_free(&dictionary)
        guard status >= 0 else {
            throw AudioFileError.unsupportedDataFormat("\(name): libavcodec cannot open the codec with these settings "
                + "(\(Self.describe(status)))", offset: nil)
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
    }

    /// The codec's extradata (an AudioSpecificConfig for AAC, the `alac` atom for ALAC).
    var extradata: [UInt8] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Sets a context's extradata (a copy, padded as libavcodec requires), before it is opened.
    static func setExtradata(_ bytes: [UInt8], of context: UnsafeMutablePointer<AVCodecContext>) throws {
        guard let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw AudioFileError.limitExceeded("libavcodec: out of memory", offset: nil)
        }
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { buffer.copyMemory(from: source, byteCount: raw.count) }
        }
        av_free(context.pointee.extradata)
        context.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        context.pointee.extradata_size = Int32(bytes.count)
    }

    /// Gives the encoder `frames` planar frames already in `frame` (or `nil` frame to drain), then
    /// appends every packet it has ready to `packets`, each with `variableFrames`.
    func encode(frames: Int?, into packets: inout EncodedPackets, variableFrames: (Int) -> Int) throws {
        let status: Int32
        if let frames {
            frame.pointee.nb_samples = Int32(frames)
            status = avcodec_send_frame(context, frame)
        } else {
            status = avcodec_send_frame(context, nil)
        }
        guard status >= 0 else { throw failure("could not encode", status) }
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == afkit_averror_again() || received == afkit_averror_eof() { return }
            guard received >= 0 else { throw failure("could not encode", received) }
            defer { av_packet_unref(packet) }
            let size = Int(packet.pointee.size)
            guard size > 0, let data = packet.pointee.data else { continue }
            packets.append(packet: UnsafeRawBufferPointer(start: data, count: size),
                variableFrames: variableFrames(Int(packet.pointee.duration)))
        }
    }

    /// Makes `frame` hold `count` frames of the context's sample format and channels, writable.
    func prepareFrame(count: Int) throws {
        if frame.pointee.nb_samples != Int32(count) || frame.pointee.data.0 == nil {
            av_frame_unref(frame)
            frame.pointee.format = context.pointee.sample_fmt.rawValue
            frame.pointee.nb_samples = Int32(count)
            frame.pointee.sample_rate = context.pointee.sample_rate
            guard av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout) >= 0,
                av_frame_get_buffer(frame, 0) >= 0
            else { throw AudioFileError.limitExceeded("\(name): out of memory for a frame", offset: nil) }
        }
        guard av_frame_make_writable(frame) >= 0 else {
            throw AudioFileError.limitExceeded("\(name): out of memory for a frame", offset: nil)
        }
    }

    /// Channel `channel`'s plane of `frame`.
    func plane<T>(_ channel: Int, as type: T.Type) -> UnsafeMutablePointer<T> {
        frame.pointee.extended_data[channel]!.withMemoryRebound(to: T.self, capacity: 1) { $0 }
    }

    func failure(_ what: String, _ status: Int32) -> AudioFileError {
        .malformed("\(name): libavcodec \(what) (\(Self.describe(status)))", offset: nil)
    }

    static func describe(_ status: Int32) -> String {
        var text = [CChar](repeating: 0, count: 128)
        av_strerror(status, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
