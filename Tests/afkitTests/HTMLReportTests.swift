import Foundation
import LoopbackServers
import Testing

/// `validate --format html` and `batch --report FILE.html`: what the page holds, read back from its text
/// and its embedded data, against the fixtures' own samples (the browser's view: BrowserReportTests).
@Suite struct HTMLReportTests {
    /// The report's files, in this order: a silent first half, a clean effect, clipping, a loop that clicks
    /// (with markers), six channels, a ten-minute track.
    static let files = [
        "report/half-silent.wav", "report/clean.wav", "report/clipping.wav", "markers/sampler.wav",
        "report/multichannel.wav", "report/ten-minutes.mp3",
    ]

    /// The report of ``files``, made once for the tests that read it.
    static let cachedReport = Result { try report() }

    /// The report of `files` with the game-sfx profile (loudness band -21 to -15 LUFS, loop seams).
    static func report(_ files: [String] = files) throws -> String {
        let result = try Command.run(["validate", "--format", "html", "--profile", "game-sfx"] + files)
        #expect(result.status == 1, "every fixture fails game-sfx's container rule: \(result.stderr)")
        return result.stdout
    }

    /// Each file's embedded picture data, by index.
    static func data(_ page: String, _ index: Int) throws -> [String: Any] {
        let opening = "<script type=\"application/json\" id=\"file-\(index)-data\">"
        let start = try #require(page.range(of: opening))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let text = String(page[start.upperBound..<end.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Each file's section, by index.
    static func section(_ page: String, _ index: Int) throws -> Substring {
        let start = try #require(page.range(of: "<section class=\"file"))
        var sections: [Substring] = []
        var rest = page[start.lowerBound...]
        while let next = rest.dropFirst().range(of: "<section class=\"file") {
            sections.append(rest[..<next.lowerBound])
            rest = rest[next.lowerBound...]
        }
        sections.append(rest)
        return sections[index]
    }

    static func int16(_ base64: Any?) throws -> [Int] {
        let text = try #require(base64 as? String)
        let data = try #require(Data(base64Encoded: text))
        return stride(from: 0, to: data.count - 1, by: 2).map {
            Int(Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8))
        }
    }

