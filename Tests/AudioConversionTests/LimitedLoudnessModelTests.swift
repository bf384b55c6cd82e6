import AudioEngines
import Foundation
import Testing

@testable import AudioConversion

/// The model of a signal's loudness under a gain and the true-peak limiter, against the limiter run and
/// libebur128 measuring what it gives.
@Suite struct LimitedLoudnessModelTests {
    /// A speech-like stereo signal: noise in syllables of changing level, with a loud click every so often, and
    /// a quiet pause (gated out).
    static func speechLike(seconds: Double, rate: Double) -> [Float] {
        let frames = Int(seconds * rate)
        var samples = [Float](repeating: 0, count: frames * 2)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: seed >> 11) % 2_000_001) / 1_000_000 - 1
        }
        var previous: Float = 0
        for frame in 0..<frames {
            let time = Double(frame) / rate
            // Syllables of 150 ms, each at its own level; a second of near silence in the middle.
            let syllable = Int(time / 0.15)
            let level = Float(0.05 + 0.25 * Double((syllable * 7919) % 13) / 13)
            let shape = Float(sin(Double.pi * time.truncatingRemainder(dividingBy: 0.15) / 0.15))
            let pause: Float = time > seconds / 2 && time < seconds / 2 + 1 ? 0.001 : 1
            // Low-passed noise, so the K-weighting's shelf and high-pass both matter.
            previous = 0.7 * previous + 0.3 * random()
            var value = previous * level * shape * pause * 3
            if frame % Int(rate * 1.3) < 24 { value += 0.6 * Float(sin(Double(frame) * 0.9)) }
            samples[frame * 2] = value
            samples[frame * 2 + 1] = 0.8 * value + 0.05 * random() * level
        }
        return samples
    }

    static func model(of samples: [Float], rate: Double) throws -> LimitedLoudnessModel {
        let collector = try #require(LimitedLoudnessModel.Collector(channels: 2, sampleRate: rate, depth: 12))
        samples.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count / 2 {
                let count = min(4096, all.count / 2 - start)
                collector.add(UnsafeBufferPointer(rebasing: all[start * 2..<(start + count) * 2]), frames: count)
                start += count
            }
        }
        return try #require(collector.model())
    }

    /// What a pass reads: the signal at `gain` through the limiter at `ceiling`, metered.
    static func measured(_ samples: [Float], rate: Double, gain: Double, ceiling: Double?) throws -> Double {
        let linear = Float(pow(10, gain / 20))
        let scaled = samples.map { $0 * linear }
        let output = ceiling.map { NormalizationTests.limited(scaled, ceiling: $0, rate: rate).output } ?? scaled
        return try NormalizationTests.measure(output, rate: rate).integrated
    }

    /// Unlimited, the model reads what libebur128 reads (its K-weighting and gating); limited, at ceilings from a
    /// fraction of a dB to 10 dB under the peaks, within a hundredth or two of a LU, at a rate whose 100 ms block is
    /// not a whole number of the model's chunks too.
    @Test(arguments: [48000.0, 44100.0])
    func theModelReadsWhatAPassReads(rate: Double) throws {
        let samples = Self.speechLike(seconds: 6, rate: rate)
        let model = try Self.model(of: samples, rate: rate)
        let unlimited = try Self.measured(samples, rate: rate, gain: 0, ceiling: nil)
        let modelled = try #require(model.loudness(gain: 0, ceiling: nil))
        #expect(abs(modelled - unlimited) < 0.005, "unlimited: model \(modelled), pass \(unlimited)")
        let peak = try NormalizationTests.measure(samples, rate: rate).truePeak
        for (gain, under) in [(0.0, 0.5), (3.0, 4.0), (-2.0, 2.0), (9.0, 10.0)] {
            let ceiling = peak + gain - under
            let pass = try Self.measured(samples, rate: rate, gain: gain, ceiling: ceiling)
            let reading = try #require(model.loudness(gain: gain, ceiling: ceiling))
            #expect(abs(reading - pass) < 0.02, "gain \(gain), \(under) dB limited: model \(reading), pass \(pass)")
            // The limiting is felt: the model is not reading the unlimited signal.
            #expect(unlimited + gain - reading > 0.005)
        }
        // Past the peaks it keeps (12 dB under the loudest), the model does not answer.
        #expect(model.loudness(gain: 0, ceiling: peak - 14) == nil)
    }
}
