import AudioContainers
import AudioFormats
import LoopbackServers
import Testing

/// Seeking, discontinuities, translations and the asynchronous face of the push parser.
@Suite struct AudioFileStreamTests {
    /// Streams the header and some audio, seeks, and resumes from the packet's offset.
    func seekAndResume(_ name: String, toPacket packet: Int64) throws -> (
        first: RecordedEvent?, reference: [RecordedEvent]
    ) {
        let bytes = Fixture.named(name).bytes
        let reference = record(bytes, chunkSizes: [bytes.count]).events.filter {
            if case .packet = $0 { true } else { false }
        }
        var stream = AudioFileStream()
        var ready = false
        // Feed until the parser is ready to produce packets.
        var index = 0
        while !ready && index < bytes.count {
            try bytes[index..<min(index + 16, bytes.count)].withUnsafeBytes { chunk in
                try stream.parse(chunk) { event in
                    if case .propertyChanged(.readyToProducePackets, let properties) = event {
                        ready = true
                        #expect(properties.dataFormat != nil)
                    }
                }
            }
            index += 16
        }
        #expect(ready)
        let (offset, estimated) = try stream.seek(toPacket: packet)
        #expect(!estimated)
        var first: RecordedEvent?
        try bytes[Int(offset)...].withUnsafeBytes { rest in
            try stream.parse(rest, flags: .discontinuity) { event in
                guard first == nil, case .packets(let packets) = event else { return }
                #expect(packets.firstPacket == packet)
                let size = packets.descriptions.map { Int($0[0].dataByteSize) } ?? packets.bytes.count / packets.count
                first = .packet(
                    offset: packets.streamOffset + (packets.descriptions?[0].startOffset ?? 0), size: size,
                    frames: packets.descriptions?[0].variableFramesInPacket ?? 0)
            }
        }
        try stream.finish()
        return (first, reference)
    }

    @Test func seekInConstantPackets() throws {
        let (first, reference) = try seekAndResume("wav/pcm-s16-stereo.wav", toPacket: 300)
        #expect(first == reference[300])
    }

    @Test func seekInVariablePackets() throws {
        let (first, reference) = try seekAndResume("caf/sndfile-alac16.caf", toPacket: 2)
        #expect(first == reference[2])
    }

    @Test func seekPastTheEndIsAnError() throws {
        var stream = AudioFileStream()
        try stream.parse(Fixture.named("caf/sndfile-alac16.caf").bytes) { _ in }
        #expect(throws: AudioFileError.self) { try stream.seek(toPacket: 99) }
        var fresh = AudioFileStream()
        #expect(throws: AudioFileError.self) { try fresh.seek(toPacket: 0) }
    }

    @Test func packetFrameTranslations() throws {
        var stream = AudioFileStream()
        try stream.parse(Fixture.named("caf/ima4-stereo.caf").bytes) { _ in }
        #expect(stream.frame(ofPacket: 3) == 192)
        #expect(stream.packet(ofFrame: 200)! == (packet: 3, frameOffset: 8))
        #expect(try stream.byteOffset(ofPacket: 3) == 3 * 68)
    }

    @Test func readyComesBeforeThePacketsAndAfterTheFormat() {
        let events = record(Fixture.named("aiff/pcm-s16-stereo.aiff").bytes, chunkSizes: [100]).events
        let format = events.firstIndex(of: .property(.dataFormat))
        let ready = events.firstIndex(of: .property(.readyToProducePackets))
        let packet = events.firstIndex { if case .packet = $0 { true } else { false } }
        #expect(format != nil && ready != nil && packet != nil)
        #expect(format! < ready! && ready! < packet!)
    }

    @Test func errorsAreSticky() {
        var stream = AudioFileStream()
        var bytes = Fixture.named("caf/pcm-s16le-stereo.caf").bytes
        bytes[44] = 0  // zero channels
        bytes[45] = 0
        bytes[46] = 0
        bytes[47] = 0
        #expect(throws: AudioFileError.self) { try stream.parse(bytes) { _ in } }
        #expect(throws: AudioFileError.self) { try stream.parse(bytes) { _ in } }
        #expect(throws: AudioFileError.self) { try stream.finish() }
    }

