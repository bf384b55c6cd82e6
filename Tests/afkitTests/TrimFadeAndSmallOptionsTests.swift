import AudioContainers
import Foundation
import Testing

/// Issue 71's smaller requests: `--trim` ends with a short fade (`--trim-fade 0` for the hard cut), a plain rate
/// change (`-d 0@RATE`, FFmpeg's `-ar`), `clip --summary`, and `validate -o FILE`.
@Suite struct TrimFadeAndSmallOptionsTests {
    /// A 35 s tone at full level trimmed to 30 s: its last 10 ms fall to silence, every step there smaller than the
    /// tone's own, and nothing before them changed; `--trim-fade 0` keeps the hard cut, ending at full level.
    @Test func aTrimEndsWithAShortFade() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/ambience.wav"
        try toneWAV(source, seconds: 35, rate: 8000)
        let faded = folder.path + "/faded.wav"
        let cut = try Command.run(["convert", "-d", "0", "--trim", source, faded])
        #expect(cut.status == 0, "\(cut.stderr)")
        let hard = folder.path + "/hard.wav"
        #expect(try Command.run(["convert", "-d", "0", "--trim", "--trim-fade", "0", source, hard]).status == 0)
        let original = try decodedFloats(source, channels: 1).map { $0[0] }
        let soft = try decodedFloats(faded, channels: 1).map { $0[0] }
        let abrupt = try decodedFloats(hard, channels: 1).map { $0[0] }
        #expect(soft.count == 240_000 && abrupt.count == 240_000)
        let fade = 80  // 10 ms at 8 kHz
        // Untouched before the fade; the hard cut untouched everywhere.
        #expect(Array(soft[0..<(soft.count - fade)]) == Array(original[0..<(soft.count - fade)]))
        #expect(abrupt == Array(original[0..<240_000]))
        // The fade: the envelope falls, the last sample is near silence, the step to silence after it is small.
        let tail = soft.suffix(fade).map(abs)
        let toneStep = zip(original.dropFirst(), original).map { abs($0 - $1) }.max() ?? 0
        #expect((tail.last ?? 1) < 0.01, "\(tail.suffix(4))")
        #expect(zip(soft.suffix(fade).dropFirst(), soft.suffix(fade)).allSatisfy { abs($0 - $1) <= toneStep + 1e-4 })
        #expect((abs(abrupt.last ?? 0)) > 0.05 || (abs(abrupt[abrupt.count - 2])) > 0.05, "the hard cut ends at level")
        let early = soft.suffix(fade).prefix(fade / 4).map(abs).max() ?? 0
        let late = soft.suffix(fade / 4).map(abs).max() ?? 1
        #expect(late < early / 4, "the level falls over the fade: \(early) then \(late)")
        // The fade's length is asked in frames or seconds; it goes with --trim only.
        let frames = folder.path + "/frames.wav"
        #expect(try Command.run(["convert", "--trim", "--trim-fade", "400f", source, frames]).status == 0)
        let long = try decodedFloats(frames, channels: 1).map { $0[0] }
        #expect(Array(long[0..<(240_000 - 400)]) == Array(original[0..<(240_000 - 400)]))
        #expect(long[240_000 - 401] == original[240_000 - 401] && long[240_000 - 201] != original[240_000 - 201])
        let alone = try Command.run(["convert", "--trim-fade", "0", source, folder.path + "/x.wav"])
        #expect(alone.status == 2 && alone.stderr.contains("--trim-fade goes with --trim"), "\(alone.stderr)")
        let bad = try Command.run(["convert", "--trim", "--trim-fade", "soon", source, folder.path + "/x.wav"])
        #expect(bad.status == 2 && bad.stderr.contains("--trim-fade takes"), "\(bad.stderr)")
    }

    /// `-d 0@RATE` keeps the source's format at another rate (IMA4 stays IMA4), as `-d 0 -ar RATE` does; `-ar` sets
    /// the rate in batch too; a bad rate names the option; `-ar` and a `-d` rate together are refused.
    @Test func aPlainRateChangeKeepsTheFormat() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/tone.wav"
        try toneWAV(source, seconds: 1, rate: 48000)
        let ima4 = folder.path + "/tone.caf"
        #expect(try Command.run(["convert", "-d", "ima4", source, ima4]).status == 0)
        for (options, name) in [(["-d", "0@44100"], "a.caf"), (["-d", "0", "-ar", "44100"], "b.caf")] {
            let output = folder.path + "/" + name
            let result = try Command.run(["convert"] + options + [ima4, output])
            #expect(result.status == 0, "\(options): \(result.stderr)")
            let file = try AudioFile(path: output)
            #expect(file.dataFormat.formatID.description == "ima4" && file.dataFormat.sampleRate == 44100)
            #expect(file.properties.validFrameCount == 44100, "\(options)")
        }
        let out = folder.path + "/out"
        let batch = try Command.run(["batch", "--preset", "pcm", "-ar", "22050", "--out", out, source])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try AudioFile(path: out + "/tone.caf").dataFormat.sampleRate == 22050)
        for (options, message) in [
            (["-ar", "fast"], "-ar takes a sample rate in Hz"), (["-ar", "0"], "-ar takes a sample rate in Hz"),
            (["-d", "0@x"], "the rate after @"), (["-ar", "44100", "-d", "LEI16@22050"], "give the rate once"),
        ] {
            let refused = try Command.run(["convert"] + options + [source, folder.path + "/x.caf"])
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(options): \(refused.stderr)")
        }
        let refused = try Command.run(["batch", "--preset", "pcm", "-ar", "-5", "--out", out, source])
        #expect(refused.status == 2 && refused.stderr.contains("-ar takes"), "\(refused.stderr)")
    }

    /// `-d 0` keeps a FLAC source FLAC where a change asks an encode (`-d 0@22050`, `-d 0 -c 1`), its depth kept, and
    /// refuses it with nothing to change; an AAC source's `-d 0@RATE` at its own rate copies its packets, as `-d 0`
    /// does, and at another rate is refused naming `-d aac`; an MP3's `-d 0` names the codecs it keeps.
    @Test func theSourcesOwnFormatIsKeptWhereItCanBe() throws {
        let folder = try ScratchFolder()
        let flac = folder.path + "/tone.flac"
        try toneWAV(folder.path + "/tone.wav", seconds: 1, rate: 44100)
        #expect(
            try Command.run(["convert", "-d", "LEI24", folder.path + "/tone.wav", folder.path + "/t24.wav"]).status == 0
        )
        #expect(try Command.run(["convert", folder.path + "/t24.wav", flac]).status == 0)
        for (options, rate, channels) in [(["-d", "0@22050"], 22050.0, 1), (["-d", "0", "-c", "1"], 44100, 1)] {
            let output = folder.path + "/\(options.count).flac"
            let result = try Command.run(["convert"] + options + [flac, output])
            #expect(result.status == 0, "\(options): \(result.stderr)")
            let format = try AudioFile(path: output).dataFormat
            #expect(format.formatID == .flac && format.sampleRate == rate && format.channelsPerFrame == channels)
            #expect(format.losslessBitDepth == 24, "\(options): \(format)")
        }
        let nothing = try Command.run(["convert", "-d", "0", flac, folder.path + "/same.flac"])
        #expect(nothing.status == 2 && nothing.stderr.contains("nothing to change"), "\(nothing.stderr)")
        let aac = folder.path + "/tone.m4a"
        #expect(try Command.run(["convert", "-d", "aac", folder.path + "/tone.wav", aac]).status == 0)
        let copied = try Command.run(["convert", "-d", "0@44100", aac, folder.path + "/copy.m4a"])
        #expect(copied.status == 0, "\(copied.stderr)")
        let bytes = { (path: String) in try Data(contentsOf: URL(fileURLWithPath: path)) }
        let plain = folder.path + "/plain.m4a"
        #expect(try Command.run(["convert", "-d", "0", aac, plain]).status == 0)
        #expect(try bytes(folder.path + "/copy.m4a") == bytes(plain))
        let resampled = try Command.run(["convert", "-d", "0@22050", aac, folder.path + "/half.m4a"])
        #expect(resampled.status == 2 && resampled.stderr.contains("-d aac"), "\(resampled.stderr)")
        #expect(
            try Command.run(["convert", "-d", "mp3", folder.path + "/tone.wav", folder.path + "/t.mp3"]).status == 0)
        let mp3 = try Command.run(["convert", "-d", "0@22050", folder.path + "/t.mp3", folder.path + "/half.mp3"])
        #expect(
            mp3.status == 2 && mp3.stderr.contains("FLAC") && mp3.stderr.contains("give a data format"), "\(mp3.stderr)"
        )
    }

    /// `clip --summary`: one line of totals a file, no run listed; in JSON the contract's members kept, `runs`
    /// empty and every run counted in `runsNotListed`, with the file's totals; the counts are the full listing's.
    @Test func clipSummaryPrintsTotalsOnly() throws {
        let name = "clip/ffmpeg-clipped-1k.wav"
        let full = try Command.run(["clip", "--json", name])
        let entry = try #require((full.json as? [[String: Any]])?.first)
        let channels = try #require(entry["channels"] as? [[String: Any]])
        let summary = try Command.run(["clip", "--summary", name, "wav/pcm-s16-stereo.wav"])
        #expect(summary.status == 1)
        let lines = summary.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(summary.stdout)")
        let onSample = channels.reduce(0) { $0 + ($1["onSample"] as? Int ?? 0) }
        let runCount = channels.reduce(0) { $0 + ($1["runCount"] as? Int ?? 0) }
        #expect(lines.first?.hasPrefix(name + ": ") == true)
        #expect(lines.first?.contains("\(onSample) clipped on the sample grid") == true, "\(summary.stdout)")
        #expect(lines.first?.contains("in \(runCount) runs") == true, "\(summary.stdout)")
        #expect(lines.last?.hasSuffix("no clipping") == true, "\(summary.stdout)")
        let json = try Command.run(["clip", "--summary", "--json", name])
        let totals = try #require((json.json as? [[String: Any]])?.first)
        #expect((totals["runs"] as? [Any])?.isEmpty == true)
        #expect(totals["onSample"] as? Int == onSample && totals["runCount"] as? Int == runCount)
        for (counted, listed) in zip(try #require(totals["channels"] as? [[String: Any]]), channels) {
            #expect(counted["onSample"] as? Int == listed["onSample"] as? Int)
            #expect(counted["interSample"] as? Int == listed["interSample"] as? Int)
            #expect(counted["runsNotListed"] as? Int == listed["runCount"] as? Int)
        }
    }

    /// `validate -o FILE`: the report goes to FILE whole, in the format asked (else the one its extension names),
    /// and nothing to standard output; the exit status is the same; FILE may not be one of the inputs.
    @Test func validateWritesItsReportToAFile() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/long.wav"
        try toneWAV(source, seconds: 31)
        let report = folder.path + "/report.json"
        let written = try Command.run(["validate", "--format", "json", "-o", report, source])
        #expect(written.status == 1 && written.stdout.isEmpty, "\(written.stdout)")
        let printed = try Command.run(["validate", "--format", "json", source])
        #expect(try String(contentsOfFile: report, encoding: .utf8) == printed.stdout)
        #expect(folder.temporaries.isEmpty)
        let junit = folder.path + "/report.xml"
        #expect(try Command.run(["validate", "--format", "junit", "--output", junit, source]).stdout.isEmpty)
        #expect(try String(contentsOfFile: junit, encoding: .utf8).hasPrefix("<?xml"))
        // Without --format, the extension names it (a new user's `-o report.html` wrote text into it).
        let page = folder.path + "/report.html"
        #expect(try Command.run(["validate", "-o", page, source]).status == 1)
        #expect(try String(contentsOfFile: page, encoding: .utf8).lowercased().hasPrefix("<!doctype html"))
        let named = folder.path + "/named.json"
        _ = try Command.run(["validate", "-o", named, source])
        #expect(try String(contentsOfFile: named, encoding: .utf8) == printed.stdout)
        let plain = folder.path + "/report.txt"
        _ = try Command.run(["validate", "-o", plain, source])
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == Command.run(["validate", source]).stdout)
        let refused = try Command.run(["validate", "-o", source, source])
        #expect(refused.status == 2 && refused.stderr.contains("an input of this run"), "\(refused.stderr)")
        #expect(try AudioFile(path: source).properties.validFrameCount == 31 * 8000)
    }
}
