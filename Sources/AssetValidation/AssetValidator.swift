import ReportGraphics
import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioFormats
import FileAccess

/// Checks sound files against a profile's rules: the library behind `afkit validate`.
///
/// ```swift
/// let validator = AssetValidator(profile: .systemSound)
/// let report = try validator.validate(paths: ["Assets"])
/// print(report.text)
/// ```
public struct AssetValidator: Sendable {
    /// Makes a decoder for a format (and its magic cookie), for the rules that need decoded audio;
    /// `nil` where there is none (those rules then pass over the file).
    public typealias DecoderProvider = @Sendable (StreamDescription, [UInt8]?) -> (any AudioDecoder)?

    /// The rules and settings files are checked against.
    public var profile: Profile
    /// The rules by id: the built-in ones, and any a project adds.
    public var rules: [String: ValidationRule] = ValidationRule.builtIn
    /// The decoders the rules that need audio use (afkit's own; the command sets the standard registry's).
    public var decoderProvider: DecoderProvider = { format, cookie in
        try? AudioCodecRegistry.builtIn.decoder(for: format, magicCookie: cookie)
    }
    /// Opens a parsed file's decoded frames for the rules that need audio, where set (the command sets the
    /// converter's own reader, engines and libsndfile included, so `validate` measures what `convert` writes);
    /// otherwise ``decoderProvider`` decodes.
    public var sourceReaderProvider: (@Sendable (AudioFile) throws -> SourceReader?)?
    /// Makes a loudness meter for a file's channels and sample rate, fed by the same decode pass as the
    /// other measurements, for the rules that need it (`loudness`, `true-peak`); without one those rules
    /// pass over the file. The command sets libebur128's, from AudioConversion.
    public var loudnessMeter: (@Sendable (_ channels: Int, _ sampleRate: Double) -> (any StreamingLoudnessMeter)?)?
    /// Whether each file's decode pass also keeps what the HTML report draws (``AudioStatistics/pictures``):
    /// the audio is then decoded and measured, loudness included, whatever the rules ask.
    public var drawsPictures = false
    /// Files with these extensions are checked when a directory is searched.
    public static var soundExtensions: Set<String> { ContainerRegistry.walkedExtensions }

    /// How a playlist profile reads URLs: makes the fetch over HTTP (the caller's) for one playlist checked, once
    /// for each, so what its fetches share (a retry budget) is that playlist's; `nil`: no URL is read. What a
    /// playlist names passes `HLS.ResourceAccess`: files below the playlist's folder (or the folder given), URLs
    /// from a playlist on the disk only with ``allowsNetwork``.
    public var makeNetworkFetch: (@Sendable () -> HLS.ResourceAccess.NetworkFetch)?
    /// Whether a playlist on the disk may name resources over HTTP (`--allow-network`).
    public var allowsNetwork = false

    /// Where a file came from, where a conversion made it (a batch's outputs): its fixes remake it from there.
    public var origin: (@Sendable (String) -> FixOrigin?)?
    /// What `convert --loudness` can reach (the command sets the normalizer's figures): a loudness fix aims where
    /// the file can go within the profile's tolerance, or says why none will do.
    public var loudnessReach: LoudnessReach?
    /// The loudness of the file at `path` as a fix's output will hold it, before any gain: read at the rate and
    /// channels `shape` gives (a preset's 22.05 kHz takes a click's highs, and their loudness, away; a mixdown
    /// moves its peaks). A loudness fix whose output has another rate or channel count aims from it, where set
    /// (the command sets the converter's); `nil` there, or where it returns `nil`: from the file as it is.
    public var reshapedLoudness: (@Sendable (_ path: String, _ shape: OutputShape) -> LoudnessFacts?)?
    /// The loudness target the fix's conversion (`shape`'s preset, at that rate and channels, under `ceiling`
    /// dBTP) meets asked for `target`: `target` itself, or the loudest it can meet (`-infinity`: none), or `nil`
    /// where unknown (a long sound, which is not converted to learn it). A preset's fix is aimed there where set:
    /// a codec's overshoot (IMA4's on a transient, AAC's) is known only by converting.
    public var loudnessMet:
        (@Sendable (_ path: String, _ shape: OutputShape, _ target: Double, _ ceiling: Double) -> Double?)?

