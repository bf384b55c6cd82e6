/// A JSON value with object keys kept in insertion order, and its compact serialization.
///
/// afkit's reports print fields in the order the contract lists them, which a dictionary cannot keep.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Equal when they serialize alike.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }
    /// Hashes the serialized text.
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// The value as JSON text; `pretty` indents objects and arrays by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0)
        return out
    }

    /// Appends the value's JSON text to `out` as a value nested `depth` levels deep: with `pretty`, its
    /// lines are indented to sit there (a long listing is written a piece at a time this way).
    public func write(into out: inout String, pretty: Bool, depth: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let value):
            if !value.isFinite {
                out += "null"
            } else if value == value.rounded(), abs(value) < 9.0e15 {
                out += String(Int64(value))
            } else {
                out += String(value)
            }
        case .string(let value): JSONValue.writeString(value, into: &out)
        case .array(let values):
            guard !values.isEmpty else { out += "[]"; return }
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeIndent(pretty: pretty, depth: depth + 1, into: &out)
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            JSONValue.writeIndent(pretty: pretty, depth: depth, into: &out)
            out += "]"
        case .object(let members):
            JSONValue.writeObject(members, into: &out, pretty: pretty, depth: depth)
        }
    }

    /// Appends `.object(members)` as ``write(into:pretty:depth:)`` would, without making the value (a
    /// listing of many small objects writes each so).
    public static func writeObject(_ members: [(String, JSONValue)], into out: inout String, pretty: Bool, depth: Int) {
        guard !members.isEmpty else {
            out += "{}"
            return
        }
        out += "{"
        var first = true
        for (key, value) in members {
            if !first { out += "," }
            first = false
            writeIndent(pretty: pretty, depth: depth + 1, into: &out)
            writeString(key, into: &out)
            out += pretty ? ": " : ":"
            value.write(into: &out, pretty: pretty, depth: depth + 1)
        }
        writeIndent(pretty: pretty, depth: depth, into: &out)
        out += "}"
    }

    /// A new line indented `depth` levels (two spaces each), when `pretty`.
    private static func writeIndent(pretty: Bool, depth: Int, into out: inout String) {
        guard pretty else { return }
        out += "\n"
        for _ in 0..<depth { out += "  " }
    }

    private static func writeString(_ value: String, into out: inout String) {
        out += "\""
        // Most strings (keys, plain names) need no escape: appended whole. Path escapes are U+10FF00 and
        // above, four UTF-8 bytes that start with 0xF4.
        if !value.utf8.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xF4
        }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case let c where PathEscaping.isEscape(c):
                if let control = PathEscaping.controlCharacter(escapedBy: c) {
                    // A control character of a file name: JSON writes it as the character it is.
                    let hex = String(control.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    // A byte of a file name that is not UTF-8: JSON has no bytes, so it reads `\xFF`.
                    out += "\\" + PathEscaping.displayed(String(c))
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue {
    /// Parses JSON text (RFC 8259), or returns `nil` if it is not JSON. Nesting is limited to 64 levels.
    public init?(parsing text: String) {
        guard let value = try? JSONValue(validating: text) else { return nil }
        self = value
    }

    /// Parses JSON text, or throws where it stops being JSON (line and column, counted from 1).
    public init(validating text: String) throws {
        var parser = JSONParser(bytes: Array(text.utf8))
        let value = parser.value(depth: 0)
        parser.skipWhitespace()
        guard let value, parser.index == parser.bytes.count else {
            let before = parser.bytes[0..<min(parser.index, parser.bytes.count)]
            let line = before.filter { $0 == 0x0A }.count + 1
            let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
            throw JSONSyntaxError(
                line: line, column: column, offset: before.count,
                reason: value == nil
                    ? "a value is expected or malformed"
                    : "text follows the value")
        }
        self = value
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string, if the value is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The Boolean, if the value is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if the value is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members in order, if the value is an object.
    public var objectValue: [(String, JSONValue)]? { if case .object(let value) = self { value } else { nil } }
    /// The number (an integer as a Double), if the value is one.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }
}

/// A small recursive-descent JSON reader.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard depth < 64 else { return nil }
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value(depth: depth + 1) else { return nil }
                members.append((key, member))
                skipWhitespace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                return nil
            }
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                return nil
            }
        case UInt8(ascii: "\""):
            return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            return nil
        }
        index += expected.count
        return value
    }

    mutating func number() -> JSONValue? {
        let start = index
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(JSONValue.number)
    }

    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                flush()
                switch escape {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        var code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { return nil }
                    index += 4
                    if (0xD800..<0xDC00).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        let low = UInt32(String(decoding: bytes[index + 2..<index + 6], as: UTF8.self), radix: 16)
                    {
                        code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                        index += 6
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: scalars.append(Unicode.Scalar(escape))
                }
            default:
                guard byte >= 0x20 else { return nil }
                raw.append(byte)
            }
        }
        return nil
    }
}

/// Where JSON text stops being JSON.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    /// The line of the problem, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int
    /// The byte offset of the problem, from 0.
    public var offset: Int = 0
    /// What is wrong.
    public var reason: String
    /// Where and what.
    public var description: String { "line \(line), column \(column): \(reason)" }
}
