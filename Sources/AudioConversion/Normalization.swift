#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioCodecs
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
    /// The deepest limiting allowed, dB (`--max-limiting`): a target that needs more is refused.
    public var maximumLimiting: Double
    /// Whether the speech leveler rides the gain first (`--dynamic`, ``SpeechLeveler``) or one gain moves the
    /// whole sound (`--linear`); `nil`: the preset's way (the voice preset levels, every other setting is linear).
    public var dynamic: Bool?

    /// The limiting allowed unless asked otherwise, dB.
    public static let defaultMaximumLimiting = 6.0
    /// The true-peak ceiling unless asked otherwise, dBTP.
    public static let defaultTruePeakCeiling = -1.0
    /// How far under the ceiling the limiter works, dB (dither and the decoder's rounding need the room).
    public static var limiterHeadroom: Double { LoudnessNormalizer.headroom }

    /// An aim of `integrated` LUFS under a `truePeakCeiling` in dBTP, limiting where gain alone would pass it,
    /// by at most `maximumLimiting` dB.
    public init(
        integrated: Double, truePeakCeiling: Double = defaultTruePeakCeiling, usesLimiter: Bool = true,
        maximumLimiting: Double = defaultMaximumLimiting
    ) {
        self.integrated = integrated
        self.truePeakCeiling = truePeakCeiling
        self.usesLimiter = usesLimiter
        self.maximumLimiting = maximumLimiting
    }

    /// How the aim reads in a provenance or a message: `-16 LUFS, -1 dBTP` (`, no limiter`; `, at most 4 dB of
    /// limiting` where that is not the default; `, speech leveled` for the dynamic way).
    public var description: String {
        "\(shortDecimal(integrated)) LUFS, \(shortDecimal(truePeakCeiling)) dBTP" + (usesLimiter ? "" : ", no limiter")
            + (usesLimiter && maximumLimiting != Self.defaultMaximumLimiting
                ? ", at most \(shortDecimal(maximumLimiting)) dB of limiting" : "")
            + (dynamic == true ? ", speech leveled" : "")
    }
}

/// Peak normalization's aim (`--normalize-peak DBFS`, `--normalize-true-peak DBTP`): one linear gain that puts the
/// output's highest peak at `level`, as SoX's `gain -n` sets it.
public struct PeakTarget: Hashable, Sendable {
    /// Which peak is brought to the level.
    public enum Measure: Hashable, Sendable {
        /// The highest sample, dBFS.
        case sample
        /// The highest true peak (4x oversampled, BS.1770-4), dBTP.
        case truePeak
    }

    /// Where the peak is put, dBFS or dBTP.
    public var level: Double
    /// The peak measured.
    public var measure: Measure

    /// An aim of `level` for the `measure`d peak.
    public init(level: Double, measure: Measure = .sample) {
        self.level = level
        self.measure = measure
    }

    /// The peak this aim reads from `measurement`, dB.
    public func peak(of measurement: LoudnessMeasurement) -> Double {
        measure == .sample ? measurement.samplePeak : measurement.truePeak
    }

    /// `dBFS` or `dBTP`.
    public var unit: String { measure == .sample ? "dBFS" : "dBTP" }

