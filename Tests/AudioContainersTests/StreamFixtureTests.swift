import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// MPEG audio and ADTS fixtures made by LAME and FFmpeg (and hostile variants of them): packets,
/// counts and gapless information against what the sidecars record independently of afkit.
@Suite struct StreamFixtureTests {
    static let fixtures = Fixture.all(in: ["mp3", "adts"])

    /// The packets afkit must find: the sidecar's expectation for derived files, else ffprobe's,
    /// with ADTS headers (7 or 9 bytes) moved out of the packet.
    static func expectedPackets(_ fixture: Fixture) -> [(offset: Int64, size: Int64)] {
        let sidecar = fixture.sidecar
        let raw = ((sidecar["expected"] as? [String: Any])?["packets"] ?? sidecar["ffprobePackets"]) as? [[Int]] ?? []
        let bytes = fixture.bytes
        return raw.map { pair in
            let (offset, size) = (Int64(pair[0]), Int64(pair[1]))
            guard fixture.relativePath.hasSuffix(".aac") else { return (offset, size) }
            let header: Int64 = bytes[Int(offset) + 1] & 1 == 1 ? 7 : 9
            return (offset + header, size - header)
        }
    }

    @Test func fixturesArePresent() {
        #expect(Self.fixtures.count >= 28)
    }

    @Test(arguments: fixtures)
    func packetsMatchTheReference(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let expected = Self.expectedPackets(fixture)
        #expect(file.packetCount == Int64(expected.count))
        let ours = try (0..<file.packetCount).map { try file.packetDescription($0) }
        let mismatch = zip(ours, expected).enumerated().first {
            $0.element.0.startOffset != $0.element.1.offset || Int64($0.element.0.dataByteSize) != $0.element.1.size
        }
        #expect(
            mismatch == nil,
            "first different packet: \(mismatch.map { "\($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "")")
        guard let first = expected.first, let last = expected.last else { return }
        let properties = file.properties
        let isRawADTS = fixture.relativePath.hasSuffix(".aac")
        // dataOffset: the first audio frame (for ADTS, its header); dataByteCount to the last frame's end.
        let headerOfFirst = isRawADTS ? (fixture.bytes[Int(first.offset) - 7 + 1] & 1 == 1 ? Int64(7) : 9) : 0
        #expect(properties.dataOffset == first.offset - headerOfFirst)
        if !fixture.relativePath.hasSuffix(".caf") {
            #expect(properties.audioDataByteCount == last.offset + last.size - (first.offset - headerOfFirst))
        }
        #expect(Int64(properties.maximumPacketSize ?? 0) == expected.map(\.size).max())
        #expect(properties.isTruncated == fixture.relativePath.contains("truncated"))
    }