    /// A validator for `profile` (Apple's system-sound rules by default).
    public init(profile: Profile = .systemSound) {
        self.profile = profile
    }

    /// Checks one file (a playlist's resources read below its own folder).
    public func validate(path: String) -> FileReport { validate(path: path, folder: nil) }

    /// Checks one file; a playlist reads the files it names below `folder` (its own folder where `nil`).
    func validate(path: String, folder: String?) -> FileReport {
        var facts = AssetFacts(path: path)
        if profile.checksPlaylists {
            // A playlist profile reads playlists and what they name; the audio rules see no file.
            let access = HLS.ResourceAccess(
                playlist: path, folder: folder, allowsNetwork: allowsNetwork, network: makeNetworkFetch?())
            facts.playlist = PlaylistInspector.inspect(path: path, fetch: access.fetcher)
            return check(facts, measure: { _ in nil })
        }
        var file: AudioFile?
        do {
            let opened = try AudioFile(path: path)
            file = opened
            facts.properties = opened.properties
            facts.summary = try AudioFileSummary(opened.properties)
        } catch let error as AudioFileError {
            facts.error = error
        } catch {
            facts.error = .illegalOperation("\(error)")
        }
        return check(facts, measure: { request in try file.flatMap { try measureAudio(of: $0, request) } })
    }

    /// The report of an output a conversion refused to make from `source` (a batch's job): the conversion's error,
    /// `message`, as the finding (rule `conversion`), fixed where the source is longer than the profile allows by
    /// the `duration` rule's own fix, as validate names it for an output too long: the source read as the output it
    /// would have been (`output`), remade from it with the options that made the others (``origin``) and `--trim`
    /// at the profile's limit, beside `output` (`afkit convert --preset system-sound --trim src/long.wav
    /// out/long-fixed.caf`).
    public func refusedConversion(source: String, output: String, message: String) -> FileReport {
        var report = FileReport(
            path: source, violations: [Violation(rule: "conversion", severity: .error, message: message)])
        let resolved = profile.resolved(for: output)
        guard
            let entry = resolved.entries.first(where: { $0.enabled && $0.rule == ValidationRule.duration.id }),
            let rule = rules[entry.rule], let file = try? AudioFile(path: source),
            let summary = try? AudioFileSummary(file.properties)
        else { return report }
        var facts = AssetFacts(path: output)
        facts.properties = file.properties
        facts.summary = summary
        facts.fixingPreset = resolved.fixingPreset
        facts.profileName = resolved.name
        facts.origin = origin?(output)
        guard let recipe = rule.check(facts, entry.settings).compactMap(\.recipe).first,
            let planned = recipe.command(for: facts)
        else { return report }
        report.violations[0].fix = planned.command
        report.violations[0].fixNote = planned.note
        report.plannedFix = planned
        return report
    }

    /// Checks bytes held in memory (the name decides the extension rule and the overrides).
    public func validate(bytes: [UInt8], name: String) -> FileReport {
        var stream = AudioFileStream(fileTypeHint: FileType(fileExtension: AssetFacts(path: name).fileExtension))
        let result = Result { () throws -> StreamProperties in
            try stream.parse(bytes) { _ in }
            try stream.finish()
            return stream.properties
        }
        return check(facts(name, result), measure: { _ in nil })
    }

    /// What is known of a file from the outcome of parsing it.
    func facts(_ name: String, _ outcome: Result<StreamProperties, any Error>) -> AssetFacts {
        var facts = AssetFacts(path: name)
        do {
            let properties = try outcome.get()
            facts.properties = properties
            facts.summary = try AudioFileSummary(properties)
        } catch let error as AudioFileError {
            facts.error = error
        } catch {
            facts.error = .io("\(name): \(error)", errno: 0)
        }
        return facts
    }

