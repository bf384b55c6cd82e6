import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioConversion

/// `afkit batch`: a tree of sources to a preset, in parallel and incrementally.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert files and folders with a preset, mirroring the tree under --out, in parallel.",
        discussion: "Outputs already made from an unchanged source with the same preset are skipped. Exit status 1 if any file failed."
    )

    @Option(help: "The preset: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")).")
    var preset: String

    @Option(help: "The output folder.")
    var out: String

    @Option(help: "IMA encoding: best (search) or fast.")
    var quality = "best"

    @Argument(help: "Source files and folders.")
    var sources: [String]

    func validate() throws {
        guard Preset(rawValue: preset) != nil else {
            throw ValidationError("no preset '\(preset)': use \(Preset.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard !sources.isEmpty else { throw ValidationError("give at least one SOURCE") }
        guard ["best", "fast"].contains(quality) else { throw ValidationError("--quality is best or fast") }
        try checkPathsExist(sources)
    }

    func run() throws {
        guard let preset = Preset(rawValue: preset) else { return }
        let batch = BatchConverter(preset: preset, outputFolder: out, imaQuality: quality == "fast" ? .fast : .best)
        let jobs = try batch.jobs(for: sources)
        let total = jobs.count
        let terminal = standardErrorIsTerminal
        let outcomes = batch.run(jobs) { job, outcome, done in
            switch outcome {
            case .failed(let message): Output.standardError("\(terminal ? "\r\u{1B}[K" : "")\(job.source): error: \(message)\n")
            case .converted where !terminal: Output.standardError("converted \(job.source) -> \(job.output)\n")
            default: break
            }
            if terminal {
                let width = 30
                let filled = total == 0 ? width : done * width / total
                Output.standardError("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(done)/\(total)")
                if done == total { Output.standardError("\n") }
            }
        }
        var converted = 0
        var current = 0
        var failed = 0
        for outcome in outcomes {
            switch outcome {
            case .converted: converted += 1
            case .upToDate: current += 1
            case .failed: failed += 1
            }
        }
        Output.standardOutput("\(total) files: \(converted) converted, \(current) up to date, \(failed) failed\n")
        if failed > 0 { throw ExitCode(AFKit.Status.problemFound) }
    }
}
