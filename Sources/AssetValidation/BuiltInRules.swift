import ReportGraphics
import AudioCodecs
import AudioContainers
import AudioFormats
import FileAccess

extension ValidationRule {
    /// The rules afkit knows, by id.
    public static let builtIn: [String: ValidationRule] = {
        let fileRules: [ValidationRule] = [
            malformed, container, dataFormat, duration, fileExtension, truncated, empty, channels,
            sampleRate, hardwareCodec, clipping, silence, loudness, truePeak, dcOffset, monoCompatibility,
            channelBalance, leadingSilence, trailingSilence, loopSeam,
        ]
        return Dictionary(uniqueKeysWithValues: (fileRules + playlistRules).map { rule in (rule.id, rule) })
    }()

    /// The `dc-offset` rule's default limit, dBFS (a fix's gain is weighed against it too:
    /// ``FixRecipe/raisesOffset(_:)``).
    static let dcOffsetLimit = -40.0

    /// No channel's mean sample above `maximumDecibels` dBFS (default ``dcOffsetLimit``): a DC offset wastes
    /// headroom and clicks where the sound starts and stops.
    public static let dcOffset = ValidationRule(
        id: "dc-offset", needsDecodedAudio: true, parameters: ["maximumDecibels"]
    ) {
        facts, settings in
        guard let audio = facts.audio, audio.dcOffset > 0 else { return [] }
        let limit = settings.number("maximumDecibels") ?? dcOffsetLimit
        let level = 20 * log10(audio.dcOffset)
        guard level > limit else { return [] }
        return [
            Finding(
                "a DC offset of \(fixedPoint(level, places: 1)) dBFS (more than \(fixedPoint(limit, places: 1)) dBFS)",
                recipe: FixRecipe(removesDC: true))
        ]
    }

    /// Stereo channels correlated at least `minimumCorrelation` (default 0): below it they partly cancel
    /// when a phone's single speaker plays them summed to mono.
    public static let monoCompatibility = ValidationRule(
        id: "mono-compatibility", needsDecodedAudio: true,
        parameters: ["minimumCorrelation"]
    ) { facts, settings in
        guard let correlation = facts.audio?.correlation else { return [] }
        let minimum = settings.number("minimumCorrelation") ?? 0
        guard correlation < minimum else { return [] }
        // Said as measured: opposed channels cancel; uncorrelated ones only fail to reinforce each other.
        let measured =
            "(correlation \(fixedPoint(correlation, places: 2))): summed to mono, as one speaker plays them, "
        let said: String
        if correlation <= MonoFold.cancellingCorrelation {
            said = "the channels are largely out of phase " + measured + "they cancel"
        } else if correlation <= -0.1 {
            said = "the channels are partly out of phase " + measured + "they partly cancel"
        } else {
            said =
                "the channels are uncorrelated " + measured
                + "they do not reinforce each other (the mono mix is about 3 dB under the stereo's level)"
        }
        return [Finding(said)]
    }

    /// Stereo channels within `maximumDecibels` (default 3) of each other's level.
    public static let channelBalance = ValidationRule(
        id: "channel-balance", needsDecodedAudio: true,
        parameters: ["maximumDecibels"]
    ) { facts, settings in
        guard let balance = facts.audio?.channelBalance else { return [] }
        let limit = settings.number("maximumDecibels") ?? 3
        guard abs(balance) > limit else { return [] }
        return [
            Finding(
                "the \(balance > 0 ? "left" : "right") channel is \(fixedPoint(abs(balance), places: 1)) dB louder "
                    + "than the other (more than \(fixedPoint(limit, places: 1)) dB)")
        ]
    }

