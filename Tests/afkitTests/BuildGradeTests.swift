import AudioContainers
import FileAccess
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `seconds` of 48 kHz stereo noise as a 16-bit WAV: long enough that the beam-search IMA4
/// encode of it is still running a second after it starts.
func noiseWAV(_ path: String, seconds: Int) throws {
    var random = SystemRandomNumberGenerator()
    // Four 12-bit samples a word, little-endian.
    let words = (0..<48000 * seconds / 2).map { _ in (random.next() & 0x0FFF_0FFF_0FFF_0FFF).littleEndian }
    try pcmWAV(path, rate: 48000, channels: 2, bytes: words.withUnsafeBytes { Array($0) })
}

/// Writes interleaved 16-bit samples as a WAV, through afkit's own writer.
func pcmWAV(_ path: String, rate: Double, channels: UInt32, samples: [Int16]) throws {
    try pcmWAV(
        path, rate: rate, channels: channels,
        bytes: samples.map(\.littleEndian).withUnsafeBytes { Array($0) })
}

private func pcmWAV(_ path: String, rate: Double, channels: UInt32, bytes: [UInt8]) throws {
    let writer = try AudioFileWriter(
        path: path, fileType: .wav,
        format: .linearPCM(sampleRate: rate, channels: channels, bitsPerChannel: 16))
    try writer.writePackets(bytes)
    try writer.close()
}

/// A folder of its own for one test.
final class ScratchFolder {
    let path = NSTemporaryDirectory() + "afkit-build-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Every file below the folder, relative paths, sorted.
    var files: [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
            .filter { !isDirectory(path + "/" + $0) }.sorted()
    }

    var temporaries: [String] { files.filter { $0.hasSuffix(".tmp") } }
}

/// Runs a bash script with `$AFKIT` set to the binary, in the fixtures folder.
func bash(_ script: String) throws -> Command.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: Command.fixtures)
    process.environment = ProcessInfo.processInfo.environment.merging(["AFKIT": Command.executable]) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Command.Result(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}

/// Starts the binary with `arguments`, waits (at most 10 s) until a temporary appears in `folder`.
private func startWritingTemporary(
    _ arguments: [String], in folder: ScratchFolder, standardError: Any = FileHandle.nullDevice
) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Command.executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = standardError
    try process.run()
    let deadline = Date().addingTimeInterval(10)
    while folder.temporaries.isEmpty && Date() < deadline && process.isRunning { Thread.sleep(forTimeInterval: 0.02) }
    return process
}

