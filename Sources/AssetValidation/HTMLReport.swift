import ReportGraphics
import AudioContainers
import AudioFormats
import FileAccess

extension ValidationReport {
    /// The report as one self-contained HTML page (`validate --format html`, `batch --report FILE.html`):
    /// the run's summary, a table of every file (sortable, filterable to failures), and per file its
    /// findings and the pictures they point into (waveform, short-term loudness with the profile's band,
    /// spectrogram, loop seams), drawn by the page's own script as each section scrolls into view. No
    /// network access: no external script, style sheet, font or image. Files checked without
    /// ``AssetValidator/drawsPictures`` get their findings and no pictures.
    public func html(version: String) -> String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // Nothing the page does may leave it, and only its own script and style sheet take effect: the policy
        // names them by their SHA-256, so a script or style an escaping slip let in would not run, and any
        // load a bug or a crafted file name could start is refused.
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Self.contentSecurityPolicy)\">\n"
        page += "<title>afkit validate: \(markupEscaped(profile)): \(passed) passed, \(failed) failed</title>\n"
        page += "<style>\(HTMLReportResources.style)</style>\n</head>\n<body>\n"
        page += "<header>\n<h1>afkit validate</h1>\n<dl class=\"run\">"
        for (term, value) in [
            ("Profile", profile), ("afkit", version), ("Files checked", String(files.count)),
            ("Passed", String(passed)), ("Failed", String(failed)), ("Warnings", String(warnings)),
        ] {
            page += "<div><dt>\(term)</dt><dd>\(markupEscaped(value))</dd></div>"
        }
        page += "</dl>\n</header>\n<main>\n"
        page += summaryTable
        // Each file's section on every core: a thousand files' pictures are most of the page.
        let files = self.files
        for section in files.indices.parallelMap({ files[$0].htmlSection(index: $0) }) { page += section }
        page += "</main>\n<script>\(HTMLReportResources.script)</script>\n</body>\n</html>\n"
        return page
    }

    /// The page's policy: nothing from anywhere (`default-src 'none'`), but the page's own script and style
    /// sheet, named by hash (no `'unsafe-inline'`), and `data:` images.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src '\(hashSource(HTMLReportResources.script))'; "
        + "style-src '\(hashSource(HTMLReportResources.style))'; img-src data:"

    /// A CSP hash source: `sha256-` and the base64 of the text's SHA-256.
    static func hashSource(_ text: String) -> String { "sha256-" + base64(SHA256.hash(Array(text.utf8))) }

    private var summaryTable: String {
        var table = "<section aria-labelledby=\"files-title\">\n<h2 id=\"files-title\">Files</h2>\n"
        table +=
            "<p class=\"filter\"><label><input type=\"checkbox\" id=\"only-failures\"> Show only files that "
            + "failed</label> <span id=\"shown\" aria-live=\"polite\"></span></p>\n"
        table += "<div class=\"table\"><table id=\"files\">\n<thead><tr>"
        for (title, kind) in [
            ("File", "text"), ("Status", "text"), ("Container", "text"), ("Format", "text"),
            ("Duration (s)", "number"), ("Integrated (LUFS)", "number"), ("True peak (dBTP)", "number"),
            ("Rules", "text"),
        ] {
            table +=
                "<th scope=\"col\" aria-sort=\"none\"><button type=\"button\" data-kind=\"\(kind)\">\(title)</button></th>"
        }
        table += "</tr></thead>\n<tbody>\n"
        for (index, file) in files.enumerated() {
            let status = file.status
            let summary = file.summary
            let loudness = file.audio?.loudness
            let integrated = loudness?.normalizable
            let rules = Array(Set(file.violations.map(\.rule))).sorted()
            table += "<tr class=\"\(status.rawValue)\" data-failed=\"\(file.ok ? "no" : "yes")\">"
            table += "<td data-label=\"File\"><a href=\"#file-\(index)\">\(breakable(file.path))</a></td>"
            table += "<td data-label=\"Status\" data-value=\"\(status.order)\">\(status.label)</td>"
            table += "<td data-label=\"Container\">\(markupEscaped(summary?.container.name ?? "—"))</td>"
            table +=
                "<td data-label=\"Format\">\(markupEscaped(summary.map { formatDescription($0.format) } ?? "—"))</td>"
            table += numberCell(summary?.durationSeconds, places: 3, label: "Duration (s)")
            table += numberCell(integrated, places: 1, label: "Integrated (LUFS)")
            table += numberCell(loudness?.truePeak, places: 1, label: "True peak (dBTP)")
            table +=
                "<td data-label=\"Rules\">\(rules.isEmpty ? "—" : markupEscaped(rules.joined(separator: ", ")))</td></tr>\n"
        }
        table += "</tbody>\n</table></div>\n</section>\n"
        return table
    }
}

