import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Network loops that end: retries bounded by progress, files that end where their response ends, a
/// resume that never splices two versions, deadlines, redirects, SHOUTcast's status line. Every server
/// here is the tests' own, on loopback, and every case is bounded in time.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct NetworkLoopTests {
    static let mp3 = HostileServerTests.mp3
    static let track = networkFixtures + "/network/track-1.mp3"

    static func options(attempts: Int = 3, readTimeout: Duration = .seconds(2)) -> HTTPAudioStream.Options {
        var options = HTTPAudioStream.Options()
        options.readTimeout = readTimeout
        options.maximumReconnectAttempts = attempts
        options.reconnectDelay = .milliseconds(20)
        options.maximumReconnectDelay = .milliseconds(40)
        return options
    }

    struct Reading {
        var events: [HTTPAudioStream.Event] = []
        var error: AudioFileError?
        var seconds = 0.0
        var runs: [AudioFileStream.OwnedPackets] {
            events.compactMap { if case .packets(let run) = $0 { run } else { nil } }
        }
        var responses: [HTTPAudioStream.Response] {
            events.compactMap { if case .connected(let response) = $0 { response } else { nil } }
        }
    }

    static func read(_ url: String, _ options: HTTPAudioStream.Options) async -> Reading {
        var reading = Reading()
        let start = Date()
        var iterator = HTTPAudioStream(url: url, options: options).makeAsyncIterator()
        do {
            while let event = try await iterator.next() { reading.events.append(event) }
        } catch let error as AudioFileError {
            reading.error = error
        } catch {
            Issue.record("an untyped error: \(error)")
        }
        reading.seconds = Date().timeIntervalSince(start)
        return reading
    }

    /// The byte a request's `Range: bytes=N-` starts at, 0 without one.
    static func rangeStart(_ request: String) -> Int {
        guard let line = request.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("range: bytes=") })
        else {
            return 0
        }
        return Int(line.dropFirst("range: bytes=".count).prefix { $0.isNumber }) ?? 0
    }

    static func header(_ request: String, _ name: String) -> String? {
        request.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    // MARK: - Retries bounded by progress

    /// A server that takes ranges by its word but answers every resume with the whole file again and
    /// then fails before the resume point (by closing, or by stalling): no attempt gets further, so
    /// `maximumReconnectAttempts` ends it. (Before, any byte counted as progress: it never ended.)
    @Test(arguments: ["close", "stall"])
    func aResumeThatNeverGetsFurtherEndsAfterTheAttempts(_ failure: String) async throws {
        let file = Self.mp3
        let server = try ScriptedServer { connection, _, socket in
            ScriptedServer.send(
                socket,
                "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nAccept-Ranges: bytes\r\n"
                    + "Content-Length: \(file.count)\r\nConnection: close\r\n\r\n")
            // The first response reaches 9000; every later one ignores Range and fails at 5000.
            ScriptedServer.send(socket, Array(file[0..<(connection == 0 ? 9000 : 5000)]))
            if failure == "stall" { sleep(3) }
        }
        let reading = await Self.read(server.url, Self.options(attempts: 3, readTimeout: .milliseconds(400)))
        let error = try #require(reading.error)
        #expect(error.code == "net!", "\(error)")
        #expect(error.message.contains("3 reconnection attempts failed"), "\(error.message)")
        #expect(server.requests.count == 4, "\(server.requests.count) requests")
        #expect(server.requests.dropFirst().allSatisfy { Self.rangeStart($0) == 9000 })
        // What arrived whole is delivered once: the packets are the file's first ones, none repeated.
        let packets = packetBytes(reading.runs)
        let expected = try filePacketBytes(Self.track)
        #expect(!packets.isEmpty && packets == Array(expected.prefix(packets.count)))
    }

    /// A `Content-Length` of 10 GiB, the real file, a close; each resume is answered with no byte more.
    @Test func aLengthThatNeverComesEndsAfterTheAttempts() async throws {
        let file = Self.mp3
        let claimed: Int64 = 10 << 30
        let server = try ScriptedServer { _, request, socket in
            let start = Self.rangeStart(request)
            if start == 0 {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nAccept-Ranges: bytes\r\n"
                        + "Content-Length: \(claimed)\r\nConnection: close\r\n\r\n")
                ScriptedServer.send(socket, file)
            } else {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 206 Partial Content\r\nContent-Type: audio/mpeg\r\n"
                        + "Content-Range: bytes \(start)-\(claimed - 1)/\(claimed)\r\nContent-Length: \(claimed - Int64(start))\r\n"
                        + "Connection: close\r\n\r\n")
            }
        }
        let reading = await Self.read(server.url, Self.options(attempts: 2))
        let error = try #require(reading.error)
        #expect(error.code == "net!", "\(error)")
        #expect(server.requests.count == 3)
        #expect(reading.seconds < 10)
        #expect(packetBytes(reading.runs) == (try filePacketBytes(Self.track)))
    }

    // MARK: - Files without a length end where their response ends

    /// Chunked, with no `Content-Length`: a file, read once, ending at the last chunk (the server keeps
    /// the connection open after it). Before, it was taken for a live stream and fetched again and again.
    @Test func aChunkedFileWithoutALengthEndsAtItsLastChunk() async throws {
        let file = Self.mp3
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nTransfer-Encoding: chunked\r\n\r\n")
            var offset = 0
            while offset < file.count {
                let piece = Array(file[offset..<min(offset + 3000, file.count)])
                ScriptedServer.send(socket, String(piece.count, radix: 16) + "\r\n")
                ScriptedServer.send(socket, piece + [13, 10])
                offset += piece.count
            }
            ScriptedServer.send(socket, "0\r\n\r\n")
            sleep(3)
        }
        let reading = await Self.read(server.url, Self.options(attempts: 5))
        #expect(reading.error == nil, "\(String(describing: reading.error))")
        #expect(server.requests.count == 1)
        #expect(reading.responses.first?.isLive == false)
        #expect(reading.seconds < 2.5, "ended at the last chunk, not at the close: \(reading.seconds) s")
        #expect(packetBytes(reading.runs) == (try filePacketBytes(Self.track)))
        #expect(!reading.events.contains { if case .discontinuity = $0 { true } else { false } })
    }

    /// HTTP/1.0 without a length, ended by the close: the end of a file too.
    @Test func aFileEndedByTheCloseIsWhole() async throws {
        let file = Self.mp3
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\n\r\n")
            ScriptedServer.send(socket, file)
        }
        let reading = await Self.read(server.url, Self.options(attempts: 5))
        #expect(reading.error == nil)
        #expect(server.requests.count == 1)
        #expect(packetBytes(reading.runs) == (try filePacketBytes(Self.track)))
    }

    // MARK: - A resume never splices two versions

    /// The file changes between the drop and the resume: the resume carries `If-Range`, and a server
    /// that then answers with the new version whole (200, another ETag), or with a range of a file of
    /// another length, ends the stream with an error (before: exit 0 with half of each).
    @Test(arguments: ["new version whole", "range of another length"])
    func aFileThatChangesBeforeTheResumeIsAnError(_ answer: String) async throws {
        let before = Self.mp3
        let after =
            Array(try Data(contentsOf: URL(fileURLWithPath: networkFixtures + "/network/track-2.mp3")))
            + Array(repeating: 0, count: 100)
        let server = try ScriptedServer { connection, request, socket in
            if connection == 0 {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nAccept-Ranges: bytes\r\n"
                        + "ETag: \"one\"\r\nContent-Length: \(before.count)\r\nConnection: close\r\n\r\n")
                ScriptedServer.send(socket, Array(before[0..<6000]))
                return
            }
            let start = Self.rangeStart(request)
            if answer == "new version whole" {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nAccept-Ranges: bytes\r\n"
                        + "ETag: \"two\"\r\nContent-Length: \(after.count)\r\nConnection: close\r\n\r\n")
                ScriptedServer.send(socket, after)
            } else {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 206 Partial Content\r\nContent-Type: audio/mpeg\r\n"
                        + "Content-Range: bytes \(start)-\(after.count - 1)/\(after.count)\r\n"
                        + "Content-Length: \(after.count - start)\r\nConnection: close\r\n\r\n")
                ScriptedServer.send(socket, Array(after[start...]))
            }
        }
        let reading = await Self.read(server.url, Self.options(attempts: 2))
        let error = try #require(reading.error)
        #expect(error.code == "net!", "\(error)")
        #expect(error.message.contains("changed"), "\(error.message)")
        #expect(server.requests.count == 2)
        #expect(Self.header(server.requests[1], "If-Range") == "\"one\"")
        let packets = packetBytes(reading.runs)
        #expect(
            packets == Array(try filePacketBytes(Self.track).prefix(packets.count)), "only the first version's packets")
    }

    // MARK: - Deadlines

    /// A byte every 0.3 s never trips the read timeout; the time limit and the speed limit end it.
    @Test(arguments: ["time limit", "speed limit"])
    func aTrickleEndsAtTheLimit(_ limit: String) async throws {
        let file = Self.mp3
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(file.count)\r\n\r\n")
            for byte in file {
                let sent = withUnsafeBytes(of: byte) { send(socket, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                usleep(300_000)
            }
        }
        var options = Self.options(attempts: 0, readTimeout: .seconds(5))
        if limit == "time limit" {
            options.maximumTime = .milliseconds(1500)
        } else {
            options.speedLimit = .init(bytesPerSecond: 100, period: .seconds(1))
        }
        let reading = await Self.read(server.url, options)
        let error = try #require(reading.error)
        #expect(error.code == "net!", "\(error)")
        #expect(error.message.contains(limit), "\(error.message)")
        #expect(reading.seconds < 3.5, "\(reading.seconds) s")
    }

    /// A trust root that is not there is named before any connection.
    @Test func aMissingTrustRootIsNamedBeforeConnecting() async throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\n\r\n")
        }
        var options = Self.options()
        options.additionalTrustRoots = ["/nonexistent/private-root.pem"]
        let reading = await Self.read(server.url, options)
        let error = try #require(reading.error)
        #expect(error.code == "net!")
        #expect(error.message.contains("/nonexistent/private-root.pem"), "\(error.message)")
        #expect(reading.seconds < 1)
        #expect(server.requests.isEmpty)
    }

    /// A port nobody listens on: the message names the address and the refusal.
    @Test func aRefusedConnectionSaysSo() async throws {
        let port = try Loopback.refusingPort()
        let reading = await Self.read("http://127.0.0.1:\(port)/x.mp3", Self.options(attempts: 0))
        let error = try #require(reading.error)
        #expect(error.code == "net!")
        #expect(error.message.contains("connection refused: 127.0.0.1:\(port)"), "\(error.message)")
    }

    // MARK: - Redirects

    /// An https server that redirects to plain http: refused unless asked for.
    @Test func aRedirectFromHTTPSToHTTPIsRefusedUnlessAsked() async throws {
        let plain = try NginxServer(serving: networkFixtures + "/network")
        let tls = networkFixtures + "/network/tls/loopback"
        let secure = try NginxServer(
            serving: networkFixtures + "/network", certificate: tls + ".pem", key: tls + ".key",
            locations: "location = /downgrade.mp3 { return 302 \(plain.url("track-1.mp3")); }")
        var options = Self.options(attempts: 0)
        options.additionalTrustRoots = [tls + ".pem"]
        let refused = await Self.read(secure.url("downgrade.mp3"), options)
        let error = try #require(refused.error)
        #expect(error.code == "net!")
        #expect(error.message.contains("redirect from https to plain http"), "\(error.message)")
        #expect(plain.accessLog.isEmpty, "the plain server was never asked")
        options.followsRedirectsToHTTP = true
        let followed = await Self.read(secure.url("downgrade.mp3"), options)
        #expect(followed.error == nil, "\(String(describing: followed.error))")
        #expect(followed.responses.first?.url == plain.url("track-1.mp3"))
        #expect(packetBytes(followed.runs) == (try filePacketBytes(Self.track)))
    }

    /// http → https → http: the rule holds at every hop, not only the first (libcurl's protocol list is set
    /// once, from the first URL, which here is plain http).
    @Test func aDowngradeAtALaterHopIsRefused() async throws {
        let target = try NginxServer(serving: networkFixtures + "/network")
        let tls = networkFixtures + "/network/tls/loopback"
        let secure = try NginxServer(
            serving: networkFixtures + "/network", certificate: tls + ".pem", key: tls + ".key",
            locations: "location = /hop.mp3 { return 302 \(target.url("track-1.mp3")); }")
        let start = try NginxServer(
            serving: networkFixtures + "/network",
            locations: "location = /start.mp3 { return 302 \(secure.url("hop.mp3")); }")
        var options = Self.options(attempts: 0)
        options.additionalTrustRoots = [tls + ".pem"]
        let refused = await Self.read(start.url("start.mp3"), options)
        let error = try #require(refused.error)
        #expect(error.message.contains("redirect from https to plain http"), "\(error.message)")
        #expect(target.accessLog.isEmpty, "the plain server at the end was never asked")
        options.followsRedirectsToHTTP = true
        let followed = await Self.read(start.url("start.mp3"), options)
        #expect(followed.error == nil, "\(String(describing: followed.error))")
        #expect(packetBytes(followed.runs) == (try filePacketBytes(Self.track)))
    }

    /// A redirect to a port nobody listens on: the message names the host and port refused, not the first.
    @Test func aRefusedRedirectNamesTheHopRefused() async throws {
        let closed = try Loopback.refusingPort()
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(closed)/x.mp3\r\n\r\n")
        }
        let reading = await Self.read(server.url, Self.options(attempts: 0))
        let error = try #require(reading.error)
        // "cannot get FIRST: connection refused: HOP": what was asked, then the address that refused.
        #expect(error.message.hasSuffix("connection refused: 127.0.0.1:\(closed)"), "\(error.message)")
    }

    /// A password in a URL appears in no message and no response fact, with or without a redirect, and is
    /// never sent to a redirect's other host.
    @Test func credentialsAreNeverShownNorSentElsewhere() async throws {
        let file = Self.mp3
        let other = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(file.count)\r\n\r\n")
            ScriptedServer.send(socket, file)
        }
        let server = try ScriptedServer { _, request, socket in
            if request.hasPrefix("GET /missing") {
                ScriptedServer.send(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            } else {
                ScriptedServer.send(
                    socket,
                    "HTTP/1.1 302 Found\r\nLocation: http://localhost:\(other.port)/x.mp3\r\nContent-Length: 0\r\n\r\n")
            }
        }
        let secret = "http://alice:s3cret@127.0.0.1:\(server.port)"
        let followed = await Self.read(secret + "/moved.mp3", Self.options(attempts: 0))
        #expect(followed.error == nil, "\(String(describing: followed.error))")
        #expect(followed.responses.allSatisfy { !$0.url.contains("s3cret") }, "\(followed.responses.map(\.url))")
        #expect(server.requests.first?.lowercased().contains("authorization: basic") == true, "the first host gets it")
        #expect(other.requests.allSatisfy { !$0.lowercased().contains("authorization") }, "\(other.requests)")
        let missing = await Self.read(secret + "/missing.mp3", Self.options(attempts: 0))
        let error = try #require(missing.error)
        #expect(!error.message.contains("s3cret") && !error.message.contains("alice"), "\(error.message)")
        #expect(error.message.contains("http://***@127.0.0.1:\(server.port)/missing.mp3"), "\(error.message)")
        let closed = try Loopback.refusingPort()
        let refused = await Self.read("http://alice:s3cret@127.0.0.1:\(closed)/x.mp3", Self.options(attempts: 0))
        #expect(refused.error.map { !$0.message.contains("s3cret") } == true, "\(String(describing: refused.error))")
    }

    /// The redaction itself: user information of every URL in a text, whatever else the text holds.
    @Test func redactionTakesOutUserInformationOnly() {
        for (text, expected) in [
            ("http://alice:s3cret@host/x.mp3", "http://***@host/x.mp3"),
            ("https://TOKEN@host:8443/a?b=c@d", "https://***@host:8443/a?b=c@d"),
            ("cannot get http://a:b@h/x and http://c:d@i:1", "cannot get http://***@h/x and http://***@i:1"),
            ("http://host/path@x", "http://host/path@x"), ("no url @ all", "no url @ all"),
            ("'http://u:p@h'", "'http://***@h'"),
        ] {
            #expect(HTTPAudioStream.redactingCredentials(in: text) == expected, "\(text)")
        }
    }

    /// A redirect whose connection is then closed (no length, no keep-alive) is followed on a new one.
    @Test func aRedirectFollowedByACloseIsFollowed() async throws {
        let file = Self.mp3
        let server = try ScriptedServer { connection, _, socket in
            if connection == 0 {
                ScriptedServer.send(socket, "HTTP/1.1 302 Found\r\nLocation: /moved.mp3\r\n\r\n")
            } else {
                ScriptedServer.send(
                    socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(file.count)\r\n\r\n")
                ScriptedServer.send(socket, file)
            }
        }
        let reading = await Self.read(server.url, Self.options(attempts: 0))
        #expect(reading.error == nil, "\(String(describing: reading.error))")
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.hasPrefix("GET /moved.mp3 ") == true)
        #expect(packetBytes(reading.runs) == (try filePacketBytes(Self.track)))
    }

    // MARK: - SHOUTcast 1

    /// `ICY 200 OK`, headers and metadata as a SHOUTcast 1 server sends them: a live stream, its
    /// titles with their packets.
    @Test func aShoutcastStatusLineIsALiveStream() async throws {
        let file = Self.mp3
        let interval = 4096
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket,
                "ICY 200 OK\r\nicy-name: old school\r\ncontent-type: audio/mpeg\r\n"
                    + "icy-metaint: \(interval)\r\nicy-br: 128\r\n\r\n")
            var offset = 0
            var block = 0
            while offset < file.count {
                let end = min(offset + interval, file.count)
                ScriptedServer.send(socket, Array(file[offset..<end]))
                if end - offset == interval {
                    let text = block == 1 ? Array("StreamTitle='Second';".utf8) : []
                    let length = (text.count + 15) / 16
                    ScriptedServer.send(
                        socket, [UInt8(length)] + text + Array(repeating: 0, count: length * 16 - text.count))
                }
                offset = end
                block += 1
            }
        }
        let reading = await Self.read(server.url, Self.options(attempts: 0))
        let response = try #require(reading.responses.first)
        #expect(response.isLive)
        #expect(response.name == "old school")
        #expect(response.metadataInterval == interval)
        #expect(response.statedBitRate == 128)
        let titles = reading.events.compactMap { if case .titleChanged(let title) = $0 { title } else { nil } }
        #expect(titles.map(\.title) == ["Second"])
        #expect(titles.first?.audioOffset == Int64(2 * interval))
        // The live stream ended and may not be joined again (no attempts): every packet came first.
        #expect(reading.error?.message.contains("ended the stream") == true, "\(String(describing: reading.error))")
        #expect(packetBytes(reading.runs) == (try filePacketBytes(Self.track)))
    }
}
