import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Builds an ICY stream: `audio` with a metadata block after every full `interval` bytes; a new title
/// every third block, the same title again in the next, and an empty block in the third.
func icyStream(_ audio: [UInt8], interval: Int, titles: [String]) -> [UInt8] {
    var out: [UInt8] = []
    var block = 0
    for start in stride(from: 0, to: audio.count, by: interval) {
        let end = min(start + interval, audio.count)
        out += audio[start..<end]
        guard end - start == interval else { break }
        let title = titles[(block / 3) % titles.count]
        let text = block % 3 == 2 ? [] : Array("StreamTitle='\(title)';\(block % 3 == 0 ? "StreamUrl='';" : "")".utf8)
        let length = (text.count + 15) / 16
        out.append(UInt8(length))
        out += text + [UInt8](repeating: 0, count: length * 16 - text.count)
        block += 1
    }
    return out
}

@Suite struct ICYMetadataTests {
    @Test func metadataIsRemovedAndTitlesReportedForEveryChunking() throws {
        let audio = Fixture.named("mp3/lame-vbr-v5.mp3").bytes
        let titles = ["Intro", "Song with 'quotes'; and semicolons", "Outro"]
        let stream = icyStream(audio, interval: 2000, titles: titles)
        #expect(stream.count > audio.count)
        let reference = record(audio, chunkSizes: [4096])
        for chunk in [1, 7, 333, 4096, stream.count] {
            var demuxer = ICYMetadataDemuxer(metadataInterval: 2000)
            var passed: [UInt8] = []
            var changes: [ICYMetadataDemuxer.TitleChange] = []
            var index = 0
            while index < stream.count {
                let end = min(index + chunk, stream.count)
                changes += try stream[index..<end].withUnsafeBytes { raw in try demuxer.demux(raw) { passed += $0 } }
                index = end
            }
            #expect(passed == audio, "chunk \(chunk)")
            #expect(
                changes.map(\.title) == ["Intro", "Song with 'quotes'; and semicolons", "Outro", "Intro"],
                "chunk \(chunk)")
            #expect(changes.map(\.audioOffset) == [2000, 8000, 14000, 20000], "chunk \(chunk)")
            // What the parser sees is the plain stream.
            #expect(record(passed, chunkSizes: [chunk]).events == reference.events)
        }
    }

    /// A lying `icy-metaint` (half the real one) reads audio as a metadata block: a typed error at that
    /// block's length byte, for every chunking, not audio with holes cut in it.
    @Test func aWrongIntervalIsAnErrorAtTheBlockItMisreads() throws {
        let stream = icyStream(Fixture.named("mp3/lame-vbr-v5.mp3").bytes, interval: 2000, titles: ["Intro", "Outro"])
        var offsets: Set<Int64> = []
        for chunk in [1, 13, 4096] {
            var demuxer = ICYMetadataDemuxer(metadataInterval: 1000)
            var index = 0
            do {
                while index < stream.count {
                    let end = min(index + chunk, stream.count)
                    _ = try stream[index..<end].withUnsafeBytes { raw in try demuxer.demux(raw) { _ in } }
                    index = end
                }
                Issue.record("no error with chunk \(chunk)")
            } catch let error as AudioFileError {
                #expect(error.code == "dta?")
                let offset = try #require(error.offset)
                // The misread length byte sits where the wrong interval puts one.
                #expect(offset < Int64(stream.count) && stream[Int(offset)] != 0)
                offsets.insert(offset)
            }
        }
        #expect(offsets.count == 1, "the same block for every chunking: \(offsets)")
    }

    @Test func metadataTextIsRecognized() {
        #expect(ICYMetadataDemuxer.isMetadataText(Array("StreamTitle='A';".utf8) + [0, 0, 0]))
        #expect(ICYMetadataDemuxer.isMetadataText([0, 0, 0, 0]))
        #expect(ICYMetadataDemuxer.isMetadataText(Array("StreamTitle='Caf\u{e9}';StreamUrl='';".utf8)))
        #expect(!ICYMetadataDemuxer.isMetadataText([0xFF, 0xFB, 0x90, 0x64, 0x00]))
        #expect(!ICYMetadataDemuxer.isMetadataText(Array("no fields here".utf8)))
    }
}

