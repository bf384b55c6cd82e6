// afkit-stream-benchmark: N HTTP audio streams read at once in one process, every packet counted.
//
//   afkit-stream-benchmark URL-PREFIX COUNT [SECONDS]
//
// Opens COUNT streams, URL-PREFIX followed by 0, 1, ... COUNT-1 (or with its `%d` replaced by them: a live HLS
// playlist's `http://127.0.0.1:PORT/hls/%d/live.m3u8`), each an `HTTPAudioStream` read to its end (the server
// ends it) or for SECONDS. Prints one JSON object: per stream its packets, titles, HLS segments and
// discontinuities, seconds from start to its end and how it ended; for the process its CPU seconds (getrusage), resident memory before the streams,
// with all of them open and at its peak (/proc/self/status), and its threads with all open. The benchmark
// (bench-streams.py) compares the packets with the frames the server reports sending.
import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A line of /proc/self/status, as a number (kB for the memory lines).
func status(_ name: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
    else { return -1 }
    return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? -1
}

/// CPU seconds the process has used (user and system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

struct Reading: Sendable {
    var index: Int
    var packets = 0
    var titles = 0
    var segments = 0
    var gaps = 0
    var seconds = 0.0
    var ended = "end"
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: afkit-stream-benchmark URL-PREFIX COUNT [SECONDS]\n".utf8))
    exit(2)
}
let prefix = arguments[1]
let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 0 : 0
var options = HTTPAudioStream.Options()
// The server ends each stream after its frames: not joined again, so what it sent is what is counted.
options.maximumReconnectAttempts = 0
options.readTimeout = .seconds(30)
let streamOptions = options

// A socket a stream: the soft limit on open files (often 1024) raised to the hard one.
var files = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0 {
    files.rlim_cur = files.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
}

let rssBefore = status("VmRSS")
let cpuBefore = cpuSeconds()
let opened = Mutex(0)
let sampled = Mutex<(rss: Int, threads: Int)>((0, 0))
let start = ContinuousClock.now

let readings = await withTaskGroup(of: Reading.self) { group in
    for index in 0..<count {
        group.addTask {
            var reading = Reading(index: index)
            do {
                let url =
                    prefix.contains("%d")
                    ? prefix.replacingOccurrences(of: "%d", with: String(index)) : prefix + String(index)
                var connected = false
                for try await event in HTTPAudioStream(url: url, options: streamOptions) {
                    switch event {
                    case .connected where !connected:
                        connected = true
                        // The last stream to connect samples the process with all of them open.
                        if opened.withLock({
                            $0 += 1; return $0
                        }) == count {
                            try await Task.sleep(for: .seconds(2))
                            sampled.withLock { $0 = (status("VmRSS"), status("Threads")) }
                        }
                    case .packets(let run): reading.packets += run.count
                    case .titleChanged: reading.titles += 1
                    case .segment: reading.segments += 1
                    case .discontinuity: reading.gaps += 1
                    default: break
                    }
                }
            } catch is CancellationError {
                reading.ended = "cancelled"
            } catch let error as AudioFileError {
                // The server's end of a live stream that is not joined again: every packet was delivered first.
                reading.ended =
                    error.message.contains("the server ended the stream") ? "end" : "error: \(error.message)"
            } catch {
                reading.ended = "error: \(error)"
            }
            reading.seconds = (ContinuousClock.now - start) / .seconds(1)
            return reading
        }
    }
    if seconds > 0 {
        try? await Task.sleep(for: .seconds(seconds))
        group.cancelAll()
    }
    var readings: [Reading] = []
    for await reading in group { readings.append(reading) }
    return readings
}
let cpu = cpuSeconds() - cpuBefore
HTTPAudioStream.endAllTransfers()
let result: [String: Any] = [
    "streams": readings.sorted { $0.index < $1.index }.map {
        [
            "index": $0.index, "packets": $0.packets, "titles": $0.titles, "segments": $0.segments, "gaps": $0.gaps,
            "seconds": $0.seconds, "ended": $0.ended,
        ]
    },
    "cpuSeconds": cpu,
    "rssBeforeKiB": rssBefore,
    "rssOpenKiB": sampled.withLock { $0.rss },
    "rssPeakKiB": status("VmHWM"),
    "threadsOpen": sampled.withLock { $0.threads },
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
FileHandle.standardOutput.write(json)
FileHandle.standardOutput.write(Data("\n".utf8))
