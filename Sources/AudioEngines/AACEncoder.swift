import AudioCodecs
import AudioFormats
internal import CAVCodec

/// Encodes AAC-LC with libavcodec's native `aac` encoder, the only AAC encoder of acceptable quality
/// in Debian's main archive. Packets are raw access units of 1024 frames; the priming is the
/// encoder's real delay (`initial_padding`, 1024 frames), not Apple's 2112, and the remainder is
/// what the last packet holds past the source's last frame.
///
/// afconvert's options map onto the engine as follows (the README has the table):
/// - `-b`: the target bit rate (default 64 kbit/s per channel, less below 32 kHz).
/// - `-s 0`, `1`, `2` (CBR, ABR, constrained VBR): the engine's bit-rate mode, which holds the
///   average to the target over a bit reservoir: an ABR in fact, the closest it comes to any of them.
/// - `-s 3` (VBR): the engine's quality mode, its quality chosen to land near `-b` on music.
/// - `-q 0..127`: the quantizer search: below 32 the fast search, else the two-loop search.
public final class AACEncoder: AudioEncoder {
    /// The rates AAC-LC can signal (the sampling frequency index table).
    public static let sampleRates: [Double] = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000,
        11025, 8000, 7350,
    ]

    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// The engine's delay; 0 for a stream that ended before any packet (there is nothing to trim).
    public var primingFrames: Int { packetsMade == 0 && sourceFrames == 0 && finished ? 0 : delay }
    /// The codec configuration the container records.
    public let magicCookie: [UInt8]?
    /// The largest packet made, in bytes.
    public let maximumPacketSize: Int
    /// The bit rate asked of the engine (bits per second), or `nil` in quality mode.
    public let bitRate: Int?
    private let engine: LibavcodecContext
    private let channels: Int
    private let framesPerPacket = 1024
    private var filled = 0
    private var sourceFrames: Int64 = 0
    private var packetsMade: Int64 = 0
    private var finished = false
    private let delay: Int

    /// What the encoder takes: AAC-LC's rates, up to 8 channels.
    public static let limits = EncoderLimits(sampleRates: sampleRates, maximumChannels: 8) {
        rate, channels in
        // 8 kbit/s a channel at least; at most the 6144 bits a channel's 1024-frame packet may hold.
        8000 * channels...max(8000 * channels, 6144 * channels * Int(rate) / 1024)
    }

    /// The rate AAC-LC can hold nearest to `rate`.
    public static func nearestSampleRate(to rate: Double) -> Double {
        sampleRates.min { abs($0 - rate) < abs($1 - rate) } ?? 44100
    }

    /// The default bit rate for a rate and channel count: 64 kbit/s a channel at 32 kHz and above,
    /// scaled down with the rate below it.
    public static func defaultBitRate(sampleRate: Double, channels: Int) -> Int {
        let perChannel = sampleRate >= 32000 ? 64000 : max(16000, Int(64000 * sampleRate / 32000) / 1000 * 1000)
        return perChannel * channels
    }

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        // libavcodec's encoder has no 7-channel configuration (the registry checked the rest of its limits).
        guard channels != 7 else {
            throw AudioFileError.unsupportedDataFormat(
                "aac: the encoder takes 1 to 6 or 8 channels, not \(channels)",
                offset: nil)
        }
        let strategy = settings.strategy ?? .longTermAverage
        let target = settings.bitRate ?? AACEncoder.defaultBitRate(sampleRate: format.sampleRate, channels: channels)
        let quality = settings.quality ?? 64
        bitRate = strategy == .variable ? nil : target
        let channelCount = channels
        engine = try LibavcodecContext(
            name: "aac", encoder: true,
            options: ["aac_coder": quality < 32 ? "fast" : "twoloop"]
        ) { context, av in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(format.sampleRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
            av.av_channel_layout_default(&context.pointee.ch_layout, Int32(channelCount))
            // Three channels are L R C, AAC's channel configuration 3 (libavcodec's default for three is 2.1,
            // which AAC holds only with a program config element).
            if channelCount == 3 { context.pointee.ch_layout.u.mask = 0x7 }
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            if strategy == .variable {
                context.pointee.flags |= AV_CODEC_FLAG_QSCALE
                context.pointee.global_quality = Int32(
                    (AACEncoder.variableQuality(forBitRate: target, channels: channelCount) * Double(afkit_qp2lambda()))
                        .rounded())
            } else {
                context.pointee.bit_rate = Int64(target)
            }
        }
        delay = Int(engine.context.pointee.initial_padding)
        // libavcodec appends a backward-compatible extension that says "no SBR" (sync 0x2B7); Apple's
        // AAC-LC configs are the two core bytes, and a reader that sees the extension may take the
        // stream for HE-AAC. Keep the core.
        var config = engine.extradata
        // (A channel configuration of 0 is followed by its program config element, which is kept.)
        if config.count > 2, config[0] >> 3 == 2, (config[0] & 7) << 1 | config[1] >> 7 != 15,
            (config[1] >> 3) & 0xF != 0
        {
            config = Array(config[0..<2])
        }
        guard !config.isEmpty, Int(engine.context.pointee.frame_size) == framesPerPacket else {
            throw AudioFileError.unsupportedDataFormat("aac: the engine gave no AudioSpecificConfig", offset: nil)
        }
        maximumPacketSize = 768 * channels
        magicCookie = AudioSpecificConfig.elementaryStreamDescriptor(
            wrapping: config, maximumBitrate: 0,
            averageBitrate: bitRate ?? 0, bufferSize: maximumPacketSize)
        destinationFormat = StreamDescription(
            sampleRate: format.sampleRate, formatID: .aac, bytesPerPacket: 0,
            framesPerPacket: UInt32(framesPerPacket), bytesPerFrame: 0, channelsPerFrame: format.channelsPerFrame,
            bitsPerChannel: 0)
    }

    /// The engine's quality (its `-q:a`, 0.1 to 2) that lands near `bitRate` on music. Measured on 10 s
    /// of SoX's plucked chords at 44.1 kHz stereo: 0.5 gives 80 kbit/s, 1.0 124 kbit/s, 1.5 198 kbit/s
    /// (speech needs more: 177 kbit/s at 1.0). So 1.0 is about 64 kbit/s a channel.
    static func variableQuality(forBitRate bitRate: Int, channels: Int) -> Double {
        min(2, max(0.1, Double(bitRate) / Double(channels) / 64000))
    }

    /// Encodes interleaved frames, appending the whole packets they complete with their descriptions.
    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        let count = frames.count / channels
        var index = 0
        while index < count {
            if filled == 0 { try engine.prepareFrame(count: framesPerPacket) }
            let take = min(framesPerPacket - filled, count - index)
            for channel in 0..<channels {
                let plane = engine.plane(channel, as: Float.self)
                for frame in 0..<take {
                    // The engine's psychoacoustics misbehave on NaN and infinities: silence and full scale.
                    let value = frames[(index + frame) * channels + channel]
                    plane[filled + frame] = value.isNaN ? 0 : min(1, max(-1, value))
                }
            }
            filled += take
            index += take
            if filled == framesPerPacket { try flushFrame(into: &packets) }
        }
    }

    /// Encodes what is left; returns the remainder frames (the last packet's padding).
    public func finish(into packets: inout EncodedPackets) throws -> Int {
        if filled > 0 { try flushFrame(into: &packets) }
        let before = packets.packetCount
        try engine.encode(frames: nil, into: &packets)
        packetsMade += Int64(packets.packetCount - before)
        finished = true
        if packetsMade == 0 && sourceFrames == 0 { return 0 }
        let remainder = packetsMade * Int64(framesPerPacket) - Int64(primingFrames) - sourceFrames
        guard remainder >= 0 else {
            throw AudioFileError.malformed(
                "aac: the engine made \(packetsMade) packets for \(sourceFrames) frames",
                offset: nil)
        }
        return Int(remainder)
    }

    private func flushFrame(into packets: inout EncodedPackets) throws {
        let before = packets.packetCount
        try engine.encode(frames: filled, into: &packets)
        packetsMade += Int64(packets.packetCount - before)
        sourceFrames += Int64(filled)
        filled = 0
    }
}