extension FileReport {
    /// A file's standing in the report: failed (an error), warnings, or passed.
    enum Status: String {
        case failed, warned, passed

        var label: String {
            switch self {
            case .failed: "✖ failed"
            case .warned: "▲ warnings"
            case .passed: "✔ passed"
            }
        }
        var order: Int {
            switch self {
            case .failed: 0
            case .warned: 1
            case .passed: 2
            }
        }
    }

    var status: Status {
        if !ok { return .failed }
        return violations.isEmpty ? .passed : .warned
    }

    /// The file's section: heading, facts, findings (the pictures' text equivalent), figures and their data.
    func htmlSection(index: Int) -> String {
        var section =
            "<section class=\"file \(status.rawValue)\" id=\"file-\(index)\" data-failed=\"\(ok ? "no" : "yes")\" "
            + "aria-labelledby=\"file-\(index)-title\">\n"
        section +=
            "<h2 id=\"file-\(index)-title\"><span class=\"status\">\(status.label)</span> \(breakable(path))</h2>\n"
        var facts: [String] = []
        if let summary {
            facts.append(summary.container.name)
            facts.append(formatDescription(summary.format))
            facts.append(formatSampleRate(summary.format.sampleRate) + " Hz")
            let channels = Int(summary.format.channelsPerFrame)
            facts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")
            facts.append(fixedPoint(summary.durationSeconds, places: 3) + " s")
        }
        if let loudness = audio?.loudness {
            if loudness.integrated.isFinite {
                facts.append(rounded(loudness.integrated, places: 1) + " LUFS integrated")
            } else if let short = loudness.shortSoundLoudness, short.isFinite {
                facts.append(rounded(short, places: 1) + " LUFS (one block)")
            }
            if loudness.truePeak.isFinite { facts.append(rounded(loudness.truePeak, places: 1) + " dBTP true peak") }
        }
        if !facts.isEmpty { section += "<p class=\"facts\">\(markupEscaped(facts.joined(separator: " · ")))</p>\n" }
        if !conversionNotes.isEmpty {
            section += "<ul class=\"conversion\">\n"
            for note in conversionNotes { section += "<li>\(markupEscaped(note))</li>\n" }
            section += "</ul>\n"
        }
        section += "<h3 id=\"file-\(index)-findings\">Findings</h3>\n"
        if violations.isEmpty {
            section += "<p class=\"none\">No findings: every rule passed.</p>\n"
        } else {
            section += "<ul class=\"findings\">\n"
            for violation in violations {
                section +=
                    "<li class=\"\(violation.severity.rawValue)\"><strong>\(violation.severity.rawValue): "
                    + "\(markupEscaped(violation.rule))</strong> \(markupEscaped(violation.message))"
                if let fix = violation.fix {
                    section +=
                        "<br><span class=\"fix\">fix: <code>\(markupEscaped(fix))</code>"
                        + (violation.fixNote.map { " (\(markupEscaped($0)))" } ?? "") + "</span>"
                }
                section += "</li>\n"
            }
            section += "</ul>\n"
        }
        guard let audio, let pictures = audio.pictures, let summary else { return section + "</section>\n" }
        let described = "Findings for \(markupEscaped(path)) are listed above."
        // What the waveform marks, in words, for a screen reader.
        var marked: [String] = []
        if audio.leadingSilence > 0 {
            marked.append("\(fixedPoint(audio.leadingSilence, places: 3)) s of silence first")
        }
        if audio.trailingSilence > 0 {
            marked.append("\(fixedPoint(audio.trailingSilence, places: 3)) s of silence last")
        }
        if audio.clippedRuns > 0 {
            marked.append("\(audio.clippedRuns) clipped run\(audio.clippedRuns == 1 ? "" : "s")")
        }
        if let loudness = audio.loudness, let frame = loudness.truePeakFrame, loudness.truePeak.isFinite {
            marked.append(
                "true peak \(rounded(loudness.truePeak, places: 1)) dBTP at "
                    + "\(fixedPoint(Double(frame) / summary.format.sampleRate, places: 3)) s")
        }
        section += "<div class=\"figures\">\n"
        section += figure(
            "wave", index,
            "Waveform (smallest and largest sample of each column, every channel); silence at the ends "
                + "hatched, clipped samples ▼, true-peak maximum ◆, markers and loops along the top.",
            (marked.isEmpty ? "" : "Marked: " + marked.joined(separator: "; ") + ". ") + described)
        if let loudness = audio.loudness, !loudness.shortTermCurve.isEmpty || !loudness.momentaryCurve.isEmpty {
            section += figure(
                "loudness", index,
                (Self.drawsMomentary(loudness)
                    ? "Momentary loudness (400 ms window, LUFS: the sound is shorter than the 3 s short-term window)"
                    : "Short-term loudness (3 s window, LUFS)")
                    + (loudnessBand.map {
                        "; the profile's band \(rounded($0.lowerBound, places: 1)) to "
                            + "\(rounded($0.upperBound, places: 1)) LUFS shaded"
                    } ?? "") + ".", described)
        }
        section += figure("spectrogram", index, "Spectrogram (log frequency, channels mixed).", described)
        for (seam, loop) in pictures.seams.enumerated() {
            section += figure(
                "seam", index,
                "Loop seam \(loop.start)–\(loop.end): the last \(LoopSeam.window) frames before the "
                    + "wrap, then the first after it.", described, seam: seam)
        }
        section += "</div>\n"
        var data = pictureData(pictures, summary: summary).serialized()
        // Inside a script element, "</" would end it.
        // (Only a marker's name can hold one: the rest is numbers and base64.)
        if summary.markers.contains(where: { $0.name.utf8.contains(UInt8(ascii: "<")) }) {
            data = data.replacingAll("<", with: "\\u003c")
        }
        section += "<script type=\"application/json\" id=\"file-\(index)-data\">\(data)</script>\n"
        return section + "</section>\n"
    }

