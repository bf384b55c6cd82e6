import ArgumentParser
import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats

extension DataFormatSpecifier: ExpressibleByArgument {
    /// afconvert's spelling, as `-d` takes it.
    public init?(argument: String) { self.init(argument) }

    /// `-d`'s value, or an error that says what is wrong with it and what fits.
    static func fromArgument(_ text: String) throws -> DataFormatSpecifier {
        if let specifier = DataFormatSpecifier(text) { return specifier }
        let name = text.split(separator: "@").first.map { $0.lowercased() } ?? ""
        if ["aach", "aacp", "aache", "heaac"].contains(name) {
            // FFmpeg's own AAC encoder makes AAC-LC only; the HE-AAC encoders (libfdk-aac, Apple's) are not
            // in Debian, and SBR without one is not something afkit makes up.
            throw ValidationError(
                "-d \(text): afkit cannot write HE-AAC\(name == "aacp" ? " v2" : ""): libavcodec, its AAC engine, "
                    + "encodes AAC-LC only (the HE-AAC encoders, libfdk-aac and Apple's, are not in Debian); use -d aac "
                    + "(AAC-LC, which every player that plays HE-AAC plays), or -d opus for low bit rates")
        }
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, DataFormatSpecifier(parts[0]) != nil {
            throw ValidationError(
                "-d \(text): the rate after @ is a number of Hz above 0 and up to 1536000 (as in ima4@22050, or 0@44100 for the "
                    + "source's format at 44100 Hz)")
        }
        throw ValidationError(
            "-d \(text): afkit writes \(names.joined(separator: " ")), or 0 (the source's format), "
                + "each with an optional @RATE")
    }
}

extension Preset: ExpressibleByArgument {}

/// `-f`: a container by afconvert's code (`caff`, `WAVE`, ...), with the code as given, which for Ogg also says
/// the codec and the name (`-f ogg`: Vorbis, `.ogg`; `-f opus`: Opus, `.opus`).
struct FileTypeArgument: ExpressibleByArgument {
    /// The container.
    let fileType: FileType
    /// The code as given.
    let code: String

    init?(argument: String) {
        guard let fileType = FileType(afconvertCode: argument) else { return nil }
        self.fileType = fileType
        code = argument
    }

    /// The `-f` codes afkit writes, from the container registry: each container's first, and a code that names
    /// another of its codecs by its extension (Ogg's `ogg`, Vorbis, beside its `opus`).
    static var allValueStrings: [String] {
        ContainerRegistry.written.flatMap { written in
            let policy = written.writer?.policy
            let first = written.formatCodes.first.flatMap { policy?.defaultDataFormat(forExtension: "." + $0) }
            return written.formatCodes.filter { code in
                code == written.formatCodes.first
                    || (written.writtenExtensions.contains("." + code)
                        && policy?.defaultDataFormat(forExtension: "." + code) != first)
            }
        }
    }

    /// What a shell completes `-f` with: the codes afkit writes (``allValueStrings``).
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    /// The name an output takes by this code (`.caf`, `.ogg`, `.opus`).
    var fileNameExtension: String { fileType.fileNameExtension(forCode: code) }
}

/// How IMA4 and WAV IMA ADPCM are encoded.
enum IMAQuality: String, ExpressibleByArgument, CaseIterable {
    /// The default: a narrow beam search, above every peer's SNR on every test signal.
    case balanced
    /// The widest beam search: the best SNR, about twice the time.
    case best
    /// The nearest code per sample: fast, 1-2 dB of SNR less.
    case fast

    var encoding: IMAEncodingQuality {
        switch self {
        case .balanced: .balanced
        case .best: .best
        case .fast: .fast
        }
    }
}

