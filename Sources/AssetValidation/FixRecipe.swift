#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioCodecs
import AudioContainers
import AudioFormats
import FileAccess

/// What a finding asks of `afkit convert` to fix it: a data format, a rate, channels, a cut, silence trimmed, a
/// loudness. The validator joins every finding's recipe for a file into one command (``command(for:)``), so that
/// one run, into one output, fixes everything afkit can fix in the file, and every finding names that command.
struct FixRecipe: Sendable, Hashable {
    /// How the output's data format is chosen.
    enum Format: Sendable, Hashable {
        /// The file's own format: `-d 0` where convert keeps it, else the codec by name (`-d aac`), else the
        /// profile's preset.
        case kept
        /// A format by its `-d` name, into a file of `extension` (its own where `nil`).
        case named(String, extension: String?)
        /// The profile's preset (`--preset NAME`), into a file of `extension`.
        case preset(String, extension: String)
    }

    var format = Format.kept
    /// At most this rate, Hz.
    var sampleRate: Double?
    /// At most this many channels.
    var channels: Int?
    /// One channel taken as it is (`-m N`), where mixing the channels down would cancel them (out of phase).
    var channelPick: Int?
    /// The cut to the profile's duration limit: `--trim`, `--trim --profile NAME` or `--duration SECONDS`.
    var cut: String?
    /// `--trim-silence`, with its level where it is not the default.
    var trimsSilence: String?
    /// The loudness asked for, LUFS.
    var loudness: Double?
    /// The file's own loudness, kept while the true peak is limited (where no loudness is asked for).
    var keptLoudness: Double?
    /// The true-peak ceiling, dBTP.
    var truePeak: Double?
    /// Whether a finding asks for the peak brought under the profile's true-peak ceiling (or convert's), with no
    /// ceiling of its own (`clipping`); the validator turns it into a ceiling or a peak level.
    var lowersPeak = false
    /// `--normalize-true-peak LEVEL`: the true peak brought to `LEVEL` dBTP by one gain, where the profile checks
    /// no loudness (nothing to keep a loudness for: a limiter held at the file's own level may not reach it).
    var peakLevel: Double?
    /// `--loop-crossfade LENGTH`: the seams of the file's forward loops mended.
    var loopCrossfade: String?
    /// `--remove-dc`: the file's DC offset taken out (the `dc-offset` rule's fix; and any fix whose gain would
    /// raise an offset near the rule's limit: ``raisesOffset(_:)``).
    var removesDC = false

    /// How close under the `dc-offset` rule's default limit (``ValidationRule/dcOffsetLimit``) a fix's gain may
    /// bring a file's offset before the fix takes the offset out too, dB: a +17.5 dB loudness fix once raised a
    /// -52.6 dBFS offset to -35.1, a finding the file did not have.
    static let offsetMargin = 10.0

    /// The crossfade a `loop-seam` fix asks, seconds: 20 ms, long against one period of anything above 50 Hz, short
    /// against a loop.
    static let loopCrossfadeSeconds = 0.02

    /// How far under the true-peak ceiling a peak fix puts the peak, dB: room for a lossy or ADPCM encoder, whose
    /// decoded peak `convert --normalize-true-peak` brings within 0.1 dB of its level, and for a second generation.
    static let peakMargin = 0.5

    /// Whether the fix moves the sound's loudness: a mix to fewer channels, a preset (which may mix down), a cut
    /// or silence trimmed (what is measured changes).
    var movesLoudness: Bool {
        if case .preset = format { return true }
        return channels != nil || channelPick != nil || cut != nil || trimsSilence != nil
    }

    /// What the fix's output is made as, where it is not the file's own: its rate and channels (a preset's,
    /// `-ar`, `-c`) and the preset that encodes it; `nil` where it keeps the file's rate, channels and format, or
    /// remakes a file from its source (whose own they are not).
    func outputShape(for facts: AssetFacts) -> OutputShape? {
        guard facts.origin == nil, let format = facts.summary?.format, format.sampleRate > 0 else { return nil }
        let (rate, count) = (format.sampleRate, Int(format.channelsPerFrame))
        var shape = OutputShape(sampleRate: rate, channels: count, preset: nil, channelPick: nil)
        if case .preset(let name, _) = self.format {
            let presetRate = PresetSampleRate.of(preset: name)
            shape.sampleRate = presetRate.fixed ?? min(rate, presetRate.maximum ?? rate)
            shape.channels = PresetChannels.of(preset: name).output(from: count)
            shape.preset = name
        }
        if let sampleRate { shape.sampleRate = min(shape.sampleRate, sampleRate) }
        if let channels { shape.channels = channels }
        if let channelPick {
            shape.channels = 1
            shape.channelPick = channelPick
        }
        return shape.sampleRate == rate && shape.channels == count && shape.preset == nil ? nil : shape
    }

