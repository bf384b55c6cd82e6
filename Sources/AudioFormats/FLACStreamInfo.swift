/// FLAC's `STREAMINFO` (RFC 9639, section 8.2): the stream's one mandatory metadata block, which the
/// container parsers read for the format and the decoder, as its cookie, for the depth and largest block.
public struct FLACStreamInfo: Hashable, Sendable {
    /// The smallest block in samples (the last block aside).
    public var minimumBlockSize: Int
    /// The largest block in samples.
    public var maximumBlockSize: Int
    /// The smallest frame in bytes; 0: not stated.
    public var minimumFrameSize: Int
    /// The largest frame in bytes; 0: not stated.
    public var maximumFrameSize: Int
    /// Samples per second.
    public var sampleRate: Int
    /// Channels, 1 to 8.
    public var channels: Int
    /// Bits per sample, 4 to 32.
    public var bitsPerSample: Int
    /// Samples per channel in the stream; 0: not stated.
    public var totalSamples: Int64
    /// The MD5 of the encoder's input samples (zeros: not stated).
    public var md5: [UInt8]

    /// Bytes of the block's body.
    public static let size = 34

    /// A `STREAMINFO` of the given fields (an encoder's, to write).
    public init(
        minimumBlockSize: Int, maximumBlockSize: Int, minimumFrameSize: Int, maximumFrameSize: Int, sampleRate: Int,
        channels: Int, bitsPerSample: Int, totalSamples: Int64, md5: [UInt8]
    ) {
        self.minimumBlockSize = minimumBlockSize
        self.maximumBlockSize = maximumBlockSize
        self.minimumFrameSize = minimumFrameSize
        self.maximumFrameSize = maximumFrameSize
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.totalSamples = totalSamples
        self.md5 = md5
    }

    /// The 34-byte body, as a FLAC file stores it (fields wider than theirs are cut to their bits).
    public var bytes: [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(Self.size)
        func append(_ value: Int, bytes count: Int) {
            for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
                body.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        append(minimumBlockSize, bytes: 2)
        append(maximumBlockSize, bytes: 2)
        append(minimumFrameSize, bytes: 3)
        append(maximumFrameSize, bytes: 3)
        let packed =
            UInt64(sampleRate & 0xF_FFFF) << 44 | UInt64((channels - 1) & 7) << 41
            | UInt64((bitsPerSample - 1) & 0x1F) << 36 | UInt64(totalSamples) & 0xF_FFFF_FFFF
        for shift in stride(from: 56, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: packed >> shift)) }
        body += md5.count == 16 ? md5 : Array(repeating: 0, count: 16)
        return body
    }

    /// The cookie Apple's CAF writer gives FLAC: a whole MP4 `dfLa` box (size, type, version and flags,
    /// then `STREAMINFO` as the last metadata block), as FFmpeg's CAF reader expects it.
    public var appleCookie: [UInt8] {
        [0, 0, 0, UInt8(16 + Self.size)] + Array("dfLa".utf8) + [0, 0, 0, 0, 0x80, 0, 0, UInt8(Self.size)] + bytes
    }

    /// Reads the 34-byte body; `nil` where a field holds what no stream can (a rate of 0, a block
    /// size under 16).
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size else { return nil }
        func value(_ range: Range<Int>) -> Int { range.reduce(0) { $0 << 8 | Int(bytes[$1]) } }
        minimumBlockSize = value(0..<2)
        maximumBlockSize = value(2..<4)
        minimumFrameSize = value(4..<7)
        maximumFrameSize = value(7..<10)
        let packed = (10..<18).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[$1]) }
        sampleRate = Int(packed >> 44)
        channels = Int((packed >> 41) & 7) + 1
        bitsPerSample = Int((packed >> 36) & 0x1F) + 1
        totalSamples = Int64(packed & 0xF_FFFF_FFFF)
        md5 = Array(bytes[18..<34])
        guard sampleRate > 0, bitsPerSample >= 4, maximumBlockSize >= 16, minimumBlockSize >= 16,
            minimumBlockSize <= maximumBlockSize
        else { return nil }
    }

    /// The `STREAMINFO` inside a magic cookie: bare, as a metadata block, after `fLaC`, or in an MP4
    /// `dfLa` box, whole (Apple's CAF cookie) or its body (version and flags first).
    public init?(cookie: [UInt8]) {
        let start: Int
        switch cookie.count {
        case Self.size: start = 0
        case _ where cookie.starts(with: Array("fLaC".utf8)): start = 8
        case _ where cookie.count >= 50 && cookie[4..<8].elementsEqual("dfLa".utf8): start = 16
        case _ where cookie.count >= 38 && cookie[0] & 0x7F == 0 && cookie[1...3] == [0, 0, 34]: start = 4
        case _ where cookie.count >= 42 && cookie[4] & 0x7F == 0 && cookie[5...7] == [0, 0, 34]: start = 8
        default: return nil
        }
        guard cookie.count >= start + Self.size else { return nil }
        guard let info = cookie.withUnsafeBytes({ Self(UnsafeRawBufferPointer(rebasing: $0[start...])) }) else {
            return nil
        }
        self = info
    }

    /// Apple's description: `flac`, the flags naming the source depth as for Apple Lossless, a constant
    /// frame count where every block but the last has the same size.
    public var streamDescription: StreamDescription {
        .flac(
            sampleRate: Double(sampleRate), channels: UInt32(channels), bitDepth: bitsPerSample,
            framesPerPacket: minimumBlockSize == maximumBlockSize ? UInt32(maximumBlockSize) : 0)
    }
}