@Suite(.serialized) struct BuildGradeTests {
    /// A report that cannot reach standard output is a failure with a message, not a silent success.
    @Test func standardOutputToAFullDevice() throws {
        for command in [
            "info --json wav/pcm-s16-stereo.wav", "packets --json mp3/ffmpeg-libmp3lame.mp3",
            "validate --format junit wav/pcm-s16-stereo.wav",
        ] {
            let result = try bash("\"$AFKIT\" \(command) > /dev/full")
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("standard output"), "\(command)")
        }
    }

    /// A reader that stops early ends the command quietly with status 0, never by SIGPIPE (141).
    @Test func standardOutputClosedByItsReader() throws {
        let files = String(repeating: "wav/pcm-s16-stereo.wav ", count: 3000)
        let result = try bash("\"$AFKIT\" info --json \(files) | head -c 100 > /dev/null; echo \"${PIPESTATUS[0]}\"")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(result.stderr.isEmpty)
        // `packets` keeps its list in a temporary file; a reader that goes away leaves none behind.
        let folder = try ScratchFolder()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/mp3/lame-vbr-v0.mp3"))
        try Data(repeating: 0, count: 0).write(to: URL(fileURLWithPath: folder.path + "/keep"))
        try (0..<40).reduce(Data()) { data, _ in data + bytes }.write(
            to: URL(fileURLWithPath: folder.path + "/long.mp3"))
        let packets = try bash(
            "TMPDIR='\(folder.path)' \"$AFKIT\" packets --json '\(folder.path)/long.mp3' | head -c 100 > /dev/null; "
                + "echo \"${PIPESTATUS[0]}\"")
        #expect(packets.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(folder.files == ["keep", "long.mp3"])
    }

    /// SIGINT and SIGTERM during a conversion: the temporary is removed, the interruption said on a line of its
    /// own, and the status is 128 + the signal.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func interruptedConversionLeavesNothing(_ signal: Int32, _ status: Int32) throws {
        let folder = try ScratchFolder()
        try noiseWAV(folder.path + "/long.wav", seconds: 30)
        let errors = Pipe()
        let process = try startWritingTemporary(
            ["convert", "--progress", "-d", "ima4", folder.path + "/long.wav", folder.path + "/out.caf"],
            in: folder, standardError: errors)
        #expect(!folder.temporaries.isEmpty)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == status)
        #expect(folder.files == ["long.wav"])
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.hasSuffix("afkit: interrupted: the files it was writing were removed\n"), "\(said)")
        // A progress line drawn is cleared first: the message starts a line.
        if said.contains(" of 00:00:30.0") {
            #expect(said.contains("\r\u{1B}[Kafkit: interrupted"), "\(said)")
        }
    }

    /// SIGTERM at random moments of a `batch --jobs 2` over many short sounds, 60 times: the kill lands
    /// while jobs are creating, writing and renaming their temporaries, and none is ever left (before,
    /// 3 of 60 left one: a job could create its file after the signal thread had swept).
    @Test func killsAtRandomMomentsOfABatchLeaveNoTemporary() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        for index in 0..<24 { try noiseWAV(folder.path + "/src/s\(index).wav", seconds: 1) }
        var random = SystemRandomNumberGenerator()
        var statuses: [Int32: Int] = [:]
        for round in 0..<60 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Command.executable)
            process.arguments = [
                "batch", "--preset", "sfx", "--jobs", "2", "--out", folder.path + "/out\(round)", folder.path + "/src",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 5_000...250_000, using: &random))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            statuses[process.terminationStatus, default: 0] += 1
            #expect(process.terminationReason == .exit, "round \(round): killed by the signal itself")
            #expect(folder.temporaries.isEmpty, "round \(round): \(folder.temporaries)")
        }
        #expect(Set(statuses.keys).isSubset(of: [0, 143]), "\(statuses)")
    }

    /// An interrupted batch leaves no temporary; the next run finishes the job and every output is whole.
    @Test func interruptedBatchThenRerun() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        for index in 0..<4 { try noiseWAV(folder.path + "/src/s\(index).wav", seconds: 8) }
        let arguments = ["batch", "--preset", "sfx", "--out", folder.path + "/out", folder.path + "/src"]
        let process = try startWritingTemporary(arguments, in: folder)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(folder.temporaries.isEmpty)
        let rerun = try Command.run(arguments + ["--quality", "fast"])
        #expect(rerun.status == 0)
        for index in 0..<4 {
            let file = try AudioFile(path: folder.path + "/out/s\(index).caf")
            #expect(try AudioFileSummary(file.properties).frameCount == 22050 * 8)
        }
        #expect(folder.temporaries.isEmpty)
    }

    /// SIGKILL cannot be caught: its temporary stays, and the next conversion into that folder removes it
    /// (nobody holds its lock any more), leaving other processes' temporaries alone: one held locked by a
    /// live process is kept, whatever its name says (a PID from another namespace means nothing here).
    @Test func staleTemporariesOfDeadProcessesAreRemoved() throws {
        let folder = try ScratchFolder()
        try noiseWAV(folder.path + "/long.wav", seconds: 30)
        let process = try startWritingTemporary(
            ["convert", "-d", "ima4", folder.path + "/long.wav", folder.path + "/out.caf"],
            in: folder)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let stale = folder.temporaries
        #expect(stale.count == 1)
        // A temporary of a live process (this one, holding its lock) is not touched, even named with a PID
        // that does not exist here.
        let live = folder.path + "/.other.caf.afkit-999999-1.tmp"
        _ = FileManager.default.createFile(atPath: live, contents: Data([1, 2, 3]))
        let descriptor = open(live, O_RDONLY)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)
        let again = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder.path + "/short.caf"])
        #expect(again.status == 0)
        #expect(folder.temporaries == [".other.caf.afkit-999999-1.tmp"])
        #expect(!folder.files.contains("out.caf"))
    }

    /// Writes that fail (a file-size limit standing in for a full disk): at the header (the 0-byte
    /// temporary of old) and in the middle of the audio. Status 1, a message, nothing left.
    @Test(arguments: [0, 64])
    func failedWritesLeaveNothing(_ kilobytes: Int) throws {
        let folder = try ScratchFolder()
        try noiseWAV(folder.path + "/long.wav", seconds: 2)
        let result = try bash(
            "ulimit -f \(kilobytes); exec \"$AFKIT\" convert -d LEI16 \(folder.path)/long.wav \(folder.path)/out.caf")
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write '\(folder.path)/out.caf'"))
        #expect(!result.stderr.contains(".tmp"))
        #expect(folder.files == ["long.wav"])
    }

    /// A named pipe never blocks: `info` refuses it at once with a clear message; `packets` reads it as
    /// a stream when a writer comes, and ends at once when none does.
    @Test func namedPipes() throws {
        let folder = try ScratchFolder()
        let fifo = folder.path + "/pipe.wav"
        #expect(mkfifo(fifo, 0o644) == 0)
        let start = Date()
        let info = try Command.run(["info", fifo])
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(info.status == 1)
        #expect(info.stderr.contains("named pipe") || info.stdout.contains("named pipe"))
        let convert = try Command.run(["convert", fifo, folder.path + "/x.caf"])
        #expect(convert.status == 1)
        let alone = try Command.run(["packets", fifo])
        #expect(Date().timeIntervalSince(start) < 4)
        #expect(alone.status != 0)
        // The writer's shell waits in `open` for a reader; afkit's open lets it through.
        let fed = try bash("(cat wav/pcm-s16-stereo.wav > \(fifo) &); sleep 0.3; \"$AFKIT\" packets --json \(fifo)")
        #expect(fed.status == 0)
        let whole = try Command.run(["packets", "--json", "wav/pcm-s16-stereo.wav"])
        #expect(fed.stdout == whole.stdout.replacingOccurrences(of: "wav/pcm-s16-stereo.wav", with: fifo))
    }
}

