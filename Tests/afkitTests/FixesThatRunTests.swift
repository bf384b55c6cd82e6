import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Fixes that run (issue 71): for a source in every container afkit reads that fails a rule with a fix, every fix
/// `validate --format json` names is one command, run as printed it exits 0, and what it writes passes the profile.
/// A lossy file's fix says it is better run on the source; a fix never writes over another file.
@Suite struct FixesThatRunTests {
    /// The containers a source is made in by afkit itself (`convert -d 0` where the container holds the WAV's PCM,
    /// else its own codec), and the Ogg Vorbis sources oggenc made (make-fix-fixtures.sh).
    static let madeExtensions = ["wav", "aif", "caf", "flac", "mp3", "m4a", "aac", "opus"]

    /// The sources: a tone too long (31 s), one with 3 channels, one at 96 kHz, one starting with 1 s of silence.
    static func sources(in folder: String) throws -> [(name: String, rule: String)] {
        let wavs: [(String, String)] = [
            ("long", "duration"), ("wide", "channels"), ("fast", "sample-rate"), ("quiet-start", "silence"),
        ]
        try toneWAV(folder + "/long.wav", seconds: 31)
        try toneWAV(folder + "/wide.wav", seconds: 1, rate: 48000, channels: 3)
        try toneWAV(folder + "/fast.wav", seconds: 1, rate: 96000)
        let tone = (0..<44100).map { Int16(16384 * sin(2 * Double.pi * 440 * Double($0) / 44100)) }
        try pcmWAV(
            folder + "/quiet-start.wav", rate: 44100, channels: 1, samples: [Int16](repeating: 0, count: 44100) + tone)
        var made: [(String, String)] = []
        for (base, rule) in wavs {
            for ext in madeExtensions where ext != "wav" {
                let name = "\(base)-src.\(ext)"
                let converted = try Command.run(["convert", folder + "/\(base).wav", folder + "/" + name])
                #expect(converted.status == 0, "\(name): \(converted.stderr)")
                made.append((name, rule))
            }
            made.append(("\(base).wav", rule))
            let vorbis = Command.fixtures + "/fixes/\(base).ogg"
            try FileManager.default.copyItem(atPath: vorbis, toPath: folder + "/\(base)-vorbis.ogg")
            made.append(("\(base)-vorbis.ogg", rule))
        }
        return made
    }

    /// The violations `validate --format json` reports for `path`.
    static func violations(_ path: String, profile: String = "system-sound") throws -> [[String: Any]] {
        let report = try Command.run(["validate", "--profile", profile, "--format", "json", path])
        let files = try #require((report.json as? [String: Any])?["files"] as? [[String: Any]], "\(report.stderr)")
        return files.first?["violations"] as? [[String: Any]] ?? []
    }

    @Test func everyFixRunsAndItsOutputPasses() throws {
        let folder = try ScratchFolder()
        var checked = 0
        for (name, rule) in try Self.sources(in: folder.path) {
            let path = folder.path + "/" + name
            let found = try Self.violations(path)
            // A codec or container that cannot hold the flaw (MP3's two channels, Opus's 48 kHz) has nothing to fix.
            guard let flagged = found.first(where: { $0["rule"] as? String == rule }) else {
                #expect(["mp3", "opus", "aac", "m4a"].contains(nameExtension(name)), "\(name): no \(rule) in \(found)")
                continue
            }
            let fix = try #require(flagged["fix"] as? String, "\(name): \(rule) has no fix")
            // One command for the file: every finding with a fix names the same.
            let fixes = Set(found.compactMap { $0["fix"] as? String }.filter { $0.hasPrefix("afkit convert ") })
            #expect(fixes == [fix], "\(name): \(fixes)")
            let lossy = ["mp3", "m4a", "aac", "opus", "ogg"].contains(nameExtension(name))
            #expect(((flagged["fixNote"] as? String)?.contains("source") ?? false) == lossy, "\(name): \(flagged)")
            let fixed = try FixCommandTests.run(fix)
            #expect(fixed != path, "\(fix)")
            let after = try Self.violations(fixed)
            #expect(after.isEmpty, "\(fix) leaves \(after)")
            try FileManager.default.removeItem(atPath: fixed)
            checked += 1
        }
        #expect(checked >= 30)
    }

