import Foundation
import LoopbackServers
import Testing

/// Peak memory on lying headers, measured from outside: `afkit` runs under an address-space limit
/// (`ulimit -v`) a little above what it needs for a tiny valid file. An allocation sized by a header
/// field, even one never touched, would exceed it; a control file that really needs 48 MB more
/// proves that the limit bites.
@Suite(.serialized) struct MemoryBoundTests {
    /// Runs afkit under an address-space limit in KiB; nil for no limit. Returns the exit status, or
    /// nil when the process died by a signal.
    static func run(_ arguments: [String], limitKiB: Int?) throws -> (status: Int32?, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let limit = limitKiB.map { "ulimit -v \($0) && " } ?? ""
        process.arguments = ["-c", "\(limit)exec \"$0\" \"$@\"", Command.executable] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Command.fixtures)
        // A run that dies for want of memory is expected here: no backtracer, which under the same limit
        // can hang holding standard error open.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : nil
        return (status, String(decoding: errData, as: UTF8.self))
    }

    /// The smallest limit, in 2 MiB steps, under which the command succeeds on a tiny valid file.
    static func baseline(_ command: String) throws -> Int {
        try baseline([command, "wav/pcm-u8-mono.wav"])
    }

    /// The smallest limit, in 2 MiB steps, under which a command ends with `status`. With `settled`, the
    /// smallest above which it always does (checked over the next 12 MiB): a limit can succeed in a hole
    /// below one that fails, as where the C libraries and threads land in the address space shifts.
    static func baseline(_ arguments: [String], status expected: Int32 = 0, settled: Bool = false) throws -> Int {
        var low = 8 << 10, high = 4 << 20  // 8 MiB fails, 4 GiB succeeds
        #expect(try run(arguments, limitKiB: high).status == expected)
        while high - low > 2 << 10 {
            let middle = (low + high) / 2
            if try run(arguments, limitKiB: middle).status == expected { high = middle } else { low = middle }
        }
        var step = 1
        while settled && step <= 6 {
            if try run(arguments, limitKiB: high + step * (2 << 10)).status == expected {
                step += 1
            } else {
                high += step * (2 << 10)
                step = 1
            }
        }
        return high
    }

    /// Validating a long 7.1 ADTS stream takes the memory a short one takes (before: 263 MB for 20 MB,
    /// and SIGABRT with no report under a 256 MB limit). The streams are afkit's own AAC encodes of
    /// 8-channel noise, 1 s and 30 s.
    @Test func validatingALongSurroundStreamTakesTheMemoryOfAShortOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-71-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for seconds in [1, 30] {
            var samples: [Int16] = []
            samples.reserveCapacity(48_000 * seconds * 8)
            for _ in 0..<48_000 * seconds * 8 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                samples.append(Int16(truncatingIfNeeded: Int64(state >> 48) - 32768) / 4)
            }
            try pcmWAV("\(folder)/n\(seconds).wav", rate: 48_000, channels: 8, samples: samples)
            let made = try Command.run([
                "convert", "-d", "aac", "\(folder)/n\(seconds).wav", "\(folder)/n\(seconds).aac",
            ])
            #expect(made.status == 0, "\(made.stderr)")
        }
        // game-sfx decodes everything (loudness, true peak, silence) and fails the file for its channels: status 1.
        let short = try Self.baseline(
            ["validate", "--profile", "game-sfx", "\(folder)/n1.aac"], status: 1, settled: true)
        let (status, stderr) = try Self.run(
            ["validate", "--profile", "game-sfx", "\(folder)/n30.aac"], limitKiB: short + (8 << 10))
        #expect(status == 1, "30 s of 7.1 under the 1 s stream's limit plus 8 MiB (\(short) KiB): \(stderr)")
    }

    /// `clip` on 30 s of full scale at every other sample (1.3 M runs a channel) takes the memory of 1 s: the runs
    /// past each channel's first 1,000 are counted, not held (before: 13 MB of such samples took 1.8 GB).
    @Test func clipMemoryDoesNotGrowWithTheRuns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-clip-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for seconds in [1, 30] {
            let frames = 44_100 * seconds
            let samples = (0..<frames * 2).map { $0 % 4 == 0 ? Int16.max : $0 % 4 == 1 ? Int16.min : 0 }
            try pcmWAV("\(folder)/a\(seconds).wav", rate: 44_100, channels: 2, samples: samples)
        }
        let short = try Self.baseline(["clip", "--json", "\(folder)/a1.wav"], status: 1, settled: true)
        let (status, stderr) = try Self.run(["clip", "--json", "\(folder)/a30.wav"], limitKiB: short + (8 << 10))
        #expect(status == 1, "30 s under the 1 s file's limit plus 8 MiB (\(short) KiB): \(stderr)")
    }

    /// A million and a half empty top-level MPEG-4 boxes (12 MB) are walked at a few hundred
    /// nanoseconds each (before: 3.4 µs, 7 to 9 s for `info`) and end in the typed error for a file
    /// without `moov`.
    @Test func aMillionEmptyBoxesEndInATypedError() throws {
        var file = [UInt8]([0, 0, 0, 24]) + Array("ftypM4A ".utf8) + [0, 0, 0, 0] + Array("M4A isom".utf8)
        let free: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
        file.reserveCapacity(file.count + 1_500_000 * 8)
        for _ in 0..<1_500_000 { file += free }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-boxes-\(getpid()).m4a").path
        try Data(file).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, stderr) = try Self.run(["info", path], limitKiB: nil)
        #expect(status == 1)
        #expect(stderr.contains("no 'moov' box") && stderr.contains("code 'eof!'"), "\(stderr)")
    }

    static let headroomKiB = 24 << 10
    static let hostile: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Command.fixtures + "/hostile")) ?? []
        return names.sorted().map { "hostile/\($0)" }
    }()

    @Test(arguments: ["info", "packets", "validate"])
    func lyingHeadersStayWithinAFewMegabytesOfATinyFile(_ command: String) throws {
        let limit = try Self.baseline(command) + Self.headroomKiB
        #expect(Self.hostile.count >= 10)
        for file in Self.hostile {
            let (status, stderr) = try Self.run([command, file], limitKiB: limit)
            #expect(
                status == 0 || status == 1, "\(command) \(file): died or failed oddly under \(limit) KiB: \(stderr)")
            if status == 1 && command != "validate" {
                #expect(stderr.contains("code '"), "\(command) \(file): \(stderr)")
            }
        }
    }

    /// A sample-rate field sizes nothing: a CAF at 1e-300 Hz and a WAV at 1 Hz converted to formats and
    /// rates that would multiply their length astronomically end with a status (converted within bounded
    /// memory, or refused for a resampling ratio past the stated limit), never by a signal, under 2 GiB.
    @Test func sampleRateFieldsSizeNoAllocation() throws {
        let folder = NSTemporaryDirectory() + "afkit-rates-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [[String]] = [
            ["convert", "--preset", "music", "hostile/caf-rate-1e-300.caf", folder + "/a.m4a"],
            ["convert", "-d", "alac", "hostile/caf-rate-1e-300.caf", folder + "/b.m4a"],
            ["convert", "--preset", "sfx", "hostile/caf-rate-1e-300.caf", folder + "/c.caf"],
            ["convert", "-d", "LEI16@48000", "hostile/wav-rate-1hz.wav", folder + "/d.aif"],
            ["convert", "hostile/wav-rate-1hz.wav", folder + "/e.mp3"],
            ["convert", "--preset", "sfx", "hostile/wav-rate-1hz.wav", folder + "/f.caf"],
        ]
        for arguments in cases {
            let (status, stderr) = try Self.run(arguments, limitKiB: 2 << 20)
            #expect(status == 0 || status == 1, "\(arguments): \(stderr)")
            if status == 1 { #expect(stderr.contains("code '"), "\(arguments): \(stderr)") }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")
    }

    @Test func theLimitCatchesARealFortyEightMegabyteAllocation() throws {
        // A valid CAF whose magic cookie really holds 48 MiB: reading it needs that much memory.
        let folder = NSTemporaryDirectory() + "afkit-memory-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0] + Array("desc".utf8) + be64(32)
        bytes += be64(44100.0.bitPattern) + Array("aac ".utf8) + be32(0) + be32(0) + be32(1024) + be32(2) + be32(0)
        let cookie = 48 << 20
        bytes += Array("kuki".utf8) + be64(UInt64(cookie)) + [UInt8](repeating: 7, count: cookie)
        bytes += Array("pakt".utf8) + be64(24 + 2) + be64(2) + be64(2048) + be32(0) + be32(0) + [10, 10]
        bytes += Array("data".utf8) + be64(4 + 20) + be32(0) + [UInt8](repeating: 0, count: 20)
        let path = folder + "/cookie.caf"
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let limit = try Self.baseline("info") + Self.headroomKiB
        #expect(try Self.run(["info", path], limitKiB: nil).status == 0)
        #expect(try Self.run(["info", path], limitKiB: limit).status != 0)
        #expect(try Self.run(["info", path], limitKiB: limit + (256 << 10)).status == 0)
    }

    func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    func be64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }

    /// `waveform`'s memory is what it draws, not what it reads: `--zoom 1` of six minutes of stereo (5.8 M
    /// points split) streams `.json` and `.dat` into the file (before: every point, and the whole text, in
    /// memory: 4.4 GB for three hours), and a zoomed picture keeps its width's points and stops reading.
    /// Each runs under the limit a second's sound needs plus 16 MiB (the old `.dat` needed 23 MB more).
    @Test func waveformMemoryIsBoundedByWhatItDraws() throws {
        let folder = try Loopback.temporaryFolder("waveform-memory")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A 1 kHz tone at 8 kHz, 16-bit stereo: one period is 8 frames, repeated.
        func wav(_ path: String, frames: Int) throws {
            func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
                withUnsafeBytes(of: value.littleEndian) { Array($0) }
            }
            var period: [UInt8] = []
            for frame in 0..<8 {
                let left = Int16((16384 * sin(2 * Double.pi * Double(frame) / 8)).rounded())
                period += le(left) + le(Int16(-left / 2))
            }
            var bytes = Array("RIFF".utf8) + le(UInt32(36 + frames * 4)) + Array("WAVEfmt ".utf8) + le(UInt32(16))
            bytes +=
                le(UInt16(1)) + le(UInt16(2)) + le(UInt32(8000)) + le(UInt32(32000)) + le(UInt16(4)) + le(UInt16(16))
            bytes += Array("data".utf8) + le(UInt32(frames * 4))
            var data = Data(bytes)
            let block = Data(Array([[UInt8]](repeating: period, count: 1000).joined()))
            for _ in 0..<(frames / 8000) { data.append(block) }
            try data.write(to: URL(fileURLWithPath: path))
        }
        let short = folder + "/short.wav"
        let long = folder + "/long.wav"
        try wav(short, frames: 8000)
        try wav(long, frames: 8000 * 360)
        let limit =
            try Self.baseline(["waveform", short, "-o", folder + "/short.json", "--zoom", "1", "--split-channels"])
            + 16 << 10
        for (name, extra) in [
            ("z.json", ["--zoom", "1"]), ("z.dat", ["--zoom", "1"]), ("z.png", ["--zoom", "1"]),
            ("z.svg", ["--zoom", "2"]), ("fit.png", []),
        ] {
            let run = try Self.run(
                ["waveform", long, "-o", folder + "/" + name, "--split-channels"] + extra, limitKiB: limit)
            #expect(run.status == 0, "\(name) under \(limit) KiB: \(run.stderr)")
        }
        // The streamed data is whole: 2.88 M points of two channels, the header's length written at the end.
        let dat = try Data(contentsOf: URL(fileURLWithPath: folder + "/z.dat"))
        #expect(dat.count == 24 + 8000 * 360 * 2 * 2 * 2)
        let bytes = [UInt8](dat.prefix(64))
        func word(_ offset: Int) -> Int {
            Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3])
                << 24
        }
        let header: [Int] = (0..<6).map { word($0 * 4) }
        #expect(header == [2, 0, 8000, 1, 8000 * 360, 2])
        // Frame 2 of every period: left 16384 (its min and max), right -8192.
        func value(_ index: Int) -> Int {
            let offset = 24 + 2 * 8 + index * 2
            return Int(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
        }
        let values: [Int] = (0..<4).map(value)
        #expect(values == [16384, 16384, -8192, -8192], "\(values)")
        let json = try Data(contentsOf: URL(fileURLWithPath: folder + "/z.json"))
        let opening = String(decoding: json.prefix(120), as: UTF8.self)
        #expect(
            opening.hasPrefix(
                "{\"version\":2,\"channels\":2,\"sample_rate\":8000,\"samples_per_pixel\":1,\"bits\":16,\"data\":[0,"
            ),
            "\(opening)")
        #expect(json.suffix(20) == Data("],\"length\":2880000}\n".utf8))
        var commas = 0
        for byte in json where byte == UInt8(ascii: ",") { commas += 1 }
        #expect(commas == 6 + 8000 * 360 * 4 - 1)
    }
}
