import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats

extension SourceReader {
    /// Opens `path` for the pipeline: afkit's parser, the standard registry's decoders, and libsndfile
    /// for the codecs the registry lacks (DWVW in AIFF-C); with `hashingContent`, the file's content hash
    /// is taken in the same read.
    public convenience init(path: String, hashingContent: Bool = false) throws {
        try self.init(
            path: path, registry: AudioConverter.registry, fallback: Self.libsndfile, hashingContent: hashingContent)
    }

    /// Reads a parsed `file` as the pipeline does (the standard registry's decoders, libsndfile for the rest):
    /// the validator's decode pass reads through this, so it measures the frames `convert` writes.
    public convenience init(pipelineFile file: AudioFile) throws {
        try self.init(file: file, registry: AudioConverter.registry, fallback: Self.libsndfile)
    }

    /// libsndfile for the codecs the registry lacks (DWVW in AIFF-C), read as integers (`sf_readf_int`,
    /// left-justified in 32 bits) as every integer source is: its float path rounds DWVW one step off (10
    /// where the file holds 9), while a depth of up to 24 bits over 2^31 is exact in Float32.
    static let libsndfile: @Sendable (String) throws -> ExternalDecoder = { path in
        let sound = try SoundFile(path: path)
        return ExternalDecoder(frameCount: sound.info.frames) { frames in
            try sound.readInt32(frames: Int64(frames)).map { Float($0) * 0x1p-31 }
        }
    }
}

extension LoudnessMeasurement {
    /// Measures the file at `path` (any format afkit or libsndfile reads).
    public static func measure(path: String) throws -> LoudnessMeasurement {
        let source = try SourceReader(path: path)
        return try measure(source)
    }

    /// Measures what `source` delivers from where it stands to its end.
    public static func measure(_ source: SourceReader) throws -> LoudnessMeasurement {
        let meter = try LoudnessMeter(channels: source.channels, sampleRate: source.sampleRate)
        try source.forEachBlock(maximum: 4096) { try meter.add($0, frames: $1) }
        return meter.measurement
    }
}

extension LoudnessInfo {
    /// What a file states of `measurement` (ISO/IEC 14496-12's loudness box): the integrated loudness (a short
    /// sound's own where it has none), range, loudest short-term window, true and sample peaks, as measured
    /// (BS.1770-4, accurate); silence's infinities are left out.
    public init(_ measurement: LoudnessMeasurement) {
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        self.init(
            integratedLoudness: finite(measurement.normalizable),
            maximumShortTermLoudness: finite(measurement.shortTermMaximum),
            loudnessRange: finite(measurement.range), truePeak: finite(measurement.truePeak),
            samplePeak: finite(measurement.samplePeak))
    }
}
