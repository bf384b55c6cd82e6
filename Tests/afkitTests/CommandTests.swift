import AudioContainers
import AudioFormats
import Foundation
import LoopbackServers
import Testing

/// Runs the built `afkit` binary and checks what the contract promises: stdout, exit status, JSON.
struct Command {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures").path

    /// The `afkit` binary beside this test bundle (SwiftPM builds both into the same folder).
    static let executable: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("afkit")
                .path,
            URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
                .deletingLastPathComponent().appendingPathComponent("afkit").path,
            packageRoot.appendingPathComponent(".build/debug/afkit").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[2]
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = URL(fileURLWithPath: fixtures)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Standard error is drained on its own thread, so a long one cannot fill its pipe and stall the child.
        nonisolated(unsafe) var errData = Data()
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "afkit must never die by a signal")
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Another process holding `path` locked (`flock`, as a live afkit holds its temporaries) until it is
    /// terminated; returned once the lock is taken (a non-blocking attempt of our own fails), within 10 s.
    static func holdLock(on path: String) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [path, "sleep", "60"]
        try holder.run()
        for _ in 0..<1000 {
            let probe = Process()
            probe.executableURL = holder.executableURL
            probe.arguments = ["-n", path, "true"]
            try probe.run()
            probe.waitUntilExit()
            if probe.terminationStatus != 0 { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return holder
    }
}

@Suite struct InfoCommandTests {
    @Test func jsonHasTheContractFieldsInOrder() throws {
        let result = try Command.run(["info", "--json", "wav/pcm-s16-stereo.wav", "caf/sndfile-alac16.caf"])
        #expect(result.status == 0)
        let array = try #require(result.json as? [[String: Any]])
        #expect(array.count == 2)
        let wav = array[0]
        #expect(wav["path"] as? String == "wav/pcm-s16-stereo.wav")
        #expect(wav["container"] as? String == "wav")
        let format = try #require(wav["format"] as? [String: Any])
        #expect(format["id"] as? String == "lpcm")
        #expect(format["sampleRate"] as? Int == 22050)
        #expect(format["channels"] as? Int == 2)
        #expect(format["bitsPerChannel"] as? Int == 16)
        #expect(format["framesPerPacket"] as? Int == 1)
        #expect(format["bytesPerPacket"] as? Int == 4)
        #expect(format["bytesPerFrame"] as? Int == 4)
        #expect(format["flags"] as? Int == 12)
        #expect(wav["packetCount"] as? Int == 1103)
        #expect(wav["frameCount"] as? Int == 1103)
        #expect(wav["primingFrames"] as? Int == 0)
        #expect(wav["remainderFrames"] as? Int == 0)
        #expect(wav["dataByteCount"] as? Int == 4412)
        #expect(wav["bitRate"] as? Int == 22050 * 32)
        #expect(wav["maximumPacketSize"] as? Int == 4)
        #expect(abs((wav["durationSeconds"] as? Double ?? 0) - 1103.0 / 22050) < 1e-12)
        // Field order as the contract lists it.
        let keys = [
            "\"path\"", "\"container\"", "\"format\"", "\"packetCount\"", "\"primingFrames\"",
            "\"remainderFrames\"", "\"frameCount\"", "\"durationSeconds\"", "\"dataOffset\"", "\"dataByteCount\"",
            "\"bitRate\"", "\"maximumPacketSize\"",
        ]
        let firstObject = String(
            result.stdout.prefix(while: { $0 != "}" })
                + result.stdout.dropFirst(
                    result.stdout.prefix(while: { $0 != "}" }).count
                ).prefix(400))
        let positions = keys.map { firstObject.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())

        let alac = array[1]
        // ALACSpecificConfig: 24 bytes, opening with frameLength 4096, ending with the rate 44100.
        let cookie = try #require(alac["magicCookie"] as? String)
        #expect(cookie.count == 48 && cookie.hasPrefix("00001000") && cookie.hasSuffix("0000ac44"))
        #expect(alac["frameCount"] as? Int == 8820)
        #expect(alac["remainderFrames"] as? Int == 3 * 4096 - 8820)
        #expect((alac["format"] as? [String: Any])?["bytesPerPacket"] as? Int == 0)
    }

    @Test func imaADPCMInWAVPrintsTheHexCode() throws {
        let result = try Command.run(["info", "--json", "wav/ima-adpcm-mono-sox.wav"])
        let object = try #require((result.json as? [[String: Any]])?.first)
        let format = try #require(object["format"] as? [String: Any])
        #expect(format["id"] as? String == "0x6D730011")
        #expect(format["bytesPerPacket"] as? Int == 256)
        #expect(format["framesPerPacket"] as? Int == 505)
        #expect(object["frameCount"] as? Int == 1103)
    }

