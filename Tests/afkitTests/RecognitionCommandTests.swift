import Foundation
import LoopbackServers
import Testing

/// Every command reads through one parser: a format afkit recognises and does not read is refused by
/// `info`, `validate`, `packets` and `convert` alike, with the same message naming it (`typ?`, exit 1),
/// and `convert` leaves nothing behind. Bytes afkit does not recognise say so.
@Suite struct RecognitionCommandTests {
    static let files = [
        "refused/ogg-speex.spx",
        "refused/matroska-aac.mka", "refused/wavpack.wv",
        "refused/fasttracker.xi",
        "refused/htk.htk", "refused/mpeg-ts-mp2.ts", "refused/creative.voc", "refused/nist.sph", "refused/text.mp3",
    ]

    @Test(arguments: files)
    func everyCommandRefusesAlike(_ file: String) throws {
        let info = try Command.run(["info", "--json", file])
        #expect(info.status == 1)
        let entry = (info.json as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(entry?["code"] as? String == "typ?")
        let message = try #require(entry?["message"] as? String)
        #expect(!message.contains("MPEG audio or ADTS frame"))

        let packets = try Command.run(["packets", "--json", file])
        #expect(packets.status == 1)
        let packetsError = (packets.json as? [String: Any])?["error"] as? [String: Any]
        #expect(packetsError?["code"] as? String == "typ?")
        #expect(packetsError?["message"] as? String == message)

        let validate = try Command.run(["validate", "--format", "json", file])
        #expect(validate.status == 1)
        let violation =
            ((validate.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["violations"]
            as? [[String: Any]]
        #expect(violation?.first?["rule"] as? String == "malformed")
        #expect((violation?.first?["message"] as? String)?.contains(message) == true)

        let folder = try Loopback.temporaryFolder("refused")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let convert = try Command.run(["convert", file, folder + "/out.caf"])
        #expect(convert.status == 1)
        #expect(convert.stderr.contains(message), "\(convert.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// FLAC is read by every command alike: `info` and `packets` report the frames ffprobe lists,
    /// `validate` decodes it, `convert` writes its samples.
    @Test func flacIsReadByEveryCommand() throws {
        let file = "flac/stereo-tags.flac"
        let info = try Command.run(["info", "--json", file])
        #expect(info.status == 0)
        let entry = try #require((info.json as? [[String: Any]])?.first)
        #expect(entry["container"] as? String == "flac")
        #expect((entry["format"] as? [String: Any])?["id"] as? String == "flac")
        #expect(entry["frameCount"] as? Int == 22050)
        #expect((entry["metadata"] as? [String: Any])?["title"] as? String == "Stereo")

        let reference = try String(contentsOfFile: Command.fixtures + "/flac/stereo-tags.packets", encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",").compactMap { Int($0) } }
        let packets = try Command.run(["packets", "--json", file])
        #expect(packets.status == 0)
        let listed = try #require((packets.json as? [String: Any])?["packets"] as? [[String: Any]])
        #expect(listed.map { $0["offset"] as? Int ?? -1 } == reference.map { $0[1] })
        #expect(listed.map { $0["size"] as? Int ?? -1 } == reference.map { $0[0] })

        let validate = try Command.run(["validate", "--format", "json", "--profile", "game-sfx", file])
        let audio = ((validate.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["audio"] as? [String: Any]
        #expect(audio?["frames"] as? Int == 22050)

        let folder = try Loopback.temporaryFolder("flac")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let convert = try Command.run(["convert", file, folder + "/out.wav"])
        #expect(convert.status == 0, "\(convert.stderr)")
        let converted = try Command.run(["info", "--json", folder + "/out.wav"])
        #expect((converted.json as? [[String: Any]])?.first?["frameCount"] as? Int == 22050)
    }

    /// Random bytes named like a WAV file are no audio, and say so; nothing is converted.
    @Test func randomBytesAreNotAudio() throws {
        let folder = try Loopback.temporaryFolder("random")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var state: UInt64 = 0x5EED
        let bytes = (0..<200_000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/noise.wav"))
        let info = try Command.run(["info", folder + "/noise.wav"])
        #expect(info.status == 1)
        #expect(info.stderr.contains("not an audio file afkit recognises"))
        let convert = try Command.run(["convert", folder + "/noise.wav", folder + "/noise.caf"])
        #expect(convert.status == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/noise.caf"))
    }
}