    private func figure(_ kind: String, _ index: Int, _ caption: String, _ described: String, seam: Int? = nil)
        -> String
    {
        let seamAttribute = seam.map { " data-seam=\"\($0)\"" } ?? ""
        return
            "<figure class=\"\(kind)\"><canvas class=\"plot\" data-kind=\"\(kind)\" data-file=\"\(index)\"\(seamAttribute) "
            + "role=\"img\" aria-label=\"\(markupEscaped(caption)) \(described)\" aria-describedby=\"file-\(index)-findings\">"
            + "</canvas><figcaption>\(markupEscaped(caption))</figcaption></figure>\n"
    }

    /// The waveform's lanes by the speakers the channel layout names (`L R C LFE Ls Rs`), else `L R` for
    /// stereo, else `ch 1`, `ch 2`, ...
    static func laneNames(_ summary: AudioFileSummary, lanes: Int) -> [String] {
        if let labels = summary.channelLayout?.labels, labels.count == lanes {
            return labels.enumerated().map { ChannelLayout.labelNames[$1] ?? "ch \($0 + 1)" }
        }
        if lanes == 2 { return ["L", "R"] }
        // Six channels with no layout stated, decoded in WAV's order (FLAC's, Vorbis's and Opus's, and AAC's as
        // afkit's decoders give it): 5.1. AIFF's six are another order, left unnamed.
        if lanes == 6, ![.aiff, .aifc].contains(summary.container) { return ["L", "R", "C", "LFE", "Ls", "Rs"] }
        return (0..<lanes).map { "ch \($0 + 1)" }
    }

