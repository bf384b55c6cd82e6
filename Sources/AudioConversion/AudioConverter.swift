import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

/// Carries out a ``ConversionPlan``: decode → channel mix → resample → dither → encode → write,
/// streaming in bounded memory, over the codec registry. Copying packets untouched is one route, and
/// linear PCM that converts without loss is rewritten from the stored samples, never through Float32.
public enum AudioConverter {
    /// afkit's version, recorded in what it makes.
    public static let version = "0.2.0"

    /// The codecs conversions use.
    public static let registry = AudioCodecRegistry.standard

    /// Whole or said: a source whose packets hold audio but whose counts leave no valid frame (priming and
    /// remainder covering every frame, a header page's granule position of 2^63-1), or that is cut short before
    /// its first frame, is damaged, and refused by name, never converted into an empty output with success (nor
    /// scanned into an empty report: `done` says what nothing was).
    static func checkHoldsValidFrames(_ source: SourceReader, input: String, done: String = "converted") throws {
        guard source.frameCount == 0, let file = source.audioFile else { return }
        if let damage = file.properties.damage.first {
            // Audio the file holds, none of it readable: refused, never an empty output.
            throw AudioFileError.malformed(
                "\(input): no frame of its audio could be read (\(damage)); nothing was \(done)",
                offset: file.properties.dataOffset)
        }
        if file.properties.isTruncated {
            // A file cut short before its first whole frame: its audio is missing, not silent.
            throw AudioFileError.malformed(
                "\(input): the file is cut short before its first whole frame of audio: nothing was \(done)",
                offset: file.properties.dataOffset)
        }
        guard file.packetCount > 0, let summary = try? AudioFileSummary(file.properties), summary.dataByteCount > 0
        else { return }
        throw AudioFileError.malformed(
            "\(input): its \(summary.packetCount) packets hold \(summary.dataByteCount) bytes of audio, but the file's "
                + "counts leave no valid frame (\(summary.primingFrames) priming, \(summary.remainderFrames) remainder "
                + "frames): they are damaged; nothing was \(done)",
            offset: summary.dataOffset)
    }

    /// Converts `input` to `output`. The output appears complete or not at all: it is written to a hidden
    /// file in the same folder and renamed into place; on any failure nothing is left behind. `destination` is
    /// the one the caller worked out while checking its options (`nil`: worked out here, from `output`'s name).
    @discardableResult
    public static func convert(
        input: String, output: String, destination: ConversionPlan.Destination? = nil, settings: ConversionSettings
    ) throws -> ConversionResult {
        let destination = try destination ?? ConversionPlan.Destination(output: output, settings: settings)
        do {
            return try convertOnce(input: input, output: output, destination: destination, settings: settings)
        } catch var refusal as LoudnessRefusal {
            if refusal.isLossy, let suggestion = refusal.suggestion {
                refusal.suggestion = try confirmedTarget(
                    from: suggestion, allowance: refusal.allowance, prelude: refusal.prelude, input: input,
                    output: output, destination: destination, settings: settings)
            }
            throw refusal.error
        }
    }

    /// The loudness target a conversion of `input` to `output` meets, `settings.loudness` asked: that one where
    /// it is met (the output then written), else the loudest the refusal names (for a lossy output, once a fresh
    /// conversion there met it; the output is not written), else `nil`. What the validator's fixes aim at, so a fix
    /// is only offered at a target its conversion meets. The destination is `output`'s, unless given (as
    /// ``convert(input:output:destination:settings:)`` takes it).
    public static func loudnessMet(
        input: String, output: String, destination: ConversionPlan.Destination? = nil, settings: ConversionSettings
    ) throws -> Double? {
        guard let asked = settings.loudness?.integrated else { return nil }
        let destination = try destination ?? ConversionPlan.Destination(output: output, settings: settings)
        do {
            _ = try convertOnce(input: input, output: output, destination: destination, settings: settings)
            return asked
        } catch let refusal as LoudnessRefusal {
            guard let suggestion = refusal.suggestion else { return nil }
            guard refusal.isLossy else { return suggestion }
            return try confirmedTarget(
                from: suggestion, allowance: refusal.allowance, prelude: refusal.prelude, input: input,
                output: output, destination: destination, settings: settings)
        }
    }

