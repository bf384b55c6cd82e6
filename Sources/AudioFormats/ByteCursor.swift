/// Byte order of a multi-byte field.
@frozen
public enum Endianness: Sendable, Hashable {
    case big, little
}

/// A non-copying, non-trapping reader over bytes that are already in memory.
///
/// Every read returns `nil` and moves nothing when the bytes run short, so a parser can turn
/// a short read into "need more data" or, at the end of the stream, into a truncation error.
/// `baseOffset` is the absolute stream offset of the first byte, so errors can name where
/// in the file the problem lies.
@frozen
public struct ByteCursor {
    /// The bytes read over.
    public let bytes: UnsafeRawBufferPointer
    /// The index of the next byte to read.
    public var position: Int
    /// The absolute stream offset of `bytes[0]`.
    public let baseOffset: Int64

    /// A cursor at the start of `bytes`, which begin `baseOffset` bytes into the stream.
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, baseOffset: Int64 = 0) {
        self.bytes = bytes
        self.position = 0
        self.baseOffset = baseOffset
    }

    /// Bytes left after `position`.
    @inlinable public var remaining: Int { bytes.count - position }

    /// The absolute stream offset of the next byte to read.
    @inlinable public var absoluteOffset: Int64 { baseOffset + Int64(position) }

    /// The integer at `index` (relative to `bytes`), or `nil` when it does not fit.
    @inlinable
    public func getInteger<T: FixedWidthInteger>(at index: Int, endianness: Endianness, as: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard index >= 0, index <= bytes.count - size else { return nil }
        let raw = bytes.loadUnaligned(fromByteOffset: index, as: T.self)
        return endianness == .big ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// The integer at `position`, without moving.
    @inlinable
    public func peekInteger<T: FixedWidthInteger>(endianness: Endianness, as: T.Type = T.self) -> T? {
        getInteger(at: position, endianness: endianness, as: T.self)
    }

    /// Reads an integer and moves past it.
    @inlinable
    public mutating func readInteger<T: FixedWidthInteger>(endianness: Endianness, as: T.Type = T.self) -> T? {
        guard let value = getInteger(at: position, endianness: endianness, as: T.self) else { return nil }
        position += MemoryLayout<T>.size
        return value
    }

    /// Reads a four-character code (always stored first character first).
    @inlinable
    public mutating func readFourCharCode() -> FourCharCode? {
        readInteger(endianness: .big, as: UInt32.self).map(FourCharCode.init(rawValue:))
    }

    /// Moves past `count` bytes, or returns `false` and moves nothing when they are not all there.
    @inlinable
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    /// The next `count` bytes, without copying, moving past them.
    @inlinable
    public mutating func readSlice(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    /// The next `count` bytes, copied.
    @inlinable
    public mutating func readBytes(_ count: Int) -> [UInt8]? {
        readSlice(count).map { Array($0) }
    }

    /// Reads an IEEE 754 80-bit extended float (AIFF's sample rate), big-endian.
    ///
    /// Returns the bits; use ``Extended80/doubleValue`` to interpret them.
    @inlinable
    public mutating func readExtended80() -> Extended80? {
        guard remaining >= 10,
            let signAndExponent = getInteger(at: position, endianness: .big, as: UInt16.self),
            let mantissa = getInteger(at: position + 2, endianness: .big, as: UInt64.self)
        else { return nil }
        position += 10
        return Extended80(signAndExponent: signAndExponent, mantissa: mantissa)
    }

    /// Reads CAF's variable-length integer: seven bits a byte, most significant first, high bit set on
    /// every byte but the last.
    ///
    /// Returns `nil` if the bytes run out first; `.overflow` if it does not fit in 63 bits (at most
    /// nine bytes are read).
    @inlinable
    public mutating func readCAFVarint() -> VarintResult? {
        var value: UInt64 = 0
        var index = position
        for _ in 0..<10 {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            if value > (UInt64(Int64.max) >> 7) {
                position = index
                return .overflow
            }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                position = index
                return .value(Int64(value))
            }
        }
        position = index
        return .overflow
    }

    /// The outcome of reading a variable-length integer whose bytes are all present.
    @frozen
    public enum VarintResult: Equatable, Sendable {
        case value(Int64)
        case overflow
    }

    /// Reads an ID3v2 syncsafe 32-bit integer (seven bits a byte, big-endian).
    ///
    /// Returns `nil` when the bytes run short or any byte has its high bit set.
    @inlinable
    public mutating func readSyncsafeUInt32() -> UInt32? {
        guard let raw = peekInteger(endianness: .big, as: UInt32.self), raw & 0x8080_8080 == 0 else { return nil }
        position += 4
        return (raw & 0x7F) | (raw & 0x7F00) >> 1 | (raw & 0x7F_0000) >> 2 | (raw & 0x7F00_0000) >> 3
    }
}
