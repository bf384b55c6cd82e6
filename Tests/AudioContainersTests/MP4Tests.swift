import AudioFormats
import Foundation
import Testing

@testable import AudioContainers

/// MPEG-4 files made by FFmpeg and AtomicParsley, and assembled by make-mp4-fixtures.py for what no
/// tool writes: packets against ffprobe's, in any chunking, gapless counts against the encoder's input,
/// formats, tags, `moov` after `mdat` (held, refused with `optm`, or fetched by a seek request), seeks.
@Suite struct MP4Tests {
    static let fixtures = Fixture.all(in: ["mp4"])

    static func expectedPackets(_ fixture: Fixture) -> [(offset: Int64, size: Int64)] {
        let sidecar = fixture.sidecar
        let raw = ((sidecar["expected"] as? [String: Any])?["packets"] ?? sidecar["ffprobePackets"]) as? [[Int]] ?? []
        return raw.map { (Int64($0[0]), Int64($0[1])) }
    }

    static func offset(of type: String, in bytes: [UInt8]) -> Int64 {
        let pattern = Array(type.utf8)
        let index = (4..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == pattern } ?? 4
        return Int64(index - 4)
    }

    @Test func fixturesArePresent() {
        #expect(Self.fixtures.count >= 13)
    }

    @Test(arguments: fixtures)
    func packetsMatchFFprobe(_ fixture: Fixture) throws {
        let file = try AudioFile(path: fixture.path)
        let expected = Self.expectedPackets(fixture)
        #expect(!expected.isEmpty)
        #expect(file.packetCount == Int64(expected.count))
        let ours = try (0..<file.packetCount).map { try file.packetDescription($0) }
        let mismatch = zip(ours, expected).enumerated().first {
            $0.element.0.startOffset != $0.element.1.offset || Int64($0.element.0.dataByteSize) != $0.element.1.size
        }
        #expect(
            mismatch == nil,
            "first different packet: \(mismatch.map { "\($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "")")
        let properties = file.properties
        #expect(properties.dataOffset == expected.first?.offset)
        #expect(properties.audioDataByteCount == expected.reduce(0) { $0 + $1.size })
        #expect(Int64(properties.maximumPacketSize ?? 0) == expected.map(\.size).max())
        #expect(!properties.isTruncated)
        #expect(properties.fileType == (fixture.relativePath.hasSuffix(".m4a") ? .m4a : .mp4))
    }

