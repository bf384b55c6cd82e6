import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// `HTTPResource.fetch` runs on the process's one event loop: a hundred fetches at once add no thread each, and a
/// fetch waiting to retry ends as soon as its task is cancelled. (In `ManyStreamsTests`, whose tests run one at a
/// time.)
extension ManyStreamsTests {
    /// 100 fetches at once of live responses the loopback server plays in real time (40 MP3 frames, about a
    /// second, then the server closes): each body arrives whole (the audio bytes the server reports sending), and
    /// the process's threads, sampled while all are in flight, stay few (a thread a fetch would add a hundred).
    @Test func aHundredFetchesAtOnceAddNoThreadEach() async throws {
        let server = try ICYStreamServer(
            mp3: Self.mp3, arguments: ["--pace", "--batch", "0.1", "--frames", "40"])
        defer { server.stop() }
        let threadsBefore = try Self.threadCount()
        var peakThreads = threadsBefore
        let sizes = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let fetched = try await HTTPResource.fetch(server.url("mp3", "f\(index)"))
                    return ("/mp3/f\(index)", fetched.bytes.count)
                }
            }
            // Sampled while the fetches run (each takes about a second of the server's pacing).
            for _ in 0..<10 {
                peakThreads = max(peakThreads, try Self.threadCount())
                try await Task.sleep(for: .milliseconds(50))
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let sent = server.endedConnections
        #expect(sent.count == 100 && sizes.count == 100)
        for connection in sent {
            #expect(connection.ended == "frames" && connection.frames == 40)
            #expect(sizes[connection.path] == connection.audioBytes, "\(connection.path)")
        }
        // (The runtime's and libraries' own pools grow by a few under load: a fresh CI machine's release run peaked
        // at 16 more. A thread a fetch, as before, was 101 more.)
        #expect(peakThreads - threadsBefore < 40, "\(threadsBefore) threads before, \(peakThreads) with 100 fetches")
    }

    /// A fetch refused by a closed port waits ten minutes before its retry; cancelling its task ends the wait:
    /// the fetch throws `CancellationError` (within the suite's time limit, far short of the wait).
    @Test func cancellingAFetchEndsItsWaitBeforeARetry() async throws {
        let port = try Loopback.freePort()
        var options = HTTPAudioStream.Options()
        options.maximumReconnectAttempts = 3
        options.reconnectDelay = .seconds(600)
        options.maximumReconnectDelay = .seconds(600)
        options.retryTimeBudget = .seconds(3600)
        let fetch = Task {
            try await HTTPResource.fetch("http://127.0.0.1:\(port)/gone.m3u8", options: options)
        }
        // The refusal comes at once; the fetch is then in its wait.
        try await Task.sleep(for: .milliseconds(300))
        fetch.cancel()
        await #expect(throws: CancellationError.self) { _ = try await fetch.value }
    }
}
