import AudioContainers
import AudioFormats
import FileAccess

/// Chapters a person wrote for an output (`--chapters FILE`): FFmpeg's metadata file (`;FFMETADATA1`, each
/// `[CHAPTER]` with `TIMEBASE`, `START`, `END` and `title`), or show notes' lines (`HH:MM:SS[.mmm] Title`, as
/// YouTube and podcast hosts take them). Times are on the output's clock. A file that is not one of these is
/// refused with the line and byte where it goes wrong; nothing is guessed.
public struct ChapterList: Hashable, Sendable {
    /// One chapter and the line of the file it was written on.
    public struct Entry: Hashable, Sendable {
        /// The chapter: its start, its end where the file gives one, its title.
        public var chapter: Chapter
        /// The line (from 1) it was written on.
        public var line: Int
    }

    /// The file, as named on the command line (messages name it).
    public let name: String
    /// The chapters, in time order.
    public let entries: [Entry]
    /// What the file holds that is not taken (FFmpeg's global tags and stream sections), to be said.
    public let notes: [String]

    /// The largest chapter file read: a list of chapters, not a book.
    public static let maximumBytes = 1 << 20
    /// The most chapters a file may list (more than any container holds: MP4 and ID3 take 255, Vorbis comments 999).
    public static let maximumChapters = 4096

    /// Reads the chapter file at `path` (standard input is not taken: the sound may be on it).
    public init(path: String) throws {
        var bytes: [UInt8] = []
        try forEachChunk(ofFileAt: path, chunkSize: 65536) { chunk in
            guard bytes.count + chunk.count <= Self.maximumBytes else {
                throw AudioFileError.limitExceeded(
                    "'\(path)': a chapter file of more than \(Self.maximumBytes) bytes: not a chapter list",
                    offset: Int64(Self.maximumBytes))
            }
            bytes += chunk
        }
        try self.init(bytes: bytes, name: path)
    }

    /// Chapters already placed on the output's clock (what an earlier step of afkit's placed), named by the file they
    /// came from.
    init(name: String, chapters: [Chapter]) {
        self.name = name
        entries = chapters.map { Entry(chapter: $0, line: 0) }
        notes = []
    }

