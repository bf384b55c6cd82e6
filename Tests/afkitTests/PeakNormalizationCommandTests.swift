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
}
