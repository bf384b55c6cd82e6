import ReportGraphics
import AudioCodecs
import AudioContainers
import AudioFormats
import FileAccess

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

    /// Facts about the playlist at `path`, nothing read yet.
    public init(path: String) { self.path = path }
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

    /// Reads the playlist at `path` (URIs in it resolved against it) and every media playlist and segment it
    /// names, each through `fetch` (by default, `HLS.ResourceAccess`'s for `path`: files below its folder,
    /// no network).
    public static func inspect(path: String, fetch: Fetch? = nil) -> PlaylistFacts {
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
            facts.media = [inspect(media, uri: "", location: path, fetch: fetch)]
        case .master(let master):
            facts.master = master
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
                    facts.media.append(inspect(media, uri: uri, location: location, fetch: fetch))
                } catch {
                    facts.media.append(MediaPlaylistFacts(uri: uri, error: "\(error)"))
                }
            }
        }
        return facts
    }

    static func inspect(_ playlist: HLS.MediaPlaylist, uri: String, location: String, fetch: Fetch)
        -> MediaPlaylistFacts
    {
        var facts = MediaPlaylistFacts(uri: uri, playlist: playlist)
        var sections: [HLS.MediaInitializationSection: Result<([UInt8], MP4.InitializationFacts), any Error>] = [:]
        for segment in playlist.segments {
            var measured = HLS.SegmentFacts(
                uri: segment.uri, declaredDuration: segment.duration, discontinuity: segment.discontinuity)
            defer { facts.segments.append(measured) }
            if let key = segment.key, key.method != "NONE" {
                measured.error = "encrypted (\(key.method)): afkit does not decrypt segments"
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try fetch(HLS.resolve(segment.uri, against: location), segment.byteRange)
            } catch {
                measured.error = "\(error)"
                continue
            }
            measured.byteCount = Int64(bytes.count)
            var initialization: [UInt8]?
            var initializationFacts: MP4.InitializationFacts?
            if let map = segment.map {
                let loaded =
                    sections[map]
                    ?? Result {
                        let bytes = try fetch(HLS.resolve(map.uri, against: location), map.byteRange)
                        do {
                            return (bytes, try MP4.initializationFacts(bytes))
                        } catch {
                            throw AudioFileError.unsupportedFileType(
                                HLS.unreadable(error, what: "an initialization section"), offset: nil)
                        }
                    }
                sections[map] = loaded
                switch loaded {
                case .success(let (bytes, found)):
                    initialization = bytes
                    initializationFacts = found
                case .failure(let error):
                    measured.error = "its initialization section '\(map.uri)': \(error)"
                    continue
                }
            }
            HLS.measure(
                bytes, initialization: initialization, initializationFacts: initializationFacts, into: &measured)
        }
        return facts
    }
}
