import Foundation
import Testing

/// `--normalize-peak` on the command line (issue 71): what contradicts it is refused before anything is read, and
/// batch says what it did per file.
@Suite struct PeakNormalizationCommandTests {
    /// `--normalize-peak` with `--loudness` or `--gain`, or out of range: refused before anything is read.
    @Test func peakNormalizationRefusesWhatContradictsIt() throws {
        let folder = try ScratchFolder()
        for (arguments, message) in [
            (["--normalize-peak", "-1", "--loudness", "-16"], "--normalize-peak and --loudness each set the gain"),
            (["--normalize-true-peak", "-1", "--gain", "3"], "--normalize-true-peak sets the gain itself"),
            (["--normalize-peak", "3"], "--normalize-peak takes -120 to 0 dBFS"),
            (["--normalize-peak", "-1", "--normalize-true-peak", "-1"], "give one"),
        ] {
            let result = try Command.run(["convert"] + arguments + ["peak/source-s16.wav", folder.path + "/o.wav"])
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let batch = try Command.run([
            "batch", "--preset", "pcm", "--normalize-peak", "-1", "--out", folder.path + "/b", "peak/source-s16.wav",
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stderr.contains("note: sample peak -10.73 -> -1 dBFS: gain +9.73 dB"), "\(batch.stderr)")
    }

    /// The decoded true peak of `path`, dBTP, as validate measures it (to 0.01 dB).
    static func truePeak(_ path: String) throws -> Double {
        let report = try Command.run(["validate", "--profile", "simultaneous-sfx", "--format", "json", path])
        let files = try #require((report.json as? [String: Any])?["files"] as? [[String: Any]], "\(report.stderr)")
        let loudness = try #require((files.first?["audio"] as? [String: Any])?["loudness"] as? [String: Any])
        return try #require(loudness["truePeak"] as? Double, "\(loudness)")
    }

    /// `--normalize-true-peak` into lossy and ADPCM outputs lands within the documented 0.1 dB of its level, as
    /// decoded: IMA4 in CAF (`--preset sfx`, and `-d ima4` at the source's rate) and AAC in M4A, for a click, a voice
    /// line and a tone with a spike. The IMA4 encoder moves a click's peak by up to 0.6 dB, and one re-aim by the
    /// miss left -1.34 and -1.68 dBTP for -1.5 (and -2.09 for this click); the gain is now aimed again until within
    /// 0.1 dB, at most 12 encodes. Where no gain gets there (IMA4's peak for this click jumps from -1.78 to -0.72
    /// dBTP as the gain rises; AAC's moves by up to 0.6 dB for 0.1 dB of gain), the nearest peak under the level is
    /// kept and the note says so: never over it (4 of these 18 outputs, when written).
    @Test func lossyAndADPCMOutputsLandWithinATenth() throws {
        let folder = try ScratchFolder()
        _ = try FixesMakeNothingWorseTests.hot(in: folder.path)
        let sources = [folder.path + "/click.wav", folder.path + "/voice-line.wav", "peak/source-s16.wav"]
        var jumped = 0
        for (index, source) in sources.enumerated() {
            for (options, name) in [
                (["--preset", "sfx"], "sfx.caf"), (["-d", "ima4"], "ima4.caf"), (["-d", "aac"], "aac.m4a"),
            ] {
                for level in [-1.5, -1.0] {
                    let output = folder.path + "/\(index)-\(level)-" + name
                    let result = try Command.run(
                        ["convert"] + options + ["--normalize-true-peak", shortLevel(level), source, output])
                    #expect(result.status == 0, "\(source) \(options): \(result.stderr)")
                    let peak = try Self.truePeak(output)
                    // (validate gives the peak to 0.01 dB.)
                    if result.stderr.contains("reaches no peak within 0.1 dB of \(shortLevel(level)) dBTP") {
                        #expect(peak < level, "\(source) \(options): \(result.stderr)")
                        jumped += 1
                    } else {
                        #expect(abs(peak - level) <= 0.105, "\(source) \(options) at \(level): \(peak) dBTP")
                    }
                }
            }
        }
        #expect(jumped <= 6, "\(jumped) of 18 outputs kept short of the level")
    }
}

private func shortLevel(_ level: Double) -> String { level == level.rounded() ? "\(Int(level))" : "\(level)" }