    @Test func aFileThatCannotBeParsedIsAnErrorObjectAndStatus1() throws {
        let junk = NSTemporaryDirectory() + "afkit-junk-\(getpid()).wav"
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8).write(to: URL(fileURLWithPath: junk))
        defer { try? FileManager.default.removeItem(atPath: junk) }
        let result = try Command.run(["info", "--json", "caf/ulaw-mono.caf", junk])
        #expect(result.status == 1)
        let array = try #require(result.json as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array[0]["container"] as? String == "caf")
        let error = try #require(array[1]["error"] as? [String: Any])
        #expect(error["code"] as? String == "eof!")
        #expect(error["offset"] as? Int == 12)
        #expect((error["message"] as? String)?.hasPrefix("wav:") == true)
        #expect(array[1]["path"] as? String == junk)
    }

    /// What a worker image must provide: every engine named with the version this process loads,
    /// those loaded on use (libavcodec, libcurl) loaded now to say it.
    @Test func versionVerboseNamesEachEngineAsLoaded() throws {
        let short = try Command.run(["--version"])
        let result = try Command.run(["--version", "--verbose"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "afkit " + short.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let engines = [
            "libsndfile", "libmp3lame", "libfaad2", "libsoxr", "libsamplerate", "libebur128", "libFLAC", "libopus",
            "libvorbis", "libavcodec", "libcurl",
        ]
        #expect(lines.dropFirst().map { String($0.prefix { $0 != " " }) } == engines)
        for line in lines.dropFirst() {
            #expect(!line.contains("not installed") && line.contains { $0.isNumber }, "\(line)")
        }
        #expect(lines.last?.hasSuffix("(loaded on use)") == true)
        #expect(lines.first { $0.hasPrefix("libavcodec") }?.hasSuffix("(loaded on use)") == true)
    }

    /// `convert IN -` with a terminal as standard output is refused with a hint (exit 2), never a
    /// screenful of binary; through a pipe it writes the file as always.
    @Test func binaryOutputToATerminalIsRefused() throws {
        let source = Command.fixtures + "/wav/pcm-s16-stereo.wav"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(Command.executable)' convert -f caff '\(source)' -", "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(text)")
        #expect(text.contains("will not write binary audio to a terminal"), "\(text)")
        #expect(!text.contains("caff"), "no audio reached the terminal")
        let piped = try Command.run(["convert", "-f", "caff", "wav/pcm-s16-stereo.wav", "-"])
        #expect(piped.status == 0 && piped.stdout.utf8.starts(with: Array("caff".utf8)))
    }

    /// `validate --help` and the unknown-profile error name every built-in profile (they named three of five).
    @Test func everyProfileIsListed() throws {
        let help = try Command.run(["validate", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        let unknown = try Command.run(["validate", "--profile", "nope", "wav/pcm-s16-stereo.wav"])
        #expect(unknown.status == 2)
        for name in ["system-sound", "simultaneous-sfx", "music", "game-sfx", "music-streaming"] {
            #expect(help.contains(name), "help lacks \(name)")
            #expect(unknown.stderr.contains(name), "the error lacks \(name): \(unknown.stderr)")
        }
    }

    @Test func usageErrorsExit2() throws {
        #expect(try Command.run(["info", "no-such-file.wav"]).status == 2)
        #expect(try Command.run(["info", "--bogus", "wav/pcm-u8-mono.wav"]).status == 2)
        #expect(try Command.run(["info"]).status == 2)
        #expect(try Command.run(["frobnicate"]).status == 2)
        #expect(try Command.run(["packets", "--chunk-size", "0", "wav/pcm-u8-mono.wav"]).status == 2)
        let usage = try Command.run(["info", "no-such-file.wav"])
        #expect(usage.stdout.isEmpty)
        #expect(!usage.stderr.isEmpty)
    }

    @Test func traceGoesToStandardErrorOnly() throws {
        let plain = try Command.run(["info", "wav/list-info.wav"])
        let traced = try Command.run(["info", "--trace", "wav/list-info.wav"])
        #expect(traced.stdout == plain.stdout)
        #expect(traced.stderr.contains("'LIST'"))
        #expect(traced.stderr.contains("'data'"))
    }

    @Test func helpAndVersionExit0() throws {
        let help = try Command.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("info"))
        #expect(help.stdout.contains("packets"))
        #expect(try Command.run(["info", "--help"]).status == 0)
    }

    @Test func textOutputSaysWhenAFileIsTruncated() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/aiff/pcm-s16-stereo.aiff"))
        let path = NSTemporaryDirectory() + "afkit-cut-\(getpid()).aiff"
        try bytes.prefix(bytes.count - 101).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = try Command.run(["info", path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("truncated"))
        let whole = try Command.run(["info", "aiff/pcm-s16-stereo.aiff"])
        #expect(!whole.stdout.contains("truncated"))
        #expect(whole.stdout.contains("Audio packets:          1103"))
    }
}

@Suite struct PacketsCommandTests {
    @Test func constantPacketsAreSummarized() throws {
        let result = try Command.run(["packets", "--json", "caf/ima4-stereo.caf"])
        #expect(result.status == 0)
        let object = try #require(result.json as? [String: Any])
        #expect(object["constantPacketSize"] as? Int == 68)
        #expect(object["packetCount"] as? Int == 35)
        #expect((object["properties"] as? [String: Any])?["container"] as? String == "caf")
    }

    @Test func variablePacketsAreListedWithAbsoluteOffsets() throws {
        let result = try Command.run(["packets", "--json", "caf/sndfile-alac16.caf"])
        let object = try #require(result.json as? [String: Any])
        let packets = try #require(object["packets"] as? [[String: Int]])
        #expect(packets.count == 3)
        let sidecar = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/caf/sndfile-alac16.caf.json"))
        let probe = try #require(
            (try JSONSerialization.jsonObject(with: sidecar) as? [String: Any])?["ffprobe"] as? [String: Any])
        #expect(packets[0]["offset"] == probe["firstPacketPosition"] as? Int)
        #expect(packets.allSatisfy { $0["frames"] == 4096 })
        for (a, b) in zip(packets, packets.dropFirst()) { #expect(a["offset"]! + a["size"]! == b["offset"]!) }
    }

    @Test(arguments: ["caf/sndfile-alac16.caf", "wav/list-info.wav", "aiff/ima4-stereo.aifc"])
    func outputDoesNotDependOnChunkSize(_ name: String) throws {
        let reference = try Command.run(["packets", "--json", name])
        #expect(reference.status == 0)
        for size in ["1", "7", "65536"] {
            let other = try Command.run(["packets", "--json", "--chunk-size", size, name])
            #expect(other.stdout == reference.stdout, "chunk size \(size)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/" + name))
        let piped = try Command.run(["packets", "--json", "--chunk-size", "100", "-"], stdin: data)
        #expect(piped.stdout == reference.stdout)
    }

    @Test func aBrokenStreamIsStatus1() throws {
        let result = try Command.run(["packets", "--json", "-"], stdin: Data("not audio, just text".utf8))
        #expect(result.status == 1)
        let object = try #require(result.json as? [String: Any])
        #expect((object["error"] as? [String: Any])?["code"] as? String == "typ?")
    }
}

@Suite struct StreamCommandTests {
    @Test func mp3InfoReportsGaplessFields() throws {
        let result = try Command.run(["info", "--json", "mp3/lame-vbr-v5.mp3", "adts/aac-lc-48k-mono.aac"])
        #expect(result.status == 0)
        let array = try #require(result.json as? [[String: Any]])
        #expect(array[0]["container"] as? String == "mp3")
        #expect((array[0]["format"] as? [String: Any])?["id"] as? String == ".mp3")
        #expect(array[0]["primingFrames"] as? Int == 576 + 529)
        #expect(array[0]["remainderFrames"] as? Int == 1242 - 529)
        #expect(array[0]["frameCount"] as? Int == 66150)
        #expect(array[0]["packetCount"] as? Int == 59)
        #expect(array[1]["container"] as? String == "adts")
        #expect(array[1]["magicCookie"] as? String == "1188")
        #expect((array[1]["format"] as? [String: Any])?["id"] as? String == "aac ")
    }

    @Test func icyMetadataOnTheCommandLine() throws {
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/mp3/lame-vbr-v5.mp3")))
        // A metadata block after every 4096 audio bytes: "One" in the first three, then "Two".
        var stream: [UInt8] = []
        for (block, start) in stride(from: 0, to: audio.count, by: 4096).enumerated() {
            let end = min(start + 4096, audio.count)
            stream += audio[start..<end]
            guard end - start == 4096 else { break }
            let text = Array("StreamTitle='\(block < 3 ? "One" : "Two")';".utf8)
            stream.append(2)
            stream += text + [UInt8](repeating: 0, count: 32 - text.count)
        }
        let plain = try Command.run(["packets", "--json", "-"], stdin: Data(audio))
        let result = try Command.run(
            ["packets", "--json", "--icy-metaint", "4096", "--chunk-size", "1000", "-"],
            stdin: Data(stream))
        #expect(result.status == 0)
        let object = try #require(result.json as? [String: Any])
        let titles = try #require(object["icyMetadata"] as? [[String: Any]])
        #expect(titles.map { $0["title"] as? String } == ["One", "Two"])
        #expect(titles.map { $0["offset"] as? Int } == [4096, 4096 * 4])
        #expect(try Command.run(["packets", "--icy-metaint", "0", "-"], stdin: Data(stream)).status == 2)
        #expect((object["packets"] as? [Any])?.count == ((plain.json as? [String: Any])?["packets"] as? [Any])?.count)
    }

    @Test func truncatedMP3SaysSo() throws {
        let result = try Command.run(["info", "mp3/hostile-truncated-last-frame.mp3"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("truncated"))
    }
}

@Suite struct ValidateCommandTests {
    @Test func exitStatusAndFormats() throws {
        let good = try Command.run(["validate", "wav/pcm-s16-stereo.wav", "caf/ima4-stereo.caf"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("2 files checked with profile 'system-sound': 2 passed, 0 failed"))
        let bad = try Command.run(["validate", "--format", "json", "wav/pcm-s16-stereo.wav", "mp3/lame-vbr-v5.mp3"])
        #expect(bad.status == 1)
        let object = try #require(bad.json as? [String: Any])
        #expect(object["profile"] as? String == "system-sound")
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 2)
        let violations = try #require(files[1]["violations"] as? [[String: String]])
        #expect(violations.map { $0["rule"] } == ["container", "data-format"])
        #expect(violations.allSatisfy { $0["severity"] == "error" && !($0["message"] ?? "").isEmpty })
        #expect((object["summary"] as? [String: Int])?["failed"] == 1)
        let junit = try Command.run(["validate", "--format", "junit", "mp3"])
        #expect(junit.status == 1)
        #expect(junit.stdout.hasPrefix("<?xml"))
        #expect(
            try Command.run(["validate", "--format", "github", "wav/ima-adpcm-mono-sox.wav"]).stdout.contains(
                "::warning file="))
    }

    @Test func directoriesAreSearchedRecursively() throws {
        let result = try Command.run(["validate", "--format", "json", "--profile", "music", "adts"])
        let files = try #require((result.json as? [String: Any])?["files"] as? [[String: Any]])
        // Every .aac and .caf file below adts/ (not the .json sidecars).
        #expect(files.count == 9)
        #expect(files.allSatisfy { ($0["path"] as? String)?.hasPrefix("adts/") == true })
    }

    @Test func usageErrors() throws {
        #expect(try Command.run(["validate", "no-such-dir"]).status == 2)
        #expect(try Command.run(["validate", "--profile", "podcast", "wav"]).status == 2)
        #expect(try Command.run(["validate", "--format", "yaml", "wav"]).status == 2)
    }
}

@Suite struct ConvertCommandTests {
    @Test func afconvertSpelling() throws {
        let folder = try Loopback.temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run([
            "convert", "-f", "caff", "-d", "ima4@22050", "-c", "1", "wav/pcm-s16-stereo.wav",
            folder + "/out.sound",
        ])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let info = try Command.run(["info", "--json", folder + "/out.sound"])
        let object = try #require((info.json as? [[String: Any]])?.first)
        #expect(object["container"] as? String == "caf")
        let format = try #require(object["format"] as? [String: Any])
        #expect(
            format["id"] as? String == "ima4" && format["sampleRate"] as? Int == 22050
                && format["channels"] as? Int == 1)
        #expect(object["frameCount"] as? Int == 1103)
        // From the extension, with a preset.
        #expect(
            try Command.run(["convert", "--preset", "pcm", "mp3/lame-vbr-v5.mp3", folder + "/song.caf"]).status == 0)
        #expect(try Command.run(["convert", "-d", "BEI24", "aiff/sowt.aifc", folder + "/x.aif"]).status == 0)
    }

    #if os(Linux)
        /// libavcodec (and the hundred libraries behind it) is loaded only by a conversion that uses one of its
        /// codecs: the dynamic loader's log (glibc's LD_DEBUG) names it for an AAC output and not for IMA4.
        @Test func libavcodecLoadsOnlyWhenUsed() throws {
            let folder = try Loopback.temporaryFolder("cli")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let log = ["LD_DEBUG": "files"]
            let ima4 = try Command.run(
                ["convert", "--preset", "sfx", "wav/pcm-s16-stereo.wav", folder + "/a.caf"], environment: log)
            #expect(ima4.status == 0)
            #expect(ima4.stderr.contains("file=libsndfile"), "the loader's log is there")
            #expect(!ima4.stderr.contains("libavcodec"))
            let aac = try Command.run(
                ["convert", "-d", "aac", "wav/pcm-s16-stereo.wav", folder + "/b.m4a"], environment: log)
            #expect(aac.status == 0)
            #expect(aac.stderr.contains("file=libavcodec.so") && aac.stderr.contains("dynamically loaded"))
        }

        /// Whether this process may hide a file in a mount namespace of its own (root, with the capability).
        static let canHideLibraries: Bool = {
            guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["-m", "/bin/sh", "-c", "mount --bind /dev/null /dev/null"]
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }()

        /// libfaad2 (GPL) is loaded on use, not linked: with it hidden, AAC-LC at 44.1 kHz still decodes (by
        /// libavcodec) and MP3 too, while a 22.05 kHz AAC stream, which only libfaad2 is given, fails naming it.
        @Test(.enabled(if: canHideLibraries)) func decodesWithoutLibfaad2() throws {
            let folder = try Loopback.temporaryFolder("cli")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let status = try Self.runHiding(
                "libfaad[.]so[.]2", in: folder,
                """
                ldd "$0" | grep -q libfaad && exit 89
                "$0" convert adts/aac-lc-44k-stereo.aac "$1/a.wav" || exit 91
                "$0" convert mp3/lame-vbr-v5.mp3 "$1/b.wav" || exit 92
                "$0" convert adts/aac-lc-22k-stereo.aac "$1/c.wav" 2> "$1/error" && exit 93
                exit 0
                """)
            #expect(status == 0)
            let error = (try? String(contentsOfFile: folder + "/error", encoding: .utf8)) ?? ""
            #expect(error.contains("libfaad2") && error.contains("cannot be loaded"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/c.wav"))
        }

        /// Runs `script` with `sh` (`$0` afkit, `$1` `folder`, in the fixtures) in a private mount namespace in
        /// which an empty file lies over the library `ldconfig` names by `pattern`; returns its exit status (90:
        /// the library was not found to hide).
        static func runHiding(_ pattern: String, in folder: String, _ script: String) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.currentDirectoryURL = URL(fileURLWithPath: Command.fixtures)
            process.arguments = [
                "-m", "/bin/sh", "-c",
                """
                PATH="$PATH:/usr/sbin:/sbin"
                library=$(ldconfig -p | awk '/\(pattern) /{print $NF; exit}')
                [ -n "$library" ] && mount --bind /dev/null "$(readlink -f "$library")" || exit 90
                \(script)
                """, Command.executable, folder,
            ]
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// With libavcodec hidden (a private mount namespace puts an empty file over it), MP3 and AAC still
        /// decode, by libmp3lame and libfaad2, to as many frames as libavcodec gives, and an AAC output fails
        /// with a message naming the missing library.
        @Test(.enabled(if: canHideLibraries)) func decodesWithoutLibavcodec() throws {
            let folder = try Loopback.temporaryFolder("cli")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let status = try Self.runHiding(
                "libavcodec[.]so[.][0-9]+", in: folder,
                """
                "$0" convert mp3/lame-vbr-v5.mp3 "$1/a.wav" || exit 91
                "$0" convert adts/aac-lc-44k-stereo.aac "$1/b.wav" || exit 92
                "$0" convert -d aac wav/pcm-s16-stereo.wav "$1/c.m4a" 2> "$1/error" && exit 93
                exit 0
                """)
            #expect(status == 0)
            let error = (try? String(contentsOfFile: folder + "/error", encoding: .utf8)) ?? ""
            #expect(error.contains("libavcodec") && error.contains("cannot be loaded"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/c.m4a"))
            // The same frames as libavcodec's decode of each.
            for (source, output) in [("mp3/lame-vbr-v5.mp3", "a.wav"), ("adts/aac-lc-44k-stereo.aac", "b.wav")] {
                let frames = { (path: String) throws -> Int? in
                    ((try Command.run(["info", "--json", path]).json as? [[String: Any]])?.first?["frameCount"] as? Int)
                }
                #expect(try Command.run(["convert", source, folder + "/with-" + output]).status == 0)
                let expected = try #require(try frames(folder + "/with-" + output))
                #expect(expected > 60000)
                #expect(try frames(folder + "/" + output) == expected, "\(source)")
            }
        }
    #endif

    /// AAC and ALAC with afconvert's -b, -q and -s; a rate AAC cannot hold is resampled with a note.
    @Test func compressedOutputs() throws {
        let folder = try Loopback.temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        let aac = try Command.run([
            "convert", "-d", "aac", "-b", "96000", "-s", "1", "-q", "20", source, folder + "/a.caf",
        ])
        #expect(aac.status == 0)
        #expect(aac.stdout.isEmpty)
        let info = try #require(
            (try Command.run(["info", "--json", folder + "/a.caf"]).json as? [[String: Any]])?.first)
        #expect((info["format"] as? [String: Any])?["id"] as? String == "aac ")
        #expect(info["primingFrames"] as? Int == 1024)
        let source44 = try #require((try Command.run(["info", "--json", source]).json as? [[String: Any]])?.first)
        #expect(info["frameCount"] as? Int == source44["frameCount"] as? Int)
        let resampled = try Command.run(["convert", "-d", "aac@11000", source, folder + "/b.caf"])
        #expect(resampled.status == 0)
        #expect(resampled.stderr.contains("11025"))
        for (arguments, name) in [
            (["-d", "alac"], "c.m4a"), (["--preset", "music"], "d.m4a"), (["--preset", "music"], "e.aac"),
            (["--preset", "lossless"], "f.caf"), (["-f", "m4af", "-d", "aac"], "g.m4a"), (["-f", "adts"], "h.aac"),
            (["-f", "flac"], "i.flac"), (["-f", "opus"], "j.opus"), (["-d", "flac"], "k.caf"),
            (["-d", "opus"], "l.caf"),
            (["--preset", "voice"], "m.caf"), ([], "n.ogg"), (["-f", "ogg"], "o.ogg"), (["-f", "opus"], "p.ogg"),
            (["-s", "3", "-q", "99"], "q.mp3"),
        ] {
            #expect(
                try Command.run(["convert"] + arguments + [source, folder + "/" + name]).status == 0,
                "\(arguments) \(name)")
        }
        #expect(try Command.run(["convert", "-d", "aac", "-s", "4", source, folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["convert", "-d", "aac", "-q", "128", source, folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["convert", "-d", "alac", source, folder + "/x.aac"]).status == 2)
        #expect(try Command.run(["convert", "--preset", "lossless", source, folder + "/x.mp3"]).status == 2)
        // FLAC and Opus go in their own files or CAF; the output is named by what `-f` writes.
        #expect(try Command.run(["convert", "-d", "flac", source, folder + "/x.wav"]).status == 2)
        #expect(try Command.run(["convert", "-d", "opus", source, folder + "/x.m4a"]).status == 2)
        #expect(try Command.run(["convert", "-f", "opus", source, folder + "/x.flac"]).status == 2)
        let intoFLAC = try Command.run(["convert", "-d", "aac", source, folder + "/x.flac"])
        #expect(intoFLAC.status == 2 && intoFLAC.stderr.contains("use flac"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.caf"))
        // .ogg and -f ogg: Vorbis at the source's rate; -f opus: Opus, whatever the name; -s 3: VBR MP3, gapless.
        for (name, container, id) in [
            ("i.flac", "flac", "flac"), ("j.opus", "ogg", "opus"), ("l.caf", "caf", "opus"), ("n.ogg", "ogg", "vorb"),
            ("o.ogg", "ogg", "vorb"), ("p.ogg", "ogg", "opus"), ("q.mp3", "mp3", ".mp3"),
        ] {
            let written = try #require(
                (try Command.run(["info", "--json", folder + "/" + name]).json as? [[String: Any]])?.first)
            #expect(written["container"] as? String == container)
            #expect((written["format"] as? [String: Any])?["id"] as? String == id)
            if ["flac", "vorb", ".mp3"].contains(id) {
                #expect(written["frameCount"] as? Int == source44["frameCount"] as? Int, "\(name)")
            } else {
                #expect((written["format"] as? [String: Any])?["sampleRate"] as? Double == 48000)
            }
        }
    }

    @Test func failuresAndUsage() throws {
        let folder = try Loopback.temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try Command.run(["convert", "no-such.wav", folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["convert", "-d", "LEI17", "wav/pcm-u8-mono.wav", folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["convert", "-f", "MPG3", "wav/pcm-u8-mono.wav", folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["convert", "--preset", "loud", "wav/pcm-u8-mono.wav", folder + "/x.caf"]).status == 2)
        // Wave64 is read, not written.
        #expect(try Command.run(["convert", "wav/pcm-u8-mono.wav", folder + "/x.w64"]).status == 2)
        // A format the container cannot hold is a usage error that says what fits, and leaves nothing.
        let failed = try Command.run(["convert", "-d", "ima4", "wav/pcm-u8-mono.wav", folder + "/x.wav"])
        #expect(failed.status == 2)
        #expect(failed.stderr.contains("ima-adpcm"))
        // So is a name that disagrees with -f or the preset.
        let disagreeing = try Command.run(["convert", "-f", "caff", "wav/pcm-u8-mono.wav", folder + "/x.wav"])
        #expect(disagreeing.status == 2)
        #expect(disagreeing.stderr.contains(".caf"))
        let presetName = try Command.run(["convert", "--preset", "sfx", "wav/pcm-u8-mono.wav", folder + "/x.wav"])
        #expect(presetName.status == 2)
        #expect(presetName.stderr.contains(".caf"))
        #expect(try Command.run(["convert", "-d", "aac", "wav/pcm-u8-mono.wav", folder + "/x.aif"]).status == 2)
        // A bad value says why and what fits; a negative number is a value out of range, not a missing one.
        let unknown = try Command.run(["convert", "-d", "foo", "wav/pcm-u8-mono.wav", folder + "/x.caf"])
        #expect(unknown.status == 2 && unknown.stderr.contains("LEI16") && unknown.stderr.contains("opus"))
        let zeroRate = try Command.run(["convert", "-d", "LEI16@0", "wav/pcm-u8-mono.wav", folder + "/x.caf"])
        #expect(zeroRate.status == 2 && zeroRate.stderr.contains("above 0"))
        let negative = try Command.run(["convert", "-c", "-1", "wav/pcm-u8-mono.wav", folder + "/x.caf"])
        #expect(negative.status == 2 && negative.stderr.contains("1 to 64"))
        #expect(try Command.run(["convert", "-b", "-5", "wav/pcm-u8-mono.wav", folder + "/x.caf"]).status == 2)
        #expect(try Command.run(["batch", "--preset", "sfx", "--jobs", "-1", "--out", folder, "wav"]).status == 2)
        // `-d 0` of a codec whose packets cannot be copied is found once the source is read: still usage.
        let copy = try Command.run(["convert", "-d", "0", "caf/ima4-mono.caf", folder + "/x.caf"])
        #expect(copy.status == 2 && copy.stderr.contains("-d 0"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? ["?"]).isEmpty)
        // A failure found while converting (a source that cannot be read) exits 1 and leaves nothing.
        let unreadable = folder + "/junk.wav"
        try Data("RIFF\u{0}\u{0}".utf8).write(to: URL(fileURLWithPath: unreadable))
        let broken = try Command.run(["convert", unreadable, folder + "/x.caf"])
        #expect(broken.status == 1)
        #expect(!broken.stderr.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["junk.wav"])
        // Codec options the output has no use for are said, not silently ignored.
        let unused = try Command.run(["convert", "-b", "64000", "-s", "0", "wav/pcm-u8-mono.wav", folder + "/y.wav"])
        #expect(unused.status == 0 && unused.stderr.contains("-b applies") && unused.stderr.contains("-s applies"))
    }

    @Test func batchMirrorsAndSkips() throws {
        let folder = NSTemporaryDirectory() + "afkit-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = try FileManager.default.contentsOfDirectory(atPath: Command.fixtures + "/aiff")
            .filter { $0.hasSuffix(".aiff") || $0.hasSuffix(".aifc") }.count
        #expect(sources >= 12)
        let first = try Command.run(["batch", "--preset", "sfx", "--out", folder, "aiff"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("\(sources) files: \(sources) converted, 0 up to date, 0 failed"))
        #expect(FileManager.default.fileExists(atPath: folder + "/ima4-stereo.caf"))
        let second = try Command.run(["batch", "--preset", "sfx", "--out", folder, "aiff"])
        #expect(second.stdout.contains("\(sources) files: 0 converted, \(sources) up to date, 0 failed"))
        #expect(try Command.run(["batch", "--preset", "sfx", "--out", folder, "nowhere"]).status == 2)
    }
}

extension ConvertCommandTests {
    /// What afkit writes as Ogg Vorbis (and as VBR MP3), every command that reads reads alike: `info`'s frame
    /// count is the source's, `validate` decodes that many, `packets` lists `info`'s packets, `waveform` draws
    /// that many frames, `convert` back to WAV writes that many, and `hls` takes it as a source.
    @Test(arguments: ["speech.ogg", "speech.mp3"])
    func whatIsWrittenEveryCommandReads(_ name: String) throws {
        let folder = try Loopback.temporaryFolder("written-read")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "signals/speech.wav"
        let output = folder + "/" + name
        #expect(try Command.run(["convert", "-s", "3", source, output]).status == 0)
        func frames(_ path: String) throws -> Int? {
            (try Command.run(["info", "--json", path]).json as? [[String: Any]])?.first?["frameCount"] as? Int
        }
        let expected = try #require(try frames(source))
        #expect(try frames(output) == expected)
        let info = try #require((try Command.run(["info", "--json", output]).json as? [[String: Any]])?.first)
        let validate = try Command.run(["validate", "--profile", "music", "--format", "json", output])
        let file = (validate.json as? [String: Any]).flatMap { ($0["files"] as? [[String: Any]])?.first }
        #expect((file?["audio"] as? [String: Any])?["frames"] as? Int == expected, "\(validate.stdout)")
        let packets = try Command.run(["packets", "--json", output]).json as? [String: Any]
        #expect((packets?["packets"] as? [Any])?.count == info["packetCount"] as? Int)
        #expect(try Command.run(["waveform", output, "-o", folder + "/w.dat", "--zoom", "1"]).status == 0)
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/w.dat")).prefix(24))
        #expect(header.count == 24 && header[16..<20].reversed().reduce(0) { $0 << 8 | Int($1) } == expected)
        #expect(try Command.run(["convert", output, folder + "/back.wav"]).status == 0)
        #expect(try frames(folder + "/back.wav") == expected)
        #expect(try Command.run(["hls", output, "--out", folder + "/hls"]).status == 0)
    }
}

@Suite struct KilledConversionTests {
    /// A conversion killed part-way leaves no output file (only its hidden temporary, never the name asked for).
    @Test func killedConversionLeavesNoOutput() throws {
        let folder = NSTemporaryDirectory() + "afkit-kill-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/long.wav"
        try noiseWAV(input, seconds: 60)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.executable)
        process.arguments = ["convert", "-d", "ima4", input, folder + "/out.caf"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.0)
        #expect(process.isRunning)
        process.interrupt()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.caf"))
    }
}

/// MPEG-4 files through the command, as the contract's additions say.
@Suite struct MP4CommandTests {
    static func ffprobePackets(_ path: String) throws -> [[Int]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/" + path + ".json"))
        let sidecar = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(sidecar["ffprobePackets"] as? [[Int]])
    }

    @Test func infoReportsContainerLayersAndLayout() throws {
        let result = try Command.run([
            "info", "--json", "mp4/aac-moov-last.m4a", "mp4/he-aac-v2-explicit.m4a",
            "mp4/aac-fragmented.mp4",
        ])
        #expect(result.status == 0)
        let files = try #require(result.json as? [[String: Any]])
        #expect(files.map { $0["container"] as? String } == ["m4a", "m4a", "mp4"])
        #expect(files[0]["formatList"] == nil)
        let layers = try #require(files[1]["formatList"] as? [[String: Any]])
        #expect(layers.map { $0["id"] as? String } == ["aacp", "aach", "aac "])
        #expect((files[1]["format"] as? [String: Any])?["id"] as? String == "aacp")
        let text = try Command.run(["info", "mp4/aac-moov-last.m4a", "mp4/aac-faststart.m4a"]).stdout
        #expect(text.contains("not optimized"))
        #expect(text.components(separatedBy: "Layout:").count == 3)
    }

    /// Chapters past the 1,000 read (FFmpeg's 2,204, tags/many-chapters.m4a) are said in both forms: a warning in
    /// the text, and a `notRead` member in the JSON (what, how many, of what); a file with nothing left has none.
    @Test func infoSaysWhatItLeftUnread() throws {
        let json = try Command.run(["info", "--json", "tags/many-chapters.m4a", "mp4/aac-moov-last.m4a"])
        #expect(json.status == 0)
        let files = try #require(json.json as? [[String: Any]])
        let left = try #require(files[0]["notRead"] as? [[String: Any]])
        #expect(left.count == 1)
        #expect(left.first?["what"] as? String == "chapter track" && left.first?["count"] as? Int == 1204)
        #expect(left.first?["unit"] as? String == "chapters")
        #expect((files[0]["chapters"] as? [Any])?.count == 1000)
        #expect(files[1]["notRead"] == nil)
        let text = try Command.run(["info", "tags/many-chapters.m4a"]).stdout
        #expect(
            text.contains(
                "Warning:                mp4: the chapter track holds 2204 chapters; the first 1000 are read, "
                    + "1204 more chapters not read"), "\(text.suffix(300))")
    }

    /// The loudness an M4A file states (`trak/udta/ludt`, written here by afkit's writer) in both forms, apart from
    /// what `--loudness` measures; a file that states none has neither.
    @Test func infoShowsTheLoudnessAFileStates() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "afkit-info-loudness-\(UUID().uuidString).m4a"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = AudioFileWriterOptions()
        options.magicCookie = [0x11, 0x90]
        options.loudnessInfo = LoudnessInfo(
            integratedLoudness: -16.25, loudnessRange: 5.5, truePeak: -1.03125, samplePeak: -1.5,
            measurementSystem: .ebuR128)
        let format = StreamDescription(
            sampleRate: 48000, formatID: .aac, formatFlags: [], bytesPerPacket: 0, framesPerPacket: 1024,
            bytesPerFrame: 0, channelsPerFrame: 2, bitsPerChannel: 0)
        let writer = try AudioFileWriter(path: path, fileType: .m4a, format: format, options: options)
        try writer.writePackets(
            [UInt8](repeating: 1, count: 40),
            descriptions: (0..<4).map {
                PacketDescription(startOffset: Int64($0 * 10), variableFramesInPacket: 1024, dataByteSize: 10)
            })
        try writer.close()
        let json = try Command.run(["info", "--json", path, "mp4/aac-faststart.m4a"])
        #expect(json.status == 0)
        let files = try #require(json.json as? [[String: Any]])
        let stated = try #require(files[0]["loudnessInfo"] as? [String: Any])
        #expect(stated["integrated"] as? Double == -16.25)
        #expect(stated["range"] as? Double == 5.5)
        #expect(stated["truePeak"] as? Double == -1.03125)
        #expect(stated["samplePeak"] as? Double == -1.5)
        #expect(stated["anchor"] == nil)
        #expect(stated["measurementSystem"] as? String == "EBU R128")
        #expect(stated["reliability"] as? String == "accurate")
        #expect(files[0]["loudness"] == nil)
        #expect(files[1]["loudnessInfo"] == nil)
        let text = try Command.run(["info", path]).stdout
        #expect(
            text.contains(
                "\nLoudness info:          -16.25 LUFS integrated, range 5.5 LU, true peak -1.03125 dBTP, sample peak "
                    + "-1.5 dBFS (as the file states: EBU R128, accurate)\n"), "\(text)")
        #expect(!(try Command.run(["info", "mp4/aac-faststart.m4a"]).stdout.contains("Loudness info:")))
    }

    /// A FILE whose moov follows mdat: the command answers the parser's seek requests and lists every
    /// packet; the same bytes on standard input are held (well under 64 MiB) and give the same packets.
    @Test func packetsOfAFileWhoseMovieComesLast() throws {
        let expected = try Self.ffprobePackets("mp4/aac-moov-last.m4a")
        let file = try Command.run(["packets", "--json", "--chunk-size", "1000", "mp4/aac-moov-last.m4a"])
        #expect(file.status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/mp4/aac-moov-last.m4a"))
        let piped = try Command.run(["packets", "--json", "-"], stdin: bytes)
        #expect(piped.status == 0)
        for result in [file, piped] {
            let packets = try #require((result.json as? [String: Any])?["packets"] as? [[String: Any]])
            #expect(packets.map { [$0["offset"] as? Int ?? -1, $0["size"] as? Int ?? -1] } == expected)
            #expect(packets.allSatisfy { $0["frames"] as? Int == 1024 })
        }
    }

    /// On standard input, which cannot seek, more than 64 MiB of mdat before moov is `optm` at mdat.
    @Test func standardInputGivesUpWithNotOptimized() throws {
        var bytes: [UInt8] = [0, 0, 0, 16] + Array("ftypM4A ".utf8) + [0, 0, 0, 0]
        let mdat = (64 << 20) + 4096
        bytes += [UInt8(mdat >> 24), UInt8(mdat >> 16 & 0xFF), UInt8(mdat >> 8 & 0xFF), UInt8(mdat & 0xFF)]
        bytes += Array("mdat".utf8) + [UInt8](repeating: 0, count: mdat - 8)
        let result = try Command.run(["packets", "--json", "-"], stdin: Data(bytes))
        #expect(result.status == 1)
        let error = try #require((result.json as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "optm")
        #expect(error["offset"] as? Int == 16)
    }

    @Test func validationProfiles() throws {
        let files = ["mp4/aac-faststart.m4a", "mp4/alac-mono-22k.m4a"]
        let systemSound = try Command.run(["validate", "--format", "json"] + files)
        #expect(systemSound.status == 1)
        let reports = try #require((systemSound.json as? [String: Any])?["files"] as? [[String: Any]])
        for report in reports {
            let violations = report["violations"] as? [[String: Any]] ?? []
            #expect(
                violations.contains { $0["rule"] as? String == "container" && $0["severity"] as? String == "error" })
        }
        let music = try Command.run(["validate", "--profile", "music"] + files)
        #expect(music.status == 0, "\(music.stdout)")
    }
}

