import AudioCodecs
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

@testable import AudioConversion

/// `count` of the speech and music fixtures (2.5 s each, 22.05 kHz mono), alternating, joined into a float CAF in
/// `folder` (at `rate`, where given): a sound long enough for a lossy encoder to behave as it does on a programme.
func joinedFixtures(_ count: Int, in folder: Folder, rate: Double? = nil) throws -> String {
    let path = folder.path + "/joined\(count)-\(Int(rate ?? 0)).caf"
    let parts = (0..<count).map {
        Composition.Part(path: fixtures + ($0 % 2 == 0 ? "/signals/speech.wav" : "/signals/music.wav"))
    }
    let composition = try Composition(.join, parts: parts)
    var joining = ConversionSettings()
    joining.fileType = .caf
    joining.dataFormat = DataFormatSpecifier("LEF32")
    joining.sampleRate = rate
    joining.composedSource = { composition.open() }
    try AudioConverter.convert(input: composition.name, output: path, settings: joining)
    return path
}

/// The trial encode a lossy loudness conversion tries its first round on (issue 71): the signal in parts, encoded at
/// once, decoded back onto the signal's frames.
@Suite struct TrialEncodeTests {
    /// For every lossy codec afkit writes, a trial in three parts lines up with the signal as a whole encode read
    /// back does: its first part is the whole encode's decode, frame for frame; its later parts are as near the
    /// signal as the whole encode is there (a part a few frames off would be as far from it as the signal is loud);
    /// and it measures as the whole encode does.
    @Test(arguments: ["m4a", "mp3", "opus", "ogg"])
    func aTrialLinesUpWithTheSignalAsAWholeEncodeDoes(_ ext: String) throws {
        let folder = try Folder()
        // (At 48 kHz, which every one of them codes: the trial is given the signal at the output's rate.)
        let signal = try joinedFixtures(8, in: folder, rate: 48000)
        let whole = folder.path + "/whole." + ext
        try AudioConverter.convert(input: signal, output: whole, settings: ConversionSettings())
        let plan = try ConversionPlan(
            source: SourceReader(path: signal),
            destination: ConversionPlan.Destination(output: whole, settings: ConversionSettings()),
            settings: ConversionSettings())
        let trial = folder.path + "/trial.caf"
        try TrialEncode(settings: try #require(plan.encoderSettings), registry: plan.registry).decode(
            signal: signal, into: trial, parts: 3)
        let given = try decodedSamples(signal)
        let (tried, decoded) = (try decodedSamples(trial), try decodedSamples(whole))
        try #require(tried.count == given.count && decoded.count == given.count)
        let first = given.count / 3
        #expect(tried[0..<first] == decoded[0..<first])
        func snr(_ output: [Float], _ range: Range<Int>) -> Double {
            var (signalEnergy, error) = (0.0, 0.0)
            for index in range {
                signalEnergy += Double(given[index]) * Double(given[index])
                error += Double(output[index] - given[index]) * Double(output[index] - given[index])
            }
            return 10 * log10(signalEnergy / error)
        }
        let later = first..<given.count
        #expect(snr(decoded, later) > 10)
        #expect(abs(snr(tried, later) - snr(decoded, later)) < 1.5, "\(snr(tried, later)) \(snr(decoded, later))")
        let (a, b) = (try LoudnessMeasurement.measure(path: trial), try LoudnessMeasurement.measure(path: whole))
        #expect(abs(a.normalizable - b.normalizable) < 0.1, "\(a.normalizable) \(b.normalizable)")
        #expect(abs(a.truePeak - b.truePeak) < 0.5, "\(a.truePeak) \(b.truePeak)")
    }

    /// A trial takes a core a part, at most 8, each part at least 20 s; on one core, or for a sound under 40 s,
    /// none (a whole encode costs no more).
    @Test func partsFollowTheCoresAndTheLength() {
        #expect(TrialEncode.parts(seconds: 1224, cores: 2) == 2)
        #expect(TrialEncode.parts(seconds: 1224, cores: 16) == 8)
        #expect(TrialEncode.parts(seconds: 100, cores: 16) == 5)
        #expect(TrialEncode.parts(seconds: 39, cores: 2) == 1)
        #expect(TrialEncode.parts(seconds: 1224, cores: 1) == 1)
        // A length a hostile header gives: past any Int, or not a number.
        #expect(TrialEncode.parts(seconds: 1e300, cores: 2) == 2)
        #expect(TrialEncode.parts(seconds: .infinity, cores: 4) == 4)
        #expect(TrialEncode.parts(seconds: .nan, cores: 2) == 1)
    }

    /// A long lossy output at a loudness whose signal reaches the ceiling tries its first round on a trial, and
    /// meets its target as measured, its later rounds numbered in the progress; a PCM output never tries one.
    @Test func aLongLossyLoudnessConversionTriesItsFirstRound() throws {
        let folder = try Folder()
        // (65 s, past a short sound's minute, at 8 kHz: the passes cost little in a debug build.)
        let signal = try joinedFixtures(26, in: folder, rate: 8000)
        let seen = Seen()
        var settings = ConversionSettings()
        // (They measure -20.83 LUFS and -1.85 dBTP: at -21.5, within a few dB of the ceiling; -21 to -22 all meet.)
        settings.loudness = LoudnessTarget(integrated: -21.5, truePeakCeiling: -1)
        settings.progress = { progress in seen.note(progress.activity) }
        let output = folder.path + "/out.m4a"
        let result = try AudioConverter.convert(input: signal, output: output, settings: settings)
        let measured = try LoudnessMeasurement.measure(path: output)
        #expect(abs(measured.normalizable + 21.5) <= 0.1 && measured.truePeak <= -1, "\(measured)")
        #expect(result.normalization != nil)
        if activeProcessorCount() > 1 {
            #expect(seen.activities.contains { $0.contains("trial encode in 2 parts") }, "\(seen.activities)")
            // The encode after the trial is the normalizer's second round, and says so.
            #expect(seen.activities.contains { $0.hasPrefix("encoding, round ") }, "\(seen.activities)")
        }
        let pcm = Seen()
        settings.progress = { progress in pcm.note(progress.activity) }
        try AudioConverter.convert(input: signal, output: folder.path + "/out.wav", settings: settings)
        #expect(!pcm.activities.contains { $0.contains("trial") })
        #expect(!pcm.activities.isEmpty)
    }
}

/// The activities a conversion's progress named, in order, once each.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    func note(_ activity: String?) {
        lock.lock()
        defer { lock.unlock() }
        if let activity, names.last != activity { names.append(activity) }
    }
    var activities: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }
}
