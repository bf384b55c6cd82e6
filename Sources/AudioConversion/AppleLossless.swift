import AudioCodecs
import AudioFormats
import CAVCodec

/// Apple Lossless (ALAC) through libavcodec's `alac` encoder and decoder: packets of 4096 frames (the
/// last one shorter, which ALAC signals in the packet), no encoder delay. The magic cookie is the
/// 24-byte ALACSpecificConfig that CAF's `kuki` holds; an MP4 `alac` box wraps it.
public enum AppleLossless {
    /// Frames in every packet but the last.
    public static let framesPerPacket = 4096

    /// The bit depth ALAC stores for a source of `bits`: libavcodec's encoder writes 16 and 24, so 20-bit
    /// sources are held exactly in 24 and wider ones (32-bit integer, float) are rounded to 24.
    public static func storedBitDepth(forSourceBits bits: Int) -> Int { bits <= 16 ? 16 : 24 }

    /// The stream description of ALAC packets.
    public static func format(sampleRate: Double, channels: UInt32, bitDepth: Int) -> StreamDescription {
        .appleLossless(sampleRate: sampleRate, channels: channels, bitDepth: bitDepth,
            framesPerPacket: UInt32(framesPerPacket))
    }

    /// The 24-byte ALACSpecificConfig inside a cookie: bare, after an `alac` atom header (libavcodec's
    /// 36-byte extradata, an MP4 `alac` box) or inside Apple's `frma`/`alac` wrapping.
    public static func specificConfig(inCookie cookie: [UInt8]) -> [UInt8]? {
        if cookie.count == 24 { return cookie }
        // Find the `alac` atom: 4-byte size, 'alac', 4-byte version and flags, then the config.
        let tag: [UInt8] = Array("alac".utf8)
        var index = 4
        while index + 4 + 4 + 24 <= cookie.count {
            if Array(cookie[index..<index + 4]) == tag {
                let start = index + 8
                // 'frma' boxes hold the tag 'alac' as data: the atom we want is followed by a config whose
                // frame length is not 0.
                let config = Array(cookie[start..<start + 24])
                if config[0..<4] != [0, 0, 0, 0] { return config }
            }
            index += 1
        }
        return nil
    }

    /// libavcodec's ALAC extradata (an `alac` atom of 36 bytes) for a config.
    static func atom(_ config: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendInteger(UInt32(36), endianness: .big)
        bytes.appendFourCharCode("alac")
        bytes.appendInteger(UInt32(0), endianness: .big)
        return bytes + config
    }
}

