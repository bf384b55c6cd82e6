import FileAccess
import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one output guard, from outside: every command that writes a file, aimed at every target it must
/// refuse (its own input, another source of the run, another output of the run, a link to an input, a FIFO,
/// a device node), answers with a usage error (exit 2), leaves every input as it was and leaves nothing
/// behind. A new writer is not done until it is listed in ``writers``.
@Suite(.serialized) struct OutputGuardTests {
    /// One writer: the arguments that aim it at `target`, in a folder holding the run's sources `a.wav`,
    /// `b.wav` (copies of a fixture) and `src/` (a folder with `s0.wav` and `s1.wav`).
    struct Writer: CustomStringConvertible, Sendable {
        var description: String
        var arguments: @Sendable (_ folder: String, _ target: String) -> [String]
        /// The targets this writer can be aimed at (folder-relative), beyond the FIFO and the device.
        var targets: [String]
        /// The extension its output takes (the FIFO and the device it is aimed at carry it), or `nil` where
        /// the command names its outputs itself.
        var pathExtension: String?
    }

    static let writers: [Writer] = [
        Writer(
            description: "convert", arguments: { folder, target in ["convert", folder + "/a.wav", target] },
            targets: ["a.wav", "link-to-a.wav", "link-to-other.caf", "missing/x.caf"], pathExtension: "caf"),
        // A waveform's input is a sound named like a waveform (afkit reads the bytes, not the name).
        Writer(
            description: "waveform (.json)",
            arguments: { folder, target in ["waveform", folder + "/sound.json", "-o", target] },
            targets: ["sound.json", "link-to-sound.json", "link-to-other.json", "missing/x.json"], pathExtension: "json"
        ),
        Writer(
            description: "waveform (.png)",
            arguments: { folder, target in ["waveform", folder + "/sound.png", "-o", target] },
            targets: ["sound.png", "link-to-sound.png", "link-to-other.png"], pathExtension: "png"),
        Writer(
            description: "batch --report (JSON)",
            arguments: { folder, target in
                [
                    "batch", "--preset", "sfx", "--out", folder + "/out", "--report", target, folder + "/src",
                    folder + "/a.wav",
                ]
            },
            // A source walked in the folder, a source named, another output of the run, a link to a source, a
            // new name inside the source folder being walked or inside a folder the walk reaches through a link,
            // the output folder itself, a folder that will not exist.
            targets: [
                "src/s0.wav", "a.wav", "out/s1.caf", "link-to-a.json", "src/report.json", "linked/report.json", "out",
                "out/sub/report.json",
            ], pathExtension: "json"),
        Writer(
            description: "batch --report (HTML)",
            arguments: { folder, target in
                ["batch", "--preset", "sfx", "--out", folder + "/out", "--report", target, folder + "/src"]
            },
            targets: ["src/s1.wav", "out/s0.caf", "link-to-s0.html"], pathExtension: "html"),
        Writer(
            description: "validate -o",
            arguments: { folder, target in ["validate", "-o", target, folder + "/a.wav", folder + "/src"] },
            // A file named, a link to it, a file the walk finds, a new name inside the folder walked, no folder.
            targets: ["a.wav", "link-to-a.json", "src/s1.wav", "src/report.json", "missing/x.json"],
            pathExtension: "json"),
        Writer(
            // The outputs themselves: `--out` where a source is (`a.caf` converted into its own folder is
            // itself), a link to a source, a FIFO and a device where an output goes.
            description: "batch outputs",
            arguments: { folder, target in
                // `a.caf` in the folder itself is converted into its own place; elsewhere `a.wav` or `b.wav`.
                let source = target == folder + "/a.caf" ? target : folder + "/" + pathParts(target).base + ".wav"
                return ["batch", "--preset", "sfx", "--out", parentFolder(of: target), source]
            },
            targets: ["a.caf", "links/a.caf", "specials/a.caf", "specials/b.caf"]),
        Writer(
            description: "join",
            arguments: { folder, target in ["join", folder + "/a.wav", folder + "/a.wav", "-o", target] },
            targets: ["a.wav", "link-to-a.wav", "link-to-other.caf", "missing/x.caf"], pathExtension: "caf"),
        Writer(
            description: "mix",
            arguments: { folder, target in ["mix", folder + "/a.wav", folder + "/a.wav", "-o", target] },
            targets: ["a.wav", "link-to-a.wav", "link-to-other.caf", "missing/x.caf"], pathExtension: "caf"),
    ]