    /// A lossy file's loudness fix (the music profile) encodes its own codec again by name (`-d 0` copies AAC's
    /// packets and cannot change them), says the fix is better run on the source, and its output passes.
    @Test func aLossyFilesLoudnessFixRunsAndPointsToTheSource() throws {
        let folder = try ScratchFolder()
        try toneWAV(folder.path + "/tone.wav", seconds: 3, rate: 44100)
        let quiet = folder.path + "/quiet.m4a"
        #expect(try Command.run(["convert", "--gain", "-20", folder.path + "/tone.wav", quiet]).status == 0)
        let found = try Self.violations(quiet, profile: "music")
        let loudness = try #require(found.first { $0["rule"] as? String == "loudness" }, "\(found)")
        let fix = try #require(loudness["fix"] as? String)
        #expect(fix.contains("-d aac") && fix.contains("--loudness -16"), "\(fix)")
        #expect((loudness["fixNote"] as? String)?.contains("second generation") == true)
        let fixed = try FixCommandTests.run(fix)
        #expect(fixed.hasSuffix("quiet-fixed.m4a"), "\(fix)")
        #expect(try Self.violations(fixed, profile: "music").allSatisfy { $0["severity"] as? String != "error" })
        #expect(try !Self.violations(fixed, profile: "music").contains { $0["rule"] as? String == "loudness" })
    }

