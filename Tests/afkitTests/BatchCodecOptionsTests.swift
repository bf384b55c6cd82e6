import Foundation
import Testing

/// `batch` takes the codec options `convert` takes (`-c`, `-b`, `-q`, `-s`, as the contract's compressed-output
/// section lists them for both), and `--preset music` writes what Android and game engines ship: an `.ogg` as
/// Vorbis, an `.opus` as Opus (issue 71: a studio's batch to Android).
@Suite struct BatchCodecOptionsTests {
    /// The format `afkit info --json` reads from `path`: its codec, channels and rate.
    func format(_ path: String) throws -> (id: String, channels: Int, rate: Int, note: String) {
        let info = try Command.run(["info", "--json", path])
        let entry = try #require(
            (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])?.first)
        let format = try #require(entry["format"] as? [String: Any])
        let metadata = entry["metadata"] as? [String: String] ?? [:]
        return (
            format["id"] as? String ?? "", format["channels"] as? Int ?? 0, format["sampleRate"] as? Int ?? 0,
            metadata["afkit source"] ?? ""
        )
    }

    @Test func musicToOggIsVorbisAndTheCodecOptionsApply() throws {
        let folder = try ScratchFolder()
        try toneWAV(folder.path + "/theme.wav", seconds: 1, rate: 96000, channels: 2)
        let out = folder.path + "/android"
        // -f ogg: Vorbis, stereo, at the preset's highest rate; the code the user gave is the one a message names.
        let plain = try Command.run([
            "batch", "--preset", "music", "-f", "ogg", "--out", out, folder.path + "/theme.wav",
        ])
        #expect(plain.status == 0, "\(plain.stderr)")
        let vorbis = try format(out + "/theme.ogg")
        #expect(vorbis.id == "vorb" && vorbis.channels == 2 && vorbis.rate == 48000, "\(vorbis)")
        // -c and -q reach every output and are recorded: the same run is current, a changed -q rebuilds.
        let asked = ["batch", "--preset", "music", "-f", "ogg", "-c", "1", "-q", "96", "--out", out]
        let mono = try Command.run(asked + [folder.path + "/theme.wav"])
        #expect(mono.stdout == "1 file: 1 converted, 0 up to date, 0 failed\n", "\(mono.stdout) \(mono.stderr)")
        let made = try format(out + "/theme.ogg")
        #expect(made.id == "vorb" && made.channels == 1, "\(made)")
        #expect(made.note.contains("-f ogg -c 1 -q 96"), "\(made.note)")
        let again = try Command.run(asked + [folder.path + "/theme.wav"])
        #expect(again.stdout == "1 file: 0 converted, 1 up to date, 0 failed\n", "\(again.stdout)")
        // -b with -f adts: the bit rate asked, in an `.aac` (the contract's name for -f adts).
        let aac = try Command.run([
            "batch", "--preset", "music", "-f", "adts", "-b", "96k", "-c", "1", "--out", folder.path + "/aac",
            folder.path + "/theme.wav",
        ])
        #expect(aac.status == 0, "\(aac.stderr)")
        let aacInfo = try Command.run(["info", "--json", folder.path + "/aac/theme.aac"])
        #expect(aacInfo.status == 0, "\(aacInfo.stderr)")
        let bitRate =
            ((try JSONSerialization.jsonObject(with: Data(aacInfo.stdout.utf8)) as? [[String: Any]])?.first?["bitRate"]
                as? Int) ?? 0
        #expect((88000...104000).contains(bitRate), "\(bitRate)")
        // Out-of-range options are usage errors, as convert's are.
        for bad in [["-q", "200"], ["-c", "0"], ["-s", "7"], ["-b", "96"]] {
            let refused = try Command.run(
                ["batch", "--preset", "music", "--out", folder.path + "/x"] + bad + [folder.path + "/theme.wav"])
            #expect(refused.status == 2, "\(bad): \(refused.stderr)")
        }
        // A container no preset of the batch writes is named as the user spelled it.
        let refused = try Command.run([
            "batch", "--preset", "sfx", "-f", "ogg", "--out", folder.path + "/y", folder.path + "/theme.wav",
        ])
        #expect(refused.status == 2 && refused.stderr.contains("cannot write -f ogg"), "\(refused.stderr)")
    }

    /// `voice` keeps rates up to 48 kHz: a 96 kHz source written as Vorbis at the preset's 32 kbit/s is resampled
    /// (libvorbis has no 96 kHz mode that low); asked outright, the refusal says what would fit.
    @Test func voiceVorbisFromA96kSource() throws {
        let folder = try ScratchFolder()
        try toneWAV(folder.path + "/line.wav", seconds: 1, rate: 96000)
        let voice = try Command.run([
            "convert", "--preset", "voice", "-d", "vorbis", folder.path + "/line.wav", folder.path + "/line.ogg",
        ])
        #expect(voice.status == 0, "\(voice.stderr)")
        #expect(try format(folder.path + "/line.ogg").rate == 48000)
        let asked = try Command.run([
            "convert", "-d", "vorbis", "-b", "32000", folder.path + "/line.wav", folder.path + "/direct.ogg",
        ])
        #expect(asked.status == 1, "\(asked.stderr)")
        #expect(asked.stderr.contains("at 32 kbit/s it takes 48000 Hz (-d vorbis@48000)"), "\(asked.stderr)")
    }

    /// What batch's help says of a preset's outputs holds: they pass the preset's own profile (no error), but the
    /// presets do not level loudness, so a quiet source's output keeps its level and the profile warns of it (help
    /// said "no finding"); with --loudness the same output meets the profile with nothing to say.
    @Test func presetOutputsPassTheirProfileButKeepTheSourcesLoudness() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/src"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        _ = try convertedTone(["--gain", "-30"], into: source, "quiet.wav", rate: 44100)
        func findings(_ options: [String]) throws -> [(rule: String, severity: String)] {
            let out = folder.path + "/out" + options.joined()
            let batch = try Command.run(["batch", "--preset", "music", "--out", out] + options + [source])
            #expect(batch.status == 0, "\(options): \(batch.stderr)")
            let validate = try Command.run(["validate", "--profile", "music", "--format", "json", out])
            #expect(validate.status == 0, "\(options): \(validate.stdout)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(validate.stdout.utf8)) as? [String: Any])
            let files = try #require(report["files"] as? [[String: Any]])
            return files.flatMap { ($0["violations"] as? [[String: Any]]) ?? [] }.map {
                ($0["rule"] as? String ?? "", $0["severity"] as? String ?? "")
            }
        }
        let unlevelled = try findings([])
        #expect(unlevelled.map(\.rule) == ["loudness"] && unlevelled.allSatisfy { $0.severity == "warning" })
        #expect(try findings(["--loudness", "-16"]).isEmpty)
        let help = try Command.run(["help", "batch"]).stdout.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(help.contains("the presets do not level loudness"), "\(help)")
        #expect(!help.contains("its own profile with no finding:"), "\(help)")
    }

    /// `convert --preset voice in.wav out.m4a`: AAC at the voice's settings (mono, 32 kbit/s: what `-d aac -b 32000
    /// -c 1` writes), read back by afkit with the source's frames; an `.mp3` name MP3 the same way. It was refused
    /// ("--preset voice cannot write 'out.m4a'"), where `--preset music` gave way to an `.ogg` or `.opus` name.
    @Test func voiceToM4AIsAACAtTheVoicesSettings() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/episode.wav"
        try toneWAV(source, seconds: 2, rate: 48000, channels: 2)
        func read(_ path: String) throws -> [String: Any] {
            let info = try Command.run(["info", "--json", path])
            #expect(info.status == 0, "\(info.stderr)")
            return try #require(
                (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])?.first)
        }
        for (name, codec, options) in [("m4a", "aac ", ["-d", "aac"]), ("mp3", ".mp3", ["-d", ".mp3"])] {
            let output = folder.path + "/episode.\(name)"
            let voice = try Command.run(["convert", "--preset", "voice", source, output])
            #expect(voice.status == 0, "\(name): \(voice.stderr)")
            let made = try read(output)
            let format = try #require(made["format"] as? [String: Any])
            #expect(format["id"] as? String == codec && format["channels"] as? Int == 1, "\(name): \(made)")
            #expect(format["sampleRate"] as? Int == 48000, "\(name): \(made)")
            if name == "m4a" { #expect(made["frameCount"] as? Int == 96000, "\(made)") }
            // The same bit rate as the codec asked outright at the voice's settings.
            let asked = folder.path + "/asked.\(name)"
            let outright = try Command.run(["convert"] + options + ["-b", "32000", "-c", "1", source, asked])
            #expect(outright.status == 0, "\(name): \(outright.stderr)")
            #expect(made["bitRate"] as? Int == (try read(asked))["bitRate"] as? Int, "\(name): \(made)")
        }
    }
}