    /// The loudest target from `suggestion` down that a conversion actually meets (a lossy encoder's overshoot
    /// moves with the target, so a suggestion is only a promise once converted): each try writes a hidden file
    /// beside the output, removed after, starting from what the encodes before learned of the encoder
    /// (`allowance`: the ceiling its overshoot asked, the loudness it adds or takes), so one encode confirms a
    /// target where a run that learns it afresh takes two (that run's first encode learns it, and its prediction
    /// aims the second); a refused try's own suggestion (or 0.5 LU less) is tried next, up to three tries; `nil`
    /// when none met it.
    static func confirmedTarget(
        from suggestion: Double, allowance: EncoderAllowance?, prelude: NormalizationPrelude?, input: String,
        output: String, destination: ConversionPlan.Destination, settings: ConversionSettings
    ) throws -> Double? {
        guard var target = settings.loudness else { return nil }
        var candidate = suggestion
        var prelude = prelude
        var allowance = allowance
        let trial = temporaryPath(beside: output) + pathParts(output).extension
        TemporaryFiles.register(trial)
        defer {
            removeFile(trial)
            TemporaryFiles.unregister(trial)
        }
        for _ in 0..<3 {
            var attempt = settings
            target.integrated = candidate
            attempt.loudness = target
            attempt.encoderAllowance = allowance
            // (What the refused conversion measured before it aimed is the same at any target.)
            attempt.normalizationPrelude = prelude
            attempt.synchronizesFolder = false
            attempt.deferredCommit = nil
            do {
                _ = try convertOnce(input: input, output: trial, destination: destination, settings: attempt)
                return candidate
            } catch let refused as LoudnessRefusal {
                prelude = refused.prelude ?? prelude
                allowance = refused.allowance ?? allowance
                candidate = min(refused.suggestion ?? candidate - 0.5, candidate - 0.1)
                candidate = (candidate * 10).rounded(.down) / 10
            } catch {
                return nil  // the try failed for another reason: no target is named
            }
        }
        return nil
    }

