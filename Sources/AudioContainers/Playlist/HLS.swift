import AudioFormats
import StreamParsing

/// HTTP Live Streaming playlists (RFC 8216): the media playlist that lists a rendition's segments and the
/// master (multivariant) playlist that lists the renditions, read from their text and written back.
/// Reading keeps every tag afkit checks and where it stood (the byte offset of its line), so a finding
/// can say where it was seen; tags afkit does not use are kept by name only.
public enum HLS {
    /// `EXT-X-BYTERANGE` and a `BYTERANGE` attribute: `length` bytes from `offset` (`nil`: where the
    /// previous range of the same resource ended).
    public struct ByteRange: Hashable, Sendable {
        /// The bytes the range holds.
        public var length: Int64
        /// Its first byte in the resource, where stated.
        public var offset: Int64?

        /// A range of `length` bytes from `offset`.
        public init(length: Int64, offset: Int64?) {
            self.length = length
            self.offset = offset
        }

        /// `n[@o]`, as playlists spell it.
        public var text: String { "\(length)" + (offset.map { "@\($0)" } ?? "") }
    }

    /// `EXT-X-KEY`: how the segments after it are encrypted (`NONE`: not).
    public struct Key: Hashable, Sendable {
        /// `NONE`, `AES-128`, `SAMPLE-AES`, ...
        public var method: String
        /// Where the key is, for an encrypting method.
        public var uri: String?
    }

    /// `EXT-X-MAP`: the initialization section (an fMP4 `ftyp`+`moov`) the segments after it need.
    public struct MediaInitializationSection: Hashable, Sendable {
        /// Where it is, relative to the playlist.
        public var uri: String
        /// The part of the resource it is, where not the whole.
        public var byteRange: ByteRange?

        /// The section at `uri`, all of it or `byteRange`.
        public init(uri: String, byteRange: ByteRange? = nil) {
            self.uri = uri
            self.byteRange = byteRange
        }
    }

    /// A media segment: its URI and what the tags before it said.
    public struct Segment: Hashable, Sendable {
        /// Where the segment is, relative to the playlist.
        public var uri: String
        /// `EXTINF`'s duration, seconds.
        public var duration: Double
        /// `EXTINF`'s title.
        public var title: String = ""
        /// The part of the resource the segment is (`EXT-X-BYTERANGE`).
        public var byteRange: ByteRange?
        /// Whether an `EXT-X-DISCONTINUITY` comes before it.
        public var discontinuity = false
        /// The key in force (`nil` or method `NONE`: clear).
        public var key: Key?
        /// The initialization section in force (fMP4).
        public var map: MediaInitializationSection?
        /// The byte offset of its `EXTINF` line in the playlist.
        public var offset: Int64 = 0

        /// A segment at `uri` lasting `duration` seconds.
        public init(uri: String, duration: Double) {
            self.uri = uri
            self.duration = duration
        }
    }

    /// A media playlist: one rendition's segments in order.
    public struct MediaPlaylist: Hashable, Sendable {
        /// `EXT-X-VERSION` (`nil`: not stated, which means 1).
        public var version: Int?
        /// `EXT-X-TARGETDURATION`, whole seconds.
        public var targetDuration: Int?
        /// `EXT-X-MEDIA-SEQUENCE`: the first segment's sequence number.
        public var mediaSequence: Int64 = 0
        /// `EXT-X-DISCONTINUITY-SEQUENCE`.
        public var discontinuitySequence: Int64 = 0
        /// `EXT-X-PLAYLIST-TYPE`: `VOD`, `EVENT`, or `nil`.
        public var playlistType: String?
        /// Whether `EXT-X-ENDLIST` ends it (no segment will be added).
        public var endList = false
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public var independentSegments = false
        /// `EXT-X-I-FRAMES-ONLY`.
        public var iFramesOnly = false
        /// The segments.
        public var segments: [Segment] = []

        /// An empty playlist.
        public init() {}

        /// The sum of the segments' `EXTINF` durations.
        public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

