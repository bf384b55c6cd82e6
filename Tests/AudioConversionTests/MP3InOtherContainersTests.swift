import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats
import Foundation
import Testing

/// MP3 written into CAF (which `-hf` lists for caff): LAME's tag frame belongs to an MP3 file only, so in CAF
/// the stream starts with audio and CAF's `pakt` states the priming. Its frames decode to exactly those of the
/// same encoding in an MP3 file (where the tag frame carries the gapless information), every sample.
@Suite struct MP3InOtherContainersTests {
    @Test func mp3InCAFDecodesAsTheMP3FileDoes() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        try AudioConverter.convert(input: source, output: folder.path + "/a.mp3", settings: settings(".mp3"))
        try AudioConverter.convert(input: source, output: folder.path + "/a.caf", settings: settings(".mp3"))
        let caf = try AudioFile(path: folder.path + "/a.caf")
        #expect(caf.dataFormat.formatID == .mpegLayer3)
        let frames = try AudioFile(path: source).properties.validFrameCount
        #expect(caf.properties.validFrameCount == frames)
        let fromMP3 = try decodedSamples(folder.path + "/a.mp3")
        let fromCAF = try decodedSamples(folder.path + "/a.caf")
        #expect(fromCAF.count == Int(frames ?? 0))
        #expect(fromCAF == fromMP3)
    }
}
