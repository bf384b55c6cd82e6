import ArgumentParser
import AssetValidation
import AudioDecoding
import AudioFormats
import FileAccess

/// `afkit waveform`: waveform data for peaks.js and waveform-data.js, in BBC audiowaveform's formats.
struct Waveform: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Write waveform data (min/max per pixel) in BBC audiowaveform's JSON or .dat format, version 2, or draw it as PNG or SVG.",
        discussion: """
            The format follows OUTPUT's extension (.json, .dat, .png or .svg). Points cover --zoom frames (default 256, \
            audiowaveform's) or sampleRate / --pixels-per-second; values are 16-bit samples (8 bits: shifted \
            right by 8) of the channels' mean, or of each channel with --split-channels. A picture fits the \
            whole sound in --width pixels unless --zoom or --pixels-per-second is given. Any file afkit reads.
            """
    )

    @Argument(help: "The sound file.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("OUT.json or OUT.dat.", valueName: "output"))
    var output: String

    @Option(name: .customLong("pixels-per-second"), help: ArgumentHelp("Points a second.", valueName: "N"))
    var pixelsPerSecond: Int?

    @Option(help: ArgumentHelp("Frames a point (default 256).", valueName: "SAMPLES"))
    var zoom: Int?

    @Option(help: ArgumentHelp("8 or 16 (default 16).", valueName: "bits"))
    var bits = 16

    @Flag(name: .customLong("split-channels"), help: "A waveform per channel instead of their mean.")
    var splitChannels = false

    @Option(help: ArgumentHelp("A picture's width in pixels (default 800).", valueName: "pixels"))
    var width = 800

    @Option(help: ArgumentHelp("A picture's height in pixels (default 250).", valueName: "pixels"))
    var height = 250

    @Option(name: .customLong("background-color"), help: ArgumentHelp("RRGGBB (default FFFFFF).", valueName: "colour"))
    var backgroundColor = "FFFFFF"

    @Option(name: .customLong("waveform-color"), help: ArgumentHelp("RRGGBB (default 3A6EA5).", valueName: "colour"))
    var waveformColor = "3A6EA5"

    @Option(name: .customLong("axis-label-color"), help: ArgumentHelp("RRGGBB (default 000000).", valueName: "colour"))
    var axisLabelColor = "000000"

    @Flag(name: .customLong("no-axis-labels"), help: "No time labels on a picture.")
    var noAxisLabels = false

    @Option(
        name: .customLong("amplitude-scale"),
        help: ArgumentHelp("A picture's vertical zoom (default 1).", valueName: "factor"))
    var amplitudeScale = 1.0

    enum Kind { case json, dat, svg, png }

    var kind: Kind? {
        let lower = output.lowercased()
        for (suffix, kind) in [(".json", Kind.json), (".dat", .dat), (".svg", .svg), (".png", .png)]
        where lower.hasSuffix(suffix) {
            return kind
        }
        return nil
    }

    func validate() throws {
        if pixelsPerSecond != nil && zoom != nil {
            throw ValidationError("give --zoom or --pixels-per-second, not both")
        }
        if let zoom, zoom < 1 { throw ValidationError("--zoom takes a number of frames above 0") }
        if let pixelsPerSecond, pixelsPerSecond < 1 { throw ValidationError("--pixels-per-second takes 1 or more") }
        if bits != 8 && bits != 16 { throw ValidationError("--bits takes 8 or 16") }
        guard kind != nil else {
            throw ValidationError(
                "-o \(output): name it .json or .dat (audiowaveform's formats), or .png or .svg (a picture)"
            )
        }
        guard (16...20000).contains(width), (16...20000).contains(height) else {
            throw ValidationError("--width and --height take 16 to 20000 pixels")
        }
        for (name, colour) in [
            ("--background-color", backgroundColor), ("--waveform-color", waveformColor),
            ("--axis-label-color", axisLabelColor),
        ] where colour.count != 6 || !colour.allSatisfy(\.isHexDigit) {
            throw ValidationError("\(name) \(colour): give six hex digits, RRGGBB")
        }
        guard amplitudeScale > 0, amplitudeScale.isFinite else {
            throw ValidationError("--amplitude-scale takes a number above 0")
        }
    }

    func run() throws {
        try checkPathsExist([input], in: Self.self)
        do {
            let reader = try SourceReader(path: input)
            // A picture fits the whole sound in its width unless a zoom is given.
            let fitting = (kind == .svg || kind == .png) && zoom == nil && pixelsPerSecond == nil
            let samplesPerPixel =
                zoom ?? pixelsPerSecond.map { max(1, Int(reader.sampleRate) / $0) }
                ?? (fitting ? reader.frameCount.map { max(1, Int(($0 + Int64(width) - 1) / Int64(width))) } : nil)
                ?? 256
            var builder = WaveformBuilder(
                sampleRate: reader.sampleRate, channels: reader.channels, samplesPerPixel: samplesPerPixel,
                bits: bits, splitChannels: splitChannels)
            var block: [Float] = []
            while true {
                block.removeAll(keepingCapacity: true)
                let frames = try reader.read(maximum: 16384, into: &block)
                if frames == 0 { break }
                block.withUnsafeBufferPointer { builder.add($0, frames: frames) }
            }
            var data = builder.finish()
            // A sound of unknown length, or more points than pixels: combined to fit.
            if fitting, data.length > width { data = data.combined(by: (data.length + width - 1) / width) }
            let bytes: [UInt8]
            switch kind {
            case .json?: bytes = Array(data.json.serialized().utf8) + [10]
            case .dat?: bytes = data.datBytes
            case .png?:
                bytes = data.png(
                    width: width, height: height, background: UInt32(backgroundColor, radix: 16) ?? 0xFFFFFF,
                    waveform: UInt32(waveformColor, radix: 16) ?? 0, axisLabel: UInt32(axisLabelColor, radix: 16) ?? 0,
                    axisLabels: !noAxisLabels, amplitudeScale: amplitudeScale)
            default:
                bytes = Array(
                    data.svg(
                        width: width, height: height, background: backgroundColor, waveform: waveformColor,
                        axisLabel: axisLabelColor, axisLabels: !noAxisLabels, amplitudeScale: amplitudeScale
                    ).utf8)
            }
            try writeFile(output, bytes: bytes)
        } catch let error as AudioFileError {
            Output.standardError("waveform: \(input): \(error)\n")
            throw ExitCode(AFKit.Status.problemFound)
        }
    }
}