    /// A lossy MP3's loudness fix keeps the file's encoding (issue 71), where it wrote LAME's 192 kbit/s CBR default
    /// (a 79 kbit/s VBR file more than doubled): a VBR level the LAME tag states (`-V 2`: `-s 3 -q 99`), an ABR's
    /// rate, a CBR's rate, and a VBR level the tag leaves unsaid (LAME writes `-V 5` to `-V 9`'s alike) as an ABR at
    /// the stream's average. Run as printed, each output is of that kind, near the file's size, and passes.
    @Test func aLossyMP3sLoudnessFixKeepsItsEncoding() throws {
        let folder = try ScratchFolder()
        let cases: [(name: String, mode: BitRateMode, options: String, kind: (BitRateMode?) -> Bool)] = [
            ("loud-v2", .variable(level: 2), "-d .mp3 -s 3 -q 99 ", { $0 == .variable(level: 2) }),
            ("loud-v7", .variable(level: nil), "-d .mp3 -s 1 -b ", { if case .average = $0 { true } else { false } }),
            ("loud-abr96", .average(bitRate: 96000), "-d .mp3 -s 1 -b 96000 ", { $0 == .average(bitRate: 96000) }),
            ("loud-cbr96", .constant, "-d .mp3 -b 96000 ", { $0 == .constant }),
        ]
        for (name, mode, options, kind) in cases {
            let path = folder.path + "/\(name).mp3"
            try FileManager.default.copyItem(atPath: Command.fixtures + "/fixes/\(name).mp3", toPath: path)
            #expect(try AudioFile(path: path).properties.bitRateMode == mode, "\(name)")
            let found = try Self.violations(path, profile: "music")
            let fix = try #require(
                found.first { $0["rule"] as? String == "loudness" }?["fix"] as? String, "\(name): \(found)")
            #expect(fix.contains(options) && fix.contains(" --loudness -16 "), "\(fix)")
            let fixed = try FixCommandTests.run(fix)
            let output = try AudioFile(path: fixed)
            #expect(kind(output.properties.bitRateMode), "\(fix): \(String(describing: output.properties.bitRateMode))")
            let sizes = try [path, fixed].map {
                try #require(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int)
            }
            #expect(
                Double(sizes[1]) / Double(sizes[0]) < 1.5 && Double(sizes[1]) / Double(sizes[0]) > 0.5,
                "\(fix): \(sizes)")
            #expect(try !Self.violations(fixed, profile: "music").contains { $0["rule"] as? String == "loudness" })
        }
    }

    /// Channels out of phase are taken, not mixed (issue 71: the game-sfx fix `-c 1` of a stereo sound whose right
    /// channel inverts its left wrote silence, with no note): the channels finding says they cancel and its fix
    /// takes the left channel (`-m 0`), aimed at the profile's loudness from that channel; run as printed, its output
    /// passes. `convert -c 1` says the mix cancels, and with `--loudness` the refusal says the mix is silent, not
    /// the source. Partly out of phase, both say so by one bound; uncorrelated, neither does.
    @Test func outOfPhaseChannelsAreTakenNotMixed() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/inverted.wav"
        let tone = (0..<44100).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 44100)) }
        try pcmWAV(path, rate: 44100, channels: 2, samples: tone.flatMap { [$0, -$0] })
        let found = try Self.violations(path, profile: "game-sfx")
        let channels = try #require(found.first { $0["rule"] as? String == "channels" }, "\(found)")
        #expect((channels["message"] as? String)?.contains("they cancel") == true, "\(channels)")
        let fix = try #require(channels["fix"] as? String)
        #expect(fix.contains(" -m 0 ") && !fix.contains("-c 1") && fix.contains("--loudness -18"), "\(fix)")
        let fixed = try FixCommandTests.run(fix)
        #expect(try AudioFile(path: fixed).dataFormat.channelsPerFrame == 1)
        #expect(try Self.violations(fixed, profile: "game-sfx").isEmpty, "\(fix)")
        let mixed = try Command.run(["convert", "-c", "1", path, folder.path + "/mixed.wav"])
        #expect(mixed.status == 0 && mixed.stderr.contains("note: mixed to 1 channel, the sound cancels"), "\(mixed)")
        let level = try Command.run(["convert", "-c", "1", "--loudness", "-18", path, folder.path + "/level.wav"])
        #expect(level.status == 1 && level.stderr.contains("mixed to 1 channel, is silent"), "\(level.stderr)")
        // Partly out of phase (correlation -0.7, equal levels: the mono mix 8 dB down), the validator and the
        // converter name it alike, by one bound (the converter once said nothing short of 12 dB).
        let partly = folder.path + "/partly.wav"
        let other = (0..<44100).map { 8000 * sin(2 * Double.pi * 1234 * Double($0) / 44100) }
        try pcmWAV(
            partly, rate: 44100, channels: 2,
            samples: tone.indices.flatMap { [tone[$0], Int16(-0.7 * Double(tone[$0]) + 0.714 * other[$0])] })
        let partlyFound = try Self.violations(partly, profile: "game-sfx")
        let partlyChannels = try #require(partlyFound.first { $0["rule"] as? String == "channels" }, "\(partlyFound)")
        #expect((partlyChannels["message"] as? String)?.contains("they cancel") == true, "\(partlyChannels)")
        let partlyMixed = try Command.run(["convert", "-c", "1", partly, folder.path + "/partly-mixed.wav"])
        #expect(partlyMixed.stderr.contains("the sound cancels: it is 8 dB quieter"), "\(partlyMixed)")
        // In phase but uncorrelated (3 dB down), neither says it cancels.
        let apart = folder.path + "/apart.wav"
        try pcmWAV(apart, rate: 44100, channels: 2, samples: tone.indices.flatMap { [tone[$0], Int16(other[$0])] })
        let apartMixed = try Command.run(["convert", "-c", "1", apart, folder.path + "/apart-mixed.wav"])
        #expect(apartMixed.status == 0 && !apartMixed.stderr.contains("cancels"), "\(apartMixed)")
        let apartFound = try Self.violations(apart, profile: "game-sfx")
        #expect(!apartFound.contains { ($0["message"] as? String)?.contains("they cancel") == true }, "\(apartFound)")
    }

    /// The fix never writes over another file: a µ-law `a.aifc`'s fix (the preset, into CAF) goes to `a-fixed.caf`
    /// where an `a.caf` is there.
    @Test func aFixNeverReplacesAnotherFile() throws {
        let folder = try ScratchFolder()
        try toneWAV(folder.path + "/a.wav", seconds: 31)
        #expect(
            try Command.run(["convert", "-d", "ulaw", folder.path + "/a.wav", folder.path + "/a.aifc"]).status == 0)
        let fix = try #require(try Self.violations(folder.path + "/a.aifc").first?["fix"] as? String)
        #expect(fix.hasSuffix("/a.caf"), "\(fix)")
        #expect(try Command.run(["convert", folder.path + "/a.wav", folder.path + "/a.caf"]).status == 0)
        let again = try #require(try Self.violations(folder.path + "/a.aifc").first?["fix"] as? String)
        #expect(again.hasSuffix("/a-fixed.caf"), "\(again)")
    }

    /// Fixes of one run never write the same output (issue 71): a µ-law `x.wav` and `x.aifc` fail data-format and
    /// are both fixed into CAF by the preset; checked together (the folder, or the files by two spellings of one
    /// folder), one fix writes `x.caf` and the other the next free name (`x-fixed.caf`, past an `x-fixed.caf`
    /// already there `x-fixed-2.caf`); every fix runs and its output passes.
    @Test func fixesOfOneRunNeverShareAnOutput() throws {
        let folder = try ScratchFolder()
        for name in ["x.wav", "x.aifc"] { _ = try convertedTone(["-d", "ulaw"], into: folder.path, name) }
        func fixes(_ paths: [String]) throws -> [String] {
            let report = try Command.run(["validate", "--format", "json"] + paths)
            let files = try #require((report.json as? [String: Any])?["files"] as? [[String: Any]], "\(report.stderr)")
            return try files.map { file in
                let violations = file["violations"] as? [[String: Any]] ?? []
                return try #require(violations.compactMap { $0["fix"] as? String }.first, "\(file)")
            }
        }
        let outputs = { (fixes: [String]) in fixes.map { String($0.split(separator: " ").last ?? "") } }
        let together = try fixes([folder.path])
        #expect(together.count == 2)
        #expect(Set(outputs(together)) == [folder.path + "/x.caf", folder.path + "/x-fixed.caf"], "\(together)")
        // Two spellings of one folder are one place.
        let spelled = try fixes([folder.path + "/x.wav", folder.path + "/./x.aifc"])
        #expect(Set(outputs(spelled).map { $0.replacingOccurrences(of: "/./", with: "/") }).count == 2, "\(spelled)")
        // Past a -fixed name already there.
        try Data().write(to: URL(fileURLWithPath: folder.path + "/x-fixed.caf"))
        let past = try fixes([folder.path + "/x.wav", folder.path + "/x.aifc"])
        #expect(outputs(past) == [folder.path + "/x.caf", folder.path + "/x-fixed-2.caf"], "\(past)")
        try FileManager.default.removeItem(atPath: folder.path + "/x-fixed.caf")
        // Each runs, as printed, and what it wrote passes.
        for fix in together {
            let fixed = try FixCommandTests.run(fix)
            #expect(try Self.violations(fixed).allSatisfy { $0["severity"] as? String != "error" }, "\(fix)")
        }
    }

    /// The presets' rates are one table (`PresetSampleRate`): a fix by a preset that already brings the rate low
    /// enough adds no `-ar` (a 96 kHz µ-law file under the music profile: `--preset music`, which writes 48 kHz at
    /// most), and its output has the table's rate.
    @Test func aPresetFixTakesThePresetsOwnRate() throws {
        let folder = try ScratchFolder()
        let made = try convertedTone(["-d", "ulaw"], into: folder.path, "fast-ulaw.wav", rate: 96000)
        for (profile, preset) in [("music", "music"), ("game-sfx", "sfx")] {
            let found = try Self.violations(made, profile: profile)
            let fix = try #require(found.compactMap { $0["fix"] as? String }.first, "\(profile): \(found)")
            #expect(fix.contains("--preset \(preset)") && !fix.contains("-ar "), "\(fix)")
            let fixed = try FixCommandTests.run(fix)
            let rate = try AudioFile(path: fixed).dataFormat.sampleRate
            #expect(rate == PresetSampleRate.of(preset: preset).highest, "\(fix): \(rate) Hz")
            #expect(try !Self.violations(fixed, profile: profile).contains { $0["rule"] as? String == "sample-rate" })
            try FileManager.default.removeItem(atPath: fixed)
        }
    }

    /// The fixtures: for the first files of every extension a container afkit reads declares (the registry's),
    /// every `afkit convert` fix `validate` suggests runs as printed, and its output has no error and no warning the
    /// file did not have already (a finding no fix claims, such as an AAC source's decoded overs, may stay).
    @Test func everyFixForTheFixturesRuns() throws {
        let folder = try ScratchFolder()
        let unread = ["hostile", "fuzz-regressions", "refused"]
        let found = try FileManager.default.subpathsOfDirectory(atPath: Command.fixtures).sorted().filter { path in
            ContainerRegistry.walkedExtensions.contains(nameExtension(path).lowercased())
                && !unread.contains(where: { path.hasPrefix($0 + "/") })
        }
        var picked: [String: [String]] = [:]
        for path in found where picked[nameExtension(path).lowercased(), default: []].count < 2 {
            picked[nameExtension(path).lowercased(), default: []].append(path)
        }
        var ran = 0
        for path in picked.values.joined() {
            let copy = folder.path + "/" + path.replacingOccurrences(of: "/", with: "_")
            try FileManager.default.copyItem(atPath: Command.fixtures + "/" + path, toPath: copy)
            let before = try Self.violations(copy)
            let kept = Set(before.filter { $0["fix"] == nil }.compactMap { $0["rule"] as? String })
            let fixes = Set(before.compactMap { $0["fix"] as? String }.filter { $0.hasPrefix("afkit convert ") })
            for fix in fixes {
                let fixed = try FixCommandTests.run(fix)
                let after = try Self.violations(fixed)
                let left = after.filter {
                    $0["severity"] as? String == "error" || !kept.contains($0["rule"] as? String ?? "")
                }
                #expect(left.isEmpty, "\(path): \(fix) leaves \(left)")
                try? FileManager.default.removeItem(atPath: fixed)
                ran += 1
            }
        }
        #expect(picked.count >= 15 && ran >= 20, "\(picked.keys.sorted()): \(ran) fixes")
    }

    /// A file with no audio frames (an fMP4 init segment) gets no fix: converting it would make an output as empty,
    /// failing `empty` as the file does.
    @Test func aFileWithNoAudioGetsNoFix() throws {
        let found = try Self.violations("hls/ffmpeg-fmp4/init.mp4")
        #expect(found.contains { $0["rule"] as? String == "empty" }, "\(found)")
        #expect(found.contains { $0["rule"] as? String == "container" }, "\(found)")
        #expect(found.allSatisfy { $0["fix"] == nil }, "\(found)")
    }
}

private func nameExtension(_ path: String) -> String { String(path.split(separator: ".").last ?? "") }
