/// Clipping as Apple's `afclip` finds it (Mastered for iTunes): samples at full scale on the sample grid, and
/// peaks over full scale between samples, found by the true-peak meter's interpolator (``TruePeakFilter``, 4x
/// below 96 kHz), each interval counted once and only where neither sample around it clipped itself. Fed
/// interleaved frames a block at a time; ``finish()`` takes the last intervals against the silence after the end.
public final class ClipScanner {
    /// Where a clip lies: on a sample, or between two.
    public enum Kind: String, Sendable {
        case onSample, interSample
    }

    /// Consecutive clipped samples (or intervals) of one channel and kind.
    public struct Run: Sendable, Hashable {
        /// The channel, from 0.
        public var channel: Int
        /// On the grid or between samples.
        public var kind: Kind
        /// The first frame (an inter-sample clip: the frame before it).
        public var start: Int64
        /// How many in a row.
        public var count: Int64
        /// The largest magnitude in the run, linear (1 is full scale).
        public var peak: Float
    }

    /// What a whole sound holds.
    public struct Report: Sendable {
        /// Per channel: samples clipped on the grid.
        public var onSample: [Int64]
        /// Per channel: intervals clipped between samples.
        public var interSample: [Int64]
        /// The runs listed, in the order they start: each channel's first ``ClipScanner/listedRuns(perChannelOf:)``.
        public var runs: [Run]
        /// Per channel: every run, listed or not.
        public var runCounts: [Int64]
        /// Frames scanned.
        public var frames: Int64

        /// Per channel: the runs past ``ClipScanner/listedRuns(perChannelOf:)``, counted and not listed.
        public var runsNotListed: [Int64] {
            runCounts.indices.map { channel in
                runCounts[channel] - Int64(runs.count(where: { $0.channel == channel }))
            }
        }
        /// Clips counted, every channel, on the grid and between samples.
        public var total: Int64 { onSample.reduce(0, +) + interSample.reduce(0, +) }
        /// Whether anything clips.
        public var clips: Bool { total > 0 }
    }

    /// The most runs listed per channel (both kinds together, the first to start): a sound clipped at every
    /// other sample has millions, and memory must not grow with them. Every run is still counted.
    public static let maximumListedRuns = 1000
    /// The most runs listed in all, whatever the channels (a sound of 1,024 channels lists 15 a channel).
    public static let maximumListedRunsInAll = 16000

    /// The runs listed per channel for a sound of `channels`.
    public static func listedRuns(perChannelOf channels: Int) -> Int {
        min(maximumListedRuns, max(1, maximumListedRunsInAll / max(channels, 1)))
    }

    /// The level a sample clips at: 16-bit full scale (32767 of 32768) and beyond.
    public static let fullScale: Float = 32767 / 32768

    /// The interleaved channels scanned.
    public let channels: Int
    private static let reach = 6
    private let phases: [[Float]]
    /// Per channel, the frames not yet past every interval that reaches them, from frame `base`.
    private var held: [[Float]]
    private var base: Int64 = -Int64(ClipScanner.reach)
    private var nextInterval: Int64 = 0
    private var report: Report
    /// Per channel and kind (`channel * 2`, plus 1 between samples): the run still growing. Its `peak` and
    /// `count` are kept whether it is listed or not (see `listed`).
    private var open: [Int: Run] = [:]
    /// The keys of `open` whose run is among its channel's first ``listedRuns(perChannelOf:)``.
    private var listed: Set<Int> = []

    /// Whether runs are listed (each channel's first ``listedRuns(perChannelOf:)``), or only counted.
    public let listsRuns: Bool

    /// A scanner for interleaved frames of `channels` at `sampleRate`; with `listsRuns` false, every run is
    /// counted and none listed (`afkit clip --summary`).
    public init(channels: Int, sampleRate: Double, listsRuns: Bool = true) {
        self.channels = channels
        self.listsRuns = listsRuns
        phases = TruePeakFilter.phases(factor: TruePeakFilter.factor(sampleRate: sampleRate), reach: Self.reach)
        // Silence before the start: the first intervals' interpolators reach back into it.
        held = Array(repeating: Array(repeating: 0, count: Self.reach), count: channels)
        report = Report(
            onSample: Array(repeating: 0, count: channels), interSample: Array(repeating: 0, count: channels),
            runs: [], runCounts: Array(repeating: 0, count: channels), frames: 0)
    }

    /// Adds `frames` interleaved frames.
    public func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        for channel in 0..<channels {
            held[channel].reserveCapacity(held[channel].count + frames)
            for frame in 0..<frames { held[channel].append(samples[frame * channels + channel]) }
        }
        report.frames += Int64(frames)
        scan(upTo: report.frames - Int64(Self.reach))
    }

    /// The report, the last intervals taken against silence after the end.
    public func finish() -> Report {
        for channel in 0..<channels { held[channel] += repeatElement(0, count: Self.reach) }
        scan(upTo: report.frames)
        for key in open.keys.sorted() { close(key) }
        report.runs.sort { ($0.start, $0.channel) < ($1.start, $1.channel) }
        return report
    }

    /// Scans the frames (on the grid) and the intervals after them, below `end`: each needs `reach` frames after it.
    private func scan(upTo end: Int64) {
        guard end > nextInterval else { return }
        for channel in 0..<channels {
            held[channel].withUnsafeBufferPointer { frames in
                for position in nextInterval..<end {
                    let index = Int(position - base)
                    let sample = frames[index]
                    let magnitude = abs(sample.isNaN ? 0 : sample)
                    if magnitude >= Self.fullScale {
                        extend(channel, .onSample, at: position, peak: magnitude)
                        continue
                    }
                    // Between this frame and the next (unless that one clips on the grid).
                    let next = abs(frames[index + 1])
                    var peak: Float = 0
                    if next < Self.fullScale {
                        for phase in phases {
                            var value: Float = 0
                            for (tap, coefficient) in phase.enumerated() {
                                value += coefficient * frames[index - Self.reach + 1 + tap]
                            }
                            peak = max(peak, abs(value))
                        }
                    }
                    if peak > 1 {
                        extend(channel, .interSample, at: position, peak: peak)
                    }
                }
            }
        }
        nextInterval = end
        // Keep the frames the next intervals reach back to.
        let keep = Int(nextInterval - base) - Self.reach
        if keep > 0 {
            for channel in 0..<channels { held[channel].removeFirst(keep) }
            base += Int64(keep)
        }
    }

    /// Counts a clip, joining it to the run of its channel and kind that ends just before it.
    private func extend(_ channel: Int, _ kind: Kind, at position: Int64, peak: Float) {
        if kind == .onSample { report.onSample[channel] += 1 } else { report.interSample[channel] += 1 }
        let key = channel * 2 + (kind == .onSample ? 0 : 1)
        if var run = open[key], run.start + run.count == position {
            run.count += 1
            run.peak = max(run.peak, peak)
            open[key] = run
            return
        }
        close(key)
        open[key] = Run(channel: channel, kind: kind, start: position, count: 1, peak: peak)
        // Runs of a channel start in frame order (both kinds): its first ones are the ones listed.
        if listsRuns && report.runCounts[channel] < Int64(Self.listedRuns(perChannelOf: channels)) {
            listed.insert(key)
        }
        report.runCounts[channel] += 1
    }

    private func close(_ key: Int) {
        if let run = open.removeValue(forKey: key), listed.remove(key) != nil { report.runs.append(run) }
    }
}
