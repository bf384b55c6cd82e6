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

    /// `EXT-X-SESSION-DATA` (RFC 8216, 4.3.4.4): data about the whole presentation, named by `DATA-ID`, given in
    /// `VALUE` or in the JSON file at `URI` (Apple's chapters: ``HLS/chaptersDataID``).
    public struct SessionData: Hashable, Sendable {
        /// `DATA-ID`, reverse-DNS (`com.apple.hls.chapters`).
        public var dataID: String
        /// `VALUE`, where the data is given in the playlist.
        public var value: String?
        /// `URI`, relative to the master playlist, where the data is a file of its own.
        public var uri: String?
        /// `LANGUAGE`, a BCP 47 tag.
        public var language: String?
        /// The byte offset of its line.
        public var offset: Int64 = 0

        /// Data `dataID` in the file at `uri`.
        public init(dataID: String, uri: String) {
            self.dataID = dataID
            self.uri = uri
        }

        /// The tag's line.
        public var line: String {
            var attributes = ["DATA-ID=\"\(dataID)\""]
            if let value { attributes.append("VALUE=\"\(value)\"") }
            if let uri { attributes.append("URI=\"\(uri)\"") }
            if let language { attributes.append("LANGUAGE=\"\(language)\"") }
            return "#EXT-X-SESSION-DATA:" + attributes.joined(separator: ",")
        }
    }

    /// A master (multivariant) playlist: the variants and the renditions they refer to.
    public struct MasterPlaylist: Hashable, Sendable {
        /// `EXT-X-VERSION`.
        public var version: Int?
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public var independentSegments = false
        /// The `EXT-X-SESSION-DATA` tags.
        public var sessionData: [SessionData] = []
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
            lines += sessionData.map(\.line)
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

    /// Apple's authoring specification's audio bit rates (kbit/s) by codec (`CODECS` name) and channels: stereo
    /// AAC-LC 32 to 160, 5.1 AAC 320, AC-3 5.1 384, E-AC-3 96 to 160 stereo, 192 5.1, 384 7.1. The packager notes a
    /// rendition outside them; `validate --profile hls-audio` warns.
    public static let appleAudioBitRates:
        [(codecs: Set<String>, channels: UInt32, kilobits: ClosedRange<Double>, name: String)] = [
            (["mp4a.40.2"], 2, 32...160, "stereo AAC-LC"),
            (["mp4a.40.2"], 6, 320...320, "5.1 AAC"),
            (["ac-3"], 6, 384...384, "5.1 Dolby Digital"),
            (["ec-3"], 2, 96...160, "stereo Dolby Digital Plus"),
            (["ec-3"], 6, 192...192, "5.1 Dolby Digital Plus"),
            (["ec-3"], 8, 384...384, "7.1 Dolby Digital Plus"),
        ]

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
