import AudioContainers
import Foundation
import Testing

/// Fixes keep what the user chose (issue 49): each fix the validator suggests, run as it is written, clears its
/// rule and keeps the file's data format (an IMA4 file too long is cut as IMA4); a batch report's fix remakes the
/// output from its source with the batch's options, beside the output (the batch's next run leaves it be).
@Suite struct FixCommandTests {
    /// The fixes `validate --format json` suggests for `path`, by rule.
    static func fixes(_ path: String, profile: String = "system-sound") throws -> [String: String] {
        let report = try Command.run(["validate", "--profile", profile, "--format", "json", path])
        let files = try #require((report.json as? [String: Any])?["files"] as? [[String: Any]])
        var fixes: [String: String] = [:]
        for violation in files.first?["violations"] as? [[String: Any]] ?? [] {
            if let rule = violation["rule"] as? String, let fix = violation["fix"] as? String { fixes[rule] = fix }
        }
        return fixes
    }

    /// Runs a fix command as a shell would (`afkit` being the built binary); returns the output it names last.
    static func run(_ fix: String) throws -> String {
        #expect(fix.hasPrefix("afkit convert "), "\(fix)")
        let result = try bash("\"$AFKIT\" " + fix.dropFirst("afkit ".count))
        #expect(result.status == 0, "\(fix): \(result.stderr)")
        return String(fix.split(separator: " ").last ?? "")
    }

    /// The rules `validate` reports for `path`.
    static func rules(_ path: String, profile: String = "system-sound") throws -> Set<String> {
        let report = try Command.run(["validate", "--profile", profile, "--format", "json", path])
        let files = try #require((report.json as? [String: Any])?["files"] as? [[String: Any]])
        return Set((files.first?["violations"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String })
    }

    @Test func eachFixClearsItsRuleAndKeepsTheDataFormat() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/long.wav"
        try toneWAV(source, seconds: 31, rate: 2000, channels: 3)
        // IMA4 in CAF, 24-bit PCM in WAV, µ-law in AIFF-C: each too long and with too many channels. µ-law fails
        // data-format too: the one fix of the file is the profile's preset (16-bit PCM in CAF), cut.
        for (options, name, formatID, bits) in [
            (["-d", "ima4"], "long-ima4.caf", "ima4", 0), (["-d", "LEI24"], "long-24.wav", "lpcm", 24),
            (["-d", "ulaw"], "long-ulaw.aifc", "lpcm", 16),
        ] {
            let made = folder.path + "/" + name
            #expect(try Command.run(["convert"] + options + [source, made]).status == 0)
            let fixes = try Self.fixes(made)
            for rule in ["duration", "channels"] {
                let fix = try #require(fixes[rule], "\(name): no \(rule) fix in \(fixes)")
                let fixed = try Self.run(fix)
                #expect(try !Self.rules(fixed).contains(rule), "\(fix)")
                let file = try AudioFile(path: fixed)
                #expect(file.dataFormat.formatID.description == formatID, "\(fix)")
                #expect(Int(file.dataFormat.bitsPerChannel) == bits, "\(fix)")
                #expect(
                    nameExtension(fixed) == (formatID == "ulaw" || bits == 16 ? "caf" : nameExtension(made)),
                    "\(fix) keeps the container")
                #expect(try Self.rules(fixed).isDisjoint(with: ["duration", "channels", "data-format"]), "\(fix)")
                try FileManager.default.removeItem(atPath: fixed)
            }
        }
        // A profile of another limit: its own, by --profile or --duration.
        let profile = folder.path + "/short.json"
        try Data(#"{"name": "short", "rules": {"duration": {"maximumSeconds": 5}}}"#.utf8)
            .write(to: URL(fileURLWithPath: profile))
        let ima4 = folder.path + "/short.caf"
        #expect(try Command.run(["convert", "-d", "ima4", "-c", "1", source, ima4]).status == 0)
        let fix = try #require(try Self.fixes(ima4, profile: profile)["duration"])
        #expect(fix.contains("--duration 5"), "\(fix)")
        #expect(try !Self.rules(Self.run(fix), profile: profile).contains("duration"))
    }

