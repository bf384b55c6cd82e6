import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// `--json-lines` follows the stream: `connected`, then `ready` (the format) before the first packet, for
    /// M4A, MP3 and ADTS alike (MP3 and ADTS announced it after their first packet), then packets and `end`.
    /// `--duration` stops within one packet of the valid audio asked however many packets a run carries (it
    /// listed whole runs, 50 packets for 0.5 s of MP3), and `end` counts what was delivered, without the
    /// priming.
    @Test func jsonLinesFollowTheStreamAndDurationStopsIt() throws {
        let server = try NginxServer(serving: Command.fixtures)
        // The MP3 and ADTS tracks last 1.5 s: 1 s of them.
        for (path, seconds) in [
            ("network/tone-moov-last.m4a", 2), ("network/track-2.mp3", 1), ("network/track-2.aac", 1),
        ] {
            let result = try Command.run(["packets", "--json-lines", "--duration", "\(seconds)", server.url(path)])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            let events = Self.lines(result.stdout)
            #expect(events.count == result.stdout.split(separator: "\n").count, "every line is one JSON object")
            #expect(events.first?["event"] as? String == "connected")
            #expect(events.last?["event"] as? String == "end")
            let ready = try #require(events.firstIndex { $0["event"] as? String == "ready" }, "\(path)")
            let first = try #require(events.firstIndex { $0["event"] as? String == "packet" }, "\(path)")
            #expect(ready < first, "\(path): ready at \(ready), the first packet at \(first)")
            let packets = events.filter { $0["event"] as? String == "packet" }
            #expect(packets.enumerated().allSatisfy { $0.element["packet"] as? Int == $0.offset })
            let end = try #require(events.last?["properties"] as? [String: Any])
            let format = try #require(end["format"] as? [String: Any])
            let rate = try #require(format["sampleRate"] as? Double)
            let priming = end["primingFrames"] as? Int ?? 0
            let delivered = packets.reduce(0) { $0 + ($1["frames"] as? Int ?? 0) }
            let last = packets.last?["frames"] as? Int ?? 0
            #expect(end["packetCount"] as? Int == packets.count, "\(path)")
            #expect(end["frameCount"] as? Int == delivered - priming, "\(path): priming \(priming)")
            // Within one packet of the duration: the last packet is the one that reaches it.
            let asked = Int(Double(seconds) * rate)
            #expect(delivered - priming >= asked && delivered - priming - last < asked, "\(path)")
        }
    }

    @Test func infoReadsTheHeaderOverHTTP() throws {
        let server = try NginxServer(serving: Command.fixtures)
        let result = try Command.run([
            "info", "--json", server.url("network/tone-moov-last.m4a"), server.url("missing.caf"),
        ])
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
        let result = try Command.run([
            "packets", "--json", "--ca-file", tls + ".pem", server.url("network/track-3.mp3"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Command.run(["packets", "--json", "network/track-3.mp3"])).stdout)
        let info = try Command.run(["info", "--ca-file", tls + ".pem", server.url("network/track-3.mp3")])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Served as:              audio/mpeg, 18576 bytes, takes range requests"))
    }

    /// Build farms reach the world through a proxy: `http_proxy` is honoured (the proxy gets the
    /// absolute address), and `no_proxy` exempts a host from it.
    @Test func theProxyVariablesAreHonoured() throws {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/network/track-1.mp3")))
        let proxy = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(file.count)\r\n\r\n")
            ScriptedServer.send(socket, file)
        }
        let listing = try Command.run(["packets", "--json", "network/track-1.mp3"]).stdout
        let viaProxy = try Command.run(
            ["packets", "--json", "http://audio.invalid/sounds/track-1.mp3"],
            environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        #expect(viaProxy.status == 0, "\(viaProxy.stderr)")
        #expect(viaProxy.stdout == listing)
        #expect(
            proxy.requests.first?.hasPrefix("GET http://audio.invalid/sounds/track-1.mp3 HTTP/1.1") == true,
            "\(proxy.requests)")
        let server = try NginxServer(serving: Command.fixtures)
        let direct = try Command.run(
            ["packets", "--json", server.url("network/track-1.mp3")],
            environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "127.0.0.1"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(direct.stdout == listing)
        #expect(proxy.requests.count == 1, "no_proxy kept the loopback request away from the proxy")
    }

    @Test func aMissingCAFileIsAUsageErrorNamingIt() throws {
        let started = Date()
        for command in ["packets", "info"] {
            let result = try Command.run([command, "--ca-file", "tls/absent-root.pem", "https://127.0.0.1:1/x.mp3"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--ca-file tls/absent-root.pem: there is no such file"), "\(result.stderr)")
        }
        let notPEM = try Command.run(["info", "--ca-file", "network/track-1.mp3", "https://127.0.0.1:1/x.mp3"])
        #expect(notPEM.status == 2)
        #expect(notPEM.stderr.contains("holds no PEM certificate"), "\(notPEM.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// A password in a URL is printed nowhere: not in `info`'s text or JSON (`path`, `http.url`, error
    /// messages), not in `packets --json` or its `--json-lines` events, not in error lines, redirected or
    /// not, found or not.
    @Test func credentialsInAURLAreNeverPrinted() throws {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/network/track-1.mp3")))
        let server = try ScriptedServer { _, request, socket in
            if request.hasPrefix("GET /moved") {
                ScriptedServer.send(socket, "HTTP/1.1 302 Found\r\nLocation: /x.mp3\r\nContent-Length: 0\r\n\r\n")
            } else if request.hasPrefix("GET /missing") {
                ScriptedServer.send(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            } else {
                ScriptedServer.send(
                    socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(file.count)\r\n\r\n")
                ScriptedServer.send(socket, file)
            }
        }
        let base = "http://alice:s3cret@127.0.0.1:\(server.port)"
        let closed = "http://alice:s3cret@127.0.0.1:\(try Loopback.refusingPort())/x.mp3"
        var runs = 0
        for url in [base + "/x.mp3", base + "/moved.mp3", base + "/missing.mp3", closed] {
            for arguments in [
                ["info"], ["info", "--json"], ["packets"], ["packets", "--json"], ["packets", "--json-lines"],
                ["validate"], ["convert"],
            ] {
                let result = try Command.run(arguments + [url] + (arguments == ["convert"] ? ["/tmp/x.caf"] : []))
                runs += 1
                let everything = result.stdout + result.stderr
                #expect(!everything.contains("s3cret") && !everything.contains("alice"), "\(arguments) \(url)")
                // Every output that names the stream names it redacted (`packets --json` of a whole stream
                // names no address).
                if arguments.first == "info" || (arguments.first == "packets" && result.status != 0)
                    || arguments == ["packets", "--json-lines"]
                {
                    #expect(everything.contains("***@127.0.0.1"), "\(arguments) \(url): \(everything)")
                }
            }
        }
        #expect(runs == 28)
    }

    /// A `--ca-file` that holds only a BEGIN line, or a block that is not a certificate, is a usage error
    /// (exit 2) before any connection; a real one is taken.
    @Test func aBrokenCAFileIsRefusedBeforeConnecting() throws {
        let folder = try Loopback.temporaryFolder("ca")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pem = try String(contentsOfFile: Command.fixtures + "/network/tls/loopback.pem", encoding: .utf8)
        let broken = [
            ("begin-only.pem", "-----BEGIN CERTIFICATE-----\n", "has no '-----END CERTIFICATE-----' line"),
            (
                "not-der.pem", "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n",
                "is not a DER certificate"
            ),
            ("cut.pem", String(pem.prefix(pem.count / 2)), "has no '-----END CERTIFICATE-----' line"),
            (
                "second-broken.pem", pem + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                "certificate 2"
            ),
        ]
        let started = Date()
        for (name, text, message) in broken {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            let result = try Command.run(["info", "--ca-file", folder + "/" + name, "https://127.0.0.1:1/x.mp3"])
            #expect(result.status == 2, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        let good = try Command.run([
            "info", "--ca-file", Command.fixtures + "/network/tls/loopback.pem", "https://127.0.0.1:1/x.mp3",
        ])
        #expect(good.status == 1, "a real root passes the check; the connection then fails: \(good.stderr)")
    }

    @Test func maxTimeEndsATrickle() throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: 100000\r\n\r\n")
            for _ in 0..<40 {
                let sent = withUnsafeBytes(of: UInt8(0)) { send(socket, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                usleep(250_000)
            }
        }
        let started = Date()
        let result = try Command.run(["packets", "--json-lines", "--max-time", "1", server.url])
        #expect(result.status == 1)
        #expect(Date().timeIntervalSince(started) < 4)
        let events = Self.lines(result.stdout)
        let error = try #require(events.last?["error"] as? [String: Any])
        #expect(error["code"] as? String == "net!")
        #expect((error["message"] as? String)?.contains("time limit") == true, "\(error)")
    }

    @Test func streamOnlyOptionsNeedAURL() throws {
        let result = try Command.run(["packets", "--json-lines", "network/track-1.mp3"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("URL"))
    }

    /// HLS over HTTP from the command (issue 51): `packets --json-lines` gives a `segment` event as each of
    /// FFmpeg's segments starts, at its first packet; `validate --profile hls-audio` checks a playlist URL (exit 0
    /// with Apple's 6 s target as a warning; exit 1 for a playlist the server does not have).
    @Test func hlsPlaylistsOverHTTP() throws {
        let server = try NginxServer(serving: Command.fixtures)
        let result = try Command.run(["packets", "--json-lines", server.url("hls/ffmpeg-fmp4/prog.m3u8")])
        #expect(result.status == 0, "\(result.stderr)")
        let events = Self.lines(result.stdout)
        let segments = events.filter { $0["event"] as? String == "segment" }
        #expect(segments.map { $0["uri"] as? String } == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"])
        #expect(segments.map { $0["firstPacket"] as? Int } == [0, 47, 94, 141])
        let packets = events.filter { $0["event"] as? String == "packet" }
        #expect(packets.count == 166 && events.last?["event"] as? String == "end")

        let checked = try Command.run(["validate", "--profile", "hls-audio", server.url("hls/ffmpeg-fmp4/prog.m3u8")])
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(checked.stdout.contains("1 passed, 0 failed, 1 warning"))
        let missing = try Command.run(["validate", "--profile", "hls-audio", server.url("hls/none.m3u8")])
        #expect(missing.status == 1 && missing.stdout.contains("answered 404"), "\(missing.stdout)")
    }
}
