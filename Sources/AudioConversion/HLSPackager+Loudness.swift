import AudioContainers
import AudioEngines
import AudioFormats
import FileAccess

/// `hls --loudness`: the source normalized once for each layout and rate the renditions take (a float CAF in the
/// package's temporary folder: the normalizer's measuring passes and one render, no encoder in the loop), every
/// rendition encoded from that signal and checked as decoded. A rendition whose encoder adds true peak or moves
/// the loudness past the contract's bounds (0.1 LU, the ceiling) gets a signal of its own, aimed by what its
/// first encode measured (the ceiling lowered by the overshoot, the aim moved by the offset), and one confirming
/// encode; still missing, it is refused, naming what was measured. So a package costs the plain package's encodes,
/// the normalizer's passes over the source, and at most one more encode a rendition.
final class HLSLoudnessPass {
    /// The target asked for.
    let target: LoudnessTarget
    private let source: String
    private let folder: String
    /// The normalized signals made so far, by what they were made with.
    private var signals: [String: (path: String, measured: LoudnessMeasurement, chapters: [Chapter])] = [:]
    /// What each layout's first normalization measured before it aimed, for its signals at other aims.
    private var preludes: [String: NormalizationPrelude] = [:]
    /// The notes of the normalizations, said once for the package.
    private(set) var notes: [String] = []
    /// The signals made, for their names.
    private var temporaryCount = 0

