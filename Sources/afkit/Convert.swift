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
        abstract: "Convert an audio file to CAF, AIFF/AIFF-C or WAV, resampling and remixing as asked.",
        discussion: """
            Data formats: LEI16 BEI16 LEI24 BEI24 LEI32 LEF32 BEF32 LEF64 I8 UI8 ima4 ulaw alaw (and ima-adpcm for WAV), \
            with an optional @RATE, as in ima4@22050. Presets: \(Preset.allCases.map(\.rawValue).joined(separator: ", ")). \
            The output is written atomically: it appears complete or not at all.
            """
    )

    @Option(name: .customShort("f"), help: "Output file type: caff, AIFF, AIFC, WAVE (default: from OUTPUT's extension).")
    var fileType: String?

    @Option(name: .customShort("d"), help: "Output data format, with an optional @RATE.")
    var dataFormat: DataFormatSpecifier?

    @Option(name: .customShort("c"), help: "Output channels (downmix or upmix).")
    var channels: Int?

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
        try checkPathsExist([input])
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
        if fileType == nil && preset == nil && FileType(outputPath: output) == nil {
            throw ValidationError("cannot tell the output type from '\(output)'; give -f or name it .caf, .aif, .aifc or .wav")
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
        if resampler == "libsamplerate", let converter = ResamplerChoice.SampleRateConverter(rawValue: sourceQuality) {
            settings.resampler = .libsamplerate(converter)
        }
        settings.imaQuality = quality == "fast" ? .fast : .best
        settings.trimToMaximum = trim
        return settings
    }

    func run() throws {
        do {
            try AudioConverter.convert(input: input, output: output, settings: settings)
        } catch let error as AudioFileError {
            Output.standardError("convert: \(error)\n")
            throw ExitCode(AFKit.Status.problemFound)
        }
    }
}
