import Foundation
import LoopbackServers
import Testing

/// `afkit-stream-monitor` (Examples/StreamMonitor), the program a server developer writes against AudioStreaming's
/// public API, run against three live ICY streams of the loopback server for a few seconds: each report names
/// every stream, and by the last one each stream's title as the server sent it and a packet rate above zero.
@Suite(.timeLimit(.minutes(1)))
struct StreamMonitorTests {
    /// The monitor beside this test bundle (SwiftPM builds both into the same folder).
    static let executable: String? = {
        let folders = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
                .deletingLastPathComponent(),
        ]
        return folders.map { $0.appendingPathComponent("afkit-stream-monitor").path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    @Test func theMonitorReportsTitlesAndPacketRates() async throws {
        let monitor = try #require(Self.executable, "afkit-stream-monitor is not built beside the tests")
        // Paced as a station plays (38 frames a second), a title every 40 frames.
        let server = try ICYStreamServer(
            mp3: networkFixtures + "/network/track-1.mp3",
            arguments: ["--pace", "--burst", "0.5", "--batch", "0.1", "--title-every", "40"])
        defer { server.stop() }
        let urls = (0..<3).map { server.url("mp3", "station\($0)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: monitor)
        process.arguments = ["--interval", "1", "--duration", "4"] + urls
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // Waited for without holding one of the concurrency pool's threads (the other suites' streams need them):
        // the output (a few kilobytes, which never fill the pipe) is read once the monitor has ended itself after
        // its duration; the suite's time limit bounds it.
        let text = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            process.terminationHandler = { _ in
                continuation.resume(
                    returning: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        #expect(process.terminationStatus == 0, "\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count >= 3 * 2, "\(text)")
        for (index, url) in urls.enumerated() {
            let reports = lines.filter { $0.contains(url + " ") }
            #expect(reports.count >= 2, "\(url): \(text)")
            // The server's titles are "PATH part N"; the last report of each stream has one and packets flowing.
            guard let last = reports.last else { continue }
            #expect(last.contains("title: \"/mp3/station\(index) part "), "\(last)")
            let rate = last.components(separatedBy: "packets/s").first?.split(separator: " ").last.flatMap {
                Double($0)
            }
            #expect((rate ?? 0) > 0, "\(last)")
        }
    }
}