    /// Integrated loudness within `target` ± `tolerance` LUFS (defaults -16 and 1: the common mobile and
    /// streaming target).
    public static let loudness = ValidationRule(
        id: "loudness", needsLoudness: true, parameters: ["target", "tolerance"]
    ) {
        facts, settings in
        guard let loudness = facts.loudness else { return [] }  // no meter: the rule passes over the file
        let (target, tolerance) = loudnessTarget(settings)
        // A sound shorter than one gating block is judged on its loudness as one block.
        let level = loudness.normalizable
        let kind =
            loudness.integrated.isFinite ? "integrated loudness" : "loudness (one block: shorter than 400 ms)"
        guard level.isFinite else {
            return [
                Finding(
                    "no loudness: the sound is silent (below the \(shortDecimal(LoudnessGate.absolute)) LUFS gate)",
                    severity: .warning)
            ]
        }
        guard abs(level - target) > tolerance else { return [] }
        return [
            Finding(
                "\(kind) \(fixedPoint(level, places: 1)) LUFS; this profile wants "
                    + "\(fixedPoint(target, places: 1)) ± \(fixedPoint(tolerance, places: 1)) LUFS",
                recipe: FixRecipe(loudness: target))
        ]
    }

    /// The `loudness` rule's target and tolerance in `settings`, LUFS and LU (-16 and 1 where not given).
    public static func loudnessTarget(_ settings: RuleSettings) -> (target: Double, tolerance: Double) {
        (settings.number("target") ?? -16, settings.number("tolerance") ?? 1)
    }

    /// The `true-peak` rule's ceiling in `settings`, dBTP (-1 where not given).
    public static func truePeakMaximum(_ settings: RuleSettings) -> Double { settings.number("maximum") ?? -1 }

    /// True peak (4x oversampled) at most `maximum` dBTP (default -1: room for a lossy encoder's overshoot).
    public static let truePeak = ValidationRule(id: "true-peak", needsLoudness: true, parameters: ["maximum"]) {
        facts, settings in
        guard let loudness = facts.loudness else { return [] }
        let maximum = truePeakMaximum(settings)
        guard loudness.truePeak > maximum else { return [] }
        // Normalized to its own loudness under the ceiling: the limiter takes the peaks, nothing else moves.
        let level = loudness.normalizable
        return [
            Finding(
                "true peak \(fixedPoint(loudness.truePeak, places: 2)) dBTP is above \(fixedPoint(maximum, places: 1)) "
                    + "dBTP: encoding may clip between samples",
                recipe: level.isFinite ? FixRecipe(keptLoudness: level, truePeak: maximum) : nil)
        ]
    }

    /// The file cannot be parsed, its audio cannot be decoded, or the parser skipped damage in it (a warning:
    /// the rest of the sound is there).
    public static let malformed = ValidationRule(id: "malformed", parameters: []) { facts, _ in
        if let error = facts.error {
            let place = error.offset.map { " at byte \($0)" } ?? ""
            return [Finding("cannot be parsed: \(error.message) (code '\(error.code)'\(place))")]
        }
        var findings: [Finding] = []
        if let decodeError = facts.decodeError {
            findings.append(Finding("the audio cannot be decoded: \(decodeError)"))
        }
        for damage in facts.properties?.damage ?? [] {
            findings.append(Finding("the file is damaged: \(damage)", severity: .warning))
        }
        // Packets the decoder concealed: the sound is not whole (an error, as audio that does not decode at all is).
        if let audio = facts.audio, audio.concealedPackets > 0 {
            let count = audio.concealedPackets
            findings.append(
                Finding(
                    "the audio cannot be decoded: \(count) packet\(count == 1 ? " is" : "s are") damaged"
                        + (audio.concealedPlaces.isEmpty ? "" : " (\(audio.concealedPlaces))")
                        + "; players play silence there"))
        }
        return findings
    }

    /// The container must be one of `allowed`; those in `warn` pass with a warning.
    public static let container = ValidationRule(id: "container", parameters: ["allowed", "warn"]) { facts, settings in
        guard let summary = facts.summary else { return [] }
        let name = summary.container.rawValue
        if settings.strings("warn")?.contains(name) == true {
            return [
                Finding(
                    "\(name.uppercased()) files are not read by every player; CAF, WAV or AIFF is safer",
                    severity: .warning, recipe: presetRecipe(facts))
            ]
        }
        guard let allowed = settings.strings("allowed"), !allowed.contains(name) else { return [] }
        return [
            Finding(
                "the file is \(describe(summary.container)); this profile needs a \(spokenList(allowed.map(containerName))) file",
                recipe: presetRecipe(facts))
        ]
    }

