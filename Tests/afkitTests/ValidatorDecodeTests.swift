import AudioContainers
import Foundation
import Testing

/// The validator decodes as the converter does: an AAC decoder never outputs its first packet, so the
/// priming left to skip is 1024 frames less (before, `validate` skipped the whole priming again, saw the
/// audio 1024 frames late and never the last 1024: a sound silent but for a tone in its last 10 ms was
/// "silent", its leading silence 25 ms short).
@Suite struct ValidatorDecodeTests {
    /// 2 s at 48 kHz, silent but for a loud 1 kHz tone in the last 10 ms.
    static func toneAtTheEnd(_ path: String) throws {
        let rate = 48_000, count = 2 * rate
        var samples = [Int16](repeating: 0, count: count)
        for index in count - 480..<count {
            samples[index] = Int16(0.9 * 32767 * sin(2 * Double.pi * 1000 * Double(index) / Double(rate)))
        }
        try pcmWAV(path, rate: Double(rate), channels: 1, samples: samples)
    }

    /// "N s of silence before the sound starts" from validate's text.
    static func leadingSilence(_ report: String) -> Double? {
        guard let line = report.split(separator: "\n").first(where: { $0.contains("leading-silence:") }),
            let range = line.range(of: "leading-silence: ")
        else { return nil }
        return Double(line[range.upperBound...].prefix { $0 != " " })
    }

    @Test(arguments: ["m4a", "caf", "aac"])
    func theEndOfAnAACFileIsMeasured(_ container: String) throws {
        let folder = try ScratchFolder()
        try Self.toneAtTheEnd(folder.path + "/tail.wav")
        let made = try Command.run([
            "convert", "-d", "aac", folder.path + "/tail.wav", folder.path + "/tail.\(container)",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        // A loudness target nothing meets, so the rule states the level it measured.
        let profile = folder.path + "/profile.json"
        try
            #"{"name": "probe", "rules": {"loudness": {"target": -40, "tolerance": 0.5}, "leading-silence": {"maximumSeconds": 0.01}}}"#
            .write(toFile: profile, atomically: true, encoding: .utf8)
        let original = try Command.run(["validate", "--profile", profile, folder.path + "/tail.wav"]).stdout
        let encoded = try Command.run(["validate", "--profile", profile, folder.path + "/tail.\(container)"]).stdout
        // ADTS records no priming: the encoder's delay stays in its sound, which moves the 10 ms tone past the
        // last whole 400 ms block of BS.1770's gating; its leading silence is checked below, not its loudness.
        let hasPriming = container != "aac"
        #expect(!hasPriming || !encoded.contains("silent"), "\(encoded)")
        // The tone is found where it is (AAC's pre-echo may start it a few milliseconds early), not 21 ms early;
        // ADTS records no priming, so the encoder's 1024 frames of delay are part of its sound.
        let before = try #require(Self.leadingSilence(original))
        let after = try #require(Self.leadingSilence(encoded), "\(encoded)")
        let delay = container == "aac" ? 1024.0 / 48000 : 0
        #expect(
            abs(after - delay - before) < 0.006, "leading silence \(after) s against the source's \(before) s")
        guard hasPriming else { return }
        // The validator's loudness is the one info measures over the same frames.
        let info = try Command.run(["info", "--loudness", "--json", folder.path + "/tail.\(container)"])
        let loudness = try #require(
            ((info.json as? [[String: Any]])?.first?["loudness"] as? [String: Any])?["integrated"] as? Double)
        #expect(encoded.contains(String(format: "%.1f LUFS", loudness)), "info says \(loudness): \(encoded)")
    }
}

/// Downmixes never clip (issue 34): a master peaking at -0.5 dBFS with the same signal in every channel
/// (the worst case for a sum) mixed to mono, by the sfx preset, and 5.1 to stereo, peaks at no more
/// than the source (before: 1,770, 309 and 4,434 clipped samples of such material).
@Suite struct DownmixTests {
    static func wav(_ path: String, channels: Int, seconds: Double = 0.5) throws {
        let rate = 44_100, frames = Int(Double(rate) * seconds)
        let amplitude = 32767 * pow(10, -0.5 / 20)
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let sample = Int16(amplitude * sin(2 * Double.pi * 997 * Double(frame) / Double(rate)))
            for _ in 0..<channels { samples.append(sample) }
        }
        try pcmWAV(path, rate: Double(rate), channels: UInt32(channels), samples: samples)
    }

    static func samplePeak(_ path: String) throws -> Double {
        let info = try Command.run(["info", "--loudness", "--json", path])
        return try #require(
            ((info.json as? [[String: Any]])?.first?["loudness"] as? [String: Any])?["samplePeak"] as? Double)
    }

    @Test(arguments: [(2, ["-d", "LEI16", "-c", "1"]), (2, ["--preset", "sfx"]), (6, ["-d", "LEI16", "-c", "2"])])
    func aDownmixPeaksNoHigherThanItsSource(_ channels: Int, _ options: [String]) throws {
        let folder = try ScratchFolder()
        try Self.wav(folder.path + "/master.wav", channels: channels)
        let output = folder.path + (options.contains("sfx") ? "/out.caf" : "/out.wav")
        let made = try Command.run(["convert"] + options + [folder.path + "/master.wav", output])
        #expect(made.status == 0, "\(made.stderr)")
        let source = try Self.samplePeak(folder.path + "/master.wav")
        let mixed = try Self.samplePeak(output)
        // IMA4 (sfx) may overshoot its source by its quantisation step: a few tenths of a dB, never full scale.
        #expect(
            mixed <= source + (options.contains("sfx") ? 0.4 : 0.01), "peak \(mixed) dBFS from a source at \(source)")
        #expect(mixed < 0, "full scale reached: clipped")
    }
}

