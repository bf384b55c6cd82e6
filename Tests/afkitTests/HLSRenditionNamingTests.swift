import Foundation
import LoopbackServers
import Testing

/// Renditions as Apple's authoring specification asks (issue 69): one NAME and LANGUAGE for every bit rate of
/// the same content, each in its own GROUP-ID tied to its variant; validate requires LANGUAGE.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HLSRenditionNamingTests {
    @Test func everyRateSharesOneNameAndLanguage() throws {
        let folder = try Loopback.temporaryFolder("hls-names")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run([
            "hls", "--bitrates", "64k,96k", "--language", "pt-BR", "--name", "Português", "--duration", "3",
            "signals/speech.wav", "--out", folder + "/pkg",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let master = try String(contentsOfFile: folder + "/pkg/master.m3u8", encoding: .utf8)
        let media = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:") }
        #expect(media.count == 2)
        #expect(media.allSatisfy { $0.contains("NAME=\"Português\"") && $0.contains("LANGUAGE=\"pt-BR\"") })
        #expect(
            Set(media.compactMap { $0.components(separatedBy: "GROUP-ID=\"").last?.prefix { $0 != "\"" } }).count == 2)
        let checked = try Command.run(["validate", "--profile", "hls-audio", folder + "/pkg/master.m3u8"])
        #expect(checked.status == 0, "\(checked.stdout)")
        // Without LANGUAGE: an error naming the rendition.
        try Data(master.replacingOccurrences(of: ",LANGUAGE=\"pt-BR\"", with: "").utf8).write(
            to: URL(fileURLWithPath: folder + "/pkg/bare.m3u8"))
        let bare = try Command.run(["validate", "--profile", "hls-audio", folder + "/pkg/bare.m3u8"])
        #expect(bare.status == 1 && bare.stdout.contains("has no LANGUAGE"), "\(bare.stdout)")
        // Undetermined ("und", hls's default): one warning for the package's renditions, naming their groups (it
        // was said once a rendition, the same words twice).
        try Data(master.replacingOccurrences(of: "LANGUAGE=\"pt-BR\"", with: "LANGUAGE=\"und\"").utf8).write(
            to: URL(fileURLWithPath: folder + "/pkg/und.m3u8"))
        let und = try Command.run(["validate", "--profile", "hls-audio", folder + "/pkg/und.m3u8"])
        let warnings = und.stdout.split(separator: "\n").filter { $0.contains("LANGUAGE \"und\"") }
        #expect(und.status == 0 && warnings.count == 1, "\(und.stdout)")
        #expect(warnings.first?.contains("renditions 'Português' (GROUP-IDs ") == true, "\(und.stdout)")
        // A tag that is no language tag is a usage error.
        let wrong = try Command.run(["hls", "--language", "english!", "signals/speech.wav", "--out", folder + "/x"])
        #expect(wrong.status == 2 && wrong.stderr.contains("BCP 47"))
        // A word is no language tag either; ISO 639-2's three letters become ISO 639-1's two, with a note.
        let word = try Command.run(["hls", "--language", "english", "signals/speech.wav", "--out", folder + "/x"])
        #expect(word.status == 2 && word.stderr.contains("BCP 47"), "\(word.stderr)")
        let spanish = try Command.run([
            "hls", "--language", "spa", "--duration", "1", "signals/speech.wav", "--out", folder + "/es",
        ])
        #expect(spanish.status == 0 && spanish.stderr.contains("LANGUAGE es for --language spa"), "\(spanish.stderr)")
        let written = try String(contentsOfFile: folder + "/es/master.m3u8", encoding: .utf8)
        #expect(written.contains("LANGUAGE=\"es\""))
        // No channels made up: -c above the source's is refused, as --renditions' are.
        let up = try Command.run(["hls", "-c", "6", "signals/speech.wav", "--out", folder + "/up"])
        #expect(up.status == 2 && up.stderr.contains("mixes down, never up"), "\(up.stderr)")
    }

    /// Sources packaged side by side get folders named by their bytes: a hidden stem (`.afkit-package.wav`, named
    /// like the package marker) is refused, and `café` composed and decomposed are two names, two folders.
    @Test func sourceFoldersAreNamedByTheirBytes() throws {
        let folder = try Loopback.temporaryFolder("hls-stems")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let speech = Command.fixtures + "/signals/speech.wav"
        let names = [".afkit-package.wav", "plain.wav", "caf\u{E9}.wav", "cafe\u{301}.wav"]
        for name in names { try FileManager.default.copyItem(atPath: speech, toPath: folder + "/" + name) }
        let hidden = try Command.run([
            "hls", "--duration", "1", folder + "/.afkit-package.wav", folder + "/plain.wav", "--out", folder + "/a",
        ])
        #expect(hidden.status == 2 && hidden.stderr.contains("a hidden name"), "\(hidden.stderr)")
        let accents = try Command.run([
            "hls", "--duration", "1", folder + "/caf\u{E9}.wav", folder + "/cafe\u{301}.wav", "--out", folder + "/b",
        ])
        #expect(accents.status == 0, "\(accents.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: folder + "/b").filter { !$0.hasPrefix(".") }
        #expect(made.count == 2, "\(made)")
    }
}
