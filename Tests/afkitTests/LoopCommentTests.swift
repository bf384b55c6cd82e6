import AudioContainers
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
        for name in ["out.wav", "out.caf", "out.aiff", "out.flac", "out.opus"] {
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
}
