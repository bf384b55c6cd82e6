import Foundation
import Testing

/// Chapters in an HLS package as Apple's players read them (issue 71): `EXT-X-SESSION-DATA` with
/// `DATA-ID="com.apple.hls.chapters"` in the master playlist and the JSON file it names ("Providing JavaScript Object
/// Notation (JSON) chapters": an array of entries with `chapter`, `start-time`, `duration` and `titles`), from
/// `--chapters` or carried from the source; and `validate --profile hls-audio`'s `hls-chapters` rule over it.
@Suite struct HLSChapterTests {
    let scratch = NSTemporaryDirectory() + "afkit-hls-chapters-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init() throws { try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true) }

    /// The chapters file's entries, as Foundation's JSON reader (not afkit's) reads them.
    static func entries(_ folder: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/chapters.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// `--chapters` (the SoX bursts at 0.5 s and 1 s, tests' chapters/): the master names the file, each entry has
    /// its number, start, duration and title (in the renditions' LANGUAGE), and validate passes the package. fMP4's
    /// edit list skips the encoder's priming, so its chapters start where written; packed audio presents the 1024
    /// priming frames (21.333 ms at 48 kHz), so its chapters start that much later, where its bursts are.
    @Test(arguments: ["fmp4", "packed"])
    func chaptersFromAFile(_ type: String) throws {
        let out = scratch + "/" + type
        let result = try Command.run([
            "hls", "chapters/bursts.wav", "--chapters", "chapters/bursts.txt", "--out", out, "--segment-type", type,
            "--segment-duration", "1", "--bitrates", "64k,96k", "--language", "fr",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(out)/chapters.json: 3 chapters"), "\(result.stdout)")
        let master = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
        #expect(master.contains("\n#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\"chapters.json\"\n"))
        let entries = try Self.entries(out)
        let shift = type == "packed" ? 1024.0 / 48000 : 0
        #expect(entries.map { $0["chapter"] as? Int } == [1, 2, 3])
        let starts = entries.map { ($0["start-time"] as? Double) ?? -1 }
        for (start, expected) in zip(starts, [0, 0.5, 1.0]) {
            #expect(abs(start - expected - shift) < 1e-6, "\(start)")
        }
        #expect(entries.map { ($0["duration"] as? Double).map { ($0 * 1e6).rounded() / 1e6 } } == [0.5, 0.5, 0.5])
        let titles = entries.map { $0["titles"] as? [[String: String]] }
        #expect(
            titles == [
                [["language": "fr", "title": "Opening"]], [["language": "fr", "title": "First burst – café"]],
                [["language": "fr", "title": "Second burst"]],
            ])
        let marker = try String(contentsOfFile: out + "/.afkit-package", encoding: .utf8)
        #expect(marker.contains("\nchapters.json\n"))
        let checked = try Command.run(["validate", "--profile", "hls-audio", "--format", "json", out + "/master.m3u8"])
        #expect(checked.status == 0, "\(checked.stdout)")
        #expect(!checked.stdout.contains("\"hls-chapters\""), "\(checked.stdout)")
        // The package is replaced as a whole the next time (its chapters file is afkit's).
        let again = try Command.run(["hls", "chapters/bursts.wav", "--out", out, "--segment-type", type])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/chapters.json"))
    }

    /// The source's chapters carried (afkit's M4A with its chapter track): the same titles and times; none where the
    /// source has none (no session data, no file).
    @Test func chaptersFromTheSource() throws {
        let out = scratch + "/carried"
        let result = try Command.run(["hls", "chapters/bursts-aac.m4a", "--out", out, "--segment-duration", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try Self.entries(out)
        #expect(entries.map { $0["start-time"] as? Double } == [0, 0.5, 1])
        #expect(
            entries.map { ($0["titles"] as? [[String: String]])?.first?["title"] } == [
                "Opening", "First burst – café", "Second burst",
            ])
        #expect(entries.map { ($0["titles"] as? [[String: String]])?.first?["language"] } == ["und", "und", "und"])
        let plain = scratch + "/plain"
        #expect(try Command.run(["hls", "chapters/bursts.wav", "--out", plain]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: plain + "/chapters.json"))
        #expect(!(try String(contentsOfFile: plain + "/master.m3u8", encoding: .utf8)).contains("SESSION-DATA"))
        // One chapter file for several sources is refused.
        let several = try Command.run([
            "hls", "chapters/bursts.wav", "compose/a.wav", "--chapters", "chapters/bursts.txt", "--out",
            scratch + "/several",
        ])
        #expect(several.status == 2 && several.stderr.contains("--chapters gives one sound's chapters"))
    }

    /// `hls-chapters` fails a package whose chapters file is not JSON (the byte said), is not an array of entries
    /// with start times, puts its starts out of order, starts or ends a chapter past the presentation (1.5 s), or is
    /// missing; each finding names the file.
    @Test func theValidatorChecksTheFile() throws {
        let out = scratch + "/checked"
        let made = try Command.run([
            "hls", "chapters/bursts.wav", "--chapters", "chapters/bursts.txt", "--out", out, "--segment-duration", "1",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let file = out + "/chapters.json"
        func entry(_ start: Double, _ duration: Double? = nil) -> String {
            "{\"start-time\": \(start)" + (duration.map { ", \"duration\": \($0)" } ?? "")
                + ", \"titles\": [{\"language\": \"en\", \"title\": \"t\"}]}"
        }
        let cases: [(String, String)] = [
            ("[{\"start-time\": 0,}]", "not JSON: line 1, column 19"),
            ("{\"start-time\": 0}", "a JSON array of entries"),
            ("[{\"title\": \"x\"}]", "chapter entry 1 has no 'start-time'"),
            ("[{\"start-time\": 0, \"titles\": [{\"title\": \"x\"}]}]", "a title needs a 'language'"),
            ("[\(entry(0)), \(entry(1)), \(entry(0.5))]", "chapter 3 ('t') starts at 0.500 s, before chapter 2"),
            ("[\(entry(0)), \(entry(1.5))]", "chapter 2 ('t') starts at 1.500 s, at or past the end"),
            ("[\(entry(0)), \(entry(1, 0.6))]", "chapter 2 ('t') ends at 1.600 s, past the end"),
        ]
        for (text, message) in cases {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let checked = try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"])
            #expect(checked.status == 1, "\(text): \(checked.stdout)")
            #expect(
                checked.stdout.contains("hls-chapters: chapters.json: ") && checked.stdout.contains(message),
                "\(text): \(checked.stdout)")
        }
        try FileManager.default.removeItem(atPath: file)
        let missing = try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"])
        #expect(missing.status == 1 && missing.stdout.contains("chapters.json: Apple's chapters cannot be read"))
    }
}
