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

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// The value as JSON text; `pretty` indents objects and arrays by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, depth: Int) {
        let newline = pretty ? "\n" + String(repeating: "  ", count: depth + 1) : ""
        let closing = pretty ? "\n" + String(repeating: "  ", count: depth) : ""
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
                out += newline
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            out += closing + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                out += newline
                JSONValue.writeString(key, into: &out)
                out += pretty ? ": " : ":"
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            out += closing + "}"
        }
    }

    private static func writeString(_ value: String, into out: inout String) {
        out += "\""
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
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
