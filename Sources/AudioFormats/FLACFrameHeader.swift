/// The header of a FLAC frame (RFC 9639, section 9.1): what the container parser checks to find a
/// frame's start, and what the decoder reads its block from. Shared by both, so they agree on every
/// frame.
public struct FLACFrameHeader: Hashable, Sendable {
    /// Whether the stream numbers frames by their first sample (variable block size) rather than by
    /// their index (fixed block size).
    public var isVariableBlockSize: Bool
    /// Samples per channel in the frame.
    public var blockSize: Int
    /// The frame's rate, or `nil` where the header defers to `STREAMINFO`.
    public var sampleRate: Int?
    /// The rate field's code (0: `STREAMINFO`'s), for comparing frames of one stream.
    public var sampleRateCode: UInt8
    /// Channel assignment: 0-7 independent channels (count - 1); 8 left/side, 9 side/right, 10 mid/side.
    public var channelAssignment: UInt8
    /// Bits per sample, or `nil` where the header defers to `STREAMINFO`.
    public var bitsPerSample: Int?
    /// The frame's number (fixed block size) or its first sample's number (variable block size).
    public var number: UInt64
    /// Bytes of the header, its CRC-8 included.
    public var length: Int

    /// Channels the frame holds.
    public var channels: Int { channelAssignment < 8 ? Int(channelAssignment) + 1 : 2 }

    /// The longest header: sync and codes (4), the coded number (7), block size (2), rate (2), CRC-8 (1).
    public static let maximumLength = 16

    /// Parses the header at the start of `bytes`, checking its reserved bits and CRC-8; `nil` where the
    /// bytes are no frame header (or too few to tell: a caller with more to come asks for
    /// ``maximumLength``).
    ///
    /// With the stream's `STREAMINFO`, a header whose blocking bit says "fixed" in a stream whose smallest
    /// and largest blocks differ numbers its first sample, as libFLAC reads it: the variable block size
    /// streams Flake wrote before the bit was defined (IETF testbench subset 27).
    public init?(_ bytes: UnsafeRawBufferPointer, streamInfo: FLACStreamInfo? = nil) {
        guard bytes.count >= 6, bytes[0] == 0xFF, bytes[1] & 0xFE == 0xF8 else { return nil }
        isVariableBlockSize =
            bytes[1] & 1 == 1 || streamInfo.map { $0.minimumBlockSize != $0.maximumBlockSize } == true
        let blockCode = bytes[2] >> 4
        sampleRateCode = bytes[2] & 0x0F
        channelAssignment = bytes[3] >> 4
        let sizeCode = (bytes[3] >> 1) & 7
        guard blockCode != 0, sampleRateCode != 15, channelAssignment <= 10, sizeCode != 3, bytes[3] & 1 == 0 else {
            return nil
        }
        bitsPerSample = [nil, 8, 12, nil, 16, 20, 24, 32][Int(sizeCode)]
        // The coded number: UTF-8's scheme, extended to 7 bytes (36 bits) for sample numbers.
        var position = 4
        let lead = bytes[position]
        var extra: Int
        var value: UInt64
        switch lead {
        case 0x00..<0x80: (extra, value) = (0, UInt64(lead))
        case 0xC0..<0xE0: (extra, value) = (1, UInt64(lead & 0x1F))
        case 0xE0..<0xF0: (extra, value) = (2, UInt64(lead & 0x0F))
        case 0xF0..<0xF8: (extra, value) = (3, UInt64(lead & 0x07))
        case 0xF8..<0xFC: (extra, value) = (4, UInt64(lead & 0x03))
        case 0xFC..<0xFE: (extra, value) = (5, UInt64(lead & 0x01))
        case 0xFE: (extra, value) = (6, 0)
        default: return nil
        }
        // A frame number takes at most 31 bits (6 bytes).
        if !isVariableBlockSize && extra > 5 { return nil }
        position += 1
        guard bytes.count >= position + extra + 1 else { return nil }
        for _ in 0..<extra {
            let byte = bytes[position]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt64(byte & 0x3F)
            position += 1
        }
        number = value
        switch blockCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << Int(blockCode - 2)
        case 6:
            guard bytes.count > position else { return nil }
            blockSize = Int(bytes[position]) + 1
            position += 1
        case 7:
            guard bytes.count > position + 1 else { return nil }
            blockSize = (Int(bytes[position]) << 8 | Int(bytes[position + 1])) + 1
            position += 2
        default: blockSize = 256 << Int(blockCode - 8)
        }
        switch sampleRateCode {
        case 0: sampleRate = nil
        case 12:
            guard bytes.count > position else { return nil }
            sampleRate = Int(bytes[position]) * 1000
            position += 1
        case 13, 14:
            guard bytes.count > position + 1 else { return nil }
            let field = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            sampleRate = sampleRateCode == 13 ? field : field * 10
            position += 2
        default:
            sampleRate =
                [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000][
                    Int(sampleRateCode)]
        }
        guard bytes.count > position,
            FLACChecksum.crc8(UnsafeRawBufferPointer(rebasing: bytes[0..<position])) == bytes[position]
        else { return nil }
        length = position + 1
    }

    /// Whether `next` can follow this frame in the same stream: the same numbering, rate, channels and
    /// depth, numbered right after it.
    public func isFollowed(by next: FLACFrameHeader) -> Bool {
        next.sampleRateCode == sampleRateCode && next.sampleRate == sampleRate && next.channels == channels
            && next.bitsPerSample == bitsPerSample && isNumbered(before: next)
    }

    /// Whether `next` is numbered right after this frame, whatever its rate, channels and depth.
    public func isNumbered(before next: FLACFrameHeader) -> Bool {
        next.isVariableBlockSize == isVariableBlockSize
            && next.number == number + (isVariableBlockSize ? UInt64(blockSize) : 1)
    }
}

/// FLAC's two checksums: CRC-8 (polynomial 0x07) over a frame's header and CRC-16 (0x8005) over the
/// whole frame, both unreflected from zero. A frame whose stored CRC-16 is included checks to 0.
public enum FLACChecksum {
    /// The CRC-8 of `bytes`.
    public static func crc8(_ bytes: UnsafeRawBufferPointer) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes { crc = crc8Table[Int(crc ^ byte)] }
        return crc
    }

    /// `start` (the CRC-16 of the bytes before) carried over `bytes`.
    @inlinable
    public static func crc16(_ bytes: UnsafeRawBufferPointer, continuing start: UInt16 = 0) -> UInt16 {
        crc16Tables.withUnsafeBufferPointer { tables in
            CRCTables.checksum(bytes, continuing: start, tables: tables.baseAddress.unsafelyUnwrapped)
        }
    }

    static let crc8Table = CRCTables.slicing(polynomial: UInt8(0x07), count: 1)

    /// Sixteen tables for slicing-by-16 (``CRCTables``).
    @usableFromInline
    static let crc16Tables = CRCTables.slicing(polynomial: UInt16(0x8005), count: 16)
}
