import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

@testable import AudioConversion

/// Where a lossy encoder's decoded peaks pass the ceiling, the normalizer dips those tenths of a second only (issue
/// 71: lowering the whole programme's ceiling for AAC's worst overshoot at 64 kbit/s refused -16 LUFS for a
/// 20-minute episode): the true-peak meter says where the peaks are, the dips are learned from them, and the render
/// applies them after the limiter, frame for frame.
@Suite struct OvershootDipsTests {
    /// A 48 kHz stereo sine at `amplitude`, `seconds` long, louder (`loud`) over the frames `burst`, then a tenth of a
    /// second of silence.
    static func sine(seconds: Double, amplitude: Float, burst: Range<Int> = 0..<0, loud: Float = 0) -> [Float] {
        let frames = Int(seconds * 48000)
        var samples = [Float](repeating: 0, count: (frames + 4800) * 2)
        for frame in 0..<frames {
            let level = burst.contains(frame) ? loud : amplitude
            let value = level * Float(sin(2 * Double.pi * 441 * Double(frame) / 48000))
            samples[frame * 2] = value
            samples[frame * 2 + 1] = -value
        }
        return samples
    }

    /// Each block's true peak is its own, whatever sizes the frames come in, and the loudest is the whole sound's.
    @Test func theMeterKeepsEachBlocksPeak() {
        let samples = Self.sine(seconds: 2, amplitude: 0.1, burst: 33_700..<33_900, loud: 0.9)
        func peaks(chunk: Int) -> (blocks: [Float], whole: Double) {
            let meter = TruePeakMeter(channels: 2, sampleRate: 48000, blockFrames: 4800)
            samples.withUnsafeBufferPointer { all in
                var start = 0
                while start < all.count / 2 {
                    let count = min(chunk, all.count / 2 - start)
                    meter.add(UnsafeBufferPointer(rebasing: all[start * 2..<(start + count) * 2]), frames: count)
                    start += count
                }
            }
            return (meter.blockPeaks, meter.peaks.max() ?? 0)
        }
        let whole = peaks(chunk: 1_000_000)
        #expect(whole.blocks.count == 21)
        #expect(peaks(chunk: 1000).blocks == whole.blocks)
        #expect(peaks(chunk: 4799).blocks == whole.blocks)
        // The burst is in block 7 (33,600 to 38,400): only there is the peak near 0.9.
        for (block, peak) in whole.blocks.enumerated() {
            if block == 7 {
                #expect(peak > 0.89 && peak < 0.92, "\(peak)")
            } else if block < 20 {
                #expect(peak > 0.099 && peak < 0.102, "block \(block): \(peak)")
            }
        }
        #expect(Double(whole.blocks.max() ?? 0) == whole.whole)
    }

    /// The first encode's blocks within the margin under the ceiling (its worst excess, a quarter to one dB) are
    /// dipped to the margin under it; a later encode's only where it passed the ceiling, on top; never deeper than
    /// the bound. The curve holds each dip over
    /// its neighbours so the block itself is lowered whole.
    @Test func dipsAreLearnedWhereTheEncoderOvershot() {
        func linear(_ decibels: Double) -> Float { Float(pow(10, decibels / 20)) }
        var dips = OvershootDips(step: 4800)
        dips.learn(from: [linear(-6), linear(-1.4), linear(0), linear(-3), linear(-6)], ceiling: -1)
        #expect(abs(dips.decibels[0]) < 1e-6 && abs(dips.decibels[3]) < 1e-6 && abs(dips.decibels[4]) < 1e-6)
        #expect(abs(dips.decibels[1] - 0.6) < 1e-4 && abs(dips.decibels[2] - 2) < 1e-4, "\(dips.decibels)")
        #expect(dips.count == 2 && abs(dips.greatest - 2) < 1e-4)
        dips.learn(from: [linear(-0.5), linear(-1.2), linear(-1.5), linear(-6), linear(-6), linear(30)], ceiling: -1)
        // Block 0 passed the ceiling: dipped to the margin under it; block 1 stayed under it: unchanged.
        #expect(abs(dips.decibels[0] - 1.5) < 1e-4 && abs(dips.decibels[1] - 0.6) < 1e-4, "\(dips.decibels)")
        #expect(dips.decibels[5] == OvershootDips.deepest)
        // An encoder that barely overshoots: the margin is its excess, at least a quarter dB.
        var slight = OvershootDips(step: 4800)
        slight.learn(from: [linear(-0.9), linear(-1.2), linear(-1.3)], ceiling: -1)
        #expect(abs(slight.decibels[0] - 0.35) < 1e-4 && abs(slight.decibels[1] - 0.05) < 1e-4, "\(slight.decibels)")
        #expect(slight.decibels[2] == 0)
        let gains = dips.curve.gains
        #expect(gains.count == 7 && gains.last == 1)
        #expect(abs(gains[1] - linear(-2)) < 1e-6 && abs(gains[3] - linear(-2)) < 1e-6)
        #expect(abs(gains[0] - linear(-1.5)) < 1e-6 && abs(gains[4] - linear(-6)) < 1e-6)
    }

