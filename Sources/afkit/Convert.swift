import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `afkit convert`: afconvert's job, with its option spelling.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Convert an audio file to " + ContainerRegistry.written.map(\.name).joined(separator: ", ")
            + ", resampling and remixing as asked.",
        discussion: """
            Data formats: \(DataFormatSpecifier.names.joined(separator: " ")), with an optional @RATE, as in \
            ima4@22050 (Opus in CAF: constant bit rate unless -s 3). \
            Presets: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")). \
            The output is written atomically: it appears complete or not at all. -hf lists the file types and \
            the data formats each holds.
            """ + "\n\n" + reference
    )

    @OptionGroup var format: OutputFormatOptions

    @Option(
        help: ArgumentHelp(
            "The profile whose duration limit --trim cuts to (default: the preset's own, else system-sound).",
            valueName: "name"), completion: Validate.profileCompletion)
    var profile: String?

    @Flag(
        name: .customLong("check-clip"),
        help: "Fail (nothing written) where the output, decoded, clips more than the source does (afkit clip's count).")
    var checkClip = false

    @Flag(
        name: .customShort("v"),
        help: "Tell what the conversion does: the source and output formats, the route, the resampler, the gain.")
    var verbose = false

    @OptionGroup var shared: FileConversionOptions

    @Argument(help: "The input file, or - for standard input.")
    var input: String

    @Argument(
        help: ArgumentHelp(
            "The output file, or - for standard output (give -f or --preset). Without it, the output goes beside "
                + "the input with the extension of -f or of the preset (CAF by default), as afconvert names it; "
                + "never over the input.", valueName: "output"))
    var outputArgument: String?

    @Option(name: .customShort("o"), help: ArgumentHelp("The output file (as the OUTPUT argument).", valueName: "file"))
    var outputOption: String?

    /// The output: given, or beside the input with the output type's extension (afconvert's habit).
    var output: String {
        if let given = outputOption ?? outputArgument { return given }
        let settings = settings
        let (folder, base, _) = pathParts(input)
        return folder + base + (settings.fileType?.fileNameExtension(forCode: settings.fileTypeCode) ?? ".caf")
    }

    func validate() throws {
        if outputOption != nil && outputArgument != nil { throw ValidationError("give the output once: OUTPUT or -o") }
        if outputOption == nil && outputArgument == nil {
            guard input != "-" else { throw ValidationError("standard input needs an OUTPUT (or -o) to write to") }
            guard output != input else {
                throw usageError(
                    "without OUTPUT the output would be '\(output)', the input itself: give OUTPUT, -o or another -f",
                    about: input, in: Self.self)
            }
        }
        if profile != nil && !shared.trim { throw ValidationError("--profile goes with --trim (the limit it cuts to)") }
        if shared.trim { _ = try trimLimit(profile: profile, preset: format.preset) }
        if verbose && shared.quiet { throw ValidationError("-v and --quiet: give one") }
        try shared.check(rateGiven: format.dataFormat?.sampleRate != nil)
        // Folders: convert makes one file from one file (a folder as INPUT: checkPathsExist, in run()).
        if output != "-" && isDirectory(output) {
            let named =
                format.fileTypeArgument?.fileNameExtension
                ?? (format.preset?.settings.fileType ?? .caf).fileNameExtensions[0]
            let base = input == "-" ? "output" : pathParts(input).base
            throw ValidationError(
                "'\(output)' is a folder: give the output's file name, such as "
                    + "'\(output.hasSuffix("/") ? output : output + "/")\(base)\(named)'")
        }
        do {
            // The plan's destination: the container and data format, checked before any work.
            _ = try ConversionPlan.Destination(output: output, settings: settings)
        } catch let error as ConversionUsageError {
            throw usageError(error.description, about: output, in: Self.self)
        }
    }

    /// `-v`: what the conversion did, a line each for the source, the output and the route.
    static func story(of result: ConversionResult, settings: ConversionSettings, input: String) -> String {
        var lines: [String] = []
        if let format = result.sourceFormat {
            lines.append(
                "source: \(input): \(format.summary)" + (result.sourceFrameCount.map { ", \($0) frames" } ?? ""))
        }
        lines.append(
            "output: \(result.fileType.name), \(result.format.summary), \(result.frameCount) frames"
                + (result.packetTableInfo.map { " (+ \($0.primingFrames) priming, \($0.remainderFrames) remainder)" }
                    ?? ""))
        var route: String
        switch result.route {
        case .copyPackets?: route = "the source's packets copied, untouched"
        case .exactPCM?: route = "the stored samples rewritten exactly (no decode to float)"
        case .integers?: route = "the stored integers encoded exactly"
        case .float?, nil: route = "decoded to 32-bit float"
        }
        if result.route == .float, let source = result.sourceFormat {
            if source.channelsPerFrame != result.format.channelsPerFrame || settings.mixMatrix != nil
                || settings.channelMap != nil
            {
                let how =
                    settings.mixMatrix != nil
                    ? "your --mix" : settings.channelMap != nil ? "-m" : "a mix that cannot clip"
                route += ", \(source.channelsPerFrame) to \(result.format.channelsPerFrame) channels by \(how)"
            }
            if source.sampleRate != result.format.sampleRate {
                route +=
                    ", resampled \(formatSampleRate(source.sampleRate)) to \(formatSampleRate(result.format.sampleRate)) "
                    + "Hz by \(settings.resampler.description)"
            }
            if let outcome = result.normalization {
                route += ", gain \(shortDecimal(outcome.gain)) dB"
                if outcome.limiterReduction < 0 {
                    route += ", limiter down to \(shortDecimal(outcome.limiterReduction)) dB"
                }
            }
            route += ", encoded"
        }
        lines.append("route: " + route)
        lines += result.timeline
        return lines.map { "convert: \($0)\n" }.joined()
    }

    /// afconvert's `-hf`: each file type `-f` takes, its names, and the data formats it holds, from the checks
    /// the writers answer.
    static var fileTypesAndFormats: String {
        var lines = ["File types afkit writes (-f), their names, and the data formats each holds (-d):"]
        for code in FileTypeArgument.allValueStrings {
            guard let type = FileType(afconvertCode: code) else { continue }
            let formats = ConversionPlan.Destination.dataFormats(in: type)
            lines.append(
                "'\(code)' = \(type.name) (\(type.fileNameExtension(forCode: code)))\n"
                    + "    data formats: \(formats.joined(separator: " "))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    var settings: ConversionSettings {
        var settings = format.settings
        settings.imaQuality = shared.quality.encoding
        // (The limit was checked in validate().)
        settings.apply(shared.adjustments(trimLimit: try? trimLimit(profile: profile, preset: format.preset)))
        settings.checksClipping = checkClip
        return settings
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist([input], in: Self.self, allowStandardInput: true)
        let toStandardOutput = output == "-"
        if toStandardOutput && isatty(1) != 0 {
            throw usageError(
                "will not write binary audio to a terminal: redirect standard output to a file or a "
                    + "pipe (afkit convert IN - > out.caf), or give an OUTPUT file", in: Self.self)
        }
        let folder = parentFolder(of: output)
        guard toStandardOutput || isDirectory(folder) else {
            throw usageError(
                "no such folder: '\(folder)' (where the output would go); create it first", about: output, in: Self.self
            )
        }
        // The output guard: never an input, never a device, a FIFO or a folder (standard output is `-`).
        var outputs = OutputGuard(inputs: [input])
        outputs.takesStandardOutput = true
        do {
            if toStandardOutput { try outputs.checkStandardOutput() } else { try outputs.claim(output) }
        } catch {
            throw usageError(error.description, about: output, in: Self.self)
        }
        let streamed = toStandardOutput
        if !streamed { TemporaryFiles.removeStale(in: folder) }
        // `-`: standard input is kept in a temporary file; standard output gets the finished file.
        let source = input == "-" ? try StandardStreams.spoolStandardInput() : input
        defer { if input == "-" { TemporaryFiles.discard(source) } }
        var settings = settings
        // The container and data format, worked out once from the name given (standard output's: `-f`, or CAF).
        let destination = try ConversionPlan.Destination(output: output, settings: settings)
        let target = streamed ? TemporaryFiles.path(named: "stdout") : output
        defer { if streamed { TemporaryFiles.discard(target) } }
        // A long encode shows how far it has come, on a terminal (or with --progress).
        let line =
            ProgressLine.isShown(forced: shared.progress, quiet: shared.quiet) ? ProgressLine(command: "convert") : nil
        if let line {
            let name = shownInput(input)
            settings.progress = { line.report(name, $0) }
            line.begin(name)
        }
        defer { line?.clear() }
        do {
            settings.chapters = try format.chapterList(in: Self.self)
            let result = try AudioConverter.convert(
                input: source, output: target, destination: destination, settings: settings)
            line?.clear()
            let notes = result.notes + (result.normalization.map { [$0.summary] } ?? [])
            for note in notes where !shared.quiet { Output.standardError(fileMessage("convert", input, .note, note)) }
            if verbose { Output.standardError(Self.story(of: result, settings: settings, input: input)) }
            if toStandardOutput { try StandardStreams.copyToStandardOutput(target) }
        } catch let error as AudioFileError {
            line?.clear()
            // Every message names the file it is about (once).
            Output.standardError(fileMessage("convert", input, .error, "\(error)"))
            throw ExitCode(AFKit.Status.problemFound)
        } catch let error as ConversionUsageError {
            // What only the source decides (`-d 0` of a codec that cannot be copied): a usage error all the same.
            throw usageError(error.description, about: input, in: Self.self)
        }
    }
}
