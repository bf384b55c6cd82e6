import AudioContainers
import Foundation
import Testing

/// A mono 16-bit WAV of a 440 Hz tone at half scale, `seconds` long, at `rate`.
func toneWAV(_ path: String, seconds: Double, rate: Double = 8000, channels: Int = 1) throws {
    let frames = Int(seconds * rate)
    var samples: [Int16] = []
    samples.reserveCapacity(frames * channels)
    for frame in 0..<frames {
        let sample = Int16(16384 * sin(2 * Double.pi * 440 * Double(frame) / rate))
        for _ in 0..<channels { samples.append(sample) }
    }
    try pcmWAV(path, rate: rate, channels: UInt32(channels), samples: samples)
}

/// A tone (``toneWAV(_:seconds:rate:channels:)``, at `rate`, one second) made into `folder/name` by `afkit convert
/// OPTIONS`: a source in another format. Returns its path.
func convertedTone(_ options: [String], into folder: String, _ name: String, rate: Double = 8000) throws -> String {
    let tone = folder + "/.tone-\(name).wav"
    try toneWAV(tone, seconds: 1, rate: rate)
    defer { try? FileManager.default.removeItem(atPath: tone) }
    let made = folder + "/" + name
    let converted = try Command.run(["convert"] + options + [tone, made])
    #expect(converted.status == 0, "\(options) \(name): \(converted.stderr)")
    return made
}

/// Every message names its file (issue 49, the contract's "Every message of every command names the file it is
/// about"): `COMMAND: FILE: KIND: TEXT`, in every command.
@Suite struct FileMessageTests {
    @Test func notesAndErrorsNameTheirFile() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/hi.wav"
        try toneWAV(source, seconds: 0.5, rate: 96000, channels: 6)
        let converted = try Command.run(["convert", "--preset", "system-sound", source, folder.path + "/hi.caf"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("convert: \(source): note: --preset system-sound keeps rates up to 48000"))
        #expect(converted.stderr.contains("convert: \(source): note: --preset system-sound keeps 2 channels"))
        // Batch names the source of each note.
        let batch = try Command.run(["batch", "--preset", "system-sound", "--out", folder.path + "/out", source])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stderr.contains("batch: \(source): note: --preset system-sound keeps rates"), "\(batch.stderr)")
        // Errors: the same shape in convert, info, packets, waveform and clip.
        let text = folder.path + "/notes.wav"
        try Data("not audio at all, only words".utf8).write(to: URL(fileURLWithPath: text))
        for (command, arguments) in [
            ("convert", [text, folder.path + "/x.caf"]), ("info", [text]), ("packets", [text]),
            ("waveform", [text, "--output", folder.path + "/x.png"]), ("clip", [text]),
        ] {
            let failed = try Command.run([command] + arguments)
            #expect(failed.status == 1, "\(command): \(failed.stderr)")
            #expect(failed.stderr.hasPrefix("\(command): \(text): error: "), "\(command): \(failed.stderr)")
        }
        let failedBatch = try Command.run(["batch", "--preset", "pcm", "--out", folder.path + "/out2", text])
        #expect(failedBatch.stderr.contains("batch: \(text): error: "), "\(failedBatch.stderr)")
        // An error that names its file itself (a WAV cut inside its first frame: its header read, no frame):
        // the file in its place, before the kind, named once (it came after "error: ", a user's trial found).
        let cut = folder.path + "/cut.wav"
        let whole = try Data(contentsOf: URL(fileURLWithPath: source))
        let dataStart = try #require(whole.range(of: Data("data".utf8))).upperBound + 4
        try whole.prefix(dataStart + 1).write(to: URL(fileURLWithPath: cut))
        for (command, arguments) in [("convert", [cut, folder.path + "/y.caf"]), ("clip", [cut])] {
            let failed = try Command.run([command] + arguments)
            #expect(failed.stderr.hasPrefix("\(command): \(cut): error: the file is cut short"), "\(failed.stderr)")
            #expect(failed.stderr.components(separatedBy: cut).count == 2, "\(failed.stderr)")
        }
    }
}

/// `--trim` is never ignored (issue 49): it cuts to the duration limit of the profile in force (`--profile`, else
/// the preset's own, else validate's default, system-sound), with a note, or it is a usage error saying there is
/// no limit to cut to.
@Suite struct TrimLimitTests {
    static func seconds(_ path: String) throws -> Double {
        let file = try AudioFile(path: path)
        return Double(try #require(file.properties.validFrameCount)) / file.dataFormat.sampleRate
    }

    @Test func trimCutsToTheProfileInForceOrRefuses() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/long.wav"
        try toneWAV(source, seconds: 45)
        // IMA4 without a preset: validate's default profile, system-sound, 30 s; IMA4 kept.
        let ima4 = folder.path + "/long.caf"
        let cut = try Command.run(["convert", "-d", "ima4", "--trim", source, ima4])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(
            cut.stderr.contains(
                "convert: \(source): note: --trim: cut from 45 s to 30 s, the limit of the system-sound"))
        #expect(try Self.seconds(ima4) == 30)
        #expect(try AudioFile(path: ima4).dataFormat.formatID == .ima4)
        // A profile given: its limit (a profile file whose duration rule allows 5 s).
        let profile = folder.path + "/short.json"
        try Data(#"{"name": "short", "extends": "system-sound", "rules": {"duration": {"maximumSeconds": 5}}}"#.utf8)
            .write(to: URL(fileURLWithPath: profile))
        let five = folder.path + "/five.caf"
        let short = try Command.run(["convert", "-d", "ima4", "--trim", "--profile", profile, source, five])
        #expect(
            short.status == 0
                && short.stderr.contains(
                    "cut from 45 s to 5 s, the limit of the short profile, its last 10 ms faded out"),
            "\(short)")
        #expect(try Self.seconds(five) == 5)
        // A preset whose profile sets no limit: a usage error, nothing written.
        for arguments in [
            ["convert", "--preset", "sfx", "--trim", source, folder.path + "/sfx.caf"],
            ["batch", "--preset", "sfx", "--trim", "--out", folder.path + "/out", source],
            ["convert", "-d", "ima4", "--trim", "--profile", "music", source, folder.path + "/music.caf"],
        ] {
            let refused = try Command.run(arguments)
            #expect(refused.status == 2, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("there is no limit to cut to"), "\(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/sfx.caf"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
        // Batch with the system-sound preset: cut, the note naming the source; the limit is in the provenance.
        let batch = try Command.run([
            "batch", "--preset", "system-sound", "--trim", "--out", folder.path + "/ss", source,
        ])
        #expect(
            batch.status == 0 && batch.stderr.contains("batch: \(source): note: --trim: cut from 45 s to 30 s"),
            "\(batch)")
        #expect(try Self.seconds(folder.path + "/ss/long.caf") == 30)
    }
}
