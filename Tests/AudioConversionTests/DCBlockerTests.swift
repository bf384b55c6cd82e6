import AudioConversion
import AudioFormats
import Foundation
import Testing

/// `--remove-dc` (issue 71: a fix's gain raised a file's DC offset past the validator's limit): the offset goes,
/// the sound stays, the length is the same, and a sound that starts on its offset starts without a step.
@Suite struct DCBlockerTests {
    @Test func theOffsetGoesAndTheSoundStays() throws {
        let folder = try Folder()
        let rate = 48000.0
        // Two channels: a 440 Hz tone and a 60 Hz one (the lowest a speaker may play), each on its own offset.
        var samples: [Float] = []
        for frame in 0..<96000 {
            let time = Double(frame) / rate
            samples.append(Float(0.25 * sin(2 * Double.pi * 440 * time) + 0.05))
            samples.append(Float(0.25 * sin(2 * Double.pi * 60 * time) - 0.02))
        }
        let source = folder.path + "/offset.wav"
        try writeFloatWAV(samples, rate: rate, channels: 2, to: source)
        var settings = ConversionSettings()
        settings.dataFormat = DataFormatSpecifier("LEF32")
        settings.edits.removesDC = true
        let output = folder.path + "/out.wav"
        try AudioConverter.convert(input: source, output: output, settings: settings)
        let out = try decodedSamples(output)
        #expect(out.count == samples.count)
        for channel in 0..<2 {
            // After the first tenth of a second (the filter settled): no offset, the tone's level within 0.1 dB.
            let kept = stride(from: 9600 * 2 + channel, to: out.count, by: 2).map { Double(out[$0]) }
            let mean = kept.reduce(0, +) / Double(kept.count)
            let power = kept.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(kept.count)
            #expect(abs(mean) < 1e-4, "channel \(channel): mean \(mean)")
            #expect(abs(10 * log10(power / (0.25 * 0.25 / 2))) < 0.1, "channel \(channel): \(power)")
            // The first sample: the step the offset would make is not there.
            #expect(abs(out[channel]) < 0.01, "channel \(channel) starts at \(out[channel])")
        }
        // Without it, the offset stays.
        settings.edits.removesDC = false
        try AudioConverter.convert(input: source, output: output, settings: settings)
        let kept = try decodedSamples(output)
        let left: [Double] = stride(from: 0, to: kept.count, by: 2).map { Double(kept[$0]) }
        let offset = left.reduce(0, +) / Double(left.count)
        #expect(abs(offset - 0.05) < 1e-4, "\(offset)")
    }
}
