// afkit-stream-monitor: what a radio-monitoring server does with afkit, written against AudioStreaming's public
// API alone. Every URL is followed at once in this one process; every INTERVAL seconds one line a stream says its
// ICY title and the packets a second it delivered since the last report.
//
//   afkit-stream-monitor [--interval SECONDS] [--duration SECONDS] URL...
//
// Each line: seconds since start, the stream's URL, its packets per second over the interval, its state
// (connecting, playing, ended, or the error that ended it) and its title as the station last sent it. With
// --duration the streams are cancelled after that many seconds and a last report is printed; without it the
// monitor runs until interrupted.
import AudioStreaming
import Foundation
import Synchronization

/// What the monitor knows of one stream.
struct StreamState: Sendable {
    var url: String
    var state = "connecting"
    var title: String?
    /// Packets delivered in all, and as of the last report.
    var packets = 0
    var reportedPackets = 0
}

/// Every stream's state, shared by the readers and the reporter.
final class Board: Sendable {
    private let streams: Mutex<[StreamState]>

    init(_ urls: [String]) { streams = Mutex(urls.map { StreamState(url: $0) }) }

    func update(_ index: Int, _ change: (inout StreamState) -> Void) {
        streams.withLock { change(&$0[index]) }
    }

    /// One line a stream: the packets a second since the last report, over `seconds`.
    func report(at elapsed: Double, over seconds: Double) -> String {
        streams.withLock { streams in
            var lines = ""
            for index in streams.indices {
                let rate = Double(streams[index].packets - streams[index].reportedPackets) / max(seconds, 0.001)
                streams[index].reportedPackets = streams[index].packets
                let title = streams[index].title.map { "\"\($0)\"" } ?? "-"
                lines += String(
                    format: "%7.1f s  %@  %6.1f packets/s  %@  title: %@\n", elapsed, streams[index].url, rate,
                    streams[index].state, title)
            }
            return lines
        }
    }
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data("usage: afkit-stream-monitor [--interval SECONDS] [--duration SECONDS] URL...\n".utf8))
    exit(2)
}

var interval = 5.0
var duration: Double?
var urls: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--interval":
        guard let value = arguments.popFirst().flatMap(Double.init), value > 0 else { usage() }
        interval = value
    case "--duration":
        guard let value = arguments.popFirst().flatMap(Double.init), value > 0 else { usage() }
        duration = value
    case let url where url.hasPrefix("http://") || url.hasPrefix("https://"):
        urls.append(url)
    default:
        usage()
    }
}
if urls.isEmpty { usage() }

let board = Board(urls)
let start = ContinuousClock.now
let allURLs = urls
let reportEvery = interval

await withTaskGroup(of: Void.self) { group in
    for (index, url) in allURLs.enumerated() {
        group.addTask {
            do {
                for try await event in HTTPAudioStream(url: url) {
                    switch event {
                    case .connected: board.update(index) { $0.state = "playing" }
                    case .packets(let packets): board.update(index) { $0.packets += packets.count }
                    case .titleChanged(let title): board.update(index) { $0.title = title.title }
                    case .discontinuity: board.update(index) { $0.state = "rejoined" }
                    default: break
                    }
                }
                board.update(index) { $0.state = "ended" }
            } catch is CancellationError {
                board.update(index) { $0.state = "stopped" }
            } catch {
                board.update(index) { $0.state = "failed (\(error))" }
            }
        }
    }
    // The reporter: a report every interval, until the duration passes (or forever).
    var last = ContinuousClock.now
    while true {
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        let remaining = duration.map { $0 - elapsed } ?? reportEvery
        if remaining <= 0 { break }
        try? await Task.sleep(for: .seconds(min(reportEvery, remaining)))
        let now = ContinuousClock.now
        // (Written at once, not buffered: a pipe reader sees each report as it is made.)
        FileHandle.standardOutput.write(
            Data(board.report(at: (now - start) / .seconds(1), over: (now - last) / .seconds(1)).utf8))
        last = now
    }
    group.cancelAll()
}
// The streams' connections closed before the process exits.
HTTPAudioStream.endAllTransfers()
