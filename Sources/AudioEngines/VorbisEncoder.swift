import AudioCodecs
import AudioFormats
internal import CVorbis

/// Encodes Vorbis with libvorbis and libvorbisenc, the reference encoder (what `oggenc` runs): 1 to 8 channels
/// in Vorbis I's channel order, at the source's rate. The magic cookie is the stream's three headers Xiph-laced
/// (identification, comment, setup), as Ogg's reader and FFmpeg's decoder take them; the Ogg writer puts its
/// own comment header in place of the engine's.
///
/// A packet decodes to a quarter of its block plus a quarter of the block before (the first packet, only
/// priming the overlap, to none), so Vorbis has no priming to record; the engine ends the stream's last
/// packet at the last source frame, and the frames decoded past it are the remainder.
///
/// afconvert's options map onto the engine as follows (the README has the table):
/// - `-q 0...127`: libvorbis's quality, `oggenc -q` −1 to 10 as `q × 11 / 127 − 1` (default 3, `oggenc`'s).
/// - `-b`: the bit rate. With `-s 3` (VBR) or no `-s`, as `oggenc -b`: the quality libvorbisenc's mode for that
///   rate has, its bit-rate management off, so the rate is the mode's nominal one and the file's follows the sound
///   (a quiet or simple sound takes less). Through libvorbisenc's management otherwise: `-s 0` (CBR) holds every
///   second to it (minimum = maximum = nominal); `-s 2` (constrained VBR) never goes above it; `-s 1` (ABR)
///   averages it, sound or not. Without `-b`, quality VBR.
public final class VorbisEncoder: AudioEncoder {
    /// What the encoder takes: 1 to 8 channels (Vorbis I's orders), any rate libvorbisenc has a mode for.
    public static let limits = EncoderLimits(maximumChannels: 8) { _, channels in
        // libvorbisenc's managed modes run from about 16 to 250 kbit/s a channel (it refuses outside them).
        16000 * channels...250_000 * channels
    }
    /// `oggenc`'s default quality (3 on its −1 to 10 scale).
    public static let defaultQuality: Float = 3

    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// Vorbis records no priming: the first packet decodes to no frames.
    public var primingFrames: Int { 0 }
    /// The three headers, Xiph-laced.
    public let magicCookie: [UInt8]?
    /// The largest packet made so far, in bytes (a long block's at the highest quality).
    public private(set) var maximumPacketSize: Int
    /// The quality asked of the engine (−1 to 10), or `nil` where a bit rate drives it.
    public let quality: Float?
    /// The bit rate asked of the engine (bits per second), or `nil` for quality VBR.
    public let bitRate: Int?

    private var info = vorbis_info()
    private var state = vorbis_dsp_state()
    private var block = vorbis_block()
    private let channels: Int
    /// For each of the engine's channels (Vorbis order), the channel of the frames given (WAV order).
    private let order: [Int]
    /// The frames given, those the packets made decode to, and the engine's last granule position.
    private var counts: (source: Int64, decoded: Int64, granule: Int64) = (0, 0, 0)
    /// The block size of the packet before (0 before the first).
    private var previousBlock = 0
    private var finished = false

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        channels = Int(settings.format.channelsPerFrame)
        guard channels >= 1 && channels <= 8 else {
            throw AudioFileError.unsupportedDataFormat(
                "vorbis: Vorbis I orders 1 to 8 channels (mono to 7.1); \(channels) channels have no order in it",
                offset: nil)
        }
        let rate = settings.format.sampleRate
        guard rate >= 1, rate <= 1_536_000, rate == rate.rounded() else {
            throw AudioFileError.unsupportedDataFormat("vorbis: Vorbis stores whole rates, not \(rate) Hz", offset: nil)
        }
        if let asked = settings.quality, !(0...127).contains(asked) {
            throw AudioFileError.unsupportedDataFormat("vorbis: quality \(asked) is outside 0...127", offset: nil)
        }
        bitRate = settings.bitRate
        quality = bitRate == nil ? settings.quality.map { Float($0) * 11 / 127 - 1 } ?? Self.defaultQuality : nil
        order = VorbisEncoder.channelOrder[channels]
        vorbis_info_init(&info)
        let result: Int32
        if let bitRate {
            let target = Int(bitRate)
            switch settings.strategy {
            case .constant?: result = vorbis_encode_init(&info, channels, Int(rate), target, target, target)
            case .variableConstrained?: result = vorbis_encode_init(&info, channels, Int(rate), target, target, -1)
            case .longTermAverage?: result = vorbis_encode_init(&info, channels, Int(rate), -1, target, -1)
            default:
                // As oggenc -b: the quality libvorbisenc's mode for the rate has, with its management off (true VBR).
                var status = vorbis_encode_setup_managed(&info, channels, Int(rate), -1, target, -1)
                if status == 0 { status = vorbis_encode_ctl(&info, OV_ECTL_RATEMANAGE2_SET, nil) }
                if status == 0 { status = vorbis_encode_setup_init(&info) }
                result = status
            }
        } else {
            result = vorbis_encode_init_vbr(&info, channels, Int(rate), (quality ?? Self.defaultQuality) / 10)
        }
        guard result == 0 else {
            vorbis_info_clear(&info)
            let count = channels
            let asked = bitRate.map { "\($0 / 1000) kbit/s" } ?? "quality \(quality ?? Self.defaultQuality)"
            let advice =
                settings.bitRate.map { Self.fittingAdvice(channels: count, rate: Int(rate), bitRate: $0) } ?? ""
            throw AudioFileError.unsupportedDataFormat(
                "vorbis: libvorbis has no mode for \(channels) channel\(channels == 1 ? "" : "s") at \(Int(rate)) Hz and \(asked) (\(result))"
                    + advice, offset: nil)
        }
        vorbis_analysis_init(&state, &info)
        vorbis_block_init(&state, &block)
        var comment = vorbis_comment()
        vorbis_comment_init(&comment)
        var identification = ogg_packet()
        var comments = ogg_packet()
        var setup = ogg_packet()
        vorbis_analysis_headerout(&state, &comment, &identification, &comments, &setup)
        magicCookie = XiphLacing.laced([identification, comments, setup].map(Self.bytes))
        vorbis_comment_clear(&comment)
        maximumPacketSize = 0
        destinationFormat = StreamDescription(
            sampleRate: rate, formatID: .vorbis, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
            channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
    }