    /// One conversion, without a refused target's confirmation.
    static func convertOnce(
        input: String, output: String, destination: ConversionPlan.Destination, settings: ConversionSettings
    ) throws -> ConversionResult {
        // The source's content hash seeds PCM's dither. A batch has it; where integer PCM is asked for, it is
        // taken in the read that opens the source (elsewhere, the plan reads it only if it dithers after all).
        let source = try settings.openSource(
            input, hashingContent: settings.sourceContentHash == nil && destination.mayDither)
        try checkHoldsValidFrames(source, input: input)
        var plan = try ConversionPlan(source: source, destination: destination, settings: settings)
        // The part of the source taken: silence cut at the ends (a pass of its own: where the sound
        // starts and ends is known only at the end), then the duration limit.
        let cut = try settings.silenceThreshold.map {
            try silenceCut(of: try settings.openSource(input), threshold: $0, input: input)
        }
        try plan.take(from: source, input: input, cut: cut)
        var normalizer: (any LevelNormalizer)?
        var mix = MixReport()
        var gainOverloads = 0
        if let target = settings.loudness {
            normalizer = try LoudnessNormalizer(
                target: target, input: input, format: plan.format, resampler: settings.resampler, render: plan.render,
                open: { try settings.openSource(input) }, start: settings.encoderAllowance,
                prelude: settings.normalizationPrelude, expectedFrames: plan.expectedFrameCount,
                progress: settings.progress.map {
                    LoudnessNormalizer.Progress(report: $0, expectedFrames: plan.expectedFrameCount)
                })
        } else if let target = settings.peak {
            normalizer = try PeakNormalizer(
                target: target, input: input, format: plan.format, resampler: settings.resampler, render: plan.render,
                open: { try settings.openSource(input) })
        }
        if let normalizer { plan.setLevel(from: normalizer) }
        // A lossy output's normalizer tries each next round on the prediction of the last one's error: the signal a
        // round gives its encoder is kept for it (a float CAF in the temporary folder, while the conversion runs).
        let loudness = normalizer as? LoudnessNormalizer
        // (Created with O_EXCL|O_NOFOLLOW under a random name, held as this process's own file while it is rewritten.)
        let given =
            loudness?.predictsEncodes == true
            ? try createTemporaryFile(beside: TemporaryFiles.folder + "/afkit-given") : nil
        loudness?.givenSignal = given
        defer { given.map(TemporaryFiles.discard) }
        // What the decoder concealed (damaged packets replaced with silence), said with the other notes.
        var concealment: String?
        let (frames, table) = try writeAtomically(
            output, synchronizingFolder: settings.synchronizesFolder, deferringCommit: settings.deferredCommit
        ) { temporary in
            var reader = source
            // The rounds a normalizer runs, a trial among them: the second on says its number to the progress.
            var round = 1
            while true {
                // A first encode that is all but never kept is tried in parts at once first (LoudnessNormalizer.
                // triesEncode): where the trial misses, the level is aimed again by it; where it meets, encoded whole.
                if let loudness, let given, loudness.triesEncode, plan.loopWrap == 0,
                    case let parts = TrialEncode.parts(
                        seconds: Double(plan.expectedFrameCount ?? 0) / plan.format.sampleRate),
                    parts > 1
                {
                    let met = try tryEncode(
                        plan, from: reader, given: given, parts: parts, normalizer: loudness, mixReport: { mix = $0 },
                        gainReport: { gainOverloads = $0 })
                    reader = try settings.openSource(input)
                    round += 1
                    if !met {
                        plan.setLevel(from: loudness)
                        continue
                    }
                }
                let encoder = try plan.takeEncoder()
                let writer = try AudioFileWriter(
                    path: temporary, fileType: plan.fileType, format: plan.format,
                    options: plan.writerOptions)
                let written: (Int64, PacketTableInfo?)
                let tee = try given.map { try signalWriter(plan, at: $0) }
                do {
                    written = try run(
                        plan, encoder: encoder, from: reader, to: writer, open: { try settings.openSource(input) },
                        limiterReport: { normalizer?.limiterReduction = $0 }, mixReport: { mix = $0 },
                        gainReport: { gainOverloads = $0 },
                        tee: tee.map { tee in { try tee.writePackets(UnsafeRawBufferPointer($0)) } },
                        activity: round > 1 ? "encoding, round \(round)" : nil)
                    try tee?.close()
                } catch {
                    writer.cancel()
                    tee?.cancel()
                    throw error
                }
                // A normalized output is measured as decoded; the gain or the limiter's ceiling is corrected
                // until it meets the target and the ceiling, and the source is read again for another round.
                concealment = reader.concealmentNote
                guard let normalizer, try !normalizer.accepts(outputAt: temporary) else {
                    if settings.checksClipping { try checkClipping(of: temporary, against: input) }
                    return written
                }
                plan.setLevel(from: normalizer)
                reader = try settings.openSource(input)
                round += 1
            }
        }
        var result = ConversionResult(
            outputPath: output, format: plan.format, fileType: plan.fileType, frameCount: frames,
            packetTableInfo: table, notes: plan.notes + (concealment.map { [$0] } ?? []))
        // (A float output keeps samples past full scale: nothing clips in it.)
        let keepsOverloads = plan.format.formatID == .lpcm && plan.format.formatFlags.contains(.isFloat)
        if gainOverloads > 0 && !keepsOverloads && settings.edits.gain != nil {
            result.notes.append(
                "--gain \(shortDecimal(settings.edits.gain ?? 0)) dB took \(gainOverloads) samples past full scale, which "
                    + "clip in the output: lower the gain, or use --loudness with its limiter")
        }
        if mix.overloads > 0 {
            result.notes.append(
                "the mix took \(mix.overloads) samples past full scale, which clip in the output: scale its rows down so "
                    + "each row's gains sum to 1 or less")
        }
        if let fall = mix.levelFall, fall >= MonoFold.cancellingFall {
            result.notes.append(
                "mixed to \(plan.format.channelsPerFrame) channel\(plan.format.channelsPerFrame == 1 ? "" : "s"), the "
                    + "sound cancels: it is \(fall.isFinite ? "\(Int(fall.rounded())) dB" : "wholly") quieter than the "
                    + "source, whose channels are out of phase; take one channel as it is (-m 0), or mend the phase")
        }
        if plan.loopWrap > 0 {
            result.notes.append(
                "the output loops whole: the encoder was given the loop's last \(plan.loopWrap) frames before its "
                    + "first and its first after its last, recorded as priming and remainder, so the wrap is coded as it "
                    + "plays (the valid frames are the loop's own)")
        }
        result.normalization = normalizer?.outcome
        result.normalizationPrelude = (normalizer as? LoudnessNormalizer)?.prelude
        result.trimmedFrames = plan.trimmedFrames
        result.timeline = plan.timeline
        result.chapters = plan.placedChapters
        result.sourceFormat = source.format
        result.sourceFrameCount = source.frameCount
        result.route = plan.route(for: source)
        return result
    }

