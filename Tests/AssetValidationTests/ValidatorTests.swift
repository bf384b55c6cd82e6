@testable import AssetValidation
import AudioCodecs
import AudioContainers
import AudioFormats
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Testing

/// A scratch folder of sound files, made with afkit's writer, each breaking what its name says.
final class Scratch {
    let root = NSTemporaryDirectory() + "afkit-validate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    init() throws { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A file of `frames` frames of a 440 Hz tone at half scale (after `silence` seconds of silence).
    @discardableResult
    func pcm(
        _ name: String, type: FileType = .caf, rate: Double = 8000, channels: UInt32 = 1, frames: Int,
        silence: Double = 0, clip: Bool = false
    ) throws -> String {
        let path = root + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        let format = StreamDescription.linearPCM(
            sampleRate: rate, channels: channels, bitsPerChannel: 16,
            isBigEndian: type == .aiff)
        var samples = [Float](repeating: 0, count: frames * Int(channels))
        samples.withUnsafeMutableBufferPointer { samples in
            for frame in 0..<frames {
                let time = Double(frame) / rate - silence
                var value: Float = time < 0 ? 0 : Float(0.5 * sin(2 * .pi * 440 * time))
                if clip && frame % 100 < 10 { value = 1 }
                for channel in 0..<Int(channels) { samples[frame * Int(channels) + channel] = value }
            }
        }
        var encoder = try PCMEncoder(format: format)
        var bytes: [UInt8] = []
        _ = try encoder.encode(samples, into: &bytes)
        let writer = try AudioFileWriter(path: path, fileType: type, format: format)
        try writer.writePackets(bytes)
        try writer.close()
        return path
    }

    func copy(_ fixture: String, to name: String) throws -> String {
        let path = root + "/" + name
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/" + fixture).path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        return path
    }
}

@Suite struct ValidatorTests {
    let validator = AssetValidator(profile: .systemSound)

    func rules(_ report: FileReport) -> [String] { report.violations.map { "\($0.severity.rawValue):\($0.rule)" } }

    @Test func aCleanFilePassesEveryProfile() throws {
        let scratch = try Scratch()
        let path = try scratch.pcm("clean.caf", frames: 4000)
        for profile in [Profile.systemSound, .simultaneousSoundEffects, .music] {
            let report = AssetValidator(profile: profile).validate(path: path)
            #expect(report.violations.isEmpty, "\(profile.name): \(report.violations)")
            #expect(report.ok)
        }
    }

    @Test func thirtySecondsPassesOneFrameMoreFails() throws {
        let scratch = try Scratch()
        let exact = validator.validate(path: try scratch.pcm("thirty.wav", type: .wav, frames: 30 * 8000))
        #expect(exact.ok, "\(exact.violations)")
        let over = validator.validate(path: try scratch.pcm("over.wav", type: .wav, frames: 30 * 8000 + 1))
        #expect(rules(over) == ["error:duration"])
        #expect(over.violations.first?.message.contains("240001 frames") == true)
    }

    @Test func ima4RemainderFramesAreNotCounted() throws {
        let scratch = try Scratch()
        // 3751 packets of 64 frames: 240064 decoded frames; with 64 remainder frames, exactly 30 s.
        for (remainder, passes) in [(64, true), (63, false)] {
            let path = scratch.root + "/ima4-\(remainder).caf"
            let format = StreamDescription.appleIMA4(sampleRate: 8000, channels: 1)
            let writer = try AudioFileWriter(path: path, fileType: .caf, format: format)
            var encoder = AppleIMA4Encoder(format: format, quality: .fast)
            var packets: [UInt8] = []
            let silence = [Int16](repeating: 1000, count: 3751 * 64)
            _ = silence.withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
            try writer.writePackets(packets)
            try writer.close(
                packetTableInfo: PacketTableInfo(
                    validFrames: 3751 * 64 - Int64(remainder), primingFrames: 0,
                    remainderFrames: Int32(remainder)))
            let report = validator.validate(path: path)
            #expect(report.ok == passes, "remainder \(remainder): \(report.violations)")
        }
    }

