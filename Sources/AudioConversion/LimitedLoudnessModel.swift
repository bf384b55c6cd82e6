import AudioEngines
import AudioFormats
import Foundation

/// The integrated loudness of a signal under a gain and the true-peak limiter, worked out without a pass over the
/// source: the normalizer's search for the gain that meets its aim tries a handful of gains and ceilings, and a pass
/// over a 20-minute episode costs seconds.
///
/// Made from one pass over the unlimited signal at unit gain (``Collector``), it keeps:
///
/// - the true peak of each frame's interval as the limiter measures it, for the frames within a bound of the
///   loudest (a frame below every ceiling the search may try is never limited): the limiter's gain is scale-free,
///   so at gain `g` under ceiling `c` it is the limiter's at ceiling `c - g` on the unit signal, and the limiter's
///   own gain logic (window minimum, release, look-ahead average) is run over those peaks alone;
/// - the K-weighted energy (BS.1770's filter, every channel weighted 1) of each run of ``chunk`` frames, so the
///   limited signal's energy is each run's times its mean squared gain, summed into 100 ms blocks and gated as
///   BS.1770 gates them.
///
/// The filter is taken as commuting with the limiter's slow gain, and the runs as short enough for the gain to be
/// even over each: the reading is within a few hundredths of a LU of a pass, and the normalizer corrects it by the
/// last pass it made (``LoudnessNormalizer``), checking every gain it keeps by a pass.
final class LimitedLoudnessModel: Sendable {
    /// Frames whose K-weighted energies are summed together.
    static let chunk = 16
    /// The most interval peaks kept (8 bytes each), and chunks' energies (4 bytes each: about 3 hours at 48 kHz):
    /// past either, the normalizer measures by passes.
    static let maximumPeaks = 16 << 20
    static let maximumChunks = 32 << 20
    /// Channels it models: BS.1770 weighs each of up to three channels 1 (more, in afkit's order, include
    /// surrounds and an LFE weighted otherwise).
    static let maximumChannels = 3

    /// Frames of the signal.
    let frameCount: Int
    /// Frames of each 100 ms block, as libebur128 counts them.
    let step: Int
    /// The kept frames and their interval peaks (linear), in frame order: every frame's whose peak is over `floor`.
    private let peakFrames: [UInt32]
    private let peaks: [Float]
    /// The model holds for relative ceilings (linear, ceiling over gain) above this.
    let floor: Float
    /// Each chunk's K-weighted energy, and each 100 ms block's (sums of its chunks).
    private let chunkEnergies: [Float]
    private let blockEnergies: [Double]
    /// The limiter's shape at this rate.
    private let lookAhead: Int
    private let release: Float
    private let reach = TruePeakLimiter.reach

    private init(
        frameCount: Int, step: Int, peakFrames: [UInt32], peaks: [Float], floor: Float, chunkEnergies: [Float],
        lookAhead: Int, release: Float
    ) {
        self.frameCount = frameCount
        self.step = step
        self.peakFrames = peakFrames
        self.peaks = peaks
        self.floor = floor
        self.chunkEnergies = chunkEnergies
        self.lookAhead = lookAhead
        self.release = release
        var blocks = [Double](repeating: 0, count: frameCount / step)
        for (index, energy) in chunkEnergies.enumerated() {
            let block = Self.block(ofChunk: index, step: step)
            if block < blocks.count { blocks[block] += Double(energy) }
        }
        blockEnergies = blocks
    }

    /// The 100 ms block (of `step` frames) a chunk's energy is counted in: the one holding its middle frame.
    private static func block(ofChunk index: Int, step: Int) -> Int { (index * chunk + chunk / 2) / step }

    /// The integrated loudness (LUFS) of the signal at `gain` dB under a limiter at `ceiling` dBTP (`nil`: none);
    /// `nil` where the ceiling is past what the model holds (``floor``).
    func loudness(gain: Double, ceiling: Double?) -> Double? {
        var blocks = blockEnergies
        if let ceiling {
            let relative = Float(pow(10, (ceiling - gain) / 20))
            guard relative > floor else { return nil }
            limit(at: relative, blocks: &blocks)
        }
        return Self.integrated(blocks, step: step, scale: pow(10, gain / 10))
    }