        /// The playlist as text: the header tags, each segment with the tags that change before it, and
        /// `EXT-X-ENDLIST` when it is ended. Durations are written with six decimals (microseconds).
        public var text: String {
            var lines = ["#EXTM3U"]
            if let version { lines.append("#EXT-X-VERSION:\(version)") }
            if let targetDuration { lines.append("#EXT-X-TARGETDURATION:\(targetDuration)") }
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
            if discontinuitySequence != 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)") }
            if let playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:\(playlistType)") }
            if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
            var map: MediaInitializationSection?
            for segment in segments {
                if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
                if let section = segment.map, section != map {
                    lines.append(
                        "#EXT-X-MAP:URI=\"\(section.uri)\""
                            + (section.byteRange.map { ",BYTERANGE=\"\($0.text)\"" } ?? ""))
                    map = section
                }
                lines.append("#EXTINF:\(HLS.decimal(segment.duration)),\(segment.title)")
                if let range = segment.byteRange { lines.append("#EXT-X-BYTERANGE:\(range.text)") }
                lines.append(segment.uri)
            }
            if endList { lines.append("#EXT-X-ENDLIST") }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `EXT-X-MEDIA`: a rendition of a group (an audio language, a channel count).
    public struct Rendition: Hashable, Sendable {
        /// `TYPE`: `AUDIO`, `VIDEO`, `SUBTITLES`, `CLOSED-CAPTIONS`.
        public var type: String
        /// `GROUP-ID`.
        public var groupID: String
        /// `NAME`.
        public var name: String
        /// `URI` (`nil`: the media is in the variant stream's own URI).
        public var uri: String?
        /// `LANGUAGE`.
        public var language: String?
        /// `CHANNELS` (`"2"`, `"6"`, `"16/JOC"`).
        public var channels: String?
        /// `DEFAULT=YES`.
        public var isDefault = false
        /// `AUTOSELECT=YES`.
        public var autoselect = false
        /// The byte offset of its line.
        public var offset: Int64 = 0

        /// An `AUDIO` rendition of `groupID` named `name`.
        public init(type: String = "AUDIO", groupID: String, name: String) {
            self.type = type
            self.groupID = groupID
            self.name = name
        }

        /// The tag's line.
        public var line: String {
            var attributes = ["TYPE=\(type)", "GROUP-ID=\"\(groupID)\"", "NAME=\"\(name)\""]
            if let language { attributes.append("LANGUAGE=\"\(language)\"") }
            attributes.append("DEFAULT=\(isDefault ? "YES" : "NO")")
            attributes.append("AUTOSELECT=\(autoselect ? "YES" : "NO")")
            if let channels { attributes.append("CHANNELS=\"\(channels)\"") }
            if let uri { attributes.append("URI=\"\(uri)\"") }
            return "#EXT-X-MEDIA:" + attributes.joined(separator: ",")
        }
    }

    /// `EXT-X-STREAM-INF` and its URI: one variant stream.
    public struct Variant: Hashable, Sendable {
        /// The media playlist, relative to the master.
        public var uri: String
        /// `BANDWIDTH`: the peak segment bit rate, bits per second.
        public var bandwidth: Int64?
        /// `AVERAGE-BANDWIDTH`, bits per second.
        public var averageBandwidth: Int64?
        /// `CODECS`, split at its commas (`mp4a.40.2`).
        public var codecs: [String]?
        /// `AUDIO`: the group of `EXT-X-MEDIA` renditions it plays with.
        public var audioGroup: String?
        /// The byte offset of its `EXT-X-STREAM-INF` line.
        public var offset: Int64 = 0

        /// A variant whose playlist is `uri`.
        public init(uri: String) { self.uri = uri }

        /// The tag's line (the URI follows on its own line).
        public var line: String {
            var attributes: [String] = []
            if let bandwidth { attributes.append("BANDWIDTH=\(bandwidth)") }
            if let averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(averageBandwidth)") }
            if let codecs { attributes.append("CODECS=\"\(codecs.joined(separator: ","))\"") }
            if let audioGroup { attributes.append("AUDIO=\"\(audioGroup)\"") }
            return "#EXT-X-STREAM-INF:" + attributes.joined(separator: ",")
        }
    }

    /// A master (multivariant) playlist: the variants and the renditions they refer to.
    public struct MasterPlaylist: Hashable, Sendable {
        /// `EXT-X-VERSION`.
        public var version: Int?
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public var independentSegments = false
        /// The `EXT-X-MEDIA` renditions.
        public var renditions: [Rendition] = []
        /// The variant streams.
        public var variants: [Variant] = []

        /// An empty master playlist.
        public init() {}