@Suite struct BatchCommandTests {
    /// One file is "1 file"; paths with no source are a usage error unless --allow-empty; colliding
    /// sources fail (status 1) naming both, with nothing converted; validate is as strict about empty paths.
    @Test func summariesEmptinessAndCollisions() throws {
        let folder = try ScratchFolder()
        let one = try Command.run([
            "batch", "--preset", "pcm", "--jobs", "1", "--out", folder.path + "/out",
            "wav/pcm-s16-stereo.wav",
        ])
        #expect(one.status == 0)
        #expect(one.stdout == "1 file: 1 converted, 0 up to date, 0 failed\n")
        try FileManager.default.createDirectory(atPath: folder.path + "/empty", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/empty/notes.txt"))
        let empty = try Command.run(["batch", "--preset", "pcm", "--out", folder.path + "/o2", folder.path + "/empty"])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("--allow-empty"))
        #expect(
            try Command.run([
                "batch", "--preset", "pcm", "--allow-empty", "--out", folder.path + "/o2",
                folder.path + "/empty",
            ]).status == 0)
        #expect(try Command.run(["validate", folder.path + "/empty"]).status == 2)
        #expect(try Command.run(["validate", "--allow-empty", folder.path + "/empty"]).status == 0)
        try FileManager.default.createDirectory(atPath: folder.path + "/clash", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Command.fixtures + "/wav/pcm-s16-stereo.wav", toPath: folder.path + "/clash/a.wav")
        try FileManager.default.copyItem(
            atPath: Command.fixtures + "/aiff/sowt.aifc", toPath: folder.path + "/clash/a.aifc")
        let clash = try Command.run(["batch", "--preset", "pcm", "--out", folder.path + "/o3", folder.path + "/clash"])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("a.wav") && clash.stderr.contains("a.aifc"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/o3"))
        #expect(
            try Command.run(["batch", "--preset", "pcm", "--jobs", "0", "--out", folder.path + "/o4", "wav"]).status
                == 2)
    }
}

@Suite struct ArgumentsAndMessagesTests {
    /// Options are checked before paths: an unknown option is named (with a suggestion), not taken for a
    /// missing file.
    @Test func unknownOptionsBeforePaths() throws {
        let convert = try Command.run(["convert", "-x", "128000", "wav/pcm-s16-stereo.wav", "/tmp/x.caf"])
        #expect(convert.status == 2)
        #expect(convert.stderr.contains("Unknown option '-x'"))
        let validate = try Command.run(["validate", "--fromat", "json", "wav"])
        #expect(validate.status == 2)
        #expect(validate.stderr.contains("Did you mean '--format'"))
        let batch = try Command.run(["batch", "--preset", "pcm", "--out", "/tmp/o", "--jobz", "4", "wav"])
        #expect(batch.status == 2)
        #expect(batch.stderr.contains("--jobs"))
    }

    /// `info A B C` with B missing reports B in its place and goes on with C; the status is 2.
    @Test func infoGoesOnPastAMissingFile() throws {
        let result = try Command.run(["info", "--json", "wav/pcm-s16-stereo.wav", "nope.wav", "wav/pcm-u8-mono.wav"])
        #expect(result.status == 2)
        let objects = try #require(result.json as? [[String: Any]])
        #expect(objects.map { $0["path"] as? String } == ["wav/pcm-s16-stereo.wav", "nope.wav", "wav/pcm-u8-mono.wav"])
        #expect(objects[1]["error"] != nil && objects[2]["format"] != nil)
    }

