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
        // Two seconds in blocks of 1152: the stream the resync tests damage (issue 65).
        "music-b1152",
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

    /// music-b1152.flac damaged 100 bytes into frame 15 (of 39) in four ways, as a botched copy or transfer leaves
    /// a file: the stream's own end copied in (from inside frame 34 on: frames 35 to 38 whole, CRCs and all),
    /// frames 15 to 17 overwritten by such a copy (of frames 34 to 37), 100 bytes inserted, 50 overwritten.
    /// `ffmpeg -v error -i DAMAGED -f s16le -` (FFmpeg 5.1, measured when the test was written) decodes 45252,
    /// 41796, 42948 and 42948 samples: afkit's are the same in the last two, one frame fewer in the second (FFmpeg
    /// decodes the damaged stretch as one frame), and in the first FFmpeg also plays two of the stray copies
    /// (2 × 1152 samples of later audio again, in the wrong place), which afkit skips as damage. Resuming at the
    /// first stray frame refused every genuine frame after it as out of order (21,060 of 44,100 samples kept).
    /// Each case: its name, its bytes, the damaged range, FFmpeg's samples, and the stray frames FFmpeg plays.
    static func damagedMusic() -> [(name: String, bytes: [UInt8], damage: Range<Int64>, ffmpeg: Int64, stray: Int64)] {
        let clean = Fixture.named("flac/music-b1152.flac").bytes
        let offsets = ((try? reference("music-b1152")) ?? []).map { Int($0.offset) }
        guard offsets.count == 39 else { return [] }
        let at = offsets[15] + 100
        let pattern = (0..<100).map { UInt8(truncatingIfNeeded: $0 * 151 + 7) }
        let copy = Array(clean[(offsets[34] + 50)...])
        let overwriting = Array(clean[(offsets[34] + 50)..<(offsets[37] + 10)])
        func inserted(_ bytes: [UInt8]) -> [UInt8] { Array(clean[..<at]) + bytes + clean[at...] }
        func overwritten(_ bytes: [UInt8]) -> [UInt8] {
            Array(clean[..<at]) + bytes + clean[(at + bytes.count)...]
        }
        let start = Int64(at)
        return [
            ("a copy of the end inserted", inserted(copy), start..<start + Int64(copy.count), 45252, 2),
            (
                "a copy of later frames over three", overwritten(overwriting), start..<start + Int64(overwriting.count),
                41796, 0
            ),
            ("100 bytes inserted", inserted(pattern), start..<start + 100, 42948, 0),
            ("50 bytes overwritten", overwritten(Array(pattern[..<50])), start..<start + 50, 42948, 0),
        ]
    }

    /// Every intact frame after the damage is read (at its offset, moved by what was inserted), the frames lost
    /// are named and the file is damaged, not truncated; the same at every chunking and through the file API.
    /// Damage in one of the last frames (50 bytes zeroed 200 into it): the frames after it still come, and it is
    /// said as damage, never as a stream cut short (the end's own search for the last frame's CRC-16 found no end
    /// for the damaged frame and called the rest truncated, or took a chance match for its end).
    @Test func damageNearTheEndIsDamageNotTruncation() throws {
        let clean = Fixture.named("flac/music-b1152.flac").bytes
        let reference = try Self.reference("music-b1152")
        for back in 2...6 {
            let frame = reference[reference.count - back]
            guard frame.size > 260 else { continue }
            var bytes = clean
            let at = Int(frame.offset) + 200
            for index in at..<at + 50 { bytes[index] = 0 }
            let whole = record(bytes, chunkSizes: [bytes.count])
            #expect(whole.error == nil, "frame -\(back)")
            #expect(whole.properties.isDamaged && !whole.properties.isTruncated, "frame -\(back)")
            let expected = reference.map(\.offset).filter { $0 != frame.offset }
            #expect(Self.packets(whole).map(\.offset) == expected, "frame -\(back)")
        }
    }

    @Test func aDamagedStretchResumesAtTheNextGenuineFrame() throws {
        let reference = try Self.reference("music-b1152")
        let cases = Self.damagedMusic()
        #expect(cases.count == 4)
        for (name, bytes, damage, ffmpeg, stray) in cases {
            let shift = Int64(bytes.count) - Int64(Fixture.named("flac/music-b1152.flac").bytes.count)
            // The frames whose bytes the damage leaves whole, where they now stand.
            var intact: [Int64] = []
            var lost: [Int] = []
            for (index, frame) in reference.enumerated() {
                let end = frame.offset + Int64(frame.size)
                if end <= damage.lowerBound {
                    intact.append(frame.offset)
                } else if frame.offset >= damage.lowerBound + (shift > 0 ? 0 : Int64(damage.count)) {
                    intact.append(frame.offset + shift)
                } else {
                    lost.append(index)
                }
            }
            let whole = record(bytes, chunkSizes: [bytes.count])
            #expect(whole.error == nil, "\(name)")
            #expect(Self.packets(whole).map(\.offset) == intact, "\(name)")
            #expect(whole.properties.isDamaged && !whole.properties.isTruncated, "\(name)")
            let note = "\(lost.count) frame\(lost.count == 1 ? "" : "s") after frame \(lost[0] - 1) lost"
            #expect(whole.properties.damage.contains { $0.contains(note) }, "\(name): \(whole.properties.damage)")
            // 324 samples in the short last frame (44100 = 38 × 1152 + 324).
            let samples = Int64(intact.count - 1) * 1152 + 324
            #expect(whole.properties.validFrameCount == samples, "\(name)")
            // Every intact frame: FFmpeg's count, less the stray copies it plays, within one frame.
            #expect(abs(samples - (ffmpeg - stray * 1152)) <= 1152, "\(name)")
            for sizes in [[1], [7], [4096], [1, 4095, 2, 13]] {
                let chunked = record(bytes, chunkSizes: sizes)
                #expect(chunked.events == whole.events, "\(name), chunks \(sizes)")
                #expect(chunked.properties.damage == whole.properties.damage, "\(name), chunks \(sizes)")
            }
            let path = NSTemporaryDirectory() + "afkit-flac-damage-\(UInt32.random(in: 0...UInt32.max)).flac"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let file = try AudioFile(path: path)
            #expect(file.packetCount == Int64(intact.count) && file.properties.isDamaged, "\(name)")
        }
        // The clean file: every frame, nothing said.
        let clean = record(Fixture.named("flac/music-b1152.flac").bytes, chunkSizes: [4096])
        #expect(Self.packets(clean).map(\.offset) == reference.map(\.offset))
        #expect(!clean.properties.isDamaged && clean.properties.warnings.isEmpty)
    }

    /// A `VORBIS_COMMENT` block past the 1 MiB read limit (100,000 comments) is stepped over, as it was, and now said:
    /// a warning naming the block, its offset and size, and a `notRead` entry; the frames are all read.
    @Test func aCommentBlockPastTheReadLimitIsSaid() throws {
        let body = Self.commentBody((0..<100_000).map { "ARTIST=artist number \($0)" })
        #expect(body.count > ParserLimits().maximumMetadataChunkBytes)
        let bytes = try Self.speech(withBlocks: [(4, body)])
        for chunk in [4096, 65536] {
            let recording = record(bytes, chunkSizes: [chunk])
            #expect(recording.error == nil)
            #expect(recording.properties.infoDictionary["artist"] == nil)
            #expect(
                recording.properties.notRead == [
                    NotRead(what: "VORBIS_COMMENT block", count: Int64(body.count), unit: "bytes", offset: 42)
                ])
            #expect(
                recording.properties.warnings == [
                    "flac: the VORBIS_COMMENT block at byte 42 is \(body.count) bytes, more than the 1048576 afkit "
                        + "reads: stepped over, not read"
                ])
            #expect(recording.properties.validFrameCount == 22050 && !recording.properties.isDamaged)
        }
    }
}
