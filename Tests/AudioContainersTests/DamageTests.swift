@testable import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Whole or said (issue 53), as a new user's damaged files found it: bytes after the last frame, a size its
/// writer never filled in, a metadata chunk cut by the end, a last granule that counts too much. Each file is a
/// committed fixture changed here the way the damage changes it.
@Suite struct DamageTests {
    /// Patches a 32-bit size at the `id` chunk's size field (little- or big-endian).
    static func patchingSize(_ bytes: [UInt8], of id: String, to size: UInt32, bigEndian: Bool) throws -> [UInt8] {
        var bytes = bytes
        let tag = Array(id.utf8)
        let at = try #require((0..<bytes.count - 8).first { Array(bytes[$0..<$0 + 4]) == tag })
        let field = (0..<4).map { UInt8(truncatingIfNeeded: size >> (bigEndian ? 24 - 8 * $0 : 8 * $0)) }
        bytes.replaceSubrange(at + 4..<at + 8, with: field)
        return bytes
    }

    /// Zeros or junk after an MP3's last frame: that frame is kept (it was dropped, with the LAME header's
    /// end padding taken from the frame before), the file is neither damaged nor truncated.
    @Test func bytesAfterTheLastMP3FrameKeepIt() throws {
        let clean = Fixture.named("pictures/ffmpeg-apic-v24.mp3").bytes
        let whole = record(clean, chunkSizes: [4096]).properties
        var random = SplitMix64(seed: 3)
        for tail in [
            [UInt8](repeating: 0, count: 128), (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) },
        ] {
            for chunk in [7, 4096] {
                let padded = record(clean + tail, chunkSizes: [chunk]).properties
                #expect(padded.audioDataPacketCount == whole.audioDataPacketCount, "\(tail.count) bytes, \(chunk)")
                #expect(padded.validFrameCount == whole.validFrameCount)
                #expect(!padded.isTruncated && !padded.isDamaged)
            }
        }
    }

    /// A WAV whose `data` size is 0 (a recording never finished) reads to the end, as FFmpeg reads it, and says
    /// so; an AIFF whose SSND holds no audio under a COMM that counts frames reads what COMM counts.
    @Test func aSizeNeverFilledInReadsTheAudioAndSaysSo() throws {
        let wav = Fixture.named("wav/float32-stereo.wav").bytes
        let wavWhole = record(wav, chunkSizes: [4096]).properties
        let unset = record(try Self.patchingSize(wav, of: "data", to: 0, bigEndian: false), chunkSizes: [4096])
        #expect(unset.properties.validFrameCount == wavWhole.validFrameCount)
        #expect(unset.properties.damage.contains { $0.contains("states 0 bytes (a recording never finished)") })
        let aiff = Fixture.named("aiff/pcm-s16-stereo.aiff").bytes
        let aiffWhole = record(aiff, chunkSizes: [4096]).properties
        let empty = record(try Self.patchingSize(aiff, of: "SSND", to: 8, bigEndian: true), chunkSizes: [4096])
        #expect(empty.properties.validFrameCount == aiffWhole.validFrameCount)
        #expect(empty.properties.damage.contains { $0.contains("a recording never finished") })
    }

    /// A WAV whose `id3 ` chunk (tags, a cover) is cut by the end of the file: the audio is whole, and the lost
    /// tags are said (they went without a word).
    @Test func aTagChunkCutByTheEndIsSaid() throws {
        let tagged = Fixture.named("pictures/mutagen-id3.wav").bytes
        let cut = record(Array(tagged.dropLast(500)), chunkSizes: [4096]).properties
        #expect(cut.validFrameCount == record(tagged, chunkSizes: [4096]).properties.validFrameCount)
        #expect(cut.damage.contains { $0.contains("'id3 ' chunk") && $0.contains("cut short by the end of the file") })
    }

    /// An Ogg file whose last page counts far more frames than its packets hold (ffprobe takes it for the
    /// duration): the decoded frames count, and the lie is said.
    @Test func aLastGranuleThatCountsTooMuchIsSaid() throws {
        var bytes = Fixture.named("ogg/oggenc-stereo.ogg").bytes
        let clean = record(bytes, chunkSizes: [4096]).properties
        let last = try #require((0..<bytes.count - 4).last { bytes[$0..<$0 + 4].elementsEqual("OggS".utf8) })
        let granule = UInt64(99_999_999)
        bytes.replaceSubrange(
            last + 6..<last + 14, with: (0..<8).map { UInt8(truncatingIfNeeded: granule >> (8 * $0)) })
        bytes.replaceSubrange(last + 22..<last + 26, with: [0, 0, 0, 0])
        let checksum = bytes[last...].withUnsafeBytes { Ogg.pageChecksum($0) }
        bytes.replaceSubrange(
            last + 22..<last + 26, with: (0..<4).map { UInt8(truncatingIfNeeded: checksum >> (8 * $0)) })
        let lying = record(bytes, chunkSizes: [4096]).properties
        #expect(
            lying.validFrameCount
                == clean.validFrameCount.map { $0 + Int64(clean.packetTableInfo?.remainderFrames ?? 0) })
        #expect(lying.damage.contains { $0.contains("the last granule position says") }, "\(lying.damage)")
    }

    /// ID3v2.4's several values in one text frame (mutagen's TPE1 of two artists): both, as repeated Vorbis
    /// fields read ("A1; A2"); ffprobe keeps the first only.
    @Test func severalValuesOfAFrameAreAllRead() {
        let frame: [UInt8] = [3] + Array("A1".utf8) + [0] + Array("A2".utf8)
        #expect(ID3.text(frame) == "A1; A2")
        #expect(ID3.text([3] + Array("One".utf8) + [0]) == "One")
    }

    /// ID3's genre numbers are the genres' names ("(17)" is Rock), as ffprobe and mutagen read them.
    @Test func genreNumbersAreNamed() {
        #expect(
            ID3.genre("(17)") == "Rock" && ID3.genre("17") == "Rock" && ID3.genre("(17)Rock Ballad") == "Rock Ballad")
        #expect(ID3.genre("(79)(RX)") == "Hard Rock, Remix" && ID3.genre("Ambient Techno") == "Ambient Techno")
    }
}
