import AudioContainers
import AudioFormats

/// How much a broken rule matters: an error fails the file; a warning does not.
public enum Severity: String, Sendable, Hashable, Comparable {
    case warning, error
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
}

/// One broken rule.
public struct Violation: Hashable, Sendable {
    public var rule: String
    public var severity: Severity
    public var message: String

    public init(rule: String, severity: Severity, message: String) {
        self.rule = rule
        self.severity = severity
        self.message = message
    }
}

/// A rule's severity and parameters in a profile (`maximumSeconds`, `allowed`, ...).
public struct RuleSettings: Sendable {
    public var severity: Severity
    public var parameters: [String: JSONValue]

    public init(severity: Severity, parameters: [String: JSONValue] = [:]) {
        self.severity = severity
        self.parameters = parameters
    }

    public func number(_ name: String) -> Double? { parameters[name]?.doubleValue }
    public func strings(_ name: String) -> [String]? { parameters[name]?.arrayValue?.compactMap(\.stringValue) }
    public func numbers(_ name: String) -> [Double]? { parameters[name]?.arrayValue?.compactMap(\.doubleValue) }
}

/// A finding of a rule: a message, and the severity when it differs from the rule's (a rule may warn
/// about one case and fail another, as `container` does for RF64).
public struct Finding: Sendable {
    public var message: String
    public var severity: Severity?

    public init(_ message: String, severity: Severity? = nil) {
        self.message = message
        self.severity = severity
    }
}

/// A rule: an id (as reports print it) and a check over what is known about a file. Projects can
/// make their own and add them to an ``AssetValidator``.
public struct ValidationRule: Sendable {
    public let id: String
    /// Whether the check needs the decoded audio (``AssetFacts/audio``).
    public let needsDecodedAudio: Bool
    /// Whether the check needs a loudness measurement (``AssetFacts/loudness``).
    public let needsLoudness: Bool
    /// The settings a profile may give the rule besides `severity` and `enabled` (`nil`: any).
    public let parameters: Set<String>?
    public let check: @Sendable (AssetFacts, RuleSettings) -> [Finding]

    public init(id: String, needsDecodedAudio: Bool = false, needsLoudness: Bool = false, parameters: Set<String>? = nil,
        check: @escaping @Sendable (AssetFacts, RuleSettings) -> [Finding])
    {
        self.id = id
        self.needsDecodedAudio = needsDecodedAudio
        self.needsLoudness = needsLoudness
        self.parameters = parameters
        self.check = check
    }
}

/// What the rules look at: the parse, the file's name, and (when a rule needs it) the decoded audio.
public struct AssetFacts: Sendable {
    public var path: String
    /// The parsed file, or `nil` when it could not be parsed (see `error`).
    public var summary: AudioFileSummary?
    public var properties: StreamProperties?
    public var error: AudioFileError?
    /// Levels of the decoded audio, where a decoder exists for the format.
    public var audio: AudioStatistics?
    /// Loudness per BS.1770-4, where the validator was given a meter (``AssetValidator/loudnessMeter``).
    public var loudness: LoudnessFacts?

    /// The file name's extension, lower-cased, without the dot.
    public var fileExtension: String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}

/// Loudness of a sound per ITU-R BS.1770-4 / EBU R128: what a meter outside this module (libebur128,
/// through AudioConversion) measured, so the validator itself stays free of C.
public struct LoudnessFacts: Sendable, Hashable {
    /// Integrated loudness, LUFS; `-infinity` for silence or a sound too short to gate.
    public var integrated: Double
    public var range: Double
    /// dBTP and dBFS.
    public var truePeak: Double
    public var samplePeak: Double

    public init(integrated: Double, range: Double, truePeak: Double, samplePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.samplePeak = samplePeak
    }
}

/// Levels measured over the valid frames of the decoded audio.
public struct AudioStatistics: Sendable, Hashable {
    /// The largest absolute sample, 0...1.
    public var peak: Float
    /// Runs of three or more consecutive samples at full scale.
    public var clippedRuns: Int
    /// Seconds before the first sample above the silence threshold, and after the last.
    public var leadingSilence: Double
    public var trailingSilence: Double
    /// Whether the whole file is below the silence threshold.
    public var isSilent: Bool
    /// The largest DC offset of any channel: the mean sample, -1...1.
    public var dcOffset: Double = 0
    /// For stereo: the left channel's level over the right's (RMS), dB; `nil` where a channel is silent.
    public var channelBalance: Double?
    /// For stereo: the correlation of the two channels, -1 (one inverts the other) to 1 (the same).
    public var correlation: Double?
}
