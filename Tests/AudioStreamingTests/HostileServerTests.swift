import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile servers: each lie or failure ends in a typed error within the read timeout, with memory
/// bounded by what arrived, never by what a header claims.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HostileServerTests {
    static let mp3 = Array(
        (try? Data(contentsOf: URL(fileURLWithPath: networkFixtures + "/network/track-1.mp3"))) ?? Data())

    static func options(readTimeout: Duration = .seconds(1), attempts: Int = 0) -> HTTPAudioStream.Options {
        var options = HTTPAudioStream.Options()
        options.readTimeout = readTimeout
        options.maximumReconnectAttempts = attempts
        options.reconnectDelay = .milliseconds(50)
        return options
    }

    /// Reads the stream to its end or error; the error, the events' count and the seconds it took.
    static func drain(_ url: String, _ options: HTTPAudioStream.Options) async -> (
        error: AudioFileError?, packets: Int,
        seconds: Double
    ) {
        let start = Date()
        var packets = 0
        var iterator = HTTPAudioStream(url: url, options: options).makeAsyncIterator()
        do {
            while let event = try await iterator.next() {
                if case .packets(let run) = event { packets += run.count }
            }
        } catch let error as AudioFileError {
            return (error, packets, Date().timeIntervalSince(start))
        } catch {
            Issue.record("an untyped error: \(error)")
        }
        return (nil, packets, Date().timeIntervalSince(start))
    }

    @Test func aLyingMetadataIntervalIsAnErrorAtTheBlockItMisreads() async throws {
        // The server says every 1000 bytes, but sends plain MP3 with no metadata at all.
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-metaint: 1000\r\n\r\n")
            ScriptedServer.send(socket, HostileServerTests.mp3)
        }
        let outcome = await Self.drain(server.url, Self.options())
        let error = try #require(outcome.error)
        #expect(error.code == "dta?", "\(error)")
        #expect(error.message.contains("icy-metaint 1000"))
        #expect(server.requests.first?.lowercased().contains("icy-metadata: 1") == true)
    }

    @Test func aMetadataBlockLongerThanTheStreamIsTruncation() async throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-metaint: 4000\r\n\r\n")
            ScriptedServer.send(
                socket, Array(HostileServerTests.mp3[0..<4000]) + [255] + Array("StreamTitle='A';".utf8))
        }
        let outcome = await Self.drain(server.url, Self.options())
        let error = try #require(outcome.error)
        #expect(error.code == "eof!", "\(error)")
        #expect(error.offset == 4017)
    }

    @Test func aStalledConnectionFailsWithinTheReadTimeout() async throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: stall\r\n\r\n")
            ScriptedServer.send(socket, Array(HostileServerTests.mp3[0..<5000]))
            sleep(6)
        }
        let outcome = await Self.drain(server.url, Self.options(readTimeout: .seconds(1)))
        let error = try #require(outcome.error)
        #expect(error.code == "net!", "\(error)")
        #expect(error.message.contains("read timeout"))
        #expect(outcome.seconds < 4, "took \(outcome.seconds) s")
        #expect(outcome.packets > 0)
    }

    @Test func aStalledLiveStreamIsJoinedAgainAndReportsTheGap() async throws {
        // The first connection stalls; the second plays the whole track; the station is gone after that.
        let server = try ScriptedServer { connection, _, socket in
            if connection > 1 {
                ScriptedServer.send(socket, "HTTP/1.0 404 Not Found\r\n\r\n")
                return
            }
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: flaky\r\n\r\n")
            if connection == 0 {
                ScriptedServer.send(socket, Array(HostileServerTests.mp3[0..<5000]))
                sleep(4)
            } else {
                ScriptedServer.send(socket, HostileServerTests.mp3)
            }
        }
        var events: [HTTPAudioStream.Event] = []
        var iterator = HTTPAudioStream(url: server.url, options: Self.options(readTimeout: .seconds(1), attempts: 1))
            .makeAsyncIterator()
        do {
            while let event = try await iterator.next() { events.append(event) }
        } catch let error as AudioFileError {
            // The second connection ends too, and the station is gone.
            #expect(error.code == "net!")
            #expect(error.message.contains("404"))
        }
        let gaps = events.compactMap { if case .discontinuity(let gap) = $0 { gap } else { nil } }
        #expect(gaps.count == 1)
        let gap = try #require(gaps.first)
        #expect(gap.reason.contains("read timeout"))
        let runs = events.compactMap { if case .packets(let run) = $0 { run } else { nil } }
        // Packet numbers run on across the gap, never repeated; after it the whole track arrives.
        let numbers = runs.flatMap { $0.firstPacket..<$0.firstPacket + Int64($0.count) }
        #expect(numbers == Array(0..<Int64(numbers.count)))
        let gapIndex = events.firstIndex { if case .discontinuity = $0 { true } else { false } }!
        let after = events[gapIndex...].compactMap { if case .packets(let run) = $0 { run } else { nil } }
        #expect(after.first?.firstPacket == gap.nextPacket)
        let track = try filePacketBytes(networkFixtures + "/network/track-1.mp3")
        let received = packetBytes(after)
        #expect(received.count == track.count)
        #expect(received == track, "\(received.count) packets after the gap, the track has \(track.count)")
    }

    @Test func aHugeContentLengthWithTenBytesIsAnErrorWithoutTheMemory() async throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket, "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: 2147483648\r\n\r\n")
            ScriptedServer.send(socket, Array(HostileServerTests.mp3[0..<10]))
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let before = usage.ru_maxrss
        let outcome = await Self.drain(server.url, Self.options())
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let error = try #require(outcome.error)
        #expect(error.code == "net!", "\(error)")
        #expect(outcome.seconds < 2)
        // Peak memory (KiB) grew by far less than the 2 GB claimed.
        #expect(usage.ru_maxrss - before < 64 * 1024)
    }

    @Test func cancellingTheReadingTaskClosesTheConnection() async throws {
        // A live stream that never ends: the server writes until the write fails.
        let closed = ServerProcess.Flag()
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: endless\r\n\r\n")
            var offset = 0
            let mp3 = HostileServerTests.mp3
            while true {
                let piece = Array(mp3[offset..<min(offset + 1024, mp3.count)])
                offset = offset + 1024 < mp3.count ? offset + 1024 : 0
                let sent = piece.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break }
                usleep(20_000)
            }
            closed.set()
        }
        let firstPackets = ServerProcess.Flag()
        let reader = Task {
            var packets = 0
            for try await event in HTTPAudioStream(url: server.url, options: Self.options(readTimeout: .seconds(10))) {
                if case .packets(let run) = event {
                    packets += run.count
                    firstPackets.set()
                }
            }
            return packets
        }
        #expect(await firstPackets.wait(timeout: 5))
        reader.cancel()
        let result = await reader.result
        #expect(throws: CancellationError.self) { try result.get() }
        // The server's next writes fail: the connection is closed, not left open behind the task.
        #expect(await closed.wait(timeout: 3))
    }

    @Test func aServerWithoutRangesGetsTheHoldThenOptmFallback() async throws {
        // The M4A whose moov follows 48 KB of audio, from a server that takes no range requests.
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: networkFixtures + "/network/tone-moov-last.m4a")))
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(
                socket,
                "HTTP/1.1 200 OK\r\nContent-Type: audio/mp4\r\nContent-Length: \(file.count)\r\n"
                    + "Connection: close\r\n\r\n")
            ScriptedServer.send(socket, file)
        }
        // Held whole while moov comes: the packets are the file's.
        var runs: [AudioFileStream.OwnedPackets] = []
        for try await event in HTTPAudioStream(url: server.url, options: Self.options()) {
            if case .packets(let run) = event { runs.append(run) }
        }
        #expect(packetBytes(runs) == (try filePacketBytes(networkFixtures + "/network/tone-moov-last.m4a")))
        #expect(server.requests.allSatisfy { !$0.lowercased().contains("range:") })
        // Past the limit: optm, at mdat.
        var limited = Self.options()
        limited.limits.maximumRetainedAudioBytes = 16_384
        let outcome = await Self.drain(server.url, limited)
        let error = try #require(outcome.error)
        #expect(error.code == "optm", "\(error)")
    }

    @Test func aResumableFileThatBreaksIsResumedWhereItBroke() async throws {
        // A file server that cuts every response after 6000 bytes but honours Range.
        let file = HostileServerTests.mp3
        let server = try ScriptedServer { _, request, socket in
            var start = 0
            if let range = request.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("range: bytes=") })
            {
                start = Int(range.dropFirst("range: bytes=".count).prefix { $0.isNumber }) ?? 0
            }
            let status = start > 0 ? "206 Partial Content" : "200 OK"
            var head =
                "HTTP/1.1 \(status)\r\nContent-Type: audio/mpeg\r\nAccept-Ranges: bytes\r\n"
                + "Content-Length: \(file.count - start)\r\nConnection: close\r\n"
            if start > 0 { head += "Content-Range: bytes \(start)-\(file.count - 1)/\(file.count)\r\n" }
            ScriptedServer.send(socket, head + "\r\n")
            ScriptedServer.send(socket, Array(file[start..<min(start + 6000, file.count)]))
        }
        var options = Self.options(attempts: 2)
        options.maximumReconnectAttempts = 2
        var iterator = HTTPAudioStream(url: server.url, options: options).makeAsyncIterator()
        var runs: [AudioFileStream.OwnedPackets] = []
        var starts: [Int64] = []
        while let event = try await iterator.next() {
            if case .packets(let run) = event { runs.append(run) }
            if case .connected(let response) = event { starts.append(response.startOffset) }
            if case .discontinuity = event { Issue.record("a resumed file has no gap") }
        }
        #expect(packetBytes(runs) == (try filePacketBytes(networkFixtures + "/network/track-1.mp3")))
        #expect(starts == [0, 6000, 12000, 18000])
        #expect(iterator.receivedByteCount == Int64(file.count))
    }
}
