import ReportGraphics
import AudioFormats

/// A set of rules with their severities and parameters, and per-path changes to them.
public struct Profile: Sendable {
    /// A rule as the profile uses it.
    public struct Entry: Sendable {
        /// The rule's id.
        public var rule: String
        /// Its severity and parameters.
        public var settings: RuleSettings
        /// Whether the rule runs.
        public var enabled: Bool

        /// An entry for `rule` at `severity` with `parameters`.
        public init(_ rule: String, _ severity: Severity, _ parameters: [String: JSONValue] = [:], enabled: Bool = true)
        {
            self.rule = rule
            settings = RuleSettings(severity: severity, parameters: parameters)
            self.enabled = enabled
        }
    }

    /// Changes for the files whose paths match any of `paths`.
    public struct Override: Sendable {
        /// The paths the override applies to.
        public var paths: [Glob]
        /// Another profile's rules replace this one's for these files.
        public var profile: Profile?
        /// Rule changes, applied in order after `profile`.
        public var changes: [(String, JSONValue)]
    }

    /// The profile's name in reports.
    public var name: String
    /// Its rules, in the order they report.
    public var entries: [Entry]
    /// Changes for some paths.
    public var overrides: [Override] = []
    /// The `afkit convert` preset that makes a file this profile's container, format, rate and channels
    /// ask for: the fix its findings name.
    public var fixingPreset: String?

    /// A profile named `name` with `entries` and `overrides`, whose format findings `fixingPreset` fixes.
    public init(name: String, fixingPreset: String? = nil, entries: [Entry], overrides: [Override] = []) {
        self.name = name
        self.entries = entries
        self.overrides = overrides
        self.fixingPreset = fixingPreset
    }

    /// The profiles afkit ships.
    public static let builtIn: [String: Profile] = {
        let profiles: [Profile] = [
            systemSound, simultaneousSoundEffects, music, gameSoundEffects, musicStreaming, dialogue, hlsAudio,
        ]
        return Dictionary(uniqueKeysWithValues: profiles.map { profile in (profile.name, profile) })
    }()

    /// The profile `afkit validate` checks against when none is named: Apple's system-sound rules.
    public static let standard = systemSound

    /// The longest sound the profile passes, in seconds: its `duration` rule's limit, where that rule is on.
    public var maximumSeconds: Double? {
        entries.first { $0.rule == "duration" && $0.enabled }?.settings.number("maximumSeconds")
    }

    /// The built-in profiles' names, in the README's order.
    public static let builtInNames = [
        systemSound, simultaneousSoundEffects, music, gameSoundEffects, musicStreaming, dialogue, hlsAudio,
    ].map(\.name)

    /// HTTP Live Streaming audio as Apple's HLS Authoring Specification and RFC 8216 ask, over a master or
    /// media playlist and every segment it names: the `hls-*` rules, each an error (Apple's recommendations,
    /// such as the 6 s target duration, are warnings within them).
    public static let hlsAudio = Profile(
        name: "hls-audio",
        entries: ValidationRule.playlistRules.map { (rule: ValidationRule) -> Entry in Entry(rule.id, .error) })

    /// Whether the profile's rules check playlists (the paths it is given are `.m3u8` files).
    public var checksPlaylists: Bool {
        let ids = Set(ValidationRule.playlistRules.map(\.id))
        return entries.contains { $0.enabled && ids.contains($0.rule) }
    }

    private static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// Apple's rules for System Sound Services: 30 s or less, linear PCM or IMA4, in CAF, AIFF or WAV.
    public static let systemSound = Profile(
        name: "system-sound", fixingPreset: "system-sound",
        entries: [
            Entry("malformed", .error),
            Entry(
                "container", .error,
                ["allowed": strings(["caf", "aiff", "aifc", "wav", "rf64"]), "warn": strings(["rf64"])]),
            Entry(
                "data-format", .error,
                ["allowed": strings(["lpcm", "ima4", "0x6D730011"]), "warn": strings(["0x6D730011"])]),
            Entry("duration", .error, ["maximumSeconds": .number(30)]),
            // Apple opens files by content and plays more than two channels: warnings, as the contract says.
            Entry("extension", .warning),
            Entry("truncated", .error),
            Entry("empty", .error),
            Entry("channels", .warning, ["maximum": .number(2)]),
            Entry("sample-rate", .warning, ["maximum": .number(48000)]),
            Entry("clipping", .warning),
            Entry("silence", .warning, ["maximumSeconds": .number(0.5)]),
        ])