    @Test func pageLoadsNothingAndLinksEachRowToItsSection() throws {
        let page = try Self.cachedReport.get()
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        for outside in ["http://", "https://", "src=", "url(", "@import", "<link", "<iframe", "<img"] {
            #expect(!page.contains(outside), "the page holds '\(outside)'")
        }
        let links = page.components(separatedBy: "href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(links == (0..<Self.files.count).map { "#file-\($0)" }[...].map { Substring($0) })
        for index in Self.files.indices {
            #expect(page.contains("<section class=\"file failed\" id=\"file-\(index)\""))
        }
        // The run's summary and a row per file with its rules.
        #expect(page.contains("<dt>Profile</dt><dd>game-sfx</dd>"))
        #expect(page.contains("<dt>Files checked</dt><dd>6</dd>"))
        #expect(page.contains("<dt>Failed</dt><dd>6</dd>"))
        #expect(page.components(separatedBy: "<tr class=\"failed\" data-failed=\"yes\">").count == 7)
        #expect(page.contains("<td data-label=\"Rules\">clipping, container, loudness, true-peak</td>"))
        #expect(page.contains("<td data-label=\"Rules\">container, loop-seam, loudness</td>"))
        // Every finding in words beside the pictures (their text equivalent), with its fix.
        let sampler = try Self.section(page, 3)
        #expect(sampler.contains("<strong>error: loop-seam</strong> the loop 1000-3000 wraps"))
        #expect(sampler.contains("aria-describedby=\"file-3-findings\""))
        // The waveform's marks in words (a screen reader's view of the picture).
        let half = try Self.section(page, 0)
        #expect(half.contains("Marked: 1.000 s of silence first; true peak -8.0 dBTP at "))
        #expect(try Self.section(page, 2).contains("300 clipped runs"))
        #expect(sampler.components(separatedBy: "data-kind=\"seam\"").count == 3, "a seam zoom per loop")
    }

    @Test func picturesComeFromTheDecodedSamples() throws {
        let page = try Self.cachedReport.get()
        // Silent for its first second: nothing in the waveform's first half, the tone after it.
        let half = try Self.data(page, 0)
        let frames = try decodedFloats(Command.fixtures + "/report/half-silent.wav", channels: 1).map { $0[0] }
        #expect(half["frames"] as? Int == frames.count)
        let wave = try #require(half["wave"] as? [String: Any])
        let perPoint = try #require(wave["spp"] as? Int)
        let values = try Self.int16(wave["data"])
        #expect(values.count == 2 * ((frames.count + perPoint - 1) / perPoint))
        for point in 0..<values.count / 2 {
            let slice = frames[(point * perPoint)..<min(frames.count, (point + 1) * perPoint)].map {
                Int(max(-32768, min(32767, ($0 * 32768).rounded())))
            }
            #expect(values[2 * point] == slice.min() && values[2 * point + 1] == slice.max(), "point \(point)")
        }
        let silence = try #require(half["silence"] as? [[Double]])
        #expect(silence == [[0, 1]])
        // The short-term curve starts with the tone; its readings are the loudest of each group.
        let curve = try #require(half["curve"] as? [String: Any])
        let readings = try #require(curve["values"] as? [Any])
        #expect((readings.prefix(9)).allSatisfy { $0 is NSNull }, "silence reads no loudness")
        #expect(readings.suffix(5).allSatisfy { ($0 as? Double).map { $0 > -20 && $0 < -10 } ?? false })
        #expect(half["band"] as? [Double] == [-21, -15])
        #expect(half["offBand"] as? String == "above", "-12.4 LUFS is above the band")
        // The spectrogram: nothing in the silent columns; the 440 Hz band loudest in the tone's.
        let spectrogram = try #require(half["spectrogram"] as? [String: Any])
        let columns = try #require(spectrogram["columns"] as? Int)
        let bands = try #require(spectrogram["bands"] as? Int)
        let low = try #require(spectrogram["low"] as? Double)
        let high = try #require(spectrogram["high"] as? Double)
        let encoded = try #require(spectrogram["data"] as? String)
        let levels = [UInt8](try #require(Data(base64Encoded: encoded)))
        #expect(levels.count == columns * bands)
        let toneBand = Int(log(440 / low) / log(high / low) * Double(bands))
        for column in 0..<columns {
            let bandsHere = Array(levels[(column * bands)..<((column + 1) * bands)])
            let end = (2 * column + 1) * frames.count / (2 * columns) + 256
            if end <= 22050 {
                #expect(bandsHere.allSatisfy { $0 == 0 }, "column \(column) is in the silence")
            } else if end - 512 >= 22050 {
                let loudest = try #require(bandsHere.indices.max { bandsHere[$0] < bandsHere[$1] })
                #expect(abs(loudest - toneBand) <= 1, "column \(column): band \(loudest), 440 Hz is \(toneBand)")
            }
        }

        // Clipping: every clipped stretch, each from its first full-scale sample to its last, its runs adding up to
        // the rule's count (the page kept the first 256 marks, with no word of the rest).
        let clipping = try Self.data(page, 2)
        let clipped = try decodedFloats(Command.fixtures + "/report/clipping.wav", channels: 1).map { $0[0] }
        let spans = try #require(clipping["clips"] as? [[Int]])
        let runs = try #require(clipping["clippedRuns"] as? Int)
        #expect(spans.reduce(0) { $0 + $1[2] } == runs && !spans.isEmpty)
        let full = Float(32767) / 32768
        for span in spans {
            #expect(abs(clipped[span[0]]) >= full && abs(clipped[span[1]]) >= full, "\(span)")
            #expect(span[0] == 0 || abs(clipped[span[0] - 1]) < full, "\(span) starts where the clipping does")
            #expect(span[1] + 1 == clipped.count || abs(clipped[span[1] + 1]) < full, "\(span) ends where it does")
        }
        let peak = try #require(clipping["truePeak"] as? [String: Any])
        let peakFrame = try #require(peak["frame"] as? Int)
        #expect(abs(clipped[peakFrame]) == 1, "the true-peak mark on the largest sample")

        // The loops: each seam's frames as the file holds them, markers by name.
        let sampler = try Self.data(page, 3)
        let looped = try decodedFloats(Command.fixtures + "/markers/sampler.wav", channels: 1).map {
            Int(($0[0] * 32768).rounded())
        }
        let seams = try #require(sampler["seams"] as? [[String: Any]])
        #expect(seams.count == 2)
        for seam in seams {
            let start = try #require(seam["start"] as? Int)
            let end = try #require(seam["end"] as? Int)
            #expect(try Self.int16(seam["before"]) == Array(looped[(end - 64)..<end]))
            #expect(try Self.int16(seam["after"]) == Array(looped[start..<(start + 64)]))
        }
        let markers = try #require(sampler["markers"] as? [[Any]])
        #expect(markers.map { $0[0] as? Int } == [1000, 3000, 3600])
        #expect(markers.map { $0[1] as? String } == ["loop start", "loop end", "tail"])

        // Six channels, six lanes; ten minutes in at most 600 points of loudness, a second each.
        #expect(try Self.data(page, 4)["channels"] as? Int == 6)
        let long = try #require(try Self.data(page, 5)["curve"] as? [String: Any])
        let points = try #require((long["values"] as? [Any])?.count)
        let step = try #require(long["step"] as? Double)
        #expect(points <= 600 && Double(points) * step >= 600, "\(points) points of \(step) s")
    }

    /// WCAG 2's relative luminance of an sRGB colour written `#rrggbb`.
    static func luminance(_ hex: String) -> Double {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        let bytes: [Int] = [value >> 16, (value >> 8) & 0xFF, value & 0xFF]
        let channels: [Double] = bytes.map { byte -> Double in
            let level = Double(byte) / 255
            return level <= 0.04045 ? level / 12.92 : pow((level + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    }

    /// WCAG 2's contrast ratio of two colours.
    static func contrast(_ first: String, _ second: String) -> Double {
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    @Test func marksStandOutWithoutColour() throws {
        let page = try Self.cachedReport.get()
        // The palette the page's script draws with.
        let start = try #require(page.range(of: "const colours = {"))
        let end = try #require(page.range(of: "};", range: start.upperBound..<page.endIndex))
        var colours: [String: String] = [:]
        for entry in page[start.upperBound..<end.lowerBound].split(separator: ",") {
            let parts = entry.split(separator: ":").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if parts.count == 2 { colours[parts[0]] = parts[1].replacingOccurrences(of: "\"", with: "") }
        }
        #expect(colours.count == 14, "\(colours)")
        // Every mark against the plot it is drawn on: at least 3:1 (WCAG 2.1, 1.4.11, non-text contrast), so
        // each reads in greyscale as well as in colour.
        for mark in ["wave", "silence", "clip", "peak", "marker", "loop"] {
            let ratio = Self.contrast(colours[mark] ?? "", colours["plot"] ?? "")
            #expect(ratio >= 3, "\(mark) \(colours[mark] ?? "?") on the waveform's plot: \(ratio)")
        }
        for mark in ["curve", "bandEdge", "off", "axis"] {
            let ratio = Self.contrast(colours[mark] ?? "", "#ffffff")
            #expect(ratio >= 3, "\(mark) \(colours[mark] ?? "?") on the loudness plot: \(ratio)")
        }
        // The clip marks and the waveform they cross differ in lightness, not only in hue.
        #expect(Self.contrast(colours["clip"] ?? "", colours["wave"] ?? "") >= 2)
        // The spectrogram's colour ramp grows lighter from its floor to 0 dB: its levels read in greyscale.
        let rampStart = try #require(page.range(of: "const ramp = ["))
        let rampEnd = try #require(page.range(of: "]];", range: rampStart.upperBound..<page.endIndex))
        let stops = page[rampStart.upperBound..<rampEnd.lowerBound].components(separatedBy: "], [").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
        }
        let lightness = stops.map { Self.luminance(String(format: "#%02x%02x%02x", $0[0], $0[1], $0[2])) }
        #expect(stops.count == 6 && zip(lightness, lightness.dropFirst()).allSatisfy { $0 < $1 }, "\(lightness)")
    }

    @Test func eachFileStaysUnderFortyKilobytes() throws {
        let page = try Self.cachedReport.get()
        for index in Self.files.indices {
            let size = try Self.section(page, index).utf8.count
            #expect(size < 40_000, "\(Self.files[index]): \(size) bytes")
        }
    }

    @Test func namesAreEscaped() throws {
        let folder = try Loopback.temporaryFolder("report-names")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = folder + "/<b>&x'\"<script>.wav"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/report/clean.wav", toPath: name)
        let page = try Command.run(["validate", "--format", "html", "--profile", "game-sfx", name]).stdout
        #expect(!page.contains("<b>") && !page.contains("<script>.wav"))
        #expect(page.contains("&lt;b&gt;&amp;x&#39;&quot;&lt;script&gt;.wav"))
        // The embedded data stays inside its script element.
        #expect(page.components(separatedBy: "</script>").count == 3)
    }

    @Test func batchReportValidatesTheOutputs() throws {
        let folder = try Loopback.temporaryFolder("report-batch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        for name in ["clean.wav", "half-silent.wav"] {
            try FileManager.default.copyItem(atPath: Command.fixtures + "/report/" + name, toPath: sources + "/" + name)
        }
        try Data("RIFF and nothing a WAV file holds".utf8).write(to: URL(fileURLWithPath: sources + "/broken.wav"))
        let report = folder + "/report.html"
        let result = try Command.run([
            "batch", "--preset", "sfx", "--out", folder + "/out", "--report", report, sources,
        ])
        #expect(result.status == 1, "the broken source fails: \(result.stderr)")
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(page.contains("<dt>Profile</dt><dd>simultaneous-sfx</dd>"))
        #expect(page.contains(folder + "/out/clean.caf") && page.contains(folder + "/out/half-silent.caf"))
        #expect(page.contains("<strong>error: conversion</strong>"))
        #expect(page.contains("id=\"file-1-data\"") && page.contains("id=\"file-2-data\""), "the outputs drawn")
        // The outputs' findings: the silence the sfx preset keeps.
        #expect(
            page.contains("<strong>warning: silence</strong> 0.9")
                || page.contains("<strong>warning: silence</strong> 1.0"))
        #expect(page.contains("s of silence before the sound starts"))

        let misplaced = try Command.run([
            "batch", "--preset", "sfx", "--out", folder + "/out", "--profile", "music", sources,
        ])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--profile is for an HTML report"))
    }
}

/// A tone clipped from its first cycle to its last (FFmpeg, Tests/Fixtures/make-clip-fixtures.sh): the report's
/// clip marks reach its end (they stopped at the 256th run, 0.44 s into a clipped second), and their runs are the
/// rule's count.
@Suite struct ClipMarkTests {
    @Test func aSoundClippedThroughoutIsMarkedToItsEnd() throws {
        let result = try Command.run([
            "validate", "--format", "html", "--profile", "music", "clip/ffmpeg-clipped-1k.wav",
        ])
        let data = try HTMLReportTests.data(result.stdout, 0)
        let spans = try #require(data["clips"] as? [[Int]])
        let frames = try #require(data["frames"] as? Int)
        let runs = try #require(data["clippedRuns"] as? Int)
        #expect(runs > 256, "\(runs) runs")
        #expect(spans.reduce(0) { $0 + $1[2] } == runs)
        let last = try #require(spans.last)
        #expect(Double(last[1]) > Double(frames) * 0.99, "the last mark at frame \(last[1]) of \(frames)")
    }
}

/// A sound shorter than the 3 s short-term window is drawn with the momentary curve (400 ms), whose loudest
/// reading sits near its level (the 3 s curve sat 5 to 15 LU under the integrated line); a longer one keeps the
/// short-term curve.
@Suite struct ShortSoundCurveTests {
    @Test func aShortSoundDrawsItsMomentaryLoudness() throws {
        let result = try Command.run([
            "validate", "--format", "html", "--profile", "music", "loudness/impact-explosion-float-24k.wav",
            "loudness/steps-pink-8k.wav",
        ])
        let short = try HTMLReportTests.data(result.stdout, 0)
        let curve = try #require(short["curve"] as? [String: Any])
        #expect(curve["window"] as? Double == 0.4)
        let loudest = try #require((curve["values"] as? [Any])?.compactMap { $0 as? Double }.max())
        let integrated = try #require(short["integrated"] as? Double)
        #expect(
            loudest >= integrated && loudest - integrated < 10, "momentary peak \(loudest), integrated \(integrated)")
        let long = try HTMLReportTests.data(result.stdout, 1)
        #expect((long["curve"] as? [String: Any])?["window"] as? Double == 3)
    }
}

/// A 5.1 file's waveform lanes are named by its channel layout (they said "ch 1" to "ch 6").
@Suite struct LaneNameTests {
    @Test func lanesAreTheSpeakers() throws {
        let result = try Command.run(["validate", "--format", "html", "--profile", "music", "wav/extensible-5.1.wav"])
        let data = try HTMLReportTests.data(result.stdout, 0)
        #expect(data["laneNames"] as? [String] == ["L", "R", "C", "LFE", "Ls", "Rs"], "\(data["laneNames"] ?? "none")")
    }
}

/// `batch --preset voice --report x.html` judges the voice lines by the dialogue profile (-18 LUFS ± 2, AES
/// TD1008's anchor for speech), not by music's -16 band.
@Suite struct VoiceReportTests {
    @Test func voiceLinesAreJudgedAsDialogue() throws {
        let folder = try ScratchFolder()
        let report = folder.path + "/voice.html"
        let batch = try Command.run([
            "batch", "--preset", "voice", "--out", folder.path + "/out", "--report", report, "signals/speech.wav",
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(page.contains("dialogue"))
        let data = try HTMLReportTests.data(page, 0)
        #expect(data["band"] as? [Double] == [-20, -16], "\(data["band"] ?? "none")")
    }
}

/// A rename the extension rule suggests is the container's usual name, every time (a WAV named .caf was told
/// .wav, .wave or .rf64 at random).
@Suite struct ExtensionFixTests {
    @Test func theUsualNameEveryTime() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/boom.caf"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/signals/speech.wav", toPath: path)
        for _ in 0..<4 {
            let result = try Command.run(["validate", path])
            #expect(result.stdout.contains("rename it 'boom.wav'"), "\(result.stdout)")
        }
    }
}

/// A CamelCase name wraps between its words, in the table and the section's heading (it broke mid-word).
@Suite struct NameBreakTests {
    @Test func camelCaseNamesBreakBetweenWords() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/ExplosionBossFight.wav"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/signals/speech.wav", toPath: path)
        let page = try Command.run(["validate", "--format", "html", path]).stdout
        #expect(page.components(separatedBy: "Explosion<wbr>Boss<wbr>Fight.<wbr>wav").count == 3, "table and heading")
    }
}
