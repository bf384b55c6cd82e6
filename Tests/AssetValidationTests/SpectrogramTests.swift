import Foundation
import Testing

@testable import AssetValidation

/// The report's spectrogram: its FFT against the DFT's definition, its levels against a sine's known level.
@Suite struct SpectrogramTests {
    /// Bin `k` of the DFT of `input`, by its definition.
    static func bin(_ k: Int, of input: [Float]) -> (Double, Double) {
        var re = 0.0
        var im = 0.0
        for n in input.indices {
            let angle = -2 * Double.pi * Double(k * n) / Double(input.count)
            re += Double(input[n]) * cos(angle)
            im += Double(input[n]) * sin(angle)
        }
        return (re, im)
    }

    /// 64 random values in -1...1.
    static func noise() -> [Float] {
        var generator = SystemRandomNumberGenerator()
        return (0..<64).map { _ in Float.random(in: -1...1, using: &generator) }
    }

    @Test func transformMatchesTheDefinition() {
        let input = Self.noise()
        let size = input.count
        var real = input
        var imaginary = [Float](repeating: 0, count: size)
        FourierTransform(size: size).forward(&real, &imaginary)
        for k in 0..<size {
            let (re, im) = Self.bin(k, of: input)
            #expect(abs(Double(real[k]) - re) < 1e-4 && abs(Double(imaginary[k]) - im) < 1e-4, "bin \(k)")
        }
    }

    @Test func powerSpectrumOfARealSignalMatchesTheDefinition() {
        let input = Self.noise()
        let size = input.count
        var spectrum = PowerSpectrum(size: size)
        var power = [Float](repeating: 0, count: size / 2 + 1)
        input.withUnsafeBufferPointer { spectrum.compute($0, into: &power) }
        for k in 0...(size / 2) {
            let (re, im) = Self.bin(k, of: input)
            #expect(abs(Double(power[k]) - (re * re + im * im)) < 1e-3 * max(1, re * re + im * im), "bin \(k)")
        }
    }

    @Test func fullScaleSineReadsZeroDecibelsInItsBandOnly() {
        let rate = 44100.0
        let frames = 44100
        // 1 kHz, full scale, in stereo (the channels' mean is drawn).
        var samples: [Float] = []
        for index in 0..<frames {
            let value = Float(sin(2 * Double.pi * 1000 * Double(index) / rate))
            samples += [value, value]
        }
        var builder = SpectrogramBuilder(frameCount: Int64(frames), sampleRate: rate, channels: 2)
        // Fed in uneven blocks, as decoders hand them.
        var offset = 0
        for block in [1, 1000, 4097, 30000, 9002] {
            samples.withUnsafeBufferPointer { buffer in
                builder.add(UnsafeBufferPointer(rebasing: buffer[(offset * 2)..<((offset + block) * 2)]), frames: block)
            }
            offset += block
        }
        let spectrogram = builder.finish()
        #expect(spectrogram.levels.count == spectrogram.columns * spectrogram.bands)
        let toneBand = Int(
            log(1000 / spectrogram.lowestFrequency) / log(spectrogram.highestFrequency / spectrogram.lowestFrequency)
                * Double(spectrogram.bands))
        let decibelsPerStep = -Spectrogram.floorDecibels / 255
        for column in 0..<spectrogram.columns {
            let bands = spectrogram.levels[(column * spectrogram.bands)..<((column + 1) * spectrogram.bands)]
            let loudest = bands.indices.max { bands[$0] < bands[$1] }.map { $0 - column * spectrogram.bands }
            #expect(loudest == toneBand, "column \(column)")
            // The Hann window's scalloping loses at most 1.42 dB between bins.
            #expect(Double(255 - Int(bands.max() ?? 0)) * decibelsPerStep < 1.5, "column \(column)")
            // Two octaves away the window's side lobes are far down (below -60 dB).
            let far = bands.enumerated().filter { abs(log2(frequency($0.offset, spectrogram) / 1000)) > 2 }
            #expect(far.allSatisfy { Double($0.element) * decibelsPerStep + Spectrogram.floorDecibels < -60 })
        }
    }

    /// A band's centre frequency.
    func frequency(_ band: Int, _ spectrogram: Spectrogram) -> Double {
        spectrogram.lowestFrequency
            * pow(
                spectrogram.highestFrequency / spectrogram.lowestFrequency,
                (Double(band) + 0.5) / Double(spectrogram.bands))
    }
}
