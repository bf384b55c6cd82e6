import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

/// `hls --loudness`: the source normalized once for each layout and rate the renditions take (a float CAF in the
/// package's temporary folder: the normalizer's measuring passes and one render, no encoder in the loop), every
/// rendition encoded from that signal and checked as decoded. A rendition whose encoder adds true peak or moves
/// the loudness past the contract's bounds (0.1 LU, the ceiling) gets a signal of its own, aimed by what its
/// first encode measured (the ceiling lowered by the overshoot, the aim moved by the offset) and tried first on the
/// prediction of that encode's error (``EncodingPrediction``: a signal made and a pass over three files, no
/// encode), and one confirming encode; still missing, it is refused, naming what was measured. The lowest bit rate
/// is made first, and the renditions after it start from the ceiling it met the target with. So a package costs
/// the plain package's encodes, the normalizer's passes over the source, and for the lowest rendition whose encoder
/// overshoots, a few signals and one more encode (a 20-minute episode at 64 and 128 kbit/s, leveled to -17 LUFS:
/// 1.7x the plain package, where encoding each try made it 4.1x; BENCHMARKS.md, "HLS loudness").
final class HLSLoudnessPass {
    /// The target asked for.
    let target: LoudnessTarget
    private let source: String
    private let folder: String
    /// The normalized signals made so far, by what they were made with.
    private var signals: [String: Signal] = [:]
    /// The aim each layout's lossy renditions met the target from (the first, the lowest bit rate, re-aimed for its
    /// encoder's overshoot): the renditions after it start from its ceiling (``encode(_:into:name:)``).
    private var metFrom: [String: LoudnessTarget] = [:]
    /// What each layout's first normalization measured before it aimed, for its signals at other aims.
    private var preludes: [String: NormalizationPrelude] = [:]
    /// The notes of the normalizations, said once for the package.
    private(set) var notes: [String] = []
    /// The signals made, for their names.
    private var temporaryCount = 0

    /// The most encodes one rendition takes, as many as convert gives a lossy output
    /// (``LoudnessNormalizer/lossyRounds(isShort:)``): the first, from the shared signal, and two aimed by what the
    /// encodes before measured; more for a short sound (its encodes cost little, and a low bit rate moves its
    /// loudness and peak by tenths for hundredths of a dB of gain).
    private let encodes: Int
    /// Whether the source lasts at most ``LoudnessNormalizer/shortSeconds``: a refused rendition's named target is
    /// then confirmed with as many encodes as a result takes, not one.
    private let isShort: Bool

    /// A pass for `source`, lasting `seconds` where known, its signals kept in `folder` (the package's temporary
    /// folder) until ``removeSignals()``.
    init(target: LoudnessTarget, source: String, folder: String, seconds: Double?) {
        self.target = target
        self.source = source
        self.folder = folder
        isShort = LoudnessNormalizer.isShort(seconds: seconds)
        encodes = LoudnessNormalizer.lossyRounds(isShort: isShort)
    }

    /// Removes the normalized signals (before the package's marker lists its files).
    func removeSignals() {
        for signal in signals.values { removeFile(signal.path) }
        signals = [:]
    }

    /// The conversion that makes the normalized signal for `rendition`'s conversion (its edits, channels and rate
    /// applied, normalized to `target`), as 32-bit float CAF.
    private static func signalConversion(of conversion: ConversionSettings, target: LoudnessTarget)
        -> ConversionSettings
    {
        var signal = conversion
        signal.fileType = .caf
        signal.dataFormat = DataFormatSpecifier("LEF32")
        signal.bitRate = nil
        signal.loudness = target
        signal.synchronizesFolder = false
        // Its chapters come back in the result for the renditions, and a chapter file is theirs (on the same clock:
        // the signal holds the edits).
        signal.isIntermediate = true
        signal.chapters = nil
        // Each signal's passes and render say its aim (a refusal or a re-aimed rendition makes several).
        if let report = signal.progress {
            let aim = "a signal at \(shortDecimal((target.integrated * 100).rounded() / 100)) LUFS"
            signal.progress = { progress in
                var progress = progress
                progress.activity = aim + ", " + (progress.activity ?? "normalizing")
                report(progress)
            }
        }
        return signal
    }

    /// The conversion that encodes a rendition from its normalized signal: the rendition's codec and bit rate, and
    /// nothing else done to the samples (the edits, mix, rate and level are in the signal).
    private static func encodingConversion(of conversion: ConversionSettings) -> ConversionSettings {
        var encoding = conversion
        encoding.loudness = nil
        encoding.edits = Edits()
        encoding.silenceThreshold = nil
        encoding.trimToMaximum = false
        encoding.maximumSeconds = nil
        encoding.channels = nil
        encoding.maximumChannels = nil
        encoding.mixMatrix = nil
        encoding.channelMap = nil
        encoding.sampleRate = nil
        encoding.maximumSampleRate = nil
        encoding.synchronizesFolder = false
        return encoding
    }