/// One reader for every command (issue 32): `convert`, `validate`'s measurements and `info --loudness`
/// see the same valid frames of AAC (M4A, CAF, ADTS), MP3, ALAC, IMA4 and PCM files made by FFmpeg
/// and LAME, silent but for a 10 ms tone at their very end (Tests/Fixtures/end-burst).
@Suite struct OneReaderTests {
    /// The frames `convert` decodes, as 32-bit floats.
    static func convertedFrames(_ path: String, in folder: ScratchFolder) throws -> [Float] {
        let output = folder.path + "/decoded.wav"
        let made = try Command.run(["convert", "-d", "LEF32", path, output])
        #expect(made.status == 0, "\(made.stderr)")
        let file = try AudioFile(path: output)
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: [
        "end-burst.m4a", "end-burst.caf", "end-burst.aac", "end-burst.mp3", "end-burst-alac.m4a",
        "end-burst-ima4.caf", "end-burst.wav",
    ])
    func everyCommandReadsTheSameFrames(_ name: String) throws {
        let folder = try ScratchFolder()
        var path = Command.fixtures + "/end-burst/" + name
        if name == "end-burst.caf" {
            // AAC in CAF: FFmpeg's packets copied with their priming (FFmpeg cannot write AAC into CAF).
            path = folder.path + "/" + name
            let copied = try Command.run([
                "convert", "--preset", "music", Command.fixtures + "/end-burst/end-burst.m4a", path,
            ])
            #expect(copied.status == 0, "\(copied.stderr)")
        }
        let samples = try Self.convertedFrames(path, in: folder)
        let validate = try Command.run(["validate", "--profile", "game-sfx", "--format", "json", path])
        let report = try #require((validate.json as? [String: Any])?["files"] as? [[String: Any]])
        let audio = try #require(report.first?["audio"] as? [String: Any], "\(validate.stdout)")
        let info = try Command.run(["info", "--loudness", "--json", path])
        let loudness = try #require((info.json as? [[String: Any]])?.first?["loudness"] as? [String: Any])

        // The same frames: as many, and the same peak and silence at both ends.
        #expect(
            audio["frames"] as? Int == samples.count,
            "validate measured \(audio["frames"] ?? "?") frames, convert wrote \(samples.count)")
        let peak = samples.map(abs).max() ?? 0
        #expect(abs((audio["peak"] as? Double ?? 0) - 20 * log10(Double(peak))) < 0.006)
        let threshold = Float(pow(10, -60.0 / 20))
        let first = try #require(samples.firstIndex { abs($0) > threshold })
        let last = try #require(samples.lastIndex { abs($0) > threshold })
        #expect(abs((audio["leadingSilence"] as? Double ?? -1) - Double(first) / 44100) < 1e-6)
        #expect(abs((audio["trailingSilence"] as? Double ?? -1) - Double(samples.count - 1 - last) / 44100) < 1e-6)
        // The tone is where the source has it (AAC's pre-echo may start it a few milliseconds early); ADTS
        // records no priming, so its every decoded frame counts: FFmpeg's 1024 frames of encoder delay stay.
        let delay = name.hasSuffix(".aac") ? 1024.0 / 44100 : 0
        #expect(
            Double(first) / 44100 - delay > 1.98 && Double(first) / 44100 - delay <= 1.991,
            "the tone starts at \(Double(first) / 44100) s")
        // The same loudness: validate's meter ran over the frames info's did.
        let measured = try #require(audio["loudness"] as? [String: Any])
        for key in ["integrated", "truePeak", "samplePeak"] {
            #expect(
                measured[key] as? Double == loudness[key] as? Double,
                "\(key): validate \(measured[key] ?? "?"), info \(loudness[key] ?? "?")")
        }
    }
}

