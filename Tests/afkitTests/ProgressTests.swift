import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--quiet` and the progress line (issue 49): on a terminal a long encode shows how far it has come within a
/// second, as `ffmpeg -stats` does; piped, nothing but with `--progress`; with `--quiet`, nothing on success.
@Suite(.serialized) struct ProgressTests {
    /// A 10-minute source, made once (8 kHz mono: IMA4's best search takes minutes over it in a debug build).
    static let longSource: String = {
        let path = NSTemporaryDirectory() + "afkit-progress-\(getpid()).wav"
        try? toneWAV(path, seconds: 600)
        return path
    }()

    /// Runs afkit with standard error on a pseudo-terminal (or a pipe) until `until` appears in it or `seconds`
    /// pass, then stops it: what it wrote there, and how long after the start `until` appeared.
    static func run(_ arguments: [String], terminal: Bool, until: String, seconds: Double) throws -> (
        text: String, appeared: Double?
    ) {
        var reading: Int32 = -1
        var writing: Int32 = -1
        if terminal {
            #expect(openpty(&reading, &writing, nil, nil, nil) == 0)
        } else {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            (reading, writing) = (ends[0], ends[1])
        }
        defer { close(reading) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: writing, closeOnDealloc: false)
        let start = Date()
        try process.run()
        close(writing)
        var bytes: [UInt8] = []
        var appeared: Double?
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < seconds {
            var poller = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { break }
            if poller.revents & Int16(POLLIN) != 0 {
                let count = read(reading, &buffer, buffer.count)
                if count <= 0 { break }
                bytes += buffer[0..<count]
                if String(decoding: bytes, as: UTF8.self).contains(until) {
                    appeared = Date().timeIntervalSince(start)
                    break
                }
            } else if poller.revents != 0 || !process.isRunning {
                break
            }
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (String(decoding: bytes, as: UTF8.self), appeared)
    }

    @Test func aLongEncodeShowsItsProgressOnATerminalOnly() throws {
        let folder = try ScratchFolder()
        let convert = ["convert", "-d", "ima4", "--quality", "best", Self.longSource, folder.path + "/long.caf"]
        // The line comes while the first minute of the ten is written (its position says so; a bound in seconds
        // would measure the machine's load, not afkit).
        let onTerminal = try Self.run(convert, terminal: true, until: " of 00:10:00.0 · ", seconds: 10)
        #expect(onTerminal.appeared != nil, "no progress line: \(onTerminal.text)")
        #expect(onTerminal.text.contains("\r\u{1B}[Kconvert: afkit-progress-\(getpid()).wav 00:00:"))
        // Piped: no line; --progress forces it.
        let piped = try Self.run(convert, terminal: false, until: " of 00:10:00.0", seconds: 1.5)
        #expect(piped.appeared == nil && !piped.text.contains("\r"), "\(piped.text)")
        let forced = try Self.run(
            ["convert", "--progress"] + convert.dropFirst(), terminal: false, until: " of 00:10:00.0 · ", seconds: 10)
        #expect(forced.appeared != nil, "\(forced.text)")
        // Batch: the files done, and the file being written.
        let batch = try Self.run(
            [
                "batch", "--preset", "pcm", "-d", "ima4", "--quality", "best", "--out", folder.path + "/out",
                Self.longSource,
            ],
            terminal: true, until: " of 00:10:00.0 · ", seconds: 10)
        #expect(batch.appeared != nil, "\(batch.text)")
        #expect(batch.text.contains("batch: 0/1 files · afkit-progress-\(getpid()).wav 00:00:"), "\(batch.text)")
        // --quiet: nothing, even on a terminal.
        let quiet = try Self.run(
            ["convert", "--quiet"] + convert.dropFirst(), terminal: true, until: " of ", seconds: 1.5)
        #expect(quiet.text.isEmpty, "\(quiet.text)")
    }

    @Test func quietRunsSayNothingOnSuccessAndErrorsOnFailure() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/hi.wav"
        try toneWAV(source, seconds: 0.2, rate: 96000, channels: 6)
        try toneWAV(folder.path + "/lo.wav", seconds: 0.2)
        // Notes (a rate and a downmix) without --quiet; nothing with it.
        let noted = try Command.run(["convert", "--preset", "system-sound", source, folder.path + "/a.caf"])
        #expect(noted.status == 0 && noted.stderr.contains("note:"))
        let quiet = try Command.run(["convert", "--quiet", "--preset", "system-sound", source, folder.path + "/b.caf"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
        // Piped, batch says a line a file converted; with --quiet, nothing, not even the summary.
        let loud = try Command.run(["batch", "--preset", "system-sound", "--out", folder.path + "/o1", folder.path])
        #expect(loud.stderr.contains("batch: converted ") && loud.stdout.contains(" converted, 0 up to date, 0 failed"))
        let hushed = try Command.run([
            "batch", "--quiet", "--preset", "system-sound", "--out", folder.path + "/o2", folder.path,
        ])
        #expect(hushed.status == 0 && hushed.stdout.isEmpty && hushed.stderr.isEmpty, "\(hushed)")
        // Errors are still said.
        let text = folder.path + "/words.wav"
        try Data("only words".utf8).write(to: URL(fileURLWithPath: text))
        let failed = try Command.run(["batch", "--quiet", "--preset", "pcm", "--out", folder.path + "/o3", text])
        #expect(failed.status == 1 && failed.stderr.contains("batch: \(text): error: "), "\(failed)")
        // --quiet with --progress, or with -v, is a usage error.
        #expect(try Command.run(["convert", "--quiet", "--progress", source, folder.path + "/c.caf"]).status == 2)
        #expect(try Command.run(["convert", "--quiet", "-v", source, folder.path + "/c.caf"]).status == 2)
    }
}
