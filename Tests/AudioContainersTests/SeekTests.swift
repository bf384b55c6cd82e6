import AudioContainers
import AudioFormats
import Testing

/// Seeks that never lie: after `seek(toPacket:)`, every packet an event labels with a known index is, byte
/// for byte, the packet of that index (as `AudioFile` reads it); where the parser cannot know the index
/// it says so, and never hands back the number asked for in its place.
@Suite struct SeekTests {
    /// 12 s files (seek/, Fixtures/make-seek-fixtures.sh) and shorter ones of the other containers.
    static let files = [
        "seek/lame-vbr.mp3", "seek/lame-cbr-id3.mp3", "seek/ffmpeg-aac.aac", "seek/opusenc.opus", "seek/oggenc.ogg",
        "seek/no-seektable.flac", "seek/ffmpeg.ac3", "mp3/lame-vbr-v5.mp3", "mp3/ffmpeg-mp2-48k.mp2",
        "adts/aac-lc-44k-stereo.aac", "framed/speech.amr", "caf/ima4-stereo.caf", "wav/pcm-s16-stereo.wav",
        "mp4/aac-faststart.m4a",
    ]

    @Test(arguments: files)
    func everyLabelledPacketIsThePacketItsBytesAre(_ name: String) throws {
        let fixture = Fixture(relativePath: name)
        let bytes = fixture.bytes
        let file = try AudioFile(path: fixture.path)
        let count = file.packetCount
        try #require(count >= 20)
        for target in [count / 2, count / 5, count * 9 / 10, 3, count - 1] {
            var stream = AudioFileStream()
            // The first third read, as a listener who then jumps does.
            try stream.parse(Array(bytes[0..<bytes.count / 3])) { _ in }
            let (offset, estimated) = try stream.seek(toPacket: target)
            if estimated, let dataOffset = stream.properties.dataOffset {
                // One estimator: the seek's offset is the one PacketToByte gives.
                #expect(stream.packetToByte(target).map { $0.offset + dataOffset } == offset, "\(name) \(target)")
            }
            var labelled = 0
            var unlabelled = 0
            var first: (packet: Int64, known: Bool)?
            let rest = Array(bytes[Int(min(offset, Int64(bytes.count)))...])
            let handler: (AudioFileStream.Event) -> Void = { event in
                guard case .packets(let packets) = event else { return }
                if first == nil { first = (packets.firstPacket, packets.indexIsKnown) }
                for index in 0..<packets.count {
                    let packet = packets.firstPacket + Int64(index)
                    let own: [UInt8]
                    if let descriptions = packets.descriptions {
                        let start = Int(descriptions[index].startOffset)
                        own = Array(packets.bytes[start..<start + Int(descriptions[index].dataByteSize)])
                    } else {
                        let size = packets.bytes.count / packets.count
                        own = Array(packets.bytes[index * size..<(index + 1) * size])
                    }
                    if packets.indexIsKnown {
                        labelled += 1
                        #expect(
                            packet < count && (try? file.readPackets(from: packet, count: 1).bytes) == own,
                            "\(name): packet \(packet) after a seek to \(target)")
                    } else {
                        unlabelled += 1
                    }
                }
            }
            try stream.parse(rest, flags: .discontinuity, handler)
            try stream.finish(handler)
            // (An estimate for the last packet may fall past the last frame.)
            guard let found = first else {
                #expect(
                    estimated && target == count - 1,
                    "\(name): no packet after a seek to \(target) of \(count) at \(offset)")
                continue
            }
            if !estimated {
                // An exact seek resumes at the packet (an Ogg packet at the first one beginning on its page).
                #expect(found.known && found.packet <= target && target - found.packet < 256, "\(name) \(target)")
                if file.properties.fileType != .ogg { #expect(found.packet == target, "\(name) \(target)") }
            }
            if !found.known {
                // Unknown, and so not the number asked for unless the estimate from its own offset says so.
                #expect(labelled == 0, "\(name)")
            }
            #expect(labelled + unlabelled > 0)
        }
    }

    /// A seek back to a packet the stream has already passed is exact, also where the container has no table:
    /// the parser remembers where the packets it delivered began (unless told to remember none).
    @Test(arguments: [
        "seek/lame-vbr.mp3", "seek/lame-cbr-id3.mp3", "seek/ffmpeg-aac.aac", "seek/opusenc.opus", "seek/oggenc.ogg",
        "seek/no-seektable.flac", "seek/ffmpeg.ac3",
    ])
    func aSeekBackIsExact(_ name: String) throws {
        let fixture = Fixture(relativePath: name)
        let bytes = fixture.bytes
        let file = try AudioFile(path: fixture.path)
        for remembers in [true, false] {
            var limits = ParserLimits()
            if !remembers { limits.maximumSeekIndexPackets = 0 }
            var stream = AudioFileStream(limits: limits)
            try stream.parse(Array(bytes[0..<bytes.count * 2 / 3])) { _ in }
            let target: Int64 = 25
            let (offset, estimated) = try stream.seek(toPacket: target)
            var first: AudioFileStream.OwnedPackets?
            try stream.parse(Array(bytes[Int(offset)...]), flags: .discontinuity) { event in
                if first == nil, case .packets(let packets) = event { first = .init(copying: packets) }
            }
            let packets = try #require(first)
            if remembers || name.hasSuffix(".ac3") {
                // (AC-3 frames have one size: its seeks are exact anyway.)
                #expect(!estimated, "\(name)")
                #expect(packets.indexIsKnown)
                #expect(
                    file.properties.fileType == .ogg ? packets.firstPacket <= target : packets.firstPacket == target)
                let size = Int(packets.descriptions?[0].dataByteSize ?? 0)
                #expect(
                    try file.readPackets(from: packets.firstPacket, count: 1).bytes == Array(packets.bytes[0..<size]))
            } else {
                #expect(estimated, "\(name)")
            }
        }
    }

    /// The parsers that cannot know say so after an estimated seek; FLAC's frame numbers say which packet.
    @Test func flacFramesNumberThemselvesAfterAnEstimate() throws {
        let fixture = Fixture(relativePath: "seek/no-seektable.flac")
        let bytes = fixture.bytes
        var stream = AudioFileStream()
        try stream.parse(Array(bytes[0..<bytes.count / 3])) { _ in }
        let (offset, estimated) = try stream.seek(toPacket: 30)
        #expect(estimated)
        var first: AudioFileStream.OwnedPackets?
        try stream.parse(Array(bytes[Int(offset)...]), flags: .discontinuity) { event in
            if first == nil, case .packets(let packets) = event { first = .init(copying: packets) }
        }
        #expect(first?.indexIsKnown == true)
        let file = try AudioFile(path: fixture.path)
        let size = Int(first?.descriptions?[0].dataByteSize ?? 0)
        #expect(
            try first.map { try file.readPackets(from: $0.firstPacket, count: 1).bytes }
                == first.map { Array($0.bytes[0..<size]) })
    }

    /// What a user met: MP3 asked 140 and got 141, ADTS 158 and got 139, labelled as the packets asked for.
    @Test(arguments: ["seek/lame-vbr.mp3", "seek/ffmpeg-aac.aac", "seek/opusenc.opus", "seek/oggenc.ogg"])
    func anEstimatedSeekNeverClaimsThePacketAskedFor(_ name: String) throws {
        let fixture = Fixture(relativePath: name)
        let bytes = fixture.bytes
        let file = try AudioFile(path: fixture.path)
        // (With no packets remembered, a seek back is an estimate too.)
        var limits = ParserLimits()
        limits.maximumSeekIndexPackets = 0
        for target in stride(from: 5, to: file.packetCount - 5, by: 7) {
            var stream = AudioFileStream(limits: limits)
            try stream.parse(Array(bytes[0..<bytes.count / 4])) { _ in }
            let (offset, estimated) = try stream.seek(toPacket: target)
            #expect(estimated)
            var first: AudioFileStream.OwnedPackets?
            try stream.parse(Array(bytes[Int(offset)...]), flags: .discontinuity) { event in
                if first == nil, case .packets(let packets) = event { first = .init(copying: packets) }
            }
            let packets = try #require(first)
            let size = Int(packets.descriptions?[0].dataByteSize ?? 0)
            let truth = try (0..<file.packetCount).first {
                try file.readPackets(from: $0, count: 1).bytes == Array(packets.bytes[0..<size])
            }
            #expect(!packets.indexIsKnown)
            // The estimate is honest about where the bytes lie: near their true index, labelled unknown.
            if let truth { #expect(abs(truth - packets.firstPacket) <= max(8, file.packetCount / 10), "\(name)") }
        }
    }
}
