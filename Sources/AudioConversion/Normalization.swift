#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioDecoding
import AudioEngines
import AudioFormats

/// Loudness normalization's aim (`--loudness LUFS --true-peak DBTP`).
public struct LoudnessTarget: Hashable, Sendable {
    /// Integrated loudness, LUFS.
    public var integrated: Double
    /// The most the decoded output's true peak may reach, dBTP.
    public var truePeakCeiling: Double
    /// Where gain alone would pass the ceiling: limit (`true`) or refuse (`--no-limiter`).
    public var usesLimiter: Bool

    /// An aim of `integrated` LUFS under a `truePeakCeiling` in dBTP, limiting where gain alone would pass it.
    public init(integrated: Double, truePeakCeiling: Double = -1, usesLimiter: Bool = true) {
        self.integrated = integrated
        self.truePeakCeiling = truePeakCeiling
        self.usesLimiter = usesLimiter
    }

    /// How the aim reads in a provenance or a message: `-16 LUFS, -1 dBTP` (`, no limiter`).
    public var description: String {
        "\(shortDecimal(integrated)) LUFS, \(shortDecimal(truePeakCeiling)) dBTP" + (usesLimiter ? "" : ", no limiter")
    }
}

/// What normalizing one file measured and did.
public struct NormalizationOutcome: Sendable {
    /// The source as the output's rate and channels carry it, before any gain.
    public var source: LoudnessMeasurement
    /// The gain applied, dB.
    public var gain: Double
    /// The limiter's deepest gain reduction, dB (0: gain alone met the ceiling).
    public var limiterReduction: Double
    /// The output, decoded.
    public var output: LoudnessMeasurement
}

/// What the float pipeline does besides mixing and resampling: the part of the source it takes, the
/// fades at a silence cut, the gain and the limiter.
struct RenderPlan {
    /// Source frames passed over at the start; frames taken (`nil`: to the end).
    var start: Int64 = 0
    var count: Int64?
    /// Frames faded in at the start and out at the end of what is taken (a silence cut's pre- and post-roll).
    var fadeIn = 0
    var fadeOut = 0
    /// Gain, dB, and the true-peak limiter's ceiling, dBTP (`nil`: no limiter).
    var gain = 0.0
    var limiterCeiling: Double?
    /// A mix of the user's own (`--mix`, `--channel-map`, a layout's reordering), or `nil` for afkit's.
    var mixMatrix: [[Float]]?

    var linearGain: Float { Float(pow(10, gain / 20)) }

    /// Whether the samples pass through unchanged (a cut without fades may still apply).
    var keepsSamples: Bool {
        fadeIn == 0 && fadeOut == 0 && gain == 0 && limiterCeiling == nil && mixMatrix == nil
    }

    /// Applies the fades to `frames` frames that start `offset` frames into what is taken: a half-cosine
    /// rising over the pre-roll and falling over the post-roll, so the cut starts and ends at silence.
    func fade(_ samples: inout [Float], channels: Int, from offset: Int64, frames: Int) {
        guard fadeIn > 0 || fadeOut > 0 else { return }
        func ramp(_ position: Int64, over length: Int) -> Float {
            Float(0.5 - 0.5 * cos(Double.pi * (Double(position) + 0.5) / Double(length)))
        }
        let base = samples.count - frames * channels
        for frame in 0..<frames {
            let position = offset + Int64(frame)
            var factor: Float = 1
            if position < fadeIn { factor = ramp(position, over: fadeIn) }
            if let count, fadeOut > 0, position >= count - Int64(fadeOut) {
                factor = min(factor, ramp(count - 1 - position, over: fadeOut))
            }
            guard factor != 1 else { continue }
            for channel in 0..<channels { samples[base + frame * channels + channel] *= factor }
        }
    }
}

/// Where `--trim-silence` cuts a source.
struct SilenceCut {
    var start: Int64
    var count: Int64
    var fadeIn: Int
    var fadeOut: Int
    /// The source's valid frames.
    var total: Int64
}

extension AudioConverter {
    /// The fades at a silence cut: this long, taken from the silence itself, so nothing audible is touched.
    static let silenceFadeSeconds = 0.005

    /// Finds the first and last frames with a sample above `threshold` dBFS and cuts just outside them,
    /// keeping a few milliseconds of the silence to fade across. A silent source is refused.
    static func silenceCut(of source: SourceReader, threshold: Double, input: String) throws -> SilenceCut {
        let level = Float(pow(10, threshold / 20))
        var block: [Float] = []
        var first: Int64?
        var last: Int64 = -1
        var frame: Int64 = 0
        let channels = source.channels
        while true {
            block.removeAll(keepingCapacity: true)
            let frames = try source.read(maximum: 16384, into: &block)
            if frames == 0 { break }
            block.withUnsafeBufferPointer { samples in
                for index in 0..<frames {
                    var loud = false
                    for channel in 0..<channels where abs(samples[index * channels + channel]) > level {
                        loud = true
                        break
                    }
                    if loud {
                        if first == nil { first = frame + Int64(index) }
                        last = frame + Int64(index)
                    }
                }
            }
            frame += Int64(frames)
        }
        guard let first else {
            throw AudioFileError.limitExceeded(
                "'\(input)' is silent throughout (nothing above \(shortDecimal(threshold)) dBFS): --trim-silence would leave "
                    + "nothing", offset: nil)
        }
        let pad = Int64((silenceFadeSeconds * source.sampleRate).rounded())
        let start = max(0, first - pad)
        let end = min(frame, last + 1 + pad)
        return SilenceCut(
            start: start, count: end - start, fadeIn: start > 0 ? Int(first - start) : 0,
            fadeOut: end < frame ? Int(end - last - 1) : 0, total: frame)
    }
}

