import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioEngines
import AudioConversion
import AudioFormats

/// What an output is made of, as afconvert spells it (`-f`, `-d`, `-c`, `-b`, `-q`, `-s`, `--mix`, `-m`, `-l`,
/// `--preset`), how it is resampled (`--resampler`, `-r`, `--src-complexity`) and the chapters written into it
/// (`--chapters`): the options every command that writes one sound file takes (`convert`, `join`, `mix`).
struct OutputFormatOptions: ParsableArguments {
    /// The resamplers afkit drives.
    enum ResamplerName: String, ExpressibleByArgument, CaseIterable {
        case soxr, libsamplerate
    }

    @Option(
        name: .customShort("f"),
        help: ArgumentHelp(
            "Output file type (default: from OUTPUT's extension).", valueName: "type"))
    var fileTypeArgument: FileTypeArgument?
    /// The container `-f` names.
    var fileType: FileType? { fileTypeArgument?.fileType }

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp(
            "Output data format, with an optional @RATE; 0 for the source's own (AAC and ALAC packets copied), "
                + "0@RATE for it at another rate.",
            valueName: "format[@rate]"),
        transform: DataFormatSpecifier.fromArgument)
    var dataFormat: DataFormatSpecifier?

    @OptionGroup var codec: CodecOptions
    /// `-c`: the output's channels.
    var channels: Int? { codec.channels }

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

    @OptionGroup var chapterFile: ChapterFileOptions

    func validate() throws {
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
    }

    /// The settings these options ask for: the preset's, changed by the rest (the chapters are read by
    /// ``chapterList(in:)``, when the command runs).
    var settings: ConversionSettings {
        var settings = preset?.settings ?? ConversionSettings()
        settings.apply(fileType: fileType, code: fileTypeArgument?.code, dataFormat: dataFormat)
        settings.apply(codec.request)
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
        settings.resampler = ResamplerChoice.afconvert(
            quality: sourceQuality, complexity: sourceComplexity, engine: resampler.rawValue)
        return settings
    }

    /// `--chapters`: ``ChapterFileOptions/chapterList(in:)``.
    func chapterList(in command: ParsableCommand.Type) throws -> ChapterList? {
        try chapterFile.chapterList(in: command)
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
}

/// `-c`, `-b`, `-q` and `-s`: what the output's codec is asked besides its format, as afconvert spells it (every
/// command that writes sound files: `convert`, `join`, `mix`, `batch`).
struct CodecOptions: ParsableArguments {
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

    func validate() throws {
        if let channels, !(1...64).contains(channels) { throw ValidationError("-c takes 1 to 64 channels") }
        if let codecQuality, !(0...127).contains(codecQuality) { throw ValidationError("-q takes 0 to 127") }
        if let strategy, BitRateStrategy(rawValue: strategy) == nil { throw ValidationError("-s takes 0, 1, 2 or 3") }
    }

    /// The request these options make.
    var request: CodecRequest {
        CodecRequest(
            channels: channels, bitRate: bitRate, quality: codecQuality,
            strategy: strategy.flatMap(BitRateStrategy.init(rawValue:)))
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
}