    /// Writes the plan's frames of `source` by the plan's route, through `encoder` (`nil`: the packets are
    /// copied), a whole loop's wrap around them (``ConversionPlan/loopWrap``, its end rendered from a source `open`
    /// gives); returns the valid frames written and the packet table recorded. `activity`: what the progress says
    /// while it writes (a normalizer's later rounds number themselves).
    private static func run(
        _ plan: ConversionPlan, encoder: (any AudioEncoder)?, from source: SourceReader, to writer: AudioFileWriter,
        open: () throws -> SourceReader, limiterReport: ((Double) -> Void)? = nil,
        mixReport: ((MixReport) -> Void)? = nil,
        gainReport: ((Int) -> Void)? = nil, tee: ((UnsafeBufferPointer<Float>) throws -> Void)? = nil,
        activity: String? = nil
    ) throws -> (Int64, PacketTableInfo?) {
        let format = plan.format
        var packets = EncodedPackets()
        var framesWritten: Int64 = 0
        func write() throws {
            guard packets.packetCount > 0 || !packets.bytes.isEmpty else { return }
            if let progress = plan.settings.progress {
                framesWritten +=
                    format.framesPerPacket > 0
                    ? Int64(packets.packetCount) * Int64(format.framesPerPacket)
                    : packets.descriptions.reduce(0) { $0 + Int64($1.variableFramesInPacket) }
                progress(
                    ConversionProgress(
                        framesWritten: framesWritten, expectedFrames: plan.expectedFrameCount,
                        sampleRate: format.sampleRate, activity: activity))
            }
            try writer.writeEncoded(&packets)
        }
        guard var encoder else {
            guard var copier = plan.copier else {
                throw AudioFileError.illegalOperation("convert: a plan with no encoder")
            }
            while try copier.copyPackets(maximum: 256, into: &packets) { try write() }
            try writer.close(packetTableInfo: copier.packetTableInfo)
            return (copier.validFrames, copier.packetTableInfo)
        }

        var outputFrames: Int64 = 0
        // Frames of a whole loop's wrap encoded before and after the output's own (ConversionPlan.loopWrap).
        var wrapFrames = (before: 0, after: 0)
        // Reads the plan's frames exactly as stored (or as an ADPCM decoder's integers), a block at a
        // time, handing each to `take`.
        func readExactly(_ take: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
            var stored: [UInt8] = []
            source.skipFrames(plan.render.start)
            while true {
                var want = 16384
                if let limit = plan.render.count { want = Int(min(Int64(want), limit - outputFrames)) }
                let count = want > 0 ? try source.readExact(maximum: want, into: &stored) : 0
                if count == 0 { break }
                try stored.withUnsafeBytes { try take($0, count) }
                outputFrames += Int64(count)
            }
        }
        switch (plan.route(for: source), source.exactLayout, encoder) {
        case (.exactPCM, let from?, _):
            let to = try PCMLayout(format)
            try readExactly { input, count in
                let samples = count * source.channels
                packets.bytes.append(contentsOf: repeatElement(0, count: samples * to.width))
                packets.bytes.withUnsafeMutableBytes { PCM.transcode(input, from, count: samples, to: to, into: $0) }
                packets.packetCount = count
                try write()
            }
        case (.integers, let from?, var integer as any IntegerSampleEncoder):
            // Stored integers into an integer encoder (ALAC): every bit kept, whatever the depth.
            var words: [UInt32] = []
            try readExactly { input, count in
                let samples = count * source.channels
                if words.count < samples { words = Array(repeating: 0, count: samples) }
                try words.withUnsafeMutableBufferPointer { buffer in
                    let part = UnsafeMutableBufferPointer(rebasing: buffer[0..<samples])
                    PCM.loadLeftJustified(input, from, into: part)
                    try part.withMemoryRebound(to: Int32.self) {
                        try integer.encode(leftJustified: UnsafeBufferPointer($0), into: &packets)
                    }
                }
                try write()
            }
            encoder = integer
        default:
            let channels = Int(format.channelsPerFrame)
            let wrap = plan.loopWrap * channels
            // The loop's end first, and its start kept as it goes by, for after its end.
            if wrap > 0 {
                let end = try loopEnd(of: plan, from: open(), samples: wrap)
                try end.withUnsafeBufferPointer { try encoder.encode($0, into: &packets) }
                wrapFrames.before = end.count / channels
            }
            var start: [Float] = []
            outputFrames = try render(
                source, sampleRate: format.sampleRate, channels: channels,
                resampler: plan.settings.resampler, plan: plan.render, limiterReport: limiterReport,
                mixReport: mixReport, gainReport: gainReport
            ) { samples in
                if start.count < wrap { start += samples.prefix(wrap - start.count) }
                try tee?(samples)
                try encoder.encode(samples, into: &packets)
                try write()
            }
            if wrap > 0 {
                try start.withUnsafeBufferPointer { try encoder.encode($0, into: &packets) }
                wrapFrames.after = start.count / channels
            }
        }
        let remainder = try encoder.finish(into: &packets) + wrapFrames.after
        try write()
        let table = try writer.close(
            encodedBy: encoder, validFrames: outputFrames, remainderFrames: remainder,
            primingFrames: encoder.primingFrames + wrapFrames.before)
        return (outputFrames, table)
    }