    /// Whether the gain this recipe's loudness or peak level asks would bring the file's DC offset within
    /// ``offsetMargin`` of the `dc-offset` rule's default limit.
    func raisesOffset(_ facts: AssetFacts) -> Bool {
        guard let audio = facts.audio, audio.dcOffset > 0, let measured = audio.loudness else { return false }
        var gain = 0.0
        if let level = loudness ?? keptLoudness, measured.normalizable.isFinite {
            gain = level - measured.normalizable
        } else if let peakLevel, measured.truePeak.isFinite {
            gain = peakLevel - measured.truePeak
        }
        return gain > 0 && 20 * log10(audio.dcOffset) + gain > ValidationRule.dcOffsetLimit - Self.offsetMargin
    }

    /// The recipes of one file joined: a preset over a named format over the file's own, the lower rate and
    /// channel count, the loudness asked for over the one kept, the lower ceiling.
    func joined(with other: FixRecipe) -> FixRecipe {
        var result = self
        switch (format, other.format) {
        case (.kept, _), (.named, .preset): result.format = other.format
        default: break
        }
        result.sampleRate = [sampleRate, other.sampleRate].compactMap { $0 }.min()
        result.channels = [channels, other.channels].compactMap { $0 }.min()
        result.channelPick = channelPick ?? other.channelPick
        result.cut = cut ?? other.cut
        result.trimsSilence = trimsSilence ?? other.trimsSilence
        result.loudness = loudness ?? other.loudness
        result.keptLoudness = keptLoudness ?? other.keptLoudness
        result.truePeak = [truePeak, other.truePeak].compactMap { $0 }.min()
        result.lowersPeak = lowersPeak || other.lowersPeak
        result.peakLevel = [peakLevel, other.peakLevel].compactMap { $0 }.min()
        result.loopCrossfade = loopCrossfade ?? other.loopCrossfade
        result.removesDC = removesDC || other.removesDC
        return result
    }

