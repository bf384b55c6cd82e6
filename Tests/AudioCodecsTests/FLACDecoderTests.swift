import AudioCodecs
import AudioContainers
import AudioFormats
import Foundation
import Testing

/// afkit's FLAC decoder against the reference decoder: every fixture decodes to exactly the samples
/// `flac -d` gives (their MD5, committed beside each file by Fixtures/make-flac-fixtures.sh), and where the
/// encoder recorded it, to STREAMINFO's own MD5 of the encoder's input.
@Suite struct FLACDecoderTests {
    static let files = [
        "speech", "stereo-tags", "stereo-picture", "stereo-cuesheet", "hires-24bit", "hires-lpc32-b1000",
        "eight-bit", "surround-5.1", "octo-7.1", "total-zero", "ffmpeg-stereo", "id3-before", "large-picture",
    ]

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The decoded samples as the reference writes them: signed little-endian integers of `width` bits,
    /// interleaved, and their MD5.
    static func decodedMD5(_ path: String, width: Int) throws -> (md5: String, frames: Int, file: AudioFile) {
        let file = try AudioFile(path: path)
        var decoder = try AudioCodecRegistry.builtIn.decoder(
            for: file.dataFormat, magicCookie: file.properties.magicCookie)
        let bits = try #require(FLACStreamInfo(cookie: file.properties.magicCookie ?? [])?.bitsPerSample)
        let scale = Float(1 << (bits - 1))
        var md5 = MD5()
        var frames = 0
        var output: [Float] = []
        var bytes: [UInt8] = []
        var start: Int64 = 0
        while start < file.packetCount {
            let (packetBytes, descriptions) = try file.readPackets(from: start, count: 16)
            output.removeAll(keepingCapacity: true)
            frames += try packetBytes.withUnsafeBytes { raw in
                try descriptions.withUnsafeBufferPointer {
                    try decoder.decode(raw, packetCount: descriptions.count, descriptions: $0, appendingTo: &output)
                }
            }
            bytes.removeAll(keepingCapacity: true)
            for sample in output {
                let value = Int32(sample * scale)
                #expect(Float(value) == sample * scale)
                for byte in 0..<width / 8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
            }
            md5.update(bytes)
            start += Int64(descriptions.count)
        }
        return (hex(md5.finalize()), frames, file)
    }

    @Test(arguments: files)
    func decodesBitForBitAsFlacDoes(name: String) throws {
        let reference = try String(contentsOfFile: CodecFixtures.path("flac/\(name).decoded.md5"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let width = try #require(Int(reference[1]))
        let (md5, frames, file) = try Self.decodedMD5(CodecFixtures.path("flac/\(name).flac"), width: width)
        #expect(md5 == reference[0], "\(name)")
        #expect(Int64(frames) == file.properties.validFrameCount)
        // STREAMINFO's signature of the encoder's input, where it was written.
        let cookie = file.properties.magicCookie ?? []
        let signature = Array(cookie[18..<34])
        if signature.contains(where: { $0 != 0 })
            && width == (FLACStreamInfo(cookie: cookie)?.bitsPerSample).map({ ($0 + 7) / 8 * 8 })
        {
            #expect(md5 == Self.hex(signature), "\(name): STREAMINFO's MD5")
        }
    }

    @Test func theMD5IsRFC1321s() {
        var empty = MD5()
        #expect(Self.hex(empty.finalize()) == "d41d8cd98f00b204e9800998ecf8427e")
        var fox = MD5()
        fox.update(Array("The quick brown fox jumps over the lazy dog".utf8))
        #expect(Self.hex(fox.finalize()) == "9e107d9d372bb6826bd81d3542a419d6")
        // Fed in pieces that straddle blocks, the same digest.
        var pieces = MD5()
        let long = [UInt8]((0..<1000).map { UInt8($0 % 251) })
        var whole = MD5()
        whole.update(long)
        for start in stride(from: 0, to: long.count, by: 37) {
            pieces.update(Array(long[start..<min(start + 37, long.count)]))
        }
        #expect(pieces.finalize() == whole.finalize())
        empty.update([])
    }

    @Test func damagedFramesAreTypedErrorsAtTheirPacket() throws {
        let file = try AudioFile(path: CodecFixtures.path("flac/speech.flac"))
        var decoder = try FLACDecoder(format: file.dataFormat, magicCookie: file.properties.magicCookie)
        var (bytes, descriptions) = try file.readPackets(from: 1, count: 2)
        // Packet 2's residual overwritten with ones: its Rice codes run past the frame.
        let second = Int(descriptions[1].startOffset)
        for index in second + 40..<bytes.count { bytes[index] = 0 }
        var output: [Float] = []
        let error = try #require(
            throws: AudioFileError.self,
            performing: {
                _ = try bytes.withUnsafeBytes { raw in
                    try descriptions.withUnsafeBufferPointer {
                        try decoder.decode(raw, packetCount: 2, descriptions: $0, appendingTo: &output)
                    }
                }
            })
        #expect(error.code == "dta?")
        #expect(error.offset == Int64(second))
        descriptions.removeAll()
    }
}
