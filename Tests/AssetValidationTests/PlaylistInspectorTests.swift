@testable import AssetValidation
import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// The validator's inspection over HTTP fetches a few segments at once and keeps them in playlist order: on
/// FFmpeg's fMP4 package with a segment the server does not have (404) and one it fails (500), the facts and
/// the findings are those of fetching one segment at a time, the initialization section fetched once.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct PlaylistInspectorTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hls/ffmpeg-fmp4").path

    /// The segments named, in order: FFmpeg's four with a missing one and a failing one between them.
    static let segments = ["seg0.m4s", "seg1.m4s", "missing.m4s", "seg2.m4s", "broken.m4s", "seg3.m4s"]

    static var playlist: String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
        for segment in segments { text += "#EXTINF:\(segment == "seg3.m4s" ? "0.513333" : "1.002667"),\n\(segment)\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// Serves the package: the playlist, FFmpeg's files (the first segment late, so it arrives after the ones
    /// fetched beside it), 404 for what it does not hold, 500 for `broken.m4s`.
    static func server() throws -> ScriptedServer {
        let playlist = Array(Self.playlist.utf8)
        let package = Self.package
        return try ScriptedServer { _, request, socket in
            let path = request.split(separator: " ").dropFirst().first.map { String($0.dropFirst()) } ?? ""
            func answer(_ status: String, _ body: [UInt8]) {
                ScriptedServer.send(
                    socket, "HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n")
                ScriptedServer.send(socket, body)
            }
            if path == "prog.m3u8" { return answer("200 OK", playlist) }
            if path == "broken.m4s" { return answer("500 Internal Server Error", []) }
            guard path != "missing.m4s", let data = FileManager.default.contents(atPath: package + "/" + path) else {
                return answer("404 Not Found", [])
            }
            if path == "seg0.m4s" { usleep(300_000) }
            answer("200 OK", Array(data))
        }
    }

    /// The package inspected `concurrentFetches` segments at a time, through one reading's fetch (quick retries).
    static func inspect(_ server: ScriptedServer, concurrentFetches: Int) -> PlaylistFacts {
        var quick = HTTPAudioStream.Options()
        quick.maximumReconnectAttempts = 2
        quick.reconnectDelay = .milliseconds(1)
        let options = quick
        let budget = HTTPResource.RetryBudget(options)
        return PlaylistInspector.inspect(
            path: "http://127.0.0.1:\(server.port)/prog.m3u8",
            fetch: { try HTTPResource.fetchWaiting($0, range: $1, options: options, budget: budget).bytes },
            concurrentFetches: concurrentFetches)
    }

    /// What the rules find in the facts, as a report says it.
    static func findings(_ facts: PlaylistFacts) -> [String] {
        var asset = AssetFacts(path: facts.path)
        asset.playlist = facts
        return AssetValidator(profile: .hlsAudio).check(asset, measure: { _ in nil }).violations.map {
            "\($0.severity.rawValue): \($0.rule): \($0.described)"
        }
    }

    @Test func fetchingFourAtOnceFindsWhatFetchingOneAtATimeFinds() throws {
        let server = try Self.server()
        let sequential = Self.inspect(server, concurrentFetches: 1)
        let sequentialRequests = server.requests.count
        let parallel = Self.inspect(server, concurrentFetches: 4)
        let segments = try #require(parallel.media.first?.segments)
        // In playlist order, each with its own file's bytes (the late first segment did not move).
        #expect(segments.map(\.uri) == Self.segments)
        for segment in segments where segment.uri.hasPrefix("seg") {
            let size = try FileManager.default.attributesOfItem(atPath: Self.package + "/" + segment.uri)[.size]
            #expect(segment.byteCount == (size as? Int).map(Int64.init), "\(segment.uri)")
            #expect(segment.error == nil && segment.frames != nil, "\(segment.uri): \(segment.error ?? "")")
        }
        #expect(segments[2].error?.contains("missing.m4s answered 404 Not Found") == true, "\(segments[2])")
        #expect(segments[4].error?.contains("broken.m4s answered 500 Internal Server Error") == true, "\(segments[4])")
        // The same facts and findings as one at a time, and the same requests: the init section fetched once, the
        // failing segment retried twice.
        #expect("\(parallel.media.map(\.segments))" == "\(sequential.media.map(\.segments))")
        let findings = Self.findings(parallel)
        #expect(findings == Self.findings(sequential))
        #expect(findings.contains { $0.contains("hls-segments") && $0.contains("missing.m4s") }, "\(findings)")
        let requests = server.requests
        #expect(requests.count == 2 * sequentialRequests)
        #expect(requests.filter { $0.hasPrefix("GET /init.mp4 ") }.count == 2)
        #expect(requests.filter { $0.hasPrefix("GET /broken.m4s ") }.count == 6)
    }
}