/// The contract's optional fields for markers, loops and annotations, spelled as it spells them.
@Suite struct MarkerCommandTests {
    @Test func aiffMarkersCommentsInstrumentLoopsAndAnnotations() throws {
        let result = try Command.run(["info", "--json", "markers/sampler.aiff", "caf/alaw-stereo.caf"])
        #expect(result.status == 0)
        let files = try #require(result.json as? [[String: Any]])
        let aiff = files[0]
        let markers = try #require(aiff["markers"] as? [[String: Any]])
        #expect(markers.map { Set($0.keys) } == Array(repeating: ["id", "position", "name"], count: 3))
        #expect(markers.first?["position"] as? Int == 1000)
        let comments = try #require(aiff["comments"] as? [[String: Any]])
        #expect(comments.map { Set($0.keys) } == Array(repeating: ["timeStamp", "marker", "text"], count: 2))
        #expect(comments.map { $0["marker"] as? Int } == [1, 0])
        let instrument = try #require(aiff["instrument"] as? [String: Any])
        #expect(
            Set(instrument.keys) == [
                "baseNote", "detune", "lowNote", "highNote", "lowVelocity", "highVelocity",
                "gain", "sustainLoop", "releaseLoop",
            ])
        let sustain = try #require(instrument["sustainLoop"] as? [String: Any])
        #expect(Set(sustain.keys) == ["playMode", "beginMarker", "endMarker"])
        #expect(sustain["playMode"] as? String == "forward")
        let loops = try #require(aiff["loops"] as? [[String: Any]])
        #expect(
            loops.map { "\($0["start"] ?? "") \($0["end"] ?? "") \($0["playMode"] ?? "")" }
                == ["1000 3000 forward", "3000 3600 pingpong"])
        let metadata = try #require(aiff["metadata"] as? [String: Any])
        #expect(metadata["title"] as? String == "Harp pluck")
        #expect(metadata["artist"] as? String == "afkit tests")
        #expect(metadata["copyright"] as? String == "2026 afkit")
        #expect(metadata["annotations"] as? [String] == ["first note", "second note"])
        // A CAF `chan`: tag, bitmap and descriptions.
        let layout = try #require(files[1]["channelLayout"] as? [String: Any])
        #expect(Set(layout.keys) == ["tag", "bitmap", "descriptions"])
        #expect(layout["descriptions"] is [Any])
    }
}

