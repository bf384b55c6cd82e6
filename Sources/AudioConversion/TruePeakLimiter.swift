import AudioEngines

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A look-ahead limiter that keeps the true peak (the waveform between samples, found by 4x
/// oversampling as BS.1770 measures it) at or below a ceiling, with no overshoot and no pumping:
///
/// - each frame's need is `ceiling / peak` of the 4x-oversampled interval that starts at it (1 where
///   the peak is below the ceiling);
/// - the gain at a frame is the least need over a window reaching `lookAhead` frames ahead and the
///   interpolator's reach either side, recovering towards 1 with the release time constant;
/// - that envelope is averaged over the look-ahead, so the gain glides down over the attack and is,
///   at every frame, at most the need of every frame around it: the limiting is complete by the peak.
///
/// The output is the input delayed by ``latency`` frames inside the limiter and given back with the
/// same frame count: ``process(_:frames:into:)`` then ``finish(into:)``.
public final class TruePeakLimiter {
    /// The interleaved channels it limits together.
    public let channels: Int
    /// The ceiling, linear (1 is full scale).
    public let ceiling: Float
    /// Frames the gain starts falling ahead of a peak.
    public let lookAhead: Int
    /// Frames between a frame arriving and its limited self leaving.
    public var latency: Int { lookAhead + 2 * Self.reach }
    /// The least gain applied so far, in dB (0 when nothing was limited).
    public var deepestReduction: Double { 20 * log10(Double(max(min(leastGain, 1), 1e-9))) }
    private var leastGain: Float = 1

    /// The interpolator's taps either side of the interval, per phase.
    static let reach = 8
    /// The 3 in-between phases' coefficients (``computePeaks(count:)`` takes three) (1/4, 2/4, 3/4 of a frame on), each over frames
    /// `-reach + 1 ... reach` from the interval's start: the meters' interpolator, a little longer.
    private static let phases = TruePeakFilter.phases(factor: 4, reach: reach)

    /// The envelope's step back towards 1 each frame (the release time constant's).
    var release: Float { gain.release }
    /// Frames held, from absolute frame `base`: the interpolator's reach of silence before frame 0, then the input.
    private var held: [Float]
    private var base = -(reach - 1)
    /// Scratch for ``computePeaks(count:)``: the intervals' peaks, one channel's frames.
    private var peaks: [Float] = []
    private var lane: [Float] = []
    /// ``phases`` one after another.
    private static let flatPhases = phases.flatMap { $0 }
    /// The next frame whose need is computed; the next frame given back.
    private var nextNeed = 0
    private var nextOut = 0
    /// The gain logic over the frames' needs.
    private var gain: LimiterGain
    /// The frame after the last given, once ``finish(into:)`` has padded the input with silence.
    private var realEnd = Int.max
    /// Where a limiter that only looks (``init(observingPeaksOf:sampleRate:_:)``) hands each frame's interval
    /// peak: the first frame's number and the peaks of it and the frames after.
    private var observer: ((Int, UnsafeBufferPointer<Float>) -> Void)?

    /// A limiter for interleaved frames of `channels` at `sampleRate`, holding true peaks to
    /// `ceilingDecibels` dBTP; attack (look-ahead) and release in seconds.
    public init(
        channels: Int, sampleRate: Double, ceilingDecibels: Double, attack: Double = 0.005,
        release: Double = 0.1
    ) {
        self.channels = channels
        ceiling = Float(pow(10, ceilingDecibels / 20))
        lookAhead = max(1, Int((attack * sampleRate).rounded()))
        gain = LimiterGain(lookAhead: lookAhead, release: Float(1 - exp(-1 / max(1, release * sampleRate))))
        held = [Float](repeating: 0, count: (Self.reach - 1) * channels)
    }

    /// A limiter that limits nothing and gives nothing back: it hands `observer` the true peak of each frame's
    /// interval as the limiter measures it (the loudest channel's), for a model of the limiter at any ceiling
    /// (``LimitedLoudnessModel``).
    convenience init(
        observingPeaksOf channels: Int, sampleRate: Double,
        _ observer: @escaping (Int, UnsafeBufferPointer<Float>) -> Void
    ) {
        self.init(channels: channels, sampleRate: sampleRate, ceilingDecibels: .infinity)
        self.observer = observer
    }

    /// Takes `frames` interleaved frames; appends to `output` the limited frames now ready.
    public func process(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) {
        held.append(contentsOf: input.prefix(frames * channels))
        advance(into: &output)
    }

    /// Gives back the frames still inside the limiter.
    public func finish(into output: inout [Float]) {
        guard realEnd == Int.max else { return }
        realEnd = base + held.count / channels
        held.append(contentsOf: repeatElement(0, count: latency * channels))
        advance(into: &output)
    }

    private func advance(into output: inout [Float]) {
        let reach = Self.reach
        let span = lookAhead + 2 * reach + 1
        let end = base + held.count / channels
        // Frames whose interval's interpolator reach is held: their needs are computed now.
        let count = end - reach - nextNeed
        guard count > 0 else { return }
        computePeaks(count: count)
        let first = nextNeed
        if let observer {
            peaks.withUnsafeBufferPointer { observer(first, UnsafeBufferPointer(rebasing: $0[0..<count])) }
            nextNeed += count
            letGo(before: nextNeed - reach + 1)
            return
        }
        // The loop works on locals (a class's stored properties in a loop cost an access check each; the gain's
        // arrays are taken out, so they are not copied as they change).
        var gain = self.gain
        self.gain = .idle
        var leastGain = self.leastGain
        var nextOut = self.nextOut
        let lookAhead = self.lookAhead
        let ceiling = self.ceiling
        let channels = self.channels
        let realEnd = self.realEnd
        let base = self.base
        output.reserveCapacity(output.count + count * channels)
        held.withUnsafeBufferPointer { samples in
            peaks.withUnsafeBufferPointer { peaks in
                for index in 0..<count {
                    let frame = first + index
                    let peak = peaks[index]
                    if peak > ceiling { gain.add(frame: frame, need: ceiling / peak) }
                    // The window reaches `reach + lookAhead` past the frame it serves. Frames before the first are
                    // silence whose envelope already sees the first frames' needs: it is run over the look-ahead
                    // before them, so the gain is down by the first frame.
                    let served = frame - lookAhead - reach
                    guard served >= -lookAhead else { continue }
                    let applied = gain.next(serving: served, reach: reach)
                    if served >= 0 && served < realEnd {
                        leastGain = min(leastGain, applied)
                        let at = (served - base) * channels
                        for channel in 0..<channels { output.append(samples[at + channel] * min(applied, 1)) }
                    }
                    nextOut = max(0, served + 1)
                }
            }
        }
        nextNeed += count
        self.gain = gain
        self.leastGain = leastGain
        self.nextOut = nextOut
        // Frames before what the interpolator and the output still need are let go.
        letGo(before: min(nextOut, nextNeed - reach + 1))
    }

    /// Lets go of the held frames before `keep`, once there are enough of them to be worth moving the rest.
    private func letGo(before keep: Int) {
        guard keep - base > 8192 else { return }
        held.removeFirst((keep - base) * channels)
        base = keep
    }

    /// The true peak of each interval `[frame, frame + 1)` of the `count` frames from ``nextNeed``, the loudest
    /// channel's, into ``peaks``: each channel's frames gathered into a lane, eight intervals' sums of the three
    /// phases at a time in SIMD (the taps add in the same order as one interval at a time would).
    private func computePeaks(count: Int) {
        let reach = Self.reach
        let taps = 2 * reach
        let rounded = (count + 7) / 8 * 8
        let laneLength = rounded + taps - 1
        if peaks.count < rounded { peaks = [Float](repeating: 0, count: rounded) }
        if lane.count < laneLength { lane = [Float](repeating: 0, count: laneLength) }
        let channels = self.channels
        // The lane's first frame: the interpolator's first tap for the first interval; past the held frames, 0.
        let origin = (nextNeed - reach + 1 - base) * channels
        let available = min(laneLength, held.count / channels - (nextNeed - reach + 1 - base))
        let coefficients = Self.flatPhases
        held.withUnsafeBufferPointer { samples in
            peaks.withUnsafeMutableBufferPointer { peaks in
                lane.withUnsafeMutableBufferPointer { lane in
                    coefficients.withUnsafeBufferPointer { c in
                        // (The lane holds a whole block at least: never empty.)
                        guard let laneStart = lane.baseAddress, let peakStart = peaks.baseAddress else { return }
                        let raw = UnsafeRawPointer(laneStart)
                        for index in 0..<rounded { peaks[index] = 0 }
                        for channel in 0..<channels {
                            for index in 0..<available { lane[index] = samples[origin + index * channels + channel] }
                            for index in available..<laneLength { lane[index] = 0 }
                            for block in stride(from: 0, to: rounded, by: 8) {
                                func load(_ index: Int) -> SIMD8<Float> {
                                    raw.loadUnaligned(fromByteOffset: (block + index) * 4, as: SIMD8<Float>.self)
                                }
                                var peak = load(reach - 1).lanewiseMagnitude
                                // Each input vector loaded once for the three phases.
                                var first = SIMD8<Float>.zero
                                var second = SIMD8<Float>.zero
                                var third = SIMD8<Float>.zero
                                for tap in 0..<taps {
                                    let x = load(tap)
                                    first += c[tap] * x
                                    second += c[taps + tap] * x
                                    third += c[2 * taps + tap] * x
                                }
                                peak = peak.lanewiseMax(first.lanewiseMagnitude).lanewiseMax(second.lanewiseMagnitude)
                                    .lanewiseMax(third.lanewiseMagnitude)
                                let stored = UnsafeMutableRawPointer(peakStart + block)
                                let before = stored.loadUnaligned(as: SIMD8<Float>.self)
                                stored.storeBytes(of: before.lanewiseMax(peak), as: SIMD8<Float>.self)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The limiter's gain from the needs of the frames around each frame it serves (a need: the ceiling over a frame's
/// interval peak, where that is under 1): the least need from `reach` frames before the frame served to
/// `lookAhead + reach` after it (a sliding minimum), released towards 1 by `release` a frame, then averaged over the
/// last `lookAhead` frames, so the gain glides down over the attack and is down by each peak. The limiter runs it over
/// every frame; ``LimitedLoudnessModel`` over the stretches around the frames over a ceiling.
struct LimiterGain {
    let lookAhead: Int
    let release: Float
    /// The needs in reach, rising from front to back: (frame, need).
    private var window: [(frame: Int, need: Float)] = []
    private var front = 0
    /// The released envelope, and the ring and sum of its last `lookAhead` values.
    private(set) var envelope: Float = 1
    private var ring: [Float]
    private var ringIndex = 0
    private var ringSum: Double

    init(lookAhead: Int, release: Float) {
        self.lookAhead = lookAhead
        self.release = release
        ring = [Float](repeating: 1, count: lookAhead)
        ringSum = Double(lookAhead)
    }

    /// Adds the need (under 1) of `frame`, frames given in order.
    @inline(__always)
    mutating func add(frame: Int, need: Float) {
        while window.count > front, window[window.count - 1].need >= need { window.removeLast() }
        window.append((frame, need))
    }

    /// The gain at frame `served`, the frames' needs added up to `served + lookAhead + reach`.
    @inline(__always)
    mutating func next(serving served: Int, reach: Int) -> Float {
        while front < window.count, window[front].frame < served - reach { front += 1 }
        if front > 4096 {
            window.removeFirst(front)
            front = 0
        }
        let least = front < window.count ? window[front].need : 1
        envelope = min(least, envelope + (1 - envelope) * release)
        ringSum += Double(envelope - ring[ringIndex])
        ring[ringIndex] = envelope
        ringIndex = ringIndex + 1 == lookAhead ? 0 : ringIndex + 1
        return Float(ringSum / Double(lookAhead))
    }

    /// Whether no need is in reach and the gain has recovered (within a millionth of 1).
    var isIdle: Bool {
        front == window.count && envelope >= 1 - 1e-6 && ringSum >= Double(lookAhead) * (1 - 1e-6)
    }

    /// Back to no limiting: no need in reach, the envelope and its average at 1.
    mutating func reset() {
        window.removeAll(keepingCapacity: true)
        front = 0
        envelope = 1
        for index in ring.indices { ring[index] = 1 }
        ringIndex = 0
        ringSum = Double(lookAhead)
    }

    /// A gain to leave in place of one taken out to work on (so the one taken out changes its arrays without
    /// copying them).
    static let idle = LimiterGain(lookAhead: 1, release: 0)
}