    /// A round tried on a ``TrialEncode``: the plan's signal rendered into `given`, encoded in `parts` parts at once,
    /// decoded and measured by `normalizer`, which aims the next round by it where it misses; returns whether it met.
    private static func tryEncode(
        _ plan: ConversionPlan, from source: SourceReader, given: String, parts: Int,
        normalizer: LoudnessNormalizer, mixReport: ((MixReport) -> Void)?, gainReport: ((Int) -> Void)?
    ) throws -> Bool {
        guard let encoderSettings = plan.encoderSettings else {
            throw AudioFileError.illegalOperation("convert: a trial encode of a plan with no encoder")
        }
        let format = plan.format
        let channels = Int(format.channelsPerFrame)
        let (progress, expected, rate) = (plan.settings.progress, plan.expectedFrameCount, format.sampleRate)
        let signal = try signalWriter(plan, at: given)
        do {
            var rendered: Int64 = 0
            _ = try render(
                source, sampleRate: rate, channels: channels, resampler: plan.settings.resampler, plan: plan.render,
                limiterReport: { normalizer.limiterReduction = $0 }, mixReport: mixReport, gainReport: gainReport
            ) { samples in
                try signal.writePackets(UnsafeRawBufferPointer(samples))
                rendered += Int64(samples.count / channels)
                progress?(
                    ConversionProgress(
                        framesWritten: rendered, expectedFrames: expected, sampleRate: rate,
                        activity: "rendering for a trial encode"))
            }
            try signal.close()
        } catch {
            signal.cancel()
            throw error
        }
        let trial = try createTemporaryFile(beside: TemporaryFiles.folder + "/afkit-trial")
        defer { TemporaryFiles.discard(trial) }
        try TrialEncode(settings: encoderSettings, registry: plan.registry).decode(
            signal: given, into: trial, parts: parts, progress: progress)
        return try normalizer.accepts(outputAt: trial)
    }

