import AudioContainers
import Foundation
import LoopbackServers
import Testing

/// What a user means, said back when it cannot be done: arguments refused with what fits (exit 2), folders
/// where files go, and the validator's findings that say how to fix them.
@Suite struct UserIntentTests {
    /// `-b` is bits per second for every codec (afconvert's unit), or thousands of them with `k`: `-b 128`
    /// (kbit/s written as bit/s) is refused alike for MP3, AAC and Opus (MP3 took it as 128 bit/s and LAME
    /// made its default), `-b 128k` is 128000 for each, and a rate the codec cannot hold at the output's
    /// sample rate and channels is a usage error (exit 2) naming the range.
    @Test func bitRatesMeanTheSameForEveryCodec() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        for name in ["out.mp3", "out.m4a", "out.opus"] {
            let bare = try Command.run(["convert", "-b", "128", source, folder + "/" + name])
            #expect(bare.status == 2, "\(name): \(bare.stderr)")
            #expect(bare.stderr.contains("-b 128000 or -b 128k"), "\(name): \(bare.stderr)")
            let kilo = try Command.run(["convert", "-b", "128k", source, folder + "/" + name])
            #expect(kilo.status == 0, "\(name): \(kilo.stderr)")
            let negative = try Command.run(["convert", "-b", "-5", source, folder + "/" + name])
            #expect(negative.status == 2 && negative.stderr.contains("out of range"), "\(negative.stderr)")
        }
        let info = try Command.run(["info", "--json", folder + "/out.mp3"])
        // 128 kbit/s in MPEG-2's 576-frame packets at 22.05 kHz: 418 bytes (417 unpadded).
        let file = (info.json as? [[String: Any]])?.first
        #expect(abs((file?["bitRate"] as? Int ?? 0) - 128000) < 1300, "\(info.stdout)")
        #expect([417, 418].contains(file?["maximumPacketSize"] as? Int ?? 0), "\(info.stdout)")
        for (name, range) in [
            ("low.m4a", "16000 to"), ("high.mp3", "MP3 at 22050 Hz with 2 channels takes 8000 to 160000"),
        ] {
            let rate = name == "low.m4a" ? "5000" : "400k"
            let result = try Command.run(["convert", "-b", rate, source, folder + "/" + name])
            #expect(result.status == 2, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(range), "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/" + name))
        }
    }

    /// `convert` makes one file from one file: a folder as OUTPUT says which name to give (the source's name
    /// in it), a folder as INPUT points to `batch`; both exit 2 and write nothing.
    @Test func foldersAreNotFiles() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder])
        #expect(output.status == 2)
        #expect(
            output.stderr.contains("is a folder: give the output's file name, such as '\(folder)/pcm-s16-stereo.caf'"))
        let input = try Command.run(["convert", "wav", folder + "/x.caf"])
        #expect(input.status == 2)
        #expect(input.stderr.hasPrefix("convert: wav: error: is a folder, not a file (afkit batch"), "\(input.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// `batch --out o a b`: each source folder keeps its name below `o` (as `cp -r a b o` places them), so
    /// two folders holding `x.wav` make `o/a/x.caf` and `o/b/x.caf` instead of colliding; one folder still
    /// fills `o` itself. A file as `--out` is one usage error, before anything is read.
    @Test func batchKeepsTheFoldersNames() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manager = FileManager.default
        for name in ["a", "b"] {
            try manager.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
            try manager.copyItem(
                atPath: Command.fixtures + "/wav/pcm-s16-stereo.wav", toPath: folder + "/\(name)/x.wav")
        }
        let two = try Command.run(["batch", "--preset", "pcm", "--out", folder + "/o", folder + "/a", folder + "/b/"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(manager.fileExists(atPath: folder + "/o/a/x.caf") && manager.fileExists(atPath: folder + "/o/b/x.caf"))
        let one = try Command.run(["batch", "--preset", "pcm", "--out", folder + "/p", folder + "/a"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(manager.fileExists(atPath: folder + "/p/x.caf"))

        _ = manager.createFile(atPath: folder + "/file", contents: Data())
        let file = try Command.run([
            "batch", "--preset", "pcm", "--out", folder + "/file", folder + "/a", folder + "/b",
        ])
        #expect(file.status == 2)
        #expect(file.stderr.components(separatedBy: "error: ").count == 2, "one error: \(file.stderr)")
        #expect(file.stderr.hasPrefix("batch: error: "), "\(file.stderr)")
        #expect(file.stderr.contains("--out '\(folder)/file' is a file: give a folder"))
    }

    /// `validate` names each format in words beside its code, and a finding afkit can fix carries the
    /// command that fixes it (text, and `fix` in JSON); running that command makes a file that passes.
    @Test func findingsSayHowToFixThem() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/theme.mp3"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/mp3/ffmpeg-libmp3lame.mp3", toPath: source)
        let text = try Command.run(["validate", source])
        #expect(text.status == 1)
        #expect(text.stdout.contains("'lpcm' (linear PCM), 'ima4' (Apple IMA4) or '0x6D730011' (IMA ADPCM in WAV)"))
        let fix = "afkit convert --preset system-sound \(folder)/theme.mp3 \(folder)/theme.caf"
        #expect(text.stdout.contains("; fix: " + fix), "\(text.stdout)")
        let json = try Command.run(["validate", "--format", "json", source])
        let violations = ((json.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["violations"]
        let fixes = (violations as? [[String: Any]] ?? []).compactMap { $0["fix"] as? String }
        #expect(fixes.contains(fix), "\(json.stdout)")
        let arguments = Array(fix.split(separator: " ").map(String.init).dropFirst())
        #expect(try Command.run(arguments).status == 0)
        let fixed = try Command.run(["validate", folder + "/theme.caf"])
        #expect(fixed.status == 0, "\(fixed.stdout)")

        // Trailing silence and loudness (game-sfx): one fix for both (issue 71), run once, clears both rules.
        let voice = folder + "/voice.wav"
        try FileManager.default.copyItem(
            atPath: Command.fixtures + "/../../Assets/voice-level-complete.wav", toPath: voice)
        let report = try Command.run(["validate", "--profile", "game-sfx", "--format", "json", voice])
        let found =
            ((report.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["violations"]
            as? [[String: Any]] ?? []
        let commands = Set(
            found.filter { ["silence", "loudness"].contains($0["rule"] as? String) }.compactMap { $0["fix"] as? String }
        )
        #expect(commands.count == 1, "\(report.stdout)")
        let words = try #require(commands.first).split(separator: " ").map(String.init)
        #expect(words.contains("--trim-silence") && words.contains("--loudness"), "\(words)")
        #expect(try Command.run(Array(words.dropFirst())).status == 0)
        let after = try Command.run(["validate", "--profile", "game-sfx", "--format", "json", try #require(words.last)])
        let rules =
            (((after.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["violations"]
            as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(rules.allSatisfy { !["silence", "loudness"].contains($0) }, "after the fix: \(after.stdout)")
    }

    /// `info` names a layout in words; `-l` records a layout by Apple's name, reordering a source that names
    /// the same speakers in another order (WAV's 5.1 to `MPEG_5_1_D`: C L R Ls Rs LFE), and refuses what a
    /// container or codec cannot hold; `-m` maps channels and `--mix` mixes with the user's own gains, and a
    /// mix that goes past full scale is said in a note.
    @Test func layoutsMapsAndMixes() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let surround = "wav/extensible-5.1.wav"
        let info = try Command.run(["info", surround])
        #expect(info.stdout.contains("Channel layout:         5.1 (L R C LFE Ls Rs)"), "\(info.stdout)")

        let reordered = folder + "/d.caf"
        let convert = try Command.run(["convert", "-d", "LEF32", "-l", "MPEG_5_1_D", surround, reordered])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stderr.contains("reordered"))
        let file = (try Command.run(["info", "--json", reordered]).json as? [[String: Any]])?.first
        #expect((file?["channelLayout"] as? [String: Any])?["tag"] as? Int == 124 << 16 | 6)
        #expect((file?["channelLayoutName"] as? String)?.hasPrefix("5.1 (C L R Ls Rs LFE)") == true)
        let source = try decodedFloats(Command.fixtures + "/" + surround, channels: 6)
        let output = try decodedFloats(reordered, channels: 6)
        #expect(source.count == output.count && !source.isEmpty)
        // WAV order L R C LFE Ls Rs → C L R Ls Rs LFE.
        for (to, from) in [2, 0, 1, 4, 5, 3].enumerated() {
            #expect(output.map { $0[to] } == source.map { $0[from] }, "channel \(to)")
        }
        for (arguments, message) in [
            (["-l", "MPEG_5_1_D", surround, folder + "/d.wav"], "WAV keeps its speakers in one fixed order"),
            (["-l", "MPEG_5_1_A", surround, folder + "/d.m4a"], "fixes its channels' order itself"),
            (["-l", "MPEG_5_1_A", "wav/pcm-s16-stereo.wav", folder + "/d2.caf"], "give -c 6"),
            (["-l", "MPEG_9_9", surround, folder + "/d3.caf"], "no such layout tag"),
            (["-m", "0,2", "wav/pcm-s16-stereo.wav", folder + "/m.wav"], "names source channel 2"),
            (["--mix", "1,1,1", "wav/pcm-s16-stereo.wav", folder + "/m.wav"], "one gain per source channel"),
            (["-d", "aach", "wav/pcm-s16-stereo.wav", folder + "/h.m4a"], "cannot write HE-AAC"),
        ] {
            let result = try Command.run(["convert"] + arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }

        let stereo = "wav/pcm-s16-stereo.wav"
        let swapped = folder + "/swapped.wav"
        #expect(try Command.run(["convert", "-m", "1,0", stereo, swapped]).status == 0)
        let original = try decodedFloats(Command.fixtures + "/" + stereo, channels: 2)
        let swappedFrames = try decodedFloats(swapped, channels: 2)
        #expect(swappedFrames.map { $0[0] } == original.map { $0[1] })
        #expect(swappedFrames.map { $0[1] } == original.map { $0[0] })

        let loud = folder + "/loud.wav"
        let summed = try Command.run(["convert", "--mix", "1,1", stereo, loud])
        let peak = original.map { abs($0[0] + $0[1]) }.max() ?? 0
        #expect(summed.status == 0)
        #expect(summed.stderr.contains("past full scale") == (peak > 1), "peak \(peak): \(summed.stderr)")
        let mean = try Command.run(["convert", "--mix", "0.5,0.5", stereo, folder + "/mean.wav"])
        #expect(mean.status == 0 && !mean.stderr.contains("past full scale"))
        let mono = try decodedFloats(folder + "/mean.wav", channels: 1)
        let expected = original.map { ($0[0] + $0[1]) / 2 }
        #expect(zip(mono.map { $0[0] }, expected).allSatisfy { abs($0 - $1) <= 1.0 / 32768 + 1e-6 })
    }

    /// afconvert's resampler options on afkit's engines: `-r` picks libsoxr's recipe (`-r 0`'s low recipe
    /// ends its passband early, so a 9.5 kHz tone made 22.05 kHz loses most of its level where the default
    /// keeps it), `--src-complexity line` is linear interpolation (a 15 kHz tone aliases into the output
    /// where the default removes it), and out-of-range values are usage errors.
    @Test func resamplerOptionsAsAfconvertSpellsThem() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func level(_ source: String, _ options: [String]) throws -> Double {
            let output = folder + "/out.wav"
            let result = try Command.run(["convert", "-d", "LEF32@22050"] + options + [source, output])
            #expect(result.status == 0, "\(options): \(result.stderr)")
            let samples = try decodedFloats(output, channels: 1).map { Double($0[0]) }
            return (samples.reduce(0) { $0 + $1 * $1 } / Double(max(samples.count, 1))).squareRoot()
        }
        let passband = folder + "/9500.wav"
        let stopband = folder + "/15000.wav"
        try writeTone(passband, rate: 44100, frequency: 9500, seconds: 0.5)
        try writeTone(stopband, rate: 44100, frequency: 15000, seconds: 0.5)
        let sine = 0.5 / 2.0.squareRoot()
        #expect(abs(try level(passband, []) - sine) < 0.01)
        #expect(abs(try level(passband, ["-r", "127"]) - sine) < 0.01)
        #expect(try level(passband, ["-r", "0"]) < sine / 2)
        #expect(try level(passband, ["--resampler", "libsamplerate", "-r", "0"]) < sine / 2)
        #expect(try level(stopband, []) < 0.01)
        #expect(try level(stopband, ["--src-complexity", "bats"]) < 0.01)
        #expect(try level(stopband, ["--src-complexity", "line"]) > 0.2)
        for bad in [["-r", "128"], ["--src-complexity", "fast"]] {
            let result = try Command.run(["convert"] + bad + [passband, folder + "/x.wav"])
            #expect(result.status == 2, "\(bad)")
        }
    }

    /// afconvert's `-hf` lists each file type with the data formats it holds, from the checks the writers
    /// answer (a format listed converts; one left out is refused); `-v` tells the source, the output and
    /// the route.
    @Test func fileTypesAndVerboseStory() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = try Command.run(["convert", "-hf"])
        #expect(list.status == 0)
        let wave = try #require(
            list.stdout.components(separatedBy: "'WAVE' = WAV (.wav)\n    data formats: ").dropFirst().first?
                .prefix { $0 != "\n" })
        let formats = wave.split(separator: " ").map(String.init)
        #expect(formats.contains("LEI24") && formats.contains("ima-adpcm") && !formats.contains("BEI16"))
        for format in ["LEI24", "BEI16"] {
            let result = try Command.run(["convert", "-d", format, "wav/pcm-s16-stereo.wav", folder + "/x.wav"])
            #expect((result.status == 0) == formats.contains(format), "\(format): \(result.stderr)")
        }
        let told = try Command.run([
            "convert", "-v", "-c", "1", "-d", "LEI16@11025", "wav/pcm-s16-stereo.wav", folder + "/v.wav",
        ])
        #expect(told.status == 0)
        #expect(told.stderr.contains("convert: source: wav/pcm-s16-stereo.wav: 2 ch"))
        #expect(told.stderr.contains("convert: output: WAV, 1 ch, 11025 Hz"))
        #expect(told.stderr.contains("2 to 1 channels by a mix that cannot clip") && told.stderr.contains("libsoxr"))
        let exact = try Command.run(["convert", "-v", "wav/pcm-s16-stereo.wav", folder + "/e.caf"])
        #expect(exact.stderr.contains("route: the stored samples rewritten exactly"))
        let quiet = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder + "/q.caf"])
        #expect(!quiet.stderr.contains("route:"))
    }

    /// `batch` says what each conversion notes (as `convert` does), and `--report` records a source cut
    /// short (`sourceTruncated`, with the notes), where the batch used to convert it with exit 0 and no word.
    @Test func batchSaysWhatConversionsNote() throws {
        let folder = try Loopback.temporaryFolder("intent")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        let whole = Command.fixtures + "/wav/pcm-s16-stereo.wav"
        try manager.copyItem(atPath: whole, toPath: folder + "/in/whole.wav")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        bytes.removeLast(bytes.count / 3)
        try bytes.write(to: URL(fileURLWithPath: folder + "/in/cut.wav"))
        let result = try Command.run([
            "batch", "--preset", "pcm", "--jobs", "1", "--report", folder + "/report.json", "--out", folder + "/out",
            folder + "/in",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(folder)/in/cut.wav: note: the source is cut short"), "\(result.stderr)")
        #expect(!result.stderr.contains("whole.wav: note"))
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder + "/report.json")))
        let files = (report as? [String: Any])?["files"] as? [[String: Any]] ?? []
        let cut = files.first { ($0["source"] as? String)?.hasSuffix("cut.wav") == true }
        let clean = files.first { ($0["source"] as? String)?.hasSuffix("whole.wav") == true }
        #expect(cut?["sourceTruncated"] as? Bool == true)
        #expect((cut?["notes"] as? [String])?.contains { $0.contains("cut short") } == true)
        #expect(clean != nil && clean?["sourceTruncated"] == nil && clean?["notes"] == nil)
    }
}

/// A 16-bit mono WAV of a sine at `frequency` Hz, half scale.
func writeTone(_ path: String, rate: Int, frequency: Double, seconds: Double) throws {
    let frames = Int(Double(rate) * seconds)
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + frames * 2))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))
    append(UInt16(1))
    append(UInt32(rate))
    append(UInt32(rate * 2))
    append(UInt16(2))
    append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(frames * 2))
    for frame in 0..<frames {
        append(Int16((16384 * sin(2 * Double.pi * frequency * Double(frame) / Double(rate))).rounded()))
    }
    try data.write(to: URL(fileURLWithPath: path))
}