    /// Takes from each block's energy what the limiter at `relative` takes: the limiter's gain run over the peaks
    /// it acts on, frame by frame from a little before the first to where it has recovered.
    private func limit(at relative: Float, blocks: inout [Double]) {
        let lookAhead = self.lookAhead
        let reach = self.reach
        let chunk = Self.chunk
        // The frames the limiter acts on, and their need.
        var acting: [(frame: Int, need: Float)] = []
        for index in peaks.indices where peaks[index] > relative {
            acting.append((Int(peakFrames[index]), relative / peaks[index]))
        }
        guard !acting.isEmpty else { return }
        var gain = LimiterGain(lookAhead: lookAhead, release: release)
        var next = 0
        // A chunk's squared gain lost, summed over its frames.
        var chunkIndex = -1
        var chunkLoss = 0.0
        func flush() {
            guard chunkIndex >= 0, chunkLoss > 0 else { return }
            let block = Self.block(ofChunk: chunkIndex, step: step)
            if block < blocks.count, chunkIndex < chunkEnergies.count {
                blocks[block] -= Double(chunkEnergies[chunkIndex]) * chunkLoss / Double(chunk)
            }
            chunkLoss = 0
        }
        var served = acting[0].frame - 2 * lookAhead - reach
        while served < frameCount {
            // Recovered, with no need in reach: on to a look-ahead before the next need.
            if gain.isIdle {
                guard next < acting.count else { break }
                let resume = acting[next].frame - 2 * lookAhead - reach
                if resume > served {
                    served = resume
                    gain.reset()
                }
            }
            while next < acting.count, acting[next].frame <= served + lookAhead + reach {
                gain.add(frame: acting[next].frame, need: acting[next].need)
                next += 1
            }
            let applied = Double(min(gain.next(serving: served, reach: reach), 1))
            if served >= 0 {
                let index = served / chunk
                if index != chunkIndex {
                    flush()
                    chunkIndex = index
                }
                chunkLoss += 1 - applied * applied
            }
            served += 1
        }
        flush()
    }

    /// BS.1770's gated loudness of 100 ms block energies (K-weighted sums of squares over `step` frames each) times
    /// `scale`: 400 ms blocks every 100 ms, gated at -70 LUFS and 10 LU under the loudness of those over it.
    static func integrated(_ blocks: [Double], step: Int, scale: Double) -> Double {
        guard blocks.count >= 4 else { return -.infinity }
        let frames = Double(4 * step)
        var energies: [Double] = []
        energies.reserveCapacity(blocks.count - 3)
        var running = blocks[0] + blocks[1] + blocks[2]
        for index in 3..<blocks.count {
            running += blocks[index]
            energies.append(max(0, running) * scale / frames)
            running -= blocks[index - 3]
        }
        func loudness(_ energy: Double) -> Double { LoudnessGate.loudness(ofEnergy: energy) }
        let absolute = energies.filter { $0 > 0 && loudness($0) > LoudnessGate.absolute }
        guard !absolute.isEmpty else { return -.infinity }
        let gate = loudness(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let gated = absolute.filter { loudness($0) > gate }
        guard !gated.isEmpty else { return -.infinity }
        return loudness(gated.reduce(0, +) / Double(gated.count))
    }

    /// Gathers a model from a pass over the unlimited signal (``add(_:frames:)`` each block the pass renders, then
    /// ``model``), keeping the peaks within `depth` dB of the loudest so far; `nil` where the signal is not one it
    /// models (``maximumChannels``, a rate with no whole 100 ms block).
    final class Collector {
        private let step: Int
        private var tracker: TruePeakLimiter!
        private var peakFrames: [UInt32] = []
        private var peaks: [Float] = []
        private var loudest: Float = 0
        /// Past ``maximumPeaks``, or past a frame count a kept frame's number holds: no model.
        private var overflowed = false
        private var lastCompaction = 0
        private var filter: KWeighting
        private var scratch: [Double] = []
        private var chunkEnergies: [Float] = []
        private var chunkSum = 0.0
        private var inChunk = 0
        private var frames = 0

        init?(channels: Int, sampleRate: Double, depth: Double) {
            let step = Int((sampleRate.rounded() + 5) / 10)
            guard channels >= 1, channels <= LimitedLoudnessModel.maximumChannels, step >= Self.leastStep else {
                return nil
            }
            scale = Float(pow(10, -depth / 20))
            self.step = step
            filter = KWeighting(sampleRate: sampleRate.rounded(), channels: channels)
            tracker = TruePeakLimiter(observingPeaksOf: channels, sampleRate: sampleRate) { [unowned self] in
                self.observe(first: $0, peaks: $1)
            }
        }

        /// The least 100 ms block (frames) modelled: a rate of at least 1 kHz.
        static let leastStep = 100

        /// Adds `frames` interleaved frames of the unlimited signal.
        func add(_ samples: UnsafeBufferPointer<Float>, frames count: Int) {
            guard !overflowed else { return }
            var ignored: [Float] = []
            tracker.process(samples, frames: count, into: &ignored)
            if scratch.count < count { scratch = [Double](repeating: 0, count: count) }
            for index in 0..<count { scratch[index] = 0 }
            filter.addEnergies(samples, frames: count, into: &scratch)
            for frame in 0..<count {
                chunkSum += scratch[frame]
                inChunk += 1
                if inChunk == LimitedLoudnessModel.chunk {
                    chunkEnergies.append(Float(chunkSum))
                    chunkSum = 0
                    inChunk = 0
                }
            }
            frames += count
            if chunkEnergies.count > LimitedLoudnessModel.maximumChunks { overflow() }
        }

        private func observe(first: Int, peaks batch: UnsafeBufferPointer<Float>) {
            guard !overflowed else { return }
            var floor = self.floor
            for (offset, peak) in batch.enumerated() where peak > floor {
                if peak > loudest {
                    loudest = peak
                    floor = self.floor
                    guard peak > floor else { continue }
                }
                let frame = first + offset
                guard frame <= Int(UInt32.max) else { return overflow() }
                peakFrames.append(UInt32(frame))
                peaks.append(peak)
            }
            if peaks.count > max(4096, 2 * lastCompaction) {
                compact()
                if peaks.count > LimitedLoudnessModel.maximumPeaks { overflow() }
            }
        }

        /// Gives up the model: what was kept is let go.
        private func overflow() {
            overflowed = true
            (peaks, peakFrames, chunkEnergies, scratch) = ([], [], [], [])
        }

        /// The least peak kept: `depth` under the loudest so far.
        private var floor: Float { loudest * scale }
        /// `depth` as a factor.
        private let scale: Float

        /// Drops the kept peaks the loudest since has put under the floor.
        private func compact() {
            let floor = self.floor
            var kept = 0
            for index in peaks.indices where peaks[index] > floor {
                peaks[kept] = peaks[index]
                peakFrames[kept] = peakFrames[index]
                kept += 1
            }
            peaks.removeLast(peaks.count - kept)
            peakFrames.removeLast(peakFrames.count - kept)
            lastCompaction = kept
        }

        /// The model of what was added; `nil` where it overflowed or is shorter than a gating block.
        func model() -> LimitedLoudnessModel? {
            guard !overflowed else { return nil }
            var ignored: [Float] = []
            tracker.finish(into: &ignored)
            guard !overflowed, frames >= 4 * step else { return nil }
            if inChunk > 0 { chunkEnergies.append(Float(chunkSum)) }
            compact()
            return LimitedLoudnessModel(
                frameCount: frames, step: step, peakFrames: peakFrames, peaks: peaks, floor: floor,
                chunkEnergies: chunkEnergies, lookAhead: tracker.lookAhead, release: tracker.release)
        }
    }
}

/// BS.1770's K-weighting (its high shelf, then its high-pass) of each channel, at any rate: the filters' analogue
/// prototypes (the shelf's 1681.97 Hz, +4 dB, the high-pass's 38.14 Hz) made digital by the bilinear transform.
struct KWeighting {
    private let shelfB: (Double, Double, Double)
    private let shelfA: (Double, Double)
    private let passA: (Double, Double)
    /// Each channel's two filters' last two inputs and outputs (direct form I).
    private var state: [Double]
    private let channels: Int

