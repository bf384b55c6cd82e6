@testable import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import FileAccess
import Testing

/// Corners of the three containers that the tool-made fixtures do not reach.
@Suite struct ContainerDetailTests {
    @Test(arguments: [("ULAW", "ulaw"), ("ALAW", "alaw"), ("FL32", "lpcm"), ("none", "lpcm"), ("twos", "lpcm")])
    func aifcCompressionSpellings(_ spelling: String, _ formatID: String) throws {
        let name =
            spelling == "FL32"
            ? "aiff/fl32.aifc"
            : spelling.hasPrefix("A") || spelling == "ULAW"
                ? "aiff/\(spelling.lowercased()).aifc" : "aiff/sowt.aifc"
        var bytes = Fixture.named(name).bytes
        let comm = try #require(findChunk(bytes, "COMM", big: true, start: 12))
        bytes.replaceSubrange(comm + 26..<comm + 30, with: Array(spelling.utf8))
        let properties = record(bytes, chunkSizes: [64]).properties
        #expect(properties.dataFormat?.formatID.description == formatID)
        if spelling == "none" || spelling == "twos" {
            // 'sowt' said little-endian; NONE and twos are big-endian.
            #expect(properties.dataFormat?.formatFlags.contains(.isBigEndian) == true)
        }
    }

    @Test func unknownAIFCCompressionIsUnsupported() throws {
        var bytes = Fixture.named("aiff/sowt.aifc").bytes
        let comm = try #require(findChunk(bytes, "COMM", big: true, start: 12))
        bytes.replaceSubrange(comm + 26..<comm + 30, with: Array("XYZ9".utf8))
        let error = record(bytes, chunkSizes: [4096]).error
        #expect(error?.code == "fmt?")
        #expect(error?.message.contains("XYZ9") == true)
    }

    @Test func aiffMarkersAndTextRoundTrip() throws {
        let path = temporaryPath("markers.aiff")
        defer { removeTestFile(path) }
        var options = AudioFileWriterOptions()
        options.markers = [
            Marker(id: 1, framePosition: 0, name: "start"), Marker(id: 2, framePosition: 441, name: "loop"),
        ]
        options.metadata = ["title": "Chime", "artist": "afkit", "copyright": "(c) 2026", "comments": "a note"]
        let format = StreamDescription.linearPCM(sampleRate: 44100, channels: 1, bitsPerChannel: 16, isBigEndian: true)
        let writer = try AudioFileWriter(path: path, fileType: .aiff, format: format, options: options)
        try writer.writePackets([UInt8](repeating: 1, count: 2000))
        try writer.close()
        let properties = try AudioFile(path: path).properties
        #expect(properties.markers == options.markers)
        #expect(properties.infoDictionary == options.metadata)
        #expect(try SoundFile(path: path).info.frames == 1000)
    }

    @Test func aiffCommentsChunkAndSoundOffset() throws {
        // COMM, a COMT with two comments, and SSND whose audio starts 4 bytes in (offset field).
        var bytes: [UInt8] = Array("FORM".utf8) + [0, 0, 0, 0] + Array("AIFF".utf8)
        bytes += Array("COMM".utf8) + [0, 0, 0, 18, 0, 1, 0, 0, 0, 3, 0, 16] + Extended80(8000).bytes
        var comments: [UInt8] = [0, 2]
        for text in ["first", "second!"] {
            comments += [0, 0, 0, 0, 0, 0, 0, UInt8(text.utf8.count)] + Array(text.utf8)
            if text.utf8.count % 2 == 1 { comments.append(0) }
        }
        bytes += Array("COMT".utf8) + [0, 0, 0, UInt8(comments.count)] + comments
        bytes += Array("SSND".utf8) + [0, 0, 0, 18, 0, 0, 0, 4, 0, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3, 4, 5, 6]
        bytes.put(UInt32(bytes.count - 8), at: 4, big: true)
        for chunk in [1, 3, bytes.count] {
            let result = record(bytes, chunkSizes: [chunk])
            #expect(result.error == nil)
            #expect(result.payload == [1, 2, 3, 4, 5, 6])
            #expect(result.properties.infoDictionary["comments"] == "first\nsecond!")
            #expect(result.properties.dataOffset == Int64(bytes.count - 6))
        }
    }

