import AudioContainers
import AudioFormats
import Foundation
import LoopbackServers
import Testing

/// Loop points kept in Vorbis comments (LOOPSTART with LOOPLENGTH or LOOPEND, as RPG Maker and game engines
/// write them; Tests/Fixtures/make-tagged-fixtures.sh) are loops (issue 53): `info` lists them, a conversion
/// carries them into every container that holds a loop (WAV `smpl`, CAF `regn`, AIFF `INST`, FLAC and Ogg Opus
/// comments), moved to the output's rate, and says so where the output holds none (M4A, MP3).
@Suite struct LoopCommentTests {
    static let cases: [(String, ClosedRange<Int>)] = [
        ("loops/vorbis-looplength.ogg", 4410...15435), ("loops/flac-loopend.flac", 2205...19845),
        ("loops/opus-looplength.opus", 9600...33600),
    ]

    @Test(arguments: cases.map(\.0))
    func commentsAreLoopsAndTravel(_ fixture: String) throws {
        let expected = try #require(Self.cases.first { $0.0 == fixture }?.1)
        let info = try #require((try Command.run(["info", "--json", fixture]).json as? [[String: Any]])?.first)
        let loops = info["loops"] as? [[String: Any]] ?? []
        #expect(loops.count == 1)
        #expect(
            loops.first?["start"] as? Int == expected.lowerBound && loops.first?["end"] as? Int == expected.upperBound)
        // The comments are the loop now, not text.
        #expect((info["metadata"] as? [String: Any])?.keys.contains { $0.hasPrefix("loop") } != true)
        let rate = try AudioFile(path: Command.fixtures + "/" + fixture).dataFormat.sampleRate

        let folder = try Loopback.temporaryFolder("loops")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["out.wav", "out.caf", "out.aiff", "out.flac", "out.opus", "out.ogg"] {
            let output = folder + "/" + name
            let result = try Command.run(["convert", fixture, output])
            #expect(result.status == 0, "\(fixture) → \(name): \(result.stderr)")
            let written = try AudioFile(path: output)
            let scale = written.dataFormat.sampleRate / rate
            let loop = try #require(written.properties.loops.first, "\(fixture) → \(name): no loop")
            #expect(
                loop.start == Int64((Double(expected.lowerBound) * scale).rounded())
                    && loop.end == Int64((Double(expected.upperBound) * scale).rounded()),
                "\(fixture) → \(name): \(loop)")
        }
        for name in ["out.m4a", "out.mp3"] {
            let result = try Command.run(["convert", fixture, folder + "/" + name])
            #expect(result.status == 0)
            #expect(result.stderr.contains("holds no loops: the source's 1 loop is not carried"), "\(result.stderr)")
        }
    }

    /// `--trim-silence` never cuts into a loop the source declares (issue 71: a loop 88200-529200 became
    /// 88200-272262): the cut stops at the loop, which moves with the cut whole, and a note says what was kept and
    /// why; a loop that lies in the silence keeps the silence it lies in.
    @Test func theSilenceCutStopsAtALoop() throws {
        let folder = try Loopback.temporaryFolder("loop-cut")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shortened = try Command.run([
            "convert", "-v", "--trim-silence", "-60", "loops/flac-trim-shortens.flac", folder + "/short.wav",
        ])
        #expect(shortened.status == 0, "\(shortened.stderr)")
        let loop = try #require(try AudioFile(path: folder + "/short.wav").properties.loops.first)
        // 0.5 s of silence (22050 frames) before the tone, the loop from frame 1000 to 40000: the cut starts at the
        // loop, which keeps its length.
        #expect(loop.start == 0 && loop.end == 39000, "\(loop)")
        #expect(
            shortened.stderr.contains(
                "flac-trim-shortens.flac: note: --trim-silence keeps source frames 1000-"), "\(shortened.stderr)")
        #expect(shortened.stderr.contains("so as not to cut into loop 1 (frames 1000-40000) in the silence"))
        #expect(!shortened.stderr.contains("the cut shortens"), "\(shortened.stderr)")

        let kept = try Command.run([
            "convert", "-v", "--trim-silence", "-60", "loops/flac-trim-removes.flac", folder + "/kept.wav",
        ])
        #expect(kept.status == 0, "\(kept.stderr)")
        let whole = try #require(try AudioFile(path: folder + "/kept.wav").properties.loops.first, "\(kept.stderr)")
        #expect(whole.start == 0 && whole.end == 3900, "\(whole)")
        #expect(kept.stderr.contains("so as not to cut into loop 1 (frames 100-4000)"), "\(kept.stderr)")
    }

    /// A WAV of 8000 frames (a tone) with the given `smpl` loops.
    static func looped(_ path: String, _ loops: [Loop]) throws {
        let format = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16, isFloat: false)
        var options = AudioFileWriterOptions()
        options.loops = loops
        let writer = try AudioFileWriter(path: path, fileType: .wav, format: format, options: options)
        var bytes: [UInt8] = []
        for frame in 0..<8000 {
            let sample = Int16(8000 * sin(Double(frame) * 0.05))
            bytes += [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
        }
        try writer.writePackets(bytes)
        try writer.close()
    }

    /// AIFF holds two loops (sustain and release): a third is said not carried, and `-v` does not claim it
    /// (it listed it as carried); a loop past the end of the audio is dropped and one running past it ends there,
    /// each said (they were written out unchanged).
    @Test func loopsAnOutputCannotHoldAreSaid() throws {
        let folder = try Loopback.temporaryFolder("loop-limits")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let three = folder + "/three.wav"
        try Self.looped(
            three,
            [
                Loop(start: 100, end: 900, playMode: .forward), Loop(start: 1000, end: 2000, playMode: .forward),
                Loop(start: 3000, end: 4000, playMode: .forward),
            ])
        let aiff = try Command.run(["convert", "-v", three, folder + "/three.aiff"])
        #expect(aiff.status == 0, "\(aiff.stderr)")
        #expect(
            aiff.stderr.contains("note: AIFF holds two loops: the source's other 1 loop is not carried"),
            "\(aiff.stderr)")
        #expect(aiff.stderr.contains("convert: loop 3 (source frames 3000-4000): not carried\n"), "\(aiff.stderr)")
        #expect(try AudioFile(path: folder + "/three.aiff").properties.loops.count == 2)

        let past = folder + "/past.wav"
        try Self.looped(
            past,
            [Loop(start: 6000, end: 9000, playMode: .forward), Loop(start: 10000, end: 12000, playMode: .forward)])
        let caf = try Command.run(["convert", past, folder + "/past.caf"])
        #expect(caf.status == 0, "\(caf.stderr)")
        #expect(
            caf.stderr.contains(
                "loop 1 (source frames 6000-9000) runs past the end of the audio: it ends at frame 8000"))
        #expect(
            caf.stderr.contains(
                "loop 2 (source frames 10000-12000) lies past the end of the audio (8000 frames) and is dropped"))
        let loops = try AudioFile(path: folder + "/past.caf").properties.loops
        #expect(loops.map(\.start) == [6000] && loops.map(\.end) == [8000], "\(loops)")
    }
}