    @Test func eachRuleOnItsOwn() throws {
        let scratch = try Scratch()
        let cases: [(String, [String])] = [
            (
                try scratch.copy("mp3/lame-cbr128-stereo-44k.mp3", to: "renamed.wav"),
                ["error:container", "error:data-format", "warning:extension"]
            ),
            (try scratch.pcm("five-one.wav", type: .wav, channels: 6, frames: 800), ["warning:channels"]),
            (try scratch.pcm("hifi.caf", rate: 96000, frames: 9600), ["warning:sample-rate"]),
            (try scratch.pcm("odd-rate.caf", rate: 9000, frames: 900), ["warning:sample-rate"]),
            (try scratch.pcm("clipped.caf", frames: 4000, clip: true), ["warning:clipping"]),
            (try scratch.pcm("late.caf", frames: 16000, silence: 1), ["warning:silence"]),
            (try scratch.pcm("empty.caf", frames: 0), ["error:empty"]),
            (try scratch.copy("wav/ima-adpcm-mono-sox.wav", to: "ima.wav"), ["warning:data-format"]),
            (try scratch.copy("wav/rf64-s16-stereo.wav", to: "rf64.wav"), ["warning:container"]),
            (try scratch.copy("aiff/pcm-s16-stereo.aiff", to: "wrong-name.caf"), ["warning:extension"]),
            (
                try scratch.copy("mp3/hostile-truncated-last-frame.mp3", to: "cut.mp3"),
                ["error:container", "error:data-format", "error:truncated"]
            ),
        ]
        for (path, expected) in cases {
            let report = validator.validate(path: path)
            #expect(rules(report) == expected, "\(path): \(report.violations.map(\.message))")
        }
        let junk = scratch.root + "/junk.caf"
        try Data("caff but not really".utf8).write(to: URL(fileURLWithPath: junk))
        let malformed = validator.validate(path: junk)
        #expect(rules(malformed) == ["error:malformed"])
        #expect(malformed.violations.first?.message.contains("code") == true)
    }

    /// A profile file may spell a hex format ID in either case; reports spell it as the contract does.
    @Test func hexFormatIDsInEitherCase() throws {
        let scratch = try Scratch()
        let ima = try scratch.copy("wav/ima-adpcm-mono-sox.wav", to: "ima.wav")
        let lower = try Profile(json: #"{ "rules": { "data-format": { "allowed": ["0x6d730011"], "warn": [] } } }"#)
        #expect(AssetValidator(profile: lower).validate(path: ima).violations.isEmpty)
        let report = validator.validate(path: ima)
        #expect(report.violations.first?.message.contains("0x6D730011") == true)
    }

    @Test func musicProfileAllowsCompressedLongAudio() throws {
        let scratch = try Scratch()
        let mp3 = try scratch.copy("mp3/lame-vbr-v5.mp3", to: "song.mp3")
        #expect(AssetValidator(profile: .music).validate(path: mp3).violations.isEmpty)
        let long = try scratch.pcm("long.caf", frames: 40 * 8000)
        #expect(AssetValidator(profile: .music).validate(path: long).ok)
        let sfx = AssetValidator(profile: .simultaneousSoundEffects)
        #expect(rules(sfx.validate(path: mp3)).contains("warning:hardware-codec"))
        #expect(
            rules(sfx.validate(path: try scratch.pcm("stereo.caf", channels: 2, frames: 800))) == ["warning:channels"])
        #expect(rules(sfx.validate(path: try scratch.pcm("loud.wav", type: .wav, frames: 800))) == ["error:container"])
    }