    /// A normalized signal: its file, its measure as written, and the chapters as the signal placed them.
    private typealias Signal = (path: String, measured: LoudnessMeasurement, chapters: [Chapter])

    /// What sets a signal's samples apart but its aim: the rendition's layout and rate.
    private static func layout(of conversion: ConversionSettings) -> String {
        "\(conversion.channels ?? -1) \(conversion.maximumChannels ?? -1) \(conversion.sampleRate ?? -1) "
            + "\(conversion.mixMatrix ?? []) \(conversion.channelMap ?? [])"
    }

    /// The normalized signal for `conversion` aimed at `aim`, made once and kept (a float copy of the whole
    /// programme each) until ``release(_:)`` or ``removeSignals()``.
    private func signal(for conversion: ConversionSettings, aim: LoudnessTarget) throws -> Signal {
        var made = Self.signalConversion(of: conversion, target: aim)
        let layout = Self.layout(of: conversion)
        let key = layout + " \(aim.integrated) \(aim.truePeakCeiling)"
        if let signal = signals[key] { return signal }
        made.normalizationPrelude = preludes[layout]
        temporaryCount += 1
        let path = folder + "/.afkit-loudness-\(temporaryCount).caf"
        // (A PCM output: a refusal's suggestion needs no encode to confirm it, and comes back as it is.)
        let result = try AudioConverter.convertOnce(
            input: source, output: path, destination: try ConversionPlan.Destination(output: path, settings: made),
            settings: made)
        let measured = try result.normalization?.output ?? LoudnessMeasurement.measure(path: path)
        if preludes[layout] == nil { preludes[layout] = result.normalizationPrelude }
        // (What the float file could not hold, a cover, is the packager's to say of the package.)
        if aim == target, notes.isEmpty { notes = result.notes.filter { !$0.contains("is not carried") } }
        signals[key] = (path, measured, result.chapters)
        return (path, measured, result.chapters)
    }

    /// A refusal's words without the source's name before them (`'episode.wav': -16 LUFS cannot be met`): the
    /// package's message names the source and the rendition first.
    private func unnamed(_ problem: String) -> String {
        problem.hasPrefix("'\(source)': ") ? String(problem.dropFirst(source.count + 4)) : problem
    }

    /// Removes a signal no rendition is to be encoded from again.
    private func release(_ path: String) {
        guard let key = signals.first(where: { $0.value.path == path })?.key else { return }
        removeFile(path)
        signals[key] = nil
    }

    /// How far under the loudest target its signal allows a refused rendition's named target is, LU: a run there
    /// learns its own overshoot from its own first encode, and a quieter signal, limited less, may overshoot more
    /// (AAC at 64 kbit/s on a spoken episode: 3.3 dB at -16 LUFS, 3.6 dB at -18.4).
    static let suggestionMargin = 0.5
    /// The targets a refusal with something learned tries before it names one: the first from what the encodes
    /// learned, one encode; the others afresh.
    static let confirmations = 3