    /// A fresh folder with the sources, the links and the special files the targets name.
    static func makeFolder() throws -> String {
        let folder = try Loopback.temporaryFolder("guard")
        let manager = FileManager.default
        let fixture = Command.fixtures + "/wav/pcm-s16-stereo.wav"
        for name in ["a.wav", "b.wav"] { try manager.copyItem(atPath: fixture, toPath: folder + "/" + name) }
        // Inputs named like outputs: the same sound, under the name the writer would write.
        for name in ["sound.json", "sound.png", "a.caf"] {
            try manager.copyItem(atPath: fixture, toPath: folder + "/" + name)
        }
        try manager.createDirectory(atPath: folder + "/src", withIntermediateDirectories: false)
        for name in ["s0.wav", "s1.wav"] { try manager.copyItem(atPath: fixture, toPath: folder + "/src/" + name) }
        for name in ["link-to-a.wav", "link-to-a.json"] {
            #expect(symlink(folder + "/a.wav", folder + "/" + name) == 0)
        }
        for name in ["sound.json", "sound.png"] {
            #expect(symlink(folder + "/" + name, folder + "/link-to-" + name) == 0)
        }
        #expect(symlink(folder + "/src/s0.wav", folder + "/link-to-s0.html") == 0)
        // A file no run reads, and links to it: a rename would replace the link, never write through it.
        try manager.copyItem(atPath: fixture, toPath: folder + "/other.wav")
        for pathExtension in ["caf", "json", "png"] {
            #expect(symlink(folder + "/other.wav", folder + "/link-to-other." + pathExtension) == 0)
        }
        // A folder outside the sources that the walk reaches through a link inside them.
        try manager.createDirectory(atPath: folder + "/linked", withIntermediateDirectories: false)
        #expect(symlink(folder + "/linked", folder + "/src/ext") == 0)
        try manager.createDirectory(atPath: folder + "/links", withIntermediateDirectories: false)
        #expect(symlink(folder + "/a.wav", folder + "/links/a.caf") == 0)
        try manager.createDirectory(atPath: folder + "/specials", withIntermediateDirectories: false)
        #expect(mkfifo(folder + "/specials/a.caf", 0o644) == 0)
        for pathExtension in ["caf", "json", "png", "html"] {
            #expect(mkfifo(folder + "/fifo." + pathExtension, 0o644) == 0)
            // A null device of the test's own, where this machine lets root make one (major 1, minor 3).
            if getuid() == 0 { _ = mknod(folder + "/null." + pathExtension, S_IFCHR | 0o666, dev_t(0x103)) }
        }
        if getuid() == 0 { _ = mknod(folder + "/specials/b.caf", S_IFCHR | 0o666, dev_t(0x103)) }
        return folder
    }

