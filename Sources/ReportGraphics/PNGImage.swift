/// An RGB picture (8 bits a channel) and its PNG file (ISO/IEC 15445): one IDAT whose zlib stream is
/// deflated with the fixed Huffman codes and matches against the pixel before and the row above, which is
/// what flat-coloured pictures such as waveforms need to be small.
public struct PNGImage: Sendable {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// Red, green, blue a pixel, row after row.
    public private(set) var pixels: [UInt8]

    /// A picture of `width` × `height` filled with `colour` (0xRRGGBB).
    public init(width: Int, height: Int, colour: UInt32) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        pixels = []
        pixels.reserveCapacity(self.width * self.height * 3)
        for _ in 0..<(self.width * self.height) {
            pixels += [UInt8(colour >> 16 & 0xFF), UInt8(colour >> 8 & 0xFF), UInt8(colour & 0xFF)]
        }
    }

    /// Colours the pixel at (`x`, `y`), where it lies in the picture.
    public mutating func set(_ x: Int, _ y: Int, _ colour: UInt32) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let index = (y * width + x) * 3
        pixels[index] = UInt8(colour >> 16 & 0xFF)
        pixels[index + 1] = UInt8(colour >> 8 & 0xFF)
        pixels[index + 2] = UInt8(colour & 0xFF)
    }

    /// Fills the rectangle from (`x`, `y`), `columns` × `rows` pixels.
    public mutating func fill(x: Int, y: Int, columns: Int, rows: Int, _ colour: UInt32) {
        for row in max(y, 0)..<min(y + rows, height) {
            for column in max(x, 0)..<min(x + columns, width) { set(column, row, colour) }
        }
    }

    /// Draws `text` (digits, `.`, `:` and `s` for seconds; a space is a space) in a 5×7 pixel font with its top left at (`x`, `y`).
    public mutating func draw(_ text: String, x: Int, y: Int, _ colour: UInt32) {
        var left = x
        for character in text {
            guard let rows = Self.glyphs[character] else {
                left += 6
                continue
            }
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 { set(left + column, y + row, colour) }
            }
            left += 6
        }
    }

    /// The 5×7 glyphs, a row of five bits each, the leftmost pixel the highest bit.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0],
        "s": [0, 0, 0x0E, 0x10, 0x0E, 0x01, 0x1E],
    ]

    /// The PNG file: signature, IHDR (8-bit RGB), IDAT, IEND.
    public var png: [UInt8] {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendInteger(UInt32(width), endianness: .big)
        header.appendInteger(UInt32(height), endianness: .big)
        header += [8, 2, 0, 0, 0]
        Self.appendChunk("IHDR", header, to: &file)
        // Each row after its filter byte (0: none).
        let stride = width * 3 + 1
        var raw = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            raw.replaceSubrange(
                (row * stride + 1)..<((row + 1) * stride), with: pixels[(row * width * 3)..<((row + 1) * width * 3)])
        }
        Self.appendChunk("IDAT", Self.zlib(raw, rowStride: stride), to: &file)
        Self.appendChunk("IEND", [], to: &file)
        return file
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        file.appendInteger(UInt32(data.count), endianness: .big)
        let typed = Array(type.utf8) + data
        file += typed
        file.appendInteger(crc32(typed), endianness: .big)
    }

    /// PNG's CRC-32 (the reflected polynomial 0xEDB88320, as zlib's).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// A zlib stream (RFC 1950) of one fixed-Huffman deflate block (RFC 1951): at each byte the longer of the
    /// runs that repeat the pixel before (distance 3) or the row above (`rowStride`), else a literal.
    static func zlib(_ data: [UInt8], rowStride: Int) -> [UInt8] {
        var bits = DeflateBits()
        bits.write(1, count: 1)  // the final block
        bits.write(1, count: 2)  // fixed Huffman codes
        var index = 0
        while index < data.count {
            var best = (length: 0, distance: 0)
            for distance in [3, rowStride] where distance <= 32768 && index >= distance {
                var length = 0
                while length < 258 && index + length < data.count
                    && data[index + length] == data[index + length - distance]
                {
                    length += 1
                }
                if length > best.length { best = (length, distance) }
            }
            if best.length >= 3 {
                bits.writeLength(best.length)
                bits.writeDistance(best.distance)
                index += best.length
            } else {
                bits.writeLiteral(Int(data[index]))
                index += 1
            }
        }
        bits.writeLiteral(256)  // end of block
        var stream: [UInt8] = [0x78, 0x01]
        stream += bits.finish()
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        stream.appendInteger(b << 16 | a, endianness: .big)
        return stream
    }
}

/// Deflate's bit order: values least significant bit first, Huffman codes most significant bit first.
private struct DeflateBits {
    private var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var filled = 0

    mutating func write(_ value: Int, count: Int) {
        buffer |= UInt64(value) << UInt64(filled)
        filled += count
        while filled >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            filled -= 8
        }
    }

    /// A Huffman code of `count` bits, its first bit the most significant.
    mutating func writeCode(_ code: Int, count: Int) {
        var reversed = 0
        for bit in 0..<count { reversed |= (code >> bit & 1) << (count - 1 - bit) }
        write(reversed, count: count)
    }

    /// A literal/length symbol in the fixed code.
    mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(0x30 + symbol, count: 8)
        case 144...255: writeCode(0x190 + symbol - 144, count: 9)
        case 256...279: writeCode(symbol - 256, count: 7)
        default: writeCode(0xC0 + symbol - 280, count: 8)
        }
    }

    private static let lengthBases = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    private static let distanceBases = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]

    mutating func writeLength(_ length: Int) {
        let code = (Self.lengthBases.lastIndex { $0 <= length } ?? 0)
        writeLiteral(257 + code)
        if Self.lengthExtra[code] > 0 { write(length - Self.lengthBases[code], count: Self.lengthExtra[code]) }
    }

    mutating func writeDistance(_ distance: Int) {
        let code = Self.distanceBases.lastIndex { $0 <= distance } ?? 0
        writeCode(code, count: 5)
        let extra = code < 4 ? 0 : code / 2 - 1
        if extra > 0 { write(distance - Self.distanceBases[code], count: extra) }
    }

    package mutating func finish() -> [UInt8] {
        if filled > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        filled = 0
        return bytes
    }
}
