import AudioCodecs
import AudioFormats
internal import COpus

/// Encodes Opus with libopus, the reference encoder: 20 ms packets (960 frames at 48 kHz, the only rate
/// it is given), mono and stereo as one stream, 3 to 8 channels as Vorbis-order surround streams
/// (mapping family 1). The priming is libopus's look-ahead (312 frames), stated as the pre-skip of the
/// `OpusHead` header, which is the magic cookie (Ogg's first packet, CAF's `kuki`).
///
/// afconvert's options map onto the engine as follows (the README has the table):
/// - `-b`: the bit rate (default, as `opusenc`'s: 64 kbit/s a mono stream, 96 kbit/s a stereo pair).
/// - `-s 0` (CBR): constant bit rate, every packet the same size: what Apple's players decode from CAF,
///   and so the default for CAF. `-s 1` and `2` (ABR, constrained VBR): constrained VBR. `-s 3` (VBR):
///   unconstrained VBR, libopus's default and the default for `.opus`.
/// - `-q 0...127`: the encoder's complexity 0 to 10 (`q × 10 / 127`, rounded; 10 when unset).
public final class OpusEncoder: AudioEncoder {
    /// Opus codes at 48 kHz here (the plan resamples to it).
    public static let sampleRate = 48000.0
    /// Frames per packet: 20 ms.
    public static let framesPerPacket = 960
    /// What the encoder takes: 48 kHz, up to 8 channels.
    public static let limits = EncoderLimits(sampleRates: [sampleRate], maximumChannels: 8) {
        _, channels in 6000 * channels...256_000 * channels
    }

    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// libopus's look-ahead; 0 for a stream that ended before any packet.
    public var primingFrames: Int { packetsMade == 0 && finished ? 0 : preSkip }
    /// `OpusHead`: version, channels, pre-skip, the source's rate, gain, channel mapping.
    public let magicCookie: [UInt8]?
    /// The largest packet made, in bytes.
    public let maximumPacketSize: Int
    /// The bit rate asked of the engine (bits per second).
    public let bitRate: Int
    /// The bit-rate control used.
    public let strategy: BitRateStrategy

    private let engine: OpaquePointer
    private let channels: Int
    private let preSkip: Int
    /// For each of the engine's channels (Vorbis order), the channel of the frames given (WAV order).
    private let order: [Int]
    private var buffer: [Float]
    private var filled = 0
    private var output: [UInt8]
    private var sourceFrames: Int64 = 0
    private var packetsMade: Int64 = 0
    private var finished = false