/// A PCM file's frames as Float, read from its data as stored (16- or 24-bit integers, 32-bit float) where
/// `info --json` says the data is: no decoder of afkit's between the file and the test.
func decodedFloats(_ path: String, channels: Int) throws -> [[Float]] {
    let probe = try Command.run(["info", "--json", path])
    let file = try #require((probe.json as? [[String: Any]])?.first)
    let format = try #require(file["format"] as? [String: Any])
    let offset = try #require(file["dataOffset"] as? Int)
    let count = try #require(file["dataByteCount"] as? Int)
    let bits = format["bitsPerChannel"] as? Int ?? 0
    let isFloat = ((format["flags"] as? Int ?? 0) & 1) != 0
    let bigEndian = ((format["flags"] as? Int ?? 0) & 2) != 0
    let data = try Data(contentsOf: URL(fileURLWithPath: path)).subdata(in: offset..<offset + count)
    let bytes = [UInt8](data)
    let width = bits / 8
    var samples: [Float] = []
    for index in stride(from: 0, to: bytes.count - width + 1, by: width) {
        var word: UInt32 = 0
        for byte in 0..<width {
            let value = UInt32(bytes[index + (bigEndian ? byte : width - 1 - byte)])
            word = word << 8 | value
        }
        if isFloat && width == 4 {
            samples.append(Float(bitPattern: word))
        } else if width == 2 {
            samples.append(Float(Int16(bitPattern: UInt16(word))) / 32768)
        } else if width == 3 {
            samples.append(Float(Int32(bitPattern: word << 8) >> 8) / 8_388_608)
        }
    }
    return stride(from: 0, to: samples.count - channels + 1, by: channels).map { Array(samples[$0..<$0 + channels]) }
}