    /// The data format must be one of `allowed`; those in `warn` pass with a warning.
    public static let dataFormat = ValidationRule(id: "data-format", parameters: ["allowed", "warn"]) {
        facts, settings in
        guard let format = facts.summary?.format else { return [] }
        let id = format.formatID.description
        // A profile may spell a hex code in either case (`0x6d730011` or `0x6D730011`).
        func names(_ list: [String]?) -> Bool? {
            list.map { $0.contains { $0 == id || ($0.hasPrefix("0x") && $0.uppercased() == id.uppercased()) } }
        }
        if names(settings.strings("warn")) == true {
            return [
                Finding(
                    "'\(id)' (\(formatName(format.formatID))) plays, but IMA4 in a CAF file is Apple's format for it",
                    severity: .warning, recipe: FixRecipe(format: .named("ima4", extension: ".caf")))
            ]
        }
        guard let allowed = settings.strings("allowed"), names(allowed) == false else { return [] }
        return [
            Finding(
                "the audio is '\(id)' (\(formatName(format.formatID))); this profile needs \(spokenList(allowed.map(namedFormat)))",
                recipe: presetRecipe(facts))
        ]
    }

    /// At most `maximumSeconds` of valid audio (exactly that many passes; one frame more fails).
    public static let duration = ValidationRule(id: "duration", parameters: ["maximumSeconds"]) { facts, settings in
        guard let summary = facts.summary, let limit = settings.number("maximumSeconds"), summary.format.sampleRate > 0
        else {
            return []
        }
        // Compare in frames: frames ≤ limit × rate, exactly for whole rates.
        let allowed = (limit * summary.format.sampleRate).rounded(.down)
        guard Double(summary.frameCount) > allowed else { return [] }
        return [
            Finding(
                "lasts \(seconds(summary.durationSeconds)) s (\(summary.frameCount) frames at \(rate(summary.format.sampleRate))); "
                    + "this profile allows \(seconds(limit)) s (\(Int64(allowed)) frames)",
                recipe: FixRecipe(cut: cut(facts, limit: limit)))
        ]
    }

    /// The extension must name the container found in the bytes.
    public static let fileExtension = ValidationRule(id: "extension", parameters: []) { facts, _ in
        guard let summary = facts.summary else { return [] }
        let ext = facts.fileExtension
        // MPEG Layer II goes by .mp2 and .mpa (or .mp3), never .mp1.
        // Opus in Ogg goes by .opus (and .ogg, .oga); Vorbis and FLAC by .ogg and .oga.
        let expected =
            summary.format.formatID == .mpegLayer2 && summary.container == .mp3
            ? ["mp2", "mpa", "mp3"]
            : summary.container == .ogg
                ? (summary.format.formatID == .opus ? ["opus", "ogg", "oga"] : ["ogg", "oga"])
                : summary.container.extensionsInOrder
        guard !expected.contains(ext) else { return [] }
        let name = facts.path.split(separator: "/").last.map(String.init) ?? facts.path
        let base = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        // The rename is said in the message, not as a fix: a file's one fix is a command that runs. Where the file
        // has that command, it names the output with its container's extension, so it fixes this too.
        let rename = expected.first.map { ": rename it '\(base).\($0)'" } ?? ""
        if ext.isEmpty {
            return [
                Finding(
                    "the name has no extension; the bytes are \(describe(summary.container))\(rename)",
                    recipe: FixRecipe())
            ]
        }
        return [
            Finding(
                "the name ends in '.\(ext)' but the bytes are \(describe(summary.container))\(rename)",
                recipe: FixRecipe())
        ]
    }

    /// The header must agree with the data: no audio cut short, no size beyond the file.
    public static let truncated = ValidationRule(id: "truncated", parameters: []) { facts, _ in
        guard let properties = facts.properties, properties.isTruncated else { return [] }
        let detail = properties.trace.records.last { $0.note.contains("short") || $0.note.contains("cut") }?.note
        return [
            Finding("the file is truncated: its audio ends before its header says" + (detail.map { " (\($0))" } ?? ""))
        ]
    }

    /// There must be audio.
    public static let empty = ValidationRule(id: "empty", parameters: []) { facts, _ in
        guard let summary = facts.summary, summary.frameCount == 0 else { return [] }
        return [Finding("the file holds no audio frames")]
    }

