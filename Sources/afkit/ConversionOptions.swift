import ArgumentParser
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats

extension DataFormatSpecifier: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension Preset: ExpressibleByArgument {}

extension FileType: ExpressibleByArgument {
    public init?(argument: String) { self.init(afconvertCode: argument) }
    /// The `-f` codes afkit writes.
    public static var allValueStrings: [String] { ["caff", "AIFF", "AIFC", "WAVE", "RF64", "m4af", "adts"] }
}

/// How IMA4 and WAV IMA ADPCM are encoded.
enum IMAQuality: String, ExpressibleByArgument, CaseIterable {
    /// The beam search: the best SNR, slower.
    case best
    /// The nearest code per sample: fast, 1-2 dB of SNR less.
    case fast

    var encoding: IMAEncodingQuality { self == .fast ? .fast : .best }
}

/// The options `convert` and `batch` share.
struct SharedConversionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("IMA encoding: best is a beam search, fast the nearest code.", valueName: "quality"))
    var quality: IMAQuality = .best

    @Flag(help: "Cut a source longer than the preset allows instead of refusing it.")
    var trim = false
}
