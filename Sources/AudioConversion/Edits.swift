import AudioFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A time in an edit: seconds, or frames of the source (`44100f`).
public enum EditTime: Hashable, Sendable, CustomStringConvertible {
    /// Seconds of the source.
    case seconds(Double)
    /// Frames of the source.
    case frames(Int64)

    /// The longest edit time: a week (a longer cut, fade or pad is a mistyped number, not a sound).
    public static let maximumSeconds = 604_800.0

    /// Parses `1.5`, `[[HH:]MM:]SS[.mmm]` or `44100f`; `nil` for anything else (negative included, and past
    /// ``maximumSeconds``, in frames at the highest rate afkit reads).
    public init?(_ text: String) {
        if text.hasSuffix("f"), let frames = Int64(text.dropLast()), frames >= 0 {
            guard Double(frames) <= Self.maximumSeconds * 1_536_000 else { return nil }
            self = .frames(frames)
            return
        }
        guard let seconds = clockSeconds(text), seconds <= Self.maximumSeconds else { return nil }
        self = .seconds(seconds)
    }

    /// The time in frames at `rate` (seconds rounded to the nearest frame).
    public func frames(at rate: Double) -> Int64 {
        switch self {
        case .seconds(let seconds): Int64((seconds * rate).rounded())
        case .frames(let frames): frames
        }
    }

    /// As given: `1.5` or `44100f`.
    public var description: String {
        switch self {
        case .seconds(let seconds): shortDecimal(seconds)
        case .frames(let frames): "\(frames)f"
        }
    }
}

/// How a fade's level rises, as SoX names its fade shapes.
public enum FadeShape: String, Hashable, Sendable, CaseIterable {
    /// A quarter of a sine wave (SoX's default): sin(x·π/2).
    case q
    /// Half a sine wave: (1 − cos(x·π))/2.
    case h
    /// Linear: x.
    case t
    /// Logarithmic: 100 dB over the fade, 0.1^(5(1 − x)).
    case l
    /// An inverted parabola: 1 − (1 − x)².
    case p

    /// The gain at `fraction` (0 silent ... 1 full) of the fade.
    public func gain(_ fraction: Double) -> Double {
        let x = min(1, max(0, fraction))
        switch self {
        case .q: return sin(x * Double.pi / 2)
        case .h: return (1 - cos(x * Double.pi)) / 2
        case .t: return x
        case .l: return pow(0.1, (1 - x) * 5)
        case .p: return 1 - (1 - x) * (1 - x)
        }
    }
}

/// The everyday edits of `convert` and `batch`: a part of the source (`--start`, `--end`, `--duration`), fades
/// (`--fade-in`, `--fade-out`, `--fade-shape`), silence added (`--pad`) and a gain (`--gain`), applied in the
/// render pass; markers and loops move with them.
public struct Edits: Hashable, Sendable {
    /// Where the part taken starts (`--start`, `-ss`).
    public var start: EditTime?
    /// Where it ends (`--end`, `-to`).
    public var end: EditTime?
    /// How long the part taken is (`--duration`, `-t`).
    public var duration: EditTime?
    /// The fade-in's length (`--fade-in`).
    public var fadeIn: EditTime?
    /// The fade-out's length (`--fade-out`).
    public var fadeOut: EditTime?
    /// The fades' shape (`--fade-shape`).
    public var fadeShape = FadeShape.q
    /// Silence before the sound (`--pad START`).
    public var padStart: EditTime?
    /// Silence after it (`--pad START,END`).
    public var padEnd: EditTime?
    /// Gain in dB, before any limiter.
    public var gain: Double?
    /// Whether a DC offset is taken out (`--remove-dc`): a first-order high-pass at ``DCBlocker/cutoff``, before
    /// the gain, so no gain raises the offset.
    public var removesDC = false

    /// No edit.
    public init() {}

    /// Whether any edit is asked.
    public var isEmpty: Bool { self == Edits() }

    /// Whether the part of the source taken is cut (`--start`, `--end`, `--duration`).
    public var cuts: Bool { start != nil || end != nil || duration != nil }

    /// The edits as a batch's provenance records them (empty for none).
    public var description: String {
        var parts: [String] = []
        if let start { parts.append("start \(start)") }
        if let end { parts.append("end \(end)") }
        if let duration { parts.append("duration \(duration)") }
        if let fadeIn { parts.append("fade-in \(fadeIn)") }
        if let fadeOut { parts.append("fade-out \(fadeOut)") }
        if fadeIn != nil || fadeOut != nil { parts.append("fade-shape \(fadeShape.rawValue)") }
        if padStart != nil || padEnd != nil {
            parts.append("pad \(padStart?.description ?? "0"),\(padEnd?.description ?? "0")")
        }
        if let gain { parts.append("gain \(shortDecimal(gain))") }
        if removesDC { parts.append("remove-dc") }
        return parts.joined(separator: "; ")
    }
}
