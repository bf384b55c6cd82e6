import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

@testable import AudioConversion

/// The speech leveler (`--loudness --dynamic`, issue 71): two speakers 8 dB apart come out alike, a pause keeps the
/// gain around it, the gain never moves faster than its bound, and the linear way still never rides.
@Suite struct SpeechLevelerTests {
    /// The fixture's turns: speaker, start and end, seconds.
    static func turns() throws -> [(name: String, start: Double, end: Double)] {
        try String(contentsOfFile: fixtures + "/speech/two-speakers.turns", encoding: .utf8)
            .split(separator: "\n").map { line in
                let parts = line.split(separator: " ")
                return (String(parts[0]), try #require(Double(parts[1])), try #require(Double(parts[2])))
            }
    }

    /// The mean power (dB) of `samples` (mono, 48 kHz) from `start` to `end` seconds, a second in from each end of a
    /// turn (where the leveler's 3 s window has settled).
    static func level(_ samples: [Float], _ start: Double, _ end: Double, inset: Double = 1) -> Double {
        let slice = samples[Int((start + inset) * 48000)..<Int((end - inset) * 48000)]
        return 10 * log10(slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count))
    }

    /// The curve on measured blocks: a loud turn, a turn 8 dB quieter, a long silence, the loud turn again. Each
    /// turn's middle is brought to the programme's level, the silence takes gains between its neighbours' (never
    /// more), the gain stays within its range and never steps more than its slope allows.
    @Test func theCurveLevelsTurnsAndHoldsPauses() throws {
        let blocks =
            [Float](repeating: -20, count: 100) + [Float](repeating: -28, count: 100)
            + [Float](repeating: -.infinity, count: 60) + [Float](repeating: -20, count: 100)
        let programme = -22.0
        let (curve, gains) = try #require(SpeechLeveler.curve(blocks: blocks, programme: programme, step: 4800))
        #expect(curve.gains.count == blocks.count && gains.count == blocks.count)
        #expect(abs(-20 + gains[50] - programme) < 0.1, "\(gains[50])")
        #expect(abs(-28 + gains[150] - programme) < 0.1, "\(gains[150])")
        #expect(abs(-20 + gains[310] - programme) < 0.1, "\(gains[310])")
        let around = (gains[180], gains[280])
        for gain in gains[200..<260] {
            #expect(gain <= max(around.0, around.1) + 1e-9 && gain >= min(around.0, around.1) - 1e-9)
        }
        for index in gains.indices.dropFirst() {
            #expect(abs(gains[index] - gains[index - 1]) <= SpeechLeveler.maximumSlope / 10 + 1e-9)
        }
        #expect(gains.allSatisfy { $0 <= SpeechLeveler.maximumBoost && $0 >= -SpeechLeveler.maximumCut })
        // The linear gains the converter applies are the curve's decibels, and between two points the gain glides.
        #expect(abs(20 * log10(Double(curve.gains[150])) - gains[150]) < 1e-4)
        var ramp = [Float](repeating: 1, count: 4800 * 2)
        curve.apply(&ramp, channels: 2, from: 4800 * 100 + 2400, frames: 4800)
        #expect(ramp[0] == curve.gains[100] && ramp[1] == curve.gains[100])
        #expect(abs(ramp[2 * 2400] - (curve.gains[100] + curve.gains[101]) / 2) < 1e-5)
        // Nothing that counts as speech: no curve.
        #expect(
            SpeechLeveler.curve(blocks: [Float](repeating: -.infinity, count: 50), programme: -30, step: 4800) == nil)
    }

    /// A short loud sound alone (a 0.3 s hit after a fade-out, with two seconds of silence either side: too little
    /// sound near it for a level of its own) is brought down to the programme's level, as a long one would be,
    /// though the fade before it was raised (the new user's episode: its closing hit took the fade's +9 dB, and its leveled true peak stood
    /// 11 dB over the linear one). A quiet cough alone is still held at its neighbours' gain.
    @Test func aLoneHitIsBroughtToTheProgramme() throws {
        let fade = (0..<40).map { Float(-28 - Double($0) * 0.25) }
        let blocks =
            [Float](repeating: -20, count: 100) + fade + [Float](repeating: -.infinity, count: 20)
            + [Float](repeating: -6, count: 3) + [Float](repeating: -.infinity, count: 20)
        let programme = -20.0
        let (_, gains) = try #require(SpeechLeveler.curve(blocks: blocks, programme: programme, step: 4800))
        #expect(gains[120] > 5, "the fade is raised: \(gains[120])")
        // (14 dB over the programme: cut by the most the leveler cuts.)
        for index in 160..<163 {
            #expect(abs(gains[index] + SpeechLeveler.maximumCut) < 1e-9, "\(index): \(gains[index])")
        }
        for index in gains.indices.dropFirst() {
            #expect(abs(gains[index] - gains[index - 1]) <= SpeechLeveler.maximumSlope / 10 + 1e-9)
        }
        // A cough at -34 in the same place: quieter than the programme, it keeps the held gain.
        var cough = blocks
        for index in 160..<163 { cough[index] = -34 }
        let (_, held) = try #require(SpeechLeveler.curve(blocks: cough, programme: programme, step: 4800))
        #expect(held[161] > 5, "\(held[161])")
    }

    /// Two espeak-ng speakers 8 dB apart with room tone: leveled, they come out within 1 dB of each other at the
    /// target (within 0.1 LU) under the ceiling, the loudness range narrows by more than half, and the pause is
    /// raised by no more than the turns around it; the linear way keeps the speakers as far apart as they
    /// were.
    @Test func levelsTwoSpeakersAlike() throws {
        let source = fixtures + "/speech/two-speakers.opus"
        let folder = try Folder()
        let turns = try Self.turns()
        let original = try decodedSamples(source)
        var conversion = settings("LEI16", type: .wav)
        conversion.loudness = LoudnessTarget(integrated: -16)
        conversion.loudness?.dynamic = true
        let result = try AudioConverter.convert(
            input: source, output: folder.path + "/leveled.wav", settings: conversion)
        let outcome = try #require(result.normalization)
        let leveling = try #require(outcome.leveling)
        let measured = try LoudnessMeasurement.measure(path: folder.path + "/leveled.wav")
        #expect(abs(measured.integrated + 16) <= 0.1, "\(measured.integrated)")
        #expect(measured.truePeak <= -1, "\(measured.truePeak)")
        #expect(measured.range < leveling.source.range / 2, "\(leveling.source.range) -> \(measured.range)")
        #expect(outcome.summary.hasPrefix("loudness range "), "\(outcome.summary)")
        #expect(leveling.greatestGain > 3 && leveling.leastGain < 0, "\(leveling)")

        let leveled = try decodedSamples(folder.path + "/leveled.wav")
        #expect(leveled.count == original.count)
        func gap(_ samples: [Float]) -> Double {
            let a = turns.filter { $0.name == "A" }.map { Self.level(samples, $0.start, $0.end) }
            let b = turns.filter { $0.name == "B" }.map { Self.level(samples, $0.start, $0.end) }
            return a.reduce(0, +) / Double(a.count) - b.reduce(0, +) / Double(b.count)
        }
        #expect(gap(original) > 6, "the fixture's speakers are \(gap(original)) dB apart")
        #expect(abs(gap(leveled)) < 1, "leveled, the speakers are \(gap(leveled)) dB apart")
        // The pause (room tone alone) is raised by no more than the turns either side of it.
        let pause = try #require(turns.first { $0.name == "pause" })
        let index = try #require(turns.firstIndex { $0.name == "pause" })
        func raised(_ turn: (name: String, start: Double, end: Double), inset: Double = 1) -> Double {
            Self.level(leveled, turn.start, turn.end, inset: inset)
                - Self.level(original, turn.start, turn.end, inset: inset)
        }
        let neighbours = max(raised(turns[index - 1]), raised(turns[index + 1]))
        #expect(
            raised(pause, inset: 0.2) <= neighbours + 0.5, "pause +\(raised(pause, inset: 0.2)), turns +\(neighbours)")

        // Linear, at a target gain alone reaches (no limiter to touch the louder speaker's peaks): one gain, the
        // speakers exactly as far apart as before.
        conversion.loudness = LoudnessTarget(integrated: -22)
        conversion.loudness?.dynamic = false
        let linear = try AudioConverter.convert(
            input: source, output: folder.path + "/linear.wav", settings: conversion)
        #expect(linear.normalization?.leveling == nil)
        #expect(linear.normalization?.limiterReduction == 0)
        #expect(abs(gap(try decodedSamples(folder.path + "/linear.wav")) - gap(original)) < 0.05)
    }

    /// The voice preset levels unless `--linear` says otherwise; the other presets normalize linearly; the
    /// provenance says which.
    @Test func theVoicePresetLevelsByDefault() {
        var adjustments = ConversionAdjustments()
        adjustments.loudness = LoudnessTarget(integrated: -16)
        for (preset, dynamic) in [(Preset.voice, true), (.music, false), (.pcm, false)] {
            var settings = preset.settings
            settings.apply(adjustments)
            #expect(settings.loudness?.dynamic == dynamic, "\(preset)")
        }
        adjustments.loudness?.dynamic = false
        var voice = Preset.voice.settings
        voice.apply(adjustments)
        #expect(voice.loudness?.dynamic == false)
        var target = LoudnessTarget(integrated: -16)
        target.dynamic = true
        #expect(target.description == "-16 LUFS, -1 dBTP, speech leveled")
    }
}
