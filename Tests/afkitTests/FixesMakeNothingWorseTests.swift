import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Fixes that never make things worse (issue 71): under a studio profile with a loudness rule (game-sfx's -18 ± 3
/// LUFS, -1 dBTP, 5 s at most), the fix `validate` prints for each file, run as printed, writes an output that
/// `validate` finds nothing new in: a mix to mono, a preset, a cut or silence trimmed brings the loudness target
/// with it; a target the file's peaks cannot reach by gain is aimed within the tolerance; a silent file gets no
/// loudness fix; silence a loop lies in is not trimmed; a clicking loop is mended with `--loop-crossfade`; a DC
/// offset a fix's gain would raise past its limit is taken out (`--remove-dc`).
@Suite struct FixesMakeNothingWorseTests {
    static let studio = #"{"name": "studio", "extends": "game-sfx", "rules": {"duration": {"maximumSeconds": 5}}}"#

    /// The violations of `path` under `profile`: rule, message and fix.
    static func violations(_ path: String, profile: String) throws -> [(rule: String, message: String, fix: String?)] {
        try FixesThatRunTests.violations(path, profile: profile).map {
            ($0["rule"] as? String ?? "", $0["message"] as? String ?? "", $0["fix"] as? String)
        }
    }

    /// A 16-bit WAV of `seconds` at `rate`: each channel's sample from `signal(frame, channel)`, -1...1.
    static func wav(
        _ path: String, seconds: Double, rate: Double = 44100, channels: Int = 1,
        _ signal: (Int, Int) -> Double
    ) throws {
        var samples: [Int16] = []
        for frame in 0..<Int(seconds * rate) {
            for channel in 0..<channels { samples.append(Int16(max(-1, min(1, signal(frame, channel))) * 32767)) }
        }
        try pcmWAV(path, rate: rate, channels: UInt32(channels), samples: samples)
    }

    /// The files made for the flaws this suite is about, each with what its fix must do.
    static func flawed(in folder: String) throws -> [String] {
        func tone(_ frame: Int, _ rate: Double = 44100) -> Double { sin(2 * Double.pi * 440 * Double(frame) / rate) }
        // Stereo, the right channel three eighths of a period behind: within the loudness band as it is, well
        // under it mixed to mono (the hit 96k case).
        try wav(folder + "/stereo-hit.wav", seconds: 1, channels: 2) { frame, channel in
            0.14 * sin(2 * Double.pi * 440 * Double(frame) / 44100 + (channel == 1 ? 3 * Double.pi / 4 : 0))
        }
        // 0.2 s of tone between 1 s of silence each side (the silence padded coin case).
        try wav(folder + "/padded-coin.wav", seconds: 2.2) { frame, _ in
            frame >= 44100 && frame < 44100 + 8820 ? 0.3 * tone(frame) : 0
        }
        // A tone (about -19 LUFS) with a full-scale click (one 1 kHz period) every half second: gain alone keeps
        // it under -1 dBTP only below -20 LUFS, inside the band.
        try wav(folder + "/peaky.wav", seconds: 3) { frame, _ in
            frame % 22050 < 44 ? sin(2 * Double.pi * Double(frame % 22050) / 44) : 0.16 * tone(frame)
        }
        // The same tone 8 dB quieter (about -27 LUFS): only the limiter reaches the band; no fix is promised.
        try wav(folder + "/peaky-quiet.wav", seconds: 3) { frame, _ in
            frame % 22050 < 44 ? sin(2 * Double.pi * Double(frame % 22050) / 44) : 0.064 * tone(frame)
        }
        // Nearly silent and shorter than one gating block (its one block measures about -85 LUFS): no gain is a fix.
        try wav(folder + "/hiss.wav", seconds: 0.3) { frame, _ in frame % 2 == 0 ? 0.00004 : -0.00004 }
        // A loop to the end over the trailing silence: trimming it would cut into the loop, and its wrap (from
        // silence into the tone) clicks.
        try LoopCrossfadeTests.loopedCAF(
            folder + "/loop-tail.caf", frames: 16000, period: 1,
            loops: [Loop(start: 4000, end: 16000, playMode: .forward)]
        ) {
            $0 < 10000 ? 0.25 * sin(2 * Double.pi * 440 * Double($0) / 8000) : 0
        }
        // A loop whose wrap jumps half a period (the loop B seam click case).
        try LoopCrossfadeTests.loopedCAF(
            folder + "/loop-click.caf", frames: 8000, period: 80,
            loops: [Loop(start: 800, end: 800 + 80 * 50 - 37, playMode: .forward)]
        ) {
            0.25 * sin(2 * Double.pi * Double($0) / 80)
        }
        // A quiet tone (about -45 LUFS) on a DC offset of -52 dBFS, under the dc-offset rule's -40: the loudness
        // fix's gain raised the offset past it (the fifteenth trial's forest ambience), so the fix takes it out.
        try wav(folder + "/quiet-offset.wav", seconds: 3) { frame, _ in 0.008 * tone(frame) + 0.0025 }
        return [
            "stereo-hit.wav", "padded-coin.wav", "peaky.wav", "peaky-quiet.wav", "hiss.wav", "loop-tail.caf",
            "loop-click.caf", "quiet-offset.wav",
        ]
    }

    @Test func everyFixUnderAStudioProfileAddsNoFinding() throws {
        let folder = try ScratchFolder()
        let profile = folder.path + "/studio.json"
        try Data(Self.studio.utf8).write(to: URL(fileURLWithPath: profile))
        let names = try Self.flawed(in: folder.path) + FixesThatRunTests.sources(in: folder.path).map(\.name)
        var fixedCount = 0
        for name in names {
            let path = folder.path + "/" + name
            let before = try Self.violations(path, profile: profile)
            let fixes = Set(before.compactMap(\.fix))
            #expect(fixes.count <= 1, "\(name): one command a file: \(fixes)")
            guard let fix = fixes.first else { continue }
            #expect(fix.hasPrefix("afkit convert "), "\(name): \(fix)")
            if name == "quiet-offset.wav" { #expect(fix.contains(" --remove-dc "), "\(fix)") }
            let fixed = try FixCommandTests.run(fix)
            let after = try Self.violations(fixed, profile: profile)
            let new = Set(after.map(\.rule)).subtracting(before.map(\.rule))
            #expect(new.isEmpty, "\(name): \(fix) adds \(after.filter { new.contains($0.rule) })")
            // A loudness finding that had the fix is gone.
            if before.contains(where: { $0.rule == "loudness" && $0.fix != nil }) {
                #expect(!after.contains { $0.rule == "loudness" }, "\(name): \(fix) leaves \(after)")
            }
            try FileManager.default.removeItem(atPath: fixed)
            fixedCount += 1
        }
        #expect(fixedCount >= 30)
    }

    /// Sounds whose peaks are too hot: a click (a decaying noise burst with a 3 kHz ring, true peak over 0 dBTP:
    /// the trial's click.wav), a tone driven into clipping (runs of full-scale samples), and speech brought to a
    /// sample peak of -0.1 dBFS (a voice line).
    static func hot(in folder: String) throws -> [String] {
        // (A fixed sequence: the same click every run.)
        var seed: UInt64 = 0x5EED
        func uniform() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * 2 - 1
        }
        try wav(folder + "/click.wav", seconds: 0.3) { frame, _ in
            let envelope = exp(-Double(frame) / 800)
            return (0.99 * uniform() + 0.2 * sin(2 * Double.pi * 3000 * Double(frame) / 44100)) * envelope
        }
        try wav(folder + "/clipped.wav", seconds: 1) { frame, _ in
            1.6 * sin(2 * Double.pi * 220 * Double(frame) / 44100)
        }
        let voice = try Command.run([
            "convert", "--normalize-peak", "-0.1", "signals/speech.wav", folder + "/voice-line.wav",
        ])
        #expect(voice.status == 0, "\(voice.stderr)")
        return ["click.wav", "clipped.wav", "voice-line.wav"]
    }

    /// A stereo 96 kHz hit whose mixdown leaves only its transients (a tone out of phase between the channels,
    /// 2 ms bursts in phase): measured as it is, gain alone reaches -18 LUFS under -1 dBTP, but mixed to mono at
    /// 22.05 kHz the bursts carry its loudness, and IMA4 adds to their peaks. game-sfx's fix is offered only at
    /// a level its conversion meets (it asked -18.2, which convert refused), else it says the loudest it meets;
    /// convert's own refusal names a target a fresh conversion meets (it named -19.8, which a fresh run missed).
    @Test func aFixAfterAMixdownIsAimedAsItsOutputHoldsIt() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/hit.wav"
        try Self.wav(path, seconds: 2, rate: 96000, channels: 2) { frame, channel in
            let time = Double(frame) / 96000
            let tone = 0.3 * sin(2 * Double.pi * 1000 * time)
            let burst = frame % 9600 < 192 ? 0.5 * sin(2 * Double.pi * 3000 * time) : 0
            return (channel == 0 ? tone : -tone) + burst
        }
        let found = try Self.violations(path, profile: "game-sfx")
        let loudness = try #require(found.first { $0.rule == "loudness" }, "\(found)")
        if let fix = loudness.fix {
            let fixed = try FixCommandTests.run(fix)
            let after = try Self.violations(fixed, profile: "game-sfx")
            #expect(!after.contains { ["loudness", "true-peak"].contains($0.rule) }, "\(fix): \(after)")
        } else {
            #expect(loudness.message.contains("LUFS at most, short of"), "\(loudness)")
        }
        let refused = try Command.run(["convert", "--preset", "sfx", "--loudness", "-18", path, folder.path + "/a.caf"])
        #expect(refused.status == 1, "\(refused.stderr)")
        let named = try #require(
            refused.stderr.range(of: "loudest target that can is ").map {
                Double(refused.stderr[$0.upperBound...].prefix { $0 != " " })
            } ?? nil, "\(refused.stderr)")
        let again = try Command.run([
            "convert", "--preset", "sfx", "--loudness", String(named), path, folder.path + "/b.caf",
        ])
        #expect(again.status == 0, "\(named): \(again.stderr)")
    }

    /// The built-in profiles, as validate names them where it is given none of them.
    static func builtInProfiles() throws -> [String] {
        let refusal = try Command.run(["validate", "--profile", "no-such-profile", "signals/speech.wav"]).stderr
        let names = try #require(refusal.range(of: "use ").map { refusal[$0.upperBound...] }, "\(refusal)")
        let listed = String(names.prefix { $0 != "\n" }).replacingOccurrences(of: " or a JSON file", with: "")
        return listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A hot or clipped sound under every built-in profile: the true-peak and clipping findings' fix runs and
    /// clears them, adding nothing. Where the profile has no loudness rule (system-sound, simultaneous-sfx), the
    /// fix is one gain to 0.5 dB under the ceiling (`--normalize-true-peak -1.5`): a loudness held at the file's
    /// own under a limiter (`--loudness -8.5 --true-peak -1`, as suggested before) could not be met, and the fix
    /// exited 1. Elsewhere a loudness fix levels it, or the finding says why there is none.
    @Test func aPeakFixRunsUnderEveryProfile() throws {
        let folder = try ScratchFolder()
        let names = try Self.hot(in: folder.path)
        let profiles = try Self.builtInProfiles().filter { $0 != "hls-audio" }
        #expect(profiles.count >= 6 && profiles.contains("simultaneous-sfx"), "\(profiles)")
        var ran = 0
        for profile in profiles {
            for name in names {
                let path = folder.path + "/" + name
                let before = try Self.violations(path, profile: profile)
                let peaks = before.filter { ["true-peak", "clipping"].contains($0.rule) }
                guard !peaks.isEmpty else { continue }
                for peak in peaks {
                    #expect(peak.fix != nil || peak.message.contains("no fix:"), "\(profile) \(name): \(peak)")
                }
                guard let fix = peaks.compactMap(\.fix).first else { continue }
                // (The built-in profiles with no loudness rule.)
                if ["system-sound", "simultaneous-sfx"].contains(profile) {
                    #expect(fix.contains("--normalize-true-peak -1.5") && !fix.contains("--loudness"), "\(fix)")
                }
                // (A loudness fix is aimed from the sound as its preset makes it: game-sfx's for the click, at
                // 22.05 kHz mono, whose loudness the resampling lowers by almost 4 LU; aimed from the file as it was,
                // it asked for -19.6 LUFS, which IMA4 at 22.05 kHz under -1 dBTP could not meet.)
                let fixed = try FixCommandTests.run(fix)
                let after = try Self.violations(fixed, profile: profile)
                #expect(
                    !after.contains { ["true-peak", "clipping"].contains($0.rule) }, "\(profile): \(fix): \(after)")
                let new = Set(after.map(\.rule)).subtracting(before.map(\.rule))
                #expect(new.isEmpty, "\(profile): \(fix) adds \(after.filter { new.contains($0.rule) })")
                try? FileManager.default.removeItem(atPath: fixed)
                ran += 1
            }
        }
        #expect(ran >= 12, "\(ran) fixes run")
    }

    @Test func eachFlawGetsTheFixThatFitsIt() throws {
        let folder = try ScratchFolder()
        let profile = folder.path + "/studio.json"
        try Data(Self.studio.utf8).write(to: URL(fileURLWithPath: profile))
        _ = try Self.flawed(in: folder.path)
        func fix(_ name: String) throws -> String? {
            try Self.violations(folder.path + "/" + name, profile: profile).compactMap(\.fix).first
        }
        // Mixed to mono, the loudness target comes with it.
        let stereo = try #require(try fix("stereo-hit.wav"))
        #expect(stereo.contains("-c 1") || stereo.contains("--preset sfx"), "\(stereo)")
        #expect(stereo.contains("--loudness -18"), "\(stereo)")
        // Trimmed, too.
        let coin = try #require(try fix("padded-coin.wav"))
        #expect(coin.contains("--trim-silence") && coin.contains("--loudness -18"), "\(coin)")
        // Peaks that gain alone cannot lift to -18 under -1 dBTP: aimed inside the band, not at -18.
        let peaky = try #require(try fix("peaky.wav"))
        let aim = try #require(
            peaky.split(separator: " ").drop { $0 != "--loudness" }.dropFirst().first.flatMap { Double($0) }, "\(peaky)"
        )
        #expect(aim < -18 && aim >= -21, "\(peaky)")
        let quietPeaks = try Self.violations(folder.path + "/peaky-quiet.wav", profile: profile)
        let unreached = try #require(quietPeaks.first { $0.rule == "loudness" }, "\(quietPeaks)")
        #expect(unreached.fix == nil && unreached.message.contains("only limiting gets there"), "\(unreached)")
        // Nearly silent: no loudness fix, and the finding says why.
        let hiss = try Self.violations(folder.path + "/hiss.wav", profile: profile)
        let quiet = try #require(hiss.first { $0.rule == "loudness" }, "\(hiss)")
        #expect(quiet.fix == nil && quiet.message.contains("no fix: the sound is silent"), "\(quiet)")
        #expect(!(hiss.compactMap(\.fix).first ?? "").contains("--loudness"), "\(hiss)")
        // Silence a loop lies in is not trimmed; the clicking wraps are mended.
        let tail = try Self.violations(folder.path + "/loop-tail.caf", profile: profile)
        #expect(!(tail.compactMap(\.fix).first ?? "").contains("--trim-silence"), "\(tail)")
        #expect(tail.contains { $0.message.contains("no fix: --trim-silence would cut into loop 1") }, "\(tail)")
        let click = try #require(try fix("loop-click.caf"))
        #expect(click.contains("--loop-crossfade 0.02"), "\(click)")
        let mended = try FixCommandTests.run(click)
        #expect(try !Self.violations(mended, profile: profile).contains { $0.rule == "loop-seam" })
    }
}
