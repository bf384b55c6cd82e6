import AudioContainers
import Foundation
import Testing

/// `afkit join` and `afkit mix` (issue 71) against SoX (compose/, make-compose-fixtures.sh): sample for sample where
/// SoX's arithmetic is exact, gapless across rates, channels and lossy inputs, clipping counted as SoX counts it.
@Suite struct JoinMixTests {
    /// The stored 16-bit samples of a file (interleaved).
    static func samples(_ path: String) throws -> [Int16] {
        let file = try AudioFile(path: path.hasPrefix("/") ? path : Command.fixtures + "/" + path)
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Joined: what `sox a.wav b.wav` writes, every sample.
    @Test func joinIsSoXsConcatenation() throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/joined.wav"
        let result = try Command.run(["join", "compose/a.wav", "compose/b.wav", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let joined = try Self.samples(output)
        #expect(joined.count == (11025 + 8820) * 2)
        #expect(joined == (try Self.samples("compose/joined-sox.wav")))
    }

    /// Mixed at unity (`sox -m -v 1 a -v 1 b`): every sample; the samples the sum takes past full scale counted as
    /// SoX counts them ("mix-combining clipped 12 samples", 11040 for a mixed with itself) and said, with where.
    @Test(arguments: [
        ("compose/b.wav", "compose/mixed-sox.wav", 12, "00:00:00.121"),
        ("compose/a.wav", "compose/mixed-clipped-sox.wav", 11040, "00:00:00.000"),
    ])
    func mixIsSoXsMixAtUnity(_ second: String, _ reference: String, _ clipped: Int, _ from: String) throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/mixed.wav"
        let result = try Command.run(["mix", "compose/a.wav", second, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.samples(output) == (try Self.samples(reference)))
        #expect(
            result.stderr.contains(
                "mix: \(output): note: the mix takes \(clipped) samples past full scale, from \(from)"),
            "\(result.stderr)")
        // A float output keeps them: nothing clips, nothing to say.
        let float = try Command.run(["mix", "compose/a.wav", second, "-d", "LEF32", "-o", folder.path + "/f.wav"])
        #expect(float.status == 0 && !float.stderr.contains("past full scale"), "\(float.stderr)")
    }

    /// Levels and start times: b 12 dB down from 0.2 s (`sox -m -v 1 a -v 0.2512 "|sox b -p pad 0.2"`): as long as
    /// SoX's, and within one step of 16 bits (the two round a scaled sample on either side of a half step in a handful
    /// of places: SoX scales 32-bit integers in double, afkit 32-bit floats).
    @Test func mixWithLevelsAndStartTimesMatchesSoX() throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/levels.wav"
        let result = try Command.run([
            "mix", "compose/a.wav", "compose/b.wav", "--levels", "0,-12", "--at", "0,4410f", "-o", output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let mixed = try Self.samples(output)
        let reference = try Self.samples("compose/mixed-levels-sox.wav")
        #expect(mixed.count == reference.count && mixed.count == (4410 + 8820) * 2)
        let differing = zip(mixed, reference).filter { $0 != $1 }
        #expect(differing.allSatisfy { abs(Int($0.0) - Int($0.1)) == 1 } && differing.count < 20, "\(differing.count)")
        // The same start as a time: 0.2 s is 4410 frames at 22.05 kHz.
        let timed = folder.path + "/timed.wav"
        #expect(
            try Command.run([
                "mix", "compose/a.wav", "compose/b.wav", "--levels", "0,-12", "--at", "0,0.2", "-o", timed,
            ])
            .status == 0)
        #expect(try Self.samples(timed) == mixed)
    }

    /// Across rates, channels and codecs: a 16 kHz mono WAV, LAME's MP3 (its gapless tag) and FFmpeg's AAC in M4A
    /// (its edit list) joined after a 22.05 kHz stereo WAV: exactly the sum of the inputs' valid frames at the
    /// output's rate, and each input's part exactly what convert makes of it alone (no priming, no gap, no click).
    @Test func joinIsGaplessAcrossRatesChannelsAndCodecs() throws {
        let folder = try ScratchFolder()
        let inputs = ["compose/a.wav", "compose/c-16k-mono.wav", "compose/d.mp3", "compose/e.m4a"]
        let valid = try inputs.map { try AudioFile(path: Command.fixtures + "/" + $0).properties }
        let frames = try valid.map { try #require(AudioFileSummary($0).frameCount) }
        #expect(frames == [11025, 4800, 13230, 13230])
        let output = folder.path + "/joined.wav"
        let result = try Command.run(["join"] + inputs + ["-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let joined = try Self.samples(output)
        #expect(joined.count == (11025 + 4800 * 22050 / 16000 + 13230 + 13230) * 2)
        var parts: [Int16] = []
        for (index, input) in inputs.enumerated() {
            let alone = folder.path + "/part\(index).wav"
            let converted = try Command.run(["convert", input, "-d", "LEI16@22050", "-c", "2", alone])
            #expect(converted.status == 0, "\(converted.stderr)")
            parts += try Self.samples(alone)
        }
        #expect(joined == parts)
        // -d @RATE and -c: the output's rate and channels, every input brought to them once.
        let mono = folder.path + "/mono.wav"
        #expect(
            try Command.run([
                "join", "compose/a.wav", "compose/c-16k-mono.wav", "-d", "LEI16@16000", "-c", "1", "-o", mono,
            ]).status == 0)
        let summary = try AudioFileSummary(try AudioFile(path: mono).properties)
        #expect(summary.frameCount == 11025 * 16000 / 22050 + 4800)
        #expect(summary.format.channelsPerFrame == 1 && summary.format.sampleRate == 16000)
    }

    /// The output takes the widest input's channels: a mono voice mixed over a stereo bed (or joined before it) is
    /// stereo, at the first input's rate, with no note; folded by -c 1, the note names the input and how to keep its
    /// channels. (The mix was mono, the first input's channels, the bed folded silently.)
    @Test func theWidestInputsChannelsAreKept() throws {
        let folder = try ScratchFolder()
        for command in [["mix", "--levels", "0,-12", "--at", "0.1,0"], ["join"]] {
            let output = folder.path + "/\(command[0]).wav"
            let result = try Command.run(command + ["compose/c-16k-mono.wav", "compose/a.wav", "-o", output])
            #expect(result.status == 0, "\(result.stderr)")
            let format = try AudioFile(path: output).dataFormat
            #expect(format.channelsPerFrame == 2 && format.sampleRate == 16000, "\(command): \(format)")
            #expect(!result.stderr.contains("folded"), "\(result.stderr)")
            let mono = folder.path + "/\(command[0])-mono.wav"
            let folded = try Command.run(command + ["compose/c-16k-mono.wav", "compose/a.wav", "-c", "1", "-o", mono])
            #expect(folded.status == 0, "\(folded.stderr)")
            #expect(try AudioFile(path: mono).dataFormat.channelsPerFrame == 1)
            // The note is about the input, and names it in the message's file place (it named the output there).
            #expect(
                folded.stderr.contains(
                    "\(command[0]): compose/a.wav: note: its 2 channels are folded to the output's 1 (-c 2 keeps them)"),
                "\(folded.stderr)")
        }
    }

    /// A joined AAC output is gapless too: its edit list states the joined frames exactly.
    @Test func joinedIntoM4ARecordsItsExactLength() throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/show.m4a"
        let result = try Command.run(["join", "compose/d.mp3", "compose/a.wav", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileSummary(try AudioFile(path: output).properties).frameCount == 13230 + 11025)
    }

    /// What the commands refuse, each a usage error naming what is wrong, nothing written; an input that is no sound
    /// fails naming it.
    @Test func refusals() throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/x.wav"
        let cases: [([String], String)] = [
            (["join", "compose/a.wav", "-o", output], "give two or more inputs"),
            (
                ["join", "compose/a.wav", "compose/nope.wav", "-o", output],
                "join: compose/nope.wav: error: no such file"
            ),
            (["join", "compose/a.wav", "compose/b.wav", "-o", "compose/a.wav"], "is an input of this run"),
            (["mix", "compose/a.wav", "compose/b.wav", "--levels", "0", "-o", output], "1 value for 2 inputs"),
            (["mix", "compose/a.wav", "compose/b.wav", "--at", "0,soon", "-o", output], "not 'soon'"),
            (["mix", "compose/a.wav", "compose/b.wav", "-m", "1,0", "-o", output], "join and mix take -c"),
        ]
        for (arguments, message) in cases {
            let result = try Command.run(arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let text = try Command.run(["join", "compose/a.wav", "compose/show-notes.txt", "-o", output])
        #expect(text.status == 1 && text.stderr.hasPrefix("join: compose/show-notes.txt: error: "), "\(text.stderr)")
        #expect(!text.stderr.contains(output), "\(text.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A damaged input given by a plain path (unquoted: its error's message starts with the path, as the reader
    /// words it) is the file its error is about, in `join` and in `mix`, never the output: the composition's errors
    /// carry the part's path (`Composition.PartError`), not a message to match.
    @Test(arguments: ["join", "mix"]) func aDamagedInputIsTheFileItsErrorIsAbout(_ command: String) throws {
        let folder = try ScratchFolder()
        // compose/a.wav's 44-byte header, then 2 bytes: cut short before its first whole frame (4 bytes).
        let cut = folder.path + "/cut.wav"
        let whole = try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/compose/a.wav"))
        try whole.prefix(46).write(to: URL(fileURLWithPath: cut))
        let garbage = folder.path + "/garbage.wav"
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 3) }).write(
            to: URL(fileURLWithPath: garbage))
        let output = folder.path + "/out.wav"
        for damaged in [cut, garbage] {
            let result = try Command.run([command, "compose/a.wav", damaged, "-o", output])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("\(command): \(damaged): error: "), "\(result.stderr)")
            #expect(!result.stderr.contains(output), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let cutFirst = try Command.run([command, cut, "compose/b.wav", "-o", output])
        #expect(
            cutFirst.stderr.hasPrefix(
                "\(command): \(cut): error: the file is cut short before its first whole frame of audio: nothing was "
                    + "\(command)ed"), "\(cutFirst.stderr)")
    }
}
