import ReportGraphics
import AudioCodecs
import AudioContainers
import AudioFormats
import FileAccess
import Synchronization

/// What the validator learned of an HTTP Live Streaming playlist: the master playlist (where the path is
/// one), and each media playlist it reaches with every segment measured.
public struct PlaylistFacts: Sendable {
    /// The playlist checked.
    public var path: String
    /// The master playlist, where the path is one.
    public var master: HLS.MasterPlaylist?
    /// The media playlists: the path itself, or each one the master names (once each), in order.
    public var media: [MediaPlaylistFacts] = []
    /// Why the playlist itself could not be read.
    public var error: String?
    /// The playlists (as named in findings) that start with a byte order mark, which RFC 8216 forbids.
    public var byteOrderMarks: [String] = []
    /// Apple's chapters files the master names (`EXT-X-SESSION-DATA`, `HLS.chaptersDataID`), as read.
    public var chapterFiles: [ChapterFileFacts] = []

    /// Facts about the playlist at `path`, nothing read yet.
    public init(path: String) { self.path = path }
}

/// One of Apple's chapters files a master playlist names, as read.
public struct ChapterFileFacts: Sendable {
    /// Its URI as the master names it.
    public var uri: String
    /// Its chapters, where it could be read.
    public var chapters: [Chapter]?
    /// Why it could not be read.
    public var error: String?
}

/// One media playlist and its segments, as read.
public struct MediaPlaylistFacts: Sendable {
    /// Its URI as the master names it (its path for a playlist given alone).
    public var uri: String
    /// The playlist, where it could be read.
    public var playlist: HLS.MediaPlaylist?
    /// Why it could not be read.
    public var error: String?
    /// Each segment, measured.
    public var segments: [HLS.SegmentFacts] = []

    /// The segments' sizes and `EXTINF` durations, for the bit rates.
    var sizes: [Int64] { segments.map(\.byteCount) }
    var durations: [Double] { segments.map(\.declaredDuration) }
    /// The first readable segment's format and magic cookie.
    var format: (StreamDescription, [UInt8]?)? {
        segments.lazy.compactMap { segment in segment.format.map { ($0, segment.magicCookie) } }.first
    }
    /// The peak segment bit rate (RFC 8216), bits per second; `nil` without segments or a target duration.
    var peakBitRate: Double? {
        guard let target = playlist?.targetDuration, !segments.isEmpty else { return nil }
        return HLS.peakSegmentBitRate(sizes: sizes, durations: durations, targetDuration: Double(target))
    }
    /// The average segment bit rate, bits per second.
    var averageBitRate: Double? {
        segments.isEmpty ? nil : HLS.averageSegmentBitRate(sizes: sizes, durations: durations)
    }
}

/// Reads a playlist and everything it names, for the `hls-*` rules.
public enum PlaylistInspector {
    /// Reads a resource: a playlist, segment or initialization section (all of it or a byte range).
    public typealias Fetch = @Sendable (_ location: String, _ range: HLS.ByteRange?) throws -> [UInt8]

    /// How many segments of a media playlist are fetched and measured at once (4): over HTTP the waits for a
    /// package's segments overlap, and a dead server's segments fail together, spending the reading's retry budget
    /// at once; the facts, in playlist order, are those of fetching one segment at a time.
    public static let concurrentFetches = 4

    /// Reads the playlist at `path` (URIs in it resolved against it) and every media playlist and segment it
    /// names, each through `fetch` (by default, `HLS.ResourceAccess`'s for `path`: files below its folder,
    /// no network), `concurrentFetches` segments at a time.
    public static func inspect(
        path: String, fetch: Fetch? = nil, concurrentFetches: Int = PlaylistInspector.concurrentFetches
    ) -> PlaylistFacts {
        let fetch = fetch ?? HLS.ResourceAccess(playlist: path).fetcher
        var facts = PlaylistFacts(path: path)
        let playlist: HLS.Playlist
        do {
            let bytes = try fetch(path, nil)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { facts.byteOrderMarks.append(path) }
            playlist = try HLS.parse(bytes)
        } catch {
            facts.error = "\(error)"
            return facts
        }
        switch playlist {
        case .media(let media):
            // Given alone, the playlist is the report's file: findings name its segments only.
            facts.media = [
                inspect(media, uri: "", location: path, fetch: fetch, concurrentFetches: concurrentFetches)
            ]
        case .master(let master):
            facts.master = master
            for data in master.sessionData where data.dataID == HLS.chaptersDataID {
                guard let uri = data.uri else {
                    facts.chapterFiles.append(
                        ChapterFileFacts(
                            uri: "",
                            error:
                                "DATA-ID \(HLS.chaptersDataID) with a VALUE: Apple's chapters are a file, named by URI")
                    )
                    continue
                }
                do {
                    let chapters = try HLS.chapters(inJSON: try fetch(HLS.resolve(uri, against: path), nil), name: uri)
                    facts.chapterFiles.append(ChapterFileFacts(uri: uri, chapters: chapters))
                } catch {
                    facts.chapterFiles.append(ChapterFileFacts(uri: uri, error: "\(error)"))
                }
            }
            var uris: [String] = []
            for variant in master.variants where !uris.contains(variant.uri) { uris.append(variant.uri) }
            for rendition in master.renditions {
                if let uri = rendition.uri, !uris.contains(uri) { uris.append(uri) }
            }
            for uri in uris {
                let location = HLS.resolve(uri, against: path)
                do {
                    let bytes = try fetch(location, nil)
                    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { facts.byteOrderMarks.append(uri) }
                    guard case .media(let media) = try HLS.parse(bytes)
                    else {
                        facts.media.append(
                            MediaPlaylistFacts(uri: uri, error: "a master playlist where a media playlist belongs"))
                        continue
                    }
                    facts.media.append(
                        inspect(media, uri: uri, location: location, fetch: fetch, concurrentFetches: concurrentFetches)
                    )
                } catch {
                    facts.media.append(MediaPlaylistFacts(uri: uri, error: "\(error)"))
                }
            }
        }
        return facts
    }