    /// One message for one problem, in afkit's words; a missing output folder is a usage error that says
    /// so; impossible combinations suggest what fits; `-d` is taken in any case.
    @Test func messages() throws {
        let folder = try ScratchFolder()
        _ = FileManager.default.createFile(atPath: folder.path + "/empty.wav", contents: Data())
        let empty = try Command.run(["convert", folder.path + "/empty.wav", folder.path + "/x.caf"])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("0 bytes long"))
        #expect(!empty.stderr.contains("libsndfile"))
        #expect(!empty.stderr.contains("convert: convert:"))
        let noFolder = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder.path + "/missing/x.caf"])
        #expect(noFolder.status == 2)
        #expect(noFolder.stderr.contains("no such folder"))
        #expect(!noFolder.stderr.contains(".tmp"))
        for (format, name, advice) in [
            ("LEF32", "x.aif", "BEF32"), ("BEI16", "x.wav", "LEI16"), ("UI8", "x.caf", "I8"),
        ] {
            let result = try Command.run(["convert", "-d", format, "wav/pcm-s16-stereo.wav", folder.path + "/" + name])
            #expect(result.status == 2, "\(format) \(name)")
            #expect(result.stderr.contains(advice), "\(format) \(name)")
        }
        #expect(
            try Command.run(["convert", "-d", "lei16", "wav/pcm-s16-stereo.wav", folder.path + "/ok.caf"]).status == 0)
        #expect(try Command.run([]).status == 2)
        #expect(try Command.run(["help", "nope"]).status == 2)
        #expect(folder.files == ["empty.wav", "ok.caf"])
    }

    /// Typed options: real placeholders in --help, invalid values answered with the valid ones.
    @Test func typedOptions() throws {
        let help = try Command.run(["convert", "--help"]).stdout
        for placeholder in [
            "-f <type>", "-d <format[@rate]>", "--preset <name>", "--quality <quality>", "-b <bits-per-second>",
        ] {
            #expect(help.contains(placeholder), "\(placeholder)")
        }
        let quality = try Command.run(["batch", "--preset", "sfx", "--quality", "good", "--out", "/tmp/o", "wav"])
        #expect(quality.status == 2)
        #expect(quality.stderr.contains("'best'") && quality.stderr.contains("'fast'"))
        let type = try Command.run(["convert", "-f", "OGG", "wav/pcm-s16-stereo.wav", "/tmp/x.ogg"])
        #expect(type.status == 2)
        #expect(type.stderr.contains("- caff") && type.stderr.contains("- m4af"))
        #expect(try Command.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.2.0")
    }

    /// `-` for standard input (info, convert) and standard output (convert, with -f or a preset): the
    /// bytes on standard output are the file convert would write.
    @Test func standardStreams() throws {
        let folder = try ScratchFolder()
        let wav = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/wav/pcm-s16-stereo.wav"))
        let info = try Command.run(["info", "--json", "-"], stdin: wav)
        #expect(info.status == 0)
        #expect((info.json as? [[String: Any]])?.first?["container"] as? String == "wav")
        #expect(try Command.run(["convert", "-", folder.path + "/in.caf"], stdin: wav).status == 0)
        #expect(try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder.path + "/file.caf"]).status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.path + "/in.caf"))
                == Data(contentsOf: URL(fileURLWithPath: folder.path + "/file.caf")))
        let piped = try Command.run(["convert", "-f", "caff", "wav/pcm-s16-stereo.wav", "-"])
        #expect(piped.status == 0)
        #expect(Data(piped.stdout.utf8).count > 0)
        let out = try bash("\"$AFKIT\" convert -f caff wav/pcm-s16-stereo.wav - > \(folder.path)/piped.caf")
        #expect(out.status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.path + "/piped.caf"))
                == Data(contentsOf: URL(fileURLWithPath: folder.path + "/file.caf")))
        #expect(try Command.run(["convert", "wav/pcm-s16-stereo.wav", "-"]).status == 2)
    }

    /// With no -d, linear PCM keeps its sample format where the container holds it.
    @Test func sampleFormatIsKept() throws {
        let folder = try ScratchFolder()
        for (source, name, bits, float) in [
            ("caf/pcm-s24le-stereo.caf", "a.wav", 24, false),
            ("caf/float32-stereo.caf", "b.aif", 32, true), ("mp3/ffmpeg-libmp3lame.mp3", "c.caf", 16, false),
        ] {
            #expect(try Command.run(["convert", source, folder.path + "/" + name]).status == 0)
            let info = try #require(
                (try Command.run(["info", "--json", folder.path + "/" + name]).json as? [[String: Any]])?.first)
            let format = try #require(info["format"] as? [String: Any])
            #expect(format["bitsPerChannel"] as? Int == bits, "\(name)")
            #expect(((format["flags"] as? Int ?? 0) & 1 == 1) == float, "\(name)")
        }
    }
}