    /// Many sounds at once (games): PCM or IMA4 in CAF, mono, 32 kHz or less recommended.
    public static let simultaneousSoundEffects = Profile(
        name: "simultaneous-sfx", fixingPreset: "sfx",
        entries: [
            Entry("malformed", .error),
            Entry("container", .error, ["allowed": strings(["caf"])]),
            Entry("data-format", .error, ["allowed": strings(["lpcm", "ima4"])]),
            Entry("hardware-codec", .warning),
            Entry("extension", .error),
            Entry("truncated", .error),
            Entry("empty", .error),
            Entry("channels", .warning, ["maximum": .number(1)]),
            Entry("sample-rate", .warning, ["maximum": .number(32000)]),
            Entry("clipping", .warning),
            Entry("silence", .warning, ["maximumSeconds": .number(0.25)]),
            Entry("true-peak", .warning, ["maximum": .number(-1)]),
            Entry("loop-seam", .warning),
        ])

    /// Music and long audio: compressed formats welcome, no duration limit.
    public static let music = Profile(
        name: "music", fixingPreset: "music",
        entries: [
            Entry("malformed", .error),
            Entry(
                "data-format", .error,
                ["allowed": strings(["lpcm", "ima4", "aac ", "aach", "aacp", ".mp3", ".mp2", "alac"])]),
            Entry("extension", .error),
            Entry("truncated", .error),
            Entry("empty", .error),
            Entry("sample-rate", .warning, ["maximum": .number(48000)]),
            Entry("clipping", .warning),
            Entry("loudness", .warning, ["target": .number(-16), "tolerance": .number(2)]),
            Entry("true-peak", .warning, ["maximum": .number(-1)]),
            Entry("loop-seam", .warning),
        ])

    /// Game effects that must sit together: the simultaneous-sfx rules, with loudness and true peak as
    /// errors (-18 ± 3 LUFS, at most -1 dBTP).
    public static let gameSoundEffects = Profile(
        name: "game-sfx", fixingPreset: "sfx",
        entries: simultaneousSoundEffects.entries.filter {
            !["loudness", "true-peak", "loop-seam"].contains($0.rule)
        } + [
            Entry("loudness", .error, ["target": .number(-18), "tolerance": .number(3)]),
            Entry("true-peak", .error, ["maximum": .number(-1)]),
            Entry("dc-offset", .warning), Entry("mono-compatibility", .warning), Entry("channel-balance", .warning),
            Entry("leading-silence", .error, ["maximumSeconds": .number(0.05)]), Entry("loop-seam", .error),
        ])

    /// Music for streaming and mobile playback: the music rules, with -16 LUFS ± 1 and at most -1 dBTP
    /// as errors.
    public static let musicStreaming = Profile(
        name: "music-streaming", fixingPreset: "music",
        entries: music.entries.filter {
            !["loudness", "true-peak", "loop-seam"].contains($0.rule)
        } + [
            Entry("loudness", .error, ["target": .number(-16), "tolerance": .number(1)]),
            Entry("true-peak", .error, ["maximum": .number(-1)]),
            Entry("dc-offset", .warning), Entry("mono-compatibility", .warning), Entry("channel-balance", .warning),
            Entry("leading-silence", .warning, ["maximumSeconds": .number(2)]), Entry("loop-seam", .error),
        ])

    /// Dialogue and voice lines (what the `voice` preset makes): speech judged at AES TD1008's -18 LUFS anchor
    /// (± 2), at most -1 dBTP, in any format afkit reads.
    public static let dialogue = Profile(
        name: "dialogue", fixingPreset: "voice",
        entries: [
            Entry("malformed", .error), Entry("extension", .error), Entry("truncated", .error), Entry("empty", .error),
            Entry("clipping", .warning),
            Entry("loudness", .warning, ["target": .number(-18), "tolerance": .number(2)]),
            Entry("true-peak", .warning, ["maximum": .number(-1)]),
            Entry("leading-silence", .warning, ["maximumSeconds": .number(0.5)]),
        ])

