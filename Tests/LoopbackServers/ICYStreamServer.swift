import Foundation

/// Live ICY streams on a loopback port (`icy-stream-server.py`, one thread): every connection its own stream
/// cut from one MP3 or ADTS file, each ending connection reported with the frames it sent. With an ADTS file,
/// live HLS playlists too (`--hls-target`, `--hls-window`, `--hls-segments`): every session name its own sliding
/// window of packed-audio segments, each segment served and each playlist that ended reported.
public final class ICYStreamServer: @unchecked Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let server: ServerProcess
    private let folder: String

    /// One ended connection, as the server reports it.
    public struct Connection: Decodable, Sendable {
        /// The path asked for (`/mp3/NAME`).
        public var path: String
        /// Whole frames sent.
        public var frames: Int
        /// Audio bytes sent (ICY metadata not counted).
        public var audioBytes: Int
        /// `frames` (it sent the frames it was to) or `client` (the client closed it first).
        public var ended: String
        /// The most seconds a paced stream fell behind its schedule (the client not reading, or the server short of
        /// CPU).
        public var lag: Double
        /// The longest the server waited for the client to read (its socket full).
        public var blocked: Double
    }

    /// Starts the server with `mp3` (and `adts`) as its sources and the script's other `arguments`
    /// (`--frames`, `--pace`, `--burst`, ...).
    public init(mp3: String? = nil, adts: String? = nil, arguments: [String] = []) throws {
        folder = try Loopback.temporaryFolder("icy-streams")
        port = try Loopback.freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "icy-stream-server.py"
        ).path
        var all = [script, "--port", String(port), "--report", folder + "/report.jsonl"]
        if let mp3 { all += ["--mp3", mp3] }
        if let adts { all += ["--adts", adts] }
        server = try ServerProcess(try Loopback.executable("python3"), all + arguments, log: folder + "/server.log")
        try Loopback.waitUntilListening(port: port)
    }

    /// The URL of stream `name` of `kind` (`mp3` or `aac`).
    public func url(_ kind: String, _ name: String) -> String { "http://127.0.0.1:\(port)/\(kind)/\(name)" }

    /// The connections that have ended so far.
    public var endedConnections: [Connection] {
        guard let text = try? String(contentsOfFile: folder + "/report.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(Connection.self, from: Data($0.utf8))
        }
    }

    /// What the server reports of its live HLS playlists: each segment served, each playlist that ended.
    public struct HLSReport: Decodable, Sendable {
        /// The session's name (`/hls/NAME/live.m3u8`).
        public var hls: String
        /// A segment served: its media sequence number.
        public var sequence: Int?
        /// A playlist that ended: the segments it published.
        public var published: Int?
        /// The frames of the segment, or of all the playlist published.
        public var frames: Int
    }

    /// The URL of live HLS session `name`'s playlist.
    public func hlsURL(_ name: String) -> String { "http://127.0.0.1:\(port)/hls/\(name)/live.m3u8" }

    /// The HLS reports so far.
    public var hlsReports: [HLSReport] {
        guard let text = try? String(contentsOfFile: folder + "/report.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(HLSReport.self, from: Data($0.utf8))
        }
    }

    /// Stops the server (by its PID) and removes its folder.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    deinit { stop() }
}