    /// The command that carries out the recipe on the file `facts` describe, with a note where the command is
    /// better run on the file's source (a lossy file decoded again); `nil` where no command can (a format that
    /// cannot be kept, with no preset to fall back on; a file with no audio frames).
    ///
    /// The output goes beside the file, named as it is with the extension of its container where afkit writes
    /// that container with the output's format (else `.caf`, or the preset's), `-fixed` added where that would be
    /// the file itself or another file already there (then `-fixed-2`, ...). A file a conversion made
    /// (``FixOrigin``) is remade from its source instead, with the options that made it and then these, beside it
    /// (never over it: the batch that made it would take its place back, converting again): its format is left
    /// to those options. Where another fix of the same run, or another file of it, takes the same name, the report
    /// moves this one on (``PlannedFix/avoiding(_:)``).
    func command(for facts: AssetFacts) -> PlannedFix? {
        // A file with no audio frames (an init segment) has nothing a conversion could fix: its output would be as
        // empty, and fail `empty` as the file does.
        if facts.origin == nil, facts.summary?.frameCount == 0 { return nil }
        var options: [String] = []
        var suffix: String?
        let (folder, base, own) = pathParts(facts.path)
        var format = self.format
        var encoding: [String] = []
        if case .kept = format, facts.origin == nil {
            guard let kept = Self.keptFormat(facts, atRate: sampleRate != nil) else { return nil }
            format = kept
            if case .named(let name, _) = kept, name != "0" { encoding = Self.keptEncoding(facts) }
        }
        var rate = sampleRate
        switch format {
        case .kept:
            break
        case .named(let name, let ext):
            options.append("-d " + name + (rate.map { "@" + formatSampleRate($0) } ?? ""))
            options += encoding
            rate = nil
            suffix = ext ?? (Self.holds(own, name, facts) ? own : ".caf")
        case .preset(let name, let ext):
            options.append("--preset \(name)")
            // The preset's own rate where it is low enough (the presets' one table of rates, in AudioFormats).
            if let asked = rate, PresetSampleRate.of(preset: name).highest <= asked { rate = nil }
            suffix = ext
        }
        if let rate { options.append("-ar \(formatSampleRate(rate))") }
        if let channelPick {
            options.append("-m \(channelPick)")
        } else if let channels {
            options.append("-c \(channels)")
        }
        if let cut { options.append(cut) }
        // (`--trim-silence` finds its own cut: it cannot go with `--duration`.)
        if let trimsSilence, cut?.hasPrefix("--duration") != true { options.append(trimsSilence) }
        if let loopCrossfade { options.append(loopCrossfade) }
        if removesDC || raisesOffset(facts) { options.append("--remove-dc") }
        if let level = loudness ?? keptLoudness {
            options.append("--loudness \(shortDecimal((level * 10).rounded() / 10))")
            if let truePeak { options.append("--true-peak \(shortDecimal(truePeak))") }
        } else if let peakLevel {
            options.append("--normalize-true-peak \(shortDecimal(peakLevel))")
        }
        if let origin = facts.origin {
            // The options that made the file, then the fix's own (the later option wins); a flag given twice is
            // given once.
            var made = origin.options.map { shellQuoted($0, isPath: false) }
            if let peakLevel, loudness == nil, keptLoudness == nil {
                if made.contains(where: { $0.hasPrefix("--loudness") }) {
                    // Made at a loudness: its limiter holds the peak, at a lower ceiling (--normalize-true-peak and
                    // --loudness each set the gain).
                    options.removeAll { $0.hasPrefix("--normalize-true-peak") }
                    options.append("--true-peak \(shortDecimal(peakLevel))")
                } else {
                    // The peak level sets the gain: the gain or peak level that made the file gives way to it.
                    made.removeAll { option in
                        ["--gain", "--normalize-peak", "--normalize-true-peak"].contains {
                            option.hasPrefix($0 + "=")
                        }
                    }
                }
            }
            let added = options.filter { !made.contains($0) }
            return PlannedFix(
                input: "afkit convert \((made + added).joined(separator: " ")) \(shellQuoted(origin.source))",
                file: facts.path, name: (folder + base, suffix ?? own), note: nil)
        }
        var note: String?
        if let id = facts.summary?.format.formatID, !CodecDescriptor.isLossless(id) {
            note =
                "the file is \(CodecDescriptor.spokenName(of: id)), lossy: run this on its source instead, if you have "
                + "it (made from the file, a lossy output is a second generation of loss)"
        }
        return PlannedFix(
            input: "afkit convert \(options.joined(separator: " ")) \(shellQuoted(facts.path))", file: facts.path,
            name: (folder + base, suffix ?? own), note: note)
    }

    /// The loudness a fix aims at under a profile's `loudness` rule (`target` ± `tolerance`) and true-peak
    /// `ceiling`, or why no fix will do (a silent or damaged file: gain would raise noise, or level a sound that
    /// is not all there). Where gain alone reaches the target under the ceiling (the limiter's headroom kept), the
    /// target; else the loudest level gain alone reaches (less 0.1 LU, rounded down to 0.1), where it is within the tolerance (a margin
    /// inside its edge); else none (only the limiter reaches the band, at a cost known by converting). Measured on
    /// the file as it is: the crest factor (true peak over loudness) a mix or a cut keeps near enough.
    static func loudnessAim(
        _ facts: AssetFacts, target: Double, tolerance: Double, ceiling: Double, reach: LoudnessReach?
    ) -> Result<Double, NoLoudnessFix> {
        guard let loudness = facts.loudness else { return .success(target) }
        let level = loudness.normalizable
        if !level.isFinite || level < LoudnessGate.absolute || facts.audio?.isSilent == true {
            return .failure(
                NoLoudnessFix(
                    "the sound is silent or nearly (\(level.isFinite ? fixedPoint(level, places: 1) : "-inf") LUFS, "
                        + "under BS.1770's \(shortDecimal(LoudnessGate.absolute)) LUFS gate): gain would raise only noise"
                )
            )
        }
        if facts.properties?.isTruncated == true || !(facts.properties?.damage.isEmpty ?? true)
            || (facts.audio?.concealedPackets ?? 0) > 0
        {
            return .failure(
                NoLoudnessFix(
                    "the file is damaged (see truncated or malformed): its loudness is not the whole sound's; level "
                        + "it once it is remade whole"))
        }
        guard let reach else { return .success(target) }
        // The loudest level gain alone reaches under the ceiling (a margin kept for an encoder's overshoot).
        let free = level + ceiling - reach.headroom - loudness.truePeak
        if free >= target { return .success(target) }
        let lowest = lowestAim(target: target, tolerance: tolerance)
        let aim = ((free - 0.1) * 10).rounded(.down) / 10
        // Past the band's edge only the limiter reaches, and how much loudness it takes from a sound whose
        // peaks carry it is known only by converting: no fix is promised.
        guard aim >= lowest else {
            return .failure(
                NoLoudnessFix(
                    "its true peak sits \(fixedPoint(loudness.truePeak - level, places: 1)) dB over its loudness, so "
                        + "gain alone reaches \(fixedPoint(free, places: 1)) LUFS under the \(shortDecimal(ceiling)) dBTP "
                        + "ceiling, short of this profile's \(shortDecimal(lowest)) LUFS: only limiting gets there (convert "
                        + "--loudness \(shortDecimal(lowest)) limits, or names the loudest target it can meet)",
                    limitingMightReach: true))
        }
        return .success(aim)
    }

