import ArgumentParser
import AudioConversion
import AudioEngines
import AudioFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `afkit clip`: Apple's `afclip` on Linux: clipped samples on the sample grid and between them.
struct Clip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find clipped samples, on the sample grid and between samples (4x oversampled), as afclip does.",
        discussion:
            "Each file is decoded as convert decodes it (a lossy file counts as decoded). A sample at full scale "
            + "(32767 of 32768) or beyond clips on the grid; a peak over full scale between two samples that do not "
            + "clip themselves clips between samples. Each channel's first \(ClipScanner.maximumListedRuns) runs (fewer with "
            + "many channels: \(ClipScanner.maximumListedRunsInAll) in all) are "
            + "listed; every run is counted, and the runs past them are said (\"N more runs not listed\"; in JSON, "
            + "'runCount' and 'runsNotListed' per channel). Exit status 1 when anything clips (or a file cannot be read)."
            + "\n\n" + reference
    )

    @Flag(
        help: ArgumentHelp(
            "Print a JSON array with one object per file: per channel 'onSample', 'interSample', 'runCount' and "
                + "'runsNotListed', and the runs listed."))
    var json = false

    @Flag(
        help: ArgumentHelp(
            "One line of totals a file, no runs listed (in JSON: 'runs' empty, every run in 'runsNotListed')."))
    var summary = false

    @Argument(help: "Audio files.")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one FILE") }
    }

    func run() throws {
        // A path that does not exist is a usage error (exit 2), as for every command; checked here, not in
        // validate(): argument-parser reports an unknown option first.
        try checkPathsExist(files, in: Self.self)
        var anything = false
        var entries: [JSONValue] = []
        var text = ""
        for path in files {
            do {
                let (report, rate, channels, notes) = try ClipScanner.scan(path: path, listsRuns: !summary)
                // A file cut short or damaged is said, as every command that reads it says it.
                for note in notes { Output.standardError(fileMessage("clip", path, .note, note)) }
                anything = anything || report.clips
                if json {
                    entries.append(Self.json(path: path, report, rate: rate))
                } else if summary {
                    text += Self.summaryLine(path: path, report, rate: rate, channels: channels)
                } else {
                    text += Self.text(path: path, report, rate: rate, channels: channels)
                }
            } catch let error as AudioFileError {
                anything = true
                Output.standardError(fileMessage("clip", path, .error, "\(error)"))
                if json { entries.append(.object([("path", .string(path)), ("error", .string("\(error)"))])) }
            }
        }
        if json {
            Output.standardOutput(JSONValue.array(entries).serialized(pretty: true) + "\n")
        } else {
            Output.standardOutput(text)
        }
        if anything { throw ExitCode(AFKit.Status.problemFound) }
    }

    /// A clip's level in dB.
    static func decibels(_ linear: Float) -> Double { 20 * log10(Double(max(linear, 1e-9))) }

    /// The same as the table shows it, signed (`+1.74`).
    static func signedDecibels(_ linear: Float) -> String {
        let value = decibels(linear)
        return (value >= 0 ? "+" : "") + fixedPoint(value, places: 2)
    }

    /// afclip's table, a row a run (its first sample, how many follow, its highest level), then the totals.
    static func text(path: String, _ report: ClipScanner.Report, rate: Double, channels: Int) -> String {
        var lines = [
            "\(PathEscaping.controlEscaped(path)): \(channels) ch, \(formatSampleRate(rate)) Hz, \(report.frames) frames"
        ]
        if report.runs.isEmpty {
            lines.append("no clipping")
        } else {
            lines.append("     seconds       sample  channel  samples     peak dB  where")
            for run in report.runs {
                let seconds = fixedPoint(Double(run.start) / rate, places: 6)
                let cells = [
                    pad(seconds, 12), pad(String(run.start), 12), pad(String(run.channel + 1), 8),
                    pad(String(run.count), 8), pad(signedDecibels(run.peak), 11),
                    run.kind == .onSample ? "  on sample" : "  between samples",
                ]
                lines.append(cells.joined(separator: " "))
            }
        }
        let notListed = report.runsNotListed
        for channel in 0..<channels {
            lines.append(
                "channel \(channel + 1): \(report.onSample[channel]) clipped on the sample grid, "
                    + "\(report.interSample[channel]) between samples")
            if notListed[channel] > 0 {
                lines.append(
                    "channel \(channel + 1): \(report.runCounts[channel]) runs, \(notListed[channel]) more runs not listed "
                        + "(the first \(ClipScanner.listedRuns(perChannelOf: channels)) are)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--summary`: the file's totals on one line, every channel's together.
    static func summaryLine(path: String, _ report: ClipScanner.Report, rate: Double, channels: Int) -> String {
        let head =
            "\(PathEscaping.controlEscaped(path)): \(channels) ch, \(formatSampleRate(rate)) Hz, \(report.frames) frames: "
        let runs = report.runCounts.reduce(0, +)
        guard runs > 0 else { return head + "no clipping\n" }
        return head
            + "\(report.onSample.reduce(0, +)) clipped on the sample grid, \(report.interSample.reduce(0, +)) between "
            + "samples, in \(runs) run\(runs == 1 ? "" : "s")\n"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func json(path: String, _ report: ClipScanner.Report, rate: Double) -> JSONValue {
        let notListed = report.runsNotListed
        return .object([
            ("path", .string(path)), ("frames", .integer(report.frames)), ("sampleRate", .number(rate)),
            ("onSample", .integer(report.onSample.reduce(0, +))),
            ("interSample", .integer(report.interSample.reduce(0, +))),
            ("runCount", .integer(report.runCounts.reduce(0, +))),
            (
                "channels",
                .array(
                    report.onSample.indices.map { channel in
                        .object([
                            ("channel", .integer(Int64(channel + 1))),
                            ("onSample", .integer(report.onSample[channel])),
                            ("interSample", .integer(report.interSample[channel])),
                            ("runCount", .integer(report.runCounts[channel])),
                            ("runsNotListed", .integer(notListed[channel])),
                        ])
                    })
            ),
            (
                "runs",
                .array(
                    report.runs.map { run in
                        .object([
                            ("channel", .integer(Int64(run.channel + 1))), ("kind", .string(run.kind.rawValue)),
                            ("startFrame", .integer(run.start)), ("count", .integer(run.count)),
                            ("startSeconds", .number(Double(run.start) / rate)),
                            ("peakDecibels", .number((decibels(run.peak) * 100).rounded() / 100)),
                        ])
                    })
            ),
        ])
    }
}
