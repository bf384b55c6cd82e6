/// What the validator's decode pass keeps for drawing a file in the HTML report (asked for with
/// ``AssetValidator/drawsPictures``): gathered as the samples go by, never by decoding twice.
public struct AssetPictures: Sendable, Hashable {
    /// Min/max waveform of each channel, at most ``AssetPictures/waveformPoints`` points, 16 bits.
    public var waveform: WaveformData
    /// The spectrogram thumbnail.
    public var spectrogram: Spectrogram
    /// The stretches where a channel has three or more samples in a row at full scale, every one (neighbours
    /// merged past ``AssetPictures/clipSpanLimit`` of them, their runs counted together).
    public var clippedSpans: [ClipSpan] = []
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

        package init(start: Int64, end: Int64, before: [Float], after: [Float]) {
            self.start = start
            self.end = end
            self.before = before
            self.after = after
        }
    }

    /// Waveform points at most (a plot's width in pixels on a wide screen).
    public static let waveformPoints = 600
    /// Clipped stretches kept at most: past it, neighbours merge (a picture is 600 points wide).
    public static let clipSpanLimit = 2048

    /// Frames `start...end` where samples clip, holding `runs` runs of three or more full-scale samples.
    public struct ClipSpan: Sendable, Hashable {
        /// The first clipped frame.
        public var start: Int64
        /// The last clipped frame.
        public var end: Int64
        /// The runs of clipped samples in it.
        public var runs: Int
    }
}

/// Gathers ``AssetPictures/clippedSpans`` frame by frame: a clipped frame right after the last span extends
/// it, else opens another; bounded by merging neighbours.
package struct ClipSpans {
    package private(set) var spans: [AssetPictures.ClipSpan] = []

    package init() {}

    /// A frame that clips; `newRunOf` counts a run that reaches three samples here (its first two frames
    /// before this one are in it too).
    package mutating func mark(_ frame: Int64, newRunOf length: Int?) {
        let start = frame - Int64((length ?? 1) - 1)
        if var last = spans.last, start <= last.end + 1 {
            last.end = max(last.end, frame)
            last.start = min(last.start, start)
            if length != nil { last.runs += 1 }
            spans[spans.count - 1] = last
        } else {
            spans.append(AssetPictures.ClipSpan(start: start, end: frame, runs: length == nil ? 0 : 1))
        }
        if spans.count > AssetPictures.clipSpanLimit {
            spans = stride(from: 0, to: spans.count, by: 2).map { index in
                guard index + 1 < spans.count else { return spans[index] }
                return AssetPictures.ClipSpan(
                    start: spans[index].start, end: spans[index + 1].end,
                    runs: spans[index].runs + spans[index + 1].runs)
            }
        }
    }
}

/// Gathers ``AssetPictures`` in the validator's decode pass.
package struct PictureBuilder {
    private var waveform: WaveformBuilder
    private var spectrogram: SpectrogramBuilder

    package init(frameCount: Int64, sampleRate: Double, channels: Int) {
        let points = Int64(AssetPictures.waveformPoints)
        waveform = WaveformBuilder(
            sampleRate: sampleRate, channels: channels,
            samplesPerPixel: Int(max(1, (frameCount + points - 1) / points)), bits: 16, splitChannels: true,
            maximumPoints: 2 * AssetPictures.waveformPoints)
        spectrogram = SpectrogramBuilder(frameCount: frameCount, sampleRate: sampleRate, channels: channels)
    }

    package mutating func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        waveform.add(samples, frames: frames)
        spectrogram.add(samples, frames: frames)
    }

    package mutating func finish() -> AssetPictures {
        // A sound longer than its file said made more points than fit: paired down to the plot's width.
        AssetPictures(
            waveform: waveform.finish().fitted(to: AssetPictures.waveformPoints), spectrogram: spectrogram.finish())
    }
}
