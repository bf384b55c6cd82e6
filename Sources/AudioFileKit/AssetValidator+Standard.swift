import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import FileAccess

extension AssetValidator {
    /// A validator for `profile` with every engine afkit has, as `afkit validate` checks: the standard
    /// registry's decoders and convert's own reader (libsndfile included), so the rules measure what
    /// `convert` writes, and libebur128's loudness meter (measured only for profiles whose rules ask for
    /// loudness, or for the pictures `drawsPictures` asks for).
    ///
    /// `AssetValidator.init(profile:)` alone has afkit's pure-Swift decoders and no meter: the rules it cannot
    /// check are listed in each report's `FileReport.unchecked`, never passed.
    public init(standard profile: Profile, drawsPictures: Bool = false) {
        self.init(profile: profile)
        self.drawsPictures = drawsPictures
        loudnessMeter = { channels, rate in
            (try? LoudnessMeter(channels: channels, sampleRate: rate)).map {
                ValidatorMeter($0, locatesTruePeak: drawsPictures)
            }
        }
        decoderProvider = { format, cookie in
            try? AudioCodecRegistry.standard.decoder(for: format, magicCookie: cookie)
        }
        sourceReaderProvider = { file in try SourceReader(pipelineFile: file) }
        loudnessReach = LoudnessReach(
            truePeakCeiling: LoudnessTarget.defaultTruePeakCeiling, headroom: LoudnessTarget.limiterHeadroom)
        reshapedLoudness = { path, shape in
            try? Self.loudness(of: path, at: shape.sampleRate, channels: shape.channels, pick: shape.channelPick)
        }
        loudnessMet = { path, shape, target, ceiling in
            Self.loudnessMet(of: path, as: shape, target: target, ceiling: ceiling)
        }
    }

    /// The most samples (frames × channels) a sound a fix's preset is run on to learn the loudness its conversion
    /// meets may hold: a minute of stereo at 48 kHz (an effect, a line of dialogue; a few encodes of it). The
    /// conversion holds the decoded sound while it levels it, so a longer or wider one is not converted, and
    /// validate's memory stays that of a short file.
    static let convertedShapeSamples = 60 * 48_000 * 2

    /// The loudness target converting the file at `path` with `shape`'s preset, rate and channels meets, asked
    /// for `target` under `ceiling` dBTP (``AudioConverter/loudnessMet(input:output:destination:settings:)``), into a temporary
    /// CAF removed after: `target`, or the loudest lower one a conversion confirmed, or `-infinity` where none was;
    /// `nil` for a sound of more than ``convertedShapeSamples`` or a conversion that fails for another reason.
    static func loudnessMet(of path: String, as shape: OutputShape, target: Double, ceiling: Double) -> Double? {
        guard let name = shape.preset, let preset = Preset(rawValue: name), let file = try? AudioFile(path: path),
            let frames = try? AudioFileSummary(file.properties).frameCount,
            frames * Int64(file.dataFormat.channelsPerFrame) <= convertedShapeSamples
        else { return nil }
        var settings = preset.settings
        settings.sampleRate = shape.sampleRate
        if let pick = shape.channelPick {
            settings.channelMap = [pick]
        } else {
            settings.channels = shape.channels
        }
        settings.keepsMetadata = false
        // As `convert --preset NAME --loudness TARGET --true-peak CEILING` asks it (the voice preset's leveler).
        settings.loudness = LoudnessTarget(integrated: target, truePeakCeiling: ceiling)
        settings.loudness?.dynamic = settings.levelsSpeech
        // Into a hidden temporary, as CAF (which holds every preset's format).
        let output = TemporaryFiles.path(named: "afkit-fix")
        defer { TemporaryFiles.discard(output) }
        // The target met, or the loudest a conversion as the fix runs it confirmed (-infinity: none).
        do {
            let destination = try ConversionPlan.Destination(output: "fix.caf", settings: settings)
            return try AudioConverter.loudnessMet(
                input: path, output: output, destination: destination, settings: settings) ?? -.infinity
        } catch {
            return nil
        }
    }

    /// The loudness of the file at `path` read at `sampleRate` and `channels` through the pipeline's own mixer and
    /// resampler (an `ExtendedAudioFile`'s client format), as a conversion to them hands its encoder the sound.
    /// Where `pick` names a channel, that channel alone is measured (`-m N`'s output).
    static func loudness(of path: String, at sampleRate: Double, channels: Int, pick: Int? = nil) throws
        -> LoudnessFacts?
    {
        let audio = try AudioFile(path: path)
        // (A channel the file does not have is no pick: the file is read at `channels`, as mixed.)
        let pick = pick.flatMap { $0 < Int(audio.dataFormat.channelsPerFrame) ? $0 : nil }
        let read = pick == nil ? channels : Int(audio.dataFormat.channelsPerFrame)
        let file = try ExtendedAudioFile(reading: audio)
        try file.setClientDataFormat(
            .linearPCM(sampleRate: sampleRate, channels: UInt32(read), bitsPerChannel: 32, isFloat: true))
        let meter = ValidatorMeter(
            try LoudnessMeter(channels: pick == nil ? channels : 1, sampleRate: sampleRate), locatesTruePeak: false)
        var bytes: [UInt8] = []
        var picked: [Float] = []
        while case let frames = try file.read(maximumFrames: 4096, into: &bytes), frames > 0 {
            bytes.withUnsafeBytes { raw in
                let samples = raw.bindMemory(to: Float.self)
                guard let pick else { return meter.add(samples, frames: frames) }
                picked.removeAll(keepingCapacity: true)
                for frame in 0..<frames { picked.append(samples[frame * read + pick]) }
                picked.withUnsafeBufferPointer { meter.add($0, frames: frames) }
            }
        }
        return meter.facts
    }
}

/// libebur128's meter as the validator's decode pass feeds it.
final class ValidatorMeter: StreamingLoudnessMeter {
    let meter: LoudnessMeter
    /// Whether to find the true-peak maximum's frame (for the HTML report's mark; it costs a little).
    let locatesTruePeak: Bool
    private var failed = false
    private var position: Int64 = 0
    private var truePeak = 0.0
    private var truePeakFrame: Int64?

    init(_ meter: LoudnessMeter, locatesTruePeak: Bool) {
        self.meter = meter
        self.locatesTruePeak = locatesTruePeak
    }

    func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        guard !failed else { return }
        do { try meter.add(samples, frames: frames) } catch { failed = true }
        // Where the true peak rose, its frame is taken as the block's largest sample's.
        guard locatesTruePeak else { return }
        let peak = meter.truePeak
        if peak > truePeak, frames > 0 {
            truePeak = peak
            let channels = meter.channels
            var loudest: Float = -1
            for index in 0..<frames * channels where abs(samples[index]) > loudest {
                loudest = abs(samples[index])
                truePeakFrame = position + Int64(index / channels)
            }
        }
        position += Int64(frames)
    }

    var facts: LoudnessFacts? {
        guard !failed else { return nil }
        let measured = meter.measurement
        var facts = LoudnessFacts(
            integrated: measured.integrated, range: measured.range, truePeak: measured.truePeak,
            samplePeak: measured.samplePeak, shortSoundLoudness: measured.shortSoundLoudness)
        facts.shortTermCurve = meter.shortTermReadings
        facts.momentaryCurve = meter.momentaryReadings
        // Shorter than one 100 ms reading: its loudness as one block is its one point.
        if facts.momentaryCurve.isEmpty, let short = measured.shortSoundLoudness, short.isFinite {
            facts.momentaryCurve = [Float(short)]
        }
        facts.truePeakFrame = truePeakFrame
        return facts
    }
}