/// The options `convert` and `batch` share: how IMA is encoded, `--trim`, and what every conversion takes
/// (``SharedConversionOptions``).
struct FileConversionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "IMA encoding: balanced (the default) and best are beam searches (best the widest), fast the nearest code.",
            valueName: "quality"))
    var quality: IMAQuality = .balanced

    @Flag(
        help: ArgumentHelp(
            "Cut a source longer than the profile in force allows to its limit, with a note (the profile: --profile, "
                + "else the preset's own, else system-sound's 30 s); a usage error where that profile sets no limit."))
    var trim = false

    @Option(
        name: .customLong("trim-fade"), parsing: .unconditional,
        help: ArgumentHelp(
            "The fade-out that ends a --trim cut: seconds or frames (44100f); 0 for a hard cut (default "
                + "\(shortDecimal(AudioConverter.trimFadeSeconds * 1000)) ms, half a sine).", valueName: "TIME"))
    var trimFade: String?

    @Option(
        name: .customLong("ar", withSingleDash: true), parsing: .unconditional,
        help: ArgumentHelp(
            "The output's sample rate, as FFmpeg spells it (-d FORMAT@RATE names a format with it; -d 0 -ar RATE "
                + "keeps the source's).",
            valueName: "RATE"))
    var rate: String?

    @Option(
        name: .customLong("normalize-peak"), parsing: .unconditional,
        help: ArgumentHelp(
            "Bring the highest sample to this level by one gain (as sox gain -n -1); measured as decoded for a lossy "
                + "output.", valueName: "DBFS"))
    var normalizePeak: Double?

    @Option(
        name: .customLong("normalize-true-peak"), parsing: .unconditional,
        help: ArgumentHelp(
            "The same for the highest true peak (4x oversampled, BS.1770-4).", valueName: "DBTP"))
    var normalizeTruePeak: Double?

    @Option(
        name: .customLong("loop-crossfade"), parsing: .unconditional,
        help: ArgumentHelp(
            "Mend each forward loop's seam: crossfade (equal power) the audio before the loop's end into the audio "
                + "before its start over this long (as sox splice); loop points and length unchanged.",
            valueName: "TIME"))
    var loopCrossfade: String?

    @OptionGroup var conversion: SharedConversionOptions

    /// `--loop-crossfade`'s length.
    var loopCrossfadeTime: EditTime? { loopCrossfade.flatMap(EditTime.init) }

    func validate() throws {
        if let loopCrossfade {
            guard let time = EditTime(loopCrossfade), time != .seconds(0), time != .frames(0) else {
                throw ValidationError(
                    "--loop-crossfade takes a length above 0: seconds (0.05), [[HH:]MM:]SS[.mmm] or frames (2205f), "
                        + "not '\(loopCrossfade)'")
            }
        }
        if normalizePeak != nil && normalizeTruePeak != nil {
            throw ValidationError("--normalize-peak and --normalize-true-peak: give one")
        }
        if let level = normalizePeak ?? normalizeTruePeak {
            let option = normalizePeak != nil ? "--normalize-peak" : "--normalize-true-peak"
            guard level.isFinite, (-120...0).contains(level) else {
                throw ValidationError("\(option) takes -120 to 0 \(normalizePeak != nil ? "dBFS" : "dBTP")")
            }
            if conversion.loudness != nil {
                throw ValidationError(
                    "\(option) and --loudness each set the gain: give one (--loudness with --true-peak holds a peak "
                        + "ceiling under a loudness)")
            }
            if conversion.gain != nil { throw ValidationError("\(option) sets the gain itself: give it or --gain") }
        }
    }

    /// The peak normalization asked for.
    var peakTarget: PeakTarget? {
        if let normalizePeak { return PeakTarget(level: normalizePeak, measure: .sample) }
        return normalizeTruePeak.map { PeakTarget(level: $0, measure: .truePeak) }
    }

    /// `--quiet`.
    var quiet: Bool { conversion.quiet }
    /// `--progress`.
    var progress: Bool { conversion.progress }

    /// The options given, as `convert` takes them (what a fix repeats to remake a batch's output).
    var arguments: [String] {
        var arguments = (quality == .balanced ? [] : ["--quality", quality.rawValue]) + (trim ? ["--trim"] : [])
        arguments += (trimFade.map { ["--trim-fade=\($0)"] } ?? []) + (rate.map { ["-ar", $0] } ?? [])
        arguments += normalizePeak.map { ["--normalize-peak=\(shortDecimal($0))"] } ?? []
        arguments += normalizeTruePeak.map { ["--normalize-true-peak=\(shortDecimal($0))"] } ?? []
        arguments += loopCrossfade.map { ["--loop-crossfade=\($0)"] } ?? []
        return arguments + conversion.arguments
    }

    /// Checks `--trim-fade` and `-ar`; `rateGiven`: whether `-d FORMAT@RATE` names a rate too.
    func check(rateGiven: Bool) throws {
        _ = try fadeAtTrim()
        if let rate {
            guard Self.sampleRate(rate) != nil else {
                throw ValidationError("-ar takes a sample rate in Hz, from 1 to 1536000 (as -ar 44100), not '\(rate)'")
            }
            if rateGiven { throw ValidationError("-ar \(rate) and -d FORMAT@RATE: give the rate once") }
        }
        if trimFade != nil && !trim { throw ValidationError("--trim-fade goes with --trim (the cut it fades)") }
    }

    /// A rate as `-ar` takes it: Hz, 1 to 1536000 (the rates `-d FORMAT@RATE` takes).
    static func sampleRate(_ text: String) -> Double? {
        guard let rate = Double(text), rate.isFinite, (1...1_536_000).contains(rate) else { return nil }
        return rate
    }

    /// `--trim-fade`, checked (`nil`: the default fade).
    func fadeAtTrim() throws -> EditTime? {
        guard let trimFade else { return nil }
        guard let time = EditTime(trimFade) else {
            throw ValidationError("--trim-fade takes seconds (0.01) or frames (441f), 0 for none, not '\(trimFade)'")
        }
        return time
    }

    /// What the options ask of every conversion, with `trimLimit` where `--trim` is given.
    func adjustments(trimLimit: (seconds: Double, name: String)? = nil) -> ConversionAdjustments {
        var adjustments = conversion.adjustments(trimLimit: trim ? trimLimit : nil)
        if let fade = try? fadeAtTrim() { adjustments.trimFade = fade }
        adjustments.sampleRate = rate.flatMap(Self.sampleRate)
        adjustments.peak = peakTarget
        adjustments.loopCrossfade = loopCrossfadeTime
        return adjustments
    }
}