/// Encodes ALAC with libavcodec, keeping 16-bit sources at 16 bits and deeper ones at 24.
public final class AppleLosslessEncoder: AudioEncoder {
    public let destinationFormat: StreamDescription
    public var primingFrames: Int { 0 }
    public let magicCookie: [UInt8]?
    public let maximumPacketSize: Int
    /// Bits per sample stored.
    public let bitDepth: Int
    private let engine: LibavcodecContext
    private let channels: Int
    private var filled = 0
    private var lastPacketFrames = 0

    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        guard (1...8).contains(channels) else {
            throw AudioFileError.unsupportedDataFormat("alac: the encoder takes 1 to 8 channels, not \(channels)",
                offset: nil)
        }
        guard format.sampleRate >= 1, format.sampleRate <= 384000, format.sampleRate == format.sampleRate.rounded() else {
            throw AudioFileError.unsupportedDataFormat("alac: ALAC holds whole rates up to 384 kHz, not \(format.sampleRate) Hz",
                offset: nil)
        }
        let depth = AppleLossless.storedBitDepth(forSourceBits: settings.sourceBitDepth ?? 16)
        bitDepth = depth
        let channelCount = channels
        engine = try LibavcodecContext(name: "alac", encoder: true) { context in
            context.pointee.sample_fmt = depth == 16 ? AV_SAMPLE_FMT_S16P : AV_SAMPLE_FMT_S32P
            context.pointee.bits_per_raw_sample = Int32(depth)
            context.pointee.sample_rate = Int32(format.sampleRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
            context.pointee.frame_size = Int32(AppleLossless.framesPerPacket)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(channelCount))
        }
        guard let config = AppleLossless.specificConfig(inCookie: engine.extradata) else {
            throw AudioFileError.unsupportedDataFormat("alac: the engine gave no ALACSpecificConfig", offset: nil)
        }
        magicCookie = config
        // ALAC's worst case: a verbatim packet, the samples as stored plus a small header.
        maximumPacketSize = AppleLossless.framesPerPacket * channels * depth / 8 + 64
        destinationFormat = AppleLossless.format(sampleRate: format.sampleRate, channels: format.channelsPerFrame,
            bitDepth: depth)
    }

    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        let count = frames.count / channels
        let size = AppleLossless.framesPerPacket
        var index = 0
        while index < count {
            if filled == 0 { try engine.prepareFrame(count: size) }
            let take = min(size - filled, count - index)
            for channel in 0..<channels {
                if bitDepth == 16 {
                    let plane = engine.plane(channel, as: Int16.self)
                    for frame in 0..<take {
                        plane[filled + frame] = Int16(truncatingIfNeeded: quantized(frames[(index + frame) * channels + channel],
                            bits: 16))
                    }
                } else {
                    // libavcodec takes 24-bit samples in the high bits of 32.
                    let plane = engine.plane(channel, as: Int32.self)
                    for frame in 0..<take {
                        plane[filled + frame] = Int32(truncatingIfNeeded: quantized(frames[(index + frame) * channels + channel],
                            bits: 24)) << 8
                    }
                }
            }
            filled += take
            index += take
            if filled == size { try flushFrame(into: &packets) }
        }
    }

    public func finish(into packets: inout EncodedPackets) throws -> Int {
        if filled > 0 { try flushFrame(into: &packets) }
        try engine.encode(frames: nil, into: &packets)
        return lastPacketFrames == 0 ? 0 : AppleLossless.framesPerPacket - lastPacketFrames
    }

    private func flushFrame(into packets: inout EncodedPackets) throws {
        try engine.encode(frames: filled, into: &packets)
        lastPacketFrames = filled
        filled = 0
    }

    /// A sample in -1...1 as a `bits`-bit integer, rounded, clipped; NaN is silence.
    private func quantized(_ value: Float, bits: Int) -> Int64 {
        let scale = Double(Int64(1) << (bits - 1))
        let clipped = value.isNaN ? 0 : Double(value) * scale
        return Int64(min(scale - 1, max(-scale, clipped.rounded(.toNearestOrEven))))
    }
}

/// Decodes ALAC packets with libavcodec to interleaved Float32.
public final class AppleLosslessDecoder: AudioDecoder {
    public var sourceFormat: StreamDescription { engine.sourceFormat }
    public var maximumFramesPerPacket: Int { engine.maximumFramesPerPacket }
    private let engine: LibavcodecDecoder

    /// `magicCookie`: the ALACSpecificConfig, bare or wrapped as Apple and MP4 wrap it.
    public init(format: StreamDescription, magicCookie: [UInt8]?) throws {
        guard let cookie = magicCookie, let config = AppleLossless.specificConfig(inCookie: cookie) else {
            throw AudioFileError.unsupportedDataFormat("alac: no ALACSpecificConfig to configure the decoder", offset: nil)
        }
        let frameLength = Int(UInt32(config[0]) << 24 | UInt32(config[1]) << 16 | UInt32(config[2]) << 8 | UInt32(config[3]))
        let channels = Int(config[9])
        // ALAC holds 1 to 8 channels; Apple's encoders use 4096 frames a packet, and 16384 is far beyond any.
        guard (1...16384).contains(frameLength), (1...8).contains(channels), channels == Int(format.channelsPerFrame) else {
            throw AudioFileError.unsupportedDataFormat(
                "alac: the ALACSpecificConfig says \(frameLength) frames and \(channels) channels; the stream has "
                    + "\(format.channelsPerFrame)", offset: nil)
        }
        engine = try LibavcodecDecoder(codec: "alac", format: format, extradata: AppleLossless.atom(config),
            maximumFramesPerPacket: frameLength)
    }

    public func reset() { engine.reset() }

    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try engine.decode(bytes, packetCount: packetCount, descriptions: descriptions, into: output)
    }
}
