import AudioFormats
import StreamParsing

/// Apple's chapters for HTTP Live Streaming ("Providing JavaScript Object Notation (JSON) chapters"): a JSON file
/// the master playlist names in `EXT-X-SESSION-DATA` with `DATA-ID="com.apple.hls.chapters"`. The file is an array
/// of chapter entries, each with its `start-time` (seconds, required), optionally its `chapter` number (from 1),
/// `duration` (seconds, above 0; else it lasts until the next one starts), `titles` (`language`, a BCP 47 tag, and
/// `title` each), `images` and `metadata`.
extension HLS {
    /// The `DATA-ID` of Apple's chapters.
    public static let chaptersDataID = "com.apple.hls.chapters"
    /// The largest chapters file read (1 MiB: thousands of chapters with their titles).
    public static let maximumChaptersFileSize = 1 << 20

    /// The JSON file of `chapters` (in time order, on the presentation's clock), each titled in `language`: its
    /// number, start, duration (where the chapter ends) and title, times to the microsecond.
    public static func chaptersJSON(_ chapters: [Chapter], language: String) -> String {
        func seconds(_ value: Double) -> JSONValue { .number((value * 1_000_000).rounded() / 1_000_000) }
        let entries = chapters.enumerated().map { index, chapter -> JSONValue in
            var members: [(String, JSONValue)] = [
                ("chapter", .integer(Int64(index + 1))), ("start-time", seconds(chapter.startTime)),
            ]
            if let end = chapter.endTime, end > chapter.startTime {
                members.append(("duration", seconds(end - chapter.startTime)))
            }
            members.append(
                ("titles", .array([.object([("language", .string(language)), ("title", .string(chapter.title))])])))
            return .object(members)
        }
        return JSONValue.array(entries).serialized(pretty: true) + "\n"
    }

    /// Reads a chapters file named `name` (messages name it): each entry's start, end (where it gives a duration)
    /// and first title ("" where it has none). Not JSON, not an array of entries, an entry without a start time of
    /// 0 or more, or a duration, number or title of the wrong kind: a typed error (the byte, for JSON that breaks).
    public static func chapters(inJSON bytes: [UInt8], name: String) throws -> [Chapter] {
        guard bytes.count <= maximumChaptersFileSize else {
            throw AudioFileError.limitExceeded(
                "'\(name)': a chapters file of \(bytes.count) bytes, more than the \(maximumChaptersFileSize) read",
                offset: Int64(maximumChaptersFileSize))
        }
        let value: JSONValue
        do {
            value = try JSONValue(validating: String(decoding: bytes, as: UTF8.self))
        } catch let error as JSONSyntaxError {
            throw AudioFileError.malformed("'\(name)': not JSON: \(error)", offset: Int64(error.offset))
        }
        guard let entries = value.arrayValue else {
            throw AudioFileError.malformed("'\(name)': Apple's chapters are a JSON array of entries", offset: 0)
        }
        return try entries.enumerated().map { index, entry in
            let which = "'\(name)': chapter entry \(index + 1)"
            guard entry.objectValue != nil else { throw AudioFileError.malformed("\(which) is no object", offset: nil) }
            guard let start = entry["start-time"]?.doubleValue, start.isFinite, start >= 0 else {
                throw AudioFileError.malformed("\(which) has no 'start-time' of 0 seconds or more", offset: nil)
            }
            var end: Double?
            if let duration = entry["duration"] {
                guard let seconds = duration.doubleValue, seconds.isFinite, seconds > 0 else {
                    throw AudioFileError.malformed("\(which): 'duration' is no number of seconds above 0", offset: nil)
                }
                end = start + seconds
            }
            if let number = entry["chapter"], (number.doubleValue ?? 0) < 1 {
                throw AudioFileError.malformed("\(which): 'chapter' is no number from 1", offset: nil)
            }
            var title = ""
            if let titles = entry["titles"] {
                guard let list = titles.arrayValue else {
                    throw AudioFileError.malformed("\(which): 'titles' is no array", offset: nil)
                }
                for item in list {
                    guard item["language"]?.stringValue != nil, let text = item["title"]?.stringValue else {
                        throw AudioFileError.malformed(
                            "\(which): a title needs a 'language' and a 'title', each a string", offset: nil)
                    }
                    if title.isEmpty { title = text }
                }
            }
            return Chapter(startTime: start, endTime: end, title: title)
        }
    }
}