    @Test(arguments: fixtures.filter { $0.relativePath.hasSuffix(".mp3") || $0.relativePath.hasSuffix(".mp2") })
    func gaplessCountsFromTheLAMETag(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let summary = try AudioFileSummary(file.properties)
        guard let tag = fixture.sidecar["lameTag"] as? [String: Any], let delay = tag["delay"] as? Int,
            let padding = tag["padding"] as? Int
        else {
            #expect(summary.primingFrames == 0 && summary.remainderFrames == 0)
            #expect(summary.frameCount == summary.packetCount * Int64(summary.format.framesPerPacket))
            return
        }
        #expect(summary.primingFrames == Int64(delay + 529))
        #expect(summary.remainderFrames == Int64(max(padding - 529, 0)))
        // LAME pads to whole frames around the source: the valid frames last exactly as long as the
        // source (LAME resamples at low bitrates, so compare durations: frames × rates, in integers).
        var sidecar = fixture.sidecar
        // A derived file's packets beyond its base's (a false frame in line) last that much longer.
        var addedFrames: Int64 = 0
        if let expected = sidecar["expected"] as? [String: Any], let base = expected["base"] as? String {
            if fixture.relativePath.contains("truncated") { return }
            sidecar = Fixture.named(base).sidecar
            let added =
                ((expected["packets"] as? [Any])?.count ?? 0) - ((sidecar["ffprobePackets"] as? [Any])?.count ?? 0)
            addedFrames = Int64(added) * Int64(summary.format.framesPerPacket)
        }
        if delay > 0, let source = sidecar["sourceFrames"] as? Int, let sourceRate = sidecar["sourceRate"] as? Int {
            #expect(
                (summary.frameCount - addedFrames) * Int64(sourceRate) == Int64(source)
                    * Int64(summary.format.sampleRate))
        }
    }

    @Test func formatsOfEveryKind() throws {
        let cases: [(String, FourCharCode, Double, UInt32, UInt32)] = [
            ("mp3/lame-cbr128-stereo-44k.mp3", .mpegLayer3, 44100, 2, 1152),
            ("mp3/lame-cbr32-mono-22k.mp3", .mpegLayer3, 22050, 1, 576),
            ("mp3/lame-mpeg25-8k-mono.mp3", .mpegLayer3, 8000, 1, 576),
            ("mp3/ffmpeg-mp2-48k.mp2", .mpegLayer2, 48000, 2, 1152),
            ("mp3/ffmpeg-twolame-mono-32k.mp2", .mpegLayer2, 32000, 1, 1152),
            ("adts/aac-lc-48k-mono.aac", .aac, 48000, 1, 1024),
            ("adts/aac-lc-44k-stereo.aac", .aac, 44100, 2, 1024),
            ("adts/aac-lc-in-caf.caf", .aac, 44100, 2, 1024),
        ]
        for (name, id, rate, channels, frames) in cases {
            let format = try AudioFile(path: Fixture.named(name).path).dataFormat
            #expect(
                format.formatID == id && format.sampleRate == rate && format.channelsPerFrame == channels
                    && format.framesPerPacket == frames && format.bytesPerPacket == 0 && format.bitsPerChannel == 0,
                "\(name)")
        }
        let adts = try AudioFile(path: Fixture.named("adts/aac-lc-44k-stereo.aac").path)
        #expect(adts.properties.fileType == .adts)
        #expect(adts.properties.magicCookie == [0x12, 0x10])
        let caf = try AudioFile(path: Fixture.named("adts/aac-lc-in-caf.caf").path)
        let expected = Fixture.named("adts/aac-lc-in-caf.caf").sidecar["expected"] as? [String: Any] ?? [:]
        #expect(
            caf.properties.packetTableInfo
                == PacketTableInfo(
                    validFrames: Int64(expected["validFrames"] as? Int ?? -1),
                    primingFrames: Int32(expected["priming"] as? Int ?? -1),
                    remainderFrames: Int32(expected["remainder"] as? Int ?? -1)))
        #expect(
            caf.properties.magicCookie.flatMap {
                AudioSpecificConfig.audioSpecificConfig(inElementaryStreamDescriptor: $0)
            } == [
                0x12, 0x10,
            ])
    }

    @Test func metadataFromTags() throws {
        let lame = try AudioFile(path: Fixture.named("mp3/lame-id3v1-id3v2.mp3").path).properties.infoDictionary
        #expect(lame["title"] == "Level Complete")
        #expect(lame["artist"] == "afkit")
        #expect(lame["album"] == "Fixtures")
        #expect(lame["year"] == "2026")
        #expect(
            try AudioFile(path: Fixture.named("mp3/ffmpeg-libmp3lame.mp3").path).properties.infoDictionary["title"]
                == "Chime")
        #expect(
            try AudioFile(path: Fixture.named("adts/aac-lc-id3v2.aac").path).properties.infoDictionary["title"]
                == "Chime")
        let hostile = try AudioFile(path: Fixture.named("mp3/hostile-false-sync-in-id3.mp3").path).properties
        #expect(hostile.infoDictionary["title"]?.contains("false sync") == true)
    }

    @Test func lyingXingCountIsNotTrusted() throws {
        let properties = try AudioFile(path: Fixture.named("mp3/hostile-lying-xing-count.mp3").path).properties
        #expect(properties.audioDataPacketCount == 59)
        #expect(properties.trace.contains("99999"))
    }

    /// libmp3lame and libfaad2, in-process, decode every packet afkit delivers without an error, to
    /// the frames the packets promise. (A stream whose rate changes is counted whole, but a decoder set up
    /// for its first rate gives up on the frames at the second.)
    @Test(
        arguments: fixtures.filter { !$0.relativePath.contains("hostile") && !$0.relativePath.contains("rate-change") })
    func referenceDecodersAcceptOurPackets(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let format = file.dataFormat
        let decoder: any AudioDecoder =
            format.formatID == .aac
            ? try FAADDecoder(format: format, magicCookie: file.properties.magicCookie ?? [])
            : try MP3Decoder(format: format)
        var decoderCopy = decoder
        var output: [Float] = []
        var frames = 0
        for start in stride(from: Int64(0), to: file.packetCount, by: 16) {
            let (bytes, descriptions) = try file.readPackets(from: start, count: 16)
            frames += try bytes.withUnsafeBytes { raw in
                try descriptions.withUnsafeBufferPointer { descriptions in
                    try decoderCopy.decode(
                        raw, packetCount: descriptions.count, descriptions: descriptions, appendingTo: &output)
                }
            }
        }
        let promised = Int(file.packetCount) * Int(format.framesPerPacket)
        // libfaad2 holds back its first frame; libmp3lame's decoder may hold back up to one frame too.
        #expect(frames <= promised && frames >= promised - Int(format.framesPerPacket), "\(frames) of \(promised)")
        #expect(output.allSatisfy { $0.isFinite })
    }
}