/// Whole or said (issue 53): a damaged source whose packets hold audio but whose counts leave no valid frame
/// is refused by name (exit 1, nothing written), never converted into an empty output with success; a count
/// that lies where the packets say more is said, and the packets' frames converted.
@Suite struct WholeOrSaidTests {
    @Test func countsThatLeaveNoFrameAreRefused() throws {
        let folder = try Loopback.temporaryFolder("whole")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A CAF whose 'pakt' says 0 valid frames over 3 packets of Apple Lossless.
        let path = try Self.mutated("caf/sndfile-alac16.caf", in: folder, as: "zero.caf") { bytes in
            let pakt = (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("pakt".utf8) } ?? 0
            for index in 0..<8 { bytes[pakt + 20 + index] = 0 }
        }
        let result = try Command.run(["convert", path, folder + "/out.wav"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("zero.caf") && result.stderr.contains("no valid frame"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.wav"))
        let batch = try Command.run(["batch", "--preset", "pcm", "--out", folder + "/o", path])
        #expect(batch.status == 1 && batch.stdout.contains("1 failed"), "\(batch.stdout)")
    }

    /// An MP3 cut in half: its LAME header counts frames and bytes the file no longer holds, so it is cut short
    /// (said), where a lying frame count alone is not. (Priming and remainder stay the LAME tag's, as the
    /// contract states them.)
    @Test func anMP3CutInHalfIsTruncated() throws {
        let folder = try Loopback.temporaryFolder("mp3-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let half = try Self.mutated("mp3/lame-cbr128-stereo-44k.mp3", in: folder, as: "half.mp3") {
            $0.removeLast($0.count / 2)
        }
        let info = try #require((try Command.run(["info", "--json", half]).json as? [[String: Any]])?.first)
        #expect(info["truncated"] as? Bool == true, "\(info)")
        let converted = try Command.run(["convert", half, folder + "/half.caf"])
        #expect(converted.status == 0 && converted.stderr.contains("half.mp3: note: the source is cut short"))
        let lying = try #require(
            (try Command.run(["info", "--json", "mp3/hostile-lying-xing-count.mp3"]).json as? [[String: Any]])?.first)
        #expect(lying["truncated"] as? Bool == false)
    }

    /// An MP4 sample table that lies with its media data whole: a sample of 16 MB (the rest said lost, not
    /// "truncated"), or a chunk offset past the file (no frame readable: refused by name, never an empty output).
    @Test func sampleTablesThatLieAreSaid() throws {
        let folder = try Loopback.temporaryFolder("tables")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func box(_ bytes: [UInt8], _ type: String) -> Int {
            (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(type.utf8) } ?? 0
        }
        let size = try Self.mutated("mp4/aac-faststart.m4a", in: folder, as: "size.m4a") { bytes in
            let stsz = box(bytes, "stsz")
            bytes.replaceSubrange(stsz + 16 + 40..<stsz + 16 + 44, with: [0, 0xFF, 0xFF, 0xFF])
        }
        let info = try #require((try Command.run(["info", "--json", size]).json as? [[String: Any]])?.first)
        #expect(info["damaged"] as? Bool == true && info["truncated"] as? Bool == false, "\(info)")
        let converted = try Command.run(["convert", size, folder + "/size.caf"])
        #expect(converted.status == 0 && converted.stderr.contains("the table is damaged"), "\(converted.stderr)")
        let offset = try Self.mutated("mp4/aac-faststart.m4a", in: folder, as: "offset.m4a") { bytes in
            let stco = box(bytes, "stco")
            let count =
                Int(bytes[stco + 8]) << 24 | Int(bytes[stco + 9]) << 16 | Int(bytes[stco + 10]) << 8
                | Int(bytes[stco + 11])
            for entry in 0..<count {
                bytes.replaceSubrange(stco + 12 + 4 * entry..<stco + 16 + 4 * entry, with: [0x7F, 0xFF, 0xFF, 0x00])
            }
        }
        let refused = try Command.run(["convert", offset, folder + "/offset.caf"])
        #expect(
            refused.status == 1 && refused.stderr.contains("no frame of its audio could be read"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/offset.caf"))
    }

    /// An Ogg file whose first audio page's granule is 2^63-1 (CRC fixed): the last granule then says 0 frames
    /// where the packets hold 44,224; a middle page flagged as the stream's last: both converted whole, said.
    @Test func oggPagesThatLieAreSaid() throws {
        let folder = try Loopback.temporaryFolder("ogg-lies")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let granule = try Command.run(["convert", "ogg/header-granule.ogg.bin", folder + "/granule.caf"])
        #expect(granule.status == 0 && granule.stderr.contains("damaged: ogg: the last granule"), "\(granule.stderr)")
        #expect(try AudioFile(path: folder + "/granule.caf").properties.validFrameCount ?? 0 >= 44100)
        // The fifth page flagged BOS|EOS.
        let ended = try Self.mutated("ogg/oggenc-stereo.ogg", in: folder, as: "ended.ogg") {
            Self.rewriteOggPage(&$0, 4) { $0 |= 0x06 }
        }
        let info = try #require((try Command.run(["info", "--json", ended]).json as? [[String: Any]])?.first)
        #expect(info["frameCount"] as? Int == 44100 && info["damaged"] as? Bool == true, "\(info)")
        let converted = try Command.run(["convert", ended, folder + "/ended.caf"])
        #expect(
            converted.status == 0 && converted.stderr.contains("flagged as the stream's last"), "\(converted.stderr)")
        // A multiplexed file (Theora, then Vorbis) whose first stream lost its start flag: the Vorbis stream is
        // read whole, and the stray pages are said.
        let stray = try Self.mutated("ogg/video-first.ogv", in: folder, as: "stray.ogv") {
            Self.rewriteOggPage(&$0, 0) { $0 &= ~0x02 }
        }
        let original = try AudioFile(path: Command.fixtures + "/ogg/video-first.ogv").properties.validFrameCount
        let strayInfo = try #require((try Command.run(["info", "--json", stray]).json as? [[String: Any]])?.first)
        #expect(strayInfo["frameCount"] as? Int == original.map(Int.init), "\(strayInfo)")
        #expect(strayInfo["damaged"] as? Bool == true, "\(strayInfo)")
        let strayConverted = try Command.run(["convert", stray, folder + "/stray.caf"])
        #expect(strayConverted.stderr.contains("a stream that never began"), "\(strayConverted.stderr)")
    }

    /// Rewrites the flags of page `index` of an Ogg file with `change` and fixes the page's CRC-32.
    static func rewriteOggPage(_ bytes: inout [UInt8], _ index: Int, _ change: (inout UInt8) -> Void) {
        let pages = (0..<bytes.count - 4).filter { bytes[$0..<$0 + 4].elementsEqual("OggS".utf8) }
        let start = pages[index]
        let end = pages.count > index + 1 ? pages[index + 1] : bytes.count
        change(&bytes[start + 5])
        for offset in 22..<26 { bytes[start + offset] = 0 }
        var crc: UInt32 = 0
        for byte in bytes[start..<end] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
        }
        for offset in 0..<4 { bytes[start + 22 + offset] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(offset))) }
    }

    /// A copy of `fixture` with `change` applied to its bytes, in `folder`.
    static func mutated(_ fixture: String, in folder: String, as name: String, _ change: (inout [UInt8]) -> Void) throws
        -> String
    {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/" + fixture)))
        change(&bytes)
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// FLAC's STREAMINFO at byte 8: its rate, channels, depth and sample count (bytes 18 to 25) rewritten.
    static func streamInfo(_ bytes: inout [UInt8], rate: UInt64? = nil, bits: UInt64? = nil, samplesTimes: UInt64 = 1) {
        var value = bytes[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let total = (value & (1 << 36 - 1)) * samplesTimes
        if let rate { value = value & ~(UInt64(0xFFFFF) << 44) | rate << 44 }
        if let bits { value = value & ~(UInt64(31) << 36) | (bits - 1) << 36 }
        value = value & ~(1 << 36 - 1) | total
        for index in 0..<8 { bytes[18 + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(index))) }
    }

    /// STREAMINFO that no frame agrees with (another rate, another depth): refused by name, nothing written,
    /// where it was 0 frames and "truncated" with success.
    @Test func flacMetadataThatLiesIsRefusedByName() throws {
        let folder = try Loopback.temporaryFolder("lies")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, rate, bits) in [("rate.flac", UInt64(48000), UInt64?.none), ("depth.flac", nil, 24)] {
            let path = try Self.mutated("flac/ffmpeg-stereo.flac", in: folder, as: name) {
                Self.streamInfo(&$0, rate: rate, bits: bits)
            }
            let result = try Command.run(["convert", path, folder + "/out.caf"])
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(name) && result.stderr.contains("metadata lies"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.caf"))
        }
    }

    /// A count that lies about a whole stream is damage, said, with every frame converted; a file cut short is
    /// truncated, not damaged.
    @Test func aLyingCountIsDamageAndACutFileIsTruncated() throws {
        let folder = try Loopback.temporaryFolder("counts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lying = try Self.mutated("flac/ffmpeg-stereo.flac", in: folder, as: "lying.flac") {
            Self.streamInfo(&$0, samplesTimes: 10)
        }
        let info = try #require((try Command.run(["info", "--json", lying]).json as? [[String: Any]])?.first)
        #expect(info["damaged"] as? Bool == true && info["truncated"] as? Bool == false, "\(info)")
        #expect(info["frameCount"] as? Int == 22050)
        let converted = try Command.run(["convert", lying, folder + "/lying.caf"])
        #expect(converted.status == 0)
        #expect(
            converted.stderr.contains("damaged") && converted.stderr.contains("the count lies"), "\(converted.stderr)")
        let cut = try Self.mutated("flac/ffmpeg-stereo.flac", in: folder, as: "cut.flac") { $0.removeLast(3000) }
        let cutInfo = try #require((try Command.run(["info", "--json", cut]).json as? [[String: Any]])?.first)
        #expect(cutInfo["damaged"] as? Bool == false && cutInfo["truncated"] as? Bool == true, "\(cutInfo)")
    }

    /// Bytes that are not audio between an MP3's frames and between an Ogg file's pages: the file is damaged,
    /// `info` says so, and the conversion says where and how much.
    @Test(arguments: ["mp3", "ogg"])
    func bytesBetweenFramesOrPagesAreSaid(_ kind: String) throws {
        let folder = try Loopback.temporaryFolder("between")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var place = 0
        let path =
            kind == "mp3"
            ? Command.fixtures + "/mp3/hostile-garbage-between-frames.mp3"
            : try Self.mutated("ogg/oggenc-stereo.ogg", in: folder, as: "junk.ogg") { bytes in
                // 100 bytes of noise before the fourth page.
                let pages = (0..<bytes.count - 4).filter { bytes[$0..<$0 + 4].elementsEqual("OggS".utf8) }
                place = pages[3]
                bytes.insert(contentsOf: (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }, at: place)
            }
        let info = try #require((try Command.run(["info", "--json", path]).json as? [[String: Any]])?.first)
        #expect(info["damaged"] as? Bool == true && info["truncated"] as? Bool == false, "\(info)")
        let converted = try Command.run(["convert", path, folder + "/out.caf"])
        #expect(converted.status == 0)
        // (The MP3's 577 bytes open with a whole false frame in line, a packet as its bytes complete: 160 are said.)
        let said = kind == "mp3" ? "160 bytes at byte 5013" : "100 bytes at byte \(place)"
        #expect(
            converted.stderr.contains("the source is damaged") && converted.stderr.contains(said), "\(converted.stderr)"
        )
    }
}

