/// Lookup tables for the unreflected (most significant bit first) CRCs the formats use: FLAC's CRC-8 and
/// CRC-16, Ogg's CRC-32. Table `k` (entries `k × 256 ..< (k + 1) × 256`) advances the CRC over a byte
/// followed by `k` zero bytes, so `count` tables take `count` bytes a step (slicing-by-`count`).
public enum CRCTables {
    /// `count` tables for the CRC of `polynomial` (its width is `T`'s).
    public static func slicing<T: FixedWidthInteger & UnsignedInteger>(polynomial: T, count: Int) -> [T] {
        let top = T(1) << (T.bitWidth - 1)
        let shift = T.bitWidth - 8
        var tables = [T](repeating: 0, count: count * 256)
        for index in 0..<256 {
            var value = T(index) << shift
            for _ in 0..<8 { value = value & top != 0 ? value << 1 ^ polynomial : value << 1 }
            tables[index] = value
        }
        for table in 1..<max(count, 1) {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = previous << 8 ^ tables[Int(truncatingIfNeeded: previous >> shift)]
            }
        }
        return tables
    }

    /// `start` (the CRC of the bytes before) carried over `bytes` through sixteen `tables` made by
    /// ``slicing(polynomial:count:)``: sixteen bytes a step, the CRC entering only the lookups of the bytes it
    /// overlaps, so the others do not wait for it.
    @inlinable
    public static func checksum<T: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeRawBufferPointer, continuing start: T, tables: UnsafePointer<T>
    ) -> T {
        var crc = start
        var index = 0
        let count = bytes.count
        while index + 16 <= count {
            let high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
            let first = high ^ UInt64(crc) << (64 - T.bitWidth)
            var fromFirst: T = 0
            var fromSecond: T = 0
            for byte in 0..<8 {
                let shift = UInt64(56 - 8 * byte)
                fromFirst ^= tables[(15 - byte) * 256 + Int(truncatingIfNeeded: first >> shift & 0xFF)]
                fromSecond ^= tables[(7 - byte) * 256 + Int(truncatingIfNeeded: low >> shift & 0xFF)]
            }
            crc = fromFirst ^ fromSecond
            index &+= 16
        }
        while index < count {
            crc = crc << 8 ^ tables[Int(truncatingIfNeeded: crc >> (T.bitWidth - 8)) ^ Int(bytes[index])]
            index &+= 1
        }
        return crc
    }
}