    @Test func cafSkipsFreeUUIDAndUnknownChunks() throws {
        let original = Fixture.named("caf/pcm-s16be-mono.caf").bytes
        var extra: [UInt8] = []
        for (type, size) in [("free", 10), ("uuid", 20), ("zzzz", 3)] {
            extra += Array(type.utf8)
            extra.appendInteger(Int64(size), endianness: .big)
            extra += [UInt8](repeating: 0xEE, count: size)
        }
        var bytes = original
        bytes.insert(contentsOf: extra, at: 8 + 44)  // right after 'desc'
        let reference = record(original, chunkSizes: [4096])
        let result = record(bytes, chunkSizes: [5])
        #expect(result.error == nil)
        #expect(result.payload == reference.payload)
        #expect(result.properties.dataOffset == (reference.properties.dataOffset ?? 0) + Int64(extra.count))
        #expect(result.properties.trace.records.contains { $0.chunk == "zzzz" && $0.note.contains("unknown") })
    }

    @Test func wavBecomesRF64PastFourGiB() throws {
        let format = StreamDescription.linearPCM(sampleRate: 48000, channels: 2, bitsPerChannel: 24)
        let size: Int64 = 5 << 30 + 6
        let counts = WrittenCounts(
            dataByteCount: size, packetCount: size / 6, packetSizes: [], packetFrames: [],
            packetTableInfo: nil, isProvisional: false)
        let small = try WAVE.layout(
            format: format, options: AudioFileWriterOptions(),
            counts: WrittenCounts(
                dataByteCount: 600, packetCount: 100, packetSizes: [], packetFrames: [],
                packetTableInfo: nil, isProvisional: false), forceRF64: false)
        let large = try WAVE.layout(format: format, options: AudioFileWriterOptions(), counts: counts, forceRF64: false)
        // Same header length: the reserved JUNK chunk became ds64 in place.
        #expect(small.header.count == large.header.count)
        #expect(Array(small.header[0..<4]) == Array("RIFF".utf8))
        #expect(Array(small.header[12..<16]) == Array("JUNK".utf8))
        #expect(Array(large.header[0..<4]) == Array("RF64".utf8))
        #expect(Array(large.header[12..<16]) == Array("ds64".utf8))
        // Our parser reads the header as a 5 GiB stream whose audio has not arrived.
        let result = record(large.header, chunkSizes: [7])
        #expect(result.error == nil)
        #expect(result.properties.fileType == .rf64)
        #expect(result.properties.isTruncated)
        var stream = AudioFileStream()
        var declared: Int64?
        try stream.parse(large.header) { event in
            if case .propertyChanged(.audioDataByteCount, let properties) = event {
                declared = properties.audioDataByteCount
            }
        }
        #expect(declared == size)
        #expect(stream.properties.audioDataByteCount == size)
        #expect(stream.properties.audioDataPacketCount == size / 6)
        // A file written with a small size estimate has no room and refuses to pass 4 GiB.
        var options = AudioFileWriterOptions()
        options.estimatedDataByteCount = 1000
        #expect(throws: AudioFileError.self) {
            try WAVE.layout(format: format, options: options, counts: counts, forceRF64: false)
        }
        let compact = try WAVE.layout(
            format: format, options: options,
            counts: WrittenCounts(
                dataByteCount: 600, packetCount: 100, packetSizes: [], packetFrames: [],
                packetTableInfo: nil, isProvisional: false), forceRF64: false)
        #expect(compact.header.count == small.header.count - 36)
    }

    @Test func bitRateIsAnnounced() {
        let events = record(Fixture.named("wav/pcm-s16-stereo.wav").bytes, chunkSizes: [4096]).events
        #expect(events.contains(.property(.bitRate)))
    }
}