    /// The default bit rate: 64 kbit/s for each single stream and 96 kbit/s for each coupled pair.
    public static func defaultBitRate(streams: Int, coupled: Int) -> Int {
        (streams - coupled) * 64000 + coupled * 96000
    }

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        guard format.sampleRate == Self.sampleRate else {
            throw AudioFileError.unsupportedDataFormat(
                "opus: the encoder takes 48000 Hz, not \(format.sampleRate) Hz", offset: nil)
        }
        guard (1...8).contains(channels) else {
            throw AudioFileError.unsupportedDataFormat(
                "opus: Opus holds 1 to 8 channels here, not \(channels)", offset: nil)
        }
        let quality = settings.quality ?? 127
        guard (0...127).contains(quality) else {
            throw AudioFileError.unsupportedDataFormat("opus: quality \(quality) is outside 0...127", offset: nil)
        }
        let family: Int32 = channels > 2 ? 1 : 0
        var streams: Int32 = 0
        var coupled: Int32 = 0
        var mapping = [UInt8](repeating: 0, count: channels)
        var error: Int32 = 0
        guard
            let engine = opus_multistream_surround_encoder_create(
                Int32(Self.sampleRate), Int32(channels), family, &streams, &coupled, &mapping,
                OPUS_APPLICATION_AUDIO, &error), error == OPUS_OK
        else {
            throw AudioFileError.unsupportedDataFormat(
                "opus: libopus cannot encode \(channels) channels (\(String(cString: opus_strerror(error))))",
                offset: nil)
        }
        self.engine = engine
        let target = settings.bitRate ?? Self.defaultBitRate(streams: Int(streams), coupled: Int(coupled))
        bitRate = target
        strategy = settings.strategy ?? .variable
        var lookahead: Int32 = 0
        let results = [
            afkit_opus_set_bitrate(engine, Int32(target)),
            afkit_opus_set_vbr(engine, strategy == .constant ? 0 : 1),
            afkit_opus_set_vbr_constraint(engine, strategy == .variable ? 0 : 1),
            afkit_opus_set_complexity(engine, Int32((Double(quality) * 10 / 127).rounded())),
            afkit_opus_lookahead(engine, &lookahead),
        ]
        guard results.allSatisfy({ $0 == OPUS_OK }) else {
            opus_multistream_encoder_destroy(engine)
            throw AudioFileError.unsupportedDataFormat("opus: libopus refused the settings", offset: nil)
        }
        preSkip = Int(lookahead)
        order = VorbisEncoder.channelOrder[channels]
        // A packet: each stream's frame (at most 1275 bytes), all but the last self-delimited (2 more bytes).
        maximumPacketSize = 1277 * Int(streams)
        buffer = Array(repeating: 0, count: Self.framesPerPacket * channels)
        output = Array(repeating: 0, count: maximumPacketSize)
        let sourceRate = settings.sourceFormat.sampleRate
        magicCookie = Self.header(
            channels: channels, preSkip: preSkip,
            inputRate: sourceRate >= 1 && sourceRate <= Double(UInt32.max) ? UInt32(sourceRate.rounded()) : 48000,
            family: UInt8(family), streams: UInt8(streams), coupled: UInt8(coupled), mapping: mapping)
        destinationFormat = StreamDescription(
            sampleRate: Self.sampleRate, formatID: .opus, bytesPerPacket: 0,
            framesPerPacket: UInt32(Self.framesPerPacket), bytesPerFrame: 0, channelsPerFrame: UInt32(channels),
            bitsPerChannel: 0)
    }

    deinit { opus_multistream_encoder_destroy(engine) }

    /// `OpusHead` (RFC 7845, section 5.1).
    static func header(
        channels: Int, preSkip: Int, inputRate: UInt32, family: UInt8, streams: UInt8, coupled: UInt8,
        mapping: [UInt8]
    ) -> [UInt8] {
        var head = Array("OpusHead".utf8) + [1, UInt8(channels)]
        head.appendInteger(UInt16(preSkip), endianness: .little)
        head.appendInteger(inputRate, endianness: .little)
        head.appendInteger(Int16(0), endianness: .little)
        head.append(family)
        if family != 0 { head += [streams, coupled] + mapping }
        return head
    }

    /// Encodes interleaved frames, appending the whole packets they complete.
    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        let count = frames.count / channels
        var index = 0
        while index < count {
            let take = min(Self.framesPerPacket - filled, count - index)
            for frame in 0..<take {
                let from = (index + frame) * channels
                let to = (filled + frame) * channels
                for channel in 0..<channels {
                    // NaN and infinities would upset the engine's analysis: silence and full scale.
                    let value = frames[from + order[channel]]
                    buffer[to + channel] = value.isNaN ? 0 : min(1, max(-1, value))
                }
            }
            filled += take
            index += take
            sourceFrames += Int64(take)
            if filled == Self.framesPerPacket { try encodePacket(into: &packets) }
        }
    }

    /// Codes the source's last frames and the look-ahead after them (silence), so every source frame
    /// decodes; returns the decoded frames past the last source frame.
    public func finish(into packets: inout EncodedPackets) throws -> Int {
        guard !finished else { return 0 }
        finished = true
        guard sourceFrames > 0 else { return 0 }
        let needed = sourceFrames + Int64(preSkip)
        while packetsMade * Int64(Self.framesPerPacket) < needed {
            for sample in filled * channels..<buffer.count { buffer[sample] = 0 }
            filled = Self.framesPerPacket
            try encodePacket(into: &packets)
        }
        return Int(packetsMade * Int64(Self.framesPerPacket) - needed)
    }

    private func encodePacket(into packets: inout EncodedPackets) throws {
        let capacity = Int32(output.count)
        let size = buffer.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let from = input.baseAddress, let to = out.baseAddress else { return OPUS_BAD_ARG }
                return opus_multistream_encode_float(engine, from, Int32(Self.framesPerPacket), to, capacity)
            }
        }
        guard size > 0 else {
            throw AudioFileError.illegalOperation("opus: libopus failed (\(String(cString: opus_strerror(size))))")
        }
        output.withUnsafeBytes { packets.append(packet: UnsafeRawBufferPointer(rebasing: $0[0..<Int(size)])) }
        packetsMade += 1
        filled = 0
    }
}
