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
}