/// A decoder's failure names the packet and its byte offset in the file (issue 32: the codecs passed no
/// offset): the ALAC end-burst file with its last packet scribbled over, by convert and by info --loudness.
@Suite struct DecoderErrorLocationTests {
    @Test func aDamagedPacketIsNamedWithItsOffset() throws {
        let folder = try ScratchFolder()
        let source = Command.fixtures + "/end-burst/end-burst-alac-damaged.m4a"
        let converted = try Command.run(["convert", "-d", "LEI16", source, folder.path + "/out.wav"])
        #expect(converted.status == 1)
        #expect(
            converted.stderr.contains("packet 21:") && converted.stderr.contains("at byte 443"), "\(converted.stderr)")
        let measured = try Command.run(["info", "--loudness", "--json", source])
        #expect(measured.status == 1)
        let error = try #require(
            (measured.json as? [[String: Any]])?.first?["error"] as? [String: Any], "\(measured.stdout)")
        #expect(error["offset"] as? Int == 443)
        #expect((error["message"] as? String)?.contains("packet 21") == true)
    }
}

/// `validate` never passes what it could not check (issue 53): audio that does not decode is an error of the
/// `malformed` rule (a flipped run of bytes in an AAC file passed with no finding), and damage the parser skipped
/// is a warning naming it.
@Suite struct UndecodableAudioTests {
    @Test func audioThatDoesNotDecodeFailsValidation() throws {
        let folder = try ScratchFolder()
        let source = Command.fixtures + "/end-burst/end-burst.m4a"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        // A run in the middle of the audio ('mdat'), not of the boxes.
        let file = try AudioFile(path: source)
        let audio = Int(file.properties.audioDataByteCount ?? 0)
        let middle = Int(file.properties.dataOffset ?? 0) + audio / 2
        for index in middle..<middle + min(600, audio / 4) { bytes[index] ^= 0xFF }
        let flipped = folder.path + "/flipped.m4a"
        try Data(bytes).write(to: URL(fileURLWithPath: flipped))
        let result = try Command.run(["validate", "--profile", "music", flipped])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("error: malformed: the audio cannot be decoded: "), "\(result.stdout)")
        let damaged = try Command.run(["validate", "--profile", "music", "ogg/damaged.ogg.bin"])
        #expect(damaged.stdout.contains("warning: malformed: the file is damaged: ogg: page "), "\(damaged.stdout)")
    }
}

/// AAC whose channels a program config element gives (channel configuration 0), as FFmpeg's encoder writes 5.1
/// with side surrounds: six channels in the M4A (the element in its AudioSpecificConfig) and in ADTS (in-band in
/// each frame), both converted, the M4A's channels each holding the tone FFmpeg's decoder puts there (they were
/// read as 2 and 0 channels, and neither converted).
@Suite struct ProgramConfigTests {
    @Test(arguments: ["mp4/ffmpeg-pce-5.1-side.m4a", "adts/ffmpeg-pce-5.1-side.aac"])
    func sixChannelsConvertInFFmpegsOrder(_ name: String) throws {
        let reference = try String(
            contentsOfFile: Command.fixtures + "/mp4/ffmpeg-pce-5.1-side.m4a.ffprobe", encoding: .utf8
        )
        .split(separator: "\n")
        let counts = reference[0].split(separator: ",").compactMap { Int($0) }
        let tones = reference[1].split(separator: " ").compactMap { Double($0) }
        let info = try #require((try Command.run(["info", "--json", name]).json as? [[String: Any]])?.first)
        #expect((info["format"] as? [String: Any])?["channels"] as? Int == counts[0], "\(info)")
        let folder = try ScratchFolder()
        let output = folder.path + "/out.wav"
        let made = try Command.run(["convert", "-d", "LEF32", name, output])
        #expect(made.status == 0, "\(made.stderr)")
        let file = try AudioFile(path: output)
        #expect(Int(file.dataFormat.channelsPerFrame) == 6)
        // ADTS records no priming: its frames are every decoded frame, the M4A's what ffprobe counts.
        if name.hasSuffix(".m4a") { #expect(file.properties.validFrameCount == Int64(counts[1])) }
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let found = (0..<6).map { channel in
            stride(from: 200.0, through: 1200, by: 200).max { a, b in
                Self.power(samples, channel: channel, frequency: a)
                    < Self.power(samples, channel: channel, frequency: b)
            }
        }
        // The M4A in FFmpeg's order; ADTS's in-band element puts libfaad2's positions elsewhere: every tone in a
        // channel of its own, none mixed or lost.
        if name.hasSuffix(".m4a") {
            #expect(found == tones, "\(name)")
        } else {
            #expect(Set(found.compactMap { $0 }) == Set(tones), "\(name): \(found)")
        }
    }

    /// The power of one frequency in a channel's samples 0.1 to 0.15 s in (Goertzel).
    static func power(_ samples: [Float], channel: Int, frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48000)
        var (previous, before) = (0.0, 0.0)
        for frame in 4800..<7200 {
            let value = Double(samples[frame * 6 + channel]) + coefficient * previous - before
            (before, previous) = (previous, value)
        }
        return previous * previous + before * before - coefficient * previous * before
    }
}