@Suite struct MPEGStreamTests {
    @Test func seekUsesTheXingTableAndResyncs() throws {
        let bytes = Fixture.named("mp3/lame-vbr-v5.mp3").bytes
        let reference = record(bytes, chunkSizes: [bytes.count]).events.compactMap { event -> Int64? in
            if case .packet(let offset, _, _) = event { return offset }
            return nil
        }
        var stream = AudioFileStream()
        try stream.parse(Array(bytes[0..<2000])) { _ in }
        let (offset, estimated) = try stream.seek(toPacket: 30)
        #expect(estimated)
        // The Xing table puts packet 30 near its true place.
        #expect(abs(offset - reference[30]) < 2000)
        var resumed: (packet: Int64, known: Bool, offset: Int64)?
        try bytes[Int(offset)...].withUnsafeBytes { rest in
            try stream.parse(rest, flags: .discontinuity) { event in
                if resumed == nil, case .packets(let packets) = event {
                    resumed = (packets.firstPacket, packets.indexIsKnown, packets.streamOffset)
                }
            }
        }
        try stream.finish()
        // The first packet after resync is a real frame, numbered by estimate from where it lies, and said so.
        let found = try #require(resumed)
        #expect(!found.known)
        let truth = try #require(reference.firstIndex(of: found.offset))
        #expect(abs(Int64(truth) - found.packet) <= 2)
    }

    /// The LAME tag's method, ABR rate and quality indicator state how the encoder spent its bits: `-V 0` is level 0,
    /// `-V 5` a VBR whose level LAME 3.100 leaves unsaid (its indicator is `-V 7`'s too), `-b 128` constant, a stream
    /// with no tag states nothing.
    @Test func theLAMETagStatesTheBitRateMode() throws {
        let expected: [(String, BitRateMode?)] = [
            ("mp3/lame-vbr-v0.mp3", .variable(level: 0)), ("mp3/lame-vbr-v5.mp3", .variable(level: nil)),
            ("mp3/lame-vbr-v9.mp3", .variable(level: nil)), ("mp3/lame-cbr128-stereo-44k.mp3", .constant),
            ("mp3/lame-no-tag.mp3", nil),
        ]
        for (name, mode) in expected {
            var stream = AudioFileStream()
            try stream.parse(Fixture.named(name).bytes) { _ in }
            try stream.finish { _ in }
            #expect(stream.properties.bitRateMode == mode, "\(name)")
        }
    }

    @Test func reconnectMidFrameDropsThePartialFrameAndResyncs() throws {
        let bytes = Fixture.named("mp3/lame-cbr128-stereo-44k.mp3").bytes
        let reference = record(bytes, chunkSizes: [bytes.count]).events.compactMap { event -> Int64? in
            if case .packet(let offset, _, _) = event { return offset }
            return nil
        }
        var stream = AudioFileStream()
        var offsets: [Int64] = []
        let handler: (AudioFileStream.Event) -> Void = { event in
            if case .packets(let packets) = event, let descriptions = packets.descriptions {
                offsets += descriptions.map { packets.streamOffset + $0.startOffset }
            }
        }
        try stream.parse(Array(bytes[0..<5000]), handler)
        // The connection drops; the next bytes come from 7777 on (inside a frame).
        try stream.parse(Array(bytes[7777...]), flags: .discontinuity, streamOffset: 7777, handler)
        try stream.finish(handler)
        let after = offsets.filter { $0 >= 7777 }
        #expect(!after.isEmpty)
        #expect(after.allSatisfy { reference.contains($0) })
        #expect(after.first == reference.first { $0 >= 7777 })
    }