    /// Encodes a rendition (`conversion`, the packager's for it) into `output` from the normalized signal and checks
    /// it as decoded; where it misses, a signal of its own is aimed by what the encode measured (the aim moved by
    /// the miss, the ceiling lowered by the overshoot) and encoded again, at most ``encodes`` in all. Returns
    /// the conversion's result, the rendition's loudness as decoded, and a note where it was re-aimed. A target the
    /// rendition cannot meet is refused naming a quieter one that it met, encoded there.
    func encode(_ conversion: ConversionSettings, into output: String, name: String) throws -> (
        ConversionResult, LoudnessMeasurement, [String]
    ) {
        // A lossy rendition after the first of its layout starts from the ceiling that one met the target with: the
        // lowest bit rate is made first, and the limiting its encoder's overshoot needed is likely to serve the
        // others (and every rendition of the programme then carries about the same).
        let layout = Self.layout(of: conversion)
        // (Its ceiling; its signal itself where that was aimed within 0.05 LU of the target, else one at the target:
        // the aim's shift for the loudness an encoder adds or takes is that encoder's own.)
        let start =
            conversion.bitRate == nil
            ? nil
            : metFrom[layout].map { met in
                var start = met
                if abs(met.integrated - target.integrated) > 0.05 { start.integrated = target.integrated }
                return start
            }
        switch try attempt(conversion, into: output, name: name, at: target, from: start, encodes: encodes) {
        case .met(let result, let measured, let encodes, let tried, let aim):
            if conversion.bitRate != nil { metFrom[layout] = aim }
            let times = encodes == 1 ? "once" : "\(encodes) times"
            let note =
                encodes > 1 || tried
                ? [
                    "\(name): re-aimed for its encoder" + (tried ? " after a trial encode" : "")
                        + " and encoded \(times)"
                ] : []
            return (result, measured, note)
        case .refused(let refusal, let effect, let suggestion):
            // The suggestion, a margin under it, confirmed by one encode of a signal aimed by what the encodes
            // learned (the ceiling the encoder's overshoot asked, the aim's shift for its offset): a refusal costs
            // about what a result would. Where that encode misses (the encoder's peak lands elsewhere on a signal
            // limited differently), a lower target is tried afresh, as a run there would try it: the loudest its
            // own refusal found, a margin under it, or half a unit lower, up to ``confirmations`` tries in all.
            // Refused before any encode (the signal itself cannot be made), nothing was learned: the suggestion
            // is tried as a run there tries it, from its shared signal (the encoder deterministic, so the target
            // named is one the next run meets); where that try's encodes learn what the encoder adds, the next
            // is the loudest its refusal found, a margin under it, as above (a spoken episode whose PCM signal
            // allows -16.4 at a -16 ask, its 64k encoder adding 3.5 dB, once tried -16.4 and -16.7 and named
            // nothing); where they learn nothing, 0.3 LU under it.
            var named = ""
            if let suggestion {
                var learned = effect != nil
                var candidate = ((suggestion.target - (learned ? Self.suggestionMargin : 0)) * 10).rounded(.down) / 10
                // Learned: the signal aimed where the encodes said, shifted as the suggestion was.
                var start: LoudnessTarget? = learned ? suggestion.aim : nil
                start?.integrated = candidate - (suggestion.target - suggestion.aim.integrated)
                var budget = learned && !isShort ? 1 : encodes
                candidates: for tried in 0..<Self.confirmations {
                    var asked = target
                    asked.integrated = candidate
                    switch try attempt(
                        conversion, into: output, name: name, at: asked, from: start, encodes: budget)
                    {
                    case .met:
                        named =
                            " The loudest target that can is \(shortDecimal(candidate)) LUFS (the rendition was "
                            + "encoded there and met it): aim there or lower"
                            + (conversion.bitRate != nil ? ", or choose a higher bit rate" : "")
                        break candidates
                    case .refused(let missed, let tryEffect, let next):
                        named =
                            " At \(shortDecimal(candidate)) LUFS, tried, \(missed)"
                            + (tried > 0 ? " (\(tried + 1) targets tried)" : "")
                            + ": choose a higher bit rate or a quieter target"
                        learned = learned || tryEffect != nil
                        let lower =
                            learned
                            ? next.map { (($0.target - Self.suggestionMargin) * 10).rounded(.down) / 10 }
                                ?? candidate - Self.suggestionMargin : candidate - 0.3
                        candidate = min(candidate - 0.1, lower)
                        (start, budget) = (nil, encodes)
                    }
                }
            }
            let why = effect.map { "\(target.description) cannot be met: \($0.description), and \(refusal)" } ?? refusal
            throw AudioFileError.limitExceeded(
                "\(name): \(why)." + (named.isEmpty ? " Choose a higher bit rate or a quieter target" : named),
                offset: nil)
        }
    }

    /// What an attempt at one target came to.
    private enum Attempt {
        /// The rendition met it, after this many encodes (and a trial first, where `tried`), from a signal at this aim.
        case met(ConversionResult, LoudnessMeasurement, encodes: Int, tried: Bool, aim: LoudnessTarget)
        /// It did not: why, what the last encode did to its signal, and the loudest target the signal allows (in
        /// the target's terms) with the aim its signal was refused at, where known.
        case refused(String, EncoderEffect?, suggestion: (target: Double, aim: LoudnessTarget)?)
    }