    @Test func profileFilesWithOverrides() throws {
        let scratch = try Scratch()
        try scratch.pcm("ui/tap.caf", frames: 16000)  // 2 s
        try scratch.pcm("ui/intro.caf", frames: 16000, silence: 1)
        try scratch.pcm("music/theme.caf", frames: 40 * 8000)
        let profile = try Profile(
            json: """
                { "name": "game", "extends": "system-sound",
                  "rules": { "duration": { "maximumSeconds": 1.5 }, "silence": { "severity": "error" } },
                  "overrides": [ { "paths": ["**/music/**"], "profile": "music" },
                                 { "paths": ["**/ui/intro.caf"], "rules": { "silence": { "enabled": false } } } ] }
                """)
        let report = try AssetValidator(profile: profile).validate(paths: [scratch.root])
        #expect(report.profile == "game")
        let byName = Dictionary(
            uniqueKeysWithValues: report.files.map { (($0.path as NSString).lastPathComponent, $0) })
        #expect(rules(try #require(byName["tap.caf"])) == ["error:duration"])
        #expect(rules(try #require(byName["intro.caf"])) == ["error:duration"])
        #expect(rules(try #require(byName["theme.caf"])).isEmpty)
        #expect(throws: ProfileError.self) { try Profile(json: #"{ "rules": { "loudnes": {} } }"#) }
        #expect(throws: ProfileError.self) { try Profile(json: #"{ "extends": "podcast" }"#) }
        #expect(throws: ProfileError.self) {
            try Profile(json: #"{ "rules": { "duration": { "severity": "fatal" } } }"#)
        }
        #expect(throws: ProfileError.self) { try Profile(json: "not json") }
        // A misspelt setting is named, with the ones the rule takes; broken JSON says where.
        #expect {
            try Profile(json: #"{ "rules": { "duration": { "maxSeconds": 5 } } }"#)
        } throws: { "\($0)".contains("'maxSeconds'") && "\($0)".contains("maximumSeconds") }
        #expect {
            try Profile(json: "{ \"rules\": {\n  \"duration\": { \"maximumSeconds\": 5, }\n} }")
        } throws: { "\($0)".contains("line 2, column 38") }
    }

    @Test func globs() {
        #expect(Glob("music/**").matches("music/a/b.caf"))
        #expect(Glob("**/*.caf").matches("x.caf") && Glob("**/*.caf").matches("a/b/x.caf"))
        #expect(!Glob("ui/*.caf").matches("ui/deep/x.caf"))
        #expect(Glob("ui/?.caf").matches("ui/a.caf") && !Glob("ui/?.caf").matches("ui/ab.caf"))
    }

    @Test func reportsParseBack() throws {
        let scratch = try Scratch()
        try scratch.pcm("good.caf", frames: 800)
        try scratch.pcm("six & <seven>.wav", type: .wav, channels: 6, frames: 0)
        let report = try validator.validate(paths: [scratch.root])
        #expect(report.files.count == 2 && report.passed == 1 && report.failed == 1)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.json.serialized().utf8)) as? [String: Any])
        #expect(json["profile"] as? String == "system-sound")
        let summary = try #require(json["summary"] as? [String: Int])
        #expect(summary["files"] == 2 && summary["passed"] == 1 && summary["failed"] == 1)
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.map { $0["ok"] as? Bool } == [true, false])
        // JUnit, read by a real XML parser: one test case per file, one failure.
        let delegate = JUnitCounter()
        let parser = XMLParser(data: Data(report.junit.utf8))
        parser.delegate = delegate
        #expect(parser.parse())
        #expect(delegate.testCases == 2 && delegate.failures == 1)
        #expect(delegate.names.contains { $0.hasSuffix("six & <seven>.wav") })
        #expect(report.text.contains(": error: empty"))
        #expect(report.text.contains(": warning: channels: 6 channels"))
        #expect(report.github.contains("::error file="))
    }

    /// Text from a file that holds line breaks (`\r\n` is one Character in Swift) forges no line in any format:
    /// GitHub's workflow commands get `%0D%0A`, the text and JUnit outputs `\r\n` spelled out.
    @Test func lineBreaksInFindingsForgeNoLine() {
        let report = ValidationReport(
            profile: "probe",
            files: [
                FileReport(
                    path: "a\r\nb.wav",
                    violations: [.init(rule: "x", severity: .error, message: "m\r\n::warning file=evil::y")])
            ])
        for output in [report.github, report.text, report.junit] {
            let lines = output.split(
                omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            #expect(!lines.contains { $0.hasPrefix("::warning file=evil") }, "\(output)")
        }
        #expect(report.github.contains("m%0D%0A::warning file=evil::y"), "\(report.github)")
    }

    @Test func bytesInMemory() throws {
        let bytes = [UInt8](
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("Fixtures/mp3/lame-vbr-v5.mp3")))
        let report = validator.validate(bytes: bytes, name: "sound.wav")
        #expect(rules(report) == ["error:container", "error:data-format", "warning:extension"])
    }

    @Test func projectsAddRules() throws {
        let scratch = try Scratch()
        let path = try scratch.pcm("named.caf", frames: 800)
        var validator = AssetValidator(profile: Profile(name: "naming", entries: [.init("lower-case-name", .error)]))
        validator.rules["lower-case-name"] = ValidationRule(id: "lower-case-name") { facts, _ in
            facts.path.split(separator: "/").last.map { $0 == $0.lowercased() } == true
                ? [] : [Finding("use lower case")]
        }
        #expect(validator.validate(path: path).ok)
        let upper = try scratch.pcm("Named.caf", frames: 800)
        #expect(!validator.validate(path: upper).ok)
    }
}