    /// Checks files and, recursively, the sound files in directories (every container afkit reads, by name:
    /// `ContainerRegistry.soundFiles(below:excluding:)`), in parallel on every core; the report names the
    /// files the walks skipped.
    public func validate(paths: [String]) throws -> ValidationReport {
        var files: [String] = []
        var skipped: [String] = []
        // A playlist found in a folder given reads below that folder.
        var folders: [String: String] = [:]
        for path in paths {
            if isDirectory(path), profile.checksPlaylists {
                let found = try Self.playlists(below: path)
                files += found
                for playlist in found { folders[playlist] = path }
            } else if isDirectory(path) {
                let found = try ContainerRegistry.soundFiles(below: path)
                files += found.files
                skipped += found.skipped
            } else {
                files.append(path)
            }
        }
        let targets = files
        let targetFolders = folders
        var report = ValidationReport(
            profile: profile.name, files: targets.parallelMap { validate(path: $0, folder: targetFolders[$0]) })
        report.skippedFiles = skipped
        return report
    }

    /// The playlists below a folder to check: every master playlist, and each media playlist no master there
    /// names (a master is always checked, even one a loop of playlists names).
    static func playlists(below folder: String) throws -> [String] {
        let found = try filesBelow(folder).filter { nameExtension(of: $0) == "m3u8" || nameExtension(of: $0) == "m3u" }
        var named = Set<String>()
        var masters = Set<String>()
        // Only what really lies below the folder is read (a link that leads out is left to the boundary's refusal).
        let real = realPath(folder) ?? "/nonexistent"
        for path in found {
            guard let bytes = try? HLS.readLocalResource(path, limit: HLS.maximumPlaylistSize, below: real),
                case .master(let master)? = try? HLS.parse(bytes)
            else { continue }
            masters.insert(path)
            for uri in master.variants.map(\.uri) + master.renditions.compactMap(\.uri) {
                named.insert(HLS.resolve(uri, against: path))
            }
        }
        return found.filter { masters.contains($0) || !named.contains($0) }
    }

    /// What the decode pass measures beyond its fixed statistics, as the active rules ask.
    struct MeasurementRequest {
        /// Silence thresholds, dBFS.
        var silenceThresholds: Set<Double> = [AudioStatistics.defaultSilenceThreshold]
        /// Measure the whole file's wrap as a loop besides the file's own loops.
        var wholeFileLoops = false
        var loudness = false
        var pictures = false
    }