@Suite struct LoudnessCommandTests {
    /// `info --loudness --json` adds the contract's object; without the flag there is none.
    @Test func loudnessObject() throws {
        let result = try Command.run(["info", "--loudness", "--json", "loudness/steps-pink-8k.wav"])
        #expect(result.status == 0)
        let file = try #require((result.json as? [[String: Any]])?.first)
        let loudness = try #require(file["loudness"] as? [String: Any])
        #expect(Set(loudness.keys) == ["integrated", "range", "truePeak", "samplePeak"])
        #expect(abs((loudness["integrated"] as? Double ?? 0) + 24.8) < 0.06)
        let plain = try Command.run(["info", "--json", "loudness/steps-pink-8k.wav"])
        #expect((plain.json as? [[String: Any]])?.first?["loudness"] == nil)
        let text = try Command.run(["info", "--loudness", "loudness/steps-pink-8k.wav"])
        #expect(text.stdout.contains("Loudness:") && text.stdout.contains("LUFS"))
    }

    /// A click shorter than one 400 ms block has no gated integrated loudness: `info --loudness` reports its
    /// one-block measure (`shortSound`, and in words), the very figure `convert --loudness` normalizes on, so
    /// a click normalized to -18 reads -18 in `info`.
    @Test func shortSoundsReportTheirOneBlockLoudness() throws {
        let folder = try Loopback.temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/click.wav"
        let convert = try Command.run(["convert", "--loudness", "-18", "../../Assets/click.wav", output])
        #expect(convert.status == 0, "\(convert.stderr)")
        let info = try Command.run(["info", "--loudness", "--json", output])
        let loudness = try #require(((info.json as? [[String: Any]])?.first)?["loudness"] as? [String: Any])
        #expect(loudness["integrated"] is NSNull)
        #expect(abs((loudness["shortSound"] as? Double ?? 0) + 18) <= 0.1, "\(loudness)")
        let text = try Command.run(["info", "--loudness", output])
        #expect(text.stdout.contains("over one block (shorter than 400 ms)"), "\(text.stdout)")
        #expect(!text.stdout.contains("-inf LUFS"))
        let long = try Command.run(["info", "--loudness", "--json", "loudness/steps-pink-8k.wav"])
        let longLoudness = ((long.json as? [[String: Any]])?.first)?["loudness"] as? [String: Any]
        #expect(longLoudness?["shortSound"] == nil)
    }
}

