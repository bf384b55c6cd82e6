import AudioFormats
import StreamParsing

/// AC-3 and E-AC-3 elementary streams (ATSC A/52): sync frames that start with 0x0B77. An AC-3 frame's
/// size comes from its rate code and frame-size code and holds 1,536 frames; an E-AC-3 frame states its
/// size and holds 256 frames per block (1, 2, 3 or 6 blocks); a dependent substream (extra channels)
/// belongs to the packet of the independent frame before it. Apple's `ac-3` and `ec-3`.
package struct AC3: FrameFormat {
    static let fileType = FileType.ac3
    static let headerSize = 8
    static let confirmsByNext = true
    static let hasJoiningFrames = true

    /// A frame's second CRC covers it all but the sync word (FLAC's CRC-16, whose residue is 0).
    static func isIntact(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame.count > 4 && FoldedCRC.flac(UnsafeRawBufferPointer(rebasing: frame[2...]), continuing: 0) == 0
    }

    init() {}

    static func fileType(of format: StreamDescription) -> FileType {
        format.formatID == .enhancedAC3 ? .ec3 : .ac3
    }

    mutating func leaderLength(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> Int? { 0 }

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

    func frame(_ bytes: UnsafeRawBufferPointer) -> FrameInfo? {
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
            return FrameInfo(
                length: Self.frameWords[sizeCode][rateCode] * 2, frames: 1536,
                format: Self.format(.ac3, rate: rate, channels: Self.modeChannels[mode] + lfe, frames: 1536))
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
        guard streamType < 3, length >= Self.headerSize else { return nil }
        return FrameInfo(
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
        while position + headerSize <= bytes.count,
            let frame = AC3().frame(UnsafeRawBufferPointer(rebasing: bytes[position...]))
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

extension FileType {
    /// AC-3 elementary streams.
    public static let ac3 = FileType(rawValue: "ac3")
    /// E-AC-3 elementary streams.
    public static let ec3 = FileType(rawValue: "ec3")
}

extension AC3 {
    /// AC-3, whose parser also reads E-AC-3.
    package static let descriptor = ContainerDescriptor(
        .ac3, name: "AC-3", kind: "an AC-3 stream", fileTypeID: "ac-3", extensions: ["ac3"],
        mediaTypes: ["audio/ac3"],
        signatures: [
            FileSignature.Entry(outcome: .read(.ac3)) { bytes, atEnd in FileSignature.ac3(bytes, atEnd: atEnd) }
        ],
        makeParser: { FramedStreamParser<AC3>(mode: $0.mode, limits: $0.limits, leadingTagSize: $0.leadingTagSize) },
        readsBehindID3Tag: true)

    /// E-AC-3, found by AC-3's parser.
    package static let enhancedDescriptor = ContainerDescriptor(
        .ec3, name: "E-AC-3", kind: "an E-AC-3 stream", fileTypeID: "ec-3", extensions: ["ec3", "eac3"],
        mediaTypes: ["audio/eac3"])
}

extension FileSignature {
    /// AC-3 and E-AC-3 sync frames: 0x0B77, a valid frame size, and (where the bytes reach it) the next
    /// frame's sync right after.
    static func ac3(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        let sync = magic(bytes, [0x0B, 0x77])
        guard case .yes = sync else { return sync }
        guard bytes.count >= AC3.headerSize else { return atEnd ? .no : .undecided(AC3.headerSize) }
        // The frame's header as the parser reads it, and the next frame's sync where it says.
        guard let frame = AC3().frame(bytes) else { return .no }
        switch magic(bytes, [0x0B, 0x77], at: frame.length) {
        case .no: return .no
        case .undecided(let count): return atEnd ? .yes() : .undecided(count)
        case .yes: return .yes()
        }
    }
}
