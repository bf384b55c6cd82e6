import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Cover art as the field's tools write it (Tests/Fixtures/make-tagged-fixtures.sh: metaflac, flac
/// --picture, opusenc --picture, vorbiscomment, FFmpeg's attached pictures in MP3, AIFF and M4A): each picture
/// described as the reference tool describes it, its bytes where the file keeps them, whatever reads the file
/// and however it is cut.
@Suite struct PictureTests {
    static let names: [String] = {
        let folder = Fixture.root.appendingPathComponent("pictures").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasSuffix(".pictures") }.sorted()
    }()

    /// `type mime bytes [width height]`, as in the `.pictures` references.
    static func line(_ picture: Picture) -> String {
        var fields = ["\(picture.type)", picture.mimeType, "\(picture.byteCount)"]
        if let width = picture.width, let height = picture.height { fields += ["\(width)", "\(height)"] }
        return fields.joined(separator: " ")
    }

    @Test func everyTaggerIsCovered() { #expect(Self.names.count >= 8) }

    /// Each picture's role, MIME type, size and stated dimensions are the reference tool's; no picture is
    /// text in `metadata`; the bytes at `dataOffset` are the picture (its format's magic at the start and,
    /// for JPEG, its end marker at the end).
    @Test(arguments: names)
    func describedAsTheReferenceSays(_ name: String) throws {
        let fixture = Fixture.named("pictures/" + name)
        let reference = try String(contentsOfFile: fixture.path + ".pictures", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let properties = try AudioFile(path: fixture.path).properties
        #expect(properties.pictures.map(Self.line) == reference)
        #expect(!properties.infoDictionary.keys.contains { $0.contains("picture") || $0 == "coverart" })
        let bytes = fixture.bytes
        for picture in properties.pictures {
            guard let offset = picture.dataOffset.map(Int.init) else {
                // Only Ogg's pictures (in base64) stand in no place of their own.
                #expect(name.hasSuffix(".ogg") || name.hasSuffix(".opus"), "\(name): no offset")
                continue
            }
            let data = try #require(
                offset + picture.byteCount <= bytes.count ? bytes[offset..<offset + picture.byteCount] : nil)
            let magic: [String: [UInt8]] = [
                "image/jpeg": [0xFF, 0xD8, 0xFF], "image/png": [0x89, 0x50, 0x4E, 0x47],
                "image/gif": Array("GIF8".utf8),
            ]
            #expect(data.starts(with: magic[picture.mimeType] ?? [0xFF, 0xFF]), "\(name): \(picture.mimeType)")
            if picture.mimeType == "image/jpeg" { #expect(Array(data.suffix(2)) == [0xFF, 0xD9], "\(name)") }
        }
    }

    /// The push parser, whatever the chunk size, and the file API (which passes over a picture's bytes
    /// without reading them) describe the same pictures, tags and packets.
    @Test(arguments: names)
    func theSameWhateverReadsIt(_ name: String) throws {
        let fixture = Fixture.named("pictures/" + name)
        let bytes = fixture.bytes
        let file = try AudioFileSummary(AudioFile(path: fixture.path).properties)
        for size in [1, 7, 4096, 1 << 20] {
            let recording = record(bytes, chunkSizes: [size])
            #expect(recording.error == nil, "\(name), \(size)-byte chunks")
            let summary = try AudioFileSummary(recording.properties)
            // `info --json`'s whole summary: pictures, metadata, counts, offsets.
            #expect(summary == file, "\(name), \(size)-byte chunks")
        }
    }

    /// A 2 MB picture (beyond every read limit) before, between and after the other blocks of a FLAC file:
    /// described, stepped over, and every frame read, by the file API and the push parser alike.
    @Test(arguments: [0, 1, 2])
    func aLargePictureAnywhereInAFLACFile(_ place: Int) throws {
        let source = Fixture.named("pictures/metaflac-three.flac").bytes
        // The blocks after `fLaC`, each with its header, the last flag cleared.
        var blocks: [[UInt8]] = []
        var position = 4
        var isLast = false
        while !isLast {
            let length = Int(source[position + 1]) << 16 | Int(source[position + 2]) << 8 | Int(source[position + 3])
            isLast = source[position] & 0x80 != 0
            var block = Array(source[position..<position + 4 + length])
            block[0] &= 0x7F
            blocks.append(block)
            position += 4 + length
        }
        let frames = Array(source[position...])
        var picture: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        var random = SplitMix64(seed: 53)
        while picture.count < 2_000_000 { picture.append(UInt8(truncatingIfNeeded: random.next())) }
        let mime = Array("image/png".utf8)
        var body: [UInt8] = []
        func put(_ value: Int) {
            body += [
                UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
            ]
        }
        put(3)
        put(mime.count)
        body += mime
        put(0)
        put(1000)
        put(800)
        put(24)
        put(0)
        put(picture.count)
        body += picture
        let large = [6, UInt8(body.count >> 16), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        // After STREAMINFO, in the middle, or last.
        let index = [1, blocks.count / 2 + 1, blocks.count][place]
        blocks.insert(large, at: index)
        blocks[blocks.count - 1][0] |= 0x80
        let bytes = Array(source[0..<4]) + blocks.flatMap { $0 } + frames

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "afkit-pictures-\(place)-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("large.flac").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let original = try AudioFileSummary(
            AudioFile(path: Fixture.named("pictures/metaflac-three.flac").path).properties)
        let file = try AudioFileSummary(AudioFile(path: path).properties)
        #expect(file.frameCount == original.frameCount)
        #expect(file.pictures.count == 4)
        let described = try #require(file.pictures.first { $0.byteCount == picture.count })
        #expect(Self.line(described) == "3 image/png 2000000 1000 800")
        #expect(described.dataOffset.map { Array(bytes[Int($0)..<Int($0) + 8]) } == Array(picture.prefix(8)))
        for size in [4096, 1 << 20] {
            let summary = try AudioFileSummary(record(bytes, chunkSizes: [size]).properties)
            #expect(summary.pictures == file.pictures && summary.frameCount == file.frameCount, "\(size)-byte chunks")
        }
    }

    /// An MP3 whose ID3v2 tag holds a 2 MB cover (beyond what the parser reads whole), as version 2.3 and 2.4:
    /// the tag is walked a frame at a time, so its title and artist are read and the cover described (with
    /// its bytes' offset) while its data is stepped over; every frame is read, however the file is cut.
    @Test(arguments: [UInt8(3), 4])
    func aLargeID3TagIsWalked(_ version: UInt8) throws {
        let source = Fixture.named("pictures/ffmpeg-apic-v24.mp3").bytes
        let oldSize = source[6..<10].reduce(0) { $0 << 7 | Int($1) }
        let audio = Array(source[(10 + oldSize)...])
        func size(_ value: Int) -> [UInt8] {
            version == 4
                ? (0..<4).map { UInt8(value >> (21 - 7 * $0) & 0x7F) }
                : (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) }
        }
        func frame(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + size(body.count) + [0, 0] + body }
        var cover: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        var random = SplitMix64(seed: UInt64(version))
        while cover.count < 2_000_000 { cover.append(UInt8(truncatingIfNeeded: random.next())) }
        let frames =
            frame("TIT2", [3] + Array("Large Cover".utf8))
            + frame("APIC", [0] + Array("image/png".utf8) + [0, 3, 0] + cover)
            + frame("TPE1", [3] + Array("After The Cover".utf8)) + [UInt8](repeating: 0, count: 512)
        let syncsafe = (0..<4).map { UInt8(frames.count >> (21 - 7 * $0) & 0x7F) }
        let bytes = Array("ID3".utf8) + [version, 0, 0] + syncsafe + frames + audio

        let original = try AudioFileSummary(
            AudioFile(path: Fixture.named("pictures/ffmpeg-apic-v24.mp3").path).properties)
        let whole = try AudioFileSummary(record(bytes, chunkSizes: [bytes.count]).properties)
        #expect(whole.frameCount == original.frameCount)
        #expect(
            whole.metadata["title"] == "Large Cover" && whole.metadata["artist"] == "After The Cover",
            "\(whole.metadata)")
        let picture = try #require(whole.pictures.first)
        #expect(Self.line(picture) == "3 image/png 2000000")
        #expect(picture.dataOffset.map { Array(bytes[Int($0)..<Int($0) + 8]) } == Array(cover.prefix(8)))
        for chunk in [1, 7, 4096, 1 << 20] where chunk > 1 || version == 4 {
            let summary = try AudioFileSummary(record(bytes, chunkSizes: [chunk]).properties)
            #expect(summary == whole, "\(chunk)-byte chunks")
        }
    }

    /// The other ways ID3 keeps a picture, as taggers write them: version 2.2's `PIC` (a three-letter format),
    /// version 2.3 unsynchronised as a whole tag, version 2.4 unsynchronised frame by frame (each 0xFF followed by
    /// a zero byte, which a JPEG is full of): each picture read whole, its bytes the cover's (held, restored,
    /// where the file does not keep them as they are), the same at every chunk size; the audio all there.
    @Test(arguments: ["2.2 PIC", "2.3 unsynchronised tag", "2.4 unsynchronised frame"])
    func everyID3PictureForm(_ form: String) throws {
        let cover = try AudioFile(path: Fixture.named("pictures/flac-picture.flac").path).pictureData(
            try #require(
                try AudioFile(path: Fixture.named("pictures/flac-picture.flac").path).properties.pictures.first))
        #expect(cover.contains(0xFF))
        let source = Fixture.named("pictures/ffmpeg-apic-v24.mp3").bytes
        let oldSize = source[6..<10].reduce(0) { $0 << 7 | Int($1) }
        let audio = Array(source[(10 + oldSize)...])
        func unsynchronised(_ bytes: [UInt8]) -> [UInt8] { bytes.flatMap { $0 == 0xFF ? [0xFF, 0x00] : [$0] } }
        func syncsafe(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (21 - 7 * $0) & 0x7F) } }
        func plain(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(value >> (8 * (count - 1 - $0)) & 0xFF) }
        }
        let tag: [UInt8]
        switch form {
        case "2.2 PIC":
            let title = [0] + Array("Old Tagger".utf8)
            let picture = [0] + Array("JPG".utf8) + [3] + Array("Front".utf8) + [0] + cover
            let frames =
                Array("TT2".utf8) + plain(title.count, 3) + title + Array("PIC".utf8) + plain(picture.count, 3)
                + picture
            tag = Array("ID3".utf8) + [2, 0, 0] + syncsafe(frames.count) + frames
        case "2.3 unsynchronised tag":
            let title = [0] + Array("Old Tagger".utf8)
            let picture = [0] + Array("image/jpeg".utf8) + [0, 3] + Array("Front".utf8) + [0] + cover
            let frames =
                Array("TIT2".utf8) + plain(title.count, 4) + [0, 0] + title + Array("APIC".utf8)
                + plain(picture.count, 4) + [0, 0] + picture
            let body = unsynchronised(frames)
            tag = Array("ID3".utf8) + [3, 0, 0x80] + syncsafe(body.count) + body
        default:
            let title = [3] + Array("Old Tagger".utf8)
            let picture = unsynchronised([0] + Array("image/jpeg".utf8) + [0, 3] + Array("Front".utf8) + [0] + cover)
            let frames =
                Array("TIT2".utf8) + syncsafe(title.count) + [0, 0] + title + Array("APIC".utf8)
                + syncsafe(picture.count) + [0, 0x02] + picture
            tag = Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames
        }
        let bytes = tag + audio
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("id3-\(form.prefix(3)).mp3").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try AudioFile(path: path)
        let original = try AudioFile(path: Fixture.named("pictures/ffmpeg-apic-v24.mp3").path)
        #expect(file.properties.infoDictionary["title"] == "Old Tagger", "\(form)")
        #expect(file.properties.validFrameCount == original.properties.validFrameCount, "\(form)")
        let picture = try #require(file.properties.pictures.first, "\(form)")
        #expect(Self.line(picture) == "3 image/jpeg \(cover.count)", "\(form)")
        #expect(try file.pictureData(picture) == cover, "\(form)")
        let whole = try AudioFileSummary(file.properties)
        for chunk in [1, 7, 4096, 1 << 20] {
            #expect(try AudioFileSummary(record(bytes, chunkSizes: [chunk]).properties) == whole, "\(form), \(chunk)")
        }
    }

    /// FFmpeg writes an MP3's comment as `TXXX:comment`: read as `comments`, the name every container's comment
    /// has (so it travels into outputs); other user-defined frames keep their names in lower case.
    @Test func userDefinedFramesForNamedTags() throws {
        let source = Fixture.named("pictures/ffmpeg-apic-v24.mp3").bytes
        let oldSize = source[6..<10].reduce(0) { $0 << 7 | Int($1) }
        func frame(_ body: [UInt8]) -> [UInt8] {
            Array("TXXX".utf8) + (0..<4).map { UInt8(body.count >> (21 - 7 * $0) & 0x7F) } + [0, 0] + body
        }
        let frames =
            frame([3] + Array("comment".utf8) + [0] + Array("from ffmpeg".utf8))
            + frame([3] + Array("REPLAYGAIN_TRACK_GAIN".utf8) + [0] + Array("-6.5 dB".utf8))
        let size = (0..<4).map { UInt8(frames.count >> (21 - 7 * $0) & 0x7F) }
        let bytes = Array("ID3".utf8) + [4, 0, 0] + size + frames + Array(source[(10 + oldSize)...])
        let metadata = record(bytes, chunkSizes: [4096]).properties.infoDictionary
        #expect(metadata["comments"] == "from ffmpeg" && metadata["replaygain_track_gain"] == "-6.5 dB", "\(metadata)")
    }
}
