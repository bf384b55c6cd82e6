extension Array where Element == UInt8 {
    /// Appends an integer in the given byte order.
    @inlinable
    public mutating func appendInteger<T: FixedWidthInteger>(_ value: T, endianness: Endianness) {
        let ordered = endianness == .big ? value.bigEndian : value.littleEndian
        Swift.withUnsafeBytes(of: ordered) { append(contentsOf: $0) }
    }

    /// Appends a four-character code, first character first.
    @inlinable
    public mutating func appendFourCharCode(_ code: FourCharCode) {
        appendInteger(code.rawValue, endianness: .big)
    }

    /// Appends CAF's variable-length integer form of a non-negative value.
    public mutating func appendCAFVarint(_ value: Int64) {
        precondition(value >= 0, "CAF varints are non-negative")
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = UInt64(value) >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        append(contentsOf: groups.reversed())
    }
}

/// Lower-case hex digits, two per byte.
public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return text
}
