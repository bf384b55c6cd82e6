import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Wave64 and AU through the push parser at any chunking, and their lying headers refused with offsets.
@Suite struct Wave64AndAUParsingTests {
    @Test(arguments: [
        "ffmpeg-s16.w64", "sndfile-u8-odd.w64", "sox.w64", "sox-s24.au", "sndfile-le.au", "ffmpeg-pipe.au",
    ])
    func everyChunkingGivesTheSamePackets(name: String) throws {
        let bytes = Fixture.named("chunked/" + name).bytes
        let whole = record(bytes, chunkSizes: [bytes.count])
        #expect(whole.error == nil)
        #expect(!whole.payload.isEmpty)
        for sizes in [[1], [7, 3], [4096]] {
            let recording = record(bytes, chunkSizes: sizes)
            #expect(recording.error == nil, "\(name) \(sizes)")
            #expect(recording.payload == whole.payload, "\(name) \(sizes)")
            #expect(recording.properties.audioDataPacketCount == whole.properties.audioDataPacketCount)
        }
    }

    @Test func lyingHeadersAreTypedErrorsAtTheirOffsets() throws {
        let au = Fixture.named("chunked/sox-s16.au").bytes
        // A data offset inside the header.
        var inside = au
        inside[4...7] = [0, 0, 0, 8]
        let offsetError = try #require(record(inside, chunkSizes: [5]).error)
        #expect(offsetError.code == "dta?" && offsetError.offset == 4)
        // G.721 ADPCM: named, refused.
        var adpcm = au
        adpcm[12...15] = [0, 0, 0, 23]
        let encodingError = try #require(record(adpcm, chunkSizes: [4096]).error)
        #expect(encodingError.code == "fmt?" && encodingError.message.contains("G.721"))
        // A data offset of 2 GB: the annotation is stepped over, never held; the stream ends inside it.
        var far = au
        far[4...7] = [0x7F, 0xFF, 0xFF, 0xFF]
        let farRecording = record(far, chunkSizes: [7])
        #expect(farRecording.payload.isEmpty)
        // Zero channels.
        var none = au
        none[20...23] = [0, 0, 0, 0]
        #expect(record(none, chunkSizes: [4096]).error?.code == "dta?")

        let w64 = Fixture.named("chunked/ffmpeg-s16.w64").bytes
        // The first chunk (fmt, at 40) claims fewer bytes than its own header.
        var short = w64
        short[56...63] = [16, 0, 0, 0, 0, 0, 0, 0]
        let chunkError = try #require(record(short, chunkSizes: [9]).error)
        #expect(chunkError.code == "chk?" && chunkError.offset == 56)
        // A chunk that claims 2^62 bytes: skipped, never allocated; the file ends inside it.
        var huge = w64
        huge[56...63] = [0, 0, 0, 0, 0, 0, 0, 0x40]
        let hugeRecording = record(huge, chunkSizes: [4096])
        #expect(hugeRecording.payload.isEmpty)
    }
}