    /// Whether the loudness curve is the momentary one: for a sound shorter than the 3 s short-term window.
    static func drawsMomentary(_ loudness: LoudnessFacts) -> Bool {
        !loudness.momentaryCurve.isEmpty && loudness.shortTermCurve.count < 30
    }

    /// What the page's script draws from: compact numbers, samples as base64 little-endian 16-bit integers.
    private func pictureData(_ pictures: AssetPictures, summary: AudioFileSummary) -> JSONValue {
        let rate = summary.format.sampleRate
        let frames = audio?.frameCount ?? summary.frameCount
        var members: [(String, JSONValue)] = [
            ("rate", .number(rate)), ("frames", .integer(frames)),
            ("channels", .integer(Int64(pictures.waveform.channels))),
            ("laneNames", .array(Self.laneNames(summary, lanes: pictures.waveform.channels).map(JSONValue.string))),
            (
                "wave",
                .object([
                    ("spp", .integer(Int64(pictures.waveform.samplesPerPixel))),
                    ("data", .string(base64(pictures.waveform.data))),
                ])
            ),
        ]
        let spectrogram = pictures.spectrogram
        members.append(
            (
                "spectrogram",
                .object([
                    ("columns", .integer(Int64(spectrogram.columns))), ("bands", .integer(Int64(spectrogram.bands))),
                    ("low", Self.jsonNumber(spectrogram.lowestFrequency)),
                    ("high", Self.jsonNumber(spectrogram.highestFrequency)),
                    ("floor", .number(Spectrogram.floorDecibels)), ("data", .string(base64(spectrogram.levels))),
                ])
            ))
        if let audio {
            members.append(("silence", Self.silenceSpans(audio, duration: Double(frames) / rate)))
            // Every clipped stretch, as [first frame, last frame, runs].
            members.append(
                (
                    "clips",
                    .array(
                        pictures.clippedSpans.map {
                            .array([.integer($0.start), .integer($0.end), .integer(Int64($0.runs))])
                        })
                ))
            members.append(("clippedRuns", .integer(Int64(audio.clippedRuns))))
            if let loudness = audio.loudness { members += Self.loudnessMembers(loudness) }
        }
        if let band = loudnessBand {
            members.append(("band", .array([.number(band.lowerBound), .number(band.upperBound)])))
            // Which way the loudness rule found the file off its band, for shading where the curve is.
            if violations.contains(where: { $0.rule == ValidationRule.loudness.id }),
                let level = audio?.loudness?.normalizable, level.isFinite
            {
                members.append(("offBand", .string(level > band.upperBound ? "above" : "below")))
            }
        }
        members.append(
            ("markers", .array(summary.markers.map { .array([.integer($0.framePosition), .string($0.name)]) })))
        members.append(
            (
                "seams",
                .array(
                    pictures.seams.map { seam in
                        .object([
                            ("start", .integer(seam.start)), ("end", .integer(seam.end)),
                            ("before", .string(base64(seam.before.map(WaveformBuilder.quantized)))),
                            ("after", .string(base64(seam.after.map(WaveformBuilder.quantized)))),
                        ])
                    })
            ))
        members.append(("loops", .array(summary.loops.map { .array([.integer($0.start), .integer($0.end)]) })))
        return .object(members)
    }

    /// A number for the page, to `places` (10: one decimal); `null` where it is not finite.
    private static func jsonNumber(_ value: Double, _ places: Double = 10) -> JSONValue {
        value.isFinite ? .number((value * places).rounded() / places) : .null
    }