/// What a new user found at the seams (issue 47's second look): each as they met it.
@Suite struct SeamTests {
    /// A fix writes what afkit writes: Vorbis and Opus fail the music profile's data-format rule, so their one fix
    /// is the profile's preset, into M4A (issue 71: one command a file); their loudness, which gain alone cannot
    /// bring into the profile's band under the ceiling, gets a level only where the fix's conversion (the preset's
    /// AAC, the speech a few seconds long) meets one in the band, which the fix then does; else the finding says
    /// why there is none.
    @Test func fixesWriteWhatAfkitWrites() throws {
        let folder = try ScratchFolder()
        for name in ["oggenc-speech.ogg", "opusenc-voice.opus"] {
            try FileManager.default.copyItem(
                atPath: Command.fixtures + "/ogg/" + name, toPath: folder.path + "/" + name)
        }
        let result = try Command.run([
            "validate", "--profile", "music", folder.path + "/oggenc-speech.ogg", folder.path + "/opusenc-voice.opus",
        ])
        var levelled = 0
        for name in ["oggenc-speech", "opusenc-voice"] {
            let source = folder.path + "/" + name + (name.hasSuffix("speech") ? ".ogg" : ".opus")
            let output = folder.path + "/" + name + ".m4a"
            #expect(result.stdout.contains("fix: afkit convert --preset music "), "\(result.stdout)")
            let line = try #require(
                result.stdout.split(separator: "\n").first { $0.hasPrefix("\(source): warning: loudness: ") },
                "\(result.stdout)")
            guard let fix = line.range(of: "fix: ").map({ String(line[$0.upperBound...]) }), !line.contains("no fix:")
            else {
                #expect(line.contains("no fix: only limiting gets there"), "\(line)")
                continue
            }
            let command = String(fix.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
            #expect(command.hasPrefix("afkit convert --preset music --loudness ") && command.hasSuffix(output))
            let fixed = try FixCommandTests.run(command)
            #expect(!(try FixCommandTests.rules(fixed, profile: "music")).contains("loudness"), "\(command)")
            levelled += 1
        }
        #expect(levelled >= 1, "\(result.stdout)")
    }