    /// The push parser gives the file API's packets at 1, 2, 3, 7, 64, 4096 and random splits; a file whose
    /// `moov` comes last is held whole, or (with a client that answers seeks) fetched by two seek requests.
    @Test(arguments: fixtures)
    func streamingInAnyChunking(_ fixture: Fixture) throws {
        let bytes = fixture.bytes
        let expected = Self.expectedPackets(fixture).map {
            RecordedEvent.packet(offset: $0.offset, size: Int($0.size), frames: 0)
        }
        var random = SplitMix64(seed: 0x4D50_34)
        let randomSizes = (0..<64).map { _ in Int.random(in: 1...900, using: &random) }
        let moovLast = Self.offset(of: "moov", in: bytes) > Self.offset(of: "mdat", in: bytes)
        for sizes in [[1], [2], [3], [7], [64], [4096], randomSizes] {
            for answeringSeeks in [false, true] {
                let recording = record(bytes, chunkSizes: sizes, answeringSeeks: answeringSeeks)
                #expect(
                    recording.error == nil,
                    "\(sizes.prefix(2)) \(answeringSeeks): \(String(describing: recording.error))")
                let packets = recording.events.filter {
                    if case .packet = $0 { return true } else { return false }
                }.map { event -> RecordedEvent in
                    guard case .packet(let offset, let size, _) = event else { return event }
                    return .packet(offset: offset, size: size, frames: 0)
                }
                #expect(packets == expected, "chunks \(sizes.prefix(2)), seeks \(answeringSeeks)")
                #expect(recording.properties.audioDataPacketCount == Int64(expected.count))
                if answeringSeeks && moovLast {
                    // Past mdat to moov, then back to the first packet.
                    let mdat = Self.offset(of: "mdat", in: bytes)
                    #expect(recording.seekRequests.count == 2)
                    #expect(recording.seekRequests.last == Self.expectedPackets(fixture).first?.offset)
                    #expect(recording.seekRequests.first.map { $0 > mdat } == true)
                    #expect(recording.properties.isOptimized == false)
                } else {
                    #expect(recording.seekRequests.isEmpty)
                    #expect(recording.properties.isOptimized == !moovLast)
                }
            }
        }
    }

    /// Gapless: the valid frames equal the encoder's input (FFmpeg's edit lists are in milliseconds;
    /// their media times and the sample table's exact end say the rest).
    /// (FFmpeg's AC-3 encoder does not mark its last packet's padding, so its file says more; fragmented
    /// files carry no gapless information.)
    @Test(
        arguments: fixtures.filter {
            $0.sidecar["sourceFrames"] != nil && !$0.relativePath.contains("fragmented")
                && !$0.relativePath.contains("ac3")
        })
    func validFramesAreTheSource(_ fixture: Fixture) throws {
        let summary = try AudioFileSummary(AudioFile(path: fixture.path).properties)
        let source = try #require(fixture.sidecar.int("sourceFrames"))
        let sourceRate = try #require(fixture.sidecar.int("sourceRate"))
        // Opus runs at 48 kHz whatever the source: compare durations, within one frame.
        let scaled = Double(source) * summary.format.sampleRate / Double(sourceRate)
        #expect(abs(Double(summary.frameCount) - scaled) <= 1, "\(summary.frameCount) frames for a source of \(source)")
        // Lossless codecs have no encoder delay.
        #expect(summary.primingFrames > 0 || [.alac, .flac].contains(summary.format.formatID))
        #expect(
            summary.frameCount + summary.primingFrames + summary.remainderFrames
                == summary.packetCount * Int64(summary.format.framesPerPacket))
    }

    @Test func fragmentedFilesHaveNoGaplessInformation() throws {
        let summary = try AudioFileSummary(AudioFile(path: Fixture.named("mp4/aac-fragmented.mp4").path).properties)
        #expect(summary.primingFrames == 0 && summary.remainderFrames == 0)
        #expect(summary.frameCount == summary.packetCount * 1024)
    }

    /// The contract's MPEG-4 details: an edit shorter than the sample table is taken as it is (FFmpeg's
    /// AC-3 of 10,464 frames after 256 of priming, in a table of 7 x 1536: not stretched to 10,496).
    @Test func anEditShorterThanTheTableIsTakenAsItIs() throws {
        let fixture = Fixture.named("mp4/ac3-edit-shorter.mp4")
        let expected = fixture.expected
        let summary = try AudioFileSummary(AudioFile(path: fixture.path).properties)
        #expect(summary.format.formatID == FourCharCode(validating: expected.string("formatID") ?? ""))
        #expect(summary.frameCount == expected.int("frameCount"))
        #expect(summary.primingFrames == expected.int("primingFrames"))
        #expect(summary.remainderFrames == expected.int("remainderFrames"))
        // The push parser says the same at any chunking.
        for size in [1, 7, 4096] {
            let recording = record(fixture.bytes, chunkSizes: [size])
            #expect(recording.error == nil)
            #expect(recording.properties.packetTableInfo?.validFrames == Int64(expected.int("frameCount") ?? -1))
        }
    }

    /// A file whose `moov` is whole but whose `mdat` is cut before its first sample (inside its header, or
    /// right after it) is read: 0 packets, truncated (before: `eof!`).
    @Test func aWholeMoovWithNoAudioIsZeroPacketsTruncated() throws {
        let bytes = Fixture.named("mp4/aac-faststart.m4a").bytes
        let mdat = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(Array("mdat".utf8)) })
        for cut in [mdat - 2, mdat + 4, mdat + 9] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-cut-\(getpid())-\(cut).m4a")
                .path
            try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let file = try AudioFile(path: path)
            #expect(file.packetCount == 0, "cut at \(cut)")
            #expect(file.properties.isTruncated, "cut at \(cut)")
            #expect(try AudioFileSummary(file.properties).frameCount == 0)
            for size in [1, 13, 4096] {
                let recording = record(Array(bytes[..<cut]), chunkSizes: [size])
                #expect(
                    recording.error == nil, "cut at \(cut), chunks of \(size): \(String(describing: recording.error))")
                #expect(recording.properties.isTruncated)
                #expect(!recording.events.contains { if case .packet = $0 { true } else { false } })
            }
        }
    }

    @Test func assembledLayoutsCarryWhatTheirMakerPutIn() throws {
        for name in ["assembled-quicktime.m4a", "assembled-itunsmpb.mp4"] {
            let fixture = Fixture.named("mp4/" + name)
            let expected = fixture.expected
            let file = try AudioFile(path: fixture.path)
            let summary = try AudioFileSummary(file.properties)
            #expect(summary.format.formatID == FourCharCode(validating: expected.string("formatID") ?? ""))
            #expect(summary.format.sampleRate == Double(expected.int("sampleRate") ?? 0))
            #expect(Int64(summary.format.channelsPerFrame) == expected.int("channels"))
            #expect(summary.primingFrames == expected.int("primingFrames"))
            #expect(summary.remainderFrames == expected.int("remainderFrames"))
            #expect(summary.frameCount == expected.int("frameCount"))
            for (key, value) in expected["metadata"] as? [String: String] ?? [:] {
                #expect(summary.metadata[key] == value, "\(name): \(key)")
            }
        }
    }

    @Test func formatsOfEveryKind() throws {
        let cases: [(String, FourCharCode, Double, UInt32, UInt32, Int?)] = [
            ("aac-faststart.m4a", .aac, 44100, 2, 1024, 5),
            ("aac-mono-22k.m4a", .aac, 22050, 1, 1024, 5),
            ("aac-fragmented.mp4", .aac, 44100, 2, 1024, 5),
            ("alac-mono-22k.m4a", .alac, 22050, 1, 4096, 24),
            ("mp3.mp4", .mpegLayer3, 44100, 2, 1152, nil),
            // `dOps` is handed on as Ogg's `OpusHead` (19 bytes), what the decoders take.
            ("opus.mp4", .opus, 48000, 2, 960, 19),
            // `dfLa` whole, as in CAF: STREAMINFO behind its block header.
            ("flac.mp4", .flac, 22050, 1, 2304, 50),
            ("ac3.mp4", .ac3, 32000, 1, 1536, nil),  // AC-3 has no 22050 Hz: FFmpeg resampled
        ]
        for (name, id, rate, channels, frames, cookie) in cases {
            let format = try AudioFile(path: Fixture.named("mp4/" + name).path).properties
            #expect(format.dataFormat?.formatID == id, "\(name)")
            #expect(format.dataFormat?.sampleRate == rate, "\(name)")
            #expect(format.dataFormat?.channelsPerFrame == channels, "\(name)")
            #expect(format.dataFormat?.framesPerPacket == frames, "\(name)")
            #expect(format.magicCookie?.count == cookie, "\(name)")
            #expect(format.formatList == [format.dataFormat].compactMap { $0 })
        }
        // ALAC's flags say the source depth (1: 16 bits).
        let alac = try AudioFile(path: Fixture.named("mp4/alac-mono-22k.m4a").path)
        #expect(alac.dataFormat.formatFlags.rawValue == 1)
    }

    /// HE-AAC signalled in the AudioSpecificConfig: the richest layer is the format, the list has all.
    @Test(arguments: ["he-aac-backward-compatible.m4a", "he-aac-v2-explicit.m4a"])
    func highEfficiencyAACLayers(_ name: String) throws {
        let fixture = Fixture.named("mp4/" + name)
        let expected = fixture.expected
        let properties = try AudioFile(path: fixture.path).properties
        let format = try #require(properties.dataFormat)
        #expect(format.formatID.description == expected.string("formatID"))
        #expect(format.sampleRate == Double(expected.int("sampleRate") ?? 0))
        #expect(Int64(format.channelsPerFrame) == expected.int("channels"))
        #expect(Int64(format.framesPerPacket) == expected.int("framesPerPacket"))
        let layers = (expected["formatList"] as? [[Any]] ?? []).map { layer in
            "\(layer[0]) \(layer[1]) \(layer[2]) \(layer[3])"
        }
        #expect(
            properties.formatList.map {
                "\($0.formatID) \(Int($0.sampleRate)) \($0.channelsPerFrame) \($0.framesPerPacket)"
            } == layers)
    }

    @Test func tagsFromAtomicParsleyAndCoverArtSkipped() throws {
        let fixture = Fixture.named("mp4/aac-tagged.m4a")
        let properties = try AudioFile(path: fixture.path).properties
        for (key, value) in fixture.expected["metadata"] as? [String: String] ?? [:] {
            #expect(properties.infoDictionary[key] == value, "\(key)")
        }
        #expect(properties.trace.contains("cover art"))
        // The cover is bigger than anything the streaming parser holds at the end: never buffered.
        var stream = AudioFileStream()
        var largest = 0
        try fixture.bytes.withUnsafeBytes { bytes in
            var index = 0
            while index < bytes.count {
                let end = min(index + 64, bytes.count)
                try stream.parse(UnsafeRawBufferPointer(rebasing: bytes[index..<end])) { _ in }
                largest = max(largest, stream.bufferedByteCount)
                index = end
            }
        }
        try stream.finish()
        #expect(largest < 1024)
    }

    /// Without seek requests, a stream holds at most the retained-audio limit of `mdat` waiting for
    /// `moov`, then fails with `optm` at the offset of `mdat`.
    @Test func moovAfterTooMuchAudioIsNotOptimized() {
        let fixture = Fixture.named("mp4/aac-moov-last.m4a")
        var limits = ParserLimits()
        limits.maximumRetainedAudioBytes = 2000
        let recording = record(fixture.bytes, chunkSizes: [512], limits: limits)
        #expect(recording.error?.code == "optm")
        #expect(recording.error?.offset == Self.offset(of: "mdat", in: fixture.bytes))
        // Within the limit the same file streams whole.
        #expect(record(fixture.bytes, chunkSizes: [512]).error == nil)
    }

    /// A client that does not honour the seek request ends with `optm`, not a hang or a crash.
    @Test func anUnansweredSeekRequestEndsInNotOptimized() throws {
        let bytes = Fixture.named("mp4/aac-moov-last.m4a").bytes
        var stream = AudioFileStream(requestsSeeks: true)
        var requests: [Int64] = []
        try stream.parse(bytes) { if case .seekRequested(let offset) = $0 { requests.append(offset) } }
        #expect(requests.count == 1)
        #expect(throws: AudioFileError.self) { try stream.finish() }
        do { try stream.finish() } catch let error as AudioFileError { #expect(error.code == "optm") }
    }

    /// `seek(toPacket:)` is exact from the sample table; parsing resumes at the packet.
    @Test func seekToAPacketIsExact() throws {
        let fixture = Fixture.named("mp4/aac-fragmented.mp4")
        let file = try AudioFile(path: fixture.path)
        let bytes = fixture.bytes
        for target: Int64 in [10, 40] {
            var stream = AudioFileStream()
            var first: (packet: Int64, offset: Int64)?
            // Feed up to the end of the fragment holding the packet, then seek back to it.
            try stream.parse(bytes) { _ in }
            let (offset, estimated) = try stream.seek(toPacket: target)
            #expect(!estimated)
            #expect(offset == (try file.packetDescription(target)).startOffset)
            try bytes[Int(offset)...].withUnsafeBytes { rest in
                try stream.parse(rest, flags: .discontinuity) { event in
                    if first == nil, case .packets(let run) = event {
                        first = (run.firstPacket, run.streamOffset + (run.descriptions?.first?.startOffset ?? 0))
                    }
                }
            }
            #expect(first?.packet == target)
            #expect(first?.offset == offset)
        }
    }

    /// Every cut inside the header boxes is a typed error with an offset inside the input; every cut
    /// inside the audio is an honest count of the whole packets present.
    @Test(arguments: ["aac-faststart.m4a", "aac-moov-last.m4a", "aac-fragmented.mp4", "assembled-quicktime.m4a"])
    func everyTruncation(_ name: String) throws {
        let bytes = Fixture.named("mp4/" + name).bytes
        let packets = Self.expectedPackets(Fixture.named("mp4/" + name))
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 600)) {
            let cut = Array(bytes[..<length])
            let recording = record(cut, chunkSizes: [97])
            if let error = recording.error {
                #expect(error.offset.map { $0 >= 0 && $0 <= Int64(length) } ?? true, "\(length): \(error)")
            } else {
                let whole = packets.prefix { $0.offset + $0.size <= Int64(length) }.count
                #expect(recording.properties.audioDataPacketCount == Int64(whole), "cut at \(length)")
                // A fragmented stream knows only the fragments that arrived.
                if !name.contains("fragmented") {
                    #expect(recording.properties.isTruncated == (whole < packets.count), "cut at \(length)")
                }
            }
        }
    }

    /// Sizes that lie, tables that disagree, many boxes: typed errors or honest parses, built here from a
    /// real file.
    @Test func lyingBoxes() throws {
        let bytes = Fixture.named("mp4/aac-faststart.m4a").bytes
        let moov = Int(Self.offset(of: "moov", in: bytes))
        let trak = Int(Self.offset(of: "trak", in: bytes))
        func patched(_ at: Int, _ value: [UInt8]) -> [UInt8] {
            var copy = bytes
            copy.replaceSubrange(at..<at + value.count, with: value)
            return copy
        }
        // A child larger than its parent; a box smaller than its header; size 0 inside moov.
        let lies: [([UInt8], String)] = [
            ([0x7F, 0xFF, 0xFF, 0x00], "chk?"), ([0, 0, 0, 5], "chk?"), ([0, 0, 0, 0], "chk?"),
        ]
        for (value, code) in lies {
            let recording = record(patched(trak, value), chunkSizes: [4096])
            #expect(recording.error?.code == FourCharCode(validating: code), "\(value)")
            #expect(recording.error?.offset == Int64(trak))
        }
        // 10,000 empty boxes before moov and 20,000 inside it parse; more than the limit inside one box does not.
        let free: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
        let many = Array(bytes[..<moov]) + Array(repeating: free, count: 10_000).flatMap { $0 } + Array(bytes[moov...])
        #expect(record(many, chunkSizes: [4096]).error == nil)
        func moovHolding(_ count: Int) -> [UInt8] {
            let size =
                UInt32(
                    Int(bytes[moov]) << 24 | Int(bytes[moov + 1]) << 16 | Int(bytes[moov + 2]) << 8
                        | Int(bytes[moov + 3])) + UInt32(count * 8)
            let header = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            // The moov grows: chunk offsets move by the same amount, which does not matter to the error.
            return Array(bytes[..<moov]) + header + Array(bytes[moov + 4..<moov + 8])
                + Array(repeating: free, count: count).flatMap { $0 } + Array(bytes[(moov + 8)...])
        }
        #expect(record(moovHolding(20_000), chunkSizes: [4096]).error == nil)
        #expect(record(moovHolding(MP4Parser.maximumBoxesPerHeader + 1), chunkSizes: [1 << 16]).error?.code == "lim!")
    }
}

