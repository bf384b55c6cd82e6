import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Native FLAC through the push parser, against the committed files made by `flac` and FFmpeg
/// (Fixtures/make-flac-fixtures.sh) and ffprobe's packet list beside each.
@Suite struct FLACTests {
    static let files = [
        "speech", "stereo-tags", "stereo-picture", "stereo-cuesheet", "hires-24bit", "hires-lpc32-b1000",
        "eight-bit", "surround-5.1", "octo-7.1", "total-zero", "ffmpeg-stereo", "id3-before",
        // Cover art larger than the file API's 64 KiB read: stepped over unread (issue 53).
        "large-picture",
    ]

    /// ffprobe's packets (offset, size) for a fixture.
    static func reference(_ name: String) throws -> [(offset: Int64, size: Int)] {
        try ffprobePackets("flac/\(name).packets")
    }

    static func packets(_ recording: StreamRecording) -> [(offset: Int64, size: Int)] { recording.packetList }

    @Test(arguments: files)
    func framesAreFFprobesPacketsAtEveryChunking(name: String) throws {
        let bytes = Fixture.named("flac/\(name).flac").bytes
        let expected = try Self.reference(name)
        #expect(!expected.isEmpty)
        for chunk in [1, 7, 4096] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil, "\(name) at \(chunk)-byte chunks")
            let packets = Self.packets(recording)
            #expect(packets.map(\.offset) == expected.map(\.offset), "\(name) at \(chunk)-byte chunks")
            #expect(packets.map(\.size) == expected.map(\.size), "\(name) at \(chunk)-byte chunks")
            #expect(recording.properties.fileType == .flac)
            #expect(!recording.properties.isTruncated)
        }
        // The file API finds the same packets.
        let file = try AudioFile(path: Fixture.named("flac/\(name).flac").path)
        #expect(file.packetCount == Int64(expected.count))
        for (index, packet) in expected.enumerated() {
            let description = try file.packetDescription(Int64(index))
            #expect(description.startOffset == packet.offset && Int(description.dataByteSize) == packet.size)
        }
    }

    @Test func streamInfoGivesTheFormatAndValidFrames() throws {
        let file = try AudioFile(path: Fixture.named("flac/stereo-tags.flac").path)
        let format = try #require(file.properties.dataFormat)
        #expect(format.formatID == .flac)
        #expect(format.sampleRate == 44100 && format.channelsPerFrame == 2)
        #expect(format.formatFlags.rawValue == 1)  // 16-bit source, as Apple flags ALAC and FLAC
        #expect(format.framesPerPacket == 4096)
        // 0.5 s at 44.1 kHz: the frames' samples, and STREAMINFO's total.
        #expect(file.properties.validFrameCount == 22050)
        #expect(file.properties.packetTableInfo?.remainderFrames == Int32(6 * 4096 - 22050))
        #expect(file.properties.magicCookie?.count == 34)
        let hires = try AudioFile(path: Fixture.named("flac/hires-24bit.flac").path)
        #expect(hires.dataFormat.formatFlags.rawValue == 3 && hires.dataFormat.sampleRate == 48000)
        #expect(hires.properties.validFrameCount == 12000)
        let odd = try AudioFile(path: Fixture.named("flac/hires-lpc32-b1000.flac").path)
        #expect(odd.dataFormat.framesPerPacket == 1000 && odd.properties.validFrameCount == 12000)
    }

    @Test func vorbisCommentsBecomeMetadata() throws {
        let file = try AudioFile(path: Fixture.named("flac/stereo-tags.flac").path)
        let metadata = file.properties.infoDictionary
        #expect(metadata["title"] == "Stereo")
        #expect(metadata["artist"] == "afkit; Second")
        #expect(metadata["encoding application"]?.hasPrefix("reference libFLAC") == true)
    }

    @Test func picturesAreDescribedAndCueSheetsBecomeMarkers() throws {
        let picture = try AudioFile(path: Fixture.named("flac/stereo-picture.flac").path)
        // Its header read, its data passed over.
        #expect(picture.properties.trace.contains("PICTURE: type 3, image/png, 101 bytes"))
        #expect(picture.properties.pictures.map(\.byteCount) == [101])
        let cue = try AudioFile(path: Fixture.named("flac/stereo-cuesheet.flac").path)
        let markers = cue.properties.markers.map { "\($0.name)@\($0.framePosition)" }
        // Track 2's pregap (index 0) at 10 sectors of 588 samples, its start (index 1) at 15.
        #expect(markers == ["track 1@0", "track 2 index 0@5880", "track 2@8820"])
    }

    @Test func aZeroTotalIsCountedFromTheFrames() throws {
        let counted = try AudioFile(path: Fixture.named("flac/total-zero.flac").path)
        let stated = try AudioFile(path: Fixture.named("flac/speech.flac").path)
        #expect(counted.properties.validFrameCount == stated.properties.validFrameCount)
        #expect(counted.properties.validFrameCount == 22050)
        #expect(!counted.properties.isTruncated)
    }

    /// A flipped byte inside a frame (its CRC-16 fails): the frame is skipped and said, every other frame read,
    /// however the file is cut and by the file API alike (it was a typed error for the whole file: one damaged
    /// frame cost every frame after it, and the format could not even be shown).
    @Test func aDamagedFrameIsSkippedAndSaid() throws {
        let size = Int64(Fixture.named("flac/speech.flac").bytes.count)
        let frames = try Self.reference("speech")
        // The frame holding the flipped byte (the file's middle).
        let damaged = try #require(frames.last { $0.offset <= size / 2 })
        let expected = frames.filter { $0.offset != damaged.offset }.map(\.offset)
        for chunk in [7, 4096] {
            let recording = record(Fixture.named("flac/damaged.flac.bin").bytes, chunkSizes: [chunk])
            #expect(recording.error == nil)
            #expect(Self.packets(recording).map(\.offset) == expected, "\(chunk)-byte chunks")
            #expect(
                recording.properties.damage.contains { $0.contains("1 frame after frame") },
                "\(recording.properties.damage)")
            #expect(!recording.properties.isTruncated)
        }
        let file = try AudioFile(path: Fixture.named("flac/damaged.flac.bin").path)
        #expect(file.packetCount == Int64(expected.count) && file.properties.isDamaged)
    }

    /// Bytes after the last frame (zeros, junk): the last frame is read whole (its CRC-16 checks where it ends)
    /// and the file is not called truncated; the bytes are a warning.
    @Test func junkAfterTheLastFrameKeepsIt() throws {
        let clean = Fixture.named("flac/speech.flac").bytes
        var random = SplitMix64(seed: 9)
        for tail in [
            [UInt8](repeating: 0, count: 200), (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) },
        ] {
            let recording = record(clean + tail, chunkSizes: [4096])
            #expect(recording.error == nil)
            #expect(recording.properties.validFrameCount == 22050)
            #expect(!recording.properties.isTruncated && !recording.properties.isDamaged)
            #expect(recording.properties.warnings.contains("flac: \(tail.count) bytes after the last frame skipped"))
        }
    }

    @Test func aCutFileKeepsItsWholeFramesAndSaysItIsTruncated() throws {
        let bytes = Fixture.named("flac/truncated.flac.bin").bytes
        let whole = try Self.reference("speech").filter { $0.offset + Int64($0.size) <= Int64(bytes.count) }
        for chunk in [1, 4096] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil)
            #expect(Self.packets(recording).map(\.offset) == whole.map(\.offset))
            #expect(recording.properties.isTruncated)
            #expect(recording.properties.validFrameCount == Int64(whole.count * 4096))
        }
    }

    @Test func seeksAreExactAtSeekTablePointsAndFoundByTheFrameNumberElsewhere() throws {
        for name in ["speech", "total-zero"] {
            let bytes = Fixture.named("flac/\(name).flac").bytes
            let frames = try Self.reference(name)
            // (The packets passed are not remembered here: the seek table and the estimate are what is tried.)
            var limits = ParserLimits()
            limits.maximumSeekIndexPackets = 0
            var stream = AudioFileStream(limits: limits)
            try stream.parse(bytes) { _ in }
            for target in [2, 3, 0, 1] as [Int64] {
                let (offset, isEstimated) = try stream.seek(toPacket: target)
                // speech.flac has a SEEKTABLE point at packet 2's first sample (8192) and at 0.
                let exact = name == "speech" && (target == 2 || target == 0)
                #expect(isEstimated == !exact, "\(name) packet \(target)")
                if exact { #expect(offset == frames[Int(target)].offset) }
                var first: (packet: Int64, offset: Int64)?
                try stream.parse(Array(bytes[Int(offset)...]), flags: .discontinuity) { event in
                    if case .packets(let run) = event, first == nil { first = (run.firstPacket, run.streamOffset) }
                }
                // Wherever the estimate lands, the frame found there is numbered right.
                let found = try #require(first, "\(name) packet \(target)")
                #expect(frames[Int(found.packet)].offset == found.offset, "\(name) packet \(target)")
                if exact { #expect(found.packet == target) }
            }
        }
    }

    @Test func hostileStreamInfoAndBlocksAreRefusedWithOffsets() throws {
        let good = Fixture.named("flac/speech.flac").bytes
        // STREAMINFO with a rate of 0.
        var zeroRate = good
        zeroRate[18] = 0
        zeroRate[19] = 0
        zeroRate[20] &= 0x0F
        let rateError = try #require(record(zeroRate, chunkSizes: [4096]).error)
        #expect(rateError.code == "dta?" && rateError.offset == 8)
        // Every bit of the packed rate, channels, depth and total set: read, never trapped on.
        var allOnes = good
        for index in 18..<26 { allOnes[index] = 0xFF }
        _ = record(allOnes, chunkSizes: [4096])
        // A first block that is not STREAMINFO.
        var notFirst = good
        notFirst[4] = 0x04
        #expect(record(notFirst, chunkSizes: [4096]).error?.code == "dta?")
        // A picture block that claims 16 MB in a 32 KB file: stepped over, then the stream ends inside it.
        let lying = Array(good[0..<42]) + [0x86, 0xFF, 0xFF, 0xFF] + Array(good[42..<200])
        let cut = try #require(record(lying, chunkSizes: [7]).error)
        #expect(cut.code == "eof!")
        // The signature and nothing else.
        #expect(record(Array("fLaC".utf8), chunkSizes: [1]).error?.code == "eof!")
    }

    /// speech.flac with its metadata replaced: STREAMINFO, then `blocks` (type and body, the last flagged), then
    /// speech.flac's frames.
    static func speech(withBlocks blocks: [(type: UInt8, body: [UInt8])]) throws -> [UInt8] {
        let speech = Fixture.named("flac/speech.flac").bytes
        var position = 4
        while speech[position] & 0x80 == 0 {
            position +=
                4 + (Int(speech[position + 1]) << 16 | Int(speech[position + 2]) << 8 | Int(speech[position + 3]))
        }
        let frames =
            position + 4
            + (Int(speech[position + 1]) << 16 | Int(speech[position + 2]) << 8 | Int(speech[position + 3]))
        var bytes = Array(speech[0..<42])
        for (index, block) in blocks.enumerated() {
            let length = block.body.count
            #expect(length < 1 << 24)
            bytes += [
                (index == blocks.count - 1 ? 0x80 : 0) | block.type, UInt8(truncatingIfNeeded: length >> 16),
                UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            ]
            bytes += block.body
        }
        if blocks.isEmpty { bytes[4] |= 0x80 }
        return bytes + speech[frames...]
    }

    /// A `VORBIS_COMMENT` body holding `fields`, vendor "test".
    static func commentBody(_ fields: [String]) -> [UInt8] {
        var body: [UInt8] = [4, 0, 0, 0] + Array("test".utf8)
        body.appendInteger(UInt32(fields.count), endianness: .little)
        for field in fields {
            body.appendInteger(UInt32(field.utf8.count), endianness: .little)
            body += field.utf8
        }
        return body
    }

    /// A field given tens of thousands of times keeps every value, in order, joined once (joined as they came, each
    /// repeat copied all the values before it: 300,000 comments took `info` 87 s).
    @Test func aFieldRepeatedManyTimesKeepsEveryValueInOrder() throws {
        let count = 40000
        var fields: [String] = []
        for index in 0..<count {
            fields.append("ARTIST=a\(index)")
            if index % 2 == 0 { fields.append("genre=g\(index)") }
        }
        let bytes = try Self.speech(withBlocks: [(4, Self.commentBody(fields))])
        for chunk in [4096, 65536] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil)
            let metadata = recording.properties.infoDictionary
            #expect(metadata["artist"] == (0..<count).map { "a\($0)" }.joined(separator: "; "))
            #expect(metadata["genre"] == stride(from: 0, to: count, by: 2).map { "g\($0)" }.joined(separator: "; "))
            #expect(metadata["encoding application"] == "test")
            #expect(recording.properties.validFrameCount == 22050)
        }
    }
}
