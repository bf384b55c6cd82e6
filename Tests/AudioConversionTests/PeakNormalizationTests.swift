import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// Peak normalization (`--normalize-peak`, issue 71) against SoX's `gain -n` (Tests/Fixtures/make-peak-fixtures.sh):
/// the same one gain, so the same samples.
@Suite struct PeakNormalizationTests {
    /// Every sample of `path` as an integer of `bits` (a decoded PCM file's float samples are exact multiples).
    static func samples(_ path: String, bits: Int) throws -> [Int] {
        let reader = try SourceReader(path: path)
        var floats: [Float] = []
        while try reader.read(maximum: 65536, into: &floats) > 0 {}
        let scale = Double(1 << (bits - 1))
        return floats.map { Int((Double($0) * scale).rounded()) }
    }

    static func normalized(_ level: Double, _ spec: String, measure: PeakTarget.Measure = .sample, to name: String)
        throws -> (path: String, result: ConversionResult, folder: Folder)
    {
        let folder = try Folder()
        var conversion = settings(spec)
        conversion.peak = PeakTarget(level: level, measure: measure)
        let output = folder.path + "/" + name
        let result = try AudioConverter.convert(
            input: fixtures + "/peak/source-s16.wav", output: output, settings: conversion)
        return (output, result, folder)
    }

    /// 16 and 24 bits, to -1 and -6 dBFS: each sample within one LSB of SoX's. In 16 bits nearly all are exactly
    /// SoX's (SoX scales its 32-bit integers by the gain and rounds twice, to 32 bits and then to the output's, where
    /// afkit scales floats and rounds once: a product within a hair of half an LSB may round the other way). In 24
    /// bits about one in ten is one LSB off: afkit's pipeline is 32-bit float, whose 24 significant bits round the
    /// gain's product to within half a 24-bit LSB before the output's own rounding.
    @Test(arguments: [
        (-1.0, "LEI16", "sox-gain-n-1.wav", 16), (-6.0, "LEI16", "sox-gain-n-6.wav", 16),
        (-1.0, "LEI24", "sox-gain-n-1-s24.wav", 24),
    ])
    func matchesSoX(_ level: Double, _ spec: String, _ reference: String, _ bits: Int) throws {
        let (path, result, folder) = try Self.normalized(level, spec, to: "out.wav")
        _ = folder
        let ours = try Self.samples(path, bits: bits)
        let sox = try Self.samples(fixtures + "/peak/" + reference, bits: bits)
        #expect(ours.count == sox.count && ours.count == 6615 * 2)
        let differences = zip(ours, sox).map { abs($0 - $1) }
        #expect(differences.max() ?? 99 <= 1, "\(differences.max() ?? -1)")
        let off = differences.filter { $0 != 0 }.count
        #expect(off * (bits == 16 ? 1000 : 5) <= ours.count, "\(off) of \(ours.count) samples differ by one LSB")
        // The peak where it was asked, within half an LSB.
        let peak = Double(ours.map(abs).max() ?? 0) / Double(1 << (bits - 1))
        #expect(abs(20 * log10(peak) - level) < 20 * log10(1 + 1 / Double(1 << (bits - 2))))
        let outcome = try #require(result.normalization)
        #expect(outcome.summary.hasPrefix("sample peak -10.73 -> \(Int(level)) dBFS: gain +"), "\(outcome.summary)")
        #expect(abs(outcome.gain - (level - outcome.source.samplePeak)) < 1e-9)
    }

    /// The true peak asked for: a float output's decoded true peak is the level (the meter's own figure, within
    /// its rounding); an MP3's decoded sample peak is brought to within 0.1 dB of the level, aimed again once after
    /// the encoder moved it.
    @Test func truePeakAndLossyOutputs() throws {
        let (float, _, keep) = try Self.normalized(-1, "LEF32", measure: .truePeak, to: "true.wav")
        _ = keep
        let measured = try LoudnessMeasurement.measure(path: float)
        #expect(abs(measured.truePeak - -1) < 0.01, "\(measured.truePeak)")
        #expect(measured.samplePeak <= measured.truePeak)

        let (mp3, result, kept) = try Self.normalized(-3, "mp3", to: "out.mp3")
        _ = kept
        let decoded = try LoudnessMeasurement.measure(path: mp3)
        #expect(abs(decoded.samplePeak - -3) <= 0.1, "\(decoded.samplePeak)")
        let outcome = try #require(result.normalization)
        #expect(abs(outcome.output.samplePeak - decoded.samplePeak) < 1e-9)
    }
}