    /// The dash-name hint names the command it is about; batch's list of what a preset writes names RF64.
    @Test func hintsNameTheirCommand() throws {
        let waveform = try Command.run(["waveform", "-nosuch.wav", "-o", "/tmp/never.dat"])
        #expect(
            waveform.status == 2 && waveform.stderr.contains("(afkit waveform -- -nosuch.wav)"), "\(waveform.stderr)")
        let batch = try Command.run(["batch", "--preset", "pcm", "-f", "opus", "--out", "/tmp/never", "signals"])
        #expect(batch.status == 2 && batch.stderr.contains("caff, AIFF, AIFC, WAVE, RF64"), "\(batch.stderr)")
    }

    /// `-` is standard input for waveform and validate too, as for info and convert; a waveform of a source cut
    /// short says so.
    @Test func standardInputEverywhere() throws {
        let folder = try Loopback.temporaryFolder("stdin")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/signals/music.wav"))
        let waveform = try Command.run(["waveform", "-", "-o", folder + "/w.dat", "--zoom", "1"], stdin: bytes)
        #expect(waveform.status == 0, "\(waveform.stderr)")
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/w.dat")).prefix(20))
        #expect(Int(header[16]) | Int(header[17]) << 8 | Int(header[18]) << 16 == 55125)
        let validate = try Command.run(["validate", "--profile", "music", "--format", "json", "-"], stdin: bytes)
        let files = (validate.json as? [String: Any])?["files"] as? [[String: Any]] ?? []
        #expect(files.map { $0["path"] as? String } == ["-"], "\(validate.stdout)")
        #expect(!validate.stdout.contains(".stdin.afkit"), "a temporary name leaked: \(validate.stdout)")
        let cut = folder + "/cut.wav"
        try bytes.prefix(30000).write(to: URL(fileURLWithPath: cut))
        let drawn = try Command.run(["waveform", cut, "-o", folder + "/cut.dat"])
        #expect(drawn.status == 0 && drawn.stderr.contains("cut.wav: note: the source is cut short"), "\(drawn.stderr)")
    }
}
