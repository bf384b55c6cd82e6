#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ReportGraphics
import AudioContainers
import AudioFormats
import FileAccess

/// How much a broken rule matters: an error fails the file; a warning does not.
public enum Severity: String, Sendable, Hashable, Comparable {
    case warning, error
    /// A warning orders before an error.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
}

/// One broken rule.
public struct Violation: Hashable, Sendable {
    /// The rule's id.
    public var rule: String
    /// Error (fails the file) or warning.
    public var severity: Severity
    /// What was found, for a person.
    public var message: String
    /// How to fix it, where afkit can (an `afkit convert` command), or `nil`.
    public var fix: String?
    /// What to know before running the fix (a lossy file is better remade from its source), or `nil`.
    public var fixNote: String?

    /// A finding of `rule` at `severity`, with its fix where there is one.
    public init(rule: String, severity: Severity, message: String, fix: String? = nil, fixNote: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.message = message
        self.fix = fix
        self.fixNote = fixNote
    }

    /// The message and its fix, as one line of text.
    public var described: String {
        message + (fix.map { "; fix: \($0)" + (fixNote.map { " (\($0))" } ?? "") } ?? "")
    }
}

/// A rule's severity and parameters in a profile (`maximumSeconds`, `allowed`, ...).
public struct RuleSettings: Sendable {
    /// What a finding of the rule counts as.
    public var severity: Severity
    /// The rule's own settings (thresholds, allowed values).
    public var parameters: [String: JSONValue]

    /// Settings at `severity` with `parameters`.
    public init(severity: Severity, parameters: [String: JSONValue] = [:]) {
        self.severity = severity
        self.parameters = parameters
    }

    /// A number setting.
    public func number(_ name: String) -> Double? { parameters[name]?.doubleValue }
    /// A list of strings setting.
    public func strings(_ name: String) -> [String]? { parameters[name]?.arrayValue?.compactMap(\.stringValue) }
    /// A list of numbers setting.
    public func numbers(_ name: String) -> [Double]? { parameters[name]?.arrayValue?.compactMap(\.doubleValue) }
}

/// A finding of a rule: a message, and the severity when it differs from the rule's (a rule may warn
/// about one case and fail another, as `container` does for RF64).
public struct Finding: Sendable {
    /// What was found.
    public var message: String
    /// A severity lower than the rule's (a warning where the rule errs), or `nil`.
    public var severity: Severity?
    /// How to fix it, where afkit can, or `nil`.
    public var fix: String?
    /// What `afkit convert` would do to fix it: the validator joins a file's recipes into one command, which
    /// becomes the fix of each finding that has one.
    var recipe: FixRecipe?

    /// A finding saying `message`, fixed by `fix`.
    public init(_ message: String, severity: Severity? = nil, fix: String? = nil) {
        self.message = message
        self.severity = severity
        self.fix = fix
    }

    /// A finding saying `message`, fixed by converting the file as `recipe` asks.
    init(_ message: String, severity: Severity? = nil, recipe: FixRecipe?) {
        self.message = message
        self.severity = severity
        self.recipe = recipe
    }
}

/// A rule: an id (as reports print it) and a check over what is known about a file. Projects can
/// make their own and add them to an ``AssetValidator``.
public struct ValidationRule: Sendable {
    /// The name profiles and reports use (`duration`, `loop-seam`).
    public let id: String
    /// Whether the check needs the decoded audio (``AssetFacts/audio``).
    public let needsDecodedAudio: Bool
    /// Whether the check needs a loudness measurement (``AssetFacts/loudness``).
    public let needsLoudness: Bool
    /// The settings a profile may give the rule besides `severity` and `enabled` (`nil`: any).
    public let parameters: Set<String>?
    /// Checks one file's facts under the settings; no finding is a pass.
    public let check: @Sendable (AssetFacts, RuleSettings) -> [Finding]