    init(sampleRate: Double, channels: Int) {
        self.channels = channels
        state = [Double](repeating: 0, count: channels * 6)
        var k = tan(Double.pi * 1681.974450955533 / sampleRate)
        var q = 0.7071752369554196
        let vh = pow(10, 3.999843853973347 / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        shelfB = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
        shelfA = (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
        k = tan(Double.pi * 38.13547087602444 / sampleRate)
        q = 0.5003270373238773
        a0 = 1 + k / q + k * k
        passA = (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
    }

    /// Adds to `energies[i]` the K-weighted energy of frame `i` of `frames` interleaved frames: each channel's
    /// output squared, summed.
    mutating func addEnergies(_ samples: UnsafeBufferPointer<Float>, frames: Int, into energies: inout [Double]) {
        let (b0, b1, b2) = shelfB
        let (a1, a2) = shelfA
        let (p1, p2) = passA
        let channels = self.channels
        energies.withUnsafeMutableBufferPointer { energies in
            for channel in 0..<channels {
                // The shelf's last two inputs, its last two outputs (the high-pass's inputs), the high-pass's last two.
                let base = channel * 6
                var (x1, x2, y1, y2, z1, z2) = (
                    state[base], state[base + 1], state[base + 2], state[base + 3], state[base + 4], state[base + 5]
                )
                var index = channel
                for frame in 0..<frames {
                    let x = Double(samples[index])
                    index += channels
                    let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                    // The high-pass's numerator is 1, -2, 1.
                    let z = y - 2 * y1 + y2 - p1 * z1 - p2 * z2
                    (x2, x1, y2, y1, z2, z1) = (x1, x, y1, y, z1, z)
                    energies[frame] += z * z
                }
                (state[base], state[base + 1], state[base + 2], state[base + 3], state[base + 4], state[base + 5]) = (
                    x1, x2, y1, y2, z1, z2
                )
            }
        }
    }
}