    /// Runs the profile's rules over what is known.
    func check(_ facts: AssetFacts, measure: (MeasurementRequest) throws -> AudioStatistics?) -> FileReport {
        let resolved = profile.resolved(for: facts.path)
        let active = resolved.entries.filter { $0.enabled }
        var facts = facts
        facts.fixingPreset = resolved.fixingPreset
        facts.profileName = resolved.name
        facts.origin = origin?(facts.path)
        var request = MeasurementRequest()
        request.loudness =
            loudnessMeter != nil && (drawsPictures || active.contains { rules[$0.rule]?.needsLoudness == true })
        request.pictures = drawsPictures
        for entry in active {
            if let threshold = entry.settings.number("thresholdDecibels") {
                request.silenceThresholds.insert(threshold)
            }
            if entry.rule == ValidationRule.loopSeam.id, entry.settings.parameters["wholeFile"]?.boolValue == true {
                request.wholeFileLoops = true
            }
        }
        if facts.error == nil,
            request.loudness || request.pictures
                || active.contains(where: { rules[$0.rule]?.needsDecodedAudio == true })
        {
            do {
                facts.audio = try measure(request)
            } catch {
                facts.decodeError = "\(error)"
            }
            facts.loudness = facts.audio?.loudness
        }
        var violations: [Violation] = []
        // Every finding's recipe joined: one command fixes all of them, into one output.
        var recipe: FixRecipe?
        var fixed: [Int] = []
        for entry in active {
            guard let rule = rules[entry.rule] else { continue }
            // A file that cannot be parsed is reported by `malformed` alone.
            if facts.error != nil && rule.id != ValidationRule.malformed.id { continue }
            for finding in rule.check(facts, entry.settings) {
                let severity = finding.severity.map { min($0, entry.settings.severity) } ?? entry.settings.severity
                if let own = finding.recipe {
                    recipe = recipe?.joined(with: own) ?? own
                    fixed.append(violations.count)
                }
                violations.append(
                    Violation(rule: rule.id, severity: severity, message: finding.message, fix: finding.fix))
            }
        }
        var planned: PlannedFix?
        if let recipe {
            let (levelled, noFix) = levelled(recipe, facts, active)
            planned = levelled == FixRecipe() ? nil : levelled.command(for: facts)
            for index in fixed {
                if let noFix,
                    [ValidationRule.loudness.id, ValidationRule.truePeak.id, ValidationRule.clipping.id].contains(
                        violations[index].rule)
                {
                    violations[index].message += "; no fix: " + noFix
                } else if let planned {
                    violations[index].fix = planned.command
                    violations[index].fixNote = planned.note
                }
            }
        }
        var report = FileReport(path: facts.path, violations: violations)
        report.plannedFix = planned
        report.unchecked =
            facts.error != nil ? [] : active.compactMap { rules[$0.rule] }.compactMap { unchecked($0, facts) }
        report.audio = facts.audio
        report.summary = facts.summary
        if let loudness = active.first(where: { $0.rule == ValidationRule.loudness.id }) {
            let (target, tolerance) = ValidationRule.loudnessTarget(loudness.settings)
            report.loudnessBand = (target - tolerance)...(target + tolerance)
        }
        return report
    }