    /// Every file below `folder` with its bytes (links and special files by what they are).
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            case S_IFLNK:
                files[name] = Data(
                    ("link to " + (try FileManager.default.destinationOfSymbolicLink(atPath: path))).utf8)
            default: files[name] = Data("mode \(info.st_mode & S_IFMT)".utf8)
            }
        }
        return files
    }

    @Test(arguments: writers)
    func everyWriterRefusesEveryBadTarget(_ writer: Writer) throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var targets = writer.targets
        if let pathExtension = writer.pathExtension {
            targets += ["fifo." + pathExtension]
            if FileManager.default.fileExists(atPath: folder + "/null." + pathExtension) {
                targets.append("null." + pathExtension)
            }
        }
        for target in targets
        where target != "specials/b.caf" || FileManager.default.fileExists(atPath: folder + "/" + target) {
            let before = try Self.snapshot(folder)
            let result = try Command.run(writer.arguments(folder, folder + "/" + target))
            #expect(result.status == 2, "\(writer) at \(target): \(result.stderr)")
            #expect(result.stderr.contains("'\(folder)/"), "\(writer) at \(target): the message names the output")
            let after = try Self.snapshot(folder)
            #expect(
                after == before,
                "\(writer) at \(target): the folder changed: \(Set(after.keys).symmetricDifference(before.keys))")
        }
    }

    /// The same writers aimed at new names all write (the guard refuses the targets, not the writers), and a
    /// batch's output folder inside the source folder it walks is asked for, not refused.
    @Test func theWritersWriteWhereTheyMay() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (writer, target) in [
            (Self.writers[0], "new.caf"), (Self.writers[1], "new.json"), (Self.writers[2], "new.png"),
            (Self.writers[3], "report.json"), (Self.writers[4], "out/report.html"),
            (Self.writers[Self.writers.count - 2], "joined.caf"), (Self.writers[Self.writers.count - 1], "mixed.caf"),
        ] {
            let result = try Command.run(writer.arguments(folder, folder + "/" + target))
            #expect(result.status == 0, "\(writer) at \(target): \(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/" + target))
        }
        let inside = try Command.run([
            "batch", "--preset", "sfx", "--out", folder + "/src/build", "--report", folder + "/src/build/r.json",
            folder + "/src",
        ])
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/src/build/s0.caf"))
        #expect(FileManager.default.fileExists(atPath: folder + "/src/build/r.json"))
    }

    /// A report refused inside a source folder is offered the output folder only by a run that has one: `batch`
    /// names its `--out`; `validate -o` has none, and says only to write outside (it offered "the output folder").
    @Test func aRefusalOffersTheOutputFolderOnlyWhereThereIsOne() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let validate = try Command.run(["validate", "-o", folder + "/src/report.json", folder + "/src"])
        #expect(validate.status == 2, "\(validate.stderr)")
        #expect(
            validate.stderr.contains(
                "is inside '\(folder)/src', a source folder this run reads: write the report outside it\n"),
            "\(validate.stderr)")
        #expect(!validate.stderr.contains("output folder"), "\(validate.stderr)")
        let batch = try Command.run([
            "batch", "--preset", "sfx", "--out", folder + "/out", "--report", folder + "/src/report.json",
            folder + "/src",
        ])
        #expect(batch.status == 2, "\(batch.stderr)")
        #expect(
            batch.stderr.contains("write the report outside it (or inside '\(folder)/out', the output folder)"),
            "\(batch.stderr)")
    }

    /// The guard as a library: an output under a name not yet made in a folder not yet made is told apart
    /// from an input by where it would go; `..` and links reach the same file.
    @Test func theGuardComparesPlacesNotSpellings() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var outputs = OutputGuard(inputs: [folder + "/a.wav"], walkedFolders: [folder + "/src"])
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/src/../a.wav") }
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/link-to-a.wav") }
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/new/sub/x.caf") }
        outputs.claimFolder(folder + "/new/sub")
        try outputs.claim(folder + "/new/sub/x.caf")
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/new/sub") }
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/new/../new/sub/x.caf") }
        #expect(throws: OutputGuard.Refusal.self) { try outputs.claim(folder + "/src/new/x.caf") }
        try outputs.claim(folder + "/y.caf")
    }

    /// Standard input that is the output (`convert - IN < IN`), standard output that is standard input's file
    /// (`convert - - < IN >> IN`), and any report appended to one of its inputs (`validate`, `info`, `packets`):
    /// refused, the input left as it was.
    @Test func standardStreamsThatAreInputsAreRefused() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.wav"))
        for script in [
            "\"$0\" convert - \"$1\" < \"$1\"", "\"$0\" convert -f WAVE - - < \"$1\" >> \"$1\"",
            "\"$0\" validate --format json \"$1\" >> \"$1\"", "\"$0\" info \"$1\" >> \"$1\"",
            "\"$0\" packets --json \"$1\" >> \"$1\"", "\"$0\" convert -f WAVE \"$1\" /dev/stdout > \"$1.out\"",
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, Command.executable, folder + "/a.wav"]
            let err = Pipe()
            process.standardError = err
            try process.run()
            process.waitUntilExit()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 2, "\(script): \(message)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.wav")) == before, "\(script)")
        }
        var info = stat()
        #expect(
            lstat("/dev/stdout", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK,
            "the system's /dev/stdout stays a link")
        // A file a folder walk finds is an input too.
        let walked = Process()
        walked.executableURL = URL(fileURLWithPath: "/bin/sh")
        walked.arguments = ["-c", "\"$0\" validate \"$1\" >> \"$1/s0.wav\"", Command.executable, folder + "/src"]
        try walked.run()
        walked.waitUntilExit()
        #expect(walked.terminationStatus == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/src/s0.wav")) == before, "the walked file")
    }

    /// The same source named twice, however spelled, is one job, not a collision with itself.
    @Test func theSameSourceTwiceIsOneJob() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run([
            "batch", "--preset", "sfx", "--out", folder + "/twice", folder + "/a.wav", folder + "/./a.wav",
            folder + "/src/../a.wav",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 file: 1 converted"), "\(result.stdout)")
    }

    /// A file replaced keeps its permissions, as an edit in place would.
    @Test func aReplacedOutputKeepsItsMode() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/kept.caf"
        #expect(try Command.run(["convert", folder + "/a.wav", output]).status == 0)
        #expect(chmod(output, 0o640) == 0)
        #expect(try Command.run(["convert", "-d", "ima4", folder + "/a.wav", output]).status == 0)
        var info = stat()
        #expect(stat(output, &info) == 0 && info.st_mode & 0o777 == 0o640)
    }

    /// `afkit convert IN - >> IN`: standard output that is the input is refused before a byte is read.
    @Test func standardOutputThatIsTheInputIsRefused() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.caf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\"$0\" convert -f caff \"$1\" - >> \"$1\"", Command.executable, folder + "/a.caf"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 2, "\(message)")
        #expect(message.contains("is standard output"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.caf")) == before)
    }
}
