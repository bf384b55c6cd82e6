import AudioContainers
import AudioFormats
import Testing

/// Every committed fixture parses to what FFmpeg's demuxer and the variant's known format say.
@Suite struct FixtureTests {
    static let fixtures = Fixture.all()
    static let allContainers = Fixture.all(in: ["wav", "aiff", "caf", "mp3", "adts"])

    @Test func fixturesArePresent() {
        #expect(Self.fixtures.count >= 40)
    }

    @Test(arguments: fixtures)
    func fileAPIMatchesReference(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let properties = file.properties
        let expected = fixture.expected
        let probe = fixture.ffprobe
        let format = try #require(properties.dataFormat)
        #expect(properties.fileType?.rawValue == expected.string("container"))
        #expect(format.formatID.description == expected.string("formatID"))
        #expect(format.sampleRate == Double(expected.int("sampleRate") ?? -1))
        #expect(Int64(format.channelsPerFrame) == expected.int("channels"))
        for (key, value) in [
            ("bitsPerChannel", format.bitsPerChannel), ("framesPerPacket", format.framesPerPacket),
            ("bytesPerPacket", format.bytesPerPacket), ("bytesPerFrame", format.bytesPerFrame),
            ("flags", format.formatFlags.rawValue),
        ] {
            if let want = expected.int(key) { #expect(Int64(value) == want, "\(key)") }
        }
        // FFmpeg's first packet position is the data offset; its packets add up to the audio bytes.
        #expect(properties.dataOffset == probe.int("firstPacketPosition"))
        #expect(properties.audioDataByteCount == probe.int("packetBytes"))
        #expect(properties.validFrameCount == expected.int("frameCount"))
        #expect(!properties.isTruncated)
        if !format.hasConstantPackets {
            // Variable packets: FFmpeg demuxes one packet per table entry.
            #expect(properties.audioDataPacketCount == probe.int("packetCount"))
        }
    }

    @Test(arguments: fixtures)
    func streamedPacketsCarryFFmpegsPayload(_ fixture: Fixture) throws {
        let recording = record(fixture.bytes, chunkSizes: [4096])
        #expect(recording.error == nil)
        // The packet bytes handed out, in order, are exactly the payload FFmpeg demuxes.
        #expect(Int64(crc32(recording.payload)) == fixture.ffprobe.int("payloadCRC32"))
        #expect(Int64(recording.payload.count) == fixture.ffprobe.int("packetBytes"))
        let packets = recording.events.filter { if case .packet = $0 { true } else { false } }
        #expect(Int64(packets.count) == recording.properties.audioDataPacketCount)
    }

    @Test(arguments: fixtures)
    func fileAndStreamAgree(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let stream = record(fixture.bytes, chunkSizes: [333]).properties
        let a = try AudioFileSummary(file.properties)
        let b = try AudioFileSummary(stream)
        #expect(a == b)
    }

    @Test func metadataFromListInfo() throws {
        let info = try AudioFile(path: Fixture.named("wav/list-info.wav").path).properties.infoDictionary
        #expect(info["title"] == "Chime")
        #expect(info["artist"] == "afkit")
        #expect(info["comments"] == "fixture")
    }

    @Test func aiffComment() throws {
        let properties = try AudioFile(path: Fixture.named("aiff/sox-s16-comment.aiff").path).properties
        #expect(properties.infoDictionary.values.contains("made by sox"))
    }

    @Test func extensibleChannelMask() throws {
        let layout = try #require(
            try AudioFile(path: Fixture.named("wav/extensible-5.1.wav").path).properties.channelLayout)
        #expect(layout.tag == ChannelLayout.Tag.useChannelBitmap)
        #expect(layout.bitmap == 0x3F)
        #expect(layout.channelCount == 6)
    }

    @Test func cafPacketTableAndCookie() throws {
        let file = try AudioFile(path: Fixture.named("caf/sndfile-alac16.caf").path)
        let table = try #require(file.properties.packetTableInfo)
        #expect(table.validFrames == 8820)
        #expect(table.primingFrames == 0)
        #expect(Int64(table.remainderFrames) == 3 * 4096 - 8820)
        #expect(file.properties.magicCookie?.count == 24)
        // Packet descriptions tile the audio data exactly.
        var next = file.properties.dataOffset ?? -1
        for packet in 0..<file.packetCount {
            let description = try file.packetDescription(packet)
            #expect(description.startOffset == next)
            next += Int64(description.dataByteSize)
        }
        #expect(next == (file.properties.dataOffset ?? 0) + (file.properties.audioDataByteCount ?? 0))
    }

    @Test func streamingSizesThatMeanToTheEnd() throws {
        let wav = try AudioFile(path: Fixture.named("wav/stream-unknown-size.wav").path).properties
        #expect(wav.audioDataByteCount == 800)
        #expect(!wav.isTruncated)
        #expect(wav.trace.contains("0xFFFFFFFF"))
        let caf = try AudioFile(path: Fixture.named("caf/stream-size-minus-1.caf").path).properties
        #expect(caf.audioDataByteCount == 800)
    }

    @Test func readPacketsMatchesStreamedBytes() throws {
        let fixture = Fixture.named("caf/alac-stereo.caf")
        let file = try AudioFile(path: fixture.path)
        let (bytes, descriptions) = try file.readPackets(from: 0, count: Int(file.packetCount))
        #expect(descriptions.count == Int(file.packetCount))
        #expect(crc32(bytes) == UInt32(fixture.ffprobe.int("payloadCRC32") ?? 0))
    }
}