    /// A file's joined recipe with the loudness the profile checks: where the profile has a `loudness` rule and the
    /// fix levels the file, moves its loudness (a mix, a preset, a cut, silence trimmed) or brings its true peak
    /// under the ceiling (`true-peak`, `clipping`), the fix aims at a level
    /// the file reaches within the rule's tolerance (``FixRecipe/loudnessAim(_:target:tolerance:ceiling:reach:)``),
    /// under the profile's true-peak ceiling; or no level fix (loudness nor true peak), and why, where none will do.
    ///
    /// Where the profile checks no loudness, a finding about the peak (`true-peak`, `clipping`) is fixed by one gain
    /// instead (`--normalize-true-peak`, ``FixRecipe/peakMargin`` under the profile's ceiling or convert's): there is
    /// no loudness to keep, and a limiter held at the file's own loudness may not reach it (a click's or a clipped
    /// file's peaks carry its loudness).
    func levelled(_ recipe: FixRecipe, _ facts: AssetFacts, _ active: [Profile.Entry]) -> (FixRecipe, String?) {
        let profileCeiling = active.first { $0.rule == ValidationRule.truePeak.id }.map {
            ValidationRule.truePeakMaximum($0.settings)
        }
        let standing = loudnessReach?.truePeakCeiling ?? ValidationRule.truePeakMaximum(RuleSettings(severity: .error))
        var recipe = recipe
        guard let entry = active.first(where: { $0.rule == ValidationRule.loudness.id }) else {
            guard recipe.truePeak != nil || recipe.lowersPeak else { return (recipe, nil) }
            let ceiling = [recipe.truePeak, profileCeiling ?? standing].compactMap { $0 }.min() ?? standing
            recipe.peakLevel = ceiling - FixRecipe.peakMargin
            recipe.truePeak = nil
            recipe.keptLoudness = nil
            recipe.lowersPeak = false
            return (recipe, nil)
        }
        if recipe.lowersPeak {
            // Clipping under a loudness profile: the peaks limited at the file's own loudness, as true-peak's fix.
            recipe.lowersPeak = false
            if recipe.truePeak == nil, let level = facts.loudness?.normalizable, level.isFinite {
                recipe.keptLoudness = recipe.keptLoudness ?? level
                recipe.truePeak = profileCeiling ?? standing
            }
        }
        // (A true-peak fix levels too: the file's own loudness held under a limiter may not be met, as a click's,
        // whose peaks carry it; a level gain reaches under the ceiling within the band is.)
        guard recipe.loudness != nil || recipe.keptLoudness != nil || recipe.movesLoudness else { return (recipe, nil) }
        var result = recipe
        let (target, tolerance) = ValidationRule.loudnessTarget(entry.settings)
        // convert's own ceiling, unless the profile's is lower (then the fix says it).
        if let profileCeiling, profileCeiling < standing {
            result.truePeak = min(result.truePeak ?? profileCeiling, profileCeiling)
        }
        let ceiling = result.truePeak ?? standing
        // Aimed from the sound as the fix's output holds it, where its rate or channels differ from the file's.
        let shape = result.outputShape(for: facts)
        var measured = facts
        if let shape, let format = facts.summary?.format,
            shape.sampleRate != format.sampleRate || shape.channels != Int(format.channelsPerFrame),
            let reshaped = reshapedLoudness?(facts.path, shape)
        {
            measured.loudness = reshaped
        }
        var aimed = FixRecipe.loudnessAim(
            measured, target: target, tolerance: tolerance, ceiling: ceiling, reach: loudnessReach)
        // A preset's encoder moves the peak: the aim (or, where gain alone falls short, the band's edge) as its
        // conversion meets it.
        // (A silent or damaged file's refusal stands: only an aim, or a band gain alone falls short of, is tried.
        // An aim whose gain leaves the peak well under the ceiling is not: no encoder at the presets' rates
        // overshoots that far.)
        let peakRoom = (try? aimed.get()).flatMap { aim in
            measured.loudness.map { ceiling - ($0.truePeak + aim - $0.normalizable) }
        }
        if let shape, shape.preset != nil, let loudnessMet,
            peakRoom.map({ $0 < FixRecipe.overshootRoom }) ?? (aimed.failure?.limitingMightReach ?? false)
        {
            let lowest = FixRecipe.lowestAim(target: target, tolerance: tolerance)
            let asked = (try? aimed.get()) ?? lowest
            if let met = loudnessMet(facts.path, shape, asked, ceiling) {
                let level = (met * 10).rounded(.down) / 10
                aimed =
                    level >= lowest
                    ? .success(level)
                    : .failure(
                        NoLoudnessFix(
                            (aimed.failure != nil ? "only limiting gets there, and " : "")
                                + "as the fix's --preset \(shape.preset ?? "") makes it (its encoder's overshoot "
                                + "included), under the "
                                + "\(shortDecimal(ceiling)) dBTP ceiling, "
                                + (met.isFinite
                                    ? "it meets \(fixedPoint(met, places: 1)) LUFS at most, short of "
                                    : "no conversion of it met a level within ")
                                + "this profile's \(shortDecimal(lowest)) LUFS"))
            }
        }
        switch aimed {
        case .success(let aim):
            result.loudness = aim
            return (result, nil)
        case .failure(let why):
            // No level fix at all: limiting the peaks at the file's own level fails as the target's would.
            result.loudness = nil
            result.keptLoudness = nil
            result.truePeak = nil
            return (result, why.reason)
        }
    }

    /// Why `rule` could not be checked on a parsed file, or `nil` where it was.
    func unchecked(_ rule: ValidationRule, _ facts: AssetFacts) -> UncheckedRule? {
        let reason: String
        if rule.needsDecodedAudio && facts.audio == nil || rule.needsLoudness && facts.loudness == nil {
            let format = facts.summary.map { "'\($0.format.formatID)'" } ?? "its format"
            if facts.decodeError != nil {
                reason = "the audio cannot be decoded (see malformed)"
            } else if facts.audio == nil {
                reason =
                    "no decoder for \(format) in this validator (AssetValidator(standard:), from the AudioFileKit "
                    + "product, has every engine afkit has)"
            } else if loudnessMeter == nil {
                reason =
                    "no loudness meter in this validator (AssetValidator(standard:), from the AudioFileKit product, "
                    + "measures with libebur128)"
            } else {
                reason = "the loudness meter could not measure the audio"
            }
        } else {
            return nil
        }
        return UncheckedRule(rule: rule.id, reason: reason)
    }

