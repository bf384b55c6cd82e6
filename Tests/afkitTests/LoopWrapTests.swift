import Foundation
import Testing

/// A lossy output that loops whole (issue 71): AAC's encoder codes a sound's start out of silence and its end into
/// it, so a loop that wraps seamlessly in its source clicked once encoded (the loop-seam rule's bend over 12 dB).
/// Given the loop's last frames before its first and its first after its last, recorded as priming and remainder,
/// the encoder codes the wrap as the loop plays it. The source: a chord of whole periods in one second, plain and with
/// a WAV 'smpl' loop over all of it (Tests/Fixtures/make-loop-wrap-fixtures.sh).
@Suite struct LoopWrapTests {
    /// The decoded wrap of `path` as the validator's loop-seam rule measures it (the larger of its step and bend,
    /// dB over the signal's movement), the whole file taken as one loop; -infinity where the rule finds nothing even
    /// at -200 dB: a wrap no sharper than the sound's own moves beside it (`LoopSeam.soundMovesAsSharply`, a
    /// seamless wrap's case) is no click at any limit.
    static func seam(_ path: String, in folder: String) throws -> Double {
        let profile = folder + "/wrap.json"
        try
            #"{ "name": "wrap", "extends": "music", "rules": { "loop-seam": { "wholeFile": true, "maximumDecibels": -200 } } }"#
            .write(toFile: profile, atomically: true, encoding: .utf8)
        let result = try Command.run(["validate", "--profile", profile, "--format", "json", path])
        let files = (result.json as? [String: Any])?["files"] as? [[String: Any]] ?? []
        let messages = (files.first?["violations"] as? [[String: Any]] ?? []).filter {
            $0["rule"] as? String == "loop-seam"
        }
        .compactMap { $0["message"] as? String }
        #expect(files.count == 1, "\(result.stdout)")
        guard let message = messages.first else { return -.infinity }
        // "the loop 0-44100 wraps with a bend 17.3 dB over ..."
        let words = message.split(separator: " ")
        let index = try #require(words.firstIndex(of: "dB"), "\(message)")
        return try #require(Double(words[index - 1]), "\(message)")
    }

    @Test(arguments: [64000, 96000, 128000])
    func aWholeLoopWrapsAsItPlays(_ bitRate: Int) throws {
        let folder = try ScratchFolder()
        let rate = String(bitRate)
        // Without a loop declared, the wrap is coded out of silence and into it: a click.
        let plain = folder.path + "/plain.m4a"
        let unlooped = try Command.run(["convert", "loops/chord.wav", "-d", "aac", "-b", rate, plain])
        #expect(unlooped.status == 0, "\(unlooped.stderr)")
        #expect(!unlooped.stderr.contains("loops whole"))
        let before = try Self.seam(plain, in: folder.path)
        #expect(before > 12, "\(bitRate): \(before) dB")
        #expect(try Self.seam(Command.fixtures + "/loops/chord.wav", in: folder.path) < 8)
        for name in ["looped.m4a", "looped.caf"] {
            let looped = folder.path + "/" + name
            let result = try Command.run(["convert", "loops/chord-loop.wav", "-d", "aac", "-b", rate, looped])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("the output loops whole: the encoder was given the loop's last 2048 frames"))
            let after = try Self.seam(looped, in: folder.path)
            // (Measured: 13.4, 18.1 and 17.3 dB without the wrap at 64, 96 and 128 kbit/s; 10.0, 2.6 and 5.8 with it.
            // FFmpeg's decode, which honours the edit list's start, gives afkit's valid frames sample for sample.)
            #expect(
                after < 12 && after < before - 3, "\(bitRate), \(name): \(after) dB (\(before) dB without the wrap)")
            // The valid frames are the loop's own, the wrap counted as priming and remainder.
            let info = try #require((try Command.run(["info", "--json", looped]).json as? [[String: Any]])?.first)
            #expect(info["frameCount"] as? Int == 44100)
            #expect(info["primingFrames"] as? Int == 1024 + 2048, "\(info)")
            let remainder = try #require(info["remainderFrames"] as? Int)
            #expect(remainder >= 2048 && remainder < 2048 + 1024, "\(info)")
        }
    }

    /// hls's renditions are streams that play once (and packed audio plays what the priming covers): no wrap.
    @Test func streamsAreNotWrapped() throws {
        let folder = try ScratchFolder()
        let result = try Command.run([
            "hls", "loops/chord-loop.wav", "--out", folder.path + "/package", "--segment-type", "packed",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("loops whole"), "\(result.stderr)")
    }
}
