import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// Many live HLS playlists followed at once in one process: 20 sessions of the tests' loopback server (each its
/// own sliding window of packed-audio segments cut from FFmpeg's ADTS frames, one published a second), every
/// segment the server published read once and in order with every frame, and every session ended by cancelling
/// its task while it waits for its playlist's next segment. (In `ManyStreamsTests`, whose tests run one at a time:
/// many streams at once, never many suites of them.)
extension ManyStreamsTests {
    static let sessionCount = 20
    static let adts = networkFixtures + "/adts/aac-lc-44k-stereo.aac"

    /// What one session read.
    struct HLSReading: Sendable {
        var name: String
        var segments: [Int64] = []
        var packets = 0
        var gaps = 0
        var isLive = false
        var error: (any Error)?
    }

    /// Reads `name`'s playlist to its end (or until its task is cancelled), calling `read` after each segment.
    static func follow(
        _ server: ICYStreamServer, _ name: String, read: @Sendable (HLSReading) async throws -> Void = { _ in }
    ) async -> HLSReading {
        var reading = HLSReading(name: name)
        var options = HTTPAudioStream.Options()
        options.maximumTime = .seconds(90)
        do {
            for try await event in HTTPAudioStream(url: server.hlsURL(name), options: options) {
                switch event {
                case .connected(let response): reading.isLive = reading.isLive || response.isLive
                case .segment(let start):
                    reading.segments.append(start.mediaSequence)
                    try await read(reading)
                case .packets(let run): reading.packets += run.count
                case .discontinuity: reading.gaps += 1
                default: break
                }
            }
        } catch {
            reading.error = error
        }
        return reading
    }

    /// 20 live playlists of four one-second segments each (a window of three), followed to their
    /// `EXT-X-ENDLIST`: each session reads segments 0 to 3 once, in order, with no gap, and exactly the frames
    /// the server reports publishing; the server served each segment once.
    @Test func everySegmentOfTwentyLivePlaylistsArrives() async throws {
        let server = try ICYStreamServer(
            adts: Self.adts, arguments: ["--hls-target", "1", "--hls-window", "3", "--hls-segments", "4"])
        defer { server.stop() }
        let readings = await withTaskGroup(of: HLSReading.self) { group in
            for index in 0..<Self.sessionCount {
                group.addTask { await Self.follow(server, "s\(index)") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let reports = server.hlsReports
        let published = Dictionary(
            reports.compactMap { report in report.published.map { (report.hls, (count: $0, frames: report.frames)) } },
            uniquingKeysWith: { $1 })
        #expect(readings.count == Self.sessionCount)
        for reading in readings {
            #expect(reading.error == nil, "\(reading.name): \(String(describing: reading.error))")
            #expect(reading.isLive, "\(reading.name)")
            guard let sent = published[reading.name] else {
                Issue.record("the server reports no ended playlist for \(reading.name)")
                continue
            }
            #expect(sent.count == 4)
            #expect(reading.segments == (0..<Int64(sent.count)).map { $0 }, "\(reading.name)")
            #expect(reading.packets == sent.frames, "\(reading.name)")
            #expect(reading.gaps == 0, "\(reading.name)")
            let served = reports.filter { $0.hls == reading.name && $0.sequence != nil }.compactMap(\.sequence)
            #expect(served.sorted() == Array(0..<sent.count), "\(reading.name): served \(served)")
        }
    }

    /// 20 endless live playlists, each task cancelled once every session has read a segment: all 20 end with
    /// `CancellationError` (each was waiting for its playlist's next segment or fetching), and none reads on.
    @Test func cancellingTheirTasksEndsEverySession() async throws {
        let server = try ICYStreamServer(adts: Self.adts, arguments: ["--hls-target", "1"])
        defer { server.stop() }
        let barrier = Barrier(Self.sessionCount)
        let readings = await withTaskGroup(of: HLSReading.self) { group in
            for index in 0..<Self.sessionCount {
                group.addTask {
                    await Self.follow(server, "c\(index)") { reading in
                        if reading.segments.count == 1 { try await barrier.arriveAndWait() }
                    }
                }
            }
            // Cancelled once every session has read its first segment and gone on (to wait for the next one).
            try? await barrier.arriveAndWait()
            try? await Task.sleep(for: .milliseconds(200))
            group.cancelAll()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(readings.count == Self.sessionCount)
        for reading in readings {
            #expect(reading.error is CancellationError, "\(reading.name): \(String(describing: reading.error))")
            #expect(!reading.segments.isEmpty && reading.gaps == 0, "\(reading.name)")
        }
    }
}