    /// Decodes the valid frames once and measures everything the rules look at: peak, clipping, silence
    /// at the ends (per threshold), DC offset, stereo balance and correlation, loop seams, and loudness
    /// (fed to the meter in the same pass).
    /// `nil` where no decoder reads the format; throws where the audio cannot be decoded.
    func measureAudio(of file: AudioFile, _ request: MeasurementRequest = MeasurementRequest()) throws
        -> AudioStatistics?
    {
        let format = file.dataFormat
        // The format as the decoders take it (LOAS: whole LATM frames), as convert decodes it.
        let opened: SourceReader?
        if let sourceReaderProvider {
            opened = try sourceReaderProvider(file)
        } else if let decoder = decoderProvider(file.decodingFormat, file.properties.magicCookie) {
            opened = try SourceReader(file: file, decoder: decoder)
        } else {
            opened = nil
        }
        guard let reader = opened else { return nil }
        let channels = Int(format.channelsPerFrame)
        let thresholds = request.silenceThresholds.sorted()
        let levels = thresholds.map { Float(pow(10, $0 / 20)) }
        var firstLoud = [Int64?](repeating: nil, count: levels.count)
        var lastLoud = [Int64](repeating: -1, count: levels.count)
        let fullScale: Float = 32767 / 32768
        var peak: Float = 0
        var clippedRuns = 0
        var runs = [Int](repeating: 0, count: channels)
        var clipSpans = ClipSpans()
        // The valid frames, as the converter and the loudness meter read them (one reader for all).
        let valid = reader.frameCount ?? 0
        var position: Int64 = 0
        var samples: [Float] = []
        var sums = [Double](repeating: 0, count: channels)
        var squares = [Double](repeating: 0, count: channels)
        var crossProducts = 0.0
        let meter = request.loudness ? loudnessMeter?(channels, format.sampleRate) : nil
        var pictures =
            request.pictures
            ? PictureBuilder(frameCount: valid, sampleRate: format.sampleRate, channels: channels) : nil
        // The frames each side of every wrap, captured as the pass goes by.
        var loops = file.properties.loops.map { ($0.start, $0.end) }
        if request.wholeFileLoops { loops.append((0, valid)) }
        loops = loops.filter { $0.0 >= 0 && $0.1 > $0.0 + 2 && $0.1 <= valid }
        let width = Int64(max(LoopSeam.window, Int((LoopSeam.neighbourhood * format.sampleRate).rounded())))
        var windows: [(range: Range<Int64>, samples: [Float])] = loops.flatMap { loop in
            let before: (range: Range<Int64>, samples: [Float]) = (max(loop.0, loop.1 - width)..<loop.1, [])
            let after: (range: Range<Int64>, samples: [Float]) = (loop.0..<min(loop.1, loop.0 + width), [])
            return [before, after]
        }
        while true {
            samples.removeAll(keepingCapacity: true)
            let frames = try reader.read(maximum: 16384, into: &samples)
            if frames == 0 { break }
            if let meter {
                samples.withUnsafeBufferPointer { meter.add($0, frames: frames) }
            }
            if pictures != nil {
                samples.withUnsafeBufferPointer { pictures?.add($0, frames: frames) }
            }
            for index in windows.indices {
                let range = windows[index].range.clamped(to: position..<position + Int64(frames))
                guard !range.isEmpty else { continue }
                let from = Int(range.lowerBound - position) * channels
                windows[index].samples += samples[from..<from + range.count * channels]
            }
            for index in 0..<frames {
                var loudest: Float = 0
                if channels == 2 { crossProducts += Double(samples[index * 2]) * Double(samples[index * 2 + 1]) }
                for channel in 0..<channels {
                    let sample = Double(samples[index * channels + channel])
                    sums[channel] += sample
                    squares[channel] += sample * sample
                    let value = abs(samples[index * channels + channel])
                    loudest = max(loudest, value)
                    if value >= fullScale {
                        runs[channel] += 1
                        // A run of three or more samples of a channel at full scale: counted once, drawn whole.
                        if runs[channel] == 3 { clippedRuns += 1 }
                        if runs[channel] >= 3 {
                            clipSpans.mark(position + Int64(index), newRunOf: runs[channel] == 3 ? 3 : nil)
                        }
                    } else {
                        runs[channel] = 0
                    }
                }
                peak = max(peak, loudest)
                for (level, threshold) in levels.enumerated() where loudest > threshold {
                    let at = position + Int64(index)
                    if firstLoud[level] == nil { firstLoud[level] = at }
                    lastLoud[level] = at
                }
            }
            position += Int64(frames)
        }
        // What was measured: the valid frames the file holds (fewer where it is cut short).
        let measured = position
        let counted = Double(measured)
        let rate = format.sampleRate
        var statistics = AudioStatistics(peak: peak, clippedRuns: clippedRuns)
        statistics.frameCount = measured
        statistics.concealedPackets = reader.concealedPackets
        statistics.concealedPlaces = reader.concealedPlaces
        for (level, threshold) in thresholds.enumerated() {
            statistics.silence[threshold] = SilenceSpan(
                leading: Double(firstLoud[level] ?? measured) / rate,
                trailing: Double(measured - 1 - lastLoud[level]) / rate,
                isSilent: firstLoud[level] == nil && measured > 0)
        }
        if counted > 0 {
            statistics.dcOffset = sums.map { abs($0 / counted) }.max() ?? 0
            let power = squares.reduce(0, +) / (counted * Double(channels))
            statistics.rmsDecibels = power > 0 ? 10 * log10(power) : -Double.infinity
            if channels == 2, squares[0] > 0, squares[1] > 0 {
                statistics.channelBalance = 10 * log10(squares[0] / squares[1])
                statistics.correlation = crossProducts / (squares[0] * squares[1]).squareRoot()
            }
        }
        statistics.loopSeams = loops.enumerated().map { index, loop in
            LoopSeam(
                start: loop.0, end: loop.1, before: windows[index * 2].samples, after: windows[index * 2 + 1].samples,
                channels: channels)
        }
        statistics.loudness = meter?.facts
        if var drawn = pictures?.finish() {
            drawn.clippedSpans = clipSpans.spans
            // (The picture shows the frames the jumps are measured over.)
            let drawnSamples = LoopSeam.window * channels
            drawn.seams = loops.enumerated().map { index, loop in
                AssetPictures.Seam(
                    start: loop.0, end: loop.1, before: Array(windows[index * 2].samples.suffix(drawnSamples)),
                    after: Array(windows[index * 2 + 1].samples.prefix(drawnSamples)))
            }
            statistics.pictures = drawn
        }
        return statistics
    }
}

extension AssetFacts {
    init(path: String) {
        self.path = path
    }
}

extension AssetValidator {
    /// Checks a stream of byte chunks (a download, a pipe) as it arrives; `name` decides the
    /// extension rule and the overrides. Rules that need decoded audio pass over streams.
    public func validate<Chunks: AsyncSequence>(chunks: Chunks, name: String) async -> FileReport
    where Chunks.Element == [UInt8] {
        var stream = AudioFileStream(fileTypeHint: FileType(fileExtension: AssetFacts(path: name).fileExtension))
        let outcome: Result<StreamProperties, any Error>
        do {
            for try await chunk in chunks { try stream.parse(chunk) { _ in } }
            try stream.finish()
            outcome = .success(stream.properties)
        } catch {
            outcome = .failure(error)
        }
        return check(facts(name, outcome), measure: { _ in nil })
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
