/// File names are bytes on Linux, and not every byte string is UTF-8 (`bad-\xff.wav`, made on a
/// Latin-1 system or by a zip archive). afkit keeps such a name in a `String` without losing a byte:
/// each byte that is not part of valid UTF-8 becomes one scalar of Unicode's last private-use block,
/// U+10FF80 + (byte − 0x80), and turns back into that byte wherever the name goes to the system. A
/// real name's own U+10FF00...U+10FFFF (never seen in practice) is escaped byte by byte, so the mapping
/// is exact both ways. Printed, an escaped byte reads `\xFF`.
///
/// A control character in a name (a newline, a tab, ESC: bytes 0x01-0x1F and 0x7F) is valid UTF-8 but
/// must never reach a terminal or a log raw: a name holding `\n::warning file=...::` would forge a line of
/// its own (a GitHub Actions annotation). Such a byte becomes a scalar of the block just below,
/// U+10FF00 + byte, and prints as `\n`, `\r`, `\t` or `\x1B`; JSON writes it as the character it is
/// (`"\n"`), so a JSON reader gets the name exactly.
public enum PathEscaping {
    static let firstEscape: UInt32 = 0x10FF80
    /// The scalar for control byte 0x00 (U+10FF00 + byte for 0x01-0x1F and 0x7F).
    static let firstControlEscape: UInt32 = 0x10FF00

    /// The name for a path's bytes (from `readdir`, `argv`, `readlink`).
    public static func string<Bytes: Collection>(fromBytes bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if isControl(Unicode.Scalar(bytes[index])) {
                scalars.append(Unicode.Scalar(firstControlEscape + UInt32(bytes[index])) ?? "\u{FFFD}")
                index += 1
            } else if let (scalar, length) = decode(bytes, at: index) {
                scalars.append(scalar)
                index += length
            } else {
                // A private-use scalar (U+10FF80...U+10FFFF): always valid.
                scalars.append(Unicode.Scalar(firstEscape + UInt32(bytes[index]) - 0x80) ?? "\u{FFFD}")
                index += 1
            }
        }
        return String(scalars)
    }

    /// The bytes a name stands for.
    public static func bytes(of string: String) -> [UInt8] {
        guard string.utf8.contains(0xF4) else { return Array(string.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for scalar in string.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(byte(escapedBy: scalar))
            } else {
                bytes += Array(String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with the name's bytes as a C string, for a system call.
    public static func withCString<Result>(_ string: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
        -> Result
    {
        guard string.utf8.contains(0xF4) else { return try string.withCString(body) }
        let bytes = bytes(of: string).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { buffer in
            // Never empty: it ends in the terminating zero.
            guard let start = buffer.baseAddress else { return try string.withCString(body) }
            return try body(start)
        }
    }

    /// The name as a person reads it: each escaped byte as `\xFF`, a control character as `\n`, `\r`, `\t`
    /// or `\x1B`.
    /// A bidirectional control (U+202E and its kin), which would reorder the text around it, prints as
    /// `\u202E`: readable in text, and the same character again inside a JSON string.
    public static func displayed(_ string: String) -> String {
        guard string.utf8.contains(where: { $0 == 0xF4 || $0 == 0xE2 || $0 == 0xD8 }) else { return string }
        guard string.unicodeScalars.contains(where: { isEscape($0) || isBidirectionalControl($0) }) else {
            return string
        }
        var text = ""
        for scalar in string.unicodeScalars {
            if isEscape(scalar) {
                text += spelling(of: byte(escapedBy: scalar))
            } else if isBidirectionalControl(scalar) {
                text += unicodeSpelling(of: scalar)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// How an escaped byte prints: `\n`, `\r`, `\t`, or `\x` and two hex digits.
    static func spelling(of byte: UInt8) -> String {
        switch byte {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            return "\\x" + (hex.count < 2 ? "0" : "") + hex
        }
    }

    /// Whether a name holds a byte a shell's single quotes cannot carry as text: a control character, or a byte
    /// that is not UTF-8.
    public static func needsANSIQuoting(_ string: String) -> Bool {
        string.unicodeScalars.contains { isEscape($0) || isControl($0) }
    }

    /// A name in bash's ANSI-C quotes (`$'x\n::y.wav'`), every byte spelled so the shell gives back the very
    /// name: control characters and bytes that are not UTF-8 as `\n`, `\t`, `\xFF`, a quote and a backslash
    /// escaped. Pasted into bash or zsh, it names the file.
    public static func ansiCQuoted(_ string: String) -> String {
        var out = "$'"
        for scalar in string.unicodeScalars {
            if isEscape(scalar) {
                out += spelling(of: byte(escapedBy: scalar))
            } else if isControl(scalar) {
                out += spelling(of: UInt8(scalar.value))
            } else if scalar == "\\" || scalar == "'" {
                out += "\\" + String(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// Text from a file (a tag, a marker's name) as a line of text output may show it: every control character
    /// printed as ``displayed(_:)`` prints a name's, so nothing a file says can start a line of its own.
    /// Bidirectional controls print as `\u202E`, as ``displayed(_:)`` prints them.
    public static func controlEscaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || isBidirectionalControl($0) }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += spelling(of: UInt8(scalar.value))
            } else if isBidirectionalControl(scalar) {
                out += unicodeSpelling(of: scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Text as a terminal or a log may receive it: every control character but the line feed and the tab (an
    /// escape sequence, a carriage return, a bell from a playlist's URI or a server's message) spelled as `\x1B`,
    /// `\r`, `\x07`; JSON's and the reports' own text never holds them raw.
    public static func withoutRawControls(_ text: String) -> String {
        guard text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) && scalar != "\n" && scalar != "\t" {
                out += spelling(of: UInt8(scalar.value))
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The control character an escape scalar stands for (a newline, a tab), or `nil` for an escaped byte of
    /// a name that is not UTF-8 (and for any other scalar).
    public static func controlCharacter(escapedBy scalar: Unicode.Scalar) -> Unicode.Scalar? {
        guard isEscape(scalar), scalar.value < firstEscape else { return nil }
        return Unicode.Scalar(scalar.value - firstControlEscape)
    }

    @inlinable
    static func isEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x10FF00 }

    /// Whether a scalar is a control character a name or a line must not carry raw (C0 or DEL).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F }

    /// Whether a scalar is one of Unicode's bidirectional controls (marks, embeddings, overrides, isolates),
    /// which make a terminal or a page show text in an order other than its own (a name ending `\u202Eavc.wav`
    /// reads as `...vaw.cva`).
    static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `\u` and four hexadecimal digits (a scalar below U+10000).
    static func unicodeSpelling(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The byte an escape scalar stands for.
    static func byte(escapedBy scalar: Unicode.Scalar) -> UInt8 {
        scalar.value >= firstEscape
            ? UInt8(truncatingIfNeeded: scalar.value - firstEscape + 0x80)
            : UInt8(truncatingIfNeeded: scalar.value - firstControlEscape)
    }

    /// One valid UTF-8 sequence at `index` (not an escape scalar's own encoding), or `nil`.
    private static func decode(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0x00..<0x80: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= smallest, value < firstControlEscape, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