/// The options every command that converts takes (`convert`, `batch`, `hls`): loudness, edits, tags, progress.
struct SharedConversionOptions: ParsableArguments {
    @Option(
        name: .customLong("loudness"), parsing: .unconditional,
        help: ArgumentHelp(
            "Normalize to this integrated loudness (ITU-R BS.1770-4), limiting true peaks where gain alone would pass "
                + "--true-peak.", valueName: "LUFS"))
    var loudness: Double?

    @Option(
        name: .customLong("true-peak"), parsing: .unconditional,
        help: ArgumentHelp(
            "The true-peak ceiling of a normalized output, measured as decoded (default -1).", valueName: "DBTP"))
    var truePeak: Double?

    @Flag(
        name: .customLong("no-limiter"),
        help: "Refuse a --loudness target that gain alone cannot reach under the ceiling.")
    var noLimiter = false

    @Option(
        name: .customLong("max-limiting"), parsing: .unconditional,
        help: ArgumentHelp(
            "The deepest limiting a --loudness target may take (default 6); a target that needs more is refused, "
                + "naming the loudest that does not.", valueName: "DB"))
    var maxLimiting: Double?

    @Flag(
        name: .customLong("dynamic"),
        help: ArgumentHelp(
            "Level speech before normalizing: a gain that rides slowly toward the programme's loudness (3 s windows, "
                + "pauses held), so quiet and loud speakers come out alike; convert's and batch's voice preset's way."))
    var dynamic = false

    @Flag(
        name: .customLong("linear"),
        help: ArgumentHelp(
            "Normalize by one gain for the whole sound (the way unless convert's or batch's --preset voice): nothing "
                + "rides, nothing pumps."))
    var linear = false

    @Option(
        name: .customLong("trim-silence"),
        help: ArgumentHelp(
            "Trim leading and trailing silence below this level (the value is optional; -60 by default), fading across "
                + "the cut; markers and loops move with it.", valueName: "DBFS"))
    var trimSilence: Double?

    @Option(
        name: [.customLong("start"), .customLong("ss", withSingleDash: true)], parsing: .unconditional,
        help: ArgumentHelp(
            "Start the output this far into the source: seconds (1.5), [[HH:]MM:]SS[.mmm], or frames (44100f).",
            valueName: "TIME"))
    var start: String?

    @Option(
        name: [.customLong("end"), .customLong("to", withSingleDash: true)], parsing: .unconditional,
        help: ArgumentHelp("End the output at this time of the source.", valueName: "TIME"))
    var end: String?

    @Option(
        name: [.customLong("duration"), .customShort("t")], parsing: .unconditional,
        help: ArgumentHelp("Take this long from the start.", valueName: "TIME"))
    var duration: String?

    @Option(
        name: .customLong("fade-in"), parsing: .unconditional,
        help: ArgumentHelp("Fade in over this long.", valueName: "TIME"))
    var fadeIn: String?

