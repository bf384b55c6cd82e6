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