    /// A rule `id` that `check`s what it needs (decoded audio, loudness) and takes `parameters`.
    public init(
        id: String, needsDecodedAudio: Bool = false, needsLoudness: Bool = false, parameters: Set<String>? = nil,
        check: @escaping @Sendable (AssetFacts, RuleSettings) -> [Finding]
    ) {
        self.id = id
        self.needsDecodedAudio = needsDecodedAudio
        self.needsLoudness = needsLoudness
        self.parameters = parameters
        self.check = check
    }
}

/// What the rules look at: the parse, the file's name, and (when a rule needs it) the decoded audio.
public struct AssetFacts: Sendable {
    /// The file checked.
    public var path: String
    /// The parsed file, or `nil` when it could not be parsed (see `error`).
    public var summary: AudioFileSummary?
    /// What the parser found, where it could read the file.
    public var properties: StreamProperties?
    /// Why the file could not be read.
    public var error: AudioFileError?
    /// Levels of the decoded audio, where a decoder exists for the format.
    public var audio: AudioStatistics?
    /// Why the audio could not be decoded, where a rule asked for it and the decoder failed.
    public var decodeError: String?
    /// Loudness per BS.1770-4, where the validator was given a meter (``AssetValidator/loudnessMeter``).
    public var loudness: LoudnessFacts?
    /// The `afkit convert` preset whose output passes the profile's format rules (``Profile/fixingPreset``).
    public var fixingPreset: String?
    /// An HTTP Live Streaming playlist and what it names, where the path is one and the profile checks them
    /// (the `hls-*` rules).
    public var playlist: PlaylistFacts?
    /// The name of the profile the file is checked against.
    public var profileName: String?
    /// Where the file came from, where a conversion made it (a batch's output): a fix remakes it from there.
    public var origin: FixOrigin?

    /// The file name's extension, lower-cased, without the dot.
    public var fileExtension: String { nameExtension(of: path) }
}

/// A loudness meter the validator's decode pass feeds, frame block by frame block (libebur128's,
/// from AudioConversion, in the command): the validator itself stays free of C.
public protocol StreamingLoudnessMeter: AnyObject {
    /// Adds `frames` interleaved frames.
    func add(_ samples: UnsafeBufferPointer<Float>, frames: Int)
    /// What was added, measured; `nil` where the meter failed.
    var facts: LoudnessFacts? { get }
}

/// Loudness of a sound per ITU-R BS.1770-4 / EBU R128: what a meter outside this module (libebur128,
/// through AudioConversion) measured, so the validator itself stays free of C.
public struct LoudnessFacts: Sendable, Hashable {
    /// Integrated loudness, LUFS; `-infinity` for silence or a sound too short to gate.
    public var integrated: Double
    /// Loudness range, LU.
    public var range: Double
    /// dBTP and dBFS.
    public var truePeak: Double
    /// The highest sample, dBFS.
    public var samplePeak: Double
    /// For a sound shorter than one 400 ms gating block: its loudness as one block, ungated, LUFS (what
    /// `convert --loudness` normalizes such a sound on).
    public var shortSoundLoudness: Double?
    /// The short-term loudness (3 s window, LUFS; `-infinity` for silence) every tenth of a second, where
    /// the meter keeps it.
    public var shortTermCurve: [Float] = []
    /// The momentary loudness (400 ms window) every tenth of a second: what the report draws for a sound
    /// shorter than the short-term window, whose 3 s readings would sit under its level.
    public var momentaryCurve: [Float] = []
    /// The frame the true-peak maximum is at (the largest sample of the block it rose in), where known.
    public var truePeakFrame: Int64?

    /// The loudness a sound is judged and normalized on: integrated, or for a sound shorter than one gating
    /// block its loudness as one block (`-infinity` for silence), as AudioEngines' `LoudnessMeasurement` has it.
    public var normalizable: Double { integrated.isFinite ? integrated : shortSoundLoudness ?? integrated }

    /// Loudness facts as a meter measured them.
    public init(
        integrated: Double, range: Double, truePeak: Double, samplePeak: Double, shortSoundLoudness: Double? = nil
    ) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.shortSoundLoudness = shortSoundLoudness
    }
}