    @Option(
        name: .customLong("fade-out"), parsing: .unconditional,
        help: ArgumentHelp("Fade out over this long.", valueName: "TIME"))
    var fadeOut: String?

    @Option(
        name: .customLong("fade-shape"),
        help: ArgumentHelp(
            "The fades' shape, as SoX names them: q quarter sine (default), h half sine, t linear, l logarithmic, "
                + "p inverted parabola.", valueName: "q|h|t|l|p"))
    var fadeShape: String?

    @Option(
        name: .customLong("pad"), parsing: .unconditional,
        help: ArgumentHelp("Silence before the sound, and after it (START[,END]).", valueName: "START[,END]"))
    var pad: String?

    @Option(
        name: .customLong("gain"), parsing: .unconditional,
        help: ArgumentHelp("Change the level by this many dB (before any limiter).", valueName: "DB"))
    var gain: Double?

    @Flag(
        name: .customLong("remove-dc"),
        help: ArgumentHelp(
            "Take out a DC offset: a high-pass at 5 Hz, before any gain (so no gain raises the offset)."))
    var removeDC = false

    @Flag(help: "Errors only: no notes, no progress, nothing at all on success.")
    var quiet = false

    @Flag(
        help: ArgumentHelp(
            "Show the progress line (files, time into the file being written, speed) on standard error even when it "
                + "is not a terminal (on a terminal it is shown unless --quiet)."))
    var progress = false

    @Flag(
        name: .customLong("no-metadata"),
        help: "Leave the source's tags (title, artist, album, track, date, genre, comments) out of the output.")
    var noMetadata = false

    func validate() throws {
        _ = try edits()
        if quiet && progress { throw ValidationError("--quiet and --progress: give one") }
        if let loudness, !(LoudnessGate.absolute...0).contains(loudness) {
            throw ValidationError("--loudness takes \(shortDecimal(LoudnessGate.absolute)) to 0 LUFS")
        }
        if let truePeak, !(-30...0).contains(truePeak) { throw ValidationError("--true-peak takes -30 to 0 dBTP") }
        if loudness == nil && (truePeak != nil || noLimiter || maxLimiting != nil || dynamic || linear) {
            throw ValidationError(
                "--true-peak, --no-limiter, --max-limiting, --dynamic and --linear go with --loudness")
        }
        if dynamic && linear { throw ValidationError("--dynamic and --linear: give one") }
        if let maxLimiting, !(0...40).contains(maxLimiting) { throw ValidationError("--max-limiting takes 0 to 40 dB") }
        if noLimiter && maxLimiting != nil {
            throw ValidationError("--max-limiting and --no-limiter cannot go together")
        }
        if let trimSilence, !(-120...0).contains(trimSilence) {
            throw ValidationError("--trim-silence takes -120 to 0 dBFS")
        }
    }

    /// The edits asked for, each time checked (`--start 1.5`, `-t 44100f`, `--pad 0.5,1`).
    func edits() throws -> Edits {
        var edits = Edits()
        func time(_ text: String?, _ option: String) throws -> EditTime? {
            guard let text else { return nil }
            guard let time = EditTime(text) else {
                throw ValidationError(
                    "\(option) takes seconds (1.5), [[HH:]MM:]SS[.mmm] or frames (44100f), from 0 up to a week, "
                        + "not '\(text)'")
            }
            return time
        }
        edits.start = try time(start, "--start")
        edits.end = try time(end, "--end")
        edits.duration = try time(duration, "--duration")
        if edits.end != nil && edits.duration != nil { throw ValidationError("--end and --duration: give one") }
        edits.fadeIn = try time(fadeIn, "--fade-in")
        edits.fadeOut = try time(fadeOut, "--fade-out")
        if let fadeShape {
            guard fadeIn != nil || fadeOut != nil else {
                throw ValidationError("--fade-shape shapes --fade-in and --fade-out: give one of them")
            }
            guard let shape = FadeShape(rawValue: fadeShape) else {
                throw ValidationError("--fade-shape takes q, h, t, l or p, not '\(fadeShape)'")
            }
            edits.fadeShape = shape
        }
        if let pad {
            let parts = pad.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(parts.count) else { throw ValidationError("--pad takes START[,END], not '\(pad)'") }
            edits.padStart = try time(parts[0], "--pad")
            edits.padEnd = parts.count == 2 ? try time(parts[1], "--pad") : nil
        }
        if let gain {
            guard gain.isFinite, (-120...60).contains(gain) else { throw ValidationError("--gain takes -120 to 60 dB") }
            edits.gain = gain
        }
        edits.removesDC = removeDC
        return edits
    }