@Suite struct LoudnessProfileTests {
    /// The music-streaming profile measures with libebur128: -16 LUFS ± 1 and -1 dBTP are errors.
    @Test func musicStreamingMeasures() throws {
        let result = try Command.run([
            "validate", "--profile", "music-streaming", "--format", "json",
            "loudness/steps-pink-8k.wav", "loudness/sine-997-minus20-stereo-16k.wav",
        ])
        #expect(result.status == 1)
        let files = try #require((result.json as? [String: Any])?["files"] as? [[String: Any]])
        for file in files {
            let violations = file["violations"] as? [[String: Any]] ?? []
            #expect(violations.contains { $0["rule"] as? String == "loudness" && $0["severity"] as? String == "error" })
        }
        let steps = (files[0]["violations"] as? [[String: Any]])?.first { $0["rule"] as? String == "loudness" }
        #expect((steps?["message"] as? String)?.contains("-24.8 LUFS") == true)
    }
}

@Suite struct NormalizationCommandTests {
    /// `convert --loudness -16` (a negative value after the option), `--true-peak`, `--trim-silence` with
    /// and without a level; `--true-peak` alone is a usage error.
    @Test func convertOptions() throws {
        let folder = NSTemporaryDirectory() + "afkit-norm-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/out.caf"
        let result = try Command.run([
            "convert", "--loudness", "-20", "--true-peak", "-3", "--trim-silence",
            "loudness/steps-pink-8k.wav", output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("-> -20"))
        let info = try Command.run(["info", "--loudness", "--json", output])
        let loudness = try #require(((info.json as? [[String: Any]])?.first)?["loudness"] as? [String: Any])
        #expect(abs((loudness["integrated"] as? Double ?? 0) + 20) <= 0.1)
        #expect((loudness["truePeak"] as? Double ?? 0) <= -3)
        let level = try Command.run(["convert", "--trim-silence", "-40", "loudness/steps-pink-8k.wav", output])
        #expect(level.status == 0, "\(level.stderr)")
        let usage = try Command.run(["convert", "--true-peak", "-2", "loudness/steps-pink-8k.wav", output])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--loudness"))
    }

    /// `batch --loudness --report`: every output normalized, the report lists each file's source and output
    /// loudness; the settings are in the provenance, so changing the target rebuilds.
    @Test func batchReport() throws {
        let folder = NSTemporaryDirectory() + "afkit-norm-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = ["loudness/steps-pink-8k.wav", "loudness/sine-997-minus20-stereo-16k.wav"]
        let first = try Command.run(
            [
                "batch", "--preset", "pcm", "--out", folder + "/out", "--loudness=-18",
                "--report", folder + "/report.json",
            ] + sources)
        #expect(first.status == 0, "\(first.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/report.json"))
        let files = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.count == 2)
        for file in files {
            #expect(file["status"] as? String == "converted")
            let output = try #require(file["outputLoudness"] as? [String: Any])
            #expect(abs((output["integrated"] as? Double ?? 0) + 18) <= 0.1)
            #expect((output["truePeak"] as? Double ?? 0) <= -1)
            #expect(file["sourceLoudness"] as? [String: Any] != nil)
        }
        let again = try Command.run(["batch", "--preset", "pcm", "--out", folder + "/out", "--loudness=-18"] + sources)
        #expect(again.stdout.contains("2 up to date"))
        let changed = try Command.run(
            ["batch", "--preset", "pcm", "--out", folder + "/out", "--loudness=-20"] + sources)
        #expect(changed.stdout.contains("2 converted"))
    }

