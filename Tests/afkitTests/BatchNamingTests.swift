import Foundation
import Testing

/// `batch --name PATTERN` (issue 49): outputs named by `{stem}`, `{ext}`, `{dir}` and `{preset}`; every collision
/// found before any work and reported in one message, with the pattern that separates them.
@Suite struct BatchNamingTests {
    @Test func everyCollisionInOneMessageAndThePatternThatSeparatesThem() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/src"
        try FileManager.default.createDirectory(atPath: source + "/sub", withIntermediateDirectories: true)
        // Three stems, each as WAV and AIFF (converted to AIFF by afkit itself), and one more in a subfolder.
        for stem in ["a", "b", "c"] {
            try toneWAV(source + "/\(stem).wav", seconds: 0.1)
            let aiff = try Command.run(["convert", source + "/\(stem).wav", source + "/\(stem).aif"])
            #expect(aiff.status == 0, "\(aiff.stderr)")
        }
        try toneWAV(source + "/sub/a.wav", seconds: 0.1)
        let out = folder.path + "/out"
        let clashing = try Command.run(["batch", "--preset", "pcm", "--out", out, source])
        #expect(clashing.status == 1, "\(clashing.stderr)")
        for stem in ["a", "b", "c"] {
            #expect(
                clashing.stderr.contains(
                    "batch: error: '\(source)/\(stem).aif' and '\(source)/\(stem).wav' would both be written to "
                        + "'\(out)/\(stem).caf'\n"), "\(clashing.stderr)")
        }
        #expect(clashing.stderr.contains("batch: error: 3 outputs would each be made from more than one source"))
        // Every line in the contract's message form, `batch: error: TEXT` (the collisions' lines had no `error:`).
        let lines = clashing.stderr.split(separator: "\n")
        #expect(lines.count == 4 && lines.allSatisfy { $0.hasPrefix("batch: error: ") }, "\(clashing.stderr)")
        #expect(clashing.stderr.contains("give --name '{dir}/{stem}-{ext}'"), "\(clashing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is made before the collisions are solved")
        // The pattern offered converts them all; the subfolder is kept by {dir}.
        let named = try Command.run(["batch", "--preset", "pcm", "--out", out, "--name", "{dir}/{stem}-{ext}", source])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(
            folder.files == [
                "out/a-aif.caf", "out/a-wav.caf", "out/b-aif.caf", "out/b-wav.caf", "out/c-aif.caf", "out/c-wav.caf",
                "out/sub/a-wav.caf",
            ] + ["a.aif", "a.wav", "b.aif", "b.wav", "c.aif", "c.wav", "sub/a.wav"].map { "src/" + $0 })
        // The name is part of what an output records: the same run again finds every output current.
        let again = try Command.run(["batch", "--preset", "pcm", "--out", out, "--name", "{dir}/{stem}-{ext}", source])
        #expect(again.stdout == "7 files: 0 converted, 7 up to date, 0 failed\n", "\(again.stdout)")
        // Without {dir}, the outputs go straight into --out: the subfolder's a.wav then meets src/a.wav, and the
        // message offers the pattern with {dir}.
        let flat = try Command.run([
            "batch", "--preset", "pcm", "--out", folder.path + "/flat", "--name", "{stem}-{ext}", source,
        ])
        #expect(flat.status == 1 && flat.stderr.contains("sub/a.wav"), "\(flat.stderr)")
        #expect(flat.stderr.contains("give --name '{dir}/{stem}-{ext}'"), "\(flat.stderr)")
        // {preset}, and the output extension from the container whatever the pattern says.
        let preset = try Command.run([
            "batch", "--preset", "pcm", "-f", "WAVE", "--out", folder.path + "/p", "--name", "{preset}/{stem}.{ext}",
            source + "/sub",
        ])
        #expect(preset.status == 0, "\(preset.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/p/pcm/a.wav.wav"))
        // An unknown placeholder, or a name that leaves --out, is a usage error.
        for pattern in ["{name}", "../{stem}", "/tmp/{stem}", "{stem"] {
            let refused = try Command.run(["batch", "--preset", "pcm", "--out", out, "--name", pattern, source])
            #expect(refused.status == 2, "\(pattern): \(refused.stderr)")
        }
    }
}