    /// Parses `bytes` of a chapter file named `name`.
    public init(bytes: [UInt8], name: String) throws {
        self.name = name
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let zero = body.firstIndex(of: 0) {
            throw AudioFileError.malformed(
                "'\(name)': a NUL byte: a chapter file is text (UTF-8)", offset: Int64(zero))
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw AudioFileError.malformed(
                "'\(name)': not UTF-8 text: a chapter file is text in UTF-8", offset: Int64(Self.firstInvalidUTF8(body))
            )
        }
        // Lines with the byte each starts at (CR LF and LF alike).
        var lines: [(text: Substring, offset: Int64)] = []
        var offset = Int64(body.startIndex)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append((line.hasSuffix("\r") ? line.dropLast() : line, offset))
            offset += Int64(line.utf8.count + 1)
        }
        let first = lines.first { !$0.text.allSatisfy(\.isWhitespace) }?.text
        let parsed =
            first == ";FFMETADATA1"
            ? try Self.ffmetadata(lines, name: name) : (try Self.showNotes(lines, name: name), [String]())
        try Self.checkOrder(parsed.0, lines: lines, name: name)
        entries = parsed.0
        notes = parsed.1
    }

    /// The chapters, each ending at the end it was given, else where the next begins, else at `length` seconds (the
    /// output's end); a chapter starting at or past `length` is refused, one ending past it ends there, with a note.
    public func chapters(endingBy length: Double) throws -> (chapters: [Chapter], notes: [String]) {
        var chapters: [Chapter] = []
        var notes = self.notes
        for (index, entry) in entries.enumerated() {
            var chapter = entry.chapter
            guard chapter.startTime < length else {
                throw AudioFileError.limitExceeded(
                    "'\(name)', line \(entry.line): the chapter '\(chapter.title)' starts at "
                        + "\(clockTime(chapter.startTime)), at or past the output's end (\(clockTime(length))): "
                        + "remove it or give a longer sound; nothing was written", offset: nil)
            }
            let end = chapter.endTime ?? (index + 1 < entries.count ? entries[index + 1].chapter.startTime : length)
            if end > length {
                notes.append(
                    "'\(name)', line \(entry.line): the chapter '\(chapter.title)' ends at \(clockTime(end)), past "
                        + "the output's end: it ends at \(clockTime(length))")
            }
            chapter.endTime = min(end, length)
            chapters.append(chapter)
        }
        return (chapters, notes)
    }

    // MARK: - The two forms

    /// FFmpeg's metadata file: `[CHAPTER]` sections of `TIMEBASE=num/den` (FFmpeg's default 1/1000000000),
    /// `START=` and `END=` (integers in that time base) and `title=`; `;` and `#` open comments; a backslash
    /// escapes the next character (a newline included).
    private static func ffmetadata(_ lines: [(text: Substring, offset: Int64)], name: String) throws -> (
        [Entry], [String]
    ) {
        struct Section {
            var line: Int
            var offset: Int64
            var timeBase = (numerator: Int64(1), denominator: Int64(1_000_000_000))
            var start: Int64?
            var end: Int64?
            var title = ""
        }
        var entries: [Entry] = []
        var section: Section?
        var ignored: [String] = []
        var inStream = false
        func fail(_ line: Int, _ offset: Int64, _ what: String) -> AudioFileError {
            .malformed("'\(name)', line \(line): \(what)", offset: offset)
        }
        func close() throws {
            guard let open = section else { return }
            guard let start = open.start else {
                throw fail(open.line, open.offset, "a [CHAPTER] with no START=")
            }
            func seconds(_ value: Int64) -> Double {
                Double(value) * Double(open.timeBase.numerator) / Double(open.timeBase.denominator)
            }
            let startTime = seconds(start)
            let endTime = open.end.map(seconds)
            guard startTime <= EditTime.maximumSeconds, (endTime ?? 0) <= EditTime.maximumSeconds else {
                throw fail(open.line, open.offset, "a chapter past a week: not a time of a sound")
            }
            if let endTime, endTime < startTime {
                throw fail(
                    open.line, open.offset,
                    "the chapter ends (END=\(open.end ?? 0)) before it starts (START=\(start))")
            }
            guard entries.count < maximumChapters else {
                throw AudioFileError.limitExceeded(
                    "'\(name)', line \(open.line): more than \(maximumChapters) chapters", offset: open.offset)
            }
            entries.append(
                Entry(chapter: Chapter(startTime: startTime, endTime: endTime, title: open.title), line: open.line))
            section = nil
        }
        var index = 0
        while index < lines.count {
            let (number, offset) = (index + 1, lines[index].offset)
            // A backslash at the end of a line escapes its newline: the value goes on.
            var line = String(lines[index].text)
            index += 1
            while Self.endsInEscape(line), index < lines.count {
                line = String(line.dropLast()) + "\n" + lines[index].text
                index += 1
            }
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                try close()
                inStream = false
                switch line {
                case "[CHAPTER]": section = Section(line: number, offset: offset)
                case "[STREAM]":
                    inStream = true
                    ignored.append("line \(number): a [STREAM] section")
                default: throw fail(number, offset, "'\(line)': FFmpeg's metadata sections are [CHAPTER] and [STREAM]")
                }
                continue
            }
            guard let (key, value) = Self.keyValue(line) else {
                throw fail(number, offset, "'\(line.prefix(60))' is not KEY=value")
            }
            guard var open = section else {
                if !inStream { ignored.append("line \(number): the tag '\(key)'") }
                continue
            }
            func integer() throws -> Int64 {
                guard let number = Int64(value), number >= 0 else {
                    throw fail(number, offset, "\(key)=\(value): a whole number of the time base, 0 or more")
                }
                return number
            }
            switch key.uppercased() {
            case "TIMEBASE":
                let parts = value.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, let numerator = Int64(parts[0]), let denominator = Int64(parts[1]),
                    numerator > 0, denominator > 0, open.start == nil
                else {
                    throw fail(
                        number, offset,
                        "TIMEBASE=\(value): a fraction of a second such as 1/1000, before START=")
                }
                open.timeBase = (numerator, denominator)
            case "START" where open.start == nil: open.start = try integer()
            case "END" where open.end == nil: open.end = try integer()
            case "START", "END": throw fail(number, offset, "a second \(key)= in one [CHAPTER]")
            case "TITLE": open.title = value
            default: ignored.append("line \(number): the chapter tag '\(key)'")
            }
            section = open
        }
        try close()
        let notes =
            ignored.isEmpty
            ? []
            : [
                "'\(name)': chapters only are taken from FFmpeg's metadata file; not applied: "
                    + ignored.prefix(3).joined(separator: ", ")
                    + (ignored.count > 3 ? ", \(ignored.count - 3) more" : "")
            ]
        return (entries, notes)
    }

    /// Show notes: a clock time (`1:02:03.5`, `02:03`) and a title on each line, the title after a space and
    /// an optional dash; blank lines skipped. A line that is not one is refused, never passed over.
    private static func showNotes(_ lines: [(text: Substring, offset: Int64)], name: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (index, (text, offset)) in lines.enumerated() {
            let line = text.trimmingWhitespace
            if line.isEmpty { continue }
            let time = line.prefix { !$0.isWhitespace }
            var title = line.dropFirst(time.count).trimmingWhitespace
            for dash in ["-", "–", "—"] where title.hasPrefix(dash + " ") || title == Substring(dash) {
                title = title.dropFirst(dash.count).trimmingWhitespace
            }
            guard time.contains(":"), let seconds = clockSeconds(String(time)), seconds <= EditTime.maximumSeconds
            else {
                throw AudioFileError.malformed(
                    "'\(name)', line \(index + 1): '\(line.prefix(60))' is not 'HH:MM:SS[.mmm] Title' (or a file "
                        + "of FFmpeg's, which starts ;FFMETADATA1)", offset: offset)
            }
            guard entries.count < maximumChapters else {
                throw AudioFileError.limitExceeded(
                    "'\(name)', line \(index + 1): more than \(maximumChapters) chapters", offset: offset)
            }
            entries.append(Entry(chapter: Chapter(startTime: seconds, title: String(title)), line: index + 1))
        }
        return entries
    }

    /// Chapters in the order they play: each starts after the one before, and ends no later than the next begins.
    private static func checkOrder(_ entries: [Entry], lines: [(text: Substring, offset: Int64)], name: String) throws {
        guard !entries.isEmpty else {
            throw AudioFileError.malformed("'\(name)': no chapter in it", offset: 0)
        }
        for (previous, next) in zip(entries, entries.dropFirst()) {
            let offset = lines[next.line - 1].offset
            guard next.chapter.startTime > previous.chapter.startTime else {
                throw AudioFileError.malformed(
                    "'\(name)', line \(next.line): the chapter starts at \(clockTime(next.chapter.startTime)), not "
                        + "after the one on line \(previous.line) (\(clockTime(previous.chapter.startTime))): "
                        + "chapters are listed in the order they play", offset: offset)
            }
            if let end = previous.chapter.endTime, end > next.chapter.startTime {
                throw AudioFileError.malformed(
                    "'\(name)', line \(previous.line): the chapter ends at \(clockTime(end)), after the next one "
                        + "(line \(next.line)) starts at \(clockTime(next.chapter.startTime)): chapters do not overlap",
                    offset: lines[previous.line - 1].offset)
            }
        }
    }

    // MARK: - Pieces

    /// `KEY=value` with FFmpeg's escapes undone (a backslash keeps the next character as it is).
    private static func keyValue(_ line: String) -> (String, String)? {
        var key = ""
        var value = ""
        var seenEquals = false
        var escaped = false
        for character in line {
            if escaped {
                if seenEquals { value.append(character) } else { key.append(character) }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "=" && !seenEquals {
                seenEquals = true
            } else if seenEquals {
                value.append(character)
            } else {
                key.append(character)
            }
        }
        return seenEquals && !key.isEmpty ? (key, value) : nil
    }

    /// Whether a line ends in an unescaped backslash.
    private static func endsInEscape(_ line: String) -> Bool {
        line.reversed().prefix { $0 == "\\" }.count % 2 == 1
    }

    /// Where UTF-8 decoding first fails in `bytes`.
    private static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error, .emptyInput: return offset
            }
        }
    }
}

extension Substring {
    /// Without the whitespace at either end.
    fileprivate var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}
