import AudioContainers
import AudioFormats
import Foundation
import Testing

/// MPEG-4's loudness box (`trak/udta/ludt/tlou`, ISO/IEC 14496-12 12.2.7 with ISO/IEC 23003-4's codes): the
/// codes at their bounds, every figure written and read back (plain and fragmented files, at any chunking), a
/// version 1 box, the movie's own `ludt`, and boxes that lie.
@Suite struct MP4LoudnessTests {
    static let aac = StreamDescription(
        sampleRate: 48000, formatID: .aac, formatFlags: [], bytesPerPacket: 0, framesPerPacket: 1024,
        bytesPerFrame: 0, channelsPerFrame: 2, bitsPerChannel: 0)
    /// AAC-LC, 48 kHz, stereo.
    static let aacConfig: [UInt8] = [0x11, 0x90]
    static let alac = StreamDescription(
        sampleRate: 44100, formatID: .alac, formatFlags: [], bytesPerPacket: 0, framesPerPacket: 4096,
        bytesPerFrame: 0, channelsPerFrame: 2, bitsPerChannel: 0)
    /// ALAC's 24-byte configuration: 4096 frames a packet, 16 bits, stereo, 44.1 kHz.
    static let alacConfig: [UInt8] = [
        0, 0, 0x10, 0, 0, 16, 40, 10, 14, 2, 0, 255, 0, 0, 0x40, 0x04, 0, 0x0A, 0x4A, 0x3C, 0, 0, 0xAC, 0x44,
    ]

    /// Every figure stated, each on its code's grid.
    static let everyFigure = LoudnessInfo(
        integratedLoudness: -16.25, anchorLoudness: -18.5, maximumMomentaryLoudness: -9,
        maximumShortTermLoudness: -11.75,
        loudnessRange: 5.5, truePeak: -1.03125, samplePeak: -1.5, measurementSystem: .ebuR128, reliability: .accurate)

    // MARK: The codes

    @Test func everyCodeComesBackAsItWas() {
        for method: UInt8 in [1, 2, 4, 5, 6] {
            for code in UInt8.min...UInt8.max {
                let value = LoudnessInfo.value(method: method, code: code)
                #expect(value.flatMap { LoudnessInfo.code(method: method, value: $0) } == code, "method \(method)")
            }
        }
        for code in UInt16(1)...4095 {
            #expect(LoudnessInfo.peak(code).flatMap(LoudnessInfo.peakCode) == code)
        }
        #expect(LoudnessInfo.peak(0) == nil)
        #expect(LoudnessInfo.value(method: 0, code: 10) == nil)
        #expect(LoudnessInfo.value(method: 7, code: 10) == nil)
    }

    @Test func codesAtTheirBounds() {
        // Loudness: -57.75 LUFS is code 0, +6 LUFS code 255, 0.25 LU a step; past them, clamped.
        #expect(LoudnessInfo.code(method: 1, value: -57.75) == 0)
        #expect(LoudnessInfo.code(method: 1, value: 6) == 255)
        #expect(LoudnessInfo.code(method: 1, value: -100) == 0)
        #expect(LoudnessInfo.code(method: 1, value: 20) == 255)
        #expect(LoudnessInfo.code(method: 1, value: -23) == 139)
        #expect(LoudnessInfo.value(method: 1, code: 139) == -23)
        // Rounded to the nearest step.
        #expect(LoudnessInfo.code(method: 1, value: -16.1) == LoudnessInfo.code(method: 1, value: -16))
        #expect(LoudnessInfo.code(method: 1, value: -16.2) == LoudnessInfo.code(method: 1, value: -16.25))
        // Loudness range: 0.25 LU to 32 (code 128), 0.5 LU to 70 (code 204), 1 LU to 121 (code 255).
        #expect(LoudnessInfo.code(method: 6, value: 32) == 128)
        #expect(LoudnessInfo.code(method: 6, value: 32.5) == 129)
        #expect(LoudnessInfo.code(method: 6, value: 70) == 204)
        #expect(LoudnessInfo.code(method: 6, value: 71) == 205)
        #expect(LoudnessInfo.code(method: 6, value: 121) == 255)
        #expect(LoudnessInfo.code(method: 6, value: 500) == 255)
        #expect(LoudnessInfo.code(method: 6, value: -3) == 0)
        #expect(LoudnessInfo.value(method: 6, code: 129) == 32.5)
        #expect(LoudnessInfo.value(method: 6, code: 205) == 71)
        // Peaks: 20 - code / 32 dB, code 1 (+19.97) to 4095 (-107.97); 0 is "none".
        #expect(LoudnessInfo.peakCode(-1) == 672)
        #expect(LoudnessInfo.peakCode(19.97) == 1)
        #expect(LoudnessInfo.peakCode(40) == 1)
        #expect(LoudnessInfo.peakCode(-107.96875) == 4095)
        #expect(LoudnessInfo.peakCode(-300) == 4095)
        #expect(LoudnessInfo.peak(4095) == -107.96875)
        // A peak under -43.97 dB takes a code past 2047 (unsigned, as 23003-4 has it).
        #expect(LoudnessInfo.peakCode(-60) == 2560)
        // Not finite: not written.
        #expect(LoudnessInfo.code(method: 1, value: -.infinity) == nil)
        #expect(LoudnessInfo.code(method: 6, value: .nan) == nil)
        #expect(LoudnessInfo.peakCode(-.infinity) == nil)
    }