    /// Layer I frames (no encoder here makes them): built by hand, 20 frames of 136 bytes.
    @Test func layerOne() {
        var bytes: [UInt8] = []
        for index in 0..<20 {
            bytes += [0xFF, 0xFF, 0x40, 0x00] + [UInt8](repeating: UInt8(index), count: 132)
        }
        let result = record(bytes, chunkSizes: [50])
        #expect(result.error == nil)
        #expect(result.properties.dataFormat?.formatID == .mpegLayer1)
        #expect(result.properties.dataFormat?.framesPerPacket == 384)
        #expect(result.properties.audioDataPacketCount == 20)
    }

    @Test func adtsWithCRC() throws {
        // Re-frame an FFmpeg ADTS stream with CRC-protected headers (9 bytes; the CRC is not checked).
        let plain = Fixture.named("adts/aac-lc-22k-stereo.aac").bytes
        var protected: [UInt8] = []
        var index = 0
        var payloads: [[UInt8]] = []
        while index + 7 <= plain.count {
            let length = Int(plain[index + 3] & 3) << 11 | Int(plain[index + 4]) << 3 | Int(plain[index + 5] >> 5)
            let payload = Array(plain[index + 7..<index + length])
            payloads.append(payload)
            var header = Array(plain[index..<index + 7])
            header[1] &= 0xFE
            let newLength = length + 2
            header[3] = header[3] & 0xFC | UInt8(newLength >> 11)
            header[4] = UInt8(newLength >> 3 & 0xFF)
            header[5] = header[5] & 0x1F | UInt8(newLength & 7) << 5
            protected += header + [0xAB, 0xCD] + payload
            index += length
        }
        let ours = record(protected, chunkSizes: [100])
        let original = record(plain, chunkSizes: [100])
        #expect(ours.error == nil)
        #expect(ours.payload == original.payload)
        #expect(ours.properties.audioDataPacketCount == Int64(payloads.count))
    }

    @Test func vbriHeaderFrameIsNotAPacket() {
        // A Fraunhofer VBRI header in a copy of the first frame of a tagless LAME stream.
        let fixture = Fixture.named("mp3/lame-no-tag.mp3")
        let bytes = fixture.bytes
        let frameLength = ((fixture.sidecar["ffprobePackets"] as? [[Int]])?.first?[1]) ?? 0
        var vbri = Array(bytes[0..<frameLength])
        for index in 4..<frameLength { vbri[index] = 0 }
        var fields: [UInt8] = Array("VBRI".utf8) + [0, 1, 0x04, 0x40, 0, 75]
        fields.appendInteger(UInt32(bytes.count), endianness: .big)
        fields.appendInteger(UInt32(43), endianness: .big)
        fields += [0, 4, 0, 1, 0, 2, 0, 11]  // 4 entries of 2 bytes, scale 1, 11 frames each
        for _ in 0..<4 { fields.appendInteger(UInt16(4400), endianness: .big) }
        vbri.replaceSubrange(36..<36 + fields.count, with: fields)
        let result = record(vbri + bytes, chunkSizes: [512])
        #expect(result.error == nil)
        #expect(result.properties.audioDataPacketCount == 43)
        #expect(result.properties.dataOffset == Int64(frameLength))
        #expect(result.properties.trace.contains("VBRI header frame"))
        // VBRI carries no gapless information.
        #expect(result.properties.packetTableInfo == nil)
    }

    @Test func hugeID3TagIsSkippedWithoutReadingIt() {
        // A tag that claims 200 MB in a 1 KB stream: walked and stepped over as bytes come, never allocated.
        var bytes: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0x5F, 0x7F, 0x7F, 0x7F]
        bytes += [UInt8](repeating: 0xFF, count: 1000)
        let result = record(bytes, chunkSizes: [100])
        #expect(result.error?.code == "typ?")
        // 0x5F7F7F7F synchsafe is 201,326,591 bytes after the 10-byte header.
        #expect(
            "\(result.error.map { "\($0)" } ?? "")".contains("ends \(201_326_601 - bytes.count) bytes before the end"))
        #expect(result.properties.trace.contains("walked by frame"))
    }
}

