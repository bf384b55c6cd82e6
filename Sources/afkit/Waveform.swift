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
            """ + "\n\n" + reference
    )

    @Argument(help: "The sound file.")
    var input: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "OUT.json or OUT.dat (audiowaveform's peaks), OUT.png or OUT.svg (a picture).", valueName: "output"))
    var output: String

    // Numbers are taken whatever they start with, so `--width -1` is answered as out of range, not as a
    // missing value.
    @Option(
        name: .customLong("pixels-per-second"), parsing: .unconditional,
        help: ArgumentHelp("Points a second.", valueName: "N"))
    var pixelsPerSecond: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames a point (default 256).", valueName: "SAMPLES"))
    var zoom: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("8 or 16 (default 16).", valueName: "bits"))
    var bits = 16

    @Flag(name: .customLong("split-channels"), help: "A waveform per channel instead of their mean.")
    var splitChannels = false

    @Option(
        parsing: .unconditional, help: ArgumentHelp("A picture's width in pixels (default 800).", valueName: "pixels"))
    var width = 800

    @Option(
        parsing: .unconditional, help: ArgumentHelp("A picture's height in pixels (default 250).", valueName: "pixels"))
    var height = 250

    @Option(
        name: .customLong("background-color"), parsing: .unconditional,
        help: ArgumentHelp("RRGGBB (default FFFFFF).", valueName: "colour"))
    var backgroundColor = "FFFFFF"

    @Option(
        name: .customLong("waveform-color"), parsing: .unconditional,
        help: ArgumentHelp("RRGGBB (default 3A6EA5).", valueName: "colour"))
    var waveformColor = "3A6EA5"

    @Option(
        name: .customLong("axis-label-color"), parsing: .unconditional,
        help: ArgumentHelp("RRGGBB (default 000000).", valueName: "colour"))
    var axisLabelColor = "000000"

    @Flag(name: .customLong("no-axis-labels"), help: "No time labels on a picture.")
    var noAxisLabels = false

    @Option(
        name: .customLong("amplitude-scale"), parsing: .unconditional,
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
        // The .dat header holds 32-bit fields: a point covers 1 to 2^31 - 1 frames.
        let most = Int(Int32.max)
        if let zoom, !(1...most).contains(zoom) {
            throw ValidationError("--zoom \(zoom) is out of range: give 1 to \(most) frames")
        }
        if let pixelsPerSecond, !(1...most).contains(pixelsPerSecond) {
            throw ValidationError("--pixels-per-second \(pixelsPerSecond) is out of range: give 1 to \(most)")
        }
        if bits != 8 && bits != 16 { throw ValidationError("--bits \(bits) is out of range: give 8 or 16") }
        guard kind != nil else {
            throw usageError(
                "-o: name it .json or .dat (audiowaveform's formats), or .png or .svg (a picture)", about: output,
                in: Self.self)
        }
        for (name, value) in [("--width", width), ("--height", height)] where !(16...20000).contains(value) {
            throw ValidationError("\(name) \(value) is out of range: give 16 to 20000 pixels")
        }
        for (name, colour) in [
            ("--background-color", backgroundColor), ("--waveform-color", waveformColor),
            ("--axis-label-color", axisLabelColor),
        ] where colour.count != 6 || !colour.allSatisfy(\.isHexDigit) {
            throw ValidationError("\(name) \(colour): give six hex digits, RRGGBB")
        }
        guard amplitudeScale > 0, amplitudeScale.isFinite else {
            throw ValidationError(
                "--amplitude-scale \(shortDecimal(amplitudeScale)) is out of range: give a number above 0")
        }
    }

    func run() throws {
        try checkPathsExist([input], in: Self.self, allowStandardInput: true)
        var outputs = OutputGuard(inputs: [input])
        do { try outputs.claim(output, as: "the waveform") } catch {
            throw usageError(error.description, in: Self.self)
        }
        // `-`: standard input, kept in a temporary file.
        let source = input == "-" ? try StandardStreams.spoolStandardInput() : input
        defer { if input == "-" { TemporaryFiles.discard(source) } }
        do {
            let reader = try SourceReader(path: source)
            // A source cut short or damaged is drawn as far as it goes, and said, as convert says it.
            for note in reader.conditionNotes(whatIsHeld: "drawn") {
                Output.standardError(fileMessage("waveform", input, .note, note))
            }
            let picture = kind == .svg || kind == .png
            // A picture fits the whole sound in its width unless a zoom is given; zoomed, it shows its width's
            // points from the start, as audiowaveform draws them.
            let fitting = picture && zoom == nil && pixelsPerSecond == nil
            let samplesPerPixel =
                zoom ?? pixelsPerSecond.map { max(1, Int(reader.sampleRate) / $0) }
                ?? (fitting ? reader.frameCount.map { max(1, Int(($0 + Int64(width) - 1) / Int64(width))) } : nil)
                ?? 256
            // Memory holds what is drawn: a fitted picture at most twice its width in points (a sound longer
            // than its file said is paired down as it goes), a zoomed one its width; data is streamed out.
            var builder = WaveformBuilder(
                sampleRate: reader.sampleRate, channels: reader.channels, samplesPerPixel: samplesPerPixel,
                bits: bits, splitChannels: splitChannels, maximumPoints: fitting ? 2 * width : nil)
            if picture {
                try readPoints(reader, into: &builder, stoppingAt: fitting ? nil : width, drained: nil)
                var data = fitting ? builder.finish().fitted(to: width) : builder.finish()
                let columns = fitting ? nil : width
                if data.length > width { data.data.removeLast((data.length - width) * 2 * data.channels) }
                let bytes =
                    kind == .png
                    ? data.png(
                        width: width, height: height, background: UInt32(backgroundColor, radix: 16) ?? 0xFFFFFF,
                        waveform: UInt32(waveformColor, radix: 16) ?? 0,
                        axisLabel: UInt32(axisLabelColor, radix: 16) ?? 0, axisLabels: !noAxisLabels,
                        amplitudeScale: amplitudeScale, columns: columns)
                    : Array(
                        data.svg(
                            width: width, height: height, background: backgroundColor, waveform: waveformColor,
                            axisLabel: axisLabelColor, axisLabels: !noAxisLabels, amplitudeScale: amplitudeScale,
                            columns: columns
                        ).utf8)
                try writeFile(output, bytes: bytes)
            } else {
                try writeData(reader, builder: &builder)
            }
        } catch let error as AudioFileError {
            // Every message names the file it is about, once.
            Output.standardError(fileMessage("waveform", input, .error, "\(error)"))
            throw ExitCode(AFKit.Status.problemFound)
        }
    }

    /// Decodes the sound into `builder` (up to `stoppingAt` points), handing `drained` the values made after
    /// each block when it streams them.
    private func readPoints(
        _ reader: SourceReader, into builder: inout WaveformBuilder, stoppingAt points: Int?,
        drained: (([Int16]) throws -> Void)?
    ) throws {
        var block: [Float] = []
        while points.map({ builder.pointCount < $0 }) ?? true {
            block.removeAll(keepingCapacity: true)
            let frames = try reader.read(maximum: 16384, into: &block)
            if frames == 0 { break }
            block.withUnsafeBufferPointer { builder.add($0, frames: frames) }
            if let drained { try drained(builder.drain()) }
        }
        // Packets the decoder replaced with silence are drawn as silence, and said.
        if let note = reader.concealmentNote { Output.standardError(fileMessage("waveform", input, .note, note)) }
    }

    /// `.json` or `.dat`, streamed into the output as the points are made (a 3-hour sound at `--zoom 1` holds
    /// one block's points in memory, not the file's), the length written at the end (`.dat`: into its header).
    private func writeData(_ reader: SourceReader, builder: inout WaveformBuilder) throws {
        try writeAtomically(output) { temporary in
            let file = try WritableFile(path: temporary)
            let shape = builder.shape
            var offset: Int64 = 0
            var pending: [UInt8] = []
            func flush(_ force: Bool) throws {
                guard force || pending.count >= 1 << 20 else { return }
                try pending.withUnsafeBytes { try file.write($0, at: offset) }
                offset += Int64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
            pending += kind == .json ? Array(shape.jsonOpening.utf8) : shape.datHeader(length: 0)
            var first = true
            func append(_ values: [Int16]) throws {
                guard !values.isEmpty else { return }
                if kind == .json {
                    WaveformData.appendJSONValues(values[...], first: first, to: &pending)
                } else {
                    WaveformData.appendDatValues(values[...], bits: shape.bits, to: &pending)
                }
                first = false
                try flush(false)
            }
            try readPoints(reader, into: &builder, stoppingAt: nil, drained: append)
            let data = builder.finish()
            try append(data.data)
            let length = builder.pointCount
            if kind == .json { pending += Array(WaveformData.jsonClosing(length: length).utf8) }
            try flush(true)
            if kind == .dat {
                let patch = withUnsafeBytes(of: UInt32(truncatingIfNeeded: length).littleEndian) { Array($0) }
                try patch.withUnsafeBytes { try file.write($0, at: Int64(WaveformData.datLengthOffset)) }
            }
            try file.close()
        }
    }
}
