import Foundation
import Testing

/// `--dynamic` and `--linear` on the command line (issue 71): they go with `--loudness`, one at a time, and the voice
/// preset levels speech unless told otherwise.
@Suite struct LevelerCommandTests {
    @Test func dynamicAndLinearAreCheckedAndTheVoicePresetLevels() throws {
        let folder = try ScratchFolder()
        for (arguments, message) in [
            (["--dynamic"], "--dynamic and --linear go with --loudness"),
            (["--loudness", "-16", "--dynamic", "--linear"], "--dynamic and --linear: give one"),
        ] {
            let result = try Command.run(
                ["convert"] + arguments + ["speech/two-speakers.opus", folder.path + "/o.wav"])
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let voice = try Command.run([
            "batch", "--preset", "voice", "--loudness", "-18", "--out", folder.path + "/voice",
            "speech/two-speakers.opus",
        ])
        #expect(voice.status == 0, "\(voice.stderr)")
        #expect(voice.stderr.contains("note: loudness range "), "\(voice.stderr)")
        let linear = try Command.run([
            "convert", "--preset", "voice", "--loudness", "-20", "--linear", "speech/two-speakers.opus",
            folder.path + "/linear.caf",
        ])
        #expect(linear.status == 0, "\(linear.stderr)")
        #expect(!linear.stderr.contains("loudness range"), "\(linear.stderr)")
        #expect(linear.stderr.contains("note: loudness "), "\(linear.stderr)")
    }
}
