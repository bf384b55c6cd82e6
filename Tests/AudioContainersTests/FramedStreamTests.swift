import AudioContainers
import AudioFormats
import Foundation
import Testing

/// AC-3, E-AC-3 and AMR through the push parser, against files made by FFmpeg and SoX
/// (Fixtures/make-framed-fixtures.sh): ffprobe's packets at any chunking, FFmpeg's frame counts.
@Suite struct FramedStreamTests {
    static let files = [
        "stereo-48k.ac3", "stereo-44k.ac3", "surround-5.1.ac3", "stereo.eac3", "surround-5.1.eac3", "speech.amr",
        "speech-4k75.amr", "amr.3gp", "aac.3gp", "speech.loas", "stereo.loas", "speech-wb.amr",
    ]

    @Test(arguments: files)
    func framesAreFFprobesPacketsAtEveryChunking(name: String) throws {
        let bytes = Fixture.named("framed/" + name).bytes
        let expected = try ffprobePackets("framed/\(name).packets")
        #expect(!expected.isEmpty)
        for chunk in [1, 7, 4096] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil, "\(name) at \(chunk)")
            #expect(recording.packetList.map(\.offset) == expected.map(\.offset), "\(name) at \(chunk)")
            #expect(recording.packetList.map(\.size) == expected.map(\.size), "\(name) at \(chunk)")
        }
        let file = try AudioFile(path: Fixture.named("framed/" + name).path)
        let frames = try String(contentsOfFile: Fixture.named("framed/\(name).frames").path, encoding: .utf8)
        #expect(file.properties.validFrameCount == Int64(frames.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func formatsAndContainersAreNamedAsAppleNamesThem() throws {
        let surround = try AudioFile(path: Fixture.named("framed/surround-5.1.ac3").path)
        #expect(surround.properties.fileType == .ac3 && surround.dataFormat.formatID == .ac3)
        #expect(surround.dataFormat.channelsPerFrame == 6 && surround.dataFormat.framesPerPacket == 1536)
        let enhanced = try AudioFile(path: Fixture.named("framed/surround-5.1.eac3").path)
        #expect(enhanced.properties.fileType == .ec3 && enhanced.dataFormat.formatID == .enhancedAC3)
        #expect(enhanced.dataFormat.sampleRate == 32000 && enhanced.dataFormat.channelsPerFrame == 6)
        let threeGP = try AudioFile(path: Fixture.named("framed/amr.3gp").path)
        #expect(threeGP.properties.fileType == .threeGP && threeGP.dataFormat.formatID == "samr")
        #expect(threeGP.properties.fileType?.rawValue == "3gp")
        let amr = try AudioFile(path: Fixture.named("framed/speech.amr").path)
        #expect(amr.properties.fileType == .amr && amr.dataFormat.formatID == "samr")
        #expect(amr.dataFormat.sampleRate == 8000 && amr.dataFormat.framesPerPacket == 160)
        let wideband = try AudioFile(path: Fixture.named("framed/speech-wb.amr").path)
        #expect(wideband.properties.fileType == .amr && wideband.dataFormat.formatID == "sawb")
        #expect(wideband.dataFormat.sampleRate == 16000 && wideband.dataFormat.framesPerPacket == 320)
    }

    @Test func damageIsPassedOverWithASyncWordAndAnErrorWithout() throws {
        // AC-3 (768-byte frames): bytes inserted between two frames are skipped and noted; every frame,
        // confirmed by its CRC, is still found.
        let ac3 = Fixture.named("framed/stereo-48k.ac3").bytes
        let spliced = Array(ac3[0..<1536]) + [UInt8](repeating: 0x0B, count: 37) + Array(ac3[1536...])
        let recording = record(spliced, chunkSizes: [7])
        #expect(recording.error == nil)
        #expect(recording.packetList.count == 16)
        #expect(recording.properties.warnings.contains { $0.contains("37 bytes") })
        // AMR: a frame header with its padding bits set cannot be passed over (no sync word): dta?.
        var amr = Fixture.named("framed/speech.amr").bytes
        amr[6 + 32 * 3] |= 0x01  // 12.2 kbit/s: 32-byte frames
        let error = try #require(record(amr, chunkSizes: [4096]).error)
        #expect(error.code == "dta?" && error.offset == Int64(6 + 32 * 3))
        // Multichannel AMR is named and refused.
        let multichannel = Array("#!AMR_MC1.0\n".utf8) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 20)
        #expect(record(multichannel, chunkSizes: [4096]).error?.code == "fmt?")
        // A cut last frame is no packet; the stream is truncated.
        let cut = record(Array(ac3[0..<(768 * 3 + 100)]), chunkSizes: [4096])
        #expect(cut.packetList.count == 3 && cut.properties.isTruncated)
    }
}
