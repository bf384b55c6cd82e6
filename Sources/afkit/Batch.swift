import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AssetValidation
import AudioFileKit
import AudioFormats
import FileAccess

/// `afkit batch`: a tree of sources to a preset, in parallel and incrementally.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert files and folders with a preset, mirroring the tree under --out, in parallel.",
        discussion: """
            Folders are searched for the files of every container afkit reads \
            (\(ContainerRegistry.walkedExtensions.sorted().map { "." + $0 }.joined(separator: " "))); symbolic links \
            followed, macOS's ._ files and .DS_Store left out, the --out folder never read, and a line names the \
            other files skipped. A folder's files keep \
            their path below it, and with several folders, below each folder's name (as cp -r places them). An \
            output is rebuilt \
            unless it records the same source content, preset, settings and afkit version and reads back whole. \
            Two sources that would write one output are an error before anything is converted. Exit status 1 if \
            any file failed, 2 if the paths hold no source (unless --allow-empty).
            """ + "\n\n" + reference
    )

    @Option(help: ArgumentHelp("The preset.", valueName: "name"))
    var preset: Preset

    @Option(help: ArgumentHelp("The output folder.", valueName: "folder"))
    var out: String

    @Option(
        name: .customShort("f"),
        help: ArgumentHelp(
            "Output file type, afconvert's code (\(FileTypeArgument.allValueStrings.joined(separator: ", "))); the outputs "
                + "take its usual extension (default: caff, .caf).", valueName: "type"))
    var fileTypeArgument: FileTypeArgument?
    /// The container `-f` names.
    var fileType: FileType? { fileTypeArgument?.fileType }

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp(
            "Output data format in place of the preset's, with an optional @RATE.", valueName: "format[@rate]"),
        transform: DataFormatSpecifier.fromArgument)
    var dataFormat: DataFormatSpecifier?

    @OptionGroup var codec: CodecOptions

    @OptionGroup var shared: FileConversionOptions

    @Option(
        help: ArgumentHelp(
            "Name each output below --out: {stem} (the source's name without its extension), {ext} (its extension), "
                + "{dir} (its folder, as mirrored), {preset}; the extension comes from the container (default: "
                + "\(OutputNamePattern.mirroring)).", valueName: "pattern"),
        transform: { text in
            do { return try OutputNamePattern(text) } catch let error as ConversionUsageError {
                throw ValidationError(error.description)
            }
        })
    var name: OutputNamePattern?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Sources converted at once (default: the cores).", valueName: "count"))
    var jobs: Int?

    @Flag(help: "Succeed when the paths hold no source file.")
    var allowEmpty = false

    @Option(
        help: ArgumentHelp(
            "Write every file's loudness (source and output: integrated, range, true peak, sample peak, short-term "
                + "maximum) to this JSON file; a FILE.html gets the outputs validated instead, as "
                + "`validate --format html` draws them.", valueName: "file"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "The profile an HTML report checks the outputs against and whose duration limit --trim cuts to "
                + "(default: the preset's own: "
                + Preset.allCases.map { "\($0.profileName ?? Profile.standard.name) for \($0.rawValue)" }.joined(
                    separator: ", ") + ").", valueName: "name"),
        completion: Validate.profileCompletion)
    var profile: String?

    @Argument(help: "Source files and folders.")
    var sources: [String]

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("give at least one SOURCE") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs takes 1 to 256") }
        try shared.check(rateGiven: dataFormat?.sampleRate != nil)
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist(sources, in: Self.self, readsFolders: true)
        let writesHTML = report.map(Self.isHTML) ?? false
        if profile != nil, !writesHTML, !shared.trim {
            throw usageError(
                "--profile is for an HTML report or --trim: give --report FILE.html or --trim", in: Self.self)
        }
        // The HTML report's profile, loaded before anything is converted (a bad name is a usage error).
        var reportProfile: Profile?
        if writesHTML {
            do { reportProfile = try self.reportProfile() } catch let error as ValidationError {
                throw usageError(error.message, in: Self.self)
            }
        }
        if pathExists(out) && !isDirectory(out) {
            throw usageError(
                "--out '\(out)' is \(OutputGuard.kind(of: out) ?? "not a folder"): give a folder (created when missing)",
                in: Self.self)
        }
        var batch = BatchConverter(
            preset: preset, outputFolder: out, imaQuality: shared.quality.encoding, parallelJobs: jobs)
        var limit: (seconds: Double, name: String)?
        if shared.trim {
            do { limit = try trimLimit(profile: profile, preset: preset) } catch let error as ValidationError {
                throw usageError(error.message, in: Self.self)
            }
        }
        batch.adjustments = shared.adjustments(trimLimit: limit)
        batch.fileType = fileType
        batch.fileTypeCode = fileTypeArgument?.code
        batch.dataFormat = dataFormat
        batch.codec = codec.request
        // The preset, -f and -d checked together, as convert checks them, before anything is converted.
        do { try batch.checkSettings() } catch let error as ConversionUsageError {
            throw usageError(error.description, in: Self.self)
        }
        if let name { batch.namePattern = name }
        let jobs: [BatchConverter.Job]
        do {
            let plan = try batch.plan(for: sources, alsoWriting: report.map { [($0, "the report")] } ?? [])
            jobs = plan.jobs
            if let note = ContainerRegistry.skippedNote(plan.skipped, command: "batch"), !shared.quiet {
                Output.standardError(note + "\n")
            }
        } catch let error as BatchConverter.CollisionError {
            Output.standardError(error.lines.map { commandMessage("batch", .error, $0) }.joined())
            throw ExitCode(AFKit.Status.problemFound)
        } catch let error as OutputGuard.Refusal {
            throw usageError("\(error) (nothing was converted)", in: Self.self)
        }
        let total = jobs.count
        if total == 0 && !allowEmpty {
            // The output folder is never read as a source: where it is the source folder, say so.
            let outIdentity = FileIdentity(path: out)
            let hint =
                outIdentity != nil && sources.contains { FileIdentity(path: $0) == outIdentity }
                ? "; --out '\(out)' is never read as a source, so give the outputs a folder of their own" : ""
            Output.standardError(
                commandMessage(
                    "batch", .error,
                    "no source file in \(sources.joined(separator: ", "))\(hint) (give --allow-empty to accept that)"))
            throw ExitCode(AFKit.Status.usage)
        }
        // On a terminal (or with --progress), one line shows the files done and how far the file being written
        // has come; when piped, a line a file converted; with --quiet, errors only.
        let quiet = shared.quiet
        let terminal = standardErrorIsTerminal
        let line =
            ProgressLine.isShown(forced: shared.progress, quiet: quiet)
            ? ProgressLine(command: "batch", total: total) : nil
        if let line { batch.progress = { job, progress in line.report(job.source, progress) } }
        let say: @Sendable (String) -> Void = { text in
            if let line { line.write(text) } else { Output.standardError(text) }
        }
        let outcomes = batch.run(jobs) { job, outcome, _ in
            Self.say(outcome, of: job, quiet: quiet, terminal: terminal, say)
            line?.end(job.source)
        }
        line?.clear()
        var (converted, current, failed) = (0, 0, 0)
        for outcome in outcomes {
            switch outcome {
            case .converted: converted += 1
            case .upToDate: current += 1
            case .failed: failed += 1
            }
        }
        if let report, !writeReport(report, jobs, outcomes, profile: reportProfile) { failed += 1 }
        if !quiet {
            Output.standardOutput(
                "\(total) \(total == 1 ? "file" : "files"): \(converted) converted, \(current) up to date, "
                    + "\(failed) failed\n")
        }
        if failed > 0 { throw ExitCode(AFKit.Status.problemFound) }
    }

    /// Says what became of a job: its error, or (unless `quiet`) what its conversion noted and, when standard error
    /// is no terminal, that it was converted.
    private static func say(
        _ outcome: BatchConverter.Outcome, of job: BatchConverter.Job, quiet: Bool, terminal: Bool,
        _ say: (String) -> Void
    ) {
        switch outcome {
        case .failed(let message):
            say(fileMessage("batch", job.source, .error, message))
        case .converted(let notes, let normalization) where !quiet:
            // What a conversion notes (a truncated source, a resampled rate) is said, as convert says it; the
            // loudness normalization's measures and changes, one line a file.
            for note in notes + (normalization.map { [$0.summary] } ?? []) {
                say(fileMessage("batch", job.source, .note, note))
            }
            if !terminal { say("batch: converted \(job.source) -> \(job.output)\n") }
        default: break
        }
    }

    /// Writes `--report`: the HTML report against `profile`, or the loudness report; `false` (said) where it
    /// cannot be written.
    private func writeReport(
        _ report: String, _ jobs: [BatchConverter.Job], _ outcomes: [BatchConverter.Outcome], profile: Profile?
    ) -> Bool {
        do {
            if let profile {
                try writeFile(report, bytes: Array(htmlReport(jobs, outcomes, profile: profile).utf8))
            } else {
                try writeFile(
                    report,
                    bytes: Array(BatchConverter.loudnessReport(jobs, outcomes).serialized(pretty: true).utf8) + [10])
            }
            return true
        } catch {
            Output.standardError(fileMessage("batch", report, .error, "cannot write the report: \(error)"))
            return false
        }
    }

    /// The batch's conversion options as `convert` takes them: the preset, `-f`, `-d`, `-c`/`-b`/`-q`/`-s`,
    /// `--profile` with `--trim`, and the options the two share.
    var conversionArguments: [String] {
        var arguments = ["--preset", preset.rawValue]
        if let fileTypeArgument { arguments += ["-f", fileTypeArgument.code] }
        if let dataFormat { arguments += ["-d", dataFormat.description] }
        arguments += codec.request.arguments
        if shared.trim, let profile { arguments += ["--profile", profile] }
        return arguments + shared.arguments
    }

    static func isHTML(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".html") || path.lowercased().hasSuffix(".htm")
    }

    /// The profile an HTML report checks the outputs against: `--profile`, or the preset's own.
    func reportProfile() throws -> Profile {
        try profileInForce(profile, preset: preset)
    }

    /// `--report FILE.html`: the outputs validated against `profile` and drawn; a job that failed is a file
    /// with its error as the finding.
    func htmlReport(_ jobs: [BatchConverter.Job], _ outcomes: [BatchConverter.Outcome], profile checked: Profile)
        -> String
    {
        var validator = Validate.validator(checked, drawsPictures: true)
        // A fix remakes an output from its source with the batch's options, never from the output itself.
        let origins = Dictionary(
            jobs.map { ($0.output, FixOrigin(source: $0.source, options: conversionArguments)) },
            uniquingKeysWith: { a, _ in a })
        validator.origin = { origins[$0] }
        return BatchConverter.validationReport(jobs, outcomes, validator: validator, profile: checked.name)
            .html(version: AudioConverter.version)
    }
}
