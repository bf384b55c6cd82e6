#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Two channels folded into one (their mean, as a phone's single speaker or a downmix to mono plays them): what
/// their correlation costs the level, and where that is said to cancel. The validator's mono-compatibility and
/// channels rules and the converter's note on a mixdown read this one bound.
public enum MonoFold {
    /// The correlation at or under which two channels folded to one cancel ("largely out of phase").
    public static let cancellingCorrelation = -0.5

    /// How far folding two channels of equal level and correlation `correlation` brings the level down, dB:
    /// 0 for one signal twice, 3 for uncorrelated channels, about 6 at ``cancellingCorrelation``, infinity for one
    /// channel the other's inverse.
    public static func levelFall(correlation: Double) -> Double {
        correlation <= -1 ? .infinity : 10 * log10(2 / (1 + min(1, correlation)))
    }

    /// The level fall of a fold at or past which it cancels, dB (the fall at ``cancellingCorrelation``).
    public static var cancellingFall: Double { levelFall(correlation: cancellingCorrelation) }
}