    /// At most `maximum` channels.
    public static let channels = ValidationRule(id: "channels", parameters: ["maximum"]) { facts, settings in
        guard let format = facts.summary?.format, let maximum = settings.number("maximum"),
            Double(format.channelsPerFrame) > maximum
        else { return [] }
        // Two channels out of phase cancel when mixed to one: the fix takes one as it is.
        if Int(maximum) == 1, format.channelsPerFrame == 2, let correlation = facts.audio?.correlation,
            correlation <= MonoFold.cancellingCorrelation
        {
            return [
                Finding(
                    "2 channels; this profile wants at most 1, and mixed to one they cancel (they are out of phase, "
                        + "correlation \(fixedPoint(correlation, places: 2))): the fix takes the left channel as it is",
                    recipe: FixRecipe(channelPick: 0))
            ]
        }
        return [
            Finding(
                "\(format.channelsPerFrame) channels; this profile wants at most \(Int(maximum))",
                recipe: FixRecipe(channels: Int(maximum)))
        ]
    }

    /// A rate iOS plays natively, at most `maximum`.
    public static let sampleRate = ValidationRule(id: "sample-rate", parameters: ["allowed", "maximum"]) {
        facts, settings in
        guard let format = facts.summary?.format else { return [] }
        let native = settings.numbers("allowed") ?? [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        if let maximum = settings.number("maximum"), format.sampleRate > maximum {
            return [
                Finding(
                    "\(rate(format.sampleRate)) is above \(rate(maximum)); resample to save memory and work",
                    // The file's own format at the rate (an IMA4 file stays IMA4), else the profile's preset.
                    recipe: FixRecipe(sampleRate: maximum))
            ]
        }
        guard !native.contains(format.sampleRate) else { return [] }
        return [
            Finding(
                "\(rate(format.sampleRate)) is not a rate iOS plays natively (\(native.map { rate($0) }.joined(separator: ", ")))",
                recipe: facts.fixingPreset == "sfx" ? presetRecipe(facts) : nil)
        ]
    }

    /// Compressed formats the hardware decodes one stream at a time.
    public static let hardwareCodec = ValidationRule(id: "hardware-codec", parameters: []) { facts, _ in
        guard let id = facts.summary?.format.formatID,
            [
                FourCharCode.aac, .aacSpectralBandReplication, .aacParametricStereo, .mpegLayer3, .mpegLayer2,
                .mpegLayer1,
                .alac,
            ].contains(id)
        else { return [] }
        return [
            Finding(
                "'\(id)' is decoded in hardware one stream at a time; sounds played together should be PCM or IMA4",
                recipe: FixRecipe(format: .preset("sfx", extension: ".caf")))
        ]
    }

    /// No clipping: no run of three or more full-scale samples.
    public static let clipping = ValidationRule(id: "clipping", needsDecodedAudio: true, parameters: []) { facts, _ in
        guard let audio = facts.audio, audio.clippedRuns > 0 else { return [] }
        return [
            Finding(
                "\(audio.clippedRuns) run\(audio.clippedRuns == 1 ? "" : "s") of three or more consecutive full-scale "
                    + "samples (clipping; afkit clip counts each clipped sample)",
                // The peak brought under the ceiling: what clipped is no longer at full scale, so it does not clip
                // again when decoded or mixed (the flattened tops stay: remake it from an unclipped source if there is one).
                recipe: FixRecipe(lowersPeak: true))
        ]
    }

    /// At most `maximumSeconds` (default 0.5) of silence below `thresholdDecibels` (default -60 dBFS) at
    /// either end.
    public static let silence = ValidationRule(
        id: "silence", needsDecodedAudio: true,
        parameters: ["maximumSeconds", "thresholdDecibels"]
    ) { facts, settings in
        silenceFindings(facts, settings, leading: true, trailing: true, defaultSeconds: 0.5)
    }

    /// At most `maximumSeconds` (default 0.05: a UI sound should sound when it is played) before the first
    /// sample above `thresholdDecibels` (default -60 dBFS).
    public static let leadingSilence = ValidationRule(
        id: "leading-silence", needsDecodedAudio: true,
        parameters: ["maximumSeconds", "thresholdDecibels"]
    ) { facts, settings in
        silenceFindings(facts, settings, leading: true, trailing: false, defaultSeconds: 0.05)
    }

    /// At most `maximumSeconds` (default 0.5) after the last sample above `thresholdDecibels` (default
    /// -60 dBFS).
    public static let trailingSilence = ValidationRule(
        id: "trailing-silence", needsDecodedAudio: true,
        parameters: ["maximumSeconds", "thresholdDecibels"]
    ) { facts, settings in
        silenceFindings(facts, settings, leading: false, trailing: true, defaultSeconds: 0.5)
    }

    private static func silenceFindings(
        _ facts: AssetFacts, _ settings: RuleSettings, leading: Bool, trailing: Bool,
        defaultSeconds: Double
    ) -> [Finding] {
        guard let audio = facts.audio else { return [] }
        let threshold = settings.number("thresholdDecibels") ?? AudioStatistics.defaultSilenceThreshold
        guard let span = audio.silence[threshold] else { return [] }
        let limit = settings.number("maximumSeconds") ?? defaultSeconds
        let below =
            threshold == AudioStatistics.defaultSilenceThreshold ? "" : " (below \(shortDecimal(threshold)) dBFS)"
        if span.isSilent { return [Finding("the audio is silent throughout\(below)")] }
        let fix = FixRecipe(
            trimsSilence: "--trim-silence"
                + (threshold == AudioStatistics.defaultSilenceThreshold ? "" : " \(shortDecimal(threshold))"))
        // A loop or marker the file declares in the silence keeps it: trimming there would cut into it.
        let kept = declaredPoint(in: span, of: facts, audio: audio)
        func finding(_ message: String) -> Finding {
            guard let kept else { return Finding(message, recipe: fix) }
            return Finding(message + "; no fix: --trim-silence would cut into \(kept), which the file declares there")
        }
        var findings: [Finding] = []
        if leading && span.leading > limit {
            findings.append(
                finding(
                    "\(seconds(span.leading)) s of silence\(below) before the sound starts (more than \(seconds(limit)) s)"
                ))
        }
        if trailing && span.trailing > limit {
            findings.append(
                finding("\(seconds(span.trailing)) s of silence\(below) after it ends (more than \(seconds(limit)) s)"))
        }
        return findings
    }

    /// The first loop or marker the file declares inside the silence at either end of `span` (a loop that starts
    /// in the leading silence or ends in the trailing silence, a marker in either), for a person; `nil` where none
    /// does, so `--trim-silence` cuts only what nothing refers to.
    private static func declaredPoint(in span: SilenceSpan, of facts: AssetFacts, audio: AudioStatistics) -> String? {
        guard let summary = facts.summary, summary.format.sampleRate > 0 else { return nil }
        let rate = summary.format.sampleRate
        let soundStart = Int64((span.leading * rate).rounded(.down))
        let soundEnd = audio.frameCount - Int64((span.trailing * rate).rounded(.down))
        for (index, loop) in summary.loops.enumerated() where loop.start < soundStart || loop.end > soundEnd {
            return "loop \(index + 1) (frames \(loop.start)-\(loop.end))"
        }
        for marker in summary.markers where marker.framePosition < soundStart || marker.framePosition > soundEnd {
            return "marker \(marker.id) (frame \(marker.framePosition))"
        }
        return nil
    }

    /// Each loop wraps without a click: the step and the change of slope where the loop's end meets its
    /// start at most `maximumDecibels` (default 12) over how the signal moves around it (see
    /// ``LoopSeam``). The file's loops (CAF, AIFF, WAV); with `wholeFile`, the whole file as one loop too.
    public static let loopSeam = ValidationRule(
        id: "loop-seam", needsDecodedAudio: true,
        parameters: ["maximumDecibels", "wholeFile"]
    ) { facts, settings in
        guard let audio = facts.audio else { return [] }
        let limit = settings.number("maximumDecibels") ?? 12
        return audio.loopSeams.compactMap { seam in
            let jump = max(seam.levelJump, seam.slopeJump)
            // (A wrap no sharper than the sound's own edges beside it plays as the sound does: a sawtooth's reset.)
            guard jump > limit, !seam.soundMovesAsSharply else { return nil }
            let kind = seam.levelJump >= seam.slopeJump ? "a step" : "a bend"
            let message =
                "the loop \(seam.start)-\(seam.end) wraps with \(kind) \(fixedPoint(jump, places: 1)) dB over the "
                + "signal's movement around it (more than \(shortDecimal(limit)) dB): it will click"
            // The file's own forward loop is mended by a crossfade: 20 ms, or as long as the loop and the audio
            // around it allow down to a millisecond (a short loop's seam mended by a short fade, not left to click);
            // the whole file taken as a loop (`wholeFile`) has no audio around it to fade from.
            let rate = facts.summary?.format.sampleRate ?? 0
            let room = min(seam.end - seam.start, max(seam.start, audio.frameCount - seam.end))
            let seconds = min(
                FixRecipe.loopCrossfadeSeconds, (Double(room) / max(rate, 1) * 1000).rounded(.down) / 1000)
            let declared = facts.summary?.loops.contains {
                $0.start == seam.start && $0.end == seam.end && $0.playMode == .forward
            }
            guard declared == true, rate > 0, seconds >= 0.001 else {
                return Finding(
                    message + "; no fix: "
                        + (declared == true
                            ? "the loop is too short, or has too little audio around it, for a 1 ms crossfade"
                            : "the file declares no forward loop there for --loop-crossfade to mend"))
            }
            return Finding(
                message,
                recipe: FixRecipe(loopCrossfade: "--loop-crossfade \(shortDecimal(seconds, places: 3))"))
        }
    }
}

private func describe(_ type: FileType) -> String { type.kindDescription }

private func containerName(_ name: String) -> String {
    ContainerRegistry.descriptor(of: FileType(rawValue: name))?.name ?? name
}

/// A profile's format code with its name in words: `'0x6D730011' (IMA ADPCM in WAV)`.
private func namedFormat(_ code: String) -> String {
    let id =
        code.hasPrefix("0x")
        ? UInt32(code.dropFirst(2), radix: 16).map(FourCharCode.init(rawValue:)) : FourCharCode(validating: code)
    let name = id.map(formatName)
    return "'\(code)'" + (name.map { $0 == unknownFormatName ? "" : " (\($0))" } ?? "")
}

/// The cut for a sound longer than the profile allows: `--trim` where convert finds the limit itself (a built-in
/// profile, named unless it is validate's default), else `--duration`.
private func cut(_ facts: AssetFacts, limit: Double) -> String {
    if let name = facts.profileName, Profile.builtIn[name]?.maximumSeconds == limit {
        return "--trim" + (name == Profile.standard.name ? "" : " --profile \(name)")
    }
    return "--duration \(shortDecimal(limit))"
}

/// The profile's preset as a fix (`nil` for a profile without one): CAF, or M4A for `music`.
private func presetRecipe(_ facts: AssetFacts) -> FixRecipe? {
    FixRecipe.presetFormat(facts).map { FixRecipe(format: $0) }
}

/// A path (or, `isPath` false, an option) as a POSIX shell reads it: as it is when it has nothing the shell would
/// take, else in single quotes (`./` before a name that starts with a dash);
/// a name with a control character or a byte that is not UTF-8 in bash's `$'...'`, which spells them.
func shellQuoted(_ text: String, isPath: Bool = true) -> String {
    // A name that starts with a dash is given as `./-x.wav`, never taken for an option.
    if isPath && text.hasPrefix("-") { return shellQuoted("./" + text) }
    if PathEscaping.needsANSIQuoting(text) { return PathEscaping.ansiCQuoted(text) }
    let plain =
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-+,=:@".contains($0)) }
    return plain ? text : "'" + text.map { $0 == "'" ? "'\\''" : String($0) }.joined() + "'"
}

func formatName(_ id: FourCharCode) -> String { CodecDescriptor.of(id)?.name ?? unknownFormatName }

private let unknownFormatName = "an unknown format"

func seconds(_ value: Double) -> String { fixedPoint(value, places: 3) }

private func rate(_ value: Double) -> String { formatSampleRate(value) + " Hz" }

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
