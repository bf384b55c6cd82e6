import AudioFormats
import FileAccess

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
                self = .bandwidth(thousands ? number * 1000 : number)
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
            switch try parse(try fetch(location, nil)) {
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

        /// The variant's audio: its audio group's rendition with a URI of its own (the default one first), or
        /// the variant's own URI.
        func choose(_ master: MasterPlaylist) -> String? {
            let ranked = master.variants.sorted { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }
            let variant: Variant?
            switch self.variant {
            case .best: variant = ranked.last
            case .worst: variant = ranked.first
            case .bandwidth(let target):
                variant = ranked.min { abs(($0.bandwidth ?? 0) - target) < abs(($1.bandwidth ?? 0) - target) }
            }
            guard let variant else { return master.renditions.first { $0.type == "AUDIO" }?.uri }
            let group = master.renditions.filter {
                $0.type == "AUDIO" && $0.groupID == variant.audioGroup && $0.uri != nil
            }
            return (group.first { $0.isDefault } ?? group.first)?.uri ?? variant.uri
        }

        /// Reads every segment of the presentation at `location` into `stream`, `chunkSize` bytes a call
        /// (the packets do not depend on it), calling `segment` as each segment starts and `handler` with the
        /// stream's events; finishes the stream.
        public mutating func read(
            location: String, into stream: inout AudioFileStream, chunkSize: Int = 64 * 1024,
            segment: (SegmentStart) throws -> Void = { _ in },
            _ handler: (AudioFileStream.Event) throws -> Void
        ) throws {
            let (mediaLocation, playlist) = try mediaPlaylist(at: location)
            var packets: Int64 = 0
            func count(_ event: AudioFileStream.Event) throws {
                if case .packets(let run) = event { packets += Int64(run.count) }
                try handler(event)
            }
            func feed(_ bytes: [UInt8]) throws {
                var start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + max(1, chunkSize))
                    try stream.parse(Array(bytes[start..<end]), count)
                    start = end
                }
            }
            var section: (MediaInitializationSection, [UInt8], UInt32?)?
            var format: StreamDescription?
            // The timeline: where the count of frames started, on the segments' own clock.
            var clock: (ticks: Double, frames: Int64, ticksPerSecond: Double)?
            var frames: Int64 = 0
            var startTime = 0.0
            for (index, entry) in playlist.segments.enumerated() {
                let sequence = playlist.mediaSequence + Int64(index)
                if let key = entry.key, key.method != "NONE" {
                    throw AudioFileError.unsupportedFileType(
                        "hls: '\(entry.uri)' is encrypted (\(key.method)): afkit does not decrypt segments", offset: nil
                    )
                }
                var initialization: [UInt8]?
                var timescale: UInt32?
                if let map = entry.map {
                    if let held = section, held.0 == map {
                        (initialization, timescale) = (held.1, held.2)
                    } else {
                        let bytes = try fetch(resolve(map.uri, against: mediaLocation), map.byteRange)
                        if let held = section, held.1 != bytes {
                            throw AudioFileError.unsupportedDataFormat(
                                "hls: '\(entry.uri)' has a new initialization section; afkit reads one stream",
                                offset: nil)
                        }
                        let scale = try MP4.mediaTimescale(inInitialization: bytes)
                        if section == nil { try feed(bytes) }
                        section = (map, bytes, scale)
                        (initialization, timescale) = (bytes, scale)
                    }
                }
                let bytes = try fetch(resolve(entry.uri, against: mediaLocation), entry.byteRange)
                var facts = SegmentFacts(
                    uri: entry.uri, declaredDuration: entry.duration, discontinuity: entry.discontinuity)
                measure(bytes, initialization: initialization, timescale: timescale, into: &facts)
                if let error = facts.error {
                    throw AudioFileError.unsupportedFileType("hls: '\(entry.uri)': \(error)", offset: nil)
                }
                if let before = format, let now = facts.format,
                    before.formatID != now.formatID || before.sampleRate != now.sampleRate
                        || before.channelsPerFrame != now.channelsPerFrame
                {
                    throw AudioFileError.unsupportedDataFormat(
                        "hls: '\(entry.uri)' changes the format (\(before.channelsPerFrame) ch \(formatSampleRate(before.sampleRate)) Hz to "
                            + "\(now.channelsPerFrame) ch \(formatSampleRate(now.sampleRate)) Hz); afkit reads one stream",
                        offset: nil)
                }
                format = facts.format ?? format
                // The segment's time against the frames before it.
                let stamp: (Double, Double)? =
                    facts.timestamp.map { (Double($0), 90000) }
                    ?? facts.decodeTime.map { (Double($0.time), Double($0.timescale)) }
                if let (ticks, rate) = stamp, let sampleRate = facts.format?.sampleRate {
                    var rebase = true
                    if let clock, !entry.discontinuity, clock.ticksPerSecond == rate {
                        let expected = (clock.ticks + Double(frames - clock.frames) * rate / sampleRate).rounded()
                        var difference = ticks - expected
                        if rate == 90000, abs(difference) > 4_294_967_296 {
                            difference -= difference.sign == .minus ? -8_589_934_592 : 8_589_934_592
                        }
                        if abs(difference) > (rate == 90000 ? 1 : 0) {
                            problems.append(
                                "\(entry.uri): \(difference > 0 ? "a gap" : "an overlap") of "
                                    + "\(fixedPoint(abs(difference) / rate * 1000, places: 3)) ms before it (its timestamp "
                                    + "\(Int64(ticks)), the frames before it end at \(Int64(expected)))")
                        } else {
                            rebase = false
                        }
                    }
                    // The first segment, one after a discontinuity or a misplaced one: the count starts again.
                    if rebase { clock = (ticks, frames, rate) }
                }
                let start = SegmentStart(
                    uri: entry.uri, mediaSequence: sequence, startTime: startTime, discontinuity: entry.discontinuity,
                    firstPacket: facts.format.map { frames / Int64(max(1, $0.framesPerPacket)) } ?? packets)
                segments.append(start)
                try segment(start)
                try feed(bytes)
                frames += facts.frames ?? 0
                startTime += entry.duration
            }
            try stream.finish(count)
        }
    }

    /// Whether the file at `path` is a playlist: named `.m3u8` or `.m3u`, or starting with `#EXTM3U`.
    public static func isPlaylistFile(_ path: String) -> Bool {
        if ["m3u8", "m3u"].contains(nameExtension(of: path)) { return true }
        guard let file = try? ReadableFile(path: path) else { return false }
        var bytes = [UInt8](repeating: 0, count: 10)
        let read = (try? bytes.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }) ?? 0
        return isPlaylist(bytes.prefix(read))
    }

    /// A file's bytes (or `range` of them), refusing more than `limit`: what a reader or the validator fetches
    /// from the disk. A URL is not read here.
    public static func readLocalResource(_ path: String, range: ByteRange? = nil, limit: Int = 64 << 20) throws
        -> [UInt8]
    {
        if path.contains("://") {
            throw AudioFileError.illegalOperation(
                "'\(path)': playlists and segments on the disk are read here; fetch URLs over HTTP")
        }
        let file = try ReadableFile(path: path)
        let start = range?.offset ?? 0
        let count = range.map(\.length) ?? (file.size - start)
        guard start >= 0, count >= 0, start + count <= file.size else {
            throw AudioFileError.truncated(
                "'\(path)' holds \(file.size) bytes; the byte range \(count)@\(start) runs past them", offset: file.size
            )
        }
        guard count <= Int64(limit) else {
            throw AudioFileError.limitExceeded("'\(path)': \(count) bytes, over afkit's limit of \(limit)", offset: 0)
        }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: start) }
        guard read == Int(count) else {
            throw AudioFileError.truncated(
                "'\(path)' ended after \(read) of \(count) bytes", offset: start + Int64(read))
        }
        return bytes
    }
}
