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
package struct SpectrogramBuilder {
    static let size = 512
    private let channels: Int
    private let columnEnds: [Int64]
    private var next = 0
    private var seen: Int64 = 0
    private var ring = [Float](repeating: 0, count: size)
    private var ringIndex = 0
    private var result: Spectrogram
    private var spectrum = PowerSpectrum(size: size)
    private var windowed = [Float](repeating: 0, count: size)
    private var power = [Float](repeating: 0, count: size / 2 + 1)
    /// The Hann window.
    private static let window: [Float] = (0..<size).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(size)) }
    /// For each band, the FFT bins it takes the largest of.
    private let bandBins: [ClosedRange<Int>]

    /// A builder for `frameCount` frames of `channels` at `sampleRate`: `columns` moments at most, fewer
    /// where the sound is so short that their windows would overlap (one a window's length, 512 frames).
    package init(frameCount: Int64, sampleRate: Double, channels: Int, columns most: Int = 128, bands: Int = 48) {
        self.channels = max(channels, 1)
        let size = Int64(Self.size)
        let columns = Int(max(1, min(Int64(most), frameCount / size)))
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
    package mutating func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        let scale = 1 / Float(channels)
        let channels = self.channels
        var frame = 0
        while frame < frames {
            // The frames up to the next column's end, the end of the ring, or the end of the block.
            let untilColumn = next < columnEnds.count ? Int(min(Int64(frames), columnEnds[next] - seen)) : frames
            let count = min(frames - frame, Self.size - ringIndex, max(untilColumn, 1))
            let start = ringIndex
            ring.withUnsafeMutableBufferPointer { ring in
                for offset in 0..<count {
                    var sum: Float = 0
                    let base = (frame + offset) * channels
                    for channel in 0..<channels { sum += samples[base + channel] }
                    ring[start + offset] = sum * scale
                }
            }
            ringIndex = start + count == Self.size ? 0 : start + count
            seen += Int64(count)
            frame += count
            while next < columnEnds.count && columnEnds[next] <= seen { addColumn() }
        }
    }

    /// The spectrogram (the columns not yet reached measured on what there is).
    package mutating func finish() -> Spectrogram {
        while next < columnEnds.count { addColumn() }
        return result
    }

    private mutating func addColumn() {
        next += 1
        // The ring from its oldest frame, windowed.
        let split = Self.size - ringIndex
        let start = ringIndex
        Self.window.withUnsafeBufferPointer { window in
            ring.withUnsafeBufferPointer { ring in
                windowed.withUnsafeMutableBufferPointer { windowed in
                    for index in 0..<split { windowed[index] = ring[start + index] * window[index] }
                    for index in split..<Self.size { windowed[index] = ring[index - split] * window[index] }
                }
            }
        }
        windowed.withUnsafeBufferPointer { spectrum.compute($0, into: &power) }
        // A full-scale sine's bin is size / 4 through the Hann window.
        let reference = Float(Self.size / 4) * Float(Self.size / 4)
        for bins in bandBins {
            var largest: Float = 0
            for bin in bins { largest = max(largest, power[bin]) }
            let decibels = largest > 0 ? 10 * log10(Double(largest / reference)) : -Double.infinity
            let scaled = (decibels - Spectrogram.floorDecibels) / -Spectrogram.floorDecibels * 255
            result.levels.append(UInt8(max(0, min(255, scaled.isFinite ? scaled.rounded() : 0))))
        }
    }
}

