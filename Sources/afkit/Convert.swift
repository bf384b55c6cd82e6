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

    /// The resamplers afkit drives.
    enum ResamplerName: String, ExpressibleByArgument, CaseIterable {
        case soxr, libsamplerate
    }

    @Option(
        name: .customShort("f"),
        help: ArgumentHelp(
            "Output file type (default: from OUTPUT's extension).", valueName: "type"))
    var fileType: FileType?

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp(
            "Output data format, with an optional @RATE; 0 for the source's own (AAC and ALAC packets copied), "
                + "0@RATE for it at another rate.",
            valueName: "format[@rate]"),
        transform: DataFormatSpecifier.fromArgument)
    var dataFormat: DataFormatSpecifier?

    // A negative value is taken as the value it is, and refused as out of range, not as a missing one.
    @Option(
        name: .customShort("c"), parsing: .unconditional,
        help: ArgumentHelp("Output channels (downmix or upmix).", valueName: "channels"))
    var channels: Int?

    @Option(
        name: .customShort("b"), parsing: .unconditional,
        help: ArgumentHelp(
            "Bit rate of \(spokenList(AudioCodecRegistry.standard.encodedCodecs(taking: .bitRate))) output, in bits "
                + "per second as afconvert takes it (128000), or with k (128k).",
            valueName: "bits-per-second"),
        transform: Self.bitRate)
    var bitRate: Int?

    @Option(
        name: .customShort("q"),
        help: ArgumentHelp(
            "Codec quality, 0 to 127 ("
                + CodecDescriptor.encoded.compactMap(\.encoding?.qualityHelp).joined(separator: "; ") + ").",
            valueName: "0-127"))
    var codecQuality: Int?

    @Option(
        name: .customShort("s"),
        help: ArgumentHelp(
            "Bit-rate strategy of \(spokenList(AudioCodecRegistry.standard.encodedCodecs(taking: .strategy))) output: "
                + "0 CBR, 1 ABR, 2 constrained VBR, 3 VBR.", valueName: "0-3"))
    var strategy: Int?

    @Option(
        name: .customLong("mix"),
        help: ArgumentHelp(
            "A mix of your own: a row of gains (one per source channel) per output channel, rows split by ';' "
                + "(stereo to mono: --mix '0.5,0.5'); a note says when it takes samples past full scale.",
            valueName: "matrix"))
    var mix: String?

    @Option(
        name: [.customShort("m"), .customLong("channel-map")],
        help: ArgumentHelp(
            "Each output channel's source channel, from 0, or -1 for silence (swap stereo: -m 1,0).",
            valueName: "channels"))
    var channelMap: String?

    @Option(
        name: [.customShort("l"), .customLong("channellayout")],
        help: ArgumentHelp(
            "The output's channel layout by Apple's tag name (MPEG_5_1_A, AAC_5_1, Stereo, ...), recorded in CAF "
                + "or WAV; a source naming the same speakers in another order is reordered to it.",
            valueName: "tag"))
    var channelLayout: String?

    @Option(help: ArgumentHelp("A preferred format.", valueName: "name"))
    var preset: Preset?

    @Option(
        help: ArgumentHelp(
            "The profile whose duration limit --trim cuts to (default: the preset's own, else system-sound).",
            valueName: "name"))
    var profile: String?

    @Flag(
        name: .customLong("check-clip"),
        help: "Fail (nothing written) where the output, decoded, clips more than the source does (afkit clip's count).")
    var checkClip = false

    @Flag(
        name: .customShort("v"),
        help: "Tell what the conversion does: the source and output formats, the route, the resampler, the gain.")
    var verbose = false

    @Option(help: ArgumentHelp("The resampler.", valueName: "name"))
    var resampler: ResamplerName = .soxr

    @Option(
        name: [.customShort("r"), .customLong("src-quality")],
        help: ArgumentHelp(
            "Resampling quality as afconvert takes it: libsoxr's recipe below 32 low, below 64 medium, below 96 "
                + "high, else very high (the default); with --resampler libsamplerate its sinc converter.",
            valueName: "0-127"))
    var sourceQuality: Int?

    @Option(
        name: .customLong("src-complexity"),
        help: ArgumentHelp(
            "afconvert's resampler kind: line (linear interpolation), norm (the default), bats (libsoxr's 32-bit "
                + "recipe).", valueName: "line|norm|bats"))
    var sourceComplexity: String?

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
        let type = settings.fileType ?? .caf
        let (folder, base, _) = pathParts(input)
        return folder + base + type.fileNameExtensions[0]
    }

    func validate() throws {
        if outputOption != nil && outputArgument != nil { throw ValidationError("give the output once: OUTPUT or -o") }
        if outputOption == nil && outputArgument == nil {
            guard input != "-" else { throw ValidationError("standard input needs an OUTPUT (or -o) to write to") }
            guard output != input else {
                throw ValidationError(
                    "without OUTPUT the output would be '\(output)', the input itself: give OUTPUT, -o or another -f")
            }
        }
        if let channels, !(1...64).contains(channels) { throw ValidationError("-c takes 1 to 64 channels") }
        try shared.check(rateGiven: dataFormat?.sampleRate != nil)
        if mix != nil && channelMap != nil { throw ValidationError("give --mix or -m, not both") }
        if let rows = try mixMatrix()?.count ?? sourceChannels()?.count, let channels, channels != rows {
            throw ValidationError("-c \(channels) and a mix for \(rows) output channels: give one or the other")
        }
        if let channelLayout, ChannelLayout.namedTag(channelLayout) == nil {
            throw ValidationError(
                "-l \(channelLayout): no such layout tag; Apple's names, such as "
                    + ChannelLayout.namedTags.prefix(24).map(\.name).joined(separator: " ") + " ...")
        }
        if let sourceQuality, !(0...127).contains(sourceQuality) {
            throw ValidationError("-r (--src-quality) takes 0 to 127")
        }
        if let sourceComplexity, !["line", "norm", "bats"].contains(sourceComplexity) {
            throw ValidationError("--src-complexity takes line, norm or bats")
        }
        if profile != nil && !shared.trim { throw ValidationError("--profile goes with --trim (the limit it cuts to)") }
        if shared.trim { _ = try trimLimit(profile: profile, preset: preset) }
        if verbose && shared.quiet { throw ValidationError("-v and --quiet: give one") }
        if let codecQuality, !(0...127).contains(codecQuality) { throw ValidationError("-q takes 0 to 127") }
        if let strategy, BitRateStrategy(rawValue: strategy) == nil { throw ValidationError("-s takes 0, 1, 2 or 3") }
        // Folders: convert makes one file from one file.
        if input != "-" && isDirectory(input) {
            throw ValidationError(
                "'\(input)' is a folder: convert reads one file (afkit batch --preset NAME --out FOLDER "
                    + "'\(input)' converts a folder)")
        }
        if output != "-" && isDirectory(output) {
            let type = fileType ?? preset?.settings.fileType ?? .caf
            let base = input == "-" ? "output" : pathParts(input).base
            throw ValidationError(
                "'\(output)' is a folder: give the output's file name, such as "
                    + "'\(output.hasSuffix("/") ? output : output + "/")\(base)\(type.fileNameExtensions[0])'")
        }
        do {
            // The plan's destination: the container and data format, checked before any work.
            _ = try ConversionPlan.Destination(output: output, settings: settings)
        } catch let error as ConversionUsageError {
            throw ValidationError(error.description)
        }
    }

    /// `-b`: bits per second (`128000`) or thousands of them (`128k`), the same for every codec. A bare number
    /// under 1000 is refused: it is kbit/s written as bit/s, which no codec holds.
    static func bitRate(_ text: String) throws -> Int {
        let thousands = text.hasSuffix("k") || text.hasSuffix("K")
        guard let number = Int(thousands ? String(text.dropLast()) : text), number > 0 else {
            let negative = Int(thousands ? String(text.dropLast()) : text) != nil
            throw ValidationError(
                "-b \(text): \(negative ? "out of range: " : "")give bits per second, such as 128000 or 128k")
        }
        let (value, overflow) = number.multipliedReportingOverflow(by: thousands ? 1000 : 1)
        guard !overflow, value >= 1000 else {
            throw ValidationError(
                overflow
                    ? "-b \(text): out of range"
                    : "-b \(text): bits per second, as afconvert takes them: -b \(number)000 or -b \(number)k for "
                        + "\(number) kbit/s")
        }
        return value
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
        for code in FileType.allValueStrings {
            guard let type = FileType(afconvertCode: code) else { continue }
            let formats = ConversionPlan.Destination.dataFormats(in: type)
            lines.append(
                "'\(code)' = \(type.name) (\(type.fileNameExtensions.joined(separator: ", ")))\n"
                    + "    data formats: \(formats.joined(separator: " "))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--mix` (rows of gains) or `-m` (a source channel per output, -1 for silence) as a gain matrix, one row
    /// per output channel; `nil` when neither is given. The source's channel count is checked by the plan.
    func mixMatrix() throws -> [[Float]]? {
        if let mix {
            let rows = mix.split(separator: ";", omittingEmptySubsequences: false).map { row in
                row.split(separator: ",", omittingEmptySubsequences: false).map {
                    Float($0.filter { $0 != " " })
                }
            }
            guard !rows.isEmpty, rows.count <= 64, rows.allSatisfy({ row in row.allSatisfy { $0?.isFinite == true } }),
                let width = rows.first?.count, width <= 64, rows.allSatisfy({ $0.count == width })
            else {
                throw ValidationError(
                    "--mix \(mix): give rows of numbers, one row per output channel and one gain per source channel, "
                        + "rows split by ';' (stereo to mono: '0.5,0.5'; swap stereo: '0,1;1,0')")
            }
            return rows.map { $0.map { $0 ?? 0 } }
        }
        return nil
    }

    /// `-m`: each output channel's source channel (-1: silence), or `nil` when not given.
    func sourceChannels() throws -> [Int]? {
        guard let channelMap else { return nil }
        let sources = channelMap.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.filter { $0 != " " })
        }
        guard !sources.isEmpty, sources.count <= 64, sources.allSatisfy({ ($0 ?? -2) >= -1 && ($0 ?? 64) < 64 }) else {
            throw ValidationError(
                "-m \(channelMap): give each output channel's source channel, counting from 0, or -1 for silence "
                    + "(swap stereo: -m 1,0)")
        }
        return sources.map { $0 ?? -1 }
    }

    var settings: ConversionSettings {
        var settings = preset?.settings ?? ConversionSettings()
        settings.apply(fileType: fileType, dataFormat: dataFormat)
        if let channels { settings.channels = channels }
        if let matrix = try? mixMatrix() {
            settings.mixMatrix = matrix
            settings.channels = matrix.count
        }
        if let sources = try? sourceChannels() {
            settings.channelMap = sources
            settings.channels = sources.count
        }
        if let tag = channelLayout.flatMap(ChannelLayout.namedTag) {
            settings.channelLayout = ChannelLayout(tag: tag.tag)
        }
        if let bitRate { settings.bitRate = bitRate }
        if let codecQuality { settings.quality = codecQuality }
        if let strategy { settings.strategy = BitRateStrategy(rawValue: strategy) }
        settings.resampler = ResamplerChoice.afconvert(
            quality: sourceQuality, complexity: sourceComplexity, engine: resampler.rawValue)
        settings.imaQuality = shared.quality.encoding
        // (The limit was checked in validate().)
        settings.apply(shared.adjustments(trimLimit: try? trimLimit(profile: profile, preset: preset)))
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
        defer { if input == "-" { StandardStreams.discard(source) } }
        var settings = settings
        // The container and data format, worked out once from the name given (standard output's: `-f`, or CAF).
        let destination = try ConversionPlan.Destination(output: output, settings: settings)
        let target = streamed ? StandardStreams.temporaryFile(named: "stdout") : output
        defer { if streamed { StandardStreams.discard(target) } }
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
