#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The interpolator that finds the waveform between samples, as ITU-R BS.1770-4 Annex 2 describes true-peak
/// measurement: oversampling by a polyphase low-pass FIR, here a Hann-windowed sinc.
public enum TruePeakFilter {
    /// The coefficients of the `factor - 1` in-between positions (1/factor, 2/factor, ... of a frame after
    /// an interval's start), each over the frames `-reach + 1 ... reach` around that start: `2 * reach` taps
    /// a phase (BS.1770-4's example filter has 12 a phase at 4x, so `reach` 6).
    public static func phases(factor: Int, reach: Int) -> [[Float]] {
        guard factor > 1 else { return [] }
        return (1..<factor).map { phase in
            let offset = Double(phase) / Double(factor)
            let taps = (-reach + 1...reach).map { tap in
                let t = Double(tap) - offset
                let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
                let window = 0.5 * (1 + cos(Double.pi * t / Double(reach)))
                return sinc * window
            }
            // Unity gain at low frequencies: a slow sine just under full scale is not read over it (the windowed
            // sinc's taps summed to a little more than 1, and a 100 Hz tone at -0.001 dBFS read +0.01 dBTP).
            let sum = taps.reduce(0, +)
            return taps.map { Float($0 / sum) }
        }
    }

    /// How far a meter oversamples at `sampleRate`, as BS.1770 asks (4x for 48 kHz) and libebur128 does:
    /// 4x below 96 kHz, 2x below 192 kHz, none above (the waveform between samples is then above hearing).
    public static func factor(sampleRate: Double) -> Int { sampleRate < 96000 ? 4 : sampleRate < 192_000 ? 2 : 1 }
}

/// The true peak of each channel of interleaved frames fed a block at a time (ITU-R BS.1770-4 Annex 2):
/// the largest magnitude of the samples and of the waveform between them, 4x oversampled by
/// ``TruePeakFilter``'s 48-tap interpolator, eight frames at a time in SIMD. Independent of the order the
/// blocks come in sizes; the last frames' in-between points are taken against the silence after the end.
public final class TruePeakMeter {
    /// The channels measured.
    public let channels: Int
    private let factor: Int
    /// The phases' coefficients, phase after phase, ``taps`` each.
    private let coefficients: [Float]
    private let phaseCount: Int
    private static let reach = 6
    private var taps: Int { 2 * Self.reach }
    /// Per channel, the last `taps - 1` frames (the interpolator's history), then the block being measured.
    private var work: [[Float]]
    private var highest: [Float]
    private var lowest: [Float]

    /// A meter for interleaved frames of `channels` at `sampleRate`.
    public init(channels: Int, sampleRate: Double) {
        self.channels = channels
        factor = TruePeakFilter.factor(sampleRate: sampleRate)
        let phases = TruePeakFilter.phases(factor: factor, reach: Self.reach)
        coefficients = phases.flatMap { $0 }
        phaseCount = phases.count
        work = Array(repeating: Array(repeating: 0, count: 2 * Self.reach - 1), count: channels)
        highest = Array(repeating: 0, count: channels)
        lowest = Array(repeating: 0, count: channels)
    }

