/// MD5 (RFC 1321), for the one place a format asks for it: FLAC's `STREAMINFO` signature of the
/// decoded samples. Not for security.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    private var buffer = [UInt8](repeating: 0, count: 64)
    private var buffered = 0
    private var length: UInt64 = 0

    /// An empty digest.
    public init() {}

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var index = 0
        if buffered > 0 {
            let take = min(64 - buffered, bytes.count)
            for offset in 0..<take { buffer[buffered + offset] = bytes[offset] }
            buffered += take
            index = take
            guard buffered == 64 else { return }
            buffer.withUnsafeBytes { compress($0) }
            buffered = 0
        }
        while index + 64 <= bytes.count {
            compress(UnsafeRawBufferPointer(rebasing: bytes[index..<index + 64]))
            index += 64
        }
        for offset in index..<bytes.count { buffer[offset - index] = bytes[offset] }
        buffered = bytes.count - index
    }

    /// Adds the bytes of an array.
    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 16-byte digest of everything added.
    public func finalize() -> [UInt8] {
        var copy = self
        let bits = length &* 8
        var padding: [UInt8] = [0x80] + [UInt8](repeating: 0, count: (119 - buffered) % 64)
        for shift in stride(from: 0, to: 64, by: 8) { padding.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        copy.update(padding)
        var digest: [UInt8] = []
        for word in [copy.state.0, copy.state.1, copy.state.2, copy.state.3] {
            for shift in stride(from: 0, to: 32, by: 8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ]

    /// floor(|sin(i + 1)| × 2^32), RFC 1321's table.
    private static let constants: [UInt32] = [
        0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE, 0xF57C_0FAF, 0x4787_C62A,
        0xA830_4613, 0xFD46_9501, 0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE,
        0x6B90_1122, 0xFD98_7193, 0xA679_438E, 0x49B4_0821, 0xF61E_2562, 0xC040_B340,
        0x265E_5A51, 0xE9B6_C7AA, 0xD62F_105D, 0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8,
        0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED, 0xA9E3_E905, 0xFCEF_A3F8,
        0x676F_02D9, 0x8D2A_4C8A, 0xFFFA_3942, 0x8771_F681, 0x6D9D_6122, 0xFDE5_380C,
        0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70, 0x289B_7EC6, 0xEAA1_27FA,
        0xD4EF_3085, 0x0488_1D05, 0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665,
        0xF429_2244, 0x432A_FF97, 0xAB94_23A7, 0xFC93_A039, 0x655B_59C3, 0x8F0C_CC92,
        0xFFEF_F47D, 0x8584_5DD1, 0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1,
        0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB, 0xEB86_D391,
    ]

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var words = [UInt32](repeating: 0, count: 16)
        for index in 0..<16 {
            words[index] = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        var (a, b, c, d) = state
        for step in 0..<64 {
            var f: UInt32
            var g: Int
            switch step {
            case 0..<16: (f, g) = ((b & c) | (~b & d), step)
            case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * step + 1) % 16)
            case 32..<48: (f, g) = (b ^ c ^ d, (3 * step + 5) % 16)
            default: (f, g) = (c ^ (b | ~d), (7 * step) % 16)
            }
            f = f &+ a &+ Self.constants[step] &+ words[g]
            a = d
            d = c
            c = b
            let shift = Self.shifts[step]
            b = b &+ (f << shift | f >> (32 - shift))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
