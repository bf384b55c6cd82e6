import ArgumentParser
import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import FileAccess
import Foundation

/// `afkit validate`: checks sound files against a rule profile, for build pipelines.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check sound files against a rule profile (default: Apple's system-sound rules).",
        discussion: """
            Directories are searched recursively for .caf .aif .aiff .aifc .wav .mp3 .aac .adts files (symbolic \
            links followed, macOS's ._ files and .DS_Store skipped). Profiles: \(Profile.builtInNames.joined(separator: ", ")), \
            or a JSON profile file. Exit status 0 when every file passes, 1 when any has an error, 2 when \
            the paths hold no sound file (unless --allow-empty).
            """
    )

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit, github
    }

    @Option(help: "A profile name (\(Profile.builtInNames.joined(separator: ", "))) or a JSON profile file.")
    var profile = "system-sound"

    @Option(help: "The report: text, json, junit or github.")
    var format: ReportFormat = .text

    @Flag(help: "Succeed when the paths hold no sound file.")
    var allowEmpty = false

    @Argument(help: "Sound files and directories.")
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("give at least one PATH") }
        _ = try loadProfile()
    }

    func loadProfile() throws -> Profile {
        if let builtIn = Profile.builtIn[profile] { return builtIn }
        guard profile.hasSuffix(".json") || pathExists(profile) else {
            throw ValidationError(
                "no profile '\(profile)': use \(Profile.builtInNames.joined(separator: ", ")) or a JSON file")
        }
        guard let text = try? String(contentsOfFile: profile, encoding: .utf8) else {
            throw ValidationError("cannot read the profile file '\(profile)'")
        }
        do {
            return try Profile(json: text)
        } catch {
            throw ValidationError("\(profile): \(error)")
        }
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist(paths, in: Self.self)
        var validator = AssetValidator(profile: try loadProfile())
        // Loudness by libebur128, measured only for profiles whose rules ask for it.
        validator.loudnessMeter = { channels, rate in
            (try? LoudnessMeter(channels: channels, sampleRate: rate)).map(ValidatorMeter.init)
        }
        validator.decoderProvider = { format, cookie in
            try? AudioCodecRegistry.standard.decoder(for: format, magicCookie: cookie)
        }
        let report: ValidationReport
        do {
            report = try validator.validate(paths: paths)
        } catch let error as AudioFileError {
            Output.standardError("validate: \(error)\n")
            throw ExitCode(AFKit.Status.problemFound)
        }
        if report.files.isEmpty && !allowEmpty {
            Output.standardError(
                "validate: no sound file in \(paths.joined(separator: ", ")) (give --allow-empty to accept that)\n")
            throw ExitCode(AFKit.Status.usage)
        }
        switch format {
        case .text: Output.standardOutput(report.text)
        case .json: Output.standardOutput(report.json.serialized(pretty: true) + "\n")
        case .junit: Output.standardOutput(report.junit)
        case .github: Output.standardOutput(report.github)
        }
        if !report.ok { throw ExitCode(AFKit.Status.problemFound) }
    }
}

/// libebur128's meter as the validator's decode pass feeds it.
final class ValidatorMeter: StreamingLoudnessMeter {
    let meter: LoudnessMeter
    private var failed = false

    init(_ meter: LoudnessMeter) { self.meter = meter }

    func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        guard !failed else { return }
        do { try meter.add(samples, frames: frames) } catch { failed = true }
    }

    var facts: LoudnessFacts? {
        guard !failed else { return nil }
        let measured = meter.measurement
        return LoudnessFacts(
            integrated: measured.integrated, range: measured.range, truePeak: measured.truePeak,
            samplePeak: measured.samplePeak, shortSoundLoudness: measured.shortSoundLoudness)
    }
}