    /// A writer of the float signal a lossy round gives its encoder (CAF, 32-bit float, the output's rate and
    /// channels), at `path`.
    private static func signalWriter(_ plan: ConversionPlan, at path: String) throws -> AudioFileWriter {
        try AudioFileWriter(
            path: path, fileType: .caf,
            format: .linearPCM(
                sampleRate: plan.format.sampleRate, channels: plan.format.channelsPerFrame, bitsPerChannel: 32,
                isFloat: true))
    }

    /// The last `samples` of the plan's output, rendered apart from `source` (a fresh reader) with 4096 frames more
    /// before them, so a resampler's filter and the limiter are under way where they begin.
    private static func loopEnd(of plan: ConversionPlan, from source: SourceReader, samples: Int) throws -> [Float] {
        let scale = plan.format.sampleRate / source.sampleRate
        let channels = Int(plan.format.channelsPerFrame)
        guard let taken = plan.render.count ?? source.frameCount.map({ $0 - plan.render.start }) else { return [] }
        let frames = min(taken, Int64((Double(samples / channels) / scale).rounded(.up)) + 4096)
        var part = plan.render
        part.start += taken - frames
        part.count = frames
        var rendered: [Float] = []
        _ = try render(
            source, sampleRate: plan.format.sampleRate, channels: channels, resampler: plan.settings.resampler,
            plan: part
        ) { rendered += $0 }
        return Array(rendered.suffix(samples))
    }