    /// A pass for `source`, its signals kept in `folder` (the package's temporary folder) until ``removeSignals()``.
    init(target: LoudnessTarget, source: String, folder: String) {
        self.target = target
        self.source = source
        self.folder = folder
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
        signal.sayProgress(as: "normalizing")
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

    /// The normalized signal for `conversion` aimed at `aim`: at the target, made once and kept for every rendition
    /// of that layout; aimed for one rendition's encoder, made each time and removed by the caller once encoded
    /// (`temporary`: a float copy of the whole programme each).
    private func signal(for conversion: ConversionSettings, aim: LoudnessTarget) throws -> (
        path: String, measured: LoudnessMeasurement, chapters: [Chapter], temporary: Bool
    ) {
        var made = Self.signalConversion(of: conversion, target: aim)
        let layout =
            "\(made.channels ?? -1) \(made.maximumChannels ?? -1) \(made.sampleRate ?? -1) \(made.mixMatrix ?? []) "
            + "\(made.channelMap ?? [])"
        let key = layout + " \(aim.integrated) \(aim.truePeakCeiling)"
        if let signal = signals[key] { return (signal.path, signal.measured, signal.chapters, false) }
        made.normalizationPrelude = preludes[layout]
        let shared = aim == target
        temporaryCount += 1
        let path = folder + "/.afkit-loudness-\(temporaryCount).caf"
        // (A PCM output: a refusal's suggestion needs no encode to confirm it, and comes back as it is.)
        let result = try AudioConverter.convertOnce(
            input: source, output: path, destination: try ConversionPlan.Destination(output: path, settings: made),
            settings: made)
        let measured = try result.normalization?.output ?? LoudnessMeasurement.measure(path: path)
        if preludes[layout] == nil { preludes[layout] = result.normalizationPrelude }
        if shared {
            signals[key] = (path, measured, result.chapters)
            // (What the float file could not hold, a cover, is the packager's to say of the package.)
            if notes.isEmpty { notes = result.notes.filter { !$0.contains("is not carried") } }
        }
        return (path, measured, result.chapters, !shared)
    }

    /// The most encodes one rendition takes: the first, from the shared signal, and two aimed by what the
    /// encodes before measured.
    static let maximumEncodes = 3
    /// How far under the loudest target its signal allows a refused rendition's named target is, LU: a run there
    /// learns its own overshoot from its own first encode, and a quieter signal, limited less, may overshoot more
    /// (AAC at 64 kbit/s on a spoken episode: 3.3 dB at -16 LUFS, 3.6 dB at -18.4).
    static let suggestionMargin = 0.5

    /// Encodes a rendition (`conversion`, the packager's for it) into `output` from the normalized signal and checks
    /// it as decoded; where it misses, a signal of its own is aimed by what the encode measured (the aim moved by
    /// the miss, the ceiling lowered by the overshoot) and encoded again, at most ``maximumEncodes`` in all. Returns
    /// the conversion's result, the rendition's loudness as decoded, and a note where it was re-aimed. A target the
    /// rendition cannot meet is refused naming a quieter one that it met, encoded there.
    func encode(_ conversion: ConversionSettings, into output: String, name: String) throws -> (
        ConversionResult, LoudnessMeasurement, [String]
    ) {
        switch try attempt(conversion, into: output, at: target, encodes: Self.maximumEncodes) {
        case .met(let result, let measured, let encodes):
            let note = encodes > 1 ? ["\(name): re-aimed for its encoder and encoded \(encodes) times"] : []
            return (result, measured, note)
        case .refused(let refusal, let effect, let suggestion):
            // The suggestion, a margin under it, confirmed by one encode of a signal aimed by what the encodes
            // learned (the ceiling the encoder's overshoot asked, the aim's shift for its offset): a refusal costs
            // about what a result would. Refused before any encode (the signal itself cannot be made), nothing
            // was learned: the suggestion, then 0.3 LU under it, is tried as a run there tries it, from its shared
            // signal (the encoder deterministic, so the target named is one the next run meets).
            var named = ""
            if let suggestion {
                let learned = effect != nil
                let first = ((suggestion.target - (learned ? Self.suggestionMargin : 0)) * 10).rounded(.down) / 10
                candidates: for candidate in learned ? [first] : [first, first - 0.3] {
                    var asked = target
                    asked.integrated = candidate
                    // Learned: the signal aimed where the encodes said, shifted as the suggestion was.
                    var aim = suggestion.aim
                    aim.integrated = candidate - (suggestion.target - suggestion.aim.integrated)
                    switch try attempt(
                        conversion, into: output, at: asked, from: learned ? aim : nil,
                        encodes: learned ? 1 : Self.maximumEncodes)
                    {
                    case .met:
                        named =
                            " The loudest target that can is \(shortDecimal(candidate)) LUFS (the rendition was "
                            + "encoded there and met it): aim there or lower"
                            + (conversion.bitRate != nil ? ", or choose a higher bit rate" : "")
                        break candidates
                    case .refused(let missed, _, _):
                        named =
                            " At \(shortDecimal(candidate)) LUFS, tried, \(missed): choose a higher bit rate or a "
                            + "quieter target"
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
        /// The rendition met it, after this many encodes.
        case met(ConversionResult, LoudnessMeasurement, encodes: Int)
        /// It did not: why, what the last encode did to its signal, and the loudest target the signal allows (in
        /// the target's terms) with the aim its signal was refused at, where known.
        case refused(String, EncoderEffect?, suggestion: (target: Double, aim: LoudnessTarget)?)
    }

    /// Encodes the rendition at `asked`, its signal aimed at `start` first (`nil`: at `asked`, the shared signal
    /// where that is the target), re-aiming it by each encode's miss, `encodes` times at most.
    private func attempt(
        _ conversion: ConversionSettings, into output: String, at asked: LoudnessTarget,
        from start: LoudnessTarget? = nil,
        encodes: Int
    ) throws -> Attempt {
        let encoding = Self.encodingConversion(of: conversion)
        var aim = start ?? asked
        var atLimit: Double?
        var effect: EncoderEffect?
        var last: LoudnessMeasurement?
        var ceilings = OvershootCeiling()
        var encoded = 0
        while encoded < encodes {
            var made: (path: String, measured: LoudnessMeasurement, chapters: [Chapter], temporary: Bool)?
            do {
                made = try self.signal(for: conversion, aim: aim)
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
                    made = try? self.signal(for: conversion, aim: exact)
                    if made != nil { aim = exact }
                }
                if made == nil {
                    let shift = asked.integrated - aim.integrated
                    return .refused(
                        effect == nil ? refusal.problem : "making that up would take more limiting than allowed",
                        effect,
                        suggestion: refusal.suggestion.map { suggested in
                            var at = aim
                            at.integrated = suggested
                            return (suggested + shift, at)
                        })
                }
            }
            guard let signal = made else { break }
            defer { if signal.temporary { removeFile(signal.path) } }
            // The source's chapters, as the signal placed them (its CAF holds none), where no chapter file is given.
            var encoding = encoding
            if encoding.chapters == nil, !signal.chapters.isEmpty {
                encoding.chapters = ChapterList(name: source, chapters: signal.chapters)
            }
            let result = try AudioConverter.convert(input: signal.path, output: output, settings: encoding)
            encoded += 1
            let measured = try LoudnessMeasurement.measure(path: output)
            if abs(measured.normalizable - asked.integrated) <= 0.1 && measured.truePeak <= asked.truePeakCeiling {
                return .met(result, measured, encodes: encoded)
            }
            last = measured
            effect = EncoderEffect(
                offset: measured.normalizable - signal.measured.normalizable,
                overshoot: max(0, measured.truePeak - signal.measured.truePeak), bitRate: conversion.bitRate)
            // The next signal: the aim moved by the miss (at most a unit from the target in all), the ceiling
            // lowered by what the encode went over it.
            aim.integrated = max(
                asked.integrated - 1,
                min(asked.integrated + 1, aim.integrated + asked.integrated - measured.normalizable))
            atLimit = nil
            if measured.truePeak > asked.truePeakCeiling {
                aim.truePeakCeiling = ceilings.next(
                    after: min(aim.truePeakCeiling, signal.measured.truePeak), decoded: measured.truePeak,
                    limit: asked.truePeakCeiling)
                atLimit = ceilings.atLimit
            }
        }
        let measured = last.map {
            "after \(encoded) encode\(encoded == 1 ? "" : "s") it measures \(shortDecimal(($0.normalizable * 100).rounded() / 100)) LUFS and "
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