    /// Encodes the rendition at `asked`, its signal aimed at `start` first (`nil`: at `asked`, the shared signal
    /// where that is the target), `encodes` times at most. After an encode that misses, the aim is moved by the miss
    /// and the ceiling lowered by the overshoot, and each signal so aimed is first tried on the prediction of the last
    /// encode's error (``EncodingPrediction``), up to ``LoudnessNormalizer/maximumPredictions`` times, so that the next encode is the
    /// one the prediction says meets the target. A first encode all but sure to miss is tried on a ``TrialEncode``
    /// first (counted among the `encodes`); `name`, the rendition's, for the progress.
    private func attempt(
        _ conversion: ConversionSettings, into output: String, name: String, at asked: LoudnessTarget,
        from start: LoudnessTarget? = nil,
        encodes: Int
    ) throws -> Attempt {
        let encoding = Self.encodingConversion(of: conversion)
        var aim = start ?? asked
        var atLimit: Double?
        var effect: EncoderEffect?
        var last: LoudnessMeasurement?
        // (The prediction's tries cost a signal each, not an encode, and the peak an encode's error puts at an
        // unlimited spot stays until the ceiling comes down to it: steps of at most twice the distance.)
        var ceilings = OvershootCeiling(leastSlope: 0.5)
        // The lowest ceiling a signal can be made at (once the first is made): the leveled signal's peak at the
        // aim's gain, less the limiting allowed (half a dB kept for the make-up gain the limiting asks). (convert
        // bounds it the same way: on the third trial's episode, 64k at -17 leveled needs the encoder's 3.85 dB of
        // overshoot limited, and meets the target within --max-limiting, where an allowance of 3 dB past a PCM
        // output's limiting refused it.)
        var lowest: Double? {
            preludes[Self.layout(of: conversion)].map { prelude in
                prelude.source.truePeak + asked.integrated - prelude.source.normalizable - asked.maximumLimiting + 0.5
            }
        }
        var encoded = 0
        var predictions = 0
        // The trial the first encode was tried on (TrialEncode), its decode kept for the prediction.
        var trial: String?
        defer { trial.map(TemporaryFiles.discard) }
        func meets(_ measured: LoudnessMeasurement) -> Bool {
            abs(measured.normalizable - asked.integrated) <= 0.1 && measured.truePeak <= asked.truePeakCeiling
        }
        // The last encode, to predict the next from; the signals this attempt made, released at its end but the
        // one met from.
        var prediction: EncodingPrediction?
        var made: [String] = []
        var kept: String?
        defer { for path in made where path != kept { release(path) } }
        func discard(_ path: String) {
            guard let index = made.firstIndex(of: path) else { return }
            made.remove(at: index)
            release(path)
        }
        // What an encode (or a prediction of one) measured moves the aim: by the miss (at most a unit from the
        // target in all), the ceiling lowered by what it went over `limit` (the ceiling; for a prediction, the
        // margin under it a prediction must meet).
        func reaim(_ measured: LoudnessMeasurement, from signal: Signal, limit: Double) {
            effect = EncoderEffect(
                offset: measured.normalizable - signal.measured.normalizable,
                overshoot: max(0, measured.truePeak - signal.measured.truePeak), bitRate: conversion.bitRate)
            aim.integrated = max(
                asked.integrated - 1,
                min(asked.integrated + 1, aim.integrated + asked.integrated - measured.normalizable))
            atLimit = nil
            if measured.truePeak > limit {
                aim.truePeakCeiling = ceilings.next(
                    after: min(aim.truePeakCeiling, signal.measured.truePeak), decoded: measured.truePeak, limit: limit)
                atLimit = ceilings.atLimit
            }
        }
        while encoded + (trial == nil ? 0 : 1) < encodes {
            var signal: Signal?
            do {
                signal = try self.signal(for: conversion, aim: aim)
            } catch let refusal as LoudnessRefusal {
                // The signal cannot be made at this aim. Aimed a margin under the limit, it is tried at the limit
                // itself, where the last encode's overshoot puts it, if the few tenths of a dB that frees can make
                // up what is missing (the margin would otherwise refuse a target the encode says is met); else
                // refused, naming the loudest target the first aim allows, moved by what the encoder adds.
                if let ceiling = atLimit, ceiling > aim.truePeakCeiling,
                    let loudest = refusal.suggestion, loudest > aim.integrated - (ceiling - aim.truePeakCeiling) - 0.2
                {
                    var exact = aim
                    exact.truePeakCeiling = ceiling
                    signal = try? self.signal(for: conversion, aim: exact)
                    if signal != nil { aim = exact }
                }
                if signal == nil {
                    let shift = asked.integrated - aim.integrated
                    return .refused(
                        effect == nil
                            ? unnamed(refusal.problem) : "making that up would take more limiting than allowed",
                        effect,
                        suggestion: refusal.suggestion.map { suggested in
                            var at = aim
                            at.integrated = suggested
                            return (suggested + shift, at)
                        })
                }
            }
            guard let signal else { break }
            if !made.contains(signal.path) && aim != target { made.append(signal.path) }
            // Tried on the prediction first: where it says this signal misses, it is aimed again without encoding.
            if let prediction, predictions < LoudnessNormalizer.maximumPredictions,
                let predicted = try prediction.measure(signal.path),
                abs(predicted.normalizable - asked.integrated) > LoudnessNormalizer.predictedLoudness
                    || predicted.truePeak > asked.truePeakCeiling - LoudnessNormalizer.predictedPeak
            {
                predictions += 1
                let tried = aim
                reaim(predicted, from: signal, limit: asked.truePeakCeiling - LoudnessNormalizer.predictedPeak)
                // Not below what a signal can be made at; where the ceiling is there already, the encode decides.
                if let lowest, aim.truePeakCeiling < lowest { aim.truePeakCeiling = min(tried.truePeakCeiling, lowest) }
                if abs(aim.truePeakCeiling - tried.truePeakCeiling) >= 0.05
                    || abs(aim.integrated - tried.integrated) >= 0.01
                {
                    if signal.path != prediction.signal { discard(signal.path) }
                    continue
                }
                aim = tried
            }
            // The source's chapters, as the signal placed them (its CAF holds none), where no chapter file is given.
            var encoding = encoding
            if encoding.chapters == nil, !signal.chapters.isEmpty {
                encoding.chapters = ChapterList(name: source, chapters: signal.chapters)
            }
            // A first encode, nothing learned before it, of a long signal reaching near the ceiling is all but never
            // kept: it is tried in parts at once first, and where the trial misses, the signal is aimed again by it.
            if encoded == 0, trial == nil,
                LoudnessNormalizer.triesEncode(
                    isShort: isShort, learned: start != nil, peak: signal.measured.truePeak,
                    ceiling: asked.truePeakCeiling)
            {
                let reader = try SourceReader(path: signal.path)
                let parts = TrialEncode.parts(seconds: Double(reader.frameCount ?? 0) / reader.sampleRate)
                if parts > 1 {
                    let path = try createTemporaryFile(beside: folder + "/afkit-trial")
                    trial = path
                    try TrialEncode(encoding: signal.path, as: output, settings: encoding).decode(
                        signal: signal.path, into: path, parts: parts, progress: encoding.progress,
                        activity: "a trial encode of \(name)")
                    let measured = try LoudnessMeasurement.measure(path: path)
                    if !meets(measured) {
                        last = measured
                        prediction = EncodingPrediction(signal: signal.path, encoded: path)
                        reaim(measured, from: signal, limit: asked.truePeakCeiling)
                        continue
                    }
                }
            }
            // (The second encode on, a trial among them, says its number.)
            let round = encoded + (trial == nil ? 1 : 2)
            if round > 1 { encoding.sayProgress(as: "encoding \(name), round \(round)") }
            let result = try AudioConverter.convert(input: signal.path, output: output, settings: encoding)
            encoded += 1
            if let previous = prediction?.signal, previous != signal.path { discard(previous) }
            let measured = try LoudnessMeasurement.measure(path: output)
            if meets(measured) {
                kept = signal.path
                return .met(result, measured, encodes: encoded, tried: trial != nil, aim: aim)
            }
            last = measured
            prediction = EncodingPrediction(signal: signal.path, encoded: output)
            reaim(measured, from: signal, limit: asked.truePeakCeiling)
        }
        let measured = last.map {
            "after \(trial == nil ? "" : "a trial and ")\(encoded) encode\(encoded == 1 ? "" : "s") it measures \(shortDecimal(($0.normalizable * 100).rounded() / 100)) LUFS and "
                + "\(shortDecimal(($0.truePeak * 100).rounded() / 100)) dBTP"
        }
        return .refused(measured ?? "it was not encoded", effect, suggestion: nil)
    }
}

/// What one encode did to the signal it was given: the loudness it moved and the true peak it added.
struct EncoderEffect {
    /// The encoded loudness minus the signal's, LU.
    var offset: Double
    /// The true peak the encoder added, dB (0 or more).
    var overshoot: Double
    /// The encoder's bit rate, bits per second.
    var bitRate: Int?

    /// `the encoder at 64 kbit/s moves the loudness by -0.17 LU and adds 0.8 dB of true peak`.
    var description: String {
        let rate = bitRate.map { " at \($0 / 1000) kbit/s" } ?? ""
        var parts: [String] = []
        if abs(offset) >= 0.005 { parts.append("moves the loudness by \(signed((offset * 100).rounded() / 100)) LU") }
        if overshoot >= 0.005 {
            parts.append("adds \(shortDecimal((overshoot * 100).rounded() / 100)) dB of true peak")
        }
        return "the encoder\(rate) " + (parts.isEmpty ? "changes nothing measurable" : parts.joined(separator: " and "))
    }
}
