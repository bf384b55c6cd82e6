/// What a conversion preset does to the sample rate: writes one rate, or keeps the source's up to a highest.
///
/// The one table of the presets' rates: the converter's presets (`Preset` in AudioConversion) take their rates
/// from it, and so do the validator's suggested fixes (AssetValidation, which does not import the converter),
/// so a fix knows when `--preset NAME` already brings a file's rate low enough.
public struct PresetSampleRate: Sendable, Hashable {
    /// The rate every output has (`sfx`: 22.05 kHz), or `nil` where the source's rate is kept.
    public var fixed: Double?
    /// The highest rate kept (`system-sound`: 48 kHz; a source above it is resampled to it), or `nil` for none.
    public var maximum: Double?

    /// A preset's rate: `fixed`, or the source's up to `maximum`.
    public init(fixed: Double? = nil, maximum: Double? = nil) {
        self.fixed = fixed
        self.maximum = maximum
    }

    /// The highest rate an output of the preset has: `.infinity` where the source's is kept whatever it is.
    public var highest: Double { fixed ?? maximum ?? .infinity }

    /// The presets' rates by preset name (`afkit convert --preset NAME`); a preset not listed keeps the source's
    /// rate (`pcm`). `voice`'s Opus codes at 48 kHz whatever it is given; its highest is for a `-d` (Vorbis) that
    /// would keep a higher source's rate, which its low bit rate has no mode for.
    public static let byPreset: [String: PresetSampleRate] = [
        "system-sound": PresetSampleRate(maximum: 48000),
        "sfx": PresetSampleRate(fixed: 22050),
        "music": PresetSampleRate(maximum: 48000),
        "lossless": PresetSampleRate(maximum: 48000),
        "voice": PresetSampleRate(maximum: 48000),
    ]

    /// The rate of the preset named `name`: the source's, unlimited, for a preset the table does not list.
    public static func of(preset name: String) -> PresetSampleRate { byPreset[name] ?? PresetSampleRate() }
}

/// What a conversion preset does to the channels: writes one count, or keeps the source's up to a most (mixing
/// more down). The one table of the presets' channels, read by the presets and by the validator's fixes (which
/// measure a sound as the fix's preset will make it).
public struct PresetChannels: Sendable, Hashable {
    /// The channels every output has (`sfx`, `voice`: mono), or `nil` where the source's are kept.
    public var fixed: Int?
    /// The most channels kept (`music`: stereo; more are mixed down), or `nil` for no limit.
    public var maximum: Int?

    /// A preset's channels: `fixed`, or the source's up to `maximum`.
    public init(fixed: Int? = nil, maximum: Int? = nil) {
        self.fixed = fixed
        self.maximum = maximum
    }

    /// The channels an output of the preset has from a source of `channels`.
    public func output(from channels: Int) -> Int { fixed ?? min(channels, maximum ?? channels) }

    /// The presets' channels by preset name; a preset not listed keeps the source's (`pcm`, `lossless`).
    public static let byPreset: [String: PresetChannels] = [
        "system-sound": PresetChannels(maximum: 2),
        "sfx": PresetChannels(fixed: 1),
        "music": PresetChannels(maximum: 2),
        "voice": PresetChannels(fixed: 1),
    ]

    /// The channels of the preset named `name`: the source's, unlimited, for a preset the table does not list.
    public static func of(preset name: String) -> PresetChannels { byPreset[name] ?? PresetChannels() }
}