/// Output bytes depend on the input's bytes, the options and afkit's version only: not on paths and
/// names, the working directory, the time zone, the locale, `--jobs`, or the order files are found in.
@Suite(.serialized) struct DeterminismTests {
    static let conversions: [([String], String)] = [
        (["-d", "LEI16"], "caf"), (["-d", "LEI16@44100"], "wav"), (["-d", "BEI16"], "aif"), (["-d", "ima4"], "caf"),
        (["-d", "ulaw"], "caf"), (["-d", "aac"], "m4a"), (["-d", "aac"], "caf"), (["-d", "alac"], "m4a"),
        (["-d", "aac"], "aac"), (["--preset", "sfx"], "caf"), (["--preset", "pcm"], "caf"),
        (["--preset", "music"], "m4a"),
        (["--preset", "lossless"], "caf"), (["--preset", "system-sound"], "caf"), (["-d", "LEF32"], "wav"),
    ]

    /// Every encoder and preset, twice: other folders and names, another working directory, time zone and
    /// locale. A 24-bit source, so the 16-bit outputs are dithered (the dither is seeded from the content).
    @Test func sameBytesWhateverTheEnvironment() throws {
        let folder = try ScratchFolder()
        for sub in ["a", "b", "elsewhere/deeper"] {
            try FileManager.default.createDirectory(atPath: folder.path + "/" + sub, withIntermediateDirectories: true)
        }
        let made = try bash(
            "\"$AFKIT\" convert -d LEI24@11025 signals/music.wav '\(folder.path)/a/source.wav' && "
                + "cp '\(folder.path)/a/source.wav' '\(folder.path)/elsewhere/deeper/another name.wav'")
        #expect(made.status == 0, "\(made.stderr)")
        for (index, (options, ext)) in Self.conversions.enumerated() {
            let arguments = options.map { "'\($0)'" }.joined(separator: " ")
            let first = try bash(
                "cd '\(folder.path)/a' && TZ=UTC LANG=C LC_ALL=C \"$AFKIT\" convert \(arguments) "
                    + "source.wav out\(index).\(ext)")
            let second = try bash(
                "cd / && TZ=Pacific/Chatham LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 \"$AFKIT\" convert "
                    + "\(arguments) '\(folder.path)/elsewhere/deeper/another name.wav' '\(folder.path)/b/other \(index).\(ext)'"
            )
            #expect(first.status == 0 && second.status == 0, "\(options): \(first.stderr) \(second.stderr)")
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/a/out\(index).\(ext)"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/b/other \(index).\(ext)"))
            #expect(a == b, "\(options) .\(ext): the bytes differ")
            #expect(a.count > 100)
        }
    }

    /// `batch` on a tree and on a copy of it made in another order, `--jobs 1` against `--jobs 3`: every
    /// output the same bytes.
    @Test func batchOnAShuffledCopyWithAnyJobs() throws {
        let folder = try ScratchFolder()
        let names = [
            "kick.wav", "snare.wav", "ui/click.wav", "ui/tap.wav", "ambience/wind.wav", "ambience/deep/rain.wav",
        ]
        for root in ["one", "two"] {
            for name in root == "one" ? names : names.reversed() {
                let path = "\(folder.path)/\(root)/src/\(name)"
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true)
                let source = Command.fixtures + "/signals/" + (name.contains("ui") ? "speech.wav" : "music.wav")
                let made = try bash("\"$AFKIT\" convert -d LEI24@8000 '\(source)' '\(path)'")
                #expect(made.status == 0)
            }
        }
        let one = try bash("cd '\(folder.path)/one' && \"$AFKIT\" batch --preset sfx --jobs 1 --out out src")
        let two = try bash(
            "cd / && TZ=Asia/Kolkata \"$AFKIT\" batch --preset sfx --jobs 3 --out '\(folder.path)/two/out' "
                + "'\(folder.path)/two/src'")
        #expect(one.status == 0 && two.status == 0, "\(one.stderr) \(two.stderr)")
        for name in names {
            let output = (name as NSString).deletingPathExtension + ".caf"
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/one/out/\(output)"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/two/out/\(output)"))
            #expect(a == b, "\(output)")
        }
    }
}
