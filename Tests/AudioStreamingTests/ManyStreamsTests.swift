import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Synchronization
import Testing

/// Many streams in one process share one event loop: 200 live ICY streams from a loopback server (one thread
/// of its own, another process), every packet the server sent delivered, every transfer ended by cancelling
/// its task, and the process's thread count bounded all the while (not one thread a stream).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ManyStreamsTests {
    static let streamCount = 200
    static let mp3 = networkFixtures + "/network/track-1.mp3"

    /// The process's threads now (`Threads:` in /proc/self/status).
    static func threadCount() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
            let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        else { throw LoopbackError("no Threads: line in /proc/self/status") }
        return count
    }

    /// A count every stream's task raises once, and waits on until all have; and the most threads the tasks saw.
    final class Barrier: Sendable {
        private let arrived = Mutex(0)
        let expected: Int
        init(_ expected: Int) { self.expected = expected }

        private let threads = Mutex(0)
        /// The most threads any task saw.
        var peakThreads: Int { threads.withLock { $0 } }
        /// Notes the threads a task sees now.
        func noteThreads() {
            let count = (try? ManyStreamsTests.threadCount()) ?? 0
            threads.withLock { $0 = max($0, count) }
        }

        /// Arrives, and waits for the others (polling: no pool thread is held).
        func arriveAndWait() async throws {
            arrived.withLock { $0 += 1 }
            while arrived.withLock({ $0 }) < expected { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// What one stream delivered.
    struct Reading: Sendable {
        var name: String
        var packets = 0
        var titles = 0
        var error: (any Error)?
    }

    static var options: HTTPAudioStream.Options {
        var options = HTTPAudioStream.Options()
        // The server ends each stream after its frames: no rejoining, so what was sent is what is counted.
        options.maximumReconnectAttempts = 0
        options.readTimeout = .seconds(30)
        return options
    }

    /// 200 streams open at once (each waits after its first response until all are connected, the rest of
    /// its bytes held back by its own paused transfer), then read to their end: each delivers exactly the
    /// frames the server reports sending it, with its ICY titles, and the threads stay few.
    @Test func twoHundredStreamsDeliverEveryPacketTheServerSent() async throws {
        // 600 frames of 432 bytes: more than a transfer buffers (256 KiB), so each is paused while it waits.
        let server = try ICYStreamServer(mp3: Self.mp3, arguments: ["--frames", "600", "--title-every", "100"])
        defer { server.stop() }
        let threadsBefore = try Self.threadCount()
        let barrier = Barrier(Self.streamCount)
        let readings = try await withThrowingTaskGroup(of: Reading.self) { group in
            for index in 0..<Self.streamCount {
                group.addTask {
                    var reading = Reading(name: "/mp3/s\(index)")
                    var connected = false
                    do {
                        for try await event in HTTPAudioStream(
                            url: server.url("mp3", "s\(index)"), options: Self.options)
                        {
                            switch event {
                            case .connected where !connected:
                                connected = true
                                try await barrier.arriveAndWait()
                                barrier.noteThreads()
                            case .packets(let run): reading.packets += run.count
                            case .titleChanged: reading.titles += 1
                            default: break
                            }
                        }
                    } catch {
                        reading.error = error
                    }
                    return reading
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let sent = Dictionary(server.endedConnections.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
        #expect(readings.count == Self.streamCount)
        for reading in readings {
            guard let connection = sent[reading.name] else {
                Issue.record("the server reports no connection for \(reading.name)")
                continue
            }
            #expect(connection.ended == "frames" && connection.frames == 600)
            #expect(reading.packets == connection.frames, "\(reading.name)")
            #expect(reading.titles >= 5, "\(reading.name): \(reading.titles) titles")
            // The server ended the live stream; with no rejoining allowed that is a network error, after every packet.
            #expect(
                (reading.error as? AudioFileError)?.code == "net!",
                "\(reading.name): \(String(describing: reading.error))")
        }
        // One loop thread, not one a stream (the concurrency pool and the test runner's own are the rest).
        #expect(
            barrier.peakThreads - threadsBefore < 16,
            "\(threadsBefore) threads before, \(barrier.peakThreads) with 200 streams open")
    }

    /// 200 endless streams played in real time, each task cancelled once all have packets: every task ends with
    /// `CancellationError`, the server sees all 200 connections closed by the client, and no transfer is left.
    @Test func cancellingTheirTasksEndsEveryTransfer() async throws {
        let server = try ICYStreamServer(mp3: Self.mp3, arguments: ["--pace", "--burst", "1", "--batch", "0.1"])
        defer { server.stop() }
        let threadsBefore = try Self.threadCount()
        let barrier = Barrier(Self.streamCount)
        let ended = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<Self.streamCount {
                group.addTask {
                    var packets = 0
                    var waited = false
                    do {
                        for try await event in HTTPAudioStream(
                            url: server.url("mp3", "c\(index)"), options: Self.options)
                        {
                            if case .packets(let run) = event { packets += run.count }
                            if packets >= 10, !waited {
                                waited = true
                                try await barrier.arriveAndWait()
                                barrier.noteThreads()
                            }
                        }
                    } catch is CancellationError {
                        return true
                    } catch {
                        Issue.record("c\(index): \(error)")
                    }
                    return false
                }
            }
            // Cancelled once every stream has its packets.
            while barrier.peakThreads == 0 { try? await Task.sleep(for: .milliseconds(20)) }
            try? await Task.sleep(for: .milliseconds(200))
            group.cancelAll()
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(ended == Self.streamCount)
        // The server notices each close; it writes its report line then.
        var closed: [ICYStreamServer.Connection] = []
        for _ in 0..<500 {
            closed = server.endedConnections
            if closed.count >= Self.streamCount { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(closed.count == Self.streamCount)
        #expect(closed.allSatisfy { $0.ended == "client" })
        #expect(
            barrier.peakThreads - threadsBefore < 16, "\(threadsBefore) threads before, \(barrier.peakThreads) open")
    }
}
