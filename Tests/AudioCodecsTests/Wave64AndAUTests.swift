import AudioCodecs
import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Wave64, BW64 and Sun/NeXT AU files made by FFmpeg, SoX and libsndfile
/// (Fixtures/make-chunked-fixtures.sh): afkit reads each to the very samples FFmpeg (or SoX, for the
/// little-endian AU FFmpeg cannot read) decodes, compared as 32-bit floats by MD5.
@Suite struct Wave64AndAUTests {
    static let files = [
        "ffmpeg-s16.w64", "ffmpeg-s24.w64", "ffmpeg-f32.w64", "sox.w64", "sndfile-u8-odd.w64", "bw64.wav",
        "sox-s16.au", "sox-ulaw.au", "sox-alaw.au", "sox-s8.au", "sox-s24.au", "sox-f32.au", "sndfile-le.au",
        "sndfile-double.au", "ffmpeg-pipe.au",
    ]

    @Test(arguments: files)
    func readsTheSamplesTheReferenceDecodes(name: String) throws {
        let path = CodecFixtures.path("chunked/" + name)
        let reference = try String(contentsOfFile: path + ".f32.md5", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let file = try AudioFile(path: path)
        var decoder = try AudioCodecRegistry.builtIn.decoder(for: file.dataFormat)
        var output: [Float] = []
        let bytes = try file.readAudioBytes()
        let packets = Int(file.packetCount)
        #expect(bytes.count == packets * Int(file.dataFormat.bytesPerPacket))
        _ = try decoder.decode(bytes, packetCount: packets, appendingTo: &output)
        var md5 = MD5()
        output.withUnsafeBytes { md5.update($0) }
        #expect(md5.finalize().map { String(format: "%02x", $0) }.joined() == reference, "\(name)")
        #expect(file.properties.fileType == (name.hasSuffix(".w64") ? .w64 : name.hasSuffix(".au") ? .au : .rf64))
        #expect(!file.properties.isTruncated)
    }

    @Test func theFormatsAreNamedAsAppleNamesThem() throws {
        let ulaw = try AudioFile(path: CodecFixtures.path("chunked/sox-ulaw.au"))
        #expect(ulaw.dataFormat.formatID == .ulaw && ulaw.properties.fileType?.fileTypeID == "NeXT")
        let little = try AudioFile(path: CodecFixtures.path("chunked/sndfile-le.au"))
        #expect(!little.dataFormat.formatFlags.contains(.isBigEndian) && little.dataFormat.channelsPerFrame == 2)
        let pipe = try AudioFile(path: CodecFixtures.path("chunked/ffmpeg-pipe.au"))
        #expect(pipe.properties.trace.contains("to the end of the stream"))
        let odd = try AudioFile(path: CodecFixtures.path("chunked/sndfile-u8-odd.w64"))
        #expect(odd.packetCount == 4409 && odd.properties.fileType?.fileTypeID == "W64f")
        let bw64 = try AudioFile(path: CodecFixtures.path("chunked/bw64.wav"))
        #expect(bw64.dataFormat.bitsPerChannel == 24 && bw64.packetCount == 6615)
    }
}