    /// Each segment of `playlist` fetched and measured, `concurrentFetches` at a time, in playlist order; only the
    /// measurements are kept, never more than that many segments' bytes.
    static func inspect(
        _ playlist: HLS.MediaPlaylist, uri: String, location: String, fetch: @escaping Fetch, concurrentFetches: Int
    ) -> MediaPlaylistFacts {
        var facts = MediaPlaylistFacts(uri: uri, playlist: playlist)
        let sections = InitializationSections(location: location, fetch: fetch)
        facts.segments = playlist.segments.parallelMap(width: concurrentFetches, waits: true) { segment in
            measure(segment, location: location, fetch: fetch, sections: sections)
        }
        return facts
    }

    /// One segment fetched (after it, the initialization section it needs, once for the playlist) and measured.
    static func measure(
        _ segment: HLS.Segment, location: String, fetch: Fetch, sections: InitializationSections
    ) -> HLS.SegmentFacts {
        var measured = HLS.SegmentFacts(
            uri: segment.uri, declaredDuration: segment.duration, discontinuity: segment.discontinuity)
        if let key = segment.key, key.method != "NONE" {
            measured.error = "encrypted (\(key.method)): afkit does not decrypt segments"
            return measured
        }
        let bytes: [UInt8]
        do {
            bytes = try fetch(HLS.resolve(segment.uri, against: location), segment.byteRange)
        } catch {
            measured.error = "\(error)"
            return measured
        }
        measured.byteCount = Int64(bytes.count)
        var initialization: [UInt8]?
        var initializationFacts: MP4.InitializationFacts?
        if let map = segment.map {
            switch sections.load(map) {
            case .success(let (bytes, found)):
                initialization = bytes
                initializationFacts = found
            case .failure(let error):
                measured.error = "its initialization section '\(map.uri)': \(error)"
                return measured
            }
        }
        HLS.measure(bytes, initialization: initialization, initializationFacts: initializationFacts, into: &measured)
        return measured
    }

    /// A media playlist's initialization sections, each fetched and read once (by the first segment fetched that
    /// needs it; a segment fetched at the same time waits for it), its bytes and facts or its error kept for the
    /// other segments.
    final class InitializationSections: Sendable {
        typealias Loaded = Result<([UInt8], MP4.InitializationFacts), any Error>

        private let location: String
        private let fetch: Fetch
        private let sections = Mutex<[HLS.MediaInitializationSection: Section]>([:])

        /// One section: loaded under its own lock, so a fetch holds up only the segments that need it.
        private final class Section: Sendable {
            let loaded = Mutex<Loaded?>(nil)
        }

        init(location: String, fetch: @escaping Fetch) {
            self.location = location
            self.fetch = fetch
        }

        /// The section `map` names, fetched and read where no segment has yet.
        func load(_ map: HLS.MediaInitializationSection) -> Loaded {
            let section = sections.withLock { sections in
                if let known = sections[map] { return known }
                let section = Section()
                sections[map] = section
                return section
            }
            return section.loaded.withLock { loaded in
                if let loaded { return loaded }
                let result = Loaded {
                    let bytes = try fetch(HLS.resolve(map.uri, against: location), map.byteRange)
                    do {
                        return (bytes, try MP4.initializationFacts(bytes))
                    } catch {
                        throw AudioFileError.unsupportedFileType(
                            HLS.unreadable(error, what: "an initialization section"), offset: nil)
                    }
                }
                loaded = result
                return result
            }
        }
    }
}