        /// The playlist as text: the renditions, then each variant and its URI.
        public var text: String {
            var lines = ["#EXTM3U"]
            if let version { lines.append("#EXT-X-VERSION:\(version)") }
            if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
            lines += renditions.map(\.line)
            for variant in variants { lines += [variant.line, variant.uri] }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// A playlist of either kind.
    public enum Playlist: Hashable, Sendable {
        /// A master playlist (it has `EXT-X-STREAM-INF` or `EXT-X-MEDIA`).
        case master(MasterPlaylist)
        /// A media playlist.
        case media(MediaPlaylist)
    }

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
        let masterTags: Set<String> = ["#EXT-X-STREAM-INF", "#EXT-X-MEDIA", "#EXT-X-I-FRAME-STREAM-INF"]
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

    /// The peak segment bit rate of a media playlist (RFC 8216, 4.3.4.2): the largest bit rate of any run of
    /// consecutive segments lasting between half and one and a half target durations, a run's rate being its
    /// bytes over its duration, in bits per second. Where no run qualifies (a playlist shorter than half the
    /// target), the whole playlist's rate.
    public static func peakSegmentBitRate(sizes: [Int64], durations: [Double], targetDuration: Double) -> Double {
        var peak = 0.0
        var qualified = false
        for start in sizes.indices {
            var bytes: Int64 = 0
            var seconds = 0.0
            for end in start..<min(sizes.count, durations.count) {
                bytes += sizes[end]
                seconds += durations[end]
                if seconds > 1.5 * targetDuration { break }
                if seconds >= 0.5 * targetDuration, seconds > 0 {
                    peak = max(peak, Double(bytes) * 8 / seconds)
                    qualified = true
                }
            }
        }
        return qualified ? peak : averageSegmentBitRate(sizes: sizes, durations: durations)
    }

    /// The average segment bit rate: every segment's bits over the playlist's duration (bits per second).
    public static func averageSegmentBitRate(sizes: [Int64], durations: [Double]) -> Double {
        let seconds = durations.reduce(0, +)
        return seconds > 0 ? Double(sizes.reduce(0, +)) * 8 / seconds : 0
    }

    /// A duration as playlists write it: six decimals, trailing zeros kept (FFmpeg's and Apple's habit).
    static func decimal(_ value: Double) -> String {
        // (Past a billion seconds, as any duration no real segment has, written as Swift writes a Double.)
        guard value.isFinite, abs(value) < 1e9 else { return "\(value)" }
        let micro = Int64((value * 1_000_000).rounded())
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// `base` with its last path component replaced by `reference` (a URI relative to a playlist), or
    /// `reference` itself where it is absolute (a scheme, or a path from the root).
    public static func resolve(_ reference: String, against base: String) -> String {
        if schemeEnd(reference) != nil { return reference }
        let baseBytes = Array(base.utf8)
        let scheme = schemeEnd(base)
        if reference.hasPrefix("//") {
            guard let scheme else { return reference }
            return String(decoding: baseBytes[..<scheme], as: UTF8.self) + ":" + reference
        }
        if reference.hasPrefix("/") {
            // From the root of the base's server, or of the file system.
            guard let scheme else { return reference }
            let host = baseBytes[(scheme + 3)...].firstIndex(of: 0x2F) ?? baseBytes.endIndex
            return String(decoding: baseBytes[..<host], as: UTF8.self) + reference
        }
        // A URL's query and fragment do not carry over; a file's path is taken as it is ('#' and '?' are
        // characters of its name), and a reference against it is a URI path: its %XX escapes name bytes.
        guard scheme != nil else {
            let local = percentDecoded(reference)
            guard let slash = baseBytes.lastIndex(of: 0x2F) else { return local }
            return String(decoding: baseBytes[...slash], as: UTF8.self) + local
        }
        let path = baseBytes.prefix { $0 != 0x3F && $0 != 0x23 }
        guard let slash = path.lastIndex(of: 0x2F), slash >= (scheme.map { $0 + 3 } ?? 0) else {
            return String(decoding: path, as: UTF8.self) + "/" + reference  // a server's root ("http://host")
        }
        return String(decoding: path[...slash], as: UTF8.self) + reference
    }
}

extension HLS {
    /// Where a URI's scheme ends (the UTF-8 offset of its "://"), or `nil` where it has none: a scheme is
    /// letters, digits, '+', '-' and '.' before "://".
    static func schemeEnd(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return nil }
        for index in 0...(bytes.count - 3)
        where bytes[index] == 0x3A && bytes[index + 1] == 0x2F && bytes[index + 2] == 0x2F {
            return bytes[..<index].allSatisfy {
                $0 < 0x80
                    && ($0 == 0x2B || $0 == 0x2D || $0 == 0x2E || (0x30...0x39).contains($0)
                        || (0x41...0x5A).contains($0 & 0xDF))
            } && index > 0 ? index : nil
        }
        return nil
    }

    /// A URI's scheme in lower case (`http`, `file`), or `nil` for a path.
    public static func scheme(of uri: String) -> String? {
        schemeEnd(uri).map { String(decoding: Array(uri.utf8)[..<$0], as: UTF8.self).lowercased() }
    }

    /// `text` with each `%XX` escape (two hexadecimal digits) made the byte it stands for; anything else kept.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x37
            case 0x61...0x66: byte - 0x57
            default: nil
            }
        }
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, let high = hex(bytes[index + 1]),
                let low = hex(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
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