    /// How far under the true-peak ceiling an aim's gain must leave the peak for a preset's fix to be offered
    /// without converting to learn its encoder's overshoot, dB: more than IMA4 adds on a transient or AAC at 64
    /// kbit/s on speech (3.3 dB, BENCHMARKS.md).
    static let overshootRoom = 4.0

    /// The quietest level a fix aims at under a `loudness` rule: the band's lower edge with a margin inside it
    /// (0.1 LU, or half the tolerance), rounded up to 0.1.
    static func lowestAim(target: Double, tolerance: Double) -> Double {
        ((target - tolerance + min(0.1, tolerance / 2)) * 10).rounded(.up) / 10
    }

    /// The file's own format as `convert` keeps it: `-d 0` where it writes the format again (linear PCM, IMA4,
    /// IMA ADPCM, G.711), the codec's `-d` name where it encodes it (AAC and Apple Lossless, whose packets `-d 0`
    /// copies only untouched; MP3, FLAC, Opus) or where a rate is asked (`-d ima4@48000`, afconvert's spelling),
    /// else the profile's preset; `nil` without one.
    static func keptFormat(_ facts: AssetFacts, atRate: Bool) -> Format? {
        if let format = facts.summary?.format, let name = CodecDescriptor.afconvertName(of: format) {
            let rewritten = CodecDescriptor.of(format.formatID)?.encoding?.keptBySourceFormat == .encodesAgain
            return .named(rewritten && !atRate ? "0" : name, extension: nil)
        }
        return presetFormat(facts)
    }

    /// What a lossy file's encoder is asked again where its codec encodes it anew (`-d mp3`): a LAME VBR level
    /// (`-s 3 -q`, the level's quality), an ABR's rate (`-s 1 -b`), else the stream's average bit rate (`-b`, to
    /// the kbit/s), so that a fix's output is the file's size and kind, not the codec's default (192 kbit/s CBR for
    /// MP3); nothing for a lossless codec or one that takes no bit rate.
    static func keptEncoding(_ facts: AssetFacts) -> [String] {
        guard let summary = facts.summary, let codec = CodecDescriptor.of(summary.format.formatID),
            !CodecDescriptor.isLossless(codec.formatID), codec.options.contains(.bitRate)
        else { return [] }
        let bitRate = facts.properties?.headerBitRate ?? summary.bitRate
        let average = codec.options.contains(.strategy) ? ["-s 1"] : []
        switch facts.properties?.bitRateMode {
        case .variable(let level?) where codec.options.isSuperset(of: [.quality, .strategy]):
            return ["-s 3", "-q \(LAMEScale.quality(level: level))"]
        case .average(let stated):
            return average + ["-b \(stated)"]
        case .variable where bitRate > 0:
            return average + ["-b \(kilobits(bitRate))"]
        default:
            return bitRate > 0 ? ["-b \(kilobits(bitRate))"] : []
        }
        func kilobits(_ rate: Int64) -> Int { Int((Double(rate) / 1000).rounded()) * 1000 }
    }

    /// The profile's preset as a format: CAF, or M4A for `music`.
    static func presetFormat(_ facts: AssetFacts) -> Format? {
        facts.fixingPreset.map { .preset($0, extension: $0 == "music" ? ".m4a" : ".caf") }
    }

