/// An AC-3 or E-AC-3 sync frame's header (ATSC A/52): its length, the frames it holds, the format it states and
/// whether it is a dependent substream joining the frame before it. AC-3's parser reads its frames by it, and MP4's
/// parser its sample entries' channels and E-AC-3 samples' frames.
package struct AC3FrameHeader {
    /// The bytes a header is read from.
    package static let size = 8
    /// Bytes of the whole frame.
    package var length: Int
    /// Frames (per channel) the frame decodes to.
    package var frames: Int
    /// The stream the frame states.
    package var format: StreamDescription
    /// Whether it is a dependent substream (extra channels) of the independent frame before it.
    package var joinsPrevious = false

    init(length: Int, frames: Int, format: StreamDescription, joinsPrevious: Bool = false) {
        self.length = length
        self.frames = frames
        self.format = format
        self.joinsPrevious = joinsPrevious
    }

    /// Frame sizes in 16-bit words by frame-size code pairs, at 48, 44.1 and 32 kHz (A/52 table 5.18).
    static let frameWords: [[Int]] = [
        [64, 69, 96], [64, 70, 96], [80, 87, 120], [80, 88, 120], [96, 104, 144], [96, 105, 144],
        [112, 121, 168], [112, 122, 168], [128, 139, 192], [128, 140, 192], [160, 174, 240], [160, 175, 240],
        [192, 208, 288], [192, 209, 288], [224, 243, 336], [224, 244, 336], [256, 278, 384], [256, 279, 384],
        [320, 348, 480], [320, 349, 480], [384, 417, 576], [384, 418, 576], [448, 487, 672], [448, 488, 672],
        [512, 557, 768], [512, 558, 768], [640, 696, 960], [640, 697, 960], [768, 835, 1152],
        [768, 836, 1152], [896, 975, 1344], [896, 976, 1344], [1024, 1114, 1536], [1024, 1115, 1536],
        [1152, 1253, 1728], [1152, 1254, 1728], [1280, 1393, 1920], [1280, 1394, 1920],
    ]
    /// Full-bandwidth channels by audio coding mode.
    package static let modeChannels = [2, 1, 2, 3, 3, 4, 4, 5]

    /// The header at the start of `bytes` (which hold at least ``size``), or `nil` where it is none.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes[0] == 0x0B, bytes[1] == 0x77 else { return nil }
        let bsid = Int(bytes[5] >> 3)
        if bsid <= 10 {
            let rateCode = Int(bytes[4] >> 6)
            let sizeCode = Int(bytes[4] & 0x3F)
            guard rateCode < 3, sizeCode < 38 else { return nil }
            var reader = BitReader(Array(bytes[6..<8]))
            guard let mode = reader.read(3) else { return nil }
            // The mixing levels present for this mode come before the LFE flag.
            if mode & 1 == 1 && mode != 1 { _ = reader.read(2) }
            if mode & 4 == 4 { _ = reader.read(2) }
            if mode == 2 { _ = reader.read(2) }
            let lfe = reader.read(1) ?? 0
            let rate = [48000.0, 44100, 32000][rateCode]
            self.init(
                length: Self.frameWords[sizeCode][rateCode] * 2, frames: 1536,
                format: Self.format(.ac3, rate: rate, channels: Self.modeChannels[mode] + lfe, frames: 1536))
            return
        }
        guard bsid <= 16 else { return nil }
        let streamType = Int(bytes[2] >> 6)
        let length = (Int(bytes[2] & 7) << 8 | Int(bytes[3])) * 2 + 2
        let rateCode = Int(bytes[4] >> 6)
        let blocks: Int
        let rate: Double
        if rateCode == 3 {
            let reduced = Int(bytes[4] >> 4) & 3
            guard reduced < 3 else { return nil }
            rate = [24000, 22050, 16000][reduced]
            blocks = 6
        } else {
            rate = [48000, 44100, 32000][rateCode]
            blocks = [1, 2, 3, 6][Int(bytes[4] >> 4) & 3]
        }
        let mode = Int(bytes[4] >> 1) & 7
        let lfe = Int(bytes[4] & 1)
        guard streamType < 3, length >= Self.size else { return nil }
        self.init(
            length: length, frames: 256 * blocks,
            format: Self.format(
                .enhancedAC3, rate: rate, channels: Self.modeChannels[mode] + lfe, frames: 256 * blocks),
            joinsPrevious: streamType == 1)
    }

    /// The frames (per channel) that one MP4 sample of E-AC-3 decodes to: the blocks (256 frames each) of its
    /// syncframes of the first independent substream, dependent substreams and other programs adding none; `nil`
    /// where no syncframe starts `bytes`. (A sample should hold six blocks; some muxers time it so whatever it
    /// holds: the bitstream says what decodes.)
    package static func framesInSample(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var position = 0
        var total = 0
        while position + size <= bytes.count,
            let frame = AC3FrameHeader(UnsafeRawBufferPointer(rebasing: bytes[position...]))
        {
            let substream = Int(bytes[position + 2] >> 3) & 7
            if !frame.joinsPrevious && (frame.format.formatID == .ac3 || substream == 0) { total += frame.frames }
            position += frame.length
        }
        return total > 0 ? total : nil
    }

    static func format(_ id: FourCharCode, rate: Double, channels: Int, frames: Int) -> StreamDescription {
        StreamDescription(
            sampleRate: rate, formatID: id, bytesPerPacket: 0, framesPerPacket: UInt32(frames), bytesPerFrame: 0,
            channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
    }
}