    /// Decode → cut and fade → channel mix → resample → DC blocked → gain → limit: the plan's part of `source` as
    /// interleaved Float32 frames of `channels` at `sampleRate`, handed to `deliver` a block at a time;
    /// returns the frames delivered (exactly the taken frames at the new rate).
    static func render(
        _ source: SourceReader, sampleRate: Double, channels outChannels: Int,
        resampler choice: ResamplerChoice, plan: RenderPlan, limiterReport: ((Double) -> Void)? = nil,
        mixReport: ((MixReport) -> Void)? = nil, gainReport: ((Int) -> Void)? = nil,
        _ deliver: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws -> Int64 {
        let mixer =
            plan.mixMatrix.map(ChannelMixer.init(gains:)) ?? ChannelMixer(from: source.channels, to: outChannels)
        let countsOverloads = plan.mixMatrix != nil && mixReport != nil
        // A mix to fewer channels: the level it keeps, for a note where the channels cancel.
        let weighsMix = mixReport != nil && mixer.outputChannels < mixer.inputChannels
        var report = MixReport()
        defer { if countsOverloads || weighsMix { mixReport?(report) } }
        let resampler =
            sampleRate == source.sampleRate
            ? nil : try choice.make(from: source.sampleRate, to: sampleRate, channels: outChannels)
        let gain = plan.linearGain
        let curve = plan.levelCurve
        var blocker = plan.removesDC ? DCBlocker(channels: outChannels, sampleRate: sampleRate) : nil
        // A gain of the user's (no limiter behind it) that takes samples past full scale: counted, for a note.
        let countsGain = gainReport != nil && plan.limiterCeiling == nil && gain > 1
        var gainOverloads = 0
        let limiter = plan.limiterCeiling.map {
            TruePeakLimiter(channels: outChannels, sampleRate: sampleRate, ceilingDecibels: $0)
        }
        source.skipFrames(plan.start)
        /// Silence (`--pad`), a bounded block at a time, straight to the output: nothing to mix, scale or limit.
        func silence(_ frames: Int64) throws {
            var left = frames
            while left > 0 {
                let count = Int(min(left, 65536))
                try [Float](repeating: 0, count: count * outChannels).withUnsafeBufferPointer(deliver)
                left -= Int64(count)
            }
        }
        try silence(plan.padStart)
        defer { if countsGain { gainReport?(gainOverloads) } }
        var block: [Float] = []
        var mixed: [Float] = []
        var resampled: [Float] = []
        var scaled: [Float] = []
        var limited: [Float] = []
        var keptForMends = [[Float]](repeating: [], count: plan.resampledLoopCrossfades.count)
        var inputFrames: Int64 = 0
        var outputFrames: Int64 = 0
        var expected: Int64 { Int64(saturating: Double(inputFrames) * sampleRate / source.sampleRate) }
        let upsampling = sampleRate / source.sampleRate

        func emit(_ samples: [Float], final: Bool) throws {
            // Exactly the expected length: resamplers may give a frame or two more or less at the end.
            var count = samples.count / outChannels
            if final { count = Int(min(Int64(count), expected - outputFrames)) }
            guard count > 0 else { return }
            let position = plan.padStart + outputFrames
            let taken = outputFrames
            outputFrames += Int64(count)
            let mends = plan.resampledLoopCrossfades
            guard gain != 1 || limiter != nil || curve != nil || !mends.isEmpty || blocker != nil else {
                try samples.withUnsafeBufferPointer {
                    try deliver(UnsafeBufferPointer(rebasing: $0[0..<count * outChannels]))
                }
                return
            }
            scaled.removeAll(keepingCapacity: true)
            scaled.append(contentsOf: samples[0..<count * outChannels])
            for (index, mend) in mends.enumerated() {
                mend.apply(&scaled, kept: &keptForMends[index], channels: outChannels, at: taken, frames: count)
            }
            blocker?.apply(&scaled, frames: count)
            curve?.apply(&scaled, channels: outChannels, from: position, frames: count)
            if gain != 1 { for index in scaled.indices { scaled[index] *= gain } }
            if countsGain { gainOverloads += ChannelMixer.overloads(scaled[...]) }
            guard let limiter else { return try scaled.withUnsafeBufferPointer(deliver) }
            limited.removeAll(keepingCapacity: true)
            scaled.withUnsafeBufferPointer { limiter.process($0, frames: count, into: &limited) }
            if !limited.isEmpty { try limited.withUnsafeBufferPointer(deliver) }
        }

        while true {
            block.removeAll(keepingCapacity: true)
            // Upsampling reads fewer frames at a time, so no block's output passes ~64 Ki frames whatever
            // the ratio (a 1 Hz source made 48 kHz): memory never grows with the output's length.
            var want = upsampling > 8 ? max(1, Int(65536 / upsampling)) : 8192
            if let limit = plan.count { want = Int(min(Int64(want), limit - inputFrames)) }
            let frames = want > 0 ? try source.read(maximum: want, into: &block) : 0
            if frames == 0 { break }
            for crossfade in plan.loopCrossfades {
                crossfade.apply(&block, channels: source.channels, at: plan.start + inputFrames, frames: frames)
            }
            plan.fade(&block, channels: source.channels, from: inputFrames, frames: frames)
            inputFrames += Int64(frames)
            if !mixer.isIdentity {
                mixed.removeAll(keepingCapacity: true)
                block.withUnsafeBufferPointer { mixer.mix($0, frames: frames, into: &mixed) }
                if countsOverloads { report.overloads += ChannelMixer.overloads(mixed[...]) }
                if weighsMix {
                    report.inputEnergy += block.reduce(0) { $0 + Double($1 * $1) } / Double(source.channels)
                    report.outputEnergy += mixed.reduce(0) { $0 + Double($1 * $1) } / Double(outChannels)
                }
            }
            let channelled = mixer.isIdentity ? block : mixed
            if let resampler {
                resampled.removeAll(keepingCapacity: true)
                try channelled.withUnsafeBufferPointer { try resampler.process($0, frames: frames, into: &resampled) }
                let room = Int(expected - outputFrames)
                if resampled.count / outChannels > room { resampled.removeLast(resampled.count - room * outChannels) }
                try emit(resampled, final: false)
            } else {
                try emit(channelled, final: false)
            }
        }
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            try resampler.finish(into: &resampled)
            try emit(resampled, final: true)
            // Pad the last frames the filter did not give back with silence, a bounded block at a time.
            while outputFrames < expected {
                try emit(
                    [Float](repeating: 0, count: Int(min(expected - outputFrames, 65536)) * outChannels), final: true)
            }
        }
        if let limiter {
            limited.removeAll(keepingCapacity: true)
            limiter.finish(into: &limited)
            if !limited.isEmpty { try limited.withUnsafeBufferPointer(deliver) }
            limiterReport?(limiter.deepestReduction)
        }
        try silence(plan.padEnd)
        return outputFrames + plan.padStart + plan.padEnd
    }
}

