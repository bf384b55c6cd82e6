/// A path pattern of a profile's overrides: `*` matches within one path component, `**` across
/// components (`music/**` is everything under music/), `?` one character.
public struct Glob: Hashable, Sendable {
    /// The pattern as written.
    public let pattern: String
    private let parts: [Character]

    /// A pattern with `*` (within a folder), `**` (across folders) and `?`.
    public init(_ pattern: String) {
        self.pattern = pattern
        parts = Array(pattern)
    }

    /// Whether `path` (with `/` separators, relative as given) matches.
    public func matches(_ path: String) -> Bool {
        let text = Array(path)
        // Iterative matching with memo of (pattern index, text index).
        var memo: [Int: Bool] = [:]
        func match(_ p: Int, _ t: Int) -> Bool {
            let key = p * (text.count + 1) + t
            if let known = memo[key] { return known }
            var result: Bool
            if p == parts.count {
                result = t == text.count
            } else if parts[p] == "*" && p + 1 < parts.count && parts[p + 1] == "*" {
                // `**/` may also match nothing at all.
                let next = p + 2 < parts.count && parts[p + 2] == "/" ? p + 3 : p + 2
                result = match(next, t) || (t < text.count && match(p, t + 1))
            } else if parts[p] == "*" {
                result = match(p + 1, t) || (t < text.count && text[t] != "/" && match(p, t + 1))
            } else if t < text.count && (parts[p] == "?" ? text[t] != "/" : parts[p] == text[t]) {
                result = match(p + 1, t + 1)
            } else {
                result = false
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }
}