/// Finds the gain (and where needed the limiter's ceiling) that brings a conversion's output to a
/// loudness target, and checks each output written against it, as decoded.
///
/// The source is measured once through the pipeline (at the output's rate and channels, after any cut).
/// Gain alone is exact in that domain. Where it would put the true peak over the ceiling, the limiter
/// is engaged, and since it takes loudness (less the harder it works) the gain is found by secant steps
/// over measuring passes of the limited signal. The output as written is then decoded and measured: an
/// encoder's own overshoot lowers the limiter's ceiling, the encoder's loudness offset moves the aim,
/// and the output is written again; a few rounds at most.
final class LoudnessNormalizer {
    let target: LoudnessTarget
    private(set) var outcome: NormalizationOutcome
    /// The deepest reduction of the limiter in the round just written.
    var limiterReduction = 0.0
    private var rounds = 0
    /// What the float signal is aimed at: the target, moved by what the encoder adds or takes.
    private var aim: Double
    private let input: String
    private let format: StreamDescription
    private let resampler: ResamplerChoice
    /// The limiter works this far under the ceiling: dither and the decoder's rounding need the room.
    static let headroom = 0.1
    /// An output within this of the target is accepted at once; after a few rounds, one within the
    /// contract's 0.1 LU.
    static let tolerance = 0.05
    static let maximumRounds = 6
    /// How much deeper than a PCM output's the limiting may go to hold an encoder's overshoot, dB.
    static let squashAllowance = 3.0
    /// A suggested target aims this much under the allowance, dB.
    static let suggestionMargin = 0.5
    /// The limiter's depth in the first round written, dB: what the target asks of a PCM output.
    private var pcmReductionDepth = 0.0

    init(
        target: LoudnessTarget, input: String, format: StreamDescription, resampler: ResamplerChoice,
        plan: inout RenderPlan
    ) throws {
        self.target = target
        self.input = input
        self.format = format
        self.resampler = resampler
        aim = target.integrated
        var unprocessed = plan
        unprocessed.gain = 0
        unprocessed.limiterCeiling = nil
        let source = try Self.measure(unprocessed, input: input, format: format, resampler: resampler)
        outcome = NormalizationOutcome(source: source, gain: 0, limiterReduction: 0, output: source)
        guard source.normalizable.isFinite else {
            throw AudioFileError.limitExceeded(
                "'\(input)' is silent (below BS.1770's -70 LUFS gate): no gain reaches \(shortDecimal(target.integrated)) LUFS",
                offset: nil)
        }
        plan.gain = target.integrated - source.normalizable
        let peak = source.truePeak + plan.gain
        if peak > target.truePeakCeiling - Self.headroom {
            guard target.usesLimiter else {
                throw AudioFileError.limitExceeded(
                    "reaching \(shortDecimal(target.integrated)) LUFS takes \(signed(plan.gain)) dB, which puts '\(input)''s "
                        + "true peak at \(signed(peak)) dBTP, over the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling: "
                        + "allow the limiter (drop --no-limiter) or aim at "
                        + "\(shortDecimal(target.integrated - (peak - target.truePeakCeiling) - Self.headroom)) LUFS or lower",
                    offset: nil)
            }
            plan.limiterCeiling = target.truePeakCeiling - Self.headroom
            try converge(&plan)
        }
        outcome.gain = plan.gain
    }

    /// The plan's signal measured (a pass that decodes the source again).
    private static func measure(
        _ plan: RenderPlan, input: String, format: StreamDescription,
        resampler: ResamplerChoice
    ) throws -> LoudnessMeasurement {
        let channels = Int(format.channelsPerFrame)
        let meter = try LoudnessMeter(channels: channels, sampleRate: format.sampleRate)
        _ = try AudioConverter.render(
            try SourceReader(path: input), sampleRate: format.sampleRate, channels: channels,
            resampler: resampler, plan: plan
        ) { samples in
            try meter.add(samples, frames: samples.count / channels)
        }
        return meter.measurement
    }