    /// The profile that applies to `path`: this one with the matching overrides applied.
    public func resolved(for path: String) -> Profile {
        var result = self
        for override in overrides where override.paths.contains(where: { $0.matches(path) }) {
            if let other = override.profile {
                result.entries = other.entries
                result.fixingPreset = other.fixingPreset
            }
            result.apply(override.changes)
        }
        result.overrides = []
        return result
    }

    /// Applies `rules` changes of a profile file: `{"duration": {"severity": "warning", "maximumSeconds": 5}}`,
    /// `{"silence": {"enabled": false}}`; a rule not in the profile is added (as an error unless said).
    mutating func apply(_ changes: [(String, JSONValue)]) {
        for (rule, change) in changes {
            var entry = entries.first { $0.rule == rule } ?? Entry(rule, .error)
            for (key, value) in change.objectValue ?? [] {
                switch key {
                case "severity":
                    entry.settings.severity =
                        value.stringValue.flatMap(Severity.init(rawValue:)) ?? entry.settings.severity
                case "enabled": entry.enabled = value.boolValue ?? entry.enabled
                default: entry.settings.parameters[key] = value
                }
            }
            if let index = entries.firstIndex(where: { $0.rule == rule }) {
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    /// Reads a profile file a project keeps beside its assets:
    ///
    /// ```json
    /// { "name": "game", "extends": "system-sound",
    ///   "rules": { "duration": { "maximumSeconds": 5 }, "silence": { "enabled": false } },
    ///   "overrides": [ { "paths": ["music/**"], "profile": "music" },
    ///                  { "paths": ["ui/*.caf"], "rules": { "channels": { "maximum": 1 } } } ] }
    /// ```
    /// `knownRules`: the rules a file may name, each with the settings it takes (`nil`: any).
    public init(json text: String, knownRules: [String: Set<String>?] = ValidationRule.builtIn.mapValues(\.parameters))
        throws
    {
        let root: JSONValue
        do {
            root = try JSONValue(validating: text)
        } catch let error as JSONSyntaxError {
            throw ProfileError.invalid("the profile is not valid JSON: \(error)")
        }
        guard root.objectValue != nil else { throw ProfileError.invalid("the profile is not a JSON object") }
        let base = root["extends"]?.stringValue ?? "system-sound"
        guard let parent = Profile.builtIn[base] else {
            throw ProfileError.invalid("'extends' names no profile: '\(base)'")
        }
        self = parent
        name = root["name"]?.stringValue ?? base
        let rules = root["rules"]?.objectValue ?? []
        try Profile.check(rules, knownRules)
        apply(rules)
        for item in root["overrides"]?.arrayValue ?? [] {
            let paths = (item["paths"]?.arrayValue ?? []).compactMap(\.stringValue).map(Glob.init)
            guard !paths.isEmpty else { throw ProfileError.invalid("an override needs 'paths'") }
            var other: Profile?
            if let named = item["profile"]?.stringValue {
                guard let profile = Profile.builtIn[named] else {
                    throw ProfileError.invalid("an override names no profile: '\(named)'")
                }
                other = profile
            }
            let changes = item["rules"]?.objectValue ?? []
            try Profile.check(changes, knownRules)
            overrides.append(Override(paths: paths, profile: other, changes: changes))
        }
    }

    private static func check(_ rules: [(String, JSONValue)], _ known: [String: Set<String>?]) throws {
        for (rule, change) in rules {
            guard let accepted = known[rule] else {
                throw ProfileError.invalid(
                    "no rule is called '\(rule)'; the rules are \(known.keys.sorted().joined(separator: ", "))")
            }
            guard let settings = change.objectValue else {
                throw ProfileError.invalid("rule '\(rule)' needs an object of settings")
            }
            if let accepted {
                let names = accepted.union(["severity", "enabled"])
                for (key, _) in settings where !names.contains(key) {
                    throw ProfileError.invalid(
                        "rule '\(rule)' has no setting '\(key)'; it takes \(names.sorted().joined(separator: ", "))")
                }
            }
            if let severity = change["severity"], severity.stringValue.flatMap(Severity.init(rawValue:)) == nil {
                throw ProfileError.invalid("rule '\(rule)': severity is 'error' or 'warning'")
            }
        }
    }
}

/// A profile file that cannot be used.
public enum ProfileError: Error, CustomStringConvertible, Sendable {
    case invalid(String)
    /// The message.
    public var description: String {
        switch self {
        case .invalid(let message): "profile: \(message)"
        }
    }
}
