import AudioContainers
import Foundation
import Testing

/// `afkit clip` (issue 48, the contract's "New commands"): clipped samples on the grid and between samples, on
/// files made by FFmpeg and SoX (Tests/Fixtures/make-clip-fixtures.sh), counted against what the files hold.
@Suite struct ClipCommandTests {
    /// The file's stored 16-bit samples (mono).
    static func stored(_ name: String) throws -> [Int16] {
        let file = try AudioFile(path: Command.fixtures + "/" + name)
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    static func report(_ name: String) throws -> (status: Int32, json: [String: Any]) {
        let result = try Command.run(["clip", "--json", name])
        let entry = try #require((result.json as? [[String: Any]])?.first, "\(result.stdout)")
        return (result.status, entry)
    }

    static func counts(_ entry: [String: Any]) -> (onSample: Int, interSample: Int) {
        let channel = (entry["channels"] as? [[String: Any]])?.first ?? [:]
        return (channel["onSample"] as? Int ?? -1, channel["interSample"] as? Int ?? -1)
    }

    /// FFmpeg's flat tops: every stored sample at 32767 or -32768 is an on-sample clip, no other; the runs add up
    /// to the count, each a stretch of consecutive clipped samples.
    @Test func onSampleCountsAreTheFullScaleSamples() throws {
        let name = "clip/ffmpeg-clipped-1k.wav"
        let samples = try Self.stored(name)
        let fullScale = samples.filter { $0 == .max || $0 == .min }.count
        #expect(fullScale > 1000)
        let (status, entry) = try Self.report(name)
        #expect(status == 1)
        #expect(Self.counts(entry).onSample == fullScale)
        let runs = (entry["runs"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "onSample" }
        #expect(runs.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == fullScale)
        for run in runs {
            let start = run["startFrame"] as? Int ?? -1
            let count = run["count"] as? Int ?? 0
            #expect(samples[start..<start + count].allSatisfy { $0 == .max || $0 == .min })
            #expect(start == 0 || !(samples[start - 1] == .max || samples[start - 1] == .min))
        }
        let text = try Command.run(["clip", name])
        #expect(text.stdout.contains("channel 1: \(fullScale) clipped on the sample grid"), "\(text.stdout)")
    }

    /// A file cut short is scanned as far as it goes and said, as every command that reads it says it; one cut
    /// before its first whole frame holds audio none of which can be read, refused by name, never "no clipping".
    @Test func aCutFileIsSaidAndOneWithNoFrameIsRefused() throws {
        let folder = try ScratchFolder()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/clip/inter-sample-11k.wav"))
        let cut = folder.path + "/cut.wav"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        let half = try Command.run(["clip", "--summary", cut])
        #expect(half.status == 1, "\(half.stderr)")
        #expect(half.stderr.contains("clip: \(cut): note: the source is cut short (truncated)"), "\(half.stderr)")
        #expect(half.stderr.contains("what it holds is scanned"), "\(half.stderr)")
        // The header and 1 byte of a 2-byte frame.
        let dataStart = try #require(whole.range(of: Data("data".utf8))).upperBound + 4
        let empty = folder.path + "/empty.wav"
        try whole.prefix(dataStart + 1).write(to: URL(fileURLWithPath: empty))
        let none = try Command.run(["clip", "--summary", empty])
        #expect(none.status == 1 && none.stdout.isEmpty, "\(none.stdout)")
        #expect(none.stderr.contains("before its first whole frame of audio: nothing was scanned"), "\(none.stderr)")
    }

    /// A sine 45 degrees off its peaks: no stored sample near full scale, the waveform between them over it.
    @Test func overshootBetweenSamplesIsInterSample() throws {
        let name = "clip/inter-sample-11k.wav"
        #expect(try Self.stored(name).allSatisfy { abs(Int($0)) < 30000 })
        let (status, entry) = try Self.report(name)
        let counts = Self.counts(entry)
        #expect(status == 1 && counts.onSample == 0 && counts.interSample > 1000, "\(counts)")
    }

    /// Speech 0.3 dB under full scale clips nowhere (exit 0, "no clipping"); the same as 32 kbit/s AAC, decoded,
    /// overshoots: clipping that only encoding made.
    @Test func anAACThatClipsOnlyAfterEncoding() throws {
        let source = try Command.run(["clip", "clip/speech-peak-0.3.wav"])
        #expect(source.status == 0 && source.stdout.contains("no clipping"), "\(source.stdout)")
        let (status, entry) = try Self.report("clip/speech-peak-0.3.m4a")
        #expect(status == 1 && Self.counts(entry).onSample + Self.counts(entry).interSample > 0)
    }

    /// A path that does not exist is a usage error (exit 2, as the contract says for every command); a file that
    /// cannot be read is an error naming it (exit 1), the others still reported.
    @Test func anUnreadableFileIsNamed() throws {
        let missing = try Command.run(["clip", "no-such-file.wav", "clip/speech-peak-0.3.wav"])
        #expect(
            missing.status == 2 && missing.stderr.hasPrefix("clip: no-such-file.wav: error: no such file"),
            "\(missing.stderr)")
        let result = try Command.run(["clip", "make-clip-fixtures.sh", "clip/speech-peak-0.3.wav"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("clip: make-clip-fixtures.sh: "), "\(result.stderr)")
        #expect(result.stdout.contains("speech-peak-0.3.wav: 1 ch"))
    }

    /// `convert --check-clip`: an AAC that clips once decoded where its source does not fails, writing nothing;
    /// a PCM copy of the same source passes.
    @Test func convertChecksClippingWhenAsked() throws {
        let folder = try ScratchFolder()
        let aac = folder.path + "/speech.m4a"
        let failed = try Command.run(["convert", "--check-clip", "-b", "32000", "clip/speech-peak-0.3.wav", aac])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("the output clips once decoded") && failed.stderr.contains("--check-clip"))
        #expect(!FileManager.default.fileExists(atPath: aac))
        let pcm = try Command.run(["convert", "--check-clip", "clip/speech-peak-0.3.wav", folder.path + "/speech.wav"])
        #expect(pcm.status == 0, "\(pcm.stderr)")
    }

    /// A slow sine just under full scale (100 Hz at -0.001 dBFS) clips nowhere: the interpolator's gain at low
    /// frequencies is 1 (it read 1200 clips between samples at +0.01 dB).
    @Test func aSlowSineJustUnderFullScaleDoesNotClip() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/slow.wav"
        var wav = Data("RIFF".utf8)
        func le(_ value: Int, _ bytes: Int) -> Data {
            Data((0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        let frames = 48000
        wav += le(36 + frames * 2, 4) + Data("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2) + le(48000, 4)
        wav += le(96000, 4) + le(2, 2) + le(16, 2) + Data("data".utf8) + le(frames * 2, 4)
        let amplitude = 32767 * pow(10, -0.001 / 20)
        for frame in 0..<frames {
            wav += le(Int((sin(2 * Double.pi * 100 * Double(frame) / 48000) * amplitude).rounded()), 2)
        }
        try wav.write(to: URL(fileURLWithPath: path))
        let result = try Command.run(["clip", path])
        #expect(result.status == 0 && result.stdout.contains("no clipping"), "\(result.stdout)")
    }

    /// Full scale at every other sample (stereo, 16-bit, written here): each clip is a run of its own, 2,500 a
    /// channel. The counts stay exact; each channel lists its first 1,000 runs and says how many more there are (every
    /// run was held: 13 MB of such samples took 1.8 GB and aborted).
    @Test func runsPastTheListedOnesAreCountedNotHeld() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/alternating.wav"
        let frames = 5000
        func le(_ value: Int, _ bytes: Int) -> [UInt8] {
            (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        var wav = Array("RIFF".utf8) + le(36 + frames * 4, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2)
        wav += le(44100, 4) + le(44100 * 4, 4) + le(4, 2) + le(16, 2) + Array("data".utf8) + le(frames * 4, 4)
        for frame in 0..<frames {
            // Channel 1 at +full scale on even frames, channel 2 at -full scale on odd ones.
            wav += le(frame % 2 == 0 ? 32767 : 0, 2) + le(frame % 2 == 1 ? -32768 : 0, 2)
        }
        try Data(wav).write(to: URL(fileURLWithPath: path))
        let (status, entry) = try Self.report(path)
        #expect(status == 1)
        let channels = entry["channels"] as? [[String: Any]] ?? []
        #expect(channels.count == 2)
        for channel in channels {
            #expect(channel["onSample"] as? Int == frames / 2 && channel["interSample"] as? Int == 0, "\(channel)")
            #expect(channel["runCount"] as? Int == frames / 2 && channel["runsNotListed"] as? Int == frames / 2 - 1000)
        }
        let runs = entry["runs"] as? [[String: Any]] ?? []
        #expect(runs.count == 2000)
        for (number, parity) in [(1, 0), (2, 1)] {
            let starts = runs.filter { $0["channel"] as? Int == number }.map { $0["startFrame"] as? Int ?? -1 }
            #expect(starts == Array(stride(from: parity, to: 2000, by: 2)), "channel \(number)")
        }
        let text = try Command.run(["clip", path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("channel 1: 2500 clipped on the sample grid, 0 between samples"), "\(text.stdout)")
        #expect(text.stdout.contains("channel 2: 2500 runs, 1500 more runs not listed (the first 1000 are)"))
        #expect(text.stdout.split(separator: "\n").count(where: { $0.hasSuffix("on sample") }) == 2000)
    }

    /// Many channels list fewer runs each: 16,000 in all, however many channels (1,024 channels at 1,000 runs each
    /// took 814 MB).
    @Test func manyChannelsListSixteenThousandRunsInAll() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/many.wav"
        let (channels, frames) = (64, 1000)
        func le(_ value: Int, _ bytes: Int) -> [UInt8] {
            (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let dataSize = frames * channels * 2
        var wav = Array("RIFF".utf8) + le(36 + dataSize, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2)
        wav += le(channels, 2) + le(8000, 4) + le(8000 * channels * 2, 4) + le(channels * 2, 2) + le(16, 2)
        wav += Array("data".utf8) + le(dataSize, 4)
        for frame in 0..<frames {
            for _ in 0..<channels { wav += le(frame % 2 == 0 ? 32767 : 0, 2) }
        }
        try Data(wav).write(to: URL(fileURLWithPath: path))
        let (status, entry) = try Self.report(path)
        #expect(status == 1)
        let counts = (entry["channels"] as? [[String: Any]] ?? []).map {
            ($0["runCount"] as? Int ?? -1, $0["runsNotListed"] as? Int ?? -1)
        }
        #expect(
            counts.count == channels && counts.allSatisfy { $0 == (frames / 2, frames / 2 - 250) },
            "\(counts.prefix(2))")
        #expect((entry["runs"] as? [[String: Any]])?.count == 16000)
    }
}