    /// The options given, as `convert` takes them.
    var arguments: [String] {
        var arguments: [String] = []
        let values: [(String, String?)] = [
            ("--loudness", loudness.map(shortDecimal)), ("--true-peak", truePeak.map(shortDecimal)),
            ("--max-limiting", maxLimiting.map(shortDecimal)), ("--trim-silence", trimSilence.map(shortDecimal)),
            ("--start", start), ("--end", end), ("--duration", duration), ("--fade-in", fadeIn),
            ("--fade-out", fadeOut), ("--fade-shape", fadeShape), ("--pad", pad), ("--gain", gain.map(shortDecimal)),
        ]
        for (option, value) in values { if let value { arguments.append("\(option)=\(value)") } }
        if noLimiter { arguments.append("--no-limiter") }
        if dynamic { arguments.append("--dynamic") }
        if linear { arguments.append("--linear") }
        if noMetadata { arguments.append("--no-metadata") }
        if removeDC { arguments.append("--remove-dc") }
        return arguments
    }

    /// What the options ask of every conversion (loudness, silence, tags, edits, and the `trimLimit` a `--trim`
    /// cuts to): the one mapping `convert`, `batch` and `hls` share. The options were checked in `validate()`.
    func adjustments(trimLimit: (seconds: Double, name: String)? = nil) -> ConversionAdjustments {
        var adjustments = ConversionAdjustments()
        adjustments.loudness = loudnessTarget
        adjustments.silenceThreshold = trimSilence
        adjustments.keepsMetadata = !noMetadata
        adjustments.edits = (try? edits()) ?? Edits()
        adjustments.trimLimit = trimLimit
        return adjustments
    }

    /// The normalization asked for.
    var loudnessTarget: LoudnessTarget? {
        loudness.map { loudness in
            var target = LoudnessTarget(integrated: loudness, usesLimiter: !noLimiter)
            if let truePeak { target.truePeakCeiling = truePeak }
            if let maxLimiting { target.maximumLimiting = maxLimiting }
            if dynamic || linear { target.dynamic = dynamic }
            return target
        }
    }

    /// `--trim-silence` with no level, followed by anything but a number, takes the validator's silence
    /// level (so what is trimmed passes `leading-silence`): the arguments are rewritten so argument-parser
    /// sees a value (`--trim-silence=-60`).
    static func supplyingOptionalValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result += arguments[(index - 1)...]
                break
            }
            guard argument == "--trim-silence" else {
                result.append(argument)
                continue
            }
            if index < arguments.count, Double(arguments[index]) != nil {
                result.append("--trim-silence=\(arguments[index])")
                index += 1
            } else {
                result.append("--trim-silence=\(shortDecimal(AudioStatistics.defaultSilenceThreshold))")
            }
        }
        return result
    }
}

/// The profile a conversion answers to: `--profile`, else the preset's own (``Preset/profileName``), else the one
/// `validate` checks against when none is named.
func profileInForce(_ name: String?, preset: Preset?) throws -> Profile {
    if let name { return try Validate.loadProfile(name) }
    return preset?.profileName.flatMap { Profile.builtIn[$0] } ?? .standard
}

/// What `--trim` cuts to: the duration limit of the profile in force (``profileInForce(_:preset:)``), and the name
/// its note gives it; a usage error where that profile sets none, for then there is no limit to cut to.
func trimLimit(profile name: String?, preset: Preset?) throws -> (seconds: Double, name: String) {
    let profile = try profileInForce(name, preset: preset)
    guard let seconds = profile.maximumSeconds else {
        let origin =
            name != nil
            ? "given by --profile"
            : preset?.profileName != nil ? "--preset \(preset?.rawValue ?? "")'s own" : "validate's default"
        throw ValidationError(
            "--trim cuts to the duration limit of the profile in force, and \(profile.name) (\(origin)) sets none: "
                + "there is no limit to cut to; give --profile with a profile that sets one (\(Profile.standard.name): "
                + "\(shortDecimal(Profile.standard.maximumSeconds ?? 0)) s), or cut with --duration TIME")
    }
    return (seconds, "the \(profile.name) profile")
}
