/// What the validator's decode pass keeps for drawing a file in the HTML report (asked for with
/// ``AssetValidator/drawsPictures``): gathered as the samples go by, never by decoding twice.
public struct AssetPictures: Sendable, Hashable {
    /// Min/max waveform of each channel, at most ``AssetPictures/waveformPoints`` points, 16 bits.
    public var waveform: WaveformData
    /// The spectrogram thumbnail.
    public var spectrogram: Spectrogram
    /// For each run of three or more samples at full scale, the frame its third sample is in (at most
    /// ``AssetPictures/clipMarkLimit`` runs).
    public var clippedFrames: [Int64] = []
    /// Each loop's wrap (the file's own loops, and the whole file where a rule treats it as one).
    public var seams: [Seam] = []

    /// The frames each side of a loop's wrap, interleaved.
    public struct Seam: Sendable, Hashable {
        /// The loop's first frame.
        public var start: Int64
        /// The frame after its last.
        public var end: Int64
        /// The frames up to the loop's end.
        public var before: [Float]
        /// The frames from the loop's start.
        public var after: [Float]
    }

    /// Waveform points at most (a plot's width in pixels on a wide screen).
    public static let waveformPoints = 600
    /// Clipped runs marked at most.
    public static let clipMarkLimit = 256
}

/// Gathers ``AssetPictures`` in the validator's decode pass.
struct PictureBuilder {
    private var waveform: WaveformBuilder
    private var spectrogram: SpectrogramBuilder

    init(frameCount: Int64, sampleRate: Double, channels: Int) {
        let points = Int64(AssetPictures.waveformPoints)
        waveform = WaveformBuilder(
            sampleRate: sampleRate, channels: channels,
            samplesPerPixel: Int(max(1, (frameCount + points - 1) / points)), bits: 16, splitChannels: true,
            maximumPoints: 2 * AssetPictures.waveformPoints)
        spectrogram = SpectrogramBuilder(frameCount: frameCount, sampleRate: sampleRate, channels: channels)
    }

    mutating func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        waveform.add(samples, frames: frames)
        spectrogram.add(samples, frames: frames)
    }

    mutating func finish() -> AssetPictures {
        // A sound longer than its file said made more points than fit: paired down to the plot's width.
        AssetPictures(
            waveform: waveform.finish().fitted(to: AssetPictures.waveformPoints), spectrogram: spectrogram.finish())
    }
}
