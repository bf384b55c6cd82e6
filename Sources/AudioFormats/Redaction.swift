import Synchronization

/// What afkit takes out of text before a person or a log sees it: the one redaction every printed URL
/// passes, whatever it came from (the command line, a playlist at any level, a redirect).
public enum Redaction {
    /// The user information of every URL afkit has met in this process (``noteCredentials(in:)``): printed
    /// text is cleared of each, in every spelling a report gives it (as it is, JSON's escapes, HTML's and XML's
    /// character references, percent-encoding), whatever characters the password holds.
    private static let known = KnownSecrets()

    /// Notes the user information of `url` (`alice:s3cret` of `http://alice:s3cret@host/`), so that no text
    /// printed afterwards shows it. Every URL afkit takes (the command line, a playlist at any level, a
    /// redirect) is noted where it is taken.
    public static func noteCredentials(in text: String) {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return }
        var rest = Substring(text)
        while let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            // The authority: to the first '/', '?', '#' or line end (a URL is noted whole, spaces and all: a
            // password with one is still a password).
            let authority = rest.prefix { !"/?#\n\r".contains($0) }
            if let at = authority.lastIndex(of: "@"), at > authority.startIndex {
                known.add(String(authority[..<at]))
            }
        }
    }

    /// `text` with the user information of every URL in it (`http://alice:s3cret@host/` and the like)
    /// replaced by `***`: a password in a URL is never printed. The URL's scheme, host, port, path and query
    /// stay. A URL's authority runs to the first `/`, `?`, `#`, `\`, space, `"`, `<`, `>` or control
    /// character; user information may hold every other character RFC 3986 lets it (`'` and `&` among them).
    public static func credentialsRemoved(from text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var text = text
        for spelling in known.spellings where text.contains(spelling) {
            text = text.replacingAll(spelling, with: "***")
        }
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

/// The secrets noted, and each in the spellings printed text may give it.
private final class KnownSecrets: Sendable {
    private let state = Mutex<(secrets: Set<String>, spellings: [String])>(([], []))

    func add(_ secret: String) {
        state.withLock { state in
            guard state.secrets.insert(secret).inserted else { return }
            // As JSON writes it inside a string, as the HTML and JUnit reports write it, and percent-encoded (as
            // GitHub's annotations write a file name).
            let json = String(JSONValue.string(secret).serialized().dropFirst().dropLast())
            let html = markupEscaped(secret)
            var percent = ""
            for scalar in secret.unicodeScalars {
                if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                    percent.unicodeScalars.append(scalar)
                } else {
                    for byte in String(scalar).utf8 {
                        percent += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                    }
                }
            }
            var forms: Set<String> = [secret]
            forms.formUnion([json, html, percent, html.replacingAll("&#39;", with: "&apos;")])
            // The longest first, so a spelling inside another is never left half replaced.
            state.spellings = Set(state.spellings).union(forms.filter { $0.count >= 2 }).sorted { $0.count > $1.count }
        }
    }

    var spellings: [String] { state.withLock { $0.spellings } }
}

extension String {
    /// The string with every occurrence of `target` replaced, matched scalar by scalar (so `"\r"` is found in
    /// `"\r\n"`, which is one Character). Written without Foundation: the pure modules use neither it nor
    /// string-processing API that older macOS releases lack.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.unicodeScalars)
        guard let first = pattern.first, unicodeScalars.contains(first) else { return self }
        let scalars = Array(unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == first, index + pattern.count <= scalars.count,
                scalars[index..<(index + pattern.count)].elementsEqual(pattern)
            {
                out.append(contentsOf: replacement.unicodeScalars)
                index += pattern.count
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }
}

/// Text as XML or HTML content or a quoted attribute value (JUnit's and the HTML report's): the five
/// markup characters as references, control characters other than tab and line breaks (which XML 1.0
/// cannot hold) as "?".
public func markupEscaped(_ text: String) -> String {
    guard
        text.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0xF4
        })
    else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        case let c where c.value < 0x20 && c != "\n" && c != "\t" && c != "\r": out += "?"
        // A name's escaped byte or control character, as the text outputs print it (`\xFF`, `\n`).
        case let c where PathEscaping.isEscape(c): out += PathEscaping.displayed(String(c))
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}
