/// Base64 (RFC 4648, padded): the HTML report's data, Vorbis comments' `METADATA_BLOCK_PICTURE`.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as base64, padded with `=`.
    public static func encoded(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var word = UInt32(bytes[index]) << 16
            if count > 1 { word |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { word |= UInt32(bytes[index + 2]) }
            for position in 0..<4 {
                let shift = UInt32(18 - 6 * position)
                let sextet = Int((word >> shift) & 63)
                out.append(position <= count ? alphabet[sextet] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes base64 `text` stands for (padding optional, no other characters); `nil` where it is not
    /// base64.
    public static func decoded(_ text: some Collection<UInt8>) -> [UInt8]? {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { values[Int(character)] = UInt8(index) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var word: UInt32 = 0
        var count = 0
        var padding = 0
        for character in text {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = values[Int(character)]
            guard value != 0xFF, padding == 0 else { return nil }
            word = word << 6 | UInt32(value)
            count += 1
            if count == 4 {
                out += [UInt8(word >> 16), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
                word = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: out.append(UInt8(word >> 4))
        case 3: out += [UInt8(word >> 10), UInt8(word >> 2 & 0xFF)]
        default: return nil
        }
        guard padding <= 2 else { return nil }
        return out
    }
}