extension FileType {
    var isAIFF: Bool { self == .aiff || self == .aifc }
}

extension AudioConverter {
    /// `--check-clip`: the output written at `path`, decoded, must clip no more than the source (counted as
    /// `afkit clip` counts); otherwise the conversion fails and nothing is written.
    static func checkClipping(of path: String, against input: String) throws {
        let output = try ClipScanner.scan(path: path).report
        let outputCount = output.total
        guard outputCount > 0 else { return }
        let sourceCount = try ClipScanner.scan(path: input).report.total
        guard outputCount > sourceCount else { return }
        let first = output.runs.first.map { " (the first at frame \($0.start))" } ?? ""
        throw AudioFileError.limitExceeded(
            "'\(input)': the output clips once decoded, \(outputCount) time\(outputCount == 1 ? "" : "s") on the sample "
                + "grid and between samples\(first), where the source clips \(sourceCount) time\(sourceCount == 1 ? "" : "s"): "
                + "lower the level (--loudness with a lower --true-peak) or choose a higher bit rate; nothing was "
                + "written (--check-clip)", offset: nil)
    }
}

extension AudioFileWriter {
    /// Writes an encoder's packets (their descriptions where the format's packets vary) and empties them:
    /// the converter's and ExtendedAudioFile's one way to hand encoded packets to a file.
    func writeEncoded(_ packets: inout EncodedPackets) throws {
        try writePackets(packets.bytes, descriptions: format.hasConstantPackets ? nil : packets.descriptions)
        packets.removeAll()
    }

    /// Closes a file an encoder wrote, recording its priming (the encoder's, unless given) and remainder around
    /// `validFrames` where there is any (or where packets hold more than a frame) and its final cookie; returns the
    /// table recorded.
    @discardableResult
    func close(
        encodedBy encoder: any AudioEncoder, validFrames: Int64, remainderFrames: Int, primingFrames: Int? = nil
    ) throws -> PacketTableInfo? {
        let priming = primingFrames ?? encoder.primingFrames
        let table: PacketTableInfo? =
            priming > 0 || remainderFrames > 0 || format.framesPerPacket != 1
            ? PacketTableInfo(
                validFrames: validFrames, primingFrames: Int32(priming), remainderFrames: Int32(remainderFrames))
            : nil
        try close(packetTableInfo: table, magicCookie: encoder.magicCookie)
        return table
    }
}