    /// Adds `frames` interleaved frames.
    public func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        guard frames > 0, let source = samples.baseAddress else { return }
        let history = taps - 1
        for channel in 0..<channels {
            // The channel's frames after its history, read out of the interleaved block.
            work[channel].append(contentsOf: repeatElement(0, count: frames))
            work[channel].withUnsafeMutableBufferPointer { buffer in
                guard let target = buffer.baseAddress else { return }
                let channels = self.channels
                for frame in 0..<frames { target[history + frame] = source[frame * channels + channel] }
            }
            measure(channel, count: frames)
            // The history for the next block: its last frames.
            work[channel].withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                base.update(from: base + frames, count: history)
            }
            work[channel].removeLast(frames)
        }
    }

    /// The true peak of each channel so far, linear (1 is full scale), the in-between points after the
    /// last frame included (against silence); at least the sample peak.
    public var peaks: [Double] {
        (0..<channels).map { channel in
            // The tail: the last frames' intervals, against silence after them, on a copy.
            var tail = work[channel]
            tail.append(contentsOf: repeatElement(0, count: Self.reach))
            var high = highest[channel]
            var low = lowest[channel]
            Self.scan(tail, count: Self.reach, coefficients, phaseCount, taps: taps, high: &high, low: &low)
            for sample in work[channel] {
                high = max(high, sample)
                low = min(low, sample)
            }
            return Double(max(high, -low))
        }
    }

    /// Measures the `count` intervals whose interpolation the channel's work buffer now completes: the
    /// samples themselves and every in-between point.
    private func measure(_ channel: Int, count: Int) {
        var high = highest[channel]
        var low = lowest[channel]
        Self.scan(work[channel], count: count, coefficients, phaseCount, taps: taps, high: &high, low: &low)
        highest[channel] = high
        lowest[channel] = low
    }

    /// Over `buffer` (history then new frames), the `count` outputs of each phase ending at the buffer's
    /// end, and the new samples themselves: their highest and lowest values folded into `high` and `low`.
    private static func scan(
        _ buffer: [Float], count: Int, _ flat: [Float], _ phaseCount: Int, taps: Int, high: inout Float,
        low: inout Float
    ) {
        let start = buffer.count - count - (taps - 1)
        guard start >= 0 else { return }
        buffer.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for index in (start + taps - 1)..<buffer.count {
                high = max(high, samples[index])
                low = min(low, samples[index])
            }
            guard phaseCount > 0 else { return }
            flat.withUnsafeBufferPointer { c in
                var highs = SIMD8<Float>(repeating: high)
                var lows = SIMD8<Float>(repeating: low)
                let raw = UnsafeRawPointer(base + start)
                func load(_ index: Int) -> SIMD8<Float> {
                    raw.loadUnaligned(fromByteOffset: index * MemoryLayout<Float>.stride, as: SIMD8<Float>.self)
                }
                var n = 0
                if phaseCount == 3 {
                    // 4x: eight outputs of the three phases a step, each input vector loaded once for all three.
                    while n + 8 <= count {
                        var first = SIMD8<Float>.zero
                        var second = SIMD8<Float>.zero
                        var third = SIMD8<Float>.zero
                        for tap in 0..<taps {
                            let x = load(n + tap)
                            first += c[tap] * x
                            second += c[taps + tap] * x
                            third += c[2 * taps + tap] * x
                        }
                        highs = greater(highs, greater(first, greater(second, third)))
                        lows = lesser(lows, lesser(first, lesser(second, third)))
                        n += 8
                    }
                } else {
                    while n + 8 <= count {
                        for phase in 0..<phaseCount {
                            var sum = SIMD8<Float>.zero
                            for tap in 0..<taps { sum += c[phase * taps + tap] * load(n + tap) }
                            highs = greater(highs, sum)
                            lows = lesser(lows, sum)
                        }
                        n += 8
                    }
                }
                high = max(high, highs.max())
                low = min(low, lows.min())
                while n < count {
                    for phase in 0..<phaseCount {
                        var sum: Float = 0
                        for tap in 0..<taps { sum += c[phase * taps + tap] * samples[start + n + tap] }
                        high = max(high, sum)
                        low = min(low, sum)
                    }
                    n += 1
                }
            }
        }
    }
}

/// The lane-wise larger and smaller of two vectors, as one compare and blend (the standard library's
/// `pointwiseMax` stayed a call in the meter's loop).
@inline(__always) private func greater(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.lanewiseMax(b) }

@inline(__always) private func lesser(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .< a)
}

extension SIMD8 where Scalar == Float {
    /// Each lane's larger value: `pointwiseMax` as a vector select (the generic function is not specialized
    /// across modules, and costs a call a vector).
    @inlinable @inline(__always) public func lanewiseMax(_ other: Self) -> Self {
        replacing(with: other, where: self .< other)
    }

    /// Each lane's magnitude.
    @inlinable @inline(__always) public var lanewiseMagnitude: Self { lanewiseMax(-self) }
}
