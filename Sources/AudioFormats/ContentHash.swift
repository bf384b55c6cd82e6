/// A 64-bit fingerprint of bytes fed in any pieces: XXH64 (seed 0), as the xxHash specification defines
/// it. Not cryptographic: it tells whether a file's content changed, fast (several GB/s), the way
/// build tools fingerprint inputs.
public struct ContentHash: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
        prime1 &+ prime2, prime2, 0, 0 &- prime1
    )
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// A hash of no bytes yet.
    public init() { pending.reserveCapacity(32) }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        let sum = accumulator &+ input &* prime2
        return ((sum << 31) | (sum >> 33)) &* prime1
    }

    @inline(__always)
    private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }

    /// Feeds bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var index = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            index = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { consumeStripes($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - index) / 32 * 32
        if whole > 0 { consumeStripes(UnsafeRawBufferPointer(rebasing: bytes[index..<index + whole])) }
        pending.append(contentsOf: bytes[(index + whole)...])
    }

    /// Feeds bytes held in an array.
    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    private mutating func consumeStripes(_ bytes: UnsafeRawBufferPointer) {
        var (v1, v2, v3, v4) = lanes
        var offset = 0
        while offset < bytes.count {
            v1 = Self.round(v1, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            v2 = Self.round(v2, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            v3 = Self.round(v3, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
            v4 = Self.round(v4, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            offset += 32
        }
        lanes = (v1, v2, v3, v4)
    }

    /// The hash of everything fed so far.
    public var value: UInt64 {
        var hash: UInt64
        if length >= 32 {
            let (v1, v2, v3, v4) = lanes
            hash = Self.rotate(v1, 1) &+ Self.rotate(v2, 7) &+ Self.rotate(v3, 12) &+ Self.rotate(v4, 18)
            hash = Self.merge(Self.merge(Self.merge(Self.merge(hash, v1), v2), v3), v4)
        } else {
            hash = Self.prime5
        }
        hash &+= length
        pending.withUnsafeBytes { tail in
            var offset = 0
            while offset + 8 <= tail.count {
                hash ^= Self.round(0, UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                hash = Self.rotate(hash, 27) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if offset + 4 <= tail.count {
                hash ^=
                    UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                    &* Self.prime1
                hash = Self.rotate(hash, 23) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < tail.count {
                hash ^= UInt64(tail[offset]) &* Self.prime5
                hash = Self.rotate(hash, 11) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        hash ^= hash >> 32
        return hash
    }

    /// The hash as 16 lower-case hex digits.
    public var hexDigits: String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