final class JUnitCounter: NSObject, XMLParserDelegate {
    var testCases = 0
    var failures = 0
    var names: [String] = []
    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if element == "testcase" {
            testCases += 1
            names.append(attributes["name"] ?? "")
        }
        if element == "failure" { failures += 1 }
    }
}

@Suite struct StreamValidationTests {
    @Test func validatesAnAsyncStreamOfChunks() async throws {
        let bytes = [UInt8](
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("Fixtures/caf/ima4-stereo.caf")))
        let chunks = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 100) {
                continuation.yield(Array(bytes[start..<min(start + 100, bytes.count)]))
            }
            continuation.finish()
        }
        let report = await AssetValidator().validate(chunks: chunks, name: "download.caf")
        #expect(report.ok && report.violations.isEmpty)
        let broken = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array(bytes[0..<30]))
            continuation.finish()
        }
        let failed = await AssetValidator().validate(chunks: broken, name: "cut.caf")
        #expect(failed.violations.map(\.rule) == ["malformed"])
    }
}

/// The loudness rules over a meter given from outside (the command gives libebur128's; here a fixed
/// one, so the rules are proven apart from the measurement).
@Suite struct LoudnessRuleTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/wav/pcm-s16-stereo.wav").path

    func report(_ profile: Profile, _ loudness: LoudnessFacts?) -> [Violation] {
        var validator = AssetValidator(profile: profile)
        if let loudness { validator.loudnessMeter = { _, _ in FixedMeter(facts: loudness) } }
        return validator.validate(path: Self.file).violations.filter { ["loudness", "true-peak"].contains($0.rule) }
    }

    @Test func targetsAndCeilings() {
        let onTarget = LoudnessFacts(integrated: -16.4, range: 3, truePeak: -1.2, samplePeak: -1.5)
        #expect(report(.musicStreaming, onTarget).isEmpty)
        let quiet = LoudnessFacts(integrated: -19.2, range: 3, truePeak: -0.3, samplePeak: -0.4)
        let violations = report(.musicStreaming, quiet)
        #expect(violations.map(\.rule) == ["loudness", "true-peak"])
        #expect(violations.allSatisfy { $0.severity == .error })
        #expect(violations.first?.message.contains("-19.2 LUFS") == true)
        // The music profile says the same as warnings; its tolerance is 2 LU.
        #expect(report(.music, quiet).map(\.severity) == [.warning, .warning])
        #expect(report(.music, LoudnessFacts(integrated: -17.5, range: 3, truePeak: -2, samplePeak: -2)).isEmpty)
        // game-sfx: -18 ± 3.
        #expect(
            report(.gameSoundEffects, LoudnessFacts(integrated: -20.5, range: 1, truePeak: -3, samplePeak: -3)).isEmpty)
        #expect(
            report(.gameSoundEffects, LoudnessFacts(integrated: -12, range: 1, truePeak: -3, samplePeak: -3)).count == 1
        )
    }

    /// A sound shorter than one gating block is judged on its loudness as one block, as `convert
    /// --loudness` normalizes it.
    @Test func shortSounds() {
        let click = LoudnessFacts(
            integrated: -.infinity, range: 0, truePeak: -6, samplePeak: -6, shortSoundLoudness: -18.2)
        #expect(report(.gameSoundEffects, click).isEmpty)
        var quiet = click
        quiet.shortSoundLoudness = -30
        let violations = report(.gameSoundEffects, quiet)
        #expect(violations.map(\.rule) == ["loudness"])
        #expect(violations.first?.message.contains("one block") == true)
        #expect(violations.first?.severity == .error)
    }

    @Test func silenceAndNoMeter() {
        let silent = LoudnessFacts(integrated: -.infinity, range: 0, truePeak: -.infinity, samplePeak: -.infinity)
        let violations = report(.musicStreaming, silent)
        #expect(violations.map(\.rule) == ["loudness"])
        #expect(violations.first?.severity == .warning)
        // Without a meter the rules pass over the file, as the decoded-audio rules do without a decoder.
        #expect(report(.musicStreaming, nil).isEmpty)
        // The system-sound profile has no loudness rule: nothing is measured.
        #expect(report(.systemSound, nil).isEmpty)
    }

    @Test func profileFilesSetTheTargets() throws {
        let profile = try Profile(
            json:
                #"{"name": "quiet", "extends": "music", "rules": {"loudness": {"severity": "error", "target": -23, "tolerance": 0.5}}}"#
        )
        #expect(report(profile, LoudnessFacts(integrated: -23.3, range: 1, truePeak: -6, samplePeak: -6)).isEmpty)
        #expect(
            report(profile, LoudnessFacts(integrated: -22.2, range: 1, truePeak: -6, samplePeak: -6)).first?.severity
                == .error)
    }
}