    /// Junk might still lead to MPEG frames, so it is an error only once the stream ends without any; the
    /// error says the bytes are nothing afkit recognises.
    @Test func junkIsUnsupportedAtTheEnd() throws {
        var stream = AudioFileStream()
        try stream.parse([UInt8](repeating: 0x01, count: 64)) { _ in }
        #expect(stream.properties.fileType == nil)
        do {
            try stream.finish()
            Issue.record("64 bytes of junk made a stream")
        } catch let error as AudioFileError {
            #expect(error.code == "typ?")
            #expect(error.message.hasPrefix("not an audio file afkit recognises"))
            #expect(!error.message.contains("frame"))
        }
    }

    @Test func asyncSequenceOfChunks() async throws {
        let fixture = Fixture.named("caf/sndfile-alac16.caf")
        let bytes = fixture.bytes
        let chunks = AsyncStream<[UInt8]> { continuation in
            var index = 0
            while index < bytes.count {
                continuation.yield(Array(bytes[index..<min(index + 500, bytes.count)]))
                index += 500
            }
            continuation.finish()
        }
        var payload: [UInt8] = []
        var packets = 0
        var sawCookie = false
        for try await event in AudioFileStream.events(of: chunks) {
            switch event {
            case .packets(let run):
                payload += run.bytes
                packets += run.count
                #expect(run.descriptions?.count == run.count)
            case .propertyChanged(.magicCookie, let properties):
                sawCookie = properties.magicCookie?.count == 24
            case .propertyChanged:
                break
            }
        }
        #expect(sawCookie)
        #expect(packets == 3)
        #expect(Int64(crc32(payload)) == fixture.ffprobe.int("payloadCRC32"))
    }

    @Test func asyncSequenceOfSingleBytes() async throws {
        let fixture = Fixture.named("wav/ulaw-mono.wav")
        let bytes = fixture.bytes
        let stream = AsyncStream<UInt8> { continuation in
            for byte in bytes { continuation.yield(byte) }
            continuation.finish()
        }
        var payload: [UInt8] = []
        for try await event in AudioFileStream.events(ofBytes: stream, chunkSize: 37) {
            if case .packets(let run) = event { payload += run.bytes }
        }
        #expect(Int64(crc32(payload)) == fixture.ffprobe.int("payloadCRC32"))
    }
}

/// A CAF whose `pakt` follows `data`: held and replayed when the audio fits the retention limit; read
/// around the table by two seek requests when it does not and the client answers seeks; refused past
/// the limit when it does not.
@Suite struct PacketTableAfterAudioTests {
    static let original = Fixture.named("adts/aac-lc-in-caf.caf").bytes

    @Test func theAudioIsReadAfterItsTableForEveryChunking() throws {
        let bytes = try cafWithPacketTableLast(Self.original)
        let reference = record(Self.original, chunkSizes: [4096])
        #expect(reference.error == nil)
        var small = ParserLimits()
        small.maximumRetainedAudioBytes = 1024
        // The reordered file held whole: its packets (the original's, at the new offsets) and data offset.
        let held = record(bytes, chunkSizes: [bytes.count])
        let dataOffset = try #require(held.properties.dataOffset)
        #expect(held.payload == reference.payload)
        for sizes in [[1], [7, 333], [4096], [bytes.count]] {
            let held = record(bytes, chunkSizes: sizes)
            #expect(held.seekRequests.isEmpty)
            #expect(held.payload == reference.payload, "held, chunks \(sizes)")

            let sought = record(bytes, chunkSizes: sizes, limits: small, answeringSeeks: true)
            #expect(sought.error == nil, "\(sizes): \(String(describing: sought.error))")
            #expect(sought.payload == reference.payload, "sought, chunks \(sizes)")
            #expect(
                sought.events.filter { if case .packet = $0 { true } else { false } }
                    == held.events.filter { if case .packet = $0 { true } else { false } })
            #expect(sought.properties.packetTableInfo == reference.properties.packetTableInfo)
            // Past the audio to the table, then back to the audio's first byte.
            #expect(sought.seekRequests.count == 2)
            #expect(sought.seekRequests.last == dataOffset)

            let refused = record(bytes, chunkSizes: sizes, limits: small)
            #expect(refused.error?.code == "lim!", "\(sizes)")
        }
    }
}