    /// What `batch --loudness` makes passes `validate` on the same target: a 40 ms click (one gating
    /// block) and a speech file, as game-sfx effects at -18 LUFS. Each file's normalization is said on one line
    /// and recorded in `--report`'s JSON (issue 48: batch said nothing of gain or limiting).
    @Test func normalizedOutputsValidate() throws {
        let folder = NSTemporaryDirectory() + "afkit-norm-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let batch = try Command.run([
            "batch", "--preset", "sfx", "--out", folder, "--loudness", "-18", "--trim-silence", "--report", report,
            "../../Assets/click.wav", "../../Assets/whoosh.wav",
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        for name in ["click.wav", "whoosh.wav"] {
            let lines = batch.stderr.split(separator: "\n").filter { $0.contains(name + ": note: loudness ") }
            #expect(lines.count == 1, "\(batch.stderr)")
            #expect(lines.first.map { $0.contains(" -> -18") && $0.contains("dBTP: gain ") } == true, "\(lines)")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
        let entries = try #require((json as? [String: Any])?["files"] as? [[String: Any]])
        for entry in entries {
            let normalization = try #require(entry["normalization"] as? [String: Any], "\(entry)")
            let output = try #require(normalization["outputLoudness"] as? Double)
            let source = try #require(normalization["sourceLoudness"] as? Double)
            let gain = try #require(normalization["gain"] as? Double)
            #expect(abs(output + 18) <= 0.1 && abs(source + gain - output) <= 1.1, "\(normalization)")
            #expect(normalization["limiting"] is Double && normalization["outputTruePeak"] is Double)
        }
        let validate = try Command.run(["validate", "--profile", "game-sfx", "--format", "json", folder])
        let files = try #require((validate.json as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.count == 2)
        for file in files {
            let rules = (file["violations"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
            #expect(
                !rules.contains("loudness") && !rules.contains("true-peak") && !rules.contains("leading-silence"),
                "\(file)")
        }
    }
}

/// `make dist`'s packaging (Packaging/dist.sh), run on the test build: the tarball holds the binary,
/// the README, the shell completions and NEEDS, and NEEDS names the Debian packages of every engine, those loaded on use too.
@Suite struct DistTests {
    @Test func theTarballListsWhatAWorkerMustInstall() throws {
        let folder = try ScratchFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let script = URL(fileURLWithPath: Command.fixtures).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Packaging/dist.sh").path
        process.arguments = [script, Command.executable, folder.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let tarball = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let version = try Command.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            tarball.hasSuffix("/afkit-\(version)-linux-x86_64.tar.gz")
                || tarball.hasSuffix("/afkit-\(version)-linux-aarch64.tar.gz"))
        let list = try bash("tar -tzf '\(tarball)'").stdout.split(separator: "\n").map(String.init)
        let top = "afkit-\(version)-linux-"
        #expect(list.contains { $0.hasPrefix(top) && $0.hasSuffix("/afkit") })
        #expect(list.contains { $0.hasSuffix("/README.md") })
        // The shell completions, as the binary writes them (the man pages come with `make dist`'s MAN_DIR).
        for completion in ["afkit.bash", "_afkit", "afkit.fish"] {
            #expect(list.contains { $0.hasSuffix("/completions/" + completion) }, "\(completion)")
        }
        // A release a studio may ship: its license, and the engines' licenses beside it.
        #expect(list.contains { $0.hasSuffix("/LICENSE") } && list.contains { $0.hasSuffix("/NOTICE") })
        let license = try bash("tar -xzOf '\(tarball)' --wildcards '*/LICENSE'").stdout
        #expect(license.contains("Apache License") && license.contains("Version 2.0"))
        let notice = try bash("tar -xzOf '\(tarball)' --wildcards '*/NOTICE'").stdout
        for engine in [
            "libsndfile", "LAME", "libsoxr", "libavcodec", "libsamplerate", "libFLAC", "libopus", "libebur128",
        ] {
            #expect(notice.contains(engine), "NOTICE names \(engine)")
        }
        #expect(notice.contains("libfaad2") && notice.contains("GPL-2.0-or-later") && notice.contains("libcurl"))
        // The binary links no GPL library: libfaad2 (and Debian's GPL build of libavcodec) are loaded on use.
        let linked = try bash(
            "tar -xzOf '\(tarball)' --wildcards '*/afkit' > '\(folder.path)/afkit' && chmod +x "
                + "'\(folder.path)/afkit' && ldd '\(folder.path)/afkit'"
        ).stdout
        #expect(!linked.contains("libfaad") && !linked.contains("libavcodec"), "\(linked)")
        let needs = try bash("tar -xzOf '\(tarball)' --wildcards '*/NEEDS'").stdout.split(separator: "\n").map(
            String.init)
        for package in [
            "libsndfile1", "libmp3lame0", "libfaad2", "libsoxr0", "libsamplerate0", "libebur128-1", "libcurl4",
        ] {
            #expect(needs.contains(package), "\(package) in \(needs)")
        }
        #expect(needs.contains { $0.hasPrefix("libavcodec") }, "libavcodec, loaded on use, is listed too: \(needs)")
        #expect(needs == needs.sorted() && Set(needs).count == needs.count)
    }
}
