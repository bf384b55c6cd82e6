import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Ogg through the push parser, against files made by oggenc, opusenc, flac and FFmpeg
/// (Fixtures/make-ogg-fixtures.sh): ffprobe's packets (size, page offset) at any chunking, and the
/// frames the reference decoders give.
@Suite struct OggTests {

    /// The folded CRCs (carry-less multiplication, where the processor has it) equal the tables': Ogg's page
    /// CRC-32 and FLAC's CRC-16, on every length from the shortest page header to several blocks of 64 bytes,
    /// any bytes, from any CRC before.
    @Test func foldedCRCsAreTheTables() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(26...600) + [4096, 4096 + 27, 65_307] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let start = UInt16.random(in: 0...UInt16.max, using: &generator)
            bytes.withUnsafeBytes { bytes in
                #expect(Ogg.pageChecksum(bytes) == Ogg.tablePageChecksum(bytes), "Ogg, length \(length)")
                #expect(
                    FoldedCRC.flac(bytes, continuing: start) == FLACChecksum.crc16(bytes, continuing: start),
                    "FLAC, length \(length)")
            }
        }
        print("folded CRCs on this processor: \(FoldedCRC.isAvailable)")
    }
    static let files = [
        "oggenc-speech.ogg", "oggenc-stereo.ogg", "ffmpeg-vorbis.ogg", "opusenc-voice.opus", "opusenc-stereo.opus",
        "opusenc-60ms.opus", "ffmpeg-opus.opus", "flac-ogg.oga", "ffmpeg-flac.oga", "chained.ogg", "video-first.ogv",
    ]

    static func base(_ name: String) -> String { "ogg/" + name[..<(name.lastIndex(of: ".") ?? name.endIndex)] }

    /// ffprobe's audio packets: size and the offset of the page each begins on.
    static func reference(_ name: String) throws -> [(offset: Int64, size: Int)] {
        try ffprobePackets(base(name) + ".packets")
    }

    static func packets(_ recording: StreamRecording) -> [(offset: Int64, size: Int)] { recording.packetList }

    @Test(arguments: files)
    func packetsAreFFprobesAndFramesTheReferenceDecoders(name: String) throws {
        let bytes = Fixture.named("ogg/" + name).bytes
        var expected = try Self.reference(name)
        // FFmpeg reads a chain's links as one stream; afkit reads the first (its file is oggenc-speech.ogg).
        if name == "chained.ogg" {
            let firstLink = Int64(Fixture.named("ogg/oggenc-speech.ogg").bytes.count)
            expected = expected.filter { $0.offset < firstLink }
        }
        #expect(!expected.isEmpty)
        for chunk in [1, 7, 4096] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil, "\(name) at \(chunk)")
            let packets = Self.packets(recording)
            #expect(packets.map(\.size) == expected.map(\.size), "\(name) at \(chunk)-byte chunks")
            #expect(packets.map(\.offset) == expected.map(\.offset), "\(name) at \(chunk)-byte chunks")
            #expect(recording.properties.fileType == .ogg)
        }
        let frames = try String(contentsOfFile: Fixture.named(Self.base(name) + ".frames").path, encoding: .utf8)
        let file = try AudioFile(path: Fixture.named("ogg/" + name).path)
        #expect(file.properties.validFrameCount == Int64(frames.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(file.packetCount == Int64(expected.count))
        // The file API reads each packet's bytes as the stream hands them out.
        let streamed = record(bytes, chunkSizes: [4096]).payload
        var read: [UInt8] = []
        var start: Int64 = 0
        while start < file.packetCount {
            let (chunk, descriptions) = try file.readPackets(from: start, count: 17)
            #expect(descriptions.reduce(0) { $0 + Int($1.dataByteSize) } == chunk.count)
            read += chunk
            start += Int64(descriptions.count)
        }
        #expect(read == streamed, "\(name)")
    }

    @Test func codecsFormatsAndGaplessInformation() throws {
        let vorbis = try AudioFile(path: Fixture.named("ogg/oggenc-stereo.ogg").path)
        #expect(vorbis.dataFormat.formatID == "vorb" && vorbis.dataFormat.sampleRate == 44100)
        #expect(vorbis.dataFormat.channelsPerFrame == 2 && vorbis.properties.packetTableInfo?.primingFrames == 0)
        // The cookie: the three headers, Xiph-laced.
        #expect(vorbis.properties.magicCookie?.first == 2)
        let opus = try AudioFile(path: Fixture.named("ogg/opusenc-voice.opus").path)
        #expect(opus.dataFormat.formatID == .opus && opus.dataFormat.sampleRate == 48000)
        // opusenc's pre-skip is the priming.
        #expect(opus.properties.packetTableInfo?.primingFrames == 312)
        #expect(opus.properties.magicCookie?.starts(with: Array("OpusHead".utf8)) == true)
        let flac = try AudioFile(path: Fixture.named("ogg/flac-ogg.oga").path)
        #expect(flac.dataFormat.formatID == .flac && flac.properties.magicCookie?.count == 34)
    }

    @Test func commentsBecomeMetadata() throws {
        let vorbis = try AudioFile(path: Fixture.named("ogg/oggenc-speech.ogg").path)
        #expect(vorbis.properties.infoDictionary["title"] == "Speech")
        #expect(vorbis.properties.infoDictionary["artist"] == "afkit")
        #expect(vorbis.properties.infoDictionary["comments"] == "made by oggenc")
        let opus = try AudioFile(path: Fixture.named("ogg/opusenc-voice.opus").path)
        #expect(opus.properties.infoDictionary["title"] == "Voice")
        #expect(opus.properties.infoDictionary["encoder"]?.contains("opusenc") == true)
    }

    @Test func aChainReadsItsFirstStreamAndAVideoStreamIsSkipped() throws {
        let chained = try AudioFile(path: Fixture.named("ogg/chained.ogg").path)
        #expect(chained.properties.warnings.contains { $0.contains("only the first is read") })
        #expect(chained.dataFormat.sampleRate == 22050)
        let video = try AudioFile(path: Fixture.named("ogg/video-first.ogv").path)
        #expect(video.dataFormat.formatID == "vorb")
        #expect(video.properties.trace.contains("a stream afkit does not read skipped"))
    }

    /// A page failing its CRC-32 is skipped and said (the pages' numbers say one is missing), every other page
    /// read (it was a typed error for the whole file); a cut file is truncated.
    @Test func aDamagedPageIsSkippedAndSaidAndACutFileIsTruncated() throws {
        let size = Int64(Fixture.named("ogg/oggenc-stereo.ogg").bytes.count)
        let reference = try Self.reference("oggenc-stereo.ogg")
        let pages = Set(reference.map(\.offset)).sorted()
        let damaged = try #require(pages.last { $0 <= size / 2 })
        for chunk in [7, 4096] {
            let recording = record(Fixture.named("ogg/damaged.ogg.bin").bytes, chunkSizes: [chunk])
            #expect(recording.error == nil)
            #expect(
                recording.properties.damage.contains { $0.contains("is missing before byte") },
                "\(recording.properties.damage)")
            #expect(!recording.properties.isTruncated)
            // The damaged page's packets are lost (and one it ends), no more.
            let lost = reference.filter { $0.offset == damaged }.count
            #expect((reference.count - lost - 1...reference.count - lost).contains(Self.packets(recording).count))
        }
        let cut = record(Fixture.named("ogg/truncated.ogg.bin").bytes, chunkSizes: [4096])
        #expect(cut.error == nil)
        #expect(cut.properties.isTruncated)
        let whole = try Self.reference("oggenc-stereo.ogg").filter { $0.offset < damaged }
        #expect(Self.packets(cut).count >= whole.count)
    }

    @Test func speexIsRefusedByName() throws {
        let error = try #require(record(Fixture.named("refused/ogg-speex.spx").bytes, chunkSizes: [4096]).error)
        #expect(error.code == "typ?" && error.message.hasPrefix("an Ogg Speex file:"))
    }
}
