import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// libebur128's meter as the validator's decode pass feeds it (the loudness and true-peak rules need one).
private final class EngineMeter: StreamingLoudnessMeter, @unchecked Sendable {
    let meter: LoudnessMeter
    init(_ meter: LoudnessMeter) { self.meter = meter }
    func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) { try? meter.add(samples, frames: frames) }
    var facts: LoudnessFacts? {
        let measured = meter.measurement
        return LoudnessFacts(
            integrated: measured.integrated, range: measured.range, truePeak: measured.truePeak,
            samplePeak: measured.samplePeak, shortSoundLoudness: measured.shortSoundLoudness)
    }
}

/// Presets pass their own profile (issue 49): every preset's output, from sources across rates, channel counts
/// and sample formats, validates against ``Preset/profileName`` with no finding at all.
@Suite struct PresetProfileTests {
    /// A source: rate, channels, stored bits, float.
    struct Source: CustomStringConvertible {
        var rate: Double
        var channels: UInt32
        var bits: UInt32
        var isFloat = false
        var description: String { "\(Int(rate)) Hz \(channels) ch \(bits)-bit\(isFloat ? " float" : "")" }
    }

    /// A representative diagonal and the extremes: 8 to 192 kHz, 1 to 8 channels, 8 to 32 bits, float.
    static let sources = [
        Source(rate: 8000, channels: 1, bits: 8), Source(rate: 22050, channels: 2, bits: 16),
        Source(rate: 44100, channels: 3, bits: 24), Source(rate: 48000, channels: 6, bits: 32),
        Source(rate: 96000, channels: 8, bits: 32, isFloat: true), Source(rate: 192000, channels: 2, bits: 24),
        Source(rate: 192000, channels: 8, bits: 16), Source(rate: 8000, channels: 8, bits: 32, isFloat: true),
    ]

    /// Half a second of a 1 kHz tone at `amplitude` in every channel, written by afkit's writer.
    static func write(_ source: Source, amplitude: Double = 0.2, to path: String) throws {
        let format = StreamDescription.linearPCM(
            sampleRate: source.rate, channels: source.channels, bitsPerChannel: source.bits, isFloat: source.isFloat,
            signed8: true)
        let frames = Int(source.rate) / 2
        var samples = [Float](repeating: 0, count: frames * Int(source.channels))
        for frame in 0..<frames {
            let value = Float(amplitude * sin(2 * Double.pi * 1000 * Double(frame) / source.rate))
            for channel in 0..<Int(source.channels) { samples[frame * Int(source.channels) + channel] = value }
        }
        var encoder = try PCMEncoder(format: format)
        var bytes: [UInt8] = []
        _ = try encoder.encode(samples, into: &bytes)
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: format)
        try writer.writePackets(bytes)
        try writer.close()
    }

    /// The presets' rates are one table (``PresetSampleRate``, which the validator's fixes read too): each preset's
    /// output has the table's rate, a fixed one whatever the source's, else the source's up to the table's most.
    /// (`voice` is Opus, whose codec chooses its rate: the table leaves it out.)
    @Test func everyPresetWritesTheTablesRate() throws {
        let scratch = try Scratch()
        for (index, source) in [8000.0, 44100, 96000].enumerated() {
            let input = scratch.root + "/rate\(index).caf"
            try Self.write(Source(rate: source, channels: 1, bits: 16), to: input)
            for preset in Preset.allCases where preset != .voice {
                let output = scratch.root + "/rate\(index)-\(preset.rawValue).caf"
                _ = try AudioConverter.convert(input: input, output: output, settings: preset.settings)
                let rate = try AudioFile(path: output).dataFormat.sampleRate
                let table = PresetSampleRate.of(preset: preset.rawValue)
                #expect(rate == table.fixed ?? min(source, table.highest), "\(preset) from \(source) Hz: \(rate)")
            }
        }
        #expect(PresetSampleRate.of(preset: "sfx").fixed == 22050)
        #expect(PresetSampleRate.of(preset: "system-sound").highest == 48000)
    }

    @Test func everyPresetsOutputPassesItsOwnProfile() throws {
        let scratch = try Scratch()
        var findings: [String] = []
        for (index, source) in Self.sources.enumerated() {
            let input = scratch.root + "/source\(index).caf"
            try Self.write(source, to: input)
            for preset in Preset.allCases {
                guard let name = preset.profileName else { continue }
                let profile = try #require(Profile.builtIn[name])
                let output = scratch.root + "/\(index)-\(preset.rawValue).caf"
                var result = try AudioConverter.convert(input: input, output: output, settings: preset.settings)
                // Loudness is the source's, not the preset's: where the profile judges it, the source is made as
                // loud as the profile asks of the output, so only what the preset decides is judged.
                let loudness = profile.entries.first { $0.rule == "loudness" && $0.enabled }
                if let target = loudness?.settings.number("target") {
                    let measured = try LoudnessMeasurement.measure(path: output).integrated
                    let level = scratch.root + "/source\(index)-\(preset.rawValue).caf"
                    try Self.write(source, amplitude: 0.2 * pow(10, (target - measured) / 20), to: level)
                    result = try AudioConverter.convert(input: level, output: output, settings: preset.settings)
                }
                if source.channels > 2 && preset == .systemSound {
                    #expect(result.notes.contains { $0.contains("mixed down from \(source.channels)") }, "\(source)")
                }
                var validator = AssetValidator(profile: profile)
                validator.loudnessMeter = { channels, rate in
                    (try? LoudnessMeter(channels: channels, sampleRate: rate)).map(EngineMeter.init)
                }
                validator.decoderProvider = { format, cookie in
                    try? AudioCodecRegistry.standard.decoder(for: format, magicCookie: cookie)
                }
                validator.sourceReaderProvider = { file in try SourceReader(pipelineFile: file) }
                let report = validator.validate(path: output)
                for violation in report.violations {
                    findings.append("\(source) --preset \(preset.rawValue): \(violation.rule): \(violation.message)")
                }
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// `pcm` keeps every rate and channel count: it answers to no profile of its own.
    @Test func presetsNameBuiltInProfiles() {
        for preset in Preset.allCases {
            if let name = preset.profileName { #expect(Profile.builtIn[name] != nil, "\(preset)") }
        }
        #expect(Preset.pcm.profileName == nil)
        // The preset's own duration limit is its profile's.
        #expect(Preset.systemSound.settings.maximumSeconds == Profile.systemSound.maximumSeconds)
    }
}