    /// The silent stretches at the ends, as [start, end] in seconds (the whole sound where it is silent).
    private static func silenceSpans(_ audio: AudioStatistics, duration: Double) -> JSONValue {
        var silence: [JSONValue] = []
        if audio.isSilent {
            silence.append(.array([.number(0), jsonNumber(duration, 1e4)]))
        } else {
            if audio.leadingSilence > 0 {
                silence.append(.array([.number(0), jsonNumber(audio.leadingSilence, 1e4)]))
            }
            if audio.trailingSilence > 0 {
                silence.append(.array([jsonNumber(duration - audio.trailingSilence, 1e4), jsonNumber(duration, 1e4)]))
            }
        }
        return .array(silence)
    }

    /// The loudness the page draws: the true peak's place, the loudness curve and the integrated level.
    private static func loudnessMembers(_ loudness: LoudnessFacts) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let frame = loudness.truePeakFrame, loudness.truePeak.isFinite {
            members.append(
                ("truePeak", .object([("frame", .integer(frame)), ("db", jsonNumber(loudness.truePeak, 100))])))
        }
        // At most 600 points: each the loudest reading of the tenths of a second it stands for. A sound
        // shorter than the 3 s window: the momentary readings (its short-term ones sit under its level).
        let readings = drawsMomentary(loudness) ? loudness.momentaryCurve : loudness.shortTermCurve
        let group = max(1, (readings.count + 599) / 600)
        var curve: [JSONValue] = []
        for start in stride(from: 0, to: readings.count, by: group) {
            let loudest = readings[start..<min(readings.count, start + group)].max() ?? -.infinity
            curve.append(Double(loudest) > LoudnessGate.absolute ? jsonNumber(Double(loudest)) : .null)
        }
        members.append(
            (
                "curve",
                .object([
                    ("step", jsonNumber(0.1 * Double(group), 1000)),
                    ("window", .number(drawsMomentary(loudness) ? 0.4 : 3)), ("values", .array(curve)),
                ])
            ))
        if loudness.normalizable.isFinite { members.append(("integrated", jsonNumber(loudness.normalizable))) }
        return members
    }
}

/// A format in words for the report's table: "Apple IMA4", "linear PCM, 16-bit integer".
private func formatDescription(_ format: StreamDescription) -> String {
    let name = formatName(format.formatID)
    guard format.formatID == .lpcm else { return name }
    let kind = format.formatFlags.contains(.isFloat) ? "float" : "integer"
    return "\(name), \(format.bitsPerChannel)-bit \(kind)"
}

/// `value` to `places` decimals, rounded (as the page's script writes its labels), not cut.
private func rounded(_ value: Double, places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return fixedPoint((value * scale).rounded() / scale, places: places)
}

private func numberCell(_ value: Double?, places: Int, label: String) -> String {
    guard let value, value.isFinite else { return "<td data-label=\"\(label)\" data-value=\"\">—</td>" }
    return
        "<td class=\"number\" data-label=\"\(label)\" data-value=\"\(value)\">\(rounded(value, places: places))</td>"
}

/// A path escaped for the page, with a line-break opportunity after each separator (`/`, `-`, `_`, `.`, space),
/// so a narrow column wraps a name between its parts, not letter by letter.
func breakable(_ path: String) -> String {
    var result = ""
    var part = ""
    var previous: Character?
    for character in path {
        // And before a capital after a small letter (CamelCase names).
        if character.isUppercase, previous?.isLowercase == true {
            result += markupEscaped(part) + "<wbr>"
            part = ""
        }
        part.append(character)
        previous = character
        if "/-_. ".contains(character) {
            result += markupEscaped(part) + "<wbr>"
            part = ""
        }
    }
    return result + markupEscaped(part)
}

/// 16-bit integers as base64 of their little-endian bytes.
func base64(_ values: [Int16]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(values.count * 2)
    for value in values {
        let bits = UInt16(bitPattern: value)
        bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }
    return base64(bytes)
}

/// Bytes as base64 (RFC 4648, padded).
func base64(_ bytes: [UInt8]) -> String { Base64.encoded(bytes) }

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
