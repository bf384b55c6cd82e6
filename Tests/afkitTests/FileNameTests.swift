import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// File names are bytes: a name that is not UTF-8 (`bad-\xff.wav`, from a Latin-1 system or an old
/// archive) is walked, opened and written as the bytes it is, and printed escaped (`\xFF`). Before,
/// batch and validate skipped it silently ("1 file: 1 converted") and info said "No such file".
@Suite struct FileNameTests {
    static let bad: [UInt8] = Array("bad-".utf8) + [0xFF] + Array(".wav".utf8)

    /// The raw names in a folder.
    static func names(in folder: String) -> [[UInt8]] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [46] && name != [46, 46] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// A folder holding `good.wav` and `bad-\xff.wav` (the same sound).
    static func folder() throws -> ScratchFolder {
        let scratch = try ScratchFolder()
        let wav = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/wav/pcm-s16-stereo.wav"))
        try FileManager.default.createDirectory(atPath: scratch.path + "/src", withIntermediateDirectories: true)
        try wav.write(to: URL(fileURLWithPath: scratch.path + "/src/good.wav"))
        let path = Array((scratch.path + "/src/").utf8) + bad + [0]
        let descriptor = path.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { name in
                name.baseAddress.map { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) } ?? -1
            }
        }
        #expect(descriptor >= 0)
        _ = wav.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        return scratch
    }

    @Test func batchAndValidateWalkEveryName() throws {
        let scratch = try Self.folder()
        let validated = try Command.run(["validate", "--format", "json", scratch.path + "/src"])
        #expect(validated.status == 0, "\(validated.stderr)")
        let reports = try #require((validated.json as? [String: Any])?["files"] as? [[String: Any]])
        #expect(
            reports.compactMap { $0["path"] as? String }.sorted()
                == [scratch.path + "/src/bad-\\xFF.wav", scratch.path + "/src/good.wav"])

        let batch = try Command.run([
            "batch", "--preset", "system-sound", "--out", scratch.path + "/out", scratch.path + "/src",
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdout.contains("2 files: 2 converted"), "\(batch.stdout)")
        #expect(batch.stderr.contains("bad-\\xFF.wav"), "printed escaped: \(batch.stderr)")
        let outputs = Self.names(in: scratch.path + "/out")
        #expect(outputs == [Array("bad-".utf8) + [0xFF] + Array(".caf".utf8), Array("good.caf".utf8)])
        // The two outputs are the same sound, converted alike.
        let good = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out/good.caf"))
        let badPath = Array((scratch.path + "/out/bad-").utf8) + [0xFF] + Array(".caf".utf8) + [0]
        let descriptor = badPath.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) }
        }
        #expect(descriptor >= 0)
        var bytes = [UInt8](repeating: 0, count: good.count + 1)
        let count = read(descriptor, &bytes, bytes.count)
        close(descriptor)
        #expect(Array(bytes.prefix(count)) == Array(good))
    }

    /// A name given on the command line as bytes (the shell passes them as they are).
    @Test func infoAndConvertOpenANameAsItsBytes() throws {
        let scratch = try Self.folder()
        for arguments in [["info"], ["convert", "-d", "LEI16"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let output = arguments[0] == "convert" ? " \"$(printf 'out-\\377.caf')\"" : ""
            process.arguments = [
                "-c",
                "cd \"$1\" && exec \"$0\" \(arguments.joined(separator: " ")) \"$(printf 'bad-\\377.wav')\"\(output)",
                Command.executable, scratch.path + "/src",
            ]
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(arguments): \(errors)")
            if arguments[0] == "info" { #expect(text.hasPrefix("File:                   bad-\\xFF.wav"), "\(text)") }
        }
        #expect(Self.names(in: scratch.path + "/src").contains(Array("out-".utf8) + [0xFF] + Array(".caf".utf8)))
    }

    /// A name that starts with a dash is read as the file it names, never taken for options (`-dash.wav`
    /// held `-h`: help and status 0); one that names nothing is a usage error that says to use `--`.
    @Test func aNameStartingWithADashIsAFile() throws {
        let scratch = try ScratchFolder()
        try FileManager.default.copyItem(
            atPath: Command.fixtures + "/wav/pcm-s16-stereo.wav", toPath: scratch.path + "/-dash.wav")
        let read = try bash("cd '\(scratch.path)' && \"$AFKIT\" info -dash.wav")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("-dash.wav") && read.stdout.contains("Data format:"), "\(read.stdout)")
        let converted = try bash(
            "cd '\(scratch.path)' && \"$AFKIT\" convert -d LEI16 -dash.wav out.caf && test -s out.caf")
        #expect(converted.status == 0, "\(converted.stderr)")
        let missing = try bash("cd '\(scratch.path)' && \"$AFKIT\" info -missing.wav")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("use -- before file names that start with -"), "\(missing.stderr)")
        // A fix command names such a file `./-dash.wav`, so it runs as printed.
        try writeTone(scratch.path + "/-long.wav", rate: 8000, frequency: 440, seconds: 31)
        let long = try bash("cd '\(scratch.path)' && \"$AFKIT\" validate -- -long.wav")
        #expect(long.stdout.contains("--trim ./-long.wav ./-long-fixed.wav"), "\(long.stdout)")
        let terminated = try bash("cd '\(scratch.path)' && \"$AFKIT\" info -- -dash.wav")
        #expect(terminated.status == 0, "\(terminated.stderr)")
        // Negative values stay values.
        let valued = try bash("cd '\(scratch.path)' && \"$AFKIT\" convert --loudness -20.5 -dash.wav loud.caf")
        #expect(valued.status == 0, "\(valued.stderr)")
    }

    /// A name holding a newline and a GitHub Actions command (`x\n::warning file=evil::forged.mp3`) cannot
    /// forge a line: in `validate`'s text, JUnit and GitHub formats, `info`'s text and `batch`'s lines it
    /// prints as `\n`; JSON gives the name exactly. A tag holding one is escaped in `info`'s text too.
    @Test func aNewlineInANameForgesNoLine() throws {
        let scratch = try ScratchFolder()
        let name = "x\n::warning file=evil::forged.mp3"
        // An MP3 fails system-sound: one error line names the file.
        try FileManager.default.copyItem(
            atPath: Command.fixtures + "/mp3/ffmpeg-libmp3lame.mp3", toPath: scratch.path + "/" + name)
        func forged(_ text: String) -> Bool {
            text.split(separator: "\n", omittingEmptySubsequences: false).contains {
                $0.hasPrefix("::warning file=evil")
            }
        }
        for format in ["text", "junit", "github", "json"] {
            let result = try Command.run(["validate", "--format", format, scratch.path])
            #expect(result.status == 1, "\(format): \(result.stderr)")
            #expect(!forged(result.stdout) && !forged(result.stderr), "\(format): \(result.stdout)")
            if format == "json" {
                let report = try #require(result.json as? [String: Any])
                let path = ((report["files"] as? [[String: Any]])?.first)?["path"] as? String
                #expect(path == scratch.path + "/" + name, "JSON gives the name exactly")
            } else {
                #expect(result.stdout.contains("x\\n::warning file=evil::forged.mp3"), "\(format): \(result.stdout)")
            }
        }
        let info = try Command.run(["info", scratch.path + "/" + name])
        #expect(!forged(info.stdout) && info.stdout.contains("x\\n::warning"), "\(info.stdout)")
        let batch = try Command.run(["batch", "--preset", "system-sound", "--out", scratch.path + "/out", scratch.path])
        #expect(!forged(batch.stdout) && !forged(batch.stderr), "\(batch.stderr)")
        // The output keeps the name's bytes.
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/out/x\n::warning file=evil::forged.caf"))
        // A title tag with a newline: escaped in the text, exact in JSON.
        let tagged = scratch.path + "/tagged.wav"
        try Self.writeTitledWAV(title: "a\n::warning file=evil::b", to: tagged)
        let text = try Command.run(["info", tagged])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!forged(text.stdout) && text.stdout.contains("a\\n::warning"), "\(text.stdout)")
        let json = try Command.run(["info", "--json", tagged])
        let metadata = ((json.json as? [[String: Any]])?.first)?["metadata"] as? [String: Any]
        #expect(metadata?["title"] as? String == "a\n::warning file=evil::b", "\(json.stdout)")
    }

    /// A 16-bit mono WAV of 100 silent frames with a `LIST/INFO` chunk whose `INAM` (title) is `title`.
    static func writeTitledWAV(title: String, to path: String) throws {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var text = Array(title.utf8) + [0]
        if text.count % 2 == 1 { text.append(0) }
        let info = Array("INFO".utf8) + Array("INAM".utf8) + le32(text.count) + text
        let list = Array("LIST".utf8) + le32(info.count) + info
        let format = Array("fmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0]
        let data = Array("data".utf8) + le32(200) + [UInt8](repeating: 0, count: 200)
        let body = Array("WAVE".utf8) + format + list + data
        try Data(Array("RIFF".utf8) + le32(body.count) + body).write(to: URL(fileURLWithPath: path))
    }
}
