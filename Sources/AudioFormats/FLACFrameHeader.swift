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

extension FLACFrameHeader {
    /// The length of the frame this header starts in `bytes`, found by walking its subframes (RFC 9639,
    /// sections 9.2-9.3) without decoding them: their headers, warm-up samples, coefficients and residual
    /// partitions to the byte-aligned CRC-16, which must check. `nil` where the bytes end before the frame does
    /// or its structure or CRC-16 does not hold. For a stream's last frame, whose end no next header shows.
    public func walkedLength(in bytes: UnsafeRawBufferPointer, streamBitsPerSample: Int) -> Int? {
        guard let depth = bitsPerSample ?? (streamBitsPerSample > 0 ? streamBitsPerSample : nil) else { return nil }
        var reader = BitWalker(bytes: bytes, bit: length * 8)
        for channel in 0..<channels {
            // The side channel carries one bit more.
            let isSide =
                (channelAssignment == 8 && channel == 1) || (channelAssignment == 9 && channel == 0)
                || (channelAssignment == 10 && channel == 1)
            var sampleBits = depth + (isSide ? 1 : 0)
            guard reader.read(1) == 0, let type = reader.read(6), let hasWasted = reader.read(1) else { return nil }
            if hasWasted == 1 {
                guard let zeros = reader.unary(limit: sampleBits) else { return nil }
                sampleBits -= zeros + 1
                guard sampleBits > 0 else { return nil }
            }
            switch type {
            case 0: guard reader.skip(sampleBits) else { return nil }
            case 1: guard reader.skip(sampleBits * blockSize) else { return nil }
            case 8...12, 32...63:
                let order = type <= 12 ? Int(type) - 8 : Int(type) - 31
                guard order <= blockSize, reader.skip(order * sampleBits) else { return nil }
                if type >= 32 {
                    guard let precision = reader.read(4), precision != 15, reader.skip(5),
                        reader.skip(order * (Int(precision) + 1))
                    else { return nil }
                }
                guard reader.skipResidual(blockSize: blockSize, order: order) else { return nil }
            default: return nil
            }
        }
        let end = (reader.bit + 7) / 8 + 2
        guard end <= bytes.count,
            FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: bytes[0..<end])) == 0
        else { return nil }
        return end
    }
}

/// A bit position in bytes, read most significant bit first; every read fails rather than pass the end.
private struct BitWalker {
    let bytes: UnsafeRawBufferPointer
    var bit: Int

    mutating func read(_ count: Int) -> UInt32? {
        guard count <= 32, bit + count <= bytes.count * 8 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            value = value << 1 | UInt32(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, bit + count <= bytes.count * 8 else { return false }
        bit += count
        return true
    }

    /// Zero bits before the next one bit (which is passed), at most `limit` of them where one is given.
    mutating func unary(limit: Int = .max) -> Int? {
        var zeros = 0
        while bit < bytes.count * 8 {
            let byte = bytes[bit >> 3] << UInt8(bit & 7)
            if byte == 0 {
                // The rest of this byte is zeros.
                let rest = 8 - (bit & 7)
                zeros += rest
                bit += rest
            } else {
                let leading = byte.leadingZeroBitCount
                zeros += leading
                bit += leading + 1
                return zeros <= limit ? zeros : nil
            }
            if zeros > limit { return nil }
        }
        return nil
    }

    /// A subframe's residual: Rice-coded partitions (4- or 5-bit parameters, an escape for raw samples).
    mutating func skipResidual(blockSize: Int, order: Int) -> Bool {
        guard let method = read(2), method <= 1, let partitionOrder = read(4) else { return false }
        let parameterBits = method == 0 ? 4 : 5
        let escape: UInt32 = method == 0 ? 15 : 31
        let partitions = 1 << Int(partitionOrder)
        guard blockSize % partitions == 0, blockSize >> Int(partitionOrder) >= order else { return false }
        for partition in 0..<partitions {
            let samples = (blockSize >> Int(partitionOrder)) - (partition == 0 ? order : 0)
            guard let parameter = read(parameterBits) else { return false }
            if parameter == escape {
                guard let width = read(5), skip(Int(width) * samples) else { return false }
                continue
            }
            for _ in 0..<samples {
                guard unary() != nil, skip(Int(parameter)) else { return false }
            }
        }
        return true
    }
}
