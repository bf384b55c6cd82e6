import ArgumentParser
import AudioConversion
import AudioFormats

/// `afkit mix`: sounds summed into one file, each with its level and start time, as `sox -m` mixes them.
struct Mix: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Mix sounds into one file, each at its level (dB) and start time, at the first one's rate and the widest one's channels.",
        discussion: reference)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Each input's level in dB, in the order of the inputs (0,-12: the second 12 dB down); default 0 each.",
            valueName: "DB,DB,..."))
    var levels: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Where each input starts: seconds (2.5), [[HH:]MM:]SS[.mmm] or frames of the output (44100f); default "
                + "0 each.", valueName: "TIME,TIME,..."))
    var at: String?

    @OptionGroup var options: CompositionOptions

    /// The inputs.
    var inputs: [String] { options.inputs }

    func validate() throws { _ = try parts() }

    /// The inputs with their levels and start times, checked.
    func parts() throws -> [Composition.Part] {
        func values(_ text: String?, _ option: String) throws -> [Substring]? {
            guard let text else { return nil }
            let values = text.split(separator: ",", omittingEmptySubsequences: false)
            guard values.count == inputs.count else {
                throw ValidationError(
                    "\(option) \(text): \(values.count) value\(values.count == 1 ? "" : "s") for \(inputs.count) "
                        + "inputs: give one for each, in the inputs' order")
            }
            return values
        }
        let gains = try values(levels, "--levels")?.map { text in
            guard let gain = Double(text.filter { $0 != " " }), gain.isFinite, (-120...60).contains(gain) else {
                throw ValidationError("--levels takes dB from -120 to 60 for each input, not '\(text)'")
            }
            return gain
        }
        let starts = try values(at, "--at")?.map { text in
            guard let time = EditTime(String(text.filter { $0 != " " })) else {
                throw ValidationError(
                    "--at takes seconds (2.5), [[HH:]MM:]SS[.mmm] or frames (44100f) for each input, not '\(text)'")
            }
            return time
        }
        return inputs.indices.map {
            Composition.Part(path: inputs[$0], gain: gains?[$0] ?? 0, start: starts?[$0] ?? .seconds(0))
        }
    }

    func run() throws {
        try options.write(.mix, parts: try parts(), in: Self.self)
    }
}