    /// The render applies the dips after the limiter (which delays what it gives back) and after padding, at the
    /// output frames they were learned at: a dipped block is lowered by its dip exactly, frames two blocks away are
    /// the same as without dips; with and without a limiter.
    @Test(arguments: [-6.0, nil]) func theRenderDipsTheFramesLearned(ceiling: Double?) throws {
        let folder = try Folder()
        let path = folder.path + "/sine.wav"
        try writeFloatWAV(Self.sine(seconds: 3, amplitude: 0.9), rate: 48000, channels: 2, to: path)
        func render(_ dips: GainCurve?) throws -> [Float] {
            var plan = RenderPlan()
            plan.limiterCeiling = ceiling
            plan.padStart = 480
            plan.overshootDips = dips
            var output: [Float] = []
            _ = try AudioConverter.render(
                try SourceReader(path: path), sampleRate: 48000, channels: 2, resampler: .soxr, plan: plan
            ) { output.append(contentsOf: $0) }
            return output
        }
        var dips = OvershootDips(step: 4800)
        var peaks = [Float](repeating: 0.1, count: 30)
        peaks[10] = Float(pow(10, 1.0 / 20))  // +1 dBTP: a 3 dB dip
        dips.learn(from: peaks, ceiling: -1)
        let plain = try render(nil)
        let dipped = try render(dips.curve)
        #expect(plain.count == dipped.count && plain.count == (3 * 48000 + 4800 + 480) * 2)
        let gain = Float(pow(10, -3.0 / 20))
        var checked = 0
        for frame in stride(from: 0, to: plain.count / 2, by: 7) where abs(plain[frame * 2]) > 0.05 {
            let ratio = dipped[frame * 2] / plain[frame * 2]
            if frame >= 10 * 4800 && frame < 11 * 4800 {
                #expect(abs(ratio - gain) < 1e-5, "frame \(frame): \(ratio)")
                checked += 1
            } else if frame < 8 * 4800 + 2400 || frame >= 12 * 4800 + 2400 {
                #expect(ratio == 1, "frame \(frame): \(ratio)")
            }
        }
        #expect(checked > 500)
    }

    /// Two espeak-ng speakers to AAC at 48 kbit/s, leveled to -18 LUFS: the encoder overshoots by 3.6 dB at its
    /// worst, which lowering the whole ceiling could not hold without squashing (refused, naming -21.3 LUFS); held
    /// where it overshoots, the output meets the target within 0.1 LU under the ceiling, in three encodes at most.
    @Test func aLowBitRateOutputIsHeldWhereItOvershoots() throws {
        let folder = try Folder()
        var conversion = settings("aac", type: .m4a)
        conversion.bitRate = 48000
        var target = LoudnessTarget(integrated: -18)
        target.dynamic = true
        conversion.loudness = target
        let counter = EncodeCounter()
        conversion.progress = { counter.report($0) }
        let output = folder.path + "/speech.m4a"
        let result = try AudioConverter.convert(
            input: fixtures + "/speech/two-speakers.opus", output: output, settings: conversion)
        let measured = try LoudnessMeasurement.measure(path: output)
        #expect(abs(measured.integrated + 18) <= 0.1 && measured.truePeak <= -1, "\(measured)")
        #expect(counter.encodes <= 3, "\(counter.encodes) encodes")
        let outcome = try #require(result.normalization)
        let held = try #require(outcome.encoderPeaksHeld, "\(outcome.summary)")
        #expect(held.places > 0 && held.deepest <= Double(OvershootDips.deepest))
        #expect(outcome.summary.contains("the encoder's peaks held in \(held.places) tenths of a second"))
    }
}
