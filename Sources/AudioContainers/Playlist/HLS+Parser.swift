import AudioFormats
import StreamParsing

extension HLS {
    /// Whether `bytes` start as a playlist does (`#EXTM3U`, after a byte order mark).
    public static func isPlaylist(_ bytes: some Collection<UInt8>) -> Bool {
        let signature = Array("#EXTM3U".utf8)
        let body = Array(bytes.prefix(10))
        let start = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return body.count >= start + signature.count && Array(body[start..<start + signature.count]) == signature
    }

    /// The most bytes afkit reads as one playlist (a day of 1 s segments is under 4 MiB).
    public static let maximumPlaylistSize = 16 << 20

    /// Reads a playlist from its bytes (UTF-8). Errors name the line's byte offset.
    public static func parse(_ bytes: [UInt8]) throws -> Playlist {
        guard bytes.count <= maximumPlaylistSize else {
            throw AudioFileError.limitExceeded(
                "hls: a playlist of \(bytes.count) bytes is over afkit's limit of \(maximumPlaylistSize)", offset: 0)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw AudioFileError.malformed("hls: a playlist is UTF-8 text; this one is not", offset: 0)
        }
        // Every password a playlist holds is kept from what afkit prints, whatever its spelling.
        Redaction.noteCredentials(in: text)
        // Lines end with LF or CR LF (RFC 8216, 4.1): split on the bytes (a Character "\r\n" is not "\n").
        var lines: [(text: Substring, offset: Int64)] = []
        var start = text.utf8.startIndex
        var offset: Int64 = 0
        while start <= text.utf8.endIndex {
            let end = text.utf8[start...].firstIndex(of: 0x0A) ?? text.utf8.endIndex
            var lineEnd = end
            if lineEnd > start, text.utf8[text.utf8.index(before: lineEnd)] == 0x0D {
                lineEnd = text.utf8.index(before: lineEnd)
            }
            // Spaces and tabs around a line are not part of it (whitespace-only lines are blank), as players read them.
            var line = Substring(text.utf8[start..<lineEnd])
            if offset == 0, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }  // a byte order mark
            lines.append((Substring(line.trimmingSpaces), offset))
            offset += Int64(text.utf8.distance(from: start, to: end)) + 1
            guard end < text.utf8.endIndex else { break }
            start = text.utf8.index(after: end)
        }
        // `#EXTM3U` first (RFC 8216); blank lines and comments before it are passed over, as players do.
        let leading = lines.prefix { $0.text.isEmpty || ($0.text.hasPrefix("#") && !$0.text.hasPrefix("#EXT")) }.count
        guard leading < lines.count, lines[leading].text.hasPrefix("#EXTM3U") else {
            throw AudioFileError.malformed("hls: a playlist starts with '#EXTM3U'", offset: 0)
        }
        lines.removeFirst(leading)
        // An extended M3U whose entries last `#EXTINF:-1` (no duration: a live stream each), or that holds URLs
        // and no HLS tag at all, is a list of streams (radio, IPTV), not a presentation of segments.
        let unending = lines.contains { $0.text.hasPrefix("#EXTINF:-") }
        let untagged = !lines.contains { $0.text.hasPrefix("#EXT-X-") || $0.text.hasPrefix("#EXTINF") }
        if unending || (untagged && lines.contains { !$0.text.isEmpty && !$0.text.hasPrefix("#") }) {
            throw AudioFileError.unsupportedFileType(
                "hls: an M3U list of streams (radio, IPTV: " + (unending ? "'#EXTINF:-1'" : "URLs and no HLS tag")
                    + "), not an HLS playlist; afkit reads HLS playlists: give it a stream of the list by its URL",
                offset: 0)
        }
        // A master playlist is one with a variant or rendition tag (by its whole name).
        let masterTags: Set<String> = [
            "#EXT-X-STREAM-INF", "#EXT-X-MEDIA", "#EXT-X-I-FRAME-STREAM-INF", "#EXT-X-SESSION-DATA",
        ]
        let isMaster = lines.contains { $0.text.hasPrefix("#EXT-X-") && masterTags.contains(tag($0.text).0) }
        return isMaster ? .master(try master(lines)) : .media(try media(lines))
    }

    private static func media(_ lines: [(text: Substring, offset: Int64)]) throws -> MediaPlaylist {
        var playlist = MediaPlaylist()
        var pending: Segment?
        var discontinuity = false
        var key: Key?
        var map: MediaInitializationSection?
        var range: ByteRange?
        var rangeEnd: [String: Int64] = [:]
        for (line, offset) in lines.dropFirst() where !line.isEmpty {
            guard line.hasPrefix("#") else {
                // A URI: the segment the tags before it describe.
                guard var segment = pending else {
                    throw AudioFileError.malformed("hls: the segment '\(line)' has no EXTINF before it", offset: offset)
                }
                segment.uri = String(line)
                segment.discontinuity = discontinuity
                segment.key = key
                segment.map = map
                if var stated = range {
                    // A range without an offset follows the previous range of the same resource.
                    let start: Int64
                    if let offset = stated.offset {
                        start = offset
                    } else {
                        guard let end = rangeEnd[segment.uri] else {
                            throw AudioFileError.malformed(
                                "hls: EXT-X-BYTERANGE without an offset, and no earlier range of '\(line)'",
                                offset: offset)
                        }
                        stated.offset = end
                        start = end
                    }
                    let (end, overflow) = start.addingReportingOverflow(stated.length)
                    guard !overflow else {
                        throw AudioFileError.malformed(
                            "hls: the byte range \(stated.length)@\(start) runs past any resource's end", offset: offset
                        )
                    }
                    segment.byteRange = stated
                    rangeEnd[segment.uri] = end
                }
                playlist.segments.append(segment)
                pending = nil
                discontinuity = false
                range = nil
                continue
            }
            let (name, value) = tag(line)
            switch name {
            case "#EXT-X-VERSION": playlist.version = try integer(value, name, offset).map(Int.init)
            case "#EXT-X-TARGETDURATION": playlist.targetDuration = try integer(value, name, offset).map(Int.init)
            case "#EXT-X-MEDIA-SEQUENCE": playlist.mediaSequence = try sequenceNumber(value, name, offset)
            case "#EXT-X-DISCONTINUITY-SEQUENCE":
                playlist.discontinuitySequence = try sequenceNumber(value, name, offset)
            case "#EXT-X-PLAYLIST-TYPE": playlist.playlistType = value.map(String.init)
            case "#EXT-X-ENDLIST": playlist.endList = true
            case "#EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
            case "#EXT-X-I-FRAMES-ONLY": playlist.iFramesOnly = true
            case "#EXT-X-DISCONTINUITY": discontinuity = true
            case "#EXTINF":
                let parts = (value ?? "").split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = parts.first, let duration = Double(first.trimmingSpaces), duration >= 0,
                    duration.isFinite
                else {
                    throw AudioFileError.malformed(
                        "hls: EXTINF needs a duration, not '\(String((value ?? "").prefix(40)))'", offset: offset)
                }
                var segment = Segment(uri: "", duration: duration)
                segment.title = parts.count > 1 ? String(parts[1]) : ""
                segment.offset = offset
                pending = segment
            case "#EXT-X-BYTERANGE":
                range = try byteRange(value.map(String.init) ?? "", offset)
            case "#EXT-X-KEY":
                let attributes = try attributeList(value ?? "", offset)
                key = Key(method: attributes["METHOD"] ?? "NONE", uri: attributes["URI"])
            case "#EXT-X-MAP":
                let attributes = try attributeList(value ?? "", offset)
                guard let uri = attributes["URI"] else {
                    throw AudioFileError.malformed("hls: EXT-X-MAP needs a URI", offset: offset)
                }
                let section = try attributes["BYTERANGE"].map { try byteRange($0, offset) }
                if let section, section.offset.map({ $0.addingReportingOverflow(section.length).overflow }) == true {
                    throw AudioFileError.malformed(
                        "hls: the byte range \(section.text) runs past any resource's end", offset: offset)
                }
                map = MediaInitializationSection(uri: uri, byteRange: section)
            default: continue  // a comment, or a tag afkit does not use
            }
        }
        // An EXTINF with no URI after it at the end: a live playlist caught while it is written (its segment
        // comes with the next reload), as players take it; the segments before it stand.
        return playlist
    }

    private static func master(_ lines: [(text: Substring, offset: Int64)]) throws -> MasterPlaylist {
        var playlist = MasterPlaylist()
        var pending: Variant?
        for (line, offset) in lines.dropFirst() where !line.isEmpty {
            guard line.hasPrefix("#") else {
                guard var variant = pending else { continue }  // a URI with no EXT-X-STREAM-INF: not a variant
                variant.uri = String(line)
                playlist.variants.append(variant)
                pending = nil
                continue
            }
            let (name, value) = tag(line)
            switch name {
            case "#EXT-X-VERSION": playlist.version = try integer(value, name, offset).map(Int.init)
            case "#EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
            case "#EXT-X-MEDIA":
                let attributes = try attributeList(value ?? "", offset)
                guard let type = attributes["TYPE"], let group = attributes["GROUP-ID"], let name = attributes["NAME"]
                else {
                    throw AudioFileError.malformed("hls: EXT-X-MEDIA needs TYPE, GROUP-ID and NAME", offset: offset)
                }
                var rendition = Rendition(type: type, groupID: group, name: name)
                rendition.uri = attributes["URI"]
                rendition.language = attributes["LANGUAGE"]
                rendition.channels = attributes["CHANNELS"]
                rendition.isDefault = attributes["DEFAULT"] == "YES"
                rendition.autoselect = attributes["AUTOSELECT"] == "YES"
                rendition.offset = offset
                playlist.renditions.append(rendition)
            case "#EXT-X-SESSION-DATA":
                let attributes = try attributeList(value ?? "", offset)
                guard let dataID = attributes["DATA-ID"], (attributes["VALUE"] == nil) != (attributes["URI"] == nil)
                else {
                    throw AudioFileError.malformed(
                        "hls: EXT-X-SESSION-DATA needs DATA-ID, and VALUE or URI (one of them)", offset: offset)
                }
                var data = SessionData(dataID: dataID, uri: attributes["URI"] ?? "")
                data.uri = attributes["URI"]
                data.value = attributes["VALUE"]
                data.language = attributes["LANGUAGE"]
                data.offset = offset
                playlist.sessionData.append(data)
            case "#EXT-X-STREAM-INF":
                let attributes = try attributeList(value ?? "", offset)
                var variant = Variant(uri: "")
                variant.bandwidth = try attributes["BANDWIDTH"].map { try integer($0, "BANDWIDTH", offset) ?? 0 }
                variant.averageBandwidth = try attributes["AVERAGE-BANDWIDTH"].map {
                    try integer($0, "AVERAGE-BANDWIDTH", offset) ?? 0
                }
                variant.codecs = attributes["CODECS"].map {
                    $0.split(separator: ",").map { String($0.trimmingSpaces) }
                }
                variant.audioGroup = attributes["AUDIO"]
                variant.offset = offset
                pending = variant
            default: continue
            }
        }
        return playlist
    }

    /// A tag line's name and the text after its colon.
    private static func tag(_ line: Substring) -> (String, Substring?) {
        guard let colon = line.firstIndex(of: ":") else { return (String(line), nil) }
        return (String(line[..<colon]), line[line.index(after: colon)...])
    }

    private static func integer(_ value: (some StringProtocol)?, _ name: String, _ offset: Int64) throws -> Int64? {
        guard let value else { return nil }
        guard let number = Int64(value.trimmingSpaces), number >= 0 else {
            throw AudioFileError.malformed(
                "hls: \(name) needs a whole number, not '\(String(value.prefix(40)))'", offset: offset)
        }
        return number
    }

    /// The most a media or discontinuity sequence number may be, so that counting on from it never overflows
    /// (2^62: a segment a second for a hundred billion years).
    static let maximumSequenceNumber: Int64 = 1 << 62

    private static func sequenceNumber(_ value: Substring?, _ name: String, _ offset: Int64) throws -> Int64 {
        let number = try integer(value, name, offset) ?? 0
        guard number <= maximumSequenceNumber else {
            throw AudioFileError.limitExceeded(
                "hls: \(name) \(number) is over afkit's limit of 2^62", offset: offset)
        }
        return number
    }

    private static func byteRange(_ text: String, _ offset: Int64) throws -> ByteRange {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let length = Int64(parts[0]), length >= 0,
            parts.count == 1 || Int64(parts[1]).map({ $0 >= 0 }) == true
        else {
            throw AudioFileError.malformed("hls: a byte range is 'n[@o]', not '\(text.prefix(40))'", offset: offset)
        }
        return ByteRange(length: length, offset: parts.count == 2 ? Int64(parts[1]) : nil)
    }

    /// An attribute list (`NAME=value,NAME="quoted, text"`), quotes removed.
    static func attributeList(_ text: Substring, _ offset: Int64) throws -> [String: String] {
        var attributes: [String: String] = [:]
        var index = text.startIndex
        while index < text.endIndex {
            guard let equals = text[index...].firstIndex(of: "=") else {
                throw AudioFileError.malformed("hls: an attribute without a value in '\(text)'", offset: offset)
            }
            let name = String(text[index..<equals]).trimmingSpaces
            var value: Substring
            var next = text.index(after: equals)
            if next < text.endIndex, text[next] == "\"" {
                let start = text.index(after: next)
                guard let close = text[start...].firstIndex(of: "\"") else {
                    throw AudioFileError.malformed("hls: an unclosed quoted value in '\(text)'", offset: offset)
                }
                value = text[start..<close]
                next = text.index(after: close)
            } else {
                let end = text[next...].firstIndex(of: ",") ?? text.endIndex
                value = text[next..<end]
                next = end
            }
            attributes[name] = String(value)
            guard next < text.endIndex else { break }
            guard text[next] == "," else {
                throw AudioFileError.malformed("hls: attributes are separated by commas in '\(text)'", offset: offset)
            }
            index = text.index(after: next)
        }
        return attributes
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        guard let first = first, let last = last, first == " " || first == "\t" || last == " " || last == "\t" else {
            return String(self)
        }
        let characters = Array(self)
        var start = 0
        var end = characters.count
        while start < end, characters[start] == " " || characters[start] == "\t" { start += 1 }
        while end > start, characters[end - 1] == " " || characters[end - 1] == "\t" { end -= 1 }
        return String(characters[start..<end])
    }
}