/// Audio File Stream Services' remaining properties: average bytes per packet, the packet size upper
/// bound, and byte/packet translations, exact where the file's tables say, flagged where estimated.
@Suite struct StreamTranslationTests {
    static func streamed(_ relativePath: String, finishing: Bool = true) throws -> AudioFileStream {
        var stream = AudioFileStream()
        try stream.parse(Fixture.named(relativePath).bytes) { _ in }
        if finishing { try stream.finish() }
        return stream
    }

    /// From a sample table (MP4), a packet table (CAF `pakt`) or constant packets (IMA4), every packet's
    /// offset and every byte's packet are exact, before the stream ends.
    @Test(arguments: [
        "mp4/aac-faststart.m4a", "mp4/assembled-quicktime.m4a", "caf/alac-stereo.caf", "caf/ima4-stereo.caf",
    ])
    func exactTranslations(_ path: String) throws {
        let file = try AudioFile(path: Fixture.named(path).path)
        let stream = try Self.streamed(path, finishing: false)
        let dataOffset = try #require(file.properties.dataOffset)
        for packet in stride(from: Int64(0), to: file.packetCount, by: Int64.Stride(max(1, file.packetCount / 50))) {
            let description = try file.packetDescription(packet)
            let start = description.startOffset - dataOffset
            let forward = try #require(stream.packetToByte(packet))
            #expect(forward.offset == start && !forward.isEstimate, "packet \(packet)")
            let back = try #require(stream.byteToPacket(start + Int64(description.dataByteSize) - 1))
            #expect(
                back.packet == packet && back.offsetInPacket == Int64(description.dataByteSize) - 1 && !back.isEstimate)
        }
        let average = try #require(stream.averageBytesPerPacket)
        #expect(!average.isEstimate)
        #expect(average.value == Double(file.properties.audioDataByteCount ?? 0) / Double(file.packetCount))
    }

    /// An MP3 stream knows its counts only at the end: until then the average is the packets' so far,
    /// and translations from it are estimates; an MP4 fragment's counts are not declared either.
    @Test func estimatesAreFlagged() throws {
        let path = "mp3/ffmpeg-libmp3lame.mp3"
        let open = try Self.streamed(path, finishing: false)
        let average = try #require(open.averageBytesPerPacket)
        #expect(average.isEstimate)
        // A packet already passed is where it was seen; one not yet seen is an estimate.
        #expect(open.packetToByte(10)?.isEstimate == false)
        #expect(open.packetToByte(1000)?.isEstimate == true)
        #expect(open.byteToPacket(5000)?.isEstimate == true)
        let done = try Self.streamed(path)
        #expect(done.averageBytesPerPacket?.isEstimate == false)
        #expect(try Self.streamed("mp4/aac-fragmented.mp4", finishing: false).averageBytesPerPacket?.isEstimate == true)
    }

    @Test func packetSizeUpperBounds() throws {
        let cases: [(String, UInt32)] = [
            ("mp4/aac-faststart.m4a", 768 * 2), ("mp4/mp3.mp4", 1441), ("caf/ima4-stereo.caf", 68),
            ("mp4/alac-mono-22k.m4a", 0),
        ]
        for (path, bound) in cases {
            let properties = try AudioFile(path: Fixture.named(path).path).properties
            let upper = try #require(properties.packetSizeUpperBound)
            #expect(upper >= properties.maximumPacketSize ?? 0, "\(path)")
            if bound > 0 { #expect(upper == bound, "\(path)") }
        }
    }
}