/// Levels measured over the valid frames of the decoded audio.
public struct AudioStatistics: Sendable, Hashable {
    /// The largest absolute sample, 0...1.
    public var peak: Float
    /// The valid frames measured (the decoded sound's length, priming and remainder left out).
    public var frameCount: Int64 = 0
    /// Damaged packets the decoder replaced with silence.
    public var concealedPackets = 0
    /// Where those packets lie, for a person.
    public var concealedPlaces = ""
    /// Runs of three or more consecutive samples at full scale.
    public var clippedRuns: Int
    /// The largest DC offset of any channel: the mean sample, -1...1.
    public var dcOffset: Double = 0
    /// The RMS level of all channels together, dBFS (-infinity for digital silence).
    public var rmsDecibels = -Double.infinity
    /// For stereo: the left channel's level over the right's (RMS), dB; `nil` where a channel is silent.
    public var channelBalance: Double?
    /// For stereo: the correlation of the two channels, -1 (one inverts the other) to 1 (the same).
    public var correlation: Double?
    /// Silence at the ends below each threshold the rules asked for (dBFS); the default threshold's
    /// always.
    public var silence: [Double: SilenceSpan] = [:]
    /// Seconds before the first sample above the default silence threshold, and after the last.
    public var leadingSilence: Double { silence[Self.defaultSilenceThreshold]?.leading ?? 0 }
    /// Seconds after the last sample above the default threshold.
    public var trailingSilence: Double { silence[Self.defaultSilenceThreshold]?.trailing ?? 0 }
    /// Whether the whole file is below the default silence threshold.
    public var isSilent: Bool { silence[Self.defaultSilenceThreshold]?.isSilent ?? false }
    /// Each loop's wrap: the file's loops, and the whole file where a rule treats it as one.
    public var loopSeams: [LoopSeam] = []
    /// Loudness, measured in the same pass where the validator has a meter.
    public var loudness: LoudnessFacts?
    /// What the HTML report draws, where the validator was asked for it (``AssetValidator/drawsPictures``).
    public var pictures: AssetPictures?

    /// The silence threshold the `silence` rule and the statistics above use, dBFS.
    public static let defaultSilenceThreshold = -60.0

    /// `{"frames", "peak" (dBFS), "leadingSilence", "trailingSilence" (seconds, below -60 dBFS), "rms" (dBFS),
    /// "loudness": {"integrated", "range", "truePeak", "samplePeak", "shortSound"}}`: levels to two
    /// decimals, seconds to six; `-inf` is `null`.
    public var json: JSONValue {
        func level(_ value: Double) -> JSONValue { value.isFinite ? .number((value * 100).rounded() / 100) : .null }
        func seconds(_ value: Double) -> JSONValue { .number((value * 1e6).rounded() / 1e6) }
        var members: [(String, JSONValue)] = [
            ("frames", .integer(frameCount)),
            ("peak", level(peak > 0 ? 20 * log10(Double(peak)) : -.infinity)),
            ("leadingSilence", seconds(leadingSilence)),
            ("trailingSilence", seconds(trailingSilence)),
            ("rms", level(rmsDecibels)),
        ]
        if let loudness {
            var facts: [(String, JSONValue)] = [
                ("integrated", level(loudness.integrated)), ("range", level(loudness.range)),
                ("truePeak", level(loudness.truePeak)), ("samplePeak", level(loudness.samplePeak)),
            ]
            if let short = loudness.shortSoundLoudness { facts.append(("shortSound", level(short))) }
            members.append(("loudness", .object(facts)))
        }
        return .object(members)
    }
}

/// Silence at the ends of a sound, seconds; both the whole duration where nothing is above the threshold.
public struct SilenceSpan: Sendable, Hashable {
    /// Seconds of silence before the sound.
    public var leading: Double
    /// Seconds of silence after it.
    public var trailing: Double
    /// Nothing in a sound of at least one frame is above the threshold.
    public var isSilent: Bool
}

