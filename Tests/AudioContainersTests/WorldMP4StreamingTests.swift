import AudioContainers
import AudioFormats
import Foundation
import StreamParsing
import Testing

/// The MP4 and QuickTime classes of issue 66 (Tests/Fixtures/world-classes, made by make-world-mp4-fixtures.sh)
/// read by the push parser as the file API reads them, at any chunking, with and without a client that answers
/// seeks: the same format (MP3's channels from its first frame, whenever its bytes arrive), packets and counts.
@Suite struct WorldMP4StreamingTests {
    static let names = [
        "aac-stz2-16.m4a", "opus-stz2-4.mp4", "sowt-v0-frames.mov", "twos-v0-chunk-samples.mov",
        "ulaw-v0-chunk-samples.mov",
        "ima4-v1-frames.mov", "mp3-mono.mp4", "mp3-mono-dotmp3.mov", "mp2-mono.mp4", "ipcm-s16le-stereo.mp4",
        "vorbis.mp4",
        "mdat-first.mov", "broken-metadata.m4a", "truncated.m4a", "dts.mp4", "mp3-mono-fragmented.mp4",
        "eac3-one-block-fragmented.mp4",
    ]

    @Test(arguments: names)
    func streamingGivesTheFilesReading(_ name: String) throws {
        let fixture = Fixture.named("world-classes/" + name)
        let file = try AudioFile(path: fixture.path)
        let expected = try (0..<file.packetCount).map { index -> RecordedEvent in
            let description = try file.packetDescription(index)
            return .packet(offset: description.startOffset, size: Int(description.dataByteSize), frames: 0)
        }
        let bytes = fixture.bytes
        var random = SplitMix64(seed: 0x66_4D50)
        let randomSizes = (0..<32).map { _ in Int.random(in: 1...700, using: &random) }
        for sizes in [[1], [7], [4096], randomSizes] {
            for answeringSeeks in [false, true] {
                let recording = record(bytes, chunkSizes: sizes, answeringSeeks: answeringSeeks)
                let place = "\(name), chunks \(sizes.prefix(2)), seeks \(answeringSeeks)"
                #expect(recording.error == nil, "\(place): \(String(describing: recording.error))")
                let packets = recording.events.compactMap { event -> RecordedEvent? in
                    guard case .packet(let offset, let size, _) = event else { return nil }
                    return .packet(offset: offset, size: size, frames: 0)
                }
                #expect(packets == expected, "\(place)")
                #expect(recording.properties.dataFormat == file.dataFormat, "\(place)")
                #expect(recording.properties.validFrameCount == file.properties.validFrameCount, "\(place)")
                #expect(recording.properties.isTruncated == file.properties.isTruncated, "\(place)")
                #expect(recording.properties.notRead == file.properties.notRead, "\(place)")
            }
        }
    }
}