/// DC offset, mono compatibility and channel balance, from the validator's own decode of files made here.
@Suite struct StereoRuleTests {
    /// A stereo 16-bit CAF of a 440 Hz tone: `left` and `right` scale it, `offset` is added to both.
    static func stereo(_ scratch: Scratch, _ name: String, left: Float, right: Float, offset: Float = 0) throws
        -> String
    {
        let path = scratch.root + "/" + name
        let format = StreamDescription.linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 16)
        var samples: [Float] = []
        for frame in 0..<8000 {
            let tone = Float(0.4 * sin(2 * .pi * 440 * Double(frame) / 8000))
            samples += [tone * left + offset, tone * right + offset]
        }
        var encoder = try PCMEncoder(format: format)
        var bytes: [UInt8] = []
        _ = try samples.withUnsafeBufferPointer { try encoder.encode($0, into: &bytes) }
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: format)
        try writer.writePackets(bytes)
        try writer.close()
        return path
    }

    func rules(_ path: String) -> [String] {
        AssetValidator(profile: .gameSoundEffects).validate(path: path).violations
            .filter { ["dc-offset", "mono-compatibility", "channel-balance"].contains($0.rule) }.map(\.rule)
    }

    @Test func measuredFromTheDecode() throws {
        let scratch = try Scratch()
        #expect(rules(try Self.stereo(scratch, "clean.caf", left: 1, right: 1)).isEmpty)
        #expect(rules(try Self.stereo(scratch, "inverted.caf", left: 1, right: -1)) == ["mono-compatibility"])
        #expect(rules(try Self.stereo(scratch, "lopsided.caf", left: 1, right: 0.5)) == ["channel-balance"])
        #expect(rules(try Self.stereo(scratch, "offset.caf", left: 1, right: 1, offset: 0.05)) == ["dc-offset"])
        let statistics = try #require(
            AssetValidator(profile: .gameSoundEffects).measureAudio(
                of: AudioFile(path: try Self.stereo(scratch, "half.caf", left: 1, right: 0.5))))
        #expect(abs((statistics.channelBalance ?? 0) - 20 * log10(2.0)) < 0.05)
        #expect(abs((statistics.correlation ?? 0) - 1) < 0.001)
    }
}

