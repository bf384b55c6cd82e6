import AudioContainers
import AudioFormats
import Testing

/// The push parser's result never depends on how the input is cut.
@Suite struct ChunkingInvarianceTests {
    static let chunkings: [[Int]] = [[1], [2], [3], [7], [64], [4096], [1, 4095, 2, 13]]

    @Test(arguments: Fixture.all(in: ["wav", "aiff", "caf", "mp3", "adts"]))
    func sameEventsForEveryChunkSize(_ fixture: Fixture) throws {
        let bytes = fixture.bytes
        let whole = record(bytes, chunkSizes: [bytes.count])
        #expect(whole.error == nil)
        let wholeSummary = try AudioFileSummary(whole.properties)
        var chunkings = Self.chunkings
        var random = SplitMix64(seed: UInt64(bytes.count))
        for _ in 0..<3 { chunkings.append((0..<16).map { _ in Int.random(in: 1...300, using: &random) }) }
        for sizes in chunkings {
            let chunked = record(bytes, chunkSizes: sizes)
            #expect(chunked.error == nil, "\(sizes)")
            #expect(chunked.events == whole.events, "chunk sizes \(sizes)")
            #expect(chunked.payload.elementsEqual(whole.payload), "chunk sizes \(sizes)")
            let summary = try AudioFileSummary(chunked.properties)
            #expect(summary == wholeSummary)
        }
    }

    /// Small files: every split into two pieces.
    @Test(arguments: Fixture.all().filter { $0.bytes.count <= 1100 })
    func everySinglePoint(_ fixture: Fixture) {
        let bytes = fixture.bytes
        let whole = record(bytes, chunkSizes: [bytes.count])
        for split in 1..<bytes.count {
            let pieces = record(bytes, chunkSizes: [split, bytes.count])
            #expect(pieces.events == whole.events, "split at \(split)")
            #expect(pieces.payload.elementsEqual(whole.payload), "split at \(split)")
        }
    }

    /// Cut short anywhere: whole or byte by byte, the same properties or the same error and offset.
    @Test(arguments: [
        "wav/list-info.wav", "aiff/sox-s16-comment.aiff", "caf/sndfile-alac16.caf", "wav/rf64-s16-stereo.wav",
        "mp3/lame-vbr-v9.mp3", "mp3/hostile-garbage-between-frames.mp3", "adts/aac-lc-id3v2.aac",
        "mp3/lame-freeformat.mp3",
    ])
    func truncationIsChunkingInvariant(_ name: String) {
        let bytes = Fixture.named(name).bytes
        for length in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 300)) {
            let prefix = Array(bytes[0..<length])
            let whole = record(prefix, chunkSizes: [max(length, 1)])
            let drip = record(prefix, chunkSizes: [1])
            #expect(whole.error == drip.error, "cut at \(length)")
            #expect(whole.events == drip.events, "cut at \(length)")
            #expect(whole.properties.isTruncated == drip.properties.isTruncated, "cut at \(length)")
        }
    }
}