    /// How the aim reads in a provenance or a message: `-1 dBFS sample peak`, `-1 dBTP true peak`.
    public var description: String {
        "\(shortDecimal(level)) \(unit) \(measure == .sample ? "sample" : "true") peak"
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
    /// The peak aimed at, where the normalization was by peak (`--normalize-peak`), not loudness.
    public var peakTarget: PeakTarget?
    /// What the speech leveler did, where it rode the gain first (`--dynamic`): ``source`` is then the leveled
    /// signal, and this holds the sound before it.
    public var leveling: SpeechLeveling?
    /// Why a lossy output's peak is not within 0.1 dB of the level asked (an encoder whose peak jumps past it),
    /// said after the summary.
    public var peakShortfall: String?

    /// What was done, in one line: `loudness -14.86 -> -12.01 LUFS, true peak -1.7 -> -1.07 dBTP: gain +3.24 dB,
    /// limiting 2.64 dB` (`no limiting` where gain alone met the ceiling); by peak: `sample peak -7.3 -> -1 dBFS:
    /// gain +6.3 dB`. Leveled, the loudness range's move and the leveler's gains come first: `loudness range 9.4 ->
    /// 3.1 LU (leveler -2.1 to +7.6 dB), loudness ...`.
    public var summary: String {
        func two(_ value: Double) -> String { value.isFinite ? shortDecimal((value * 100).rounded() / 100) : "-inf" }
        func one(_ value: Double) -> String { shortDecimal((value * 10).rounded() / 10) }
        if let peakTarget {
            return "\(peakTarget.measure == .sample ? "sample" : "true") peak \(two(peakTarget.peak(of: source))) -> "
                + "\(two(peakTarget.peak(of: output))) \(peakTarget.unit): gain \(signed((gain * 100).rounded() / 100)) dB"
                + (peakShortfall.map { " (\($0))" } ?? "")
        }
        let before = leveling?.source ?? source
        let leveled = leveling.map {
            "loudness range \(one($0.source.range)) -> \(one(output.range)) LU (leveler \(signed(($0.leastGain * 10).rounded() / 10)) "
                + "to \(signed(($0.greatestGain * 10).rounded() / 10)) dB), "
        }
        return (leveled ?? "") + "loudness \(two(before.normalizable)) -> \(two(output.normalizable)) LUFS, true peak "
            + "\(two(before.truePeak)) -> \(two(output.truePeak)) dBTP: gain \(signed((gain * 100).rounded() / 100)) dB, "
            + (limiterReduction < 0 ? "limiting \(two(-limiterReduction)) dB" : "no limiting")
    }

    /// The same for `batch --report`'s JSON.
    public var reportJSON: JSONValue {
        func number(_ value: Double) -> JSONValue { value.isFinite ? .number((value * 100).rounded() / 100) : .null }
        let before = leveling?.source ?? source
        return .object(
            [
                ("sourceLoudness", number(before.normalizable)), ("outputLoudness", number(output.normalizable)),
                ("sourceTruePeak", number(before.truePeak)), ("outputTruePeak", number(output.truePeak)),
                ("gain", number(gain)), ("limiting", number(max(0, -limiterReduction))),
            ] + (peakTarget.map { [("peakTarget", .string($0.description))] } ?? [])
                + (leveling.map {
                    [
                        ("sourceLoudnessRange", number($0.source.range)), ("outputLoudnessRange", number(output.range)),
                        ("levelerLeastGain", number($0.leastGain)), ("levelerGreatestGain", number($0.greatestGain)),
                    ]
                } ?? []))
    }
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
    /// The speech leveler's gain, riding before the static gain (`--dynamic`).
    var levelCurve: GainCurve?
    /// Whether a DC offset is taken out before the gains (`--remove-dc`).
    var removesDC = false
    /// The plan without the level a normalizer sets (no gain, no limiter): what a normalizer measures first. The
    /// speech leveler's curve stays: the normalizer measures the leveled signal.
    var unleveled: RenderPlan {
        var plan = self
        plan.gain = 0
        plan.limiterCeiling = nil
        return plan
    }
    /// A mix of the user's own (`--mix`, `--channel-map`, a layout's reordering), or `nil` for afkit's.
    var mixMatrix: [[Float]]?
    /// The fades' shape: half a sine for a silence cut's, the user's for `--fade-in`/`--fade-out`.
    var fadeShape = FadeShape.h
    /// Frames of silence before and after the sound, at the output's rate (`--pad`).
    var padStart: Int64 = 0
    var padEnd: Int64 = 0
    /// Loop seams mended (`--loop-crossfade`), in source frames; and where the sound is resampled, at the output's
    /// rate.
    var loopCrossfades: [LoopCrossfade] = []
    var resampledLoopCrossfades: [ResampledLoopCrossfade] = []

    var linearGain: Float { Float(pow(10, gain / 20)) }

    /// Whether the samples pass through unchanged (a cut without fades may still apply).
    var keepsSamples: Bool {
        fadeIn == 0 && fadeOut == 0 && gain == 0 && limiterCeiling == nil && mixMatrix == nil && padStart == 0
            && padEnd == 0 && loopCrossfades.isEmpty && resampledLoopCrossfades.isEmpty && levelCurve == nil
            && !removesDC
    }

    /// Applies the fades to `frames` frames that start `offset` frames into what is taken: the shape's gain
    /// rising over the fade-in and falling over the fade-out (each frame at its middle), so the sound starts
    /// and ends at silence.
    func fade(_ samples: inout [Float], channels: Int, from offset: Int64, frames: Int) {
        guard fadeIn > 0 || fadeOut > 0 else { return }
        func ramp(_ position: Int64, over length: Int) -> Float {
            Float(fadeShape.gain((Double(position) + 0.5) / Double(length)))
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
    /// What the cut kept that it would have cut (a loop or marker in the silence), for a person.
    var note: String?
}

extension AudioConverter {
    /// The fades at a silence cut: this long, taken from the silence itself, so nothing audible is touched.
    static let silenceFadeSeconds = 0.005

    /// The fade-out that ends a `--trim` cut, by default: 10 ms of half a sine (a raised cosine). A cut at full
    /// level is a step, heard as a click; over 10 ms the level falls smoothly (the ramp's own spectrum lies below
    /// about 100 Hz, under the sound), yet it is far shorter than a fade the ear follows (tens of milliseconds
    /// and more), so the end sounds like the sound stopping, not fading.
    public static let trimFadeSeconds = 0.010

    /// Finds the first and last frames with a sample above `threshold` dBFS and cuts just outside them,
    /// keeping a few milliseconds of the silence to fade across. A silent source is refused.
    static func silenceCut(of source: SourceReader, threshold: Double, input: String) throws -> SilenceCut {
        let level = Float(pow(10, threshold / 20))
        var first: Int64?
        var last: Int64 = -1
        var frame: Int64 = 0
        let channels = source.channels
        try source.forEachBlock { samples, frames in
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
            frame += Int64(frames)
        }
        guard let first else {
            throw AudioFileError.limitExceeded(
                "'\(input)' is silent throughout (nothing above \(shortDecimal(threshold)) dBFS): --trim-silence would leave "
                    + "nothing", offset: nil)
        }
        let pad = Int64((silenceFadeSeconds * source.sampleRate).rounded())
        let padded = (start: max(0, first - pad), end: min(frame, last + 1 + pad))
        var (start, end) = padded
        // Never into a loop or a marker the source declares: the cut stops at it (no fade there: the frames kept
        // are the loop's own, and below the threshold), said in a note.
        var kept: [String] = []
        for (index, loop) in source.loops.enumerated() where loop.start < start || loop.end > end {
            kept.append("loop \(index + 1) (frames \(loop.start)-\(loop.end))")
            start = min(start, max(0, loop.start))
            end = max(end, min(frame, loop.end))
        }
        for marker in source.markers where marker.framePosition < start || marker.framePosition >= end {
            kept.append("marker \(marker.id) (frame \(marker.framePosition))")
            start = min(start, max(0, marker.framePosition))
            end = max(end, min(frame, marker.framePosition + 1))
        }
        return SilenceCut(
            start: start, count: end - start, fadeIn: start > 0 && start == padded.start ? Int(first - start) : 0,
            fadeOut: end < frame && end == padded.end ? Int(end - last - 1) : 0, total: frame,
            note: kept.isEmpty
                ? nil
                : "--trim-silence keeps source frames \(start)-\(end) so as not to cut into "
                    + kept.joined(separator: ", ") + " in the silence")
    }
}

/// Finds the gain (and where needed the limiter's ceiling) that brings a conversion's output to a
/// loudness target, and checks each output written against it, as decoded.
///
/// The source is measured once through the pipeline (at the output's rate and channels, after any cut), and
/// the gain is what the target needs by that measure, as FFmpeg's `loudnorm` in linear mode sets it: the
/// whole sound moves by it, so a decaying tail rises exactly as much as the target asks. Where that gain puts
/// the true peak over the ceiling, the limiter holds the ceiling and nothing else, and since it takes some
/// loudness, at most ``makeupLimit`` dB more gain makes that up (found over measuring passes, within it).
/// A target that needs more than ``LoudnessTarget/maximumLimiting`` dB of limiting, or more make-up than that,
/// is refused, naming the loudest target that can be met, computed from measuring passes of the source (not
/// by converting again). The output as written is then decoded and measured: an encoder's own overshoot
/// lowers the limiter's ceiling, the encoder's loudness offset moves the aim, and the output is written again;
/// a few rounds at most, the limiting never more than ``LoudnessTarget/maximumLimiting`` dB (the encoder's overshoot
/// held within the same bound as the signal's own peaks, as `hls --loudness` holds a rendition's). Where the
/// converter keeps the signal an encode was given (``givenSignal``), each next round's level is first tried on the
/// prediction of that encode's error (``EncodingPrediction``), a measuring pass each, until the prediction meets the
/// target with a margin.
final class LoudnessNormalizer: LevelNormalizer {
    let target: LoudnessTarget
    private(set) var outcome: NormalizationOutcome
    /// The deepest reduction of the limiter in the round just written.
    var limiterReduction = 0.0
    private var rounds = 0
    /// What the float signal is aimed at: the target, moved by what the encoder adds or takes.
    private var aim: Double
    private let input: String
    /// Opens the source afresh for a measuring pass.
    private let open: () throws -> SourceReader
    private let format: StreamDescription
    private let resampler: ResamplerChoice
    /// The render plan as the normalizer sets its level: the gain and the limiter's ceiling the converter takes
    /// (``gain``, ``limiterCeiling``) for each round.
    private var render: RenderPlan
    /// The gain the next round is written with, dB.
    var gain: Double { render.gain }
    /// The limiter's ceiling the next round is written with, dBTP (`nil`: no limiter).
    var limiterCeiling: Double? { render.limiterCeiling }
    /// The speech leveler's curve (`--dynamic`).
    var levelCurve: GainCurve? { render.levelCurve }
    /// Whether the output's codec loses (its encoder's overshoot and offset move with the signal): not PCM, FLAC
    /// or Apple Lossless.
    private var isLossy: Bool { losesInEncoding(format) }
    /// The limiter works this far under the ceiling: dither and the decoder's rounding need the room.
    static let headroom = 0.1
    /// A PCM or lossless output within this of the target is accepted at once; after a few rounds (and a lossy
    /// output at once), one within the contract's 0.1 LU.
    static let tolerance = 0.05
    static let maximumRounds = 6
    /// The most rounds (encodes) for a lossy output: the first, and two aimed by what the encodes before measured.
    static let maximumLossyRounds = 3
    /// The same for a short sound (at most ``shortSeconds``), whose encodes cost little: an encoder at a low bit rate
    /// moves a short sound's loudness by a few tenths of a LU from one gain to the next (Opus at 32 kbit/s on a 3 s
    /// line: +0.3 dB of gain, +0.48 LU; -0.17 dB, -0.33 LU), so three encodes may all miss the contract's 0.1 LU.
    static let maximumShortLossyRounds = 6
    static let shortSeconds = 60.0
    /// The rounds this output may take.
    private var maximumRounds: Int { isLossy ? Self.lossyRounds(isShort: isShort) : Self.maximumRounds }
    /// Whether a sound lasting `seconds` (`nil`: not known) is short: at most ``shortSeconds``.
    static func isShort(seconds: Double?) -> Bool { seconds.map { $0 <= shortSeconds } ?? false }
    /// The encodes a lossy output (a convert's, an HLS rendition's) may take.
    static func lossyRounds(isShort: Bool) -> Int { isShort ? maximumShortLossyRounds : maximumLossyRounds }
    /// Whether the output lasts at most ``shortSeconds``.
    private let isShort: Bool
    /// The ceilings the encodes were given and the true peaks they decoded to.
    private var ceilings = OvershootCeiling()
    /// The most the float signal's aim moves from the target for what an encoder adds or takes, LU.
    static let encoderAimLimit = 0.5
    /// How far under the loudest target found a lossy output's suggestion is, LU.
    static let encoderMargin = 0.5
    /// The most gain added past what the target needs, to make up what the limiter takes, dB.
    static let makeupLimit = 1.0
    /// The same with the speech leveler riding (`--dynamic`), dB: the quiet passages are brought up by the leveler
    /// whatever the make-up, so it guards only against squashing, which ``LoudnessTarget/maximumLimiting`` bounds.
    static let levelledMakeupLimit = 3.0
    /// The make-up allowed for this target.
    private var makeupLimit: Double { target.dynamic == true ? Self.levelledMakeupLimit : Self.makeupLimit }
    /// Where the measuring passes are said.
    private let progress: Progress?

    /// What the normalizer measured before it aimed, the same at any target.
    private(set) var prelude: NormalizationPrelude

    /// A normalizer for the plan's signal; `start`, what an earlier conversion of the same source and output
    /// learned of the encoder (a confirming conversion at a quieter target starts from it); `prelude`, what an
    /// earlier normalization of the same signal measured before it aimed (its passes are not made again);
    /// `expectedFrames`, the output's length where known (a short one may take more encodes).
    init(
        target: LoudnessTarget, input: String, format: StreamDescription, resampler: ResamplerChoice,
        render: RenderPlan, open: @escaping () throws -> SourceReader, start: EncoderAllowance? = nil,
        prelude known: NormalizationPrelude? = nil, expectedFrames: Int64? = nil, progress: Progress? = nil
    ) throws {
        self.render = render
        self.open = open
        self.progress = progress
        learnedBefore = start != nil
        isShort = Self.isShort(seconds: expectedFrames.map { Double($0) / format.sampleRate })
        var plan = render
        self.target = target
        self.input = input
        self.format = format
        self.resampler = resampler
        aim = target.integrated + (start?.aimShift ?? 0)
        var leveling: SpeechLeveling?
        // (What was measured for the other way, leveled or linear, is not this one's.)
        let known = known.flatMap { $0.isLeveled == (target.dynamic == true) ? $0 : nil }
        if let known {
            plan.levelCurve = known.levelCurve
            leveling = known.leveling
        } else if target.dynamic == true {
            // The leveler's pass: the sound's 100 ms blocks, its curve from them; the normalizer measures what it makes.
            let meter = try Self.meter(
                plan.unleveled, source: open(), format: format, resampler: resampler, progress: progress)
            let before = meter.measurement
            if let (curve, decibels) = SpeechLeveler.curve(
                blocks: meter.blockReadings, programme: before.normalizable, step: meter.blockFrames)
            {
                plan.levelCurve = curve
                leveling = SpeechLeveling(
                    source: before, leastGain: decibels.min() ?? 0, greatestGain: decibels.max() ?? 0)
            }
        }
        let source: LoudnessMeasurement
        var model: LimitedLoudnessModel?
        if let known {
            (source, model) = (known.source, known.model)
        } else {
            // The source's measure, and where a limiter may work, the model of its loudness under one.
            let meter = try LoudnessMeter(channels: Int(format.channelsPerFrame), sampleRate: format.sampleRate)
            let collector =
                target.usesLimiter
                ? LimitedLoudnessModel.Collector(
                    channels: Int(format.channelsPerFrame), sampleRate: format.sampleRate,
                    depth: target.maximumLimiting + Self.modelledDepthMargin) : nil
            try Self.pass(plan.unleveled, source: open(), format: format, resampler: resampler, progress: progress) {
                try meter.add($0, frames: $1)
                collector?.add($0, frames: $1)
            }
            source = meter.measurement
            model = collector?.model()
        }
        self.model = model
        prelude = NormalizationPrelude(
            isLeveled: target.dynamic == true, levelCurve: plan.levelCurve, leveling: leveling, source: source,
            model: model)
        outcome = NormalizationOutcome(source: source, gain: 0, limiterReduction: 0, output: source, leveling: leveling)
        guard source.normalizable.isFinite else {
            // Mixed down, a sound whose channels are out of phase cancels: said, where the source has more channels.
            let channels = Int(format.channelsPerFrame)
            let mixed = try open().channels > channels
            throw AudioFileError.limitExceeded(
                "'\(input)'" + (mixed ? ", mixed to \(channels) channel\(channels == 1 ? "" : "s")," : "")
                    + " is silent (below BS.1770's \(shortDecimal(LoudnessGate.absolute)) LUFS gate): no gain reaches "
                    + "\(shortDecimal(target.integrated)) LUFS"
                    + (mixed
                        ? " (where the source is not, its channels cancel in the mix, out of phase: take one as it is "
                            + "with -m 0)" : ""),
                offset: nil)
        }
        plan.gain = aim - source.normalizable
        let pcmCeiling = target.truePeakCeiling - Self.headroom
        let ceiling = min(pcmCeiling, start?.ceiling ?? pcmCeiling)
        if source.truePeak + plan.gain > ceiling {
            guard target.usesLimiter else {
                let peak = source.truePeak + plan.gain
                throw AudioFileError.limitExceeded(
                    "reaching \(shortDecimal(target.integrated)) LUFS takes \(signed(plan.gain)) dB, which puts '\(input)''s "
                        + "true peak at \(signed(peak)) dBTP, over the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling: "
                        + "allow the limiter (drop --no-limiter) or aim at "
                        + "\(shortDecimal(suggested(source.normalizable + ceiling - source.truePeak))) "
                        + "LUFS or lower",
                    offset: nil)
            }
            plan.limiterCeiling = ceiling
            try settle(&plan)
        }
        outcome.gain = plan.gain
        self.render = plan
    }

    /// A suggested target: a little under the loudest found (a lossy output's encoder overshoots with the signal,
    /// so more), rounded down to 0.1 LU.
    private func suggested(_ loudness: Double) -> Double {
        ((loudness - (isLossy ? Self.encoderMargin : 0.02)) * 10).rounded(.down) / 10
    }

    /// The plan's signal measured (a pass that decodes the source again), said to `progress` as it goes; its
    /// integrated loudness alone where `integratedOnly` (a search's pass).
    static func measure(
        _ plan: RenderPlan, source: SourceReader, format: StreamDescription,
        resampler: ResamplerChoice, progress: Progress?, integratedOnly: Bool = false
    ) throws -> LoudnessMeasurement {
        try meter(
            plan, source: source, format: format, resampler: resampler, progress: progress,
            integratedOnly: integratedOnly
        ).measurement
    }

    /// The meter that measured the plan's signal (its 100 ms blocks too, unless `integratedOnly`).
    static func meter(
        _ plan: RenderPlan, source: SourceReader, format: StreamDescription,
        resampler: ResamplerChoice, progress: Progress?, integratedOnly: Bool = false
    ) throws -> LoudnessMeter {
        let (channels, rate) = (Int(format.channelsPerFrame), format.sampleRate)
        let meter =
            try integratedOnly
            ? LoudnessMeter(integratedOnly: channels, sampleRate: rate)
            : LoudnessMeter(channels: channels, sampleRate: rate)
        try pass(plan, source: source, format: format, resampler: resampler, progress: progress, into: meter.add)
        return meter
    }

    /// One measuring pass: the plan's signal rendered from `source` and handed to `take` a block at a time (samples,
    /// frames), said to `progress` as it goes.
    static func pass(
        _ plan: RenderPlan, source: SourceReader, format: StreamDescription, resampler: ResamplerChoice,
        progress: Progress?, into take: (UnsafeBufferPointer<Float>, Int) throws -> Void
    ) throws {
        let channels = Int(format.channelsPerFrame)
        var measured: Int64 = 0
        progress?.passes += 1
        _ = try AudioConverter.render(
            source, sampleRate: format.sampleRate, channels: channels,
            resampler: resampler, plan: plan
        ) { samples in
            let frames = samples.count / channels
            try take(samples, frames)
            measured += Int64(frames)
            progress?.report(measured, sampleRate: format.sampleRate)
        }
    }

    /// Where the measuring passes are said: the conversion's progress, with the pass's number.
    final class Progress {
        let report: @Sendable (ConversionProgress) -> Void
        let expectedFrames: Int64?
        var passes = 0

        init(report: @escaping @Sendable (ConversionProgress) -> Void, expectedFrames: Int64?) {
            self.report = report
            self.expectedFrames = expectedFrames
        }

        func report(_ frames: Int64, sampleRate: Double) {
            report(
                ConversionProgress(
                    framesWritten: frames, expectedFrames: expectedFrames, sampleRate: sampleRate,
                    activity: "measuring loudness, pass \(passes)"))
        }
    }

    /// The limited signal's loudness at `gain` under the plan's ceiling (a pass metering the integrated loudness
    /// alone); the model's reading there corrected by it.
    private func limitedLoudness(_ plan: RenderPlan, gain: Double) throws -> Double {
        var trial = plan
        trial.gain = gain
        let loudness = try Self.measure(
            trial, source: open(), format: format, resampler: resampler, progress: progress, integratedOnly: true
        )
        .normalizable
        if let modelled = model?.loudness(gain: gain, ceiling: plan.limiterCeiling), modelled.isFinite,
            loudness.isFinite
        {
            modelCorrection = loudness - modelled
        }
        return loudness
    }

    /// The limited signal's loudness at `gain` under the plan's ceiling by the model, corrected by the last pass
    /// (by a pass where there is no model, or the ceiling is past it).
    private func modelledLoudness(_ plan: RenderPlan, gain: Double) throws -> Double {
        guard let modelled = model?.loudness(gain: gain, ceiling: plan.limiterCeiling), modelled.isFinite else {
            return try limitedLoudness(plan, gain: gain)
        }
        return modelled + modelCorrection
    }

    /// The model of the limited signal's loudness (``LimitedLoudnessModel``; `nil`: measured by passes), and what
    /// the last pass read over it, LU.
    private let model: LimitedLoudnessModel?
    private var modelCorrection = 0.0
    /// How much deeper than the most limiting allowed the model keeps the peaks, dB: the source's true peak, by
    /// which the limiting is bounded, and the limiter's measure of it differ by a little.
    static let modelledDepthMargin = 1.0

    /// The limiting (dB) the plan's ceiling asks at `gain`: the source's true peak raised by it, over the
    /// ceiling (the limiter's own 4x measure of the peak agrees with BS.1770's).
    private func depth(_ plan: RenderPlan, gain: Double) -> Double {
        guard let ceiling = plan.limiterCeiling else { return 0 }
        return max(0, outcome.source.truePeak + gain - ceiling)
    }

    /// The most limiting a level may take: `--max-limiting`, whether for the signal's own peaks or, after an
    /// encode, for the encoder's overshoot too.
    private var allowedDepth: Double { target.maximumLimiting }

    /// Sets the gain for a limited plan: what the aim needs by the source's measure, plus the make-up (at most
    /// ``makeupLimit``) that brings the limited signal to the aim; refuses a target that needs more limiting
    /// or make-up than allowed, naming the loudest that can be met (``refusal(_:gain:)``'s passes), or where
    /// `naming` is false (a level tried on a prediction, whose refusal is not said) with ``Unreachable``.
    private func settle(_ plan: inout RenderPlan, naming: Bool = true) throws {
        if let gain = try solve(plan, aim: aim) {
            plan.gain = gain
        } else if naming {
            throw try refusal(plan, gain: aim - outcome.source.normalizable)
        } else {
            throw Unreachable()
        }
    }

    /// A level the allowed limiting and make-up cannot reach, where no target that can is looked for.
    private struct Unreachable: Error {}

    /// The least gain within the make-up limit that brings the limited signal to `aim` with no more limiting
    /// than allowed, or `nil`. Limiting makes loudness rise slower than gain: the first try is the gain the aim
    /// needs unlimited plus the make-up the last search found (the limiter takes about as much at a ceiling moved
    /// by a round's correction), the next adds what the limiter took (or takes back the excess), then the secant
    /// through the last two tries (inside the bracket once one is short of the aim and one past it), until a try
    /// lands within 0.02 LU: one or two passes over the source where walking the make-up range took up to nine.
    ///
    /// With a model of the limited loudness, the search runs on the model and each gain it finds is checked by a
    /// pass, which corrects the model: one pass or two where the search took three to five.
    private func solve(_ plan: RenderPlan, aim: Double) throws -> Double? {
        let (needed, highest) = bounds(plan, aim: aim)
        guard needed <= highest else { return nil }
        if model != nil {
            for _ in 0..<2 {
                let modelled = try search(plan, aim: aim) { try modelledLoudness(plan, gain: $0) }
                let gain = modelled ?? highest
                let loudness = try limitedLoudness(plan, gain: gain)
                if Self.meets(loudness, at: gain, aim: aim, needed: needed) {
                    makeup = gain - needed
                    return gain
                }
                // Short of the aim at the most gain allowed, as the model said: it cannot be met.
                if modelled == nil && loudness < aim { return nil }
            }
        }
        return try search(plan, aim: aim) { try limitedLoudness(plan, gain: $0) }
    }

    /// How close to the aim a search's gain lands, LU.
    static let close = 0.02

    /// Whether the limited signal's `loudness` at `gain` meets `aim`: within ``close``, or over it at no more than
    /// the gain the aim `needed` unlimited (the meter's rounding).
    static func meets(_ loudness: Double, at gain: Double, aim: Double, needed: Double) -> Bool {
        abs(loudness - aim) <= close || (gain <= needed && loudness >= aim - close)
    }

    /// The gain `aim` needs unlimited, and the most gain allowed: the make-up limit, and the limiting allowed.
    private func bounds(_ plan: RenderPlan, aim: Double) -> (needed: Double, highest: Double) {
        let needed = aim - outcome.source.normalizable
        let free = (plan.limiterCeiling ?? .infinity) - outcome.source.truePeak
        return (needed, min(needed + makeupLimit, free + allowedDepth))
    }

    /// ``solve(_:aim:)``'s search with the limited loudness read by `loudness`.
    private func search(_ plan: RenderPlan, aim: Double, by loudness: (Double) throws -> Double) throws -> Double? {
        let (needed, highest) = bounds(plan, aim: aim)
        guard needed <= highest else { return nil }
        var short: (gain: Double, loudness: Double)?
        var past: (gain: Double, loudness: Double)?
        var last: (gain: Double, loudness: Double)?
        var gain = min(highest, needed + max(0, makeup ?? 0))
        for _ in 0..<7 {
            let loudness = try loudness(gain)
            // (At the gain the aim needs unlimited, a reading over the aim is the meter's rounding: taken.)
            if Self.meets(loudness, at: gain, aim: aim, needed: needed) {
                makeup = gain - needed
                return gain
            }
            let tried = (gain: gain, loudness: loudness)
            if loudness < aim {
                // Short at the most gain allowed: the aim cannot be met.
                guard gain < highest else { return nil }
                short = tried
            } else {
                past = tried
            }
            // The secant through this try and the last, kept inside what is known; a first step of the miss itself.
            var next = tried.gain + aim - tried.loudness
            if let last {
                let slope = (tried.loudness - last.loudness) / (tried.gain - last.gain)
                next = slope.isFinite && slope > 0.05 ? tried.gain + (aim - tried.loudness) / slope : .nan
            }
            let (lower, upper) = (short?.gain ?? needed, past?.gain ?? highest)
            if !(next >= lower && next < upper && (short == nil || next > lower)) {
                if past == nil {
                    next = min(highest, tried.gain + aim - tried.loudness)
                } else if let short {
                    next = (short.gain + upper) / 2
                } else {
                    next = max(needed, tried.gain + aim - tried.loudness)
                }
            }
            last = tried
            gain = next
        }
        if let past { makeup = past.gain - needed }
        return past?.gain
    }

    /// The make-up gain (past what the aim needs unlimited) the last search found, dB: the next search's first try.
    private var makeup: Double?

    /// The refusal of a target the plan's ceiling cannot meet within the allowed limiting and make-up, naming
    /// the loudest target that can be: over the gains where the limiting stays allowed, the loudest limited
    /// signal whose loss to the limiter the make-up covers (found by false position over measuring passes),
    /// checked by the same search a conversion at that target makes.
    private func refusal(_ plan: RenderPlan, gain: Double) throws -> LoudnessRefusal {
        let source = outcome.source
        let ceiling = plan.limiterCeiling ?? (target.truePeakCeiling - Self.headroom)
        let free = ceiling - source.truePeak  // the gain at which the limiter starts to work
        var best = source.normalizable + free
        func loss(_ gain: Double) throws -> (Double, Double) {
            let loudness = try modelledLoudness(plan, gain: gain)
            return (source.normalizable + gain - loudness, loudness)
        }
        let most = free + allowedDepth
        let (lossAtMost, loudnessAtMost) = try loss(most)
        if lossAtMost <= makeupLimit {
            best = max(best, loudnessAtMost)
        } else {
            // The loss grows from 0 where the limiter starts to past the make-up at the most: the gain where it
            // equals the make-up, by false position (Illinois), a few passes.
            var low = (gain: free, excess: -makeupLimit)
            var high = (gain: most, excess: lossAtMost - makeupLimit)
            var side = 0
            for _ in 0..<5 {
                var middle = low.gain - low.excess * (high.gain - low.gain) / (high.excess - low.excess)
                if !(middle > low.gain && middle < high.gain) { middle = (low.gain + high.gain) / 2 }
                let (lost, loudness) = try loss(middle)
                let excess = lost - makeupLimit
                if excess <= 0 {
                    best = max(best, loudness)
                    low = (middle, excess)
                    if side == -1 { high.excess /= 2 }
                    side = -1
                    if excess > -0.02 { break }
                } else {
                    high = (middle, excess)
                    if side == 1 { low.excess /= 2 }
                    side = 1
                }
            }
        }
        // In the target's terms (the encoder's offset, what the aim moved by, taken back), rounded down to
        // 0.1 LU, and lowered until the conversion's own search meets it.
        let offset = aim - target.integrated
        var suggestion = suggested(best - offset)
        for _ in 0..<5 {
            guard try solve(plan, aim: suggestion + offset) == nil else { break }
            suggestion -= 0.1
        }
        let asked = depth(plan, gain: gain)
        let limiting = shortDecimal((asked * 100).rounded() / 100)
        // (Where an encode lowered the limiter's ceiling, the encoder's overshoot is part of the limiting asked.)
        let overshoot = target.truePeakCeiling - Self.headroom - ceiling
        let overPeaks =
            overshoot >= 0.005
            ? " over its encoder's peaks, which overshoot by \(shortDecimal((overshoot * 100).rounded() / 100)) dB" : ""
        // Where the limiting bound stops the gain short of the make-up's, and the make-up's gain would meet the aim,
        // it is the limiting that refuses the target (raising --max-limiting would do), not the make-up.
        let (needed, highest) = bounds(plan, aim: aim)
        let limitingStops =
            try asked <= target.maximumLimiting && highest < needed + makeupLimit
            && modelledLoudness(plan, gain: needed + makeupLimit) >= aim - Self.close
        let reason: String
        if asked > target.maximumLimiting {
            reason =
                "it takes \(signed((gain * 100).rounded() / 100)) dB of gain and \(limiting) dB of limiting to hold the "
                + "\(shortDecimal(target.truePeakCeiling)) dBTP ceiling\(overPeaks), more than --max-limiting's "
                + "\(shortDecimal(target.maximumLimiting)) dB"
        } else if limitingStops {
            reason =
                "holding the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling\(overPeaks), the limiter takes loudness "
                + "that more gain would make up only with more than --max-limiting's "
                + "\(shortDecimal(target.maximumLimiting)) dB of limiting"
        } else {
            reason =
                "the limiter holding the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling takes more loudness than "
                + "afkit makes up after it: at most \(shortDecimal(makeupLimit)) dB of make-up gain"
                + (target.dynamic == true ? " with the leveler" : "")
                + ", a bound of its own beside --max-limiting's \(shortDecimal(target.maximumLimiting)) dB of limiting "
                + (target.dynamic == true
                    ? "(more would squash the speech)" : "(more would raise the quiet parts past what the target asks)")
        }
        // Only advice that can be taken: a ceiling below 0 dBTP to raise, a limit below the most, a codec with
        // a bit rate to raise, a lossy codec to leave.
        var remedies: [String] = []
        if target.truePeakCeiling < 0 { remedies.append("raise --true-peak") }
        if target.dynamic != true && asked <= target.maximumLimiting {
            remedies.append("for speech, level it (--dynamic)")
        }
        if (asked > target.maximumLimiting || limitingStops) && target.maximumLimiting < 40 {
            remedies.append("raise --max-limiting")
        }
        if isLossy {
            let takesBitRate = CodecDescriptor.of(format.formatID)?.options.contains(.bitRate) ?? false
            remedies.append(takesBitRate ? "choose a higher bit rate or PCM" : "choose PCM")
        }
        return LoudnessRefusal(
            problem:
                "'\(input)': \(shortDecimal(target.integrated)) LUFS cannot be met without squashing the sound: \(reason)",
            suggestion: suggestion, remedies: remedies, isLossy: isLossy, allowance: allowance(plan), prelude: prelude)
    }

    /// What the encodes so far learned, for a confirming conversion to start from: the ceiling the encoder's
    /// overshoot asked and the aim's shift; `nil` before an encode (or for a lossless output).
    private func allowance(_ plan: RenderPlan) -> EncoderAllowance? {
        guard isLossy, rounds > 0 else { return nil }
        return EncoderAllowance(
            ceiling: plan.limiterCeiling ?? target.truePeakCeiling - Self.headroom, aimShift: aim - target.integrated)
    }

    /// Measures the output written at `path`: `true` when it meets the target; otherwise corrects the gain and
    /// the ceiling for another round, or throws when the rounds are spent.
    func accepts(outputAt path: String) throws -> Bool {
        var plan = render
        defer { render = plan }
        outcome.limiterReduction = plan.limiterCeiling == nil ? 0 : limiterReduction
        let output = try LoudnessMeasurement.measure(path: path)
        outcome.output = output
        outcome.gain = plan.gain
        rounds += 1
        let miss = target.integrated - output.normalizable
        let over = output.truePeak - target.truePeakCeiling
        // (A lossy output within the contract's 0.1 LU is kept: another encode costs more than it would gain.)
        if over <= 0 && abs(miss) <= (rounds < 3 && !isLossy ? Self.tolerance : 0.1) { return true }
        guard rounds < maximumRounds, output.normalizable.isFinite else {
            // An encoder that will not settle: a quieter target is looked for (and tried) by the converter.
            throw LoudnessRefusal(
                problem:
                    "'\(input)': the output measures \(shortDecimal(output.normalizable)) LUFS and "
                    + "\(shortDecimal(output.truePeak)) dBTP after \(rounds) rounds; the aim was \(target.description)",
                suggestion: suggested(min(target.integrated, output.normalizable) - Self.encoderMargin),
                remedies: isLossy ? ["choose PCM"] : [], isLossy: isLossy, allowance: allowance(plan), prelude: prelude)
        }
        try correct(&plan, by: output, limit: target.truePeakCeiling)
        // Where the signal this encode was given was kept, the next round's level is tried on the prediction of the
        // encode's error first, and aimed again until the prediction meets the target with a margin: the next
        // encode is then the one likeliest to be kept (each try a measuring pass, not an encode).
        if let given = givenSignal {
            let prediction = EncodingPrediction(signal: given, encoded: path)
            ceilings.leastSlope = 0.5
            for _ in 0..<Self.maximumPredictions {
                guard let predicted = try predict(plan, by: prediction) else { break }
                let limit = target.truePeakCeiling - Self.predictedPeak
                if abs(predicted.normalizable - target.integrated) <= Self.predictedLoudness
                    && predicted.truePeak <= limit
                {
                    break
                }
                let (tried, triedAim) = (plan, aim)
                do {
                    try correct(&plan, by: predicted, limit: limit, naming: false)
                } catch is Unreachable {
                    // More limiting than allowed by the margin's word: where the prediction is over the ceiling
                    // itself, aimed at the ceiling (a smaller step, which may be allowed: an encode the prediction
                    // says misses is not made); else, or that too out of reach, the encode decides.
                    (plan, aim) = (tried, triedAim)
                    guard predicted.truePeak > target.truePeakCeiling else { break }
                    do {
                        try correct(&plan, by: predicted, limit: target.truePeakCeiling, naming: false)
                    } catch is Unreachable {
                        (plan, aim) = (tried, triedAim)
                        break
                    }
                }
                if abs(plan.gain - tried.gain) < 0.01 && plan.limiterCeiling == tried.limiterCeiling { break }
            }
        }
        return false
    }

    /// How far inside the contract's bounds a prediction must land for its level to be encoded (here and for `hls
    /// --loudness`'s renditions): within this of the target, LU, and this under the ceiling, dB (AAC's predicted
    /// true peak came within 0.3 dB of the encode's).
    static let predictedLoudness = 0.07
    static let predictedPeak = 0.2
    /// The most levels one round (a rendition's attempt) tries on the prediction before encoding.
    static let maximumPredictions = 4

    /// Where the converter keeps the float signal each round of a lossy output gives its encoder (`nil`: not kept),
    /// for the prediction of the next.
    var givenSignal: String?

    /// Whether the next round is better tried on a ``TrialEncode`` than encoded whole: a long lossy output's first
    /// round, with nothing learned of the encoder before it, whose signal reaches within ``trialWindow`` of the
    /// ceiling. Such an encode is all but never kept (AAC overshoots a limited signal's ceiling by 0.5 to 2.5 dB),
    /// and what it teaches, a trial teaches in a part of its time; a level the trial shows meets is encoded whole.
    var triesEncode: Bool {
        isLossy && rounds == 0
            && Self.triesEncode(
                isShort: isShort, learned: learnedBefore,
                peak: min(outcome.source.truePeak + render.gain, render.limiterCeiling ?? .infinity),
                ceiling: target.truePeakCeiling)
    }
    /// The rule for a first lossy encode (a convert's, an HLS rendition's): tried first where the sound is not short,
    /// nothing was `learned` of the encoder before, and the signal's true `peak` is within ``trialWindow`` of the
    /// `ceiling`.
    static func triesEncode(isShort: Bool, learned: Bool, peak: Double, ceiling: Double) -> Bool {
        !isShort && !learned && peak > ceiling - trialWindow
    }
    /// How near the ceiling a first round's signal peaks for it to be tried first, dB: past a low bit rate's
    /// overshoot (AAC at 64 kbit/s on speech: 2.4 dB).
    static let trialWindow = 3.0
    /// Whether an earlier conversion's encodes aimed this one (``EncoderAllowance``): its first encode is likely kept.
    private let learnedBefore: Bool

    /// Whether the converter should keep the signal each round gives its encoder: a lossy output's.
    var predictsEncodes: Bool { isLossy }

    /// The plan's signal plus the encode's error, measured: what an encode of it is likely to decode to.
    private func predict(_ plan: RenderPlan, by prediction: EncodingPrediction) throws -> LoudnessMeasurement? {
        guard
            let measuring = try prediction.measuring(
                channels: Int(format.channelsPerFrame), sampleRate: format.sampleRate)
        else { return nil }
        try Self.pass(
            plan, source: open(), format: format, resampler: resampler, progress: progress, into: measuring.add)
        return try measuring.measurement()
    }

    /// Aims the plan again by what an output (or a prediction of one) measured: the ceiling lowered by its true
    /// peak over `limit`, the aim moved by its miss, the gain set for both (a level out of reach named as
    /// ``settle(_:naming:)`` says).
    private func correct(
        _ plan: inout RenderPlan, by output: LoudnessMeasurement, limit: Double, naming: Bool = true
    ) throws {
        let miss = target.integrated - output.normalizable
        if output.truePeak > limit {
            // The encoder overshoots what it was given: limit that much lower.
            guard target.usesLimiter else {
                throw AudioFileError.limitExceeded(
                    "'\(input)': encoded at \(shortDecimal(target.integrated)) LUFS, its true peak is "
                        + "\(signed(output.truePeak)) dBTP, over the \(shortDecimal(target.truePeakCeiling)) dBTP ceiling: "
                        + "allow the limiter (drop --no-limiter)", offset: nil)
            }
            // The limiter is set under the float signal's own peak, which may already sit below the ceiling (a
            // quiet target the encoder's overshoot alone puts over it), by the secant of the encodes' peaks.
            let floatPeak = min(outcome.source.truePeak + plan.gain, plan.limiterCeiling ?? .infinity)
            let given = min(floatPeak, plan.limiterCeiling ?? target.truePeakCeiling - Self.headroom)
            plan.limiterCeiling = ceilings.next(after: given, decoded: output.truePeak, limit: limit)
        }
        // What the encoder added or took moves the float signal's aim, within the encoder's own offset (a
        // limiter that takes more each round must not be made up round after round: the tail would follow).
        aim = target.integrated + min(Self.encoderAimLimit, max(-Self.encoderAimLimit, aim + miss - target.integrated))
        if plan.limiterCeiling == nil {
            plan.gain += miss
        } else {
            try settle(&plan, naming: naming)
        }
    }
}

/// What sets a conversion's level and checks each output written against its aim (loudness or peak): the
/// converter writes a round at ``gain`` under ``limiterCeiling`` until ``accepts(outputAt:)`` takes the output.
protocol LevelNormalizer: AnyObject {
    /// The gain the next round is written with, dB.
    var gain: Double { get }
    /// The limiter's ceiling the next round is written with, dBTP (`nil`: no limiter).
    var limiterCeiling: Double? { get }
    /// The speech leveler's gain curve, riding before the gain (`nil`: none).
    var levelCurve: GainCurve? { get }
    /// The deepest reduction of the limiter in the round just written.
    var limiterReduction: Double { get set }
    /// What was measured and done.
    var outcome: NormalizationOutcome { get }
    /// Measures the output written at `path`: `true` when it is taken; otherwise the level is corrected for
    /// another round.
    func accepts(outputAt path: String) throws -> Bool
}

/// Brings a conversion's highest peak (sample or true) to a level by one linear gain, as SoX's `gain -n` does:
/// the peak is measured once through the pipeline (at the output's rate and channels, after any cut and fade),
/// and the gain is the level less that peak. A PCM or lossless output carries the gain as computed (its peak is the
/// level within the output's rounding). A lossy output (IMA4 and IMA ADPCM included: their quantization moves the
/// peak too) is decoded and measured: its first encode is taken within ``tolerance`` of the level, and otherwise
/// the gain is aimed again until the decoded peak is within ``contract`` of it, at most ``maximumRounds`` encodes
/// (``nextGain(after:sourcePeak:level:)`` says how each next gain is chosen). Where none is (an ADPCM encoder's peak
/// can jump past the level: IMA4 on a click put it at -1.78 or -0.72 dBTP, nothing between), the nearest under the
/// level is written again and kept, the note saying so; where every encode was over it, the level is refused,
/// naming the peaks measured.
final class PeakNormalizer: LevelNormalizer {
    let target: PeakTarget
    private(set) var outcome: NormalizationOutcome
    private(set) var gain: Double
    var limiterCeiling: Double? { nil }
    var levelCurve: GainCurve? { nil }
    var limiterReduction = 0.0
    private let isLossy: Bool
    private let input: String
    private let format: StreamDescription
    /// The peak through the pipeline before any gain, dB.
    private let sourcePeak: Double
    /// Each encode's gain and its decoded peak, dB.
    private var tries: [(gain: Double, peak: Double)] = []
    /// Whether the round being written is the nearest under the level, written again to be kept.
    private var keepsNearest = false
    /// A lossy output's first decoded peak within this of the level (dB) is taken at once.
    static let tolerance = 0.05
    /// How near the level a lossy output's decoded peak is brought (dB): the contract's 0.1 dB.
    static let contract = 0.1
    /// The most encodes of a lossy output before the level is refused.
    static let maximumRounds = 12

    init(
        target: PeakTarget, input: String, format: StreamDescription, resampler: ResamplerChoice,
        render: RenderPlan, open: () throws -> SourceReader
    ) throws {
        self.target = target
        self.input = input
        self.format = format
        isLossy = losesInEncoding(format)
        let source = try LoudnessNormalizer.measure(
            render.unleveled, source: open(), format: format, resampler: resampler, progress: nil)
        let peak = target.peak(of: source)
        guard peak.isFinite else {
            throw AudioFileError.limitExceeded(
                "'\(input)' is silent throughout (every sample 0): no gain brings its peak to "
                    + "\(shortDecimal(target.level)) \(target.unit)", offset: nil)
        }
        sourcePeak = peak
        gain = target.level - peak
        outcome = NormalizationOutcome(
            source: source, gain: gain, limiterReduction: 0, output: source, peakTarget: target)
    }

    func accepts(outputAt path: String) throws -> Bool {
        outcome.gain = gain
        outcome.output = try LoudnessMeasurement.measure(path: path)
        let peak = target.peak(of: outcome.output)
        guard isLossy, peak.isFinite, !keepsNearest else { return true }
        if abs(target.level - peak) <= (tries.isEmpty ? Self.tolerance : Self.contract) { return true }
        tries.append((gain, peak))
        guard tries.count >= Self.maximumRounds else {
            gain = Self.nextGain(after: tries, sourcePeak: sourcePeak, level: target.level)
            return false
        }
        // No gain put the peak within the contract's tenth: the encoder's peak jumps past the level. The nearest
        // under it is written again (the encoder is deterministic) and said; with none under, the level is refused.
        let name = "the \(CodecDescriptor.spokenName(of: format.formatID)) encoder"
        let peaks = tries.map(\.peak).sorted()
        let under = tries.filter { $0.peak < target.level }.max { $0.peak < $1.peak }
        let over = tries.filter { $0.peak > target.level }.min { $0.peak < $1.peak }
        guard let under else {
            throw AudioFileError.limitExceeded(
                "'\(input)': \(name)'s decoded \(target.measure == .sample ? "sample" : "true") peak did not come "
                    + "within \(shortDecimal(Self.contract)) dB of \(shortDecimal(target.level)) \(target.unit) in "
                    + "\(tries.count) encodes, each over it (\(peaks.map { fixedPoint($0, places: 2) }.joined(separator: ", ")) "
                    + "\(target.unit)): choose PCM, or a lower level", offset: nil)
        }
        outcome.peakShortfall =
            "\(name) reaches no peak within \(shortDecimal(Self.contract)) dB of \(shortDecimal(target.level)) "
            + "\(target.unit): in \(tries.count) encodes its peak jumped from \(fixedPoint(under.peak, places: 2))"
            + (over.map { " to \(fixedPoint($0.peak, places: 2))" } ?? "") + " \(target.unit); the nearest under "
            + "the level is kept (PCM meets it exactly)"
        keepsNearest = true
        gain = under.gain
        return false
    }

    /// The gain of the next encode after `tries` (each encode's gain and decoded peak) of a sound whose peak before
    /// any gain is `sourcePeak`: the gain that lands on `level` if the encoder moves the peak as it did last
    /// (its offset: the decoded peak less the gained one), else as it did in an earlier encode, each tried as it is
    /// and then a little either side. An AAC encoder's offset moves smoothly with the gain, so the first re-aim
    /// lands; an ADPCM encoder's moves in jumps (a click's attack quantized one way or another: 1.2 dB apart), so a
    /// gain whose offset is one already seen is looked for near each.
    static func nextGain(after tries: [(gain: Double, peak: Double)], sourcePeak: Double, level: Double) -> Double {
        guard let last = tries.last else { return level - sourcePeak }
        let offsets = tries.reversed().map { $0.peak - (sourcePeak + $0.gain) }
        for nudge in [0, 0.05, -0.05, 0.025, -0.025, 0.075, -0.075] {
            for offset in offsets {
                let gain = level - sourcePeak - offset + nudge
                if !tries.contains(where: { abs($0.gain - gain) < 0.01 }) { return gain }
            }
        }
        return last.gain + level - last.peak
    }
}

/// A loudness target refused, with the loudest target that can be met: for a lossy output the converter
/// converts at the suggestion before it names it (an encoder's overshoot is learned only by encoding), and
/// lowers it until a conversion there succeeds.
struct LoudnessRefusal: Error {
    /// What cannot be done, and why.
    var problem: String
    /// The loudest target found, LUFS; `nil` where none could be confirmed.
    var suggestion: Double?
    /// The other ways out ("raise --true-peak", "choose PCM").
    var remedies: [String]
    /// Whether the output's codec loses: its suggestion must be tried before it is named.
    var isLossy: Bool
    /// What the encodes learned, for the conversion that tries the suggestion.
    var allowance: EncoderAllowance?
    /// What the normalizer measured before it aimed (the same at any target), for the conversions that try the
    /// suggestion: they skip the leveler's pass and the source's measure.
    var prelude: NormalizationPrelude?

    /// The refusal as the command says it.
    var error: AudioFileError {
        var text = problem + "."
        if let suggestion {
            text +=
                " The loudest target that can is \(shortDecimal(suggestion)) LUFS"
                + (isLossy ? " (a conversion there was made and met it)" : "") + ": aim there or lower"
                + (remedies.isEmpty ? "" : ", or " + remedies.joined(separator: ", or "))
        } else if !remedies.isEmpty {
            text += " No quieter target met it in a few tries: " + remedies.joined(separator: ", or ")
        }
        return AudioFileError.limitExceeded(text, offset: nil)
    }
}

/// What a loudness normalizer measures of its source before it aims, the same at any target: the speech leveler's
/// curve (`--dynamic`) and the signal it makes, measured. `hls --loudness` makes a rendition's signal at another aim
/// from the first one's (each is two passes over the whole source).
struct NormalizationPrelude: Sendable {
    /// Whether it was measured for the speech leveler.
    var isLeveled: Bool
    var levelCurve: GainCurve?
    var leveling: SpeechLeveling?
    /// The signal before the normalizer's gain and limiter (after the leveler).
    var source: LoudnessMeasurement
    /// Its loudness under a gain and the limiter, modelled (`nil`: measured by passes).
    var model: LimitedLoudnessModel?
}

/// What a lossy output's encodes taught a normalizer: the limiter's ceiling its overshoot asked (dBTP) and how far
/// the float signal's aim moved from the target for the loudness it adds or takes (LU).
struct EncoderAllowance: Sendable, Hashable {
    var ceiling: Double
    var aimShift: Double
}

/// The limiter's ceiling for an encoder whose decoded true peak overshoots: the overshoot grows as the limiter
/// works harder, so each next ceiling moves by the secant through the encodes so far (how far the decoded peak
/// moved for the ceiling's move; before there are two, as if 0.7 dB a dB), aiming a quarter dB under the limit.
struct OvershootCeiling {
    /// Each encode's ceiling and the true peak it decoded to, dBTP.
    private(set) var tries: [(ceiling: Double, decoded: Double)] = []
    /// The ceiling the last ``next(after:decoded:limit:)`` would have given for an aim at the limit itself (no
    /// quarter dB under it): the highest that the encodes so far say may meet it.
    private(set) var atLimit: Double?

    /// The least slope (decoded dB per dB of ceiling) a step is taken with: an encoder's peak that hardly moved
    /// between two ceilings (its overshoot at a spot the limiter did not reach) would otherwise ask a step of
    /// many dB.
    var leastSlope = 0.3

    /// The ceiling for the next encode, after one at `ceiling` decoded to `decoded` dBTP over `limit`.
    mutating func next(after ceiling: Double, decoded: Double, limit: Double) -> Double {
        tries.append((ceiling, decoded))
        var slope = max(0.7, leastSlope)
        if tries.count >= 2 {
            let (a, b) = (tries[tries.count - 2], tries[tries.count - 1])
            if b.ceiling != a.ceiling {
                slope = max(leastSlope, min(1, (b.decoded - a.decoded) / (b.ceiling - a.ceiling)))
            }
        }
        atLimit = ceiling + (limit - decoded) / slope
        return ceiling + (limit - 0.25 - decoded) / slope
    }
}

/// Whether an output of `format` is lossy (not PCM, FLAC or Apple Lossless): its encoder's overshoot and offset
/// move with the signal, so a normalizer measures it as decoded and may aim again.
func losesInEncoding(_ format: StreamDescription) -> Bool {
    format.formatID != .lpcm && !CodecDescriptor.isLossless(format.formatID)
}

/// `+9.3`, `-2`: a gain with its sign.
func signed(_ value: Double) -> String { value > 0 ? "+" + shortDecimal(value) : shortDecimal(value) }
