import AudioFormats
import FileAccess
import StreamParsing

extension HLS {
    /// Which variant of a master playlist to read.
    public enum VariantChoice: Sendable, Hashable {
        /// The highest `BANDWIDTH` (the default).
        case best
        /// The lowest `BANDWIDTH`.
        case worst
        /// The variant whose `BANDWIDTH` is nearest to this many bits per second.
        case bandwidth(Int64)

        /// `best`, `worst` or a number of bits per second (`128000`, `128k`); `nil` for anything else.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "best": self = .best
            case "worst": self = .worst
            default:
                let thousands = text.hasSuffix("k") || text.hasSuffix("K")
                guard let number = Int64(thousands ? String(text.dropLast()) : text), number > 0 else { return nil }
                let (value, overflow) = number.multipliedReportingOverflow(by: thousands ? 1000 : 1)
                guard !overflow else { return nil }
                self = .bandwidth(value)
            }
        }
    }

    /// Where a segment begins in the packet stream an ``HLS/Reader`` delivers.
    public struct SegmentStart: Sendable, Hashable {
        /// Its URI as the playlist names it.
        public var uri: String
        /// Its media sequence number.
        public var mediaSequence: Int64
        /// Its start on the playlist's timeline: the `EXTINF` durations before it, seconds.
        public var startTime: Double
        /// Whether `EXT-X-DISCONTINUITY` comes before it.
        public var discontinuity: Bool
        /// The first packet it holds (packets of the whole stream, counted from 0).
        public var firstPacket: Int64
        /// Where its timestamp (`PRIV`, `tfdt`) is off the frames before it: the gap or overlap, as
        /// ``HLS/Reader/problems`` lists it.
        public var timingProblem: String?
    }

    /// Reads an HTTP Live Streaming presentation as one packet stream, as Audio File Stream Services would
    /// parse it: the media playlist (a master's chosen variant's), then each segment's bytes through one
    /// ``AudioFileStream`` (an fMP4 initialization section once, first), so packets run on across segment
    /// boundaries with one priming at the start. Each packed-audio segment's `PRIV` timestamp and each fMP4
    /// segment's `tfdt` is checked against the frames before it: a gap or an overlap is a ``problems`` entry
    /// (a discontinuity starts the count again). MPEG-TS and encrypted segments, and a format change, are
    /// refused by name. Where the bytes come from is the caller's: `fetch` reads a URI (resolved against the
    /// playlist) and an optional byte range.
    public struct Reader {
        /// Reads a resource: a path or URL, all of it or a byte range.
        public typealias Fetch = (_ location: String, _ range: ByteRange?) throws -> [UInt8]

        /// The variant read from a master playlist.
        public var variant: VariantChoice = .best
        /// Gaps, overlaps and other things read past, one line each, naming the segment.
        public private(set) var problems: [String] = []
        /// The segments read, in order.
        public private(set) var segments: [SegmentStart] = []
        /// The media playlist read (a master's variant's), resolved against the first location.
        public private(set) var mediaLocation: String?
        private let fetch: Fetch

        /// A reader that gets its bytes from `fetch`.
        public init(variant: VariantChoice = .best, fetch: @escaping Fetch) {
            self.variant = variant
            self.fetch = fetch
        }

        /// The media playlist at `location`, or the chosen variant's where it is a master playlist: its
        /// location and contents.
        public mutating func mediaPlaylist(at location: String) throws -> (String, MediaPlaylist) {
            let bytes = try fetch(location, nil)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                problems.append("\(location): starts with a UTF-8 byte order mark, which RFC 8216 forbids")
            }
            switch try parse(bytes) {
            case .media(let playlist):
                mediaLocation = location
                return (location, playlist)
            case .master(let master):
                guard let chosen = choose(master) else {
                    throw AudioFileError.malformed("hls: the master playlist names no variant stream", offset: 0)
                }
                let resolved = resolve(chosen, against: location)
                guard case .media(let playlist) = try parse(try fetch(resolved, nil)) else {
                    throw AudioFileError.malformed(
                        "hls: '\(chosen)' is a master playlist where a media playlist belongs", offset: 0)
                }
                mediaLocation = resolved
                return (resolved, playlist)
            }
        }

        /// Every variant's audio media playlist (as ``choose(_:)`` picks a variant's), lowest bandwidth first, each
        /// once, resolved against `location`; only `location` itself where it is a media playlist.
        public func audioPlaylists(at location: String) throws -> [String] {
            guard case .master(let master) = try parse(try fetch(location, nil)) else { return [location] }
            var locations: [String] = []
            for variant in master.variants.sorted(by: { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }) {
                guard let uri = Self.audio(of: variant, in: master) else { continue }
                let resolved = resolve(uri, against: location)
                if !locations.contains(resolved) { locations.append(resolved) }
            }
            return locations
        }

        /// The variant's audio: its audio group's rendition with a URI of its own (the default one first), or
        /// the variant's own URI.
        public func choose(_ master: MasterPlaylist) -> String? {
            let ranked = master.variants.sorted { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }
            let variant: Variant?
            switch self.variant {
            case .best: variant = ranked.last
            case .worst: variant = ranked.first
            case .bandwidth(let target):
                variant = ranked.min { abs(($0.bandwidth ?? 0) - target) < abs(($1.bandwidth ?? 0) - target) }
            }
            guard let variant else { return master.renditions.first { $0.type == "AUDIO" }?.uri }
            return Self.audio(of: variant, in: master)
        }

        /// A variant's audio: its audio group's rendition with a URI of its own (the default one first), or the
        /// variant's own URI.
        private static func audio(of variant: Variant, in master: MasterPlaylist) -> String? {
            let group = master.renditions.filter {
                $0.type == "AUDIO" && $0.groupID == variant.audioGroup && $0.uri != nil
            }
            return (group.first { $0.isDefault } ?? group.first)?.uri ?? variant.uri
        }

        /// Reads every segment of the presentation at `location` into `stream`, `chunkSize` bytes a call
        /// (the packets do not depend on it), calling `segment` as each segment starts, `fed` with the bytes of
        /// each resource the stream has taken (the initialization section once, then each segment: in order, the
        /// stream as one file) and `handler` with the stream's events; finishes the stream. (A live playlist is
        /// read as it stands: its segments so far.)
        public mutating func read(
            location: String, into stream: inout AudioFileStream, chunkSize: Int = 64 * 1024,
            segment: (SegmentStart) throws -> Void = { _ in }, fed: ([UInt8]) throws -> Void = { _ in },
            _ handler: (AudioFileStream.Event) throws -> Void
        ) throws {
            let (mediaLocation, playlist) = try mediaPlaylist(at: location)
            for (index, entry) in playlist.segments.enumerated() {
                if let map = initializationNeeded(for: entry) {
                    let bytes = try fetch(resolve(map.uri, against: mediaLocation), map.byteRange)
                    let isFirst = section == nil
                    try hold(map, bytes: bytes, into: &stream, chunkSize: chunkSize, handler)
                    if isFirst { try fed(bytes) }
                }
                let bytes = try fetch(resolve(entry.uri, against: mediaLocation), entry.byteRange)
                try consume(
                    entry, sequence: playlist.mediaSequence + Int64(index), bytes: bytes, into: &stream,
                    chunkSize: chunkSize, segment: segment, handler)
                try fed(bytes)
            }
            try stream.finish(handler)
        }

        /// The index the next segment's first packet will have.
        public var nextPacket: Int64 { frames / Int64(max(1, format?.framesPerPacket ?? 1)) }

        /// What has been read: the initialization section held, the stream's format, the timeline's start
        /// (on the segments' own clock) and the frames delivered.
        private var section: (map: MediaInitializationSection, bytes: [UInt8], facts: MP4.InitializationFacts)?
        private var format: StreamDescription?
        private var timeline = Timeline()
        private var frames: Int64 = 0
        private var startTime = 0.0

        /// The initialization section `entry` needs that is not held yet (fMP4): fetch it and ``hold(_:bytes:into:chunkSize:_:)``.
        public func initializationNeeded(for entry: Segment) -> MediaInitializationSection? {
            guard let map = entry.map, section?.map != map else { return nil }
            return map
        }

        /// Takes an initialization section's bytes: the first is fed to `stream`; a later one must hold the
        /// same bytes (afkit reads one stream).
        public mutating func hold(
            _ map: MediaInitializationSection, bytes: [UInt8], into stream: inout AudioFileStream, chunkSize: Int,
            _ handler: (AudioFileStream.Event) throws -> Void
        ) throws {
            if let held = section, held.bytes != bytes {
                throw AudioFileError.unsupportedDataFormat(
                    "hls: '\(map.uri)' is a new initialization section; afkit reads one stream", offset: nil)
            }
            let facts: MP4.InitializationFacts
            do {
                facts = try MP4.initializationFacts(bytes)
            } catch {
                throw AudioFileError.unsupportedFileType(
                    "hls: '\(map.uri)': \(HLS.unreadable(error, what: "an initialization section"))", offset: nil)
            }
            if section == nil {
                try Self.feed(bytes, of: map.uri, what: "an initialization section", to: &stream, chunkSize, handler)
            }
            section = (map, bytes, facts)
        }

        /// Reads one segment's bytes (its initialization section held): checks what it is and its time against
        /// the frames before it, calls `segment` with where it starts, and feeds it to `stream`.
        public mutating func consume(
            _ entry: Segment, sequence: Int64, bytes: [UInt8], into stream: inout AudioFileStream, chunkSize: Int,
            segment: (SegmentStart) throws -> Void = { _ in }, _ handler: (AudioFileStream.Event) throws -> Void
        ) throws {
            if let key = entry.key, key.method != "NONE" {
                throw AudioFileError.unsupportedFileType(
                    "hls: '\(entry.uri)' is encrypted (\(key.method)): afkit does not decrypt segments", offset: nil)
            }
            let held = entry.map != nil ? section : nil
            var facts = SegmentFacts(
                uri: entry.uri, declaredDuration: entry.duration, discontinuity: entry.discontinuity)
            measure(bytes, initialization: held?.bytes, initializationFacts: held?.facts, into: &facts)
            if let error = facts.error {
                throw AudioFileError.unsupportedFileType("hls: '\(entry.uri)': \(error)", offset: nil)
            }
            if let before = format, let now = facts.format,
                before.formatID != now.formatID || before.sampleRate != now.sampleRate
                    || before.channelsPerFrame != now.channelsPerFrame
            {
                throw AudioFileError.unsupportedDataFormat(
                    "hls: '\(entry.uri)' changes the format (\(before.channelsPerFrame) ch "
                        + "\(formatSampleRate(before.sampleRate)) Hz to \(now.channelsPerFrame) ch "
                        + "\(formatSampleRate(now.sampleRate)) Hz); afkit reads one stream",
                    offset: nil)
            }
            format = facts.format ?? format
            let problem = timeline.check(facts)
            if let problem { problems.append(problem) }
            let start = SegmentStart(
                uri: entry.uri, mediaSequence: sequence, startTime: startTime, discontinuity: entry.discontinuity,
                firstPacket: frames / Int64(max(1, format?.framesPerPacket ?? 1)), timingProblem: problem)
            segments.append(start)
            try segment(start)
            try Self.feed(bytes, of: entry.uri, what: "a segment", to: &stream, chunkSize, handler)
            frames += facts.frames ?? 0
            startTime = ((startTime + entry.duration) * 1_000_000).rounded() / 1_000_000
        }

        /// Parses `bytes` (of the resource at `uri`) `chunkSize` at a time; a parser's error is said without
        /// what the bytes hold (``HLS/unreadable(_:what:)``), an error of `handler`'s own as it is.
        private static func feed(
            _ bytes: [UInt8], of uri: String, what: String, to stream: inout AudioFileStream, _ chunkSize: Int,
            _ handler: (AudioFileStream.Event) throws -> Void
        ) throws {
            var start = 0
            var handlerFailed = false
            do {
                while start < bytes.count {
                    let end = min(bytes.count, start + max(1, chunkSize))
                    try bytes[start..<end].withUnsafeBytes { chunk in
                        try stream.parse(chunk) { event in
                            do { try handler(event) } catch {
                                handlerFailed = true
                                throw error
                            }
                        }
                    }
                    start = end
                }
            } catch  where !handlerFailed {
                throw AudioFileError.unsupportedFileType(
                    "hls: '\(uri)': \(HLS.unreadable(error, what: what))", offset: nil)
            }
        }
    }

    /// The media types a playlist is served as (RFC 8216, 4, and the older names players accept).
    public static let mediaTypes: Set<String> = [
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl",
    ]

    /// The most bytes one segment or initialization section may hold, on the disk or over HTTP (64 MiB; a minute of
    /// 320 kbit/s audio is 2.4 MB).
    public static let maximumResourceSize = 64 << 20

    /// Whether a URL names a playlist: its path (before any query) ends in `.m3u8` or `.m3u`.
    public static func isPlaylistURL(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }.lowercased()
        return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u")
    }

    /// Whether the file at `path` is a playlist: named `.m3u8` or `.m3u`, or a regular file starting with
    /// `#EXTM3U`.
    public static func isPlaylistFile(_ path: String) -> Bool {
        if ["m3u8", "m3u"].contains(nameExtension(of: path)) { return true }
        // Only a file that can be read twice is looked into (a named pipe's first bytes would be lost).
        guard isSeekableFile(path), let file = try? ReadableFile(path: path) else { return false }
        var bytes = [UInt8](repeating: 0, count: 10)
        let read = (try? bytes.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }) ?? 0
        return isPlaylist(bytes.prefix(read))
    }
}
