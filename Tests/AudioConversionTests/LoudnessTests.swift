import AudioContainers
import AudioConversion
import AudioEngines
import AudioDecoding
import AudioFormats
import CEBUR128
import Foundation
import Testing

/// Loudness by libebur128 against FFmpeg's own BS.1770-4 implementation (its `ebur128` filter, values
/// as it prints them, to 0.1 dB; Tests/Fixtures/loudness/ffmpeg-ebur128.json, by
/// make-loudness-fixtures.py) and against what the signals are by construction.
@Suite struct LoudnessTests {
    /// FFmpeg's figures by file: integrated, range, sample peak, true peak.
    static let reference: [String: [String: Double]] = {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: fixtures + "/loudness/ffmpeg-ebur128.json"))) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let files = object?["files"] as? [String: [String: Any]] ?? [:]
        return files.mapValues { $0.compactMapValues { $0 as? Double } }
    }()

    @Test func thereAreReferences() { #expect(Self.reference.count >= 6) }

    /// Integrated loudness and sample peak within FFmpeg's rounding; true peak never below the sample peak
    /// and within 0.15 dB of FFmpeg's (whose oversampling filter reads a little higher).
    @Test(arguments: reference.keys.sorted())
    func matchesFFmpeg(_ name: String) throws {
        let expected = try #require(Self.reference[name])
        let measured = try LoudnessMeasurement.measure(path: fixtures + "/" + name)
        let integrated = try #require(expected["integrated"])
        let samplePeak = try #require(expected["samplePeak"])
        let truePeak = try #require(expected["truePeak"])
        #expect(abs(measured.integrated - integrated) <= 0.06, "\(name): \(measured.integrated) vs \(integrated)")
        #expect(abs(measured.samplePeak - samplePeak) <= 0.06, "\(name): \(measured.samplePeak) vs \(samplePeak)")
        #expect(measured.truePeak >= measured.samplePeak)
        #expect(measured.truePeak <= truePeak + 0.06, "\(name): \(measured.truePeak) vs \(truePeak)")
        #expect(measured.truePeak >= truePeak - 0.6, "\(name): \(measured.truePeak) vs \(truePeak)")
    }

    /// The integrated-only meter (a search's measuring passes) reads the full meter's integrated loudness exactly, and
    /// a sound shorter than a gating block its one-block loudness, fed the same frames in other chunks; it claims no
    /// range and no peaks.
    @Test func theIntegratedOnlyMeterReadsTheSameLoudness() throws {
        var seed: UInt64 = 7
        func noise() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: seed >> 11) % 2000 - 1000) / 1000
        }
        for (seconds, channels) in [(5.3, 2), (0.3, 1)] {
            let frames = Int(seconds * 48000)
            // Bursts at three levels, so the gates take some blocks out.
            let samples = (0..<frames * channels).map { index in
                noise() * [0.5, 0.05, 0.002][(index / channels / 24000) % 3]
            }
            let full = try LoudnessMeter(channels: channels, sampleRate: 48000)
            let lean = try LoudnessMeter(integratedOnly: channels, sampleRate: 48000)
            try samples.withUnsafeBufferPointer { all in
                for (meter, chunk) in [(full, 4800), (lean, 7777)] {
                    var start = 0
                    while start < frames {
                        let count = min(chunk, frames - start)
                        try meter.add(
                            UnsafeBufferPointer(rebasing: all[start * channels..<(start + count) * channels]),
                            frames: count)
                        start += count
                    }
                }
            }
            let (expected, measured) = (full.measurement, lean.measurement)
            #expect(lean.isIntegratedOnly && !full.isIntegratedOnly)
            #expect(measured.integrated == expected.integrated, "\(seconds) s")
            #expect(measured.shortSoundLoudness == expected.shortSoundLoudness, "\(seconds) s")
            #expect(measured.normalizable.isFinite)
            #expect(measured.range == 0 && measured.truePeak == -.infinity && measured.samplePeak == -.infinity)
            #expect(expected.truePeak.isFinite)
        }
    }

    /// What the signals are by construction: a 997 Hz sine at -20 dBFS in both channels is -20 LUFS
    /// (BS.1770's calibration) with no range; a quarter-rate tone sampled between its peaks has a true peak
    /// 3 dB over its samples (amplitude 0.7: -3.10 dBTP); three pink-noise steps span 14 LU.
    @Test func signalsByConstruction() throws {
        let sine = try LoudnessMeasurement.measure(path: fixtures + "/loudness/sine-997-minus20-stereo-16k.wav")
        #expect(abs(sine.integrated + 20) < 0.1)
        #expect(sine.range < 0.1)
        let tone = try LoudnessMeasurement.measure(path: fixtures + "/loudness/tones-inter-sample-peak-44k.wav")
        #expect(abs(tone.truePeak - 20 * log10(0.7)) < 0.2)
        #expect(tone.truePeak - tone.samplePeak > 2.5)
        let steps = try LoudnessMeasurement.measure(path: fixtures + "/loudness/steps-pink-8k.wav")
        #expect(abs(steps.range - 14) < 0.15)
        #expect(steps.shortTermMaximum > steps.integrated)
    }

    /// Silence measures -infinity (the command writes it as null); compressed sources are measured over
    /// their valid frames, as afkit decodes them.
    @Test func silenceAndCompressedSources() throws {
        let folder = try Folder()
        let silent = folder.path + "/silent.wav"
        let sound = try SoundFile(
            path: silent, mode: .write,
            info: SoundFile.Info(sampleRate: 8000, channels: 1, format: Int32(0x010000 | 0x0002)))
        try sound.write(int32: [Int32](repeating: 0, count: 8000))
        sound.close()
        let measured = try LoudnessMeasurement.measure(path: silent)
        #expect(measured.integrated == -Double.infinity)
        #expect(measured.samplePeak == -Double.infinity)
        let pcm = try LoudnessMeasurement.measure(path: fixtures + "/signals/speech.wav")
        let aac = try LoudnessMeasurement.measure(path: fixtures + "/afkit-outputs/speech-aac.m4a")
        #expect(abs(aac.integrated - pcm.integrated) < 0.5, "AAC at 64 kbit/s keeps the loudness")
    }

    /// A stereo 1 kHz sine at 48 kHz through segments of (dBFS, seconds), as EBU Tech 3341 and 3342
    /// define their test signals, measured by the meter.
    static func ebuSignal(_ segments: [(Double, Double)]) throws -> LoudnessMeasurement {
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48000)
        let period = (0..<48).map { sin(2 * Double.pi * Double($0) / 48) }  // 1 kHz at 48 kHz: 48 frames
        var block: [Float] = []
        var phase = 0
        for (level, seconds) in segments {
            let amplitude = pow(10, level / 20)
            var remaining = Int((seconds * 48000).rounded())
            while remaining > 0 {
                let count = min(remaining, 4800)
                block.removeAll(keepingCapacity: true)
                for _ in 0..<count {
                    let value = Float(amplitude * period[phase])
                    block.append(value)
                    block.append(value)
                    phase = phase == 47 ? 0 : phase + 1
                }
                try block.withUnsafeBufferPointer { try meter.add($0, frames: count) }
                remaining -= count
            }
        }
        return meter.measurement
    }

    /// EBU Tech 3341's integrated-loudness cases 1 to 5 (stereo): -23.0 LUFS, or -33.0 for case 2,
    /// within the ±0.1 LU EBU specifies.
    @Test func ebuTech3341() throws {
        let cases: [([(Double, Double)], Double)] = [
            ([(-23, 20)], -23),
            ([(-33, 20)], -33),
            ([(-36, 10), (-23, 60), (-36, 10)], -23),
            ([(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)], -23),
            ([(-26, 20), (-20, 20.1), (-26, 20)], -23),
        ]
        for (index, (segments, expected)) in cases.enumerated() {
            let measured = try Self.ebuSignal(segments)
            #expect(abs(measured.integrated - expected) <= 0.1, "case \(index + 1): \(measured.integrated)")
        }
    }

    /// EBU Tech 3342's loudness-range cases 1 to 4: 10, 5, 20 and 15 LU within ±1 LU.
    @Test func ebuTech3342() throws {
        let cases: [([(Double, Double)], Double)] = [
            ([(-20, 20), (-30, 20)], 10),
            ([(-20, 20), (-15, 20)], 5),
            ([(-40, 20), (-20, 20)], 20),
            ([(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
        ]
        for (index, (segments, expected)) in cases.enumerated() {
            let measured = try Self.ebuSignal(segments)
            #expect(abs(measured.range - expected) <= 1, "case \(index + 1): \(measured.range)")
        }
    }

    /// EBU Tech 3341's true-peak cases 15 to 23 (48 kHz stereo, from their definitions): sines at fs/4,
    /// fs/6 and fs/8 of amplitude 0.5 (faded in and out) sampled at phases that put their samples below their
    /// crests (-6.0 dBTP),
    /// one of amplitude 1.41 whose samples reach full scale only (+3.0 dBTP), and a band-limited pulse whose
    /// crest (1.0: 0.0 dBTP) falls 0, 1, 2 and 3 quarters of a frame after a sample; each within Tech 3341's
    /// +0.2/-0.4 dB.
    @Test func ebuTech3341TruePeak() throws {
        // Sines faded in and out over 20 ms, so no onset overshoots what the steady tone reaches.
        func sine(_ period: Double, _ amplitude: Double, _ degrees: Double) -> (Int) -> Double {
            { frame in
                let fade = min(1, Double(min(frame, 9599 - frame)) / 960)
                return fade * amplitude * sin(2 * Double.pi * Double(frame) / period + degrees * Double.pi / 180)
            }
        }
        func pulse(quarters: Int) -> (Int) -> Double {
            // A Hann-windowed half-band sinc (cut off at fs/4) centred between frames 4800 and 4801.
            { frame in
                let t = Double(frame) - 4800 - Double(quarters) / 4
                guard abs(t) < 64 else { return 0 }
                let x = t / 2
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                return sinc * 0.5 * (1 + cos(Double.pi * t / 64))
            }
        }
        let cases: [((Int) -> Double, Double)] = [
            (sine(4, 0.5, 0), -6.02), (sine(4, 0.5, 45), -6.02), (sine(6, 0.5, 60), -6.02),
            (sine(8, 0.5, 67.5), -6.02), (sine(4, 1.41, 45), 3.0), (pulse(quarters: 0), 0), (pulse(quarters: 1), 0),
            (pulse(quarters: 2), 0), (pulse(quarters: 3), 0),
        ]
        for (index, (signal, expected)) in cases.enumerated() {
            let meter = try LoudnessMeter(channels: 2, sampleRate: 48000)
            let samples = (0..<9600).flatMap { frame in [Float(signal(frame)), Float(signal(frame))] }
            try samples.withUnsafeBufferPointer { try meter.add($0, frames: 9600) }
            let truePeak = meter.measurement.truePeak
            #expect(
                truePeak <= expected + 0.2 && truePeak >= expected - 0.4, "case \(index + 15): \(truePeak) dBTP")
        }
    }

    /// afkit's true-peak meter against libebur128's own (the one it replaces, fed the same decoded frames):
    /// within 0.1 dB on the committed music, speech and noise, the inter-sample tone and an AAC file, at 44.1,
    /// 22.05, 16 and 8 kHz; the short-term maximum (now from 100 ms block energies) equal to libebur128's own
    /// short-term readings every 100 ms; and the integrated loudness (still libebur128's) unchanged.
    @Test(arguments: [
        "signals/music.wav", "signals/speech.wav", "signals/noise.wav", "loudness/tones-inter-sample-peak-44k.wav",
        "loudness/sine-997-minus20-stereo-16k.wav", "loudness/steps-pink-8k.wav", "afkit-outputs/speech-aac.m4a",
    ])
    func truePeakMatchesLibebur128(_ name: String) throws {
        let reader = try SourceReader(path: fixtures + "/" + name)
        let channels = reader.channels
        var samples: [Float] = []
        while try reader.read(maximum: 4096, into: &samples) > 0 {}
        let frames = samples.count / channels
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_S.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        var state = ebur128_init(UInt32(channels), UInt(reader.sampleRate), mode)
        try #require(state != nil)
        defer { ebur128_destroy(&state) }
        // The reference in 100 ms steps, its short-term loudness read after each.
        let step = Int(reader.sampleRate / 10)
        var shortTermMaximum = -Double.infinity
        samples.withUnsafeBufferPointer { buffer in
            var done = 0
            while done < frames {
                let count = min(step, frames - done)
                _ = ebur128_add_frames_float(state, buffer.baseAddress.map { $0 + done * channels }, count)
                done += count
                var value = -Double.infinity
                if count == step, ebur128_loudness_shortterm(state, &value) == Int32(EBUR128_SUCCESS.rawValue) {
                    shortTermMaximum = max(shortTermMaximum, value)
                }
            }
        }
        // afkit's meter in blocks of another size.
        let meter = try LoudnessMeter(channels: channels, sampleRate: reader.sampleRate)
        var done = 0
        while done < frames {
            let count = min(4096, frames - done)
            try samples.withUnsafeBufferPointer {
                try meter.add(UnsafeBufferPointer(rebasing: $0[(done * channels)...]), frames: count)
            }
            done += count
        }
        var reference = 0.0
        for channel in 0..<UInt32(channels) {
            var value = 0.0
            _ = ebur128_true_peak(state, channel, &value)
            reference = max(reference, value)
        }
        var integrated = 0.0
        _ = ebur128_loudness_global(state, &integrated)
        let measured = meter.measurement
        #expect(
            abs(measured.truePeak - 20 * log10(reference)) <= 0.1,
            "\(name): \(measured.truePeak) vs \(20 * log10(reference))")
        #expect(abs(measured.integrated - integrated) <= 0.05 || !integrated.isFinite)
        #expect(
            abs(measured.shortTermMaximum - shortTermMaximum) <= 0.01,
            "\(name): \(measured.shortTermMaximum) vs \(shortTermMaximum)")
    }
}