/// The power (|X|², unscaled) of bins 0 through N/2 of a real signal of N values, N a power of two: the even
/// and odd values as one complex signal of N/2, transformed, and the two halves' spectra separated.
package struct PowerSpectrum {
    let size: Int
    private let transform: FourierTransform
    /// cos and -sin of 2πk/N, k from 0 through N/2.
    private let twiddleReal: [Float]
    private let twiddleImaginary: [Float]
    private var real: [Float]
    private var imaginary: [Float]

    package init(size: Int) {
        self.size = size
        transform = FourierTransform(size: size / 2)
        twiddleReal = (0...size / 2).map { cos(2 * Float.pi * Float($0) / Float(size)) }
        twiddleImaginary = (0...size / 2).map { -sin(2 * Float.pi * Float($0) / Float(size)) }
        real = Array(repeating: 0, count: size / 2)
        imaginary = Array(repeating: 0, count: size / 2)
    }

    /// Writes the power of bins 0 through N/2 of `input` (N values) into `power` (N/2 + 1 values).
    package mutating func compute(_ input: UnsafeBufferPointer<Float>, into power: inout [Float]) {
        let half = size / 2
        for index in 0..<half {
            real[index] = input[2 * index]
            imaginary[index] = input[2 * index + 1]
        }
        transform.forward(&real, &imaginary)
        for bin in 0...half {
            let a = bin == half ? 0 : bin
            let b = bin == 0 ? 0 : half - bin
            // Z[k] and the conjugate of Z[N/2 - k]: their half-sum is the even values' spectrum, their
            // half-difference over i the odd values'.
            let (zr, zi) = (real[a], imaginary[a])
            let (cr, ci) = (real[b], -imaginary[b])
            let (evenReal, evenImaginary) = ((zr + cr) / 2, (zi + ci) / 2)
            let (oddReal, oddImaginary) = ((zi - ci) / 2, -(zr - cr) / 2)
            let (wr, wi) = (twiddleReal[bin], twiddleImaginary[bin])
            let x = evenReal + wr * oddReal - wi * oddImaginary
            let y = evenImaginary + wr * oddImaginary + wi * oddReal
            power[bin] = x * x + y * y
        }
    }
}

/// An in-place radix-2 complex FFT of a fixed power-of-two size.
package struct FourierTransform {
    let size: Int
    /// Each stage's twiddles, contiguous: for the stage joining halves of `half` values, cos and sin of
    /// -2π offset / (2 half) at `half + offset` (so the butterflies of a stage read them in order).
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    package init(size: Int) {
        self.size = size
        var cosines = [Float](repeating: 0, count: max(size, 1))
        var sines = [Float](repeating: 0, count: max(size, 1))
        var half = 1
        while half < size {
            for offset in 0..<half {
                let angle = -Float.pi * Float(offset) / Float(half)
                cosines[half + offset] = cos(angle)
                sines[half + offset] = sin(angle)
            }
            half *= 2
        }
        self.cosines = cosines
        self.sines = sines
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var result = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { result |= 1 << (bits - 1 - bit) }
            return result
        }
    }

    /// Replaces `real` + i `imaginary` (``size`` values each) by its discrete Fourier transform
    /// (e^-2πi kn/N, unscaled).
    package func forward(_ real: inout [Float], _ imaginary: inout [Float]) {
        precondition(real.count == size && imaginary.count == size)
        let size = self.size
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        reversed.withUnsafeBufferPointer { reversed in
                            for index in 0..<size where reversed[index] > index {
                                re.swapAt(index, reversed[index])
                                im.swapAt(index, reversed[index])
                            }
                        }
                        guard let re = re.baseAddress, let im = im.baseAddress, let cosines = cosines.baseAddress,
                            let sines = sines.baseAddress
                        else { return }
                        var half = 1
                        while half < size {
                            let c = cosines + half
                            let s = sines + half
                            for start in Swift.stride(from: 0, to: size, by: half * 2) {
                                let ra = re + start
                                let ia = im + start
                                let rb = ra + half
                                let ib = ia + half
                                for offset in 0..<half {
                                    let x = rb[offset] * c[offset] - ib[offset] * s[offset]
                                    let y = rb[offset] * s[offset] + ib[offset] * c[offset]
                                    rb[offset] = ra[offset] - x
                                    ib[offset] = ia[offset] - y
                                    ra[offset] += x
                                    ia[offset] += y
                                }
                            }
                            half *= 2
                        }
                    }
                }
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