    deinit {
        vorbis_block_clear(&block)
        vorbis_dsp_clear(&state)
        vorbis_info_clear(&info)
    }

    /// Vorbis I's channel order (section 4.3.9) as indices into WAV's, by channel count: 3.0 L C R; quad L R Ls
    /// Rs; 5.0 L C R Ls Rs; 5.1 adds LFE last; 6.1 L C R Ls Rs Cs LFE; 7.1 L C R Ls Rs Lrs Rrs LFE. Opus's mapping
    /// family 1 takes the same order.
    static let channelOrder: [[Int]] = [
        [], [0], [0, 1], [0, 2, 1], [0, 1, 2, 3], [0, 2, 1, 3, 4], [0, 2, 1, 4, 5, 3], [0, 2, 1, 5, 6, 4, 3],
        [0, 2, 1, 6, 7, 4, 5, 3],
    ]

    private static func bytes(_ packet: ogg_packet) -> [UInt8] {
        guard let start = packet.packet, packet.bytes > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: packet.bytes))
    }

    /// Encodes interleaved frames, appending the packets the engine completes.
    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        let count = frames.count / channels
        var index = 0
        while index < count {
            let take = min(4096, count - index)
            guard let buffers = vorbis_analysis_buffer(&state, Int32(take)) else {
                throw AudioFileError.illegalOperation("vorbis: libvorbis gave no buffer")
            }
            for channel in 0..<channels {
                guard let target = buffers[channel] else { continue }
                let from = order[channel]
                for frame in 0..<take {
                    // NaN and infinities would upset the engine's analysis: silence and full scale.
                    let value = frames[(index + frame) * channels + from]
                    target[frame] = value.isNaN ? 0 : min(1, max(-1, value))
                }
            }
            vorbis_analysis_wrote(&state, Int32(take))
            index += take
            counts.source += Int64(take)
            try drain(into: &packets)
        }
    }

    /// Ends the stream; returns the frames decoded past the last source frame.
    public func finish(into packets: inout EncodedPackets) throws -> Int {
        guard !finished else { return 0 }
        finished = true
        vorbis_analysis_wrote(&state, 0)
        try drain(into: &packets)
        // The engine's last granule position is where the valid frames end: the source's length.
        guard counts.granule == counts.source || counts.source == 0 else {
            throw AudioFileError.illegalOperation(
                "vorbis: libvorbis ended the stream at frame \(counts.granule), not at the source's \(counts.source)")
        }
        return Int(max(0, counts.decoded - counts.source))
    }

    /// Moves every block the engine has ready through analysis and bit-rate management into `packets`.
    private func drain(into packets: inout EncodedPackets) throws {
        while vorbis_analysis_blockout(&state, &block) == 1 {
            guard vorbis_analysis(&block, nil) == 0, vorbis_bitrate_addblock(&block) == 0 else {
                throw AudioFileError.illegalOperation("vorbis: libvorbis failed to analyse a block")
            }
            var packet = ogg_packet()
            while vorbis_bitrate_flushpacket(&state, &packet) == 1 {
                guard let start = packet.packet, packet.bytes > 0 else { continue }
                let size = Int(vorbis_packet_blocksize(&info, &packet))
                let frames = previousBlock == 0 ? 0 : previousBlock / 4 + size / 4
                previousBlock = size
                counts.decoded += Int64(frames)
                if packet.granulepos >= 0 { counts.granule = packet.granulepos }
                maximumPacketSize = max(maximumPacketSize, packet.bytes)
                packets.append(
                    packet: UnsafeRawBufferPointer(start: start, count: packet.bytes), variableFrames: frames)
            }
        }
    }
}

extension VorbisEncoder {
    /// What would fit where libvorbis has no mode for `bitRate` at `rate`: the bit rates it takes there, and the
    /// highest usual rate that takes `bitRate` (libvorbis's managed modes are set up, never encoded, to learn it).
    static func fittingAdvice(channels: Int, rate: Int, bitRate: Int) -> String {
        func takes(_ bitRate: Int, at rate: Int) -> Bool {
            var info = vorbis_info()
            vorbis_info_init(&info)
            defer { vorbis_info_clear(&info) }
            return vorbis_encode_setup_managed(&info, channels, rate, -1, bitRate, -1) == 0
        }
        var advice: [String] = []
        let kilobits = (8...512).filter { takes($0 * 1000, at: rate) }
        if let low = kilobits.first, let high = kilobits.last {
            advice.append("at \(rate) Hz it takes \(low) to \(high) kbit/s (-b \(low)k to -b \(high)k)")
        }
        if let lower = [48000, 44100, 32000, 24000, 22050, 16000, 11025, 8000].first(where: {
            $0 < rate && takes(bitRate, at: $0)
        }) {
            advice.append("at \(bitRate / 1000) kbit/s it takes \(lower) Hz (-d vorbis@\(lower))")
        }
        return advice.isEmpty ? "" : ": " + advice.joined(separator: "; ")
    }
}
