/// A spectrogram thumbnail: the level of log-spaced frequency bands in evenly spaced moments of a sound,
/// for the HTML report.
public struct Spectrogram: Sendable, Hashable {
    /// Moments, evenly spread over the sound.
    public var columns: Int
    /// Frequency bands per moment, log-spaced from ``lowestFrequency`` to ``highestFrequency``.
    public var bands: Int
    /// The lowest band's lower edge, Hz.
    public var lowestFrequency: Double
    /// The highest band's upper edge (half the sample rate), Hz.
    public var highestFrequency: Double
    /// Each column's bands, lowest first, column after column: 0 is ``floorDecibels`` or below, 255 is
    /// 0 dB (a full-scale sine in the band).
    public var levels: [UInt8]

    /// The level a 0 stands for, dB.
    public static let floorDecibels = -120.0
}

/// Builds a ``Spectrogram`` from interleaved Float frames fed in order, a block at a time, in one pass:
/// a Hann-windowed 512-point FFT of the channels' mean ends at each column's moment.
struct SpectrogramBuilder {
    static let size = 512
    private let channels: Int
    private let columnEnds: [Int64]
    private var next = 0
    private var seen: Int64 = 0
    private var ring = [Float](repeating: 0, count: size)
    private var ringIndex = 0
    private var result: Spectrogram
    private let transform = FourierTransform(size: size)
    /// For each band, the FFT bins it takes the largest of.
    private let bandBins: [ClosedRange<Int>]

    /// A builder for `frameCount` frames of `channels` at `sampleRate`.
    init(frameCount: Int64, sampleRate: Double, channels: Int, columns: Int = 128, bands: Int = 48) {
        self.channels = max(channels, 1)
        let size = Int64(Self.size)
        columnEnds = (0..<columns).map { column in
            let centre = (Int64(column) * 2 + 1) * frameCount / Int64(2 * columns)
            return min(frameCount, max(size, centre + size / 2))
        }
        let nyquist = sampleRate / 2
        let lowest = min(max(40, sampleRate / Double(Self.size)), nyquist / 2)
        let ratio = nyquist / lowest
        let binWidth = sampleRate / Double(Self.size)
        bandBins = (0..<bands).map { band in
            let low = lowest * pow(ratio, Double(band) / Double(bands))
            let high = lowest * pow(ratio, Double(band + 1) / Double(bands))
            let first = Int((low / binWidth).rounded(.up))
            let last = min(Self.size / 2, Int((high / binWidth).rounded(.down)))
            if first <= last { return first...last }
            // A band narrower than a bin: the bin nearest its centre.
            let nearest = min(Self.size / 2, Int(((low * high).squareRoot() / binWidth).rounded()))
            return nearest...nearest
        }
        result = Spectrogram(
            columns: columns, bands: bands, lowestFrequency: lowest, highestFrequency: nyquist,
            levels: [])
        result.levels.reserveCapacity(columns * bands)
    }

    /// Adds `frames` interleaved frames.
    mutating func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        let scale = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += samples[frame * channels + channel] }
            ring[ringIndex] = sum * scale
            ringIndex = ringIndex == Self.size - 1 ? 0 : ringIndex + 1
            seen += 1
            while next < columnEnds.count && columnEnds[next] <= seen { addColumn() }
        }
    }

    /// The spectrogram (the columns not yet reached measured on what there is).
    mutating func finish() -> Spectrogram {
        while next < columnEnds.count { addColumn() }
        return result
    }

    private mutating func addColumn() {
        next += 1
        var real = [Float](repeating: 0, count: Self.size)
        var imaginary = [Float](repeating: 0, count: Self.size)
        for index in 0..<Self.size {
            let window = 0.5 - 0.5 * cos(2 * Float.pi * Float(index) / Float(Self.size))
            real[index] = ring[(ringIndex + index) % Self.size] * window
        }
        transform.forward(&real, &imaginary)
        // A full-scale sine's bin is size / 4 through the Hann window.
        let reference = Float(Self.size / 4) * Float(Self.size / 4)
        for bins in bandBins {
            var power: Float = 0
            for bin in bins { power = max(power, real[bin] * real[bin] + imaginary[bin] * imaginary[bin]) }
            let decibels = power > 0 ? 10 * log10(Double(power / reference)) : -Double.infinity
            let scaled = (decibels - Spectrogram.floorDecibels) / -Spectrogram.floorDecibels * 255
            result.levels.append(UInt8(max(0, min(255, scaled.isFinite ? scaled.rounded() : 0))))
        }
    }
}

/// An in-place radix-2 complex FFT of a fixed power-of-two size.
struct FourierTransform {
    let size: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    init(size: Int) {
        self.size = size
        cosines = (0..<size / 2).map { cos(-2 * Float.pi * Float($0) / Float(size)) }
        sines = (0..<size / 2).map { sin(-2 * Float.pi * Float($0) / Float(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var result = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { result |= 1 << (bits - 1 - bit) }
            return result
        }
    }

    /// Replaces `real` + i `imaginary` by its discrete Fourier transform (e^-2πi kn/N, unscaled).
    func forward(_ real: inout [Float], _ imaginary: inout [Float]) {
        for index in 0..<size where reversed[index] > index {
            real.swapAt(index, reversed[index])
            imaginary.swapAt(index, reversed[index])
        }
        var half = 1
        while half < size {
            let stride = size / (half * 2)
            for start in Swift.stride(from: 0, to: size, by: half * 2) {
                for offset in 0..<half {
                    let c = cosines[offset * stride]
                    let s = sines[offset * stride]
                    let a = start + offset
                    let b = a + half
                    let re = real[b] * c - imaginary[b] * s
                    let im = real[b] * s + imaginary[b] * c
                    real[b] = real[a] - re
                    imaginary[b] = imaginary[a] - im
                    real[a] += re
                    imaginary[a] += im
                }
            }
            half *= 2
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