/// A stream starts only on strong evidence (Documentation/RecognisingFiles.md): from a clean start, four
/// consistent frames in a row (or frames to the end), so three frames of one kind before a stream of the
/// other are junk; and the type hint breaks ties where the bytes allow two containers: four frames of the
/// other kind decide without a hint, and with one the hinted stream wins (the other kind needs two more).
/// A hint never stops a real stream of the other kind.
@Suite struct TypeHintTests {
    /// The first `count` whole frames of a fixture (ADTS headers included).
    static func frames(_ path: String, count: Int) throws -> [UInt8] {
        let fixture = Fixture.named(path)
        let file = try AudioFile(path: fixture.path)
        let bytes = fixture.bytes
        let start = Int(file.properties.dataOffset ?? 0)
        let last = try file.packetDescription(Int64(count - 1))
        return Array(bytes[start..<Int(last.startOffset) + Int(last.dataByteSize)])
    }

    @Test func hintsBreakTies() throws {
        let adts = Fixture.named("adts/aac-lc-44k-stereo.aac").bytes
        let mp3 = Fixture.named("mp3/lame-no-tag.mp3").bytes
        let mpeg2 = try Self.frames("mp3/lame-no-tag.mp3", count: 2)
        let mpeg3 = try Self.frames("mp3/lame-no-tag.mp3", count: 3)
        let mpeg4 = try Self.frames("mp3/lame-no-tag.mp3", count: 4)
        let adts3 = try Self.frames("adts/aac-lc-44k-stereo.aac", count: 3)
        let adts4 = try Self.frames("adts/aac-lc-44k-stereo.aac", count: 4)
        let cases: [([UInt8], FileType?, FileType)] = [
            (mpeg2 + adts, nil, .adts), (mpeg3 + adts, nil, .adts),  // fewer than four MPEG frames are junk
            (mpeg4 + adts, nil, .mp3), (mpeg4 + adts, .adts, .adts), (mpeg4 + adts, .mp3, .mp3),
            (adts3 + mp3, nil, .mp3), (adts4 + mp3, nil, .adts), (adts4 + mp3, .mp3, .mp3),
            (mp3, .adts, .mp3), (adts, .mp3, .adts),
        ]
        for (index, (bytes, hint, expected)) in cases.enumerated() {
            for sizes in [[1], [7], [4096]] {
                let recording = record(bytes, chunkSizes: sizes, hint: hint)
                #expect(recording.error == nil, "case \(index)")
                #expect(recording.properties.fileType == expected, "case \(index), chunks \(sizes)")
            }
        }
        // Two chained headers inside junk, and nothing else: no stream at all.
        let junk = [UInt8]((0..<3000).map { UInt8(($0 * 73 + 41) % 251) })
        let lonely = record(junk + mpeg2 + junk, chunkSizes: [4096])
        #expect(lonely.error?.code == "typ?")
    }
}

/// ADTS headers whose sampling-frequency index is reserved (13, 14, 15) are not frames: a stream of them
/// is no stream.
@Suite struct ReservedADTSRateTests {
    @Test(arguments: [UInt8(13), 14, 15])
    func reservedRateIndexIsNoStream(_ index: UInt8) throws {
        var bytes = Fixture.named("adts/aac-lc-44k-stereo.aac").bytes
        let file = try AudioFile(path: Fixture.named("adts/aac-lc-44k-stereo.aac").path)
        for packet in 0..<file.packetCount {
            // The header precedes each payload: byte 2 holds the index in bits 5-2.
            let header = Int(try file.packetDescription(packet).startOffset) - 7
            bytes[header + 2] = bytes[header + 2] & 0xC3 | index << 2
        }
        #expect(record(bytes, chunkSizes: [4096]).error?.code == "typ?")
    }
}
