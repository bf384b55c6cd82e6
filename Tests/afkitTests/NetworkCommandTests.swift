import Foundation
import LoopbackServers
import Testing

/// `afkit packets URL` and `afkit info URL` against nginx on a loopback port.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct NetworkCommandTests {
    static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func packetsOverHTTPListWhatTheFileLists() throws {
        let server = try NginxServer(serving: Command.fixtures)
        for path in ["network/tone-moov-last.m4a", "network/track-2.mp3", "caf/ima4-stereo.caf"] {
            let overHTTP = try Command.run(["packets", "--json", server.url(path)])
            let fromFile = try Command.run(["packets", "--json", path])
            #expect(overHTTP.status == 0, "\(path): \(overHTTP.stderr)")
            #expect(overHTTP.stdout == fromFile.stdout, "\(path)")
        }
    }

    @Test func jsonLinesFollowTheStreamAndDurationStopsIt() throws {
        let server = try NginxServer(serving: Command.fixtures)
        let result = try Command.run(["packets", "--json-lines", "--duration", "2", server.url("network/tone-moov-last.m4a")])
        #expect(result.status == 0, "\(result.stderr)")
        let events = Self.lines(result.stdout)
        #expect(events.count == result.stdout.split(separator: "\n").count, "every line is one JSON object")
        #expect(events.first?["event"] as? String == "connected")
        #expect(events.last?["event"] as? String == "end")
        #expect(events.contains { $0["event"] as? String == "ready" })
        let packets = events.filter { $0["event"] as? String == "packet" }
        // 2 s of 1024-frame packets at 44.1 kHz is 87 packets; a run of packets may carry it a little past.
        #expect(packets.count >= 87 && packets.count < 518, "\(packets.count) packets")
        #expect(packets.enumerated().allSatisfy { $0.element["packet"] as? Int == $0.offset })
        let end = try #require(events.last?["properties"] as? [String: Any])
        #expect(end["packetCount"] as? Int == 518, "the file's table says how many there are")
    }

    @Test func infoReadsTheHeaderOverHTTP() throws {
        let server = try NginxServer(serving: Command.fixtures)
        let result = try Command.run(["info", "--json", server.url("network/tone-moov-last.m4a"), server.url("missing.caf")])
        #expect(result.status == 1)
        let objects = try #require(result.json as? [[String: Any]])
        #expect(objects.count == 2)
        let local = try Command.run(["info", "--json", "network/tone-moov-last.m4a"])
        let file = try #require((local.json as? [[String: Any]])?.first)
        #expect(objects[0]["packetCount"] as? Int == file["packetCount"] as? Int)
        #expect(objects[0]["frameCount"] as? Int == file["frameCount"] as? Int)
        let http = try #require(objects[0]["http"] as? [String: Any])
        #expect(http["acceptsRanges"] as? Bool == true)
        #expect(http["live"] as? Bool == false)
        let error = try #require(objects[1]["error"] as? [String: Any])
        #expect(error["code"] as? String == "net!")
        #expect((error["message"] as? String)?.contains("404") == true)
    }

    @Test func httpsWithAPrivateRoot() throws {
        let tls = Command.fixtures + "/network/tls/loopback"
        let server = try NginxServer(serving: Command.fixtures, certificate: tls + ".pem", key: tls + ".key")
        let result = try Command.run(["packets", "--json", "--ca-file", tls + ".pem", server.url("network/track-3.mp3")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Command.run(["packets", "--json", "network/track-3.mp3"])).stdout)
        let info = try Command.run(["info", "--ca-file", tls + ".pem", server.url("network/track-3.mp3")])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Served as:              audio/mpeg, 18576 bytes, takes range requests"))
    }

    @Test func streamOnlyOptionsNeedAURL() throws {
        let result = try Command.run(["packets", "--json-lines", "network/track-1.mp3"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("URL"))
    }
}
