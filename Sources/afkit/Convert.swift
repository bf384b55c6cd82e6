import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats

extension DataFormatSpecifier: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// `afkit convert`: afconvert's job, with its option spelling.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an audio file to CAF, AIFF/AIFF-C, WAV, M4A, ADTS or MP3, resampling and remixing as asked.",
        discussion: """
            Data formats: LEI16 BEI16 LEI24 BEI24 LEI32 LEF32 BEF32 LEF64 I8 UI8 ima4 ulaw alaw (and ima-adpcm for WAV), \
            aac (AAC-LC) and alac (Apple Lossless), with an optional @RATE, as in ima4@22050. \
            Presets: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")). \
            The output is written atomically: it appears complete or not at all.
            """
    )

    @Option(name: .customShort("f"),
        help: "Output file type: caff, AIFF, AIFC, WAVE, RF64, m4af, adts (default: from OUTPUT's extension).")
    var fileType: String?

    @Option(name: .customShort("d"), help: "Output data format, with an optional @RATE.")
    var dataFormat: DataFormatSpecifier?

    @Option(name: .customShort("c"), help: "Output channels (downmix or upmix).")
    var channels: Int?

    @Option(name: .customShort("b"), help: "Bit rate of AAC or MP3 output, in bits per second (as afconvert).")
    var bitRate: Int?

    @Option(name: .customShort("q"), help: "Codec quality, 0 to 127 (AAC: below 32 the fast search).")
    var codecQuality: Int?

    @Option(name: .customShort("s"), help: "AAC bit-rate strategy: 0 CBR, 1 ABR, 2 constrained VBR, 3 VBR.")
    var strategy: Int?

    @Option(help: "A preferred format: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")).")
    var preset: String?

    @Option(help: "The resampler: soxr (default) or libsamplerate.")
    var resampler = "soxr"

    @Option(name: .customLong("src-quality"),
        help: "libsamplerate's converter: 0 best sinc, 1 medium sinc, 2 fastest sinc, 3 zero-order hold, 4 linear.")
    var sourceQuality: Int32 = 0

    @Option(help: "IMA encoding: best (search) or fast.")
    var quality = "best"

    @Flag(help: "Cut a source longer than the preset allows instead of refusing it.")
    var trim = false

    @Argument(help: "The input file.")
    var input: String

    @Argument(help: "The output file.")
    var output: String

    func validate() throws {
        if let fileType, FileType(afconvertCode: fileType) == nil {
            throw ValidationError("-f '\(fileType)' is not caff, AIFF, AIFC, WAVE or RF64")
        }
        if let preset, Preset(rawValue: preset) == nil {
            throw ValidationError("no preset '\(preset)': use \(Preset.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let channels, !(1...64).contains(channels) { throw ValidationError("-c takes 1 to 64 channels") }
        guard ["soxr", "libsamplerate"].contains(resampler) else { throw ValidationError("--resampler is soxr or libsamplerate") }
        guard ResamplerChoice.SampleRateConverter(rawValue: sourceQuality) != nil else {
            throw ValidationError("--src-quality takes 0 to 4")
        }
        guard ["best", "fast"].contains(quality) else { throw ValidationError("--quality is best or fast") }
        if let codecQuality, !(0...127).contains(codecQuality) { throw ValidationError("-q takes 0 to 127") }
        if let strategy, BitRateStrategy(rawValue: strategy) == nil { throw ValidationError("-s takes 0, 1, 2 or 3") }
        if let bitRate, bitRate <= 0 { throw ValidationError("-b takes bits per second, such as 128000") }
        do {
            let settings = settings
            _ = try AudioConverter.dataFormat(for: try AudioConverter.outputFileType(for: output, settings: settings),
                settings: settings)
        } catch let error as ConversionUsageError {
            throw ValidationError(error.description)
        }
    }

    var settings: ConversionSettings {
        var settings = preset.flatMap(Preset.init(rawValue:))?.settings ?? ConversionSettings()
        if let fileType { settings.fileType = FileType(afconvertCode: fileType) }
        if let dataFormat {
            settings.dataFormat = dataFormat
            if dataFormat.sampleRate != nil { settings.sampleRate = dataFormat.sampleRate }
        }
        if let channels { settings.channels = channels }
        if let bitRate { settings.bitRate = bitRate }
        if let codecQuality { settings.quality = codecQuality }
        if let strategy { settings.strategy = BitRateStrategy(rawValue: strategy) }
        if resampler == "libsamplerate", let converter = ResamplerChoice.SampleRateConverter(rawValue: sourceQuality) {
            settings.resampler = .libsamplerate(converter)
        }
        settings.imaQuality = quality == "fast" ? .fast : .best
        settings.trimToMaximum = trim
        return settings
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist([input], in: Self.self)
        let folder = parentFolder(of: output)
        guard isDirectory(folder) else {
            throw usageError("no such folder: '\(folder)' (where the output would go); create it first", in: Self.self)
        }
        TemporaryFiles.removeStale(in: parentFolder(of: output))
        do {
            let result = try AudioConverter.convert(input: input, output: output, settings: settings)
            for note in result.notes { Output.standardError("convert: note: \(note)\n") }
        } catch let error as AudioFileError {
            Output.standardError("convert: \(error)\n")
            throw ExitCode(AFKit.Status.problemFound)
        }
    }
}