    @Test func quantisedFiguresAreWithinHalfAStep() {
        let info = LoudnessInfo(
            integratedLoudness: -16.07, loudnessRange: 45.3, truePeak: -0.9, samplePeak: -.infinity)
        let stored = info.quantized()
        #expect(stored.integratedLoudness == -16)
        #expect(stored.loudnessRange == 45.5)
        #expect(stored.truePeak == -0.90625)
        #expect(stored.samplePeak == nil)
        #expect(stored.anchorLoudness == nil)
        #expect(Self.everyFigure.quantized() == Self.everyFigure)
        #expect(LoudnessInfo(samplePeak: -.infinity).isEmpty)
        #expect(!LoudnessInfo(samplePeak: -3).isEmpty)
    }

    // MARK: Written and read back

    /// An M4A file written by `AudioFileWriter` with `info` (and `tags`): twelve packets of made-up bytes.
    static func writtenFile(
        _ info: LoudnessInfo?, format: StreamDescription = aac, cookie: [UInt8] = aacConfig,
        tags: [String: String] = [:]
    ) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "afkit-loudness-\(UUID().uuidString).m4a"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = AudioFileWriterOptions()
        options.magicCookie = cookie
        options.loudnessInfo = info
        options.metadata = tags
        let writer = try AudioFileWriter(path: path, fileType: .m4a, format: format, options: options)
        let sizes = (0..<12).map { 30 + $0 }
        let bytes = sizes.enumerated().flatMap { [UInt8](repeating: UInt8($0.offset), count: $0.element) }
        var descriptions: [PacketDescription] = []
        var start: Int64 = 0
        for size in sizes {
            descriptions.append(
                PacketDescription(
                    startOffset: start, variableFramesInPacket: format.framesPerPacket, dataByteSize: UInt32(size)))
            start += Int64(size)
        }
        try writer.writePackets(bytes, descriptions: descriptions)
        try writer.close()
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The box paths of an MPEG-4 file (`moov/trak/udta/ludt/tlou`), each with its offset and its body.
    static func boxes(_ bytes: [UInt8]) -> [(path: String, offset: Int, body: ArraySlice<UInt8>)] {
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "udta", "ludt"]
        var found: [(String, Int, ArraySlice<UInt8>)] = []
        func walk(_ start: Int, _ end: Int, _ prefix: String) {
            var offset = start
            while offset + 8 <= end {
                let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                guard size >= 8, offset + size <= end else { return }
                let path = prefix.isEmpty ? type : prefix + "/" + type
                found.append((path, offset, bytes[offset + 8..<offset + size]))
                if containers.contains(type) { walk(offset + 8, offset + size, path) }
                offset += size
            }
        }
        walk(0, bytes.count, "")
        return found
    }

    /// The properties of `bytes` read by the file API and streamed at chunks of 1, 7 and 4096 bytes: all alike.
    static func properties(_ bytes: [UInt8]) throws -> StreamProperties {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "afkit-loudness-read-\(UUID().uuidString).m4a"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try AudioFile(path: path).properties
        for chunk in [1, 7, 4096] {
            let streamed = record(bytes, chunkSizes: [chunk])
            #expect(streamed.error == nil)
            #expect(streamed.properties.loudnessInfo == file.loudnessInfo, "chunks of \(chunk)")
            #expect(streamed.properties.notRead == file.notRead, "chunks of \(chunk)")
        }
        return file
    }

    @Test func everyFigureIsWrittenInTheTrackAndReadBack() throws {
        let bytes = try Self.writtenFile(Self.everyFigure)
        let paths = Self.boxes(bytes).map(\.path)
        #expect(paths.contains("moov/trak/udta/ludt/tlou"))
        #expect(!paths.contains("moov/udta/ludt"))
        let read = try Self.properties(bytes)
        #expect(read.loudnessInfo == Self.everyFigure)
        #expect(read.audioDataPacketCount == 12)
        #expect(read.notRead.isEmpty)
        // The box itself: version 0, downmix and DRC set 0, both peaks, five measurements, EBU R128 (1), accurate (3).
        let tlou = try #require(Self.boxes(bytes).first { $0.path.hasSuffix("tlou") }?.body)
        #expect(Array(tlou.prefix(6)) == [0, 0, 0, 0, 0, 0])
        #expect(Array(tlou.dropFirst(6).prefix(3)) == [0x2B, 0x02, 0xA1])  // sample peak 688, true peak 673
        #expect(Array(tlou.dropFirst(9).prefix(2)) == [0x13, 5])
        #expect(Array(tlou.dropFirst(11).prefix(3)) == [1, 166, 0x13])  // programme loudness -16.25 LUFS
        #expect(tlou.count == 4 + 7 + 5 * 3)
    }

    @Test func figuresOffTheGridComeBackQuantised() throws {
        let info = LoudnessInfo(
            integratedLoudness: -23.04, loudnessRange: 80.4, truePeak: -2.01, measurementSystem: .bs1770_4,
            reliability: .unverified)
        let read = try Self.properties(try Self.writtenFile(info, format: Self.alac, cookie: Self.alacConfig))
        #expect(read.loudnessInfo == info.quantized())
        #expect(read.loudnessInfo?.integratedLoudness == -23)
        #expect(read.loudnessInfo?.loudnessRange == 80)
        #expect(read.loudnessInfo?.truePeak == -2)
        #expect(read.loudnessInfo?.samplePeak == nil)
        #expect(read.loudnessInfo?.measurementSystem == .bs1770_4)
        #expect(read.loudnessInfo?.reliability == .unverified)
    }

    @Test func noLoudnessAndNoTagsWriteNoEmptyUserData() throws {
        // ALAC records no gapless tag: with no tags, chapters or loudness, the file has no 'udta' at all.
        let plain = try Self.writtenFile(nil, format: Self.alac, cookie: Self.alacConfig)
        let paths = Self.boxes(plain).map(\.path)
        #expect(!paths.contains { $0.hasSuffix("udta") || $0.hasSuffix("meta") })
        #expect(!plain.indices.dropLast(4).contains { Array(plain[$0..<$0 + 4]) == Array("ilst".utf8) })
        #expect(try Self.properties(plain).loudnessInfo == nil)
        // A loudness with no finite figure writes nothing either.
        let silent = try Self.writtenFile(
            LoudnessInfo(truePeak: -.infinity), format: Self.alac, cookie: Self.alacConfig)
        #expect(!Self.boxes(silent).map(\.path).contains { $0.hasSuffix("udta") })
        // Tags still go in the movie's 'udta/meta/ilst'.
        let tagged = try Self.writtenFile(
            Self.everyFigure, format: Self.alac, cookie: Self.alacConfig, tags: ["title": "T"])
        let read = try Self.properties(tagged)
        #expect(read.infoDictionary["title"] == "T")
        #expect(read.loudnessInfo == Self.everyFigure)
    }

    @Test func theFragmentedInitializationCarriesItAndNoEmptyTags() throws {
        let bare = try MP4.fragmentedInitialization(
            format: Self.aac, magicCookie: Self.aacConfig, primingFrames: 1024, validFrames: 0)
        #expect(!Self.boxes(bare).map(\.path).contains { $0.hasSuffix("udta") })
        #expect(!bare.indices.dropLast(4).contains { Array(bare[$0..<$0 + 4]) == Array("meta".utf8) })
        let initialization = try MP4.fragmentedInitialization(
            format: Self.aac, magicCookie: Self.aacConfig, primingFrames: 1024, validFrames: 0,
            loudness: Self.everyFigure)
        let paths = Self.boxes(initialization).map(\.path)
        #expect(paths.contains("moov/trak/udta/ludt/tlou"))
        #expect(!paths.contains("moov/udta"))
        let segment = MP4.mediaSegment(
            sequenceNumber: 1, baseDecodeTime: 0, sampleSizes: [20, 21], data: [UInt8](repeating: 7, count: 41))
        for chunk in [1, 4096] {
            let read = record(initialization + segment, chunkSizes: [chunk])
            #expect(read.error == nil)
            #expect(read.properties.loudnessInfo == Self.everyFigure)
        }
    }

    /// `bytes` with a `udta/ludt/tlou` of `tlou` appended to its `moov` and its `free` box as much shorter, so
    /// nothing after `moov` moves.
    static func addingMovieLoudness(_ tlou: [UInt8], to bytes: [UInt8]) throws -> [UInt8] {
        var ludt: [UInt8] = []
        MP4Box.append(&ludt, "tlou", tlou)
        var udta: [UInt8] = []
        MP4Box.append(&udta, "ludt", ludt)
        var box: [UInt8] = []
        MP4Box.append(&box, "udta", udta)
        let all = Self.boxes(bytes)
        let moov = try #require(all.first { $0.path == "moov" })
        let free = try #require(all.first { $0.path == "free" })
        let moovEnd = moov.offset + 8 + moov.body.count
        try #require(free.offset == moovEnd && free.body.count >= box.count)
        var result = Array(bytes[..<moov.offset])
        MP4Box.append(&result, "moov", Array(moov.body) + box)
        MP4Box.append(&result, "free", [UInt8](repeating: 0, count: free.body.count - box.count))
        result += bytes[(free.offset + 8 + free.body.count)...]
        #expect(result.count == bytes.count)
        return result
    }

    @Test func theMoviesLoudnessIsReadWhereTheTrackStatesNone() throws {
        let movie = LoudnessInfo(integratedLoudness: -14, truePeak: -1, measurementSystem: .user, reliability: .ceiling)
        let tlou = try #require(MP4.loudnessBox(movie)).dropFirst(8)
        let plain = try Self.writtenFile(nil, format: Self.alac, cookie: Self.alacConfig)
        let read = try Self.properties(try Self.addingMovieLoudness(Array(tlou), to: plain))
        #expect(read.loudnessInfo == movie)
        #expect(read.audioDataPacketCount == 12)
        // The track's own comes first.
        let both = try Self.addingMovieLoudness(
            Array(tlou), to: try Self.writtenFile(Self.everyFigure, format: Self.alac, cookie: Self.alacConfig))
        #expect(try Self.properties(both).loudnessInfo == Self.everyFigure)
    }

    // MARK: The box's versions and lies

    static func read(_ body: [UInt8]) -> (info: LoudnessInfo?, problem: String?) {
        body.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw, baseOffset: 1000)
            return MP4.loudnessInfo(in: &cursor)
        }
    }

    @Test func versionOneGivesTheBaseOfTheSoundAsItIs() {
        let body: [UInt8] =
            [1, 0, 0, 0, 3]  // version 1, three bases
            // A downmix (downmix_ID 2): its figures are another sound's.
            + [0, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 1, 1, 100, 0x23]
            // An EQ set (EQ_set_ID 1): another sound's too.
            + [1, 0, 0, 0, 0, 0, 0, 1, 1, 110, 0x23]
            // The sound as it is: sample peak 688 (-1.5 dBFS), true peak 673 (-1.03125 dBTP, EBU R128, ceiling),
            // programme loudness -23 LUFS, mixing level, maximum of the range and an unknown method (left out),
            // range 8.5 LU.
            + [0, 0, 0, 0x2B, 0x02, 0xA1, 0x12, 5, 1, 139, 0x23, 7, 80, 0x00, 3, 150, 0x00, 99, 3, 0x00, 6, 34, 0x21]
        let (info, problem) = Self.read(body)
        #expect(problem == nil)
        #expect(
            info
                == LoudnessInfo(
                    integratedLoudness: -23, loudnessRange: 8.5, truePeak: -1.03125, samplePeak: -1.5,
                    measurementSystem: .bs1770_4, reliability: .accurate))
        // Only other sounds' bases: nothing.
        #expect(Self.read(Array(body.prefix(27))).info == nil)
        // A version 1 box with no base states nothing and is not broken.
        #expect(Self.read([1, 0, 0, 0, 0]) == (nil, nil))
    }

    @Test func measurementSystemFollowsTheProgrammeLoudness() {
        // A range first (user, unverified), then the programme loudness (BS.1770-4, accurate).
        let body: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0x41, 2, 6, 20, 0x41, 1, 139, 0x23]
        let info = Self.read(body).info
        #expect(info?.measurementSystem == .bs1770_4)
        #expect(info?.reliability == .accurate)
        // A true peak alone: its own.
        let peak = Self.read([0, 0, 0, 0, 0, 0, 0, 0x02, 0x81, 0x52, 0]).info
        #expect(peak?.truePeak == -0.03125)
        #expect(peak?.measurementSystem == LoudnessInfo.MeasurementSystem(rawValue: 5))
        #expect(peak?.reliability == .ceiling)
        #expect(LoudnessInfo.MeasurementSystem(rawValue: 9).description == "code 9")
    }

    @Test func lyingBoxesKeepWhatTheyHoldWhole() {
        let whole: [UInt8] = [0, 0, 0, 0, 0, 0, 0x2B, 0x02, 0xA1, 0x13, 2, 1, 166, 0x13, 6, 22, 0x13]
        #expect(Self.read(whole).problem == nil)
        // A count past the box's end: the measurements it holds whole, and said.
        var lying = whole
        lying[10] = 255
        let (info, problem) = Self.read(lying)
        #expect(info?.integratedLoudness == -16.25)
        #expect(info?.loudnessRange == 5.5)
        #expect(problem?.contains("counts 255 measurements") == true)
        #expect(problem?.contains("holds 2 whole before its end at byte 1017") == true)
        // Every cut: never a crash, never a figure the cut bytes do not hold.
        for length in 0..<whole.count {
            let (cut, problem) = Self.read(Array(whole.prefix(length)))
            #expect(problem != nil, "\(length) bytes")
            #expect(cut?.loudnessRange == nil, "\(length) bytes")
            if length < 14 { #expect(cut?.integratedLoudness == nil, "\(length) bytes") }
        }
        // A version afkit does not read.
        let (future, why) = Self.read([2] + whole.dropFirst())
        #expect(future == nil)
        #expect(why?.contains("version 2") == true)
        // Version 1 counting 63 bases in a few bytes.
        #expect(Self.read([1, 0, 0, 0, 63, 0, 0, 0]).problem?.contains("base 1 of 63") == true)
    }

    @Test func aLyingBoxInAFileCostsNoAudio() throws {
        let bytes = try Self.writtenFile(Self.everyFigure)
        let tlou = try #require(Self.boxes(bytes).first { $0.path.hasSuffix("tlou") })
        // Its count past its end.
        var counted = bytes
        counted[tlou.offset + 8 + 10] = 200
        let read = try Self.properties(counted)
        #expect(read.loudnessInfo == Self.everyFigure)
        #expect(read.audioDataPacketCount == 12)
        #expect(read.notRead.count == 1)
        #expect(read.notRead.first?.offset == Int64(tlou.offset))
        #expect(read.warnings.contains { $0.contains("counts 200 measurements") })
        // Its size past its parent's end: the rest of 'ludt' is skipped, the audio read whole.
        var overrunning = bytes
        overrunning[tlou.offset + 3] &+= 16
        let broken = try Self.properties(overrunning)
        #expect(broken.loudnessInfo == nil)
        #expect(broken.audioDataPacketCount == 12)
        #expect(broken.notRead.first?.what.contains("'ludt'") == true)
    }
}

/// Appends boxes, as a test assembles them.
enum MP4Box {
    static func append(_ bytes: inout [UInt8], _ type: String, _ body: [UInt8]) {
        let size = UInt32(8 + body.count)
        bytes += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        bytes += Array(type.utf8) + body
    }
}