    /// A rate above the profile's most: the fix resamples in the file's own format (IMA4 at 96 kHz becomes IMA4 at
    /// 48 kHz, not 16-bit PCM), and the rule clears.
    @Test func theRateFixKeepsTheDataFormat() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/fast.wav"
        try toneWAV(source, seconds: 1, rate: 96000, channels: 1)
        let made = folder.path + "/fast.caf"
        #expect(try Command.run(["convert", "-d", "ima4", source, made]).status == 0)
        let fix = try #require(try Self.fixes(made)["sample-rate"])
        #expect(fix.contains("-d ima4@48000"), "\(fix)")
        let fixed = try Self.run(fix)
        #expect(try !Self.rules(fixed).contains("sample-rate"), "\(fix)")
        let file = try AudioFile(path: fixed)
        #expect(file.dataFormat.formatID.description == "ima4" && file.dataFormat.sampleRate == 48000)
    }

    /// The first fix an HTML report at `report` gives that starts with `start`.
    static func reportedFix(in report: String, _ start: String) throws -> String {
        let html = try String(contentsOfFile: report, encoding: .utf8)
        let found = try #require(html.range(of: "fix: <code>" + start), "\(html)")
        let end = try #require(html[found.upperBound...].range(of: "</code>"))
        return String(html[found.lowerBound..<end.lowerBound].dropFirst("fix: <code>".count))
    }

    @Test func aBatchReportsFixRemakesTheOutputFromItsSource() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        let source = folder.path + "/src/long.wav"
        try toneWAV(source, seconds: 40)
        let report = folder.path + "/report.html"
        let out = folder.path + "/out"
        // pcm keeps 40 s; the report checks the outputs against system-sound, whose limit is 30 s.
        let batch = try Command.run([
            "batch", "--preset", "pcm", "--gain", "-3", "--out", out, "--report", report, "--profile", "system-sound",
            source,
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        let fix = try Self.reportedFix(in: report, "afkit convert --preset pcm")
        // The source and the batch's options, then the fix's own; the output beside the batch's own.
        #expect(fix == "afkit convert --preset pcm --gain=-3 --trim \(source) \(out)/long-fixed.caf", "\(fix)")
        let fixed = try Self.run(fix)
        #expect(try !Self.rules(fixed).contains("duration"))
        #expect(try AudioFile(path: fixed).properties.validFrameCount == 30 * 8000)
    }

    /// A source the system-sound preset refuses for its length (40 s, no --trim) is listed by the batch's report
    /// with a runnable fix: the duration rule's own, as validate names it for an output too long (the batch's
    /// options, then --trim at the profile's limit, beside the output it would have made), whose output re-validates
    /// clean on length. The report gave the conversion's error alone ("trim it, or convert with --trim").
    @Test func aBatchReportsSourceTooLongForThePresetHasARunnableLengthFix() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        let source = folder.path + "/src/long.wav"
        try toneWAV(source, seconds: 40)
        try toneWAV(folder.path + "/src/short.wav", seconds: 1)
        let report = folder.path + "/report.html"
        let out = folder.path + "/out"
        let batch = try Command.run([
            "batch", "--preset", "system-sound", "--gain", "-3", "--out", out, "--report", report, folder.path + "/src",
        ])
        #expect(batch.status == 1 && batch.stderr.contains("lasts 40.0 s; the limit is 30.0 s"), "\(batch.stderr)")
        let fix = try Self.reportedFix(in: report, "afkit convert --preset system-sound")
        #expect(
            fix == "afkit convert --preset system-sound --gain=-3 --trim \(source) \(out)/long-fixed.caf", "\(fix)")
        let fixed = try Self.run(fix)
        #expect(try !Self.rules(fixed).contains("duration"))
        #expect(try AudioFile(path: fixed).properties.validFrameCount == 30 * 8000)
        // A profile file with its own, shorter limit cuts there (--duration SECONDS), as validate's fix would.
        let profile = folder.path + "/short.json"
        try Data(#"{"name": "short", "extends": "system-sound", "rules": {"duration": {"maximumSeconds": 20}}}"#.utf8)
            .write(to: URL(fileURLWithPath: profile))
        let short = try Command.run([
            "batch", "--preset", "system-sound", "--profile", profile, "--out", folder.path + "/out2", "--report",
            report, source,
        ])
        #expect(short.status == 1, "\(short.stderr)")
        let cut = try Self.reportedFix(in: report, "afkit convert --preset system-sound")
        #expect(cut.contains(" --duration 20 "), "\(cut)")
        #expect(try !Self.rules(try Self.run(cut), profile: profile).contains("duration"), "\(cut)")
    }

    /// A batch report's fix for a hot output under a profile with no loudness rule (sfx's simultaneous-sfx) brings
    /// the true peak under the ceiling by one gain, in place of the batch's own --gain (the two each set the gain),
    /// and runs: it suggested a loudness held under a limiter (`--loudness -8.5 --true-peak -1`), which exited 1.
    @Test func aBatchReportsPeakFixRuns() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        _ = try FixesMakeNothingWorseTests.hot(in: folder.path + "/src")
        let report = folder.path + "/report.html"
        let out = folder.path + "/out"
        let source = folder.path + "/src/click.wav"
        let batch = try Command.run([
            "batch", "--preset", "sfx", "--gain", "2", "--out", out, "--report", report, source,
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        let fix = try Self.reportedFix(in: report, "afkit convert --preset sfx")
        #expect(
            fix == "afkit convert --preset sfx --normalize-true-peak -1.5 \(source) \(out)/click-fixed.caf", "\(fix)")
        let fixed = try Self.run(fix)
        let left = try Self.rules(fixed, profile: "simultaneous-sfx")
        #expect(!left.contains("true-peak") && !left.contains("clipping"), "\(left)")
    }

    /// A batch report's fix writes where the batch never reads or writes: the same batch run again after the fix finds
    /// every output up to date and leaves the fix's output as it was (it wrote over the batch's output, which the
    /// next run converted back).
    @Test func aBatchRunAfterItsReportsFixesConvertsNothing() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/src", withIntermediateDirectories: true)
        let sources = try FixesMakeNothingWorseTests.hot(in: folder.path + "/src").count
        let report = folder.path + "/report.html"
        let arguments = [
            "batch", "--preset", "sfx", "--gain", "2", "--out", folder.path + "/out", "--report", report,
            folder.path + "/src",
        ]
        let batch = try Command.run(arguments)
        #expect(batch.stdout == "\(sources) files: \(sources) converted, 0 up to date, 0 failed\n", "\(batch.stderr)")
        let fix = try Self.reportedFix(in: report, "afkit convert --preset sfx")
        let fixed = try Self.run(fix)
        let made = try Data(contentsOf: URL(fileURLWithPath: fixed))
        let again = try Command.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout == "\(sources) files: 0 converted, \(sources) up to date, 0 failed\n",
            "\(again.stdout) \(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixed)) == made)
    }
}

private func nameExtension(_ path: String) -> String { String(path.split(separator: ".").last ?? "") }
