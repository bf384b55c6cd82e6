import ArgumentParser
import AssetValidation
import AudioDecoding
import AudioFormats
import FileAccess

/// `afkit waveform`: waveform data for peaks.js and waveform-data.js, in BBC audiowaveform's formats.
struct Waveform: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write waveform data (min/max per pixel) in BBC audiowaveform's JSON or .dat format, version 2.",
        discussion: """
            The format follows OUTPUT's extension (.json or .dat). Points cover --zoom frames (default 256, \
            audiowaveform's) or sampleRate / --pixels-per-second; values are 16-bit samples (8 bits: shifted \
            right by 8) of the channels' mean, or of each channel with --split-channels. Any file afkit reads.
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

    enum Kind { case json, dat }

    var kind: Kind? {
        let lower = output.lowercased()
        return lower.hasSuffix(".json") ? .json : lower.hasSuffix(".dat") ? .dat : nil
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
                "-o \(output): name it .json or .dat (audiowaveform's formats; pictures are not drawn by afkit yet)")
        }
    }

    func run() throws {
        try checkPathsExist([input], in: Self.self)
        do {
            let reader = try SourceReader(path: input)
            let samplesPerPixel = zoom ?? pixelsPerSecond.map { max(1, Int(reader.sampleRate) / $0) } ?? 256
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
            let data = builder.finish()
            let bytes = kind == .json ? Array(data.json.serialized().utf8) + [10] : data.datBytes
            try writeFile(output, bytes: bytes)
        } catch let error as AudioFileError {
            Output.standardError("waveform: \(input): \(error)\n")
            throw ExitCode(AFKit.Status.problemFound)
        }
    }
}