/// How a loop's wrap (its last frame followed by its first) compares with how the signal moves around
/// it: the step between the two frames over the local sample-to-sample movement (RMS, floored at
/// -72 dBFS so that quiet noise is no reference), and the change of slope over the local change of
/// slope, in dB, the larger of any channel. A seamless loop is near 0 dB; a click is 12 dB and more, unless the
/// sound itself moves as sharply near the wrap (``soundMovesAsSharply``: a sawtooth's or square's own edge, a
/// triangle's vertex), where the wrap sounds as the sound does.
public struct LoopSeam: Sendable, Hashable {
    /// The loop's first frame and the frame after its last.
    public var start: Int64
    /// The frame after the loop's last.
    public var end: Int64
    /// The step in level at the wrap, dB.
    public var levelJump: Double
    /// The change of slope at the wrap, dB.
    public var slopeJump: Double
    /// Whether, in every channel, the sound itself takes a step and a change of slope at least as large as the
    /// wrap's within ``neighbourhood`` of it (either side, the wrap itself not counted).
    public var soundMovesAsSharply = false

    /// Frames each side of the wrap the jumps are measured over.
    public static let window = 64
    /// How far each side of the wrap the sound's own sharpest moves are looked for, seconds: a few periods of
    /// anything above 100 Hz, and within the time a click would be masked by a sharper edge beside it.
    public static let neighbourhood = 0.02

    /// The seam of `before` (frames up to the loop's end) followed by `after` (frames from its start),
    /// interleaved in `channels`: the jumps over the ``window`` frames nearest the wrap, the sound's own moves
    /// over all the frames given.
    public init(start: Int64, end: Int64, before: [Float], after: [Float], channels: Int) {
        self.start = start
        self.end = end
        levelJump = -Double.infinity
        slopeJump = -Double.infinity
        let given = min(before.count, after.count) / max(channels, 1)
        let count = min(given, Self.window)
        guard count >= 3 else { return }
        let floor = 0.001 / 4
        soundMovesAsSharply = true
        for channel in 0..<channels {
            let wholeTail = (before.count / channels - given..<before.count / channels).map {
                Double(before[$0 * channels + channel])
            }
            let wholeHead = (0..<given).map { Double(after[$0 * channels + channel]) }
            let tail = Array(wholeTail.suffix(count))
            let head = Array(wholeHead.prefix(count))
            func differences(_ values: [Double]) -> [Double] { zip(values.dropFirst(), values).map { $0 - $1 } }
            func rms(_ values: [Double]) -> Double {
                values.isEmpty ? 0 : (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
            }
            let moves = differences(tail) + differences(head)
            let bends = differences(differences(tail)) + differences(differences(head))
            let step = head[0] - tail[count - 1]
            let bend = max(abs((head[1] - head[0]) - step), abs(step - (tail[count - 1] - tail[count - 2])))
            levelJump = max(levelJump, decibels(abs(step) / max(rms(moves), floor)))
            slopeJump = max(slopeJump, decibels(bend / max(rms(bends), floor)))
            // The sound's own sharpest step and change of slope near the wrap, each side apart.
            let ownStep = (differences(wholeTail) + differences(wholeHead)).map(abs).max() ?? 0
            let ownBend =
                (differences(differences(wholeTail)) + differences(differences(wholeHead))).map(abs).max() ?? 0
            if abs(step) > ownStep * 1.05 || bend > ownBend * 1.05 { soundMovesAsSharply = false }
        }
    }
}

private func decibels(_ ratio: Double) -> Double { ratio > 0 ? 20 * log10(ratio) : -Double.infinity }

/// The source a conversion made a file from, and the `afkit convert` options that made it (a batch's): a fix
/// remakes the file from its source with those options and its own, never from the file itself (that would be a
/// second lossy generation).
public struct FixOrigin: Sendable, Hashable {
    /// The source file.
    public var source: String
    /// The options that made the file, one argument each (`["--preset", "sfx", "--gain", "-3"]`).
    public var options: [String]

    /// The origin of a file made from `source` with `options`.
    public init(source: String, options: [String]) {
        self.source = source
        self.options = options
    }
}