/// A meter that reports what it is told, counting the frames the decode pass gave it.
final class FixedMeter: StreamingLoudnessMeter, @unchecked Sendable {
    let facts: LoudnessFacts?
    private(set) var frames = 0
    init(facts: LoudnessFacts?) { self.facts = facts }
    func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) { self.frames += frames }
}

/// Loop seams, silence at either end in dBFS terms, and the one decode pass that feeds the meter too.
@Suite struct SeamAndSilenceRuleTests {
    /// A mono 16-bit CAF with `loops`, a tone from `toneStart` at `amplitude`, made in the test.
    static func file(
        _ folder: String, _ name: String, frames: Int, period: Double, toneStart: Int = 0,
        amplitude: Double = 0.5, loops: [Loop], shape: (Double) -> Double = { sin(2 * Double.pi * $0) }
    ) throws -> String {
        let format = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16, isFloat: false)
        var bytes: [UInt8] = []
        for frame in 0..<frames {
            let phase = (Double(frame) / period).truncatingRemainder(dividingBy: 1)
            let value = frame < toneStart ? 0 : amplitude * shape(phase)
            let sample = Int16(value * 32767)
            bytes += [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
        }
        var options = AudioFileWriterOptions()
        options.loops = loops
        let path = folder + "/" + name
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: format, options: options)
        try writer.writePackets(bytes)
        try writer.close()
        return path
    }

    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "afkit-seam-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A loop over whole periods of a sine (80 frames each) is seamless; one that ends half a period
    /// early jumps, and is flagged; `wholeFile` checks a file with no loop metadata as one loop.
    @Test func loopSeams() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let seamless = try Self.file(
            folder, "seamless.caf", frames: 8000, period: 80,
            loops: [Loop(start: 800, end: 800 + 80 * 50, playMode: .forward)])
        let clicking = try Self.file(
            folder, "clicking.caf", frames: 8000, period: 80,
            loops: [Loop(start: 800, end: 800 + 80 * 50 - 37, playMode: .forward)])
        let validator = AssetValidator(profile: .gameSoundEffects)
        #expect(validator.validate(path: seamless).violations.filter { $0.rule == "loop-seam" }.isEmpty)
        let flagged = validator.validate(path: clicking).violations.filter { $0.rule == "loop-seam" }
        #expect(flagged.count == 1)
        #expect(flagged.first?.severity == .error)
        #expect(flagged.first?.message.contains("800-4763") == true)

        let file = try AudioFile(path: clicking)
        let statistics = try #require(try validator.measureAudio(of: file))
        let seam = try #require(statistics.loopSeams.first)
        #expect(max(seam.levelJump, seam.slopeJump) > 12, "\(seam)")
        // A sine at amplitude 0.5 (16-bit) is 0.5/√2 RMS: -9.03 dBFS.
        #expect(abs(statistics.rmsDecibels - 20 * log10(0.5 / 2.0.squareRoot())) < 0.01)
        let smooth = try #require(try validator.measureAudio(of: try AudioFile(path: seamless))?.loopSeams.first)
        #expect(max(smooth.levelJump, smooth.slopeJump) < 4)

        // The whole file: 8000 frames are 100 periods (seamless); 7990 are not.
        let whole = try Self.file(folder, "whole.caf", frames: 7990, period: 80, loops: [])
        var profile = Profile.systemSound
        profile.apply([("loop-seam", .object([("wholeFile", .bool(true))]))])
        let wholeViolations = AssetValidator(profile: profile).validate(path: whole).violations.filter {
            $0.rule == "loop-seam"
        }
        #expect(wholeViolations.count == 1)
        let wholeSeamless = try Self.file(folder, "whole-ok.caf", frames: 8000, period: 80, loops: [])
        #expect(
            AssetValidator(profile: profile).validate(path: wholeSeamless).violations.filter { $0.rule == "loop-seam" }
                .isEmpty)
    }

    /// A loop over whole periods of a sawtooth, a square or a triangle wraps on the wave's own edge or vertex:
    /// the step or bend there is the sound's own, so it plays seamlessly and is not flagged (a user's trial found
    /// them flagged at 39.9 dB and 15.2 dB); the same waves cut short mid-ramp still are where the cut is sharper
    /// than anything the wave does near it (the triangle's), and a sine's cut still is.
    @Test func aWrapOnTheWavesOwnEdgeIsNotAClick() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shapes: [(String, (Double) -> Double)] = [
            ("saw", { 2 * $0 - 1 }), ("square", { $0 < 0.5 ? 1 : -1 }), ("triangle", { 1 - 4 * abs($0 - 0.5) }),
        ]
        let validator = AssetValidator(profile: .gameSoundEffects)
        for (name, shape) in shapes {
            let whole = try Self.file(
                folder, name + ".caf", frames: 8000, period: 80,
                loops: [Loop(start: 800, end: 800 + 80 * 50, playMode: .forward)], shape: shape)
            let statistics = try #require(try validator.measureAudio(of: try AudioFile(path: whole)))
            let seam = try #require(statistics.loopSeams.first)
            #expect(seam.soundMovesAsSharply, "\(name): \(seam)")
            #expect(validator.validate(path: whole).violations.filter { $0.rule == "loop-seam" }.isEmpty, "\(name)")
        }
        // The triangle cut a quarter period short: its wrap jumps where the wave only bends.
        let cut = try Self.file(
            folder, "triangle-cut.caf", frames: 8000, period: 80,
            loops: [Loop(start: 800, end: 800 + 80 * 50 - 20, playMode: .forward)], shape: shapes[2].1)
        #expect(validator.validate(path: cut).violations.filter { $0.rule == "loop-seam" }.count == 1)
    }

    /// leading-silence counts what is below its threshold: a tone at -40 dBFS after 0.1 s of silence
    /// starts at 0.1 s at -60 dBFS, and never at -30 (the whole file is silence in those terms).
    @Test func silenceThresholds() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.file(
            folder, "late.caf", frames: 8000, period: 80, toneStart: 800, amplitude: 0.01, loops: [])
        var profile = Profile.systemSound
        profile.apply([("leading-silence", .object([("maximumSeconds", .number(0.05))]))])
        let late = AssetValidator(profile: profile).validate(path: path).violations.filter {
            $0.rule == "leading-silence"
        }
        #expect(late.count == 1)
        #expect(late.first?.message.contains("0.100 s") == true)
        profile.apply([("leading-silence", .object([("thresholdDecibels", .number(-30))]))])
        let quiet = AssetValidator(profile: profile).validate(path: path).violations.filter {
            $0.rule == "leading-silence"
        }
        #expect(quiet.first?.message.contains("silent throughout (below -30 dBFS)") == true)
    }

    /// The meter is fed by the validator's own decode pass: every valid frame, once.
    @Test func oneDecodePass() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.file(folder, "tone.caf", frames: 12345, period: 80, loops: [])
        let meter = FixedMeter(facts: LoudnessFacts(integrated: -30, range: 0, truePeak: -6, samplePeak: -6))
        var validator = AssetValidator(profile: .gameSoundEffects)
        validator.loudnessMeter = { _, _ in meter }
        let violations = validator.validate(path: path).violations
        #expect(meter.frames == 12345)
        #expect(violations.contains { $0.rule == "loudness" && $0.message.contains("-30") })
    }
}
