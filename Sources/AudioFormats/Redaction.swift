/// What afkit takes out of text before a person or a log sees it: the one redaction every printed URL
/// passes, whatever it came from (the command line, a playlist at any level, a redirect).
public enum Redaction {
    /// `text` with the user information of every URL in it (`http://alice:s3cret@host/` and the like)
    /// replaced by `***`: a password in a URL is never printed. The URL's scheme, host, port, path and query
    /// stay. A URL's authority runs to the first `/`, `?`, `#`, `\`, space, `"`, `<`, `>` or control
    /// character; user information may hold every other character RFC 3986 lets it (`'` and `&` among them).
    public static func credentialsRemoved(from text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var scalars = Array(text.unicodeScalars)
        var index = 0
        while index + 2 < scalars.count {
            guard scalars[index] == ":", scalars[index + 1] == "/", scalars[index + 2] == "/" else {
                index += 1
                continue
            }
            let start = index + 3
            var end = start
            var at: Int?
            while end < scalars.count {
                let scalar = scalars[end]
                // An HTML or XML character reference (`&#39;`, `&amp;`: a report's escaping) is part of the text.
                if scalar == "&", let length = referenceLength(scalars, at: end) {
                    end += length
                    continue
                }
                if "/?#\\\"<> ".unicodeScalars.contains(scalar) || scalar.value < 0x20 || scalar.value == 0x7F {
                    break
                }
                if scalar == "@" { at = end }
                end += 1
            }
            if let at {
                scalars.replaceSubrange(start..<at, with: "***".unicodeScalars)
                index = start + 3
            } else {
                index = end
            }
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// The length of the character reference (`&name;`, `&#39;`, `&#x27;`) at `start`, or `nil`.
    private static func referenceLength(_ scalars: [Unicode.Scalar], at start: Int) -> Int? {
        var index = start + 1
        var hasName = false
        if index < scalars.count, scalars[index] == "#" {
            index += 1
            if index < scalars.count, scalars[index] == "x" || scalars[index] == "X" { index += 1 }
        }
        while index < scalars.count, index - start <= 10,
            scalars[index].properties.isASCIIHexDigit
                || ("a"..."z").contains(scalars[index]) || ("A"..."Z").contains(scalars[index])
        {
            hasName = true
            index += 1
        }
        return hasName && index < scalars.count && scalars[index] == ";" ? index + 1 - start : nil
    }
}
