import ArgumentParser
import AudioContainers
import AudioConversion
import AudioFormats
import FileAccess

/// `afkit join`: sounds one after another into one file, gapless, as `sox A B OUT` joins them.
struct Join: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Join sounds end to end into one file, gapless, at the first one's rate and the widest one's channels.",
        discussion: reference)

    @OptionGroup var options: CompositionOptions

    func run() throws {
        try options.write(.join, parts: options.inputs.map { .init(path: $0) }, in: Self.self)
    }
}

/// What `join` and `mix` take alike: the output, its format (as `convert` takes it), the edits and loudness of
/// every conversion, and two or more inputs.
struct CompositionOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("out")], help: ArgumentHelp("The output file.", valueName: "file"))
    var output: String

    @OptionGroup var format: OutputFormatOptions

    @OptionGroup var shared: SharedConversionOptions

    @Argument(help: ArgumentHelp("The sounds, in the order given (two or more).", valueName: "input"))
    var inputs: [String]

    func validate() throws {
        guard inputs.count >= 2 else { throw ValidationError("give two or more inputs") }
        try format.checkComposable()
    }

    /// Writes the composition of `parts` as `command`.
    func write(_ kind: Composition.Kind, parts: [Composition.Part], in command: ParsableCommand.Type) throws {
        try ComposedOutput(
            command: command, kind: kind, parts: parts, output: output, format: format, shared: shared
        ).write()
    }
}

extension OutputFormatOptions {
    /// `join` and `mix` bring every input to one rate and channel count (`-d @RATE`, `-c`): a remix of one source's
    /// channels (`--mix`, `-m`) has no one source to remix.
    func checkComposable() throws {
        if mix != nil || channelMap != nil {
            throw ValidationError("--mix and -m remix one source's channels; join and mix take -c for the output's")
        }
        if dataFormat?.kind == .copy { throw ValidationError("-d 0 copies one source's format; give a data format") }
    }
}

extension Composition {
    /// The composition `settings` ask for: at the rate of `-d` (or the preset's), with `-c` channels, resampled
    /// as they say; else at the first part's.
    init(_ kind: Kind, parts: [Part], settings: ConversionSettings) throws {
        try self.init(
            kind, parts: parts, sampleRate: settings.dataFormat?.sampleRate ?? settings.sampleRate,
            channels: settings.channels, resampler: settings.resampler)
    }
}

/// What `join` and `mix` share: the output checked and claimed as `convert` claims its own, the composition made
/// into the pipeline's source, the output written atomically, and every message naming the file it is about.
struct ComposedOutput {
    let command: ParsableCommand.Type
    let kind: Composition.Kind
    let parts: [Composition.Part]
    let output: String
    let format: OutputFormatOptions
    let shared: SharedConversionOptions

    func write() throws {
        let name = command._commandName
        let settings = format.settings
        var composed = settings
        composed.apply(shared.adjustments())
        let inputs = parts.map(\.path)
        try checkPathsExist(inputs, in: command)
        let folder = parentFolder(of: output)
        guard isDirectory(folder) else {
            throw usageError("no such folder: '\(folder)' (where the output would go); create it first", in: command)
        }
        // The output guard: never an input, never a device, a FIFO or a folder.
        var outputs = OutputGuard(inputs: inputs)
        do { try outputs.claim(output) } catch { throw usageError(error.description, in: command) }
        TemporaryFiles.removeStale(in: folder)
        let destination: ConversionPlan.Destination
        do {
            destination = try ConversionPlan.Destination(output: output, settings: composed)
        } catch let error as ConversionUsageError {
            throw usageError(error.description, in: command)
        }
        let line =
            ProgressLine.isShown(forced: shared.progress, quiet: shared.quiet) ? ProgressLine(command: name) : nil
        defer { line?.clear() }
        do {
            composed.chapters = try format.chapterList(in: command)
            let composition = try Composition(kind, parts: parts, settings: settings)
            let overloads = OverloadReport()
            composed.composedSource = { composition.open(report: overloads) }
            if let line {
                let shown = shownInput(output)
                composed.progress = { line.report(shown, $0) }
                line.begin(shown)
            }
            let result = try AudioConverter.convert(
                input: composition.name, output: output, destination: destination, settings: composed)
            line?.clear()
            if !shared.quiet {
                for note in composition.notes { Output.standardError(fileMessage(name, note.path, .note, note.text)) }
            }
            var notes = result.notes + (result.normalization.map { [$0.summary] } ?? [])
            let keepsOverloads = result.format.formatID == .lpcm && result.format.formatFlags.contains(.isFloat)
            if overloads.samples > 0, let (first, last) = overloads.frames, composed.loudness == nil, !keepsOverloads {
                let rate = composition.format.sampleRate
                notes.append(
                    "the mix takes \(overloads.samples) sample\(overloads.samples == 1 ? "" : "s") past full scale, "
                        + "from \(clockTime(Double(first) / rate)) to \(clockTime(Double(last) / rate)) (frames "
                        + "\(first) to \(last)), which clip in the output: lower --levels, or give --loudness, whose "
                        + "true-peak limiter holds them")
            }
            for note in notes where !shared.quiet {
                Output.standardError(fileMessage(name, output, .note, note))
            }
        } catch let error as Composition.PartError {
            // An input's error: that input is the file it is about, whatever its message names.
            line?.clear()
            Output.standardError(fileMessage(name, error.path, .error, "\(error.error)"))
            throw ExitCode(AFKit.Status.problemFound)
        } catch let error as AudioFileError {
            line?.clear()
            Output.standardError(fileMessage(name, output, .error, "\(error)"))
            throw ExitCode(AFKit.Status.problemFound)
        } catch let error as ConversionUsageError {
            throw usageError(error.description, in: command)
        }
    }
}