    /// Whether afkit writes a file named with `suffix` holding the `-d` format `name` (`0`: the file's own), as the
    /// container's writer answers for the file's rate and channels.
    static func holds(_ suffix: String, _ name: String, _ facts: AssetFacts) -> Bool {
        guard let type = FileType(outputPath: "x" + suffix), let source = facts.summary?.format else { return false }
        if name == "0" {
            return
                (try? AudioFileWriter.check(
                    source, in: type, magicCookie: CodecDescriptor.of(source.formatID)?.encoding?.dryRunCookie)) != nil
        }
        guard
            let encoding = CodecDescriptor.encoded.first(where: { $0.encoding?.dataFormatNames.contains(name) == true }
            )?
            .encoding
        else { return false }
        let format = encoding.streamDescription(source.sampleRate, source.channelsPerFrame)
        return (try? AudioFileWriter.check(format, in: type, magicCookie: encoding.dryRunCookie)) != nil
    }
}

/// A fix as the command that runs it: everything up to its output, and the output, chosen so that it is never
/// another file already there, nor (``avoiding(_:)``) the output of another fix of the same run.
struct PlannedFix: Sendable {
    /// `afkit convert`, its options and its input, shell-quoted.
    var input: String
    /// The file the fix is for.
    var file: String
    /// The output's path without its extension (`a/x`), and the extension (`.caf`).
    var name: (stem: String, suffix: String)
    /// What to know before running it (``Violation/fixNote``).
    var note: String?
    /// Where the fix writes.
    private(set) var output = ""

    init(input: String, file: String, name: (stem: String, suffix: String), note: String?) {
        self.input = input
        self.file = file
        self.name = name
        self.note = note
        output = firstFree(avoiding: [])
    }

    /// The command as it is printed.
    var command: String { input + " " + shellQuoted(output) }

    /// The same fix, writing to none of `taken` (outputs as ``outputIdentity(_:)`` gives them).
    func avoiding(_ taken: Set<String>) -> PlannedFix {
        var moved = self
        moved.output = firstFree(avoiding: taken)
        return moved
    }

    /// The first of `STEM.EXT`, `STEM-fixed.EXT`, `STEM-fixed-2.EXT`, ... that is not in `taken` and is not a file
    /// already there: never the file itself.
    private func firstFree(avoiding taken: Set<String>) -> String {
        var attempt = 0
        while true {
            let candidate =
                name.stem + (attempt == 0 ? "" : attempt == 1 ? "-fixed" : "-fixed-\(attempt)") + name.suffix
            attempt += 1
            guard !taken.contains(outputIdentity(candidate)) else { continue }
            if candidate != file, !pathExists(candidate) { return candidate }
        }
    }
}

/// Where an output path lands, to tell two spellings of one place apart (`./a/x.caf` and `a/x.caf`): its folder
/// resolved (``realPath(_:)``, where the folder exists) and its name.
func outputIdentity(_ path: String) -> String {
    let folder = parentFolder(of: path)
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    return (realPath(folder) ?? folder) + "/" + name
}

/// What `convert --loudness` can reach, for the fixes the validator names (the command sets it from the normalizer's
/// own figures; without it, a fix aims at the profile's target as it is).
public struct LoudnessReach: Sendable, Hashable {
    /// The true-peak ceiling convert holds unless told, dBTP.
    public var truePeakCeiling: Double
    /// How far under the ceiling the limiter works, dB.
    public var headroom: Double

    /// The normalizer's ceiling and headroom.
    public init(truePeakCeiling: Double, headroom: Double) {
        self.truePeakCeiling = truePeakCeiling
        self.headroom = headroom
    }
}

/// Why a file gets no loudness fix, for a person.
struct NoLoudnessFix: Error {
    var reason: String
    /// Whether gain alone falls short of the band, which a limiter may yet reach (not a silent or damaged file).
    var limitingMightReach = false
    init(_ reason: String, limitingMightReach: Bool = false) {
        self.reason = reason
        self.limitingMightReach = limitingMightReach
    }
}

extension Result {
    /// The failure, or `nil` for a success.
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

/// What a fix's output is made as: the rate and channels it has and the preset (`--preset NAME`) that encodes it,
/// if any; what a loudness fix is aimed from (``AssetValidator/reshapedLoudness``).
public struct OutputShape: Sendable, Hashable {
    /// The output's rate, Hz.
    public var sampleRate: Double
    /// The output's channels.
    public var channels: Int
    /// The preset the fix converts with, or `nil` where it keeps the file's own format.
    public var preset: String?
    /// The source channel the output takes as it is (`-m N`), where mixing down would cancel; `nil`: mixed.
    public var channelPick: Int?
}