    /// Finds the gain that brings the limited signal to the aim, by secant steps (the limiter makes
    /// loudness rise slower than gain).
    private func converge(_ plan: inout RenderPlan) throws {
        var previous: (gain: Double, loudness: Double)?
        for _ in 0..<8 {
            let loudness = try Self.measure(plan, input: input, format: format, resampler: resampler).normalizable
            let miss = aim - loudness
            guard loudness.isFinite, abs(miss) > 0.01 else { return }
            var slope = 1.0
            if let previous, plan.gain != previous.gain {
                slope = min(1.5, max(0.05, (loudness - previous.loudness) / (plan.gain - previous.gain)))
            }
            previous = (plan.gain, loudness)
            plan.gain += max(-12, min(12, miss / slope))
        }
    }

    /// Measures the output written at `path`: `true` when it meets the target; otherwise corrects
    /// `plan` for another round, or throws when the rounds are spent.
    func accepts(outputAt path: String, plan: inout RenderPlan) throws -> Bool {
        outcome.limiterReduction = plan.limiterCeiling == nil ? 0 : limiterReduction
        let output = try LoudnessMeasurement.measure(path: path)
        outcome.output = output
        outcome.gain = plan.gain
        rounds += 1
        if rounds == 1 { pcmReductionDepth = -outcome.limiterReduction }
        let miss = target.integrated - output.normalizable
        let over = output.truePeak - target.truePeakCeiling
        if over <= 0 && abs(miss) <= (rounds < 3 ? Self.tolerance : 0.1) { return true }
        guard rounds < Self.maximumRounds, output.normalizable.isFinite else {
            throw AudioFileError.limitExceeded(
                "'\(input)': the output measures \(shortDecimal(output.normalizable)) LUFS and "
                    + "\(shortDecimal(output.truePeak)) dBTP after \(rounds) rounds; the aim was \(target.description)",
                offset: nil)
        }
        if over > 0 {
            // The encoder overshoots what it was given: limit that much lower.
            guard target.usesLimiter else {
                throw AudioFileError.limitExceeded(
                    "'\(input)': encoded at \(shortDecimal(target.integrated)) LUFS, its true peak is "
                        + "\(signed(output.truePeak)) dBTP, over the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling: "
                        + "allow the limiter (drop --no-limiter)", offset: nil)
            }
            // The limiter is set that far under the float signal's own peak, which may already sit below
            // the ceiling (a quiet target the encoder's overshoot alone puts over it).
            let floatPeak = min(outcome.source.truePeak + plan.gain, plan.limiterCeiling ?? .infinity)
            plan.limiterCeiling =
                min(floatPeak, plan.limiterCeiling ?? target.truePeakCeiling - Self.headroom) - over - Self.headroom / 2
        }
        // What the encoder added or took moves the float signal's aim.
        aim += miss
        if plan.limiterCeiling == nil {
            plan.gain += miss
        } else {
            try converge(&plan)
        }
        try refuseSquashing(plan)
        return false
    }

    /// The limiter's reduction (dB, as a positive depth) that a plan asks: the source's true peak raised by
    /// the gain, over the ceiling (the limiter's own 4x measure of the peak agrees with BS.1770's).
    private func reductionDepth(_ plan: RenderPlan) -> Double {
        guard let ceiling = plan.limiterCeiling else { return 0 }
        return max(0, outcome.source.truePeak + plan.gain - ceiling)
    }

    /// An encoder whose peaks overshoot what it was given is corrected by a lower ceiling, and the gain that
    /// keeps the loudness then works the limiter harder. That may go only ``squashAllowance`` dB deeper than
    /// the first round's limiting (what a PCM output of the same target gets): beyond it the sound is
    /// squashed, and the target is refused, naming the loudest target that stays within it.
    private func refuseSquashing(_ plan: RenderPlan) throws {
        let asked = reductionDepth(plan)
        guard let ceiling = plan.limiterCeiling, asked > pcmReductionDepth + Self.squashAllowance else { return }
        // The suggestion: the loudness at which the limiter, at the ceiling this encoder needs, works no more
        // than the allowance (less a margin: the encoder's overshoot moves with the signal), which is within
        // the allowance of a PCM output whatever that needs; measured once, moved by what the encoder takes.
        var fitting = plan
        fitting.gain = ceiling + Self.squashAllowance - Self.suggestionMargin - outcome.source.truePeak
        let limited = try Self.measure(fitting, input: input, format: format, resampler: resampler).normalizable
        let suggestion = ((limited - (aim - target.integrated)) * 2).rounded(.down) / 2
        let overshoot = target.truePeakCeiling - Self.headroom - ceiling
        throw AudioFileError.limitExceeded(
            "'\(input)': \(shortDecimal(target.integrated)) LUFS cannot be met in this format without squashing the "
                + "sound: its encoder's peaks overshoot by \(shortDecimal(overshoot)) dB, so the limiter would reduce "
                + "\(shortDecimal(asked)) dB where a PCM output needs \(shortDecimal(pcmReductionDepth)) dB. Aim at "
                + "\(shortDecimal(suggestion)) LUFS or lower, raise --true-peak, or choose a higher bit rate or PCM",
            offset: nil)
    }
}

/// `+9.3`, `-2`: a gain with its sign.
func signed(_ value: Double) -> String { value > 0 ? "+" + shortDecimal(value) : shortDecimal(value) }
