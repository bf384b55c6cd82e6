import AssetValidation
import AudioFileKit
import Foundation
import Testing

/// The validator as a Swift program makes it: the defaults never pass what they did not check, and the one
/// initializer with every engine checks it.
@Suite struct LibraryValidatorTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/" + name).path
    }

    /// A quiet MP3 (-60 LUFS by FFmpeg's meter): the bare validator cannot decode it or measure loudness, and says so
    /// for each audio rule; the standard one finds it too quiet.
    @Test func theDefaultsListWhatTheyCouldNotCheck() throws {
        let path = Self.fixture("library/quiet-speech.mp3")
        let bare = AssetValidator(profile: .music).validate(path: path)
        let audioRules = Profile.music.entries.filter { entry in
            entry.enabled
                && (ValidationRule.builtIn[entry.rule].map { $0.needsDecodedAudio || $0.needsLoudness } ?? false)
        }.map(\.rule)
        #expect(audioRules.contains("loudness"))
        #expect(Set(bare.unchecked.map(\.rule)) == Set(audioRules))
        #expect(bare.unchecked.allSatisfy { $0.reason.contains("AssetValidator(standard:)") })
        #expect(!bare.violations.contains { $0.rule == "loudness" })
        let report = ValidationReport(profile: "music", files: [bare])
        #expect(report.text.contains("not checked: loudness: no decoder for '.mp3'"))
        #expect(report.text.hasSuffix("rules not checked\n"))
        #expect(report.json.serialized().contains("\"unchecked\""))
        #expect(report.junit.contains("not checked: loudness"))
        #expect(report.github.contains("::notice file="))

        let standard = AssetValidator(standard: .music).validate(path: path)
        #expect(standard.unchecked.isEmpty)
        let loudness = try #require(standard.violations.first { $0.rule == "loudness" })
        #expect(loudness.message.contains("LUFS"))
        #expect(!standard.ok || loudness.severity == .warning)
    }

    /// A format the pure-Swift decoders read (FLAC) is checked by the bare validator, but for loudness.
    @Test func theBareValidatorChecksWhatItCan() throws {
        let report = AssetValidator(profile: .music).validate(path: Self.fixture("flac/speech.flac"))
        #expect(report.unchecked.map(\.rule).contains("loudness"))
        #expect(report.unchecked.allSatisfy { $0.reason.contains("loudness meter") })
        #expect(report.audio != nil)
    }
}

/// A reader given afkit's own decoders names the product that has the codec it lacks.
@Suite struct ProductErrorTests {
    @Test func aMissingDecoderNamesTheProduct() throws {
        let file = try AudioFile(path: LibraryValidatorTests.fixture("library/quiet-speech.mp3"))
        do {
            _ = try SourceReader(file: file, registry: .builtIn)
            Issue.record("afkit's own decoders read MP3")
        } catch let error as AudioFileError {
            #expect(error.code == "fmt?")
            #expect(error.message.contains("MP3"))
            #expect(error.message.contains("AudioEngines product"))
        }
        #expect(try SourceReader(file: file, registry: .standard).frameCount ?? 0 > 0)
    }
}
