import AudioContainers
import AudioFormats
import Foundation
import LoopbackServers
import Testing

/// Tags and the front cover carried across (issue 53): from FLAC, MP3 and M4A sources made by the field's
/// taggers into every output that holds them, read back by afkit's own parser and by mutagen (PyPI, in the
/// virtual environment `make test` makes), the picture's bytes equal to the source's.
@Suite struct MetadataRoundTripTests {
    static let python = Command.packageRoot.path + "/.build-venv/bin/python"

    /// mutagen's reading of a file: its title, artist and album, and the MD5 of each picture's bytes.
    static let reader = #"""
        import base64, hashlib, json, sys, mutagen, mutagen.mp4, mutagen.oggopus, mutagen.oggvorbis
        from mutagen.flac import Picture
        f = mutagen.File(sys.argv[1])
        tags, out, pictures = f.tags, {}, []
        def first(*keys):
            for key in keys:
                try:
                    present = tags is not None and key in tags
                except ValueError:  # a key this kind of tag cannot hold
                    present = False
                if present:
                    value = tags[key]
                    value = value.text if hasattr(value, "text") else value
                    return str(value[0]) if isinstance(value, list) else str(value)
        out["title"] = first("TIT2", "\xa9nam", "title")
        out["artist"] = first("TPE1", "\xa9ART", "artist")
        out["album"] = first("TALB", "\xa9alb", "album")
        if hasattr(f, "pictures") and f.pictures:
            pictures += [p.data for p in f.pictures]
        if tags is not None and hasattr(tags, "getall"):
            pictures += [frame.data for frame in tags.getall("APIC")]
        if isinstance(f, mutagen.mp4.MP4) and "covr" in tags:
            pictures += [bytes(cover) for cover in tags["covr"]]
        if isinstance(f, (mutagen.oggopus.OggOpus, mutagen.oggvorbis.OggVorbis)) and "metadata_block_picture" in tags:
            pictures += [Picture(base64.b64decode(v)).data for v in tags["metadata_block_picture"]]
        out["pictures"] = [hashlib.md5(p).hexdigest() for p in pictures]
        print(json.dumps(out))
        """#

    static func mutagen(_ path: String) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", reader, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "mutagen read \(path)")
    }

    @Test(arguments: ["pictures/metaflac-three.flac", "pictures/ffmpeg-apic-v24.mp3", "mp4/aac-tagged.m4a"])
    func tagsAndTheFrontCoverCarriedAcross(_ fixture: String) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "make test-venv makes mutagen's environment")
        let source = try AudioFile(path: Command.fixtures + "/" + fixture)
        let cover = try #require(source.properties.pictures.first { $0.type == 3 })
        let coverBytes = try source.pictureData(cover)
        let carried = ["title", "artist", "album", "track number", "year", "genre", "comments"]
        let tags = source.properties.infoDictionary.filter { carried.contains($0.key) }
        #expect(tags["title"] != nil)
        let folder = try Loopback.temporaryFolder("round-trip")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in [
            "out.m4a", "out.flac", "out.mp3", "out.opus", "out.ogg", "out.wav", "out.aiff", "out.aac", "out.caf",
        ] {
            let output = folder + "/" + name
            let result = try Command.run(["convert", fixture, output])
            #expect(result.status == 0, "\(fixture) → \(name): \(result.stderr)")
            let written = try AudioFile(path: output)
            let back = written.properties.infoDictionary.filter { carried.contains($0.key) }
            #expect(back == tags, "\(fixture) → \(name)")
            if name == "out.caf" {
                // CAF holds no picture: said, not dropped in silence.
                #expect(written.properties.pictures.isEmpty)
                #expect(result.stderr.contains("is not carried: CAF holds no picture"), "\(result.stderr)")
                continue
            }
            let pictures = written.properties.pictures
            #expect(pictures.count == 1, "\(fixture) → \(name)")
            if let picture = pictures.first {
                #expect(picture.type == 3 && picture.mimeType == cover.mimeType, "\(fixture) → \(name)")
                #expect(try written.pictureData(picture) == coverBytes, "\(fixture) → \(name)")
            }
            guard name != "out.aac" else { continue }
            // The independent reader: the same title, artist and album, and the same picture, byte for byte.
            // (WAV's LIST/INFO and AIFF's NAME and AUTH, where their title and artist go, are not mutagen's.)
            let read = try Self.mutagen(output)
            if !["out.wav", "out.aiff"].contains(name) {
                #expect(read["title"] as? String == tags["title"], "mutagen, \(fixture) → \(name): \(read)")
                #expect(read["artist"] as? String == tags["artist"], "mutagen, \(fixture) → \(name)")
            }
            if name != "out.wav" { #expect(read["album"] as? String == tags["album"], "mutagen, \(fixture) → \(name)") }
            #expect(read["pictures"] as? [String] == [Self.md5(coverBytes)], "mutagen, \(fixture) → \(name): \(read)")
        }
        // --no-metadata: neither tags nor pictures.
        let bare = folder + "/bare.flac"
        #expect(try Command.run(["convert", "--no-metadata", fixture, bare]).status == 0)
        let written = try AudioFile(path: bare)
        #expect(written.properties.pictures.isEmpty)
        #expect(written.properties.infoDictionary.filter { carried.contains($0.key) }.isEmpty)
    }

    /// mutagen's chapters of a file: `[start seconds, title]` from MP4's `chpl`, ID3's `CHAP` frames, or the
    /// `CHAPTERnnn` comments of FLAC and Ogg.
    static let chapterReader = #"""
        import json, sys, mutagen, mutagen.mp4
        f = mutagen.File(sys.argv[1])
        out = []
        if isinstance(f, mutagen.mp4.MP4):
            # mutagen 1.47 reads chpl's starts (100 ns units, as FFmpeg reads them) as 1/10000 of the movie's
            # time scale: right for FFmpeg's files (scale 1000), not for afkit's (the sample rate). Undone here.
            scale = f.chapters._timescale / 1000
            out = [[round(c.start * scale, 6), c.title] for c in f.chapters]
        elif hasattr(f.tags, "getall"):
            chaps = sorted(f.tags.getall("CHAP"), key=lambda c: c.start_time)
            out = [[c.start_time / 1000, str(c.sub_frames["TIT2"].text[0])] for c in chaps]
        else:
            tags = dict((k.upper(), v[0]) for k, v in f.tags.as_dict().items())
            for n in range(1, 1000):
                key = "CHAPTER%03d" % n
                if key not in tags: break
                h, m, s = tags[key].split(":")
                out.append([int(h) * 3600 + int(m) * 60 + float(s), tags.get(key + "NAME", "")])
        print(json.dumps(out))
        """#

    /// Chapters past what an output holds (M4A's `chpl` and ID3's `CTOC` count a byte of them, Vorbis comments
    /// three digits): the first ones carried and the rest said (they were dropped silently). The source is FFmpeg's
    /// 2,204 chapters, of which afkit reads 1,000 (said too).
    @Test func chaptersPastWhatTheOutputHoldsAreSaid() throws {
        let folder = try Loopback.temporaryFolder("many-chapters")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, held) in [("out.m4a", 255), ("out.mp3", 255), ("out.flac", 999), ("out.wav", 0)] {
            let output = folder + "/" + name
            let result = try Command.run(["convert", "tags/many-chapters.m4a", output])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(
                result.stderr.contains("1204 chapters of the source's chapter track not read"),
                "\(name): \(result.stderr)")
            let written = try AudioFile(path: output).properties
            guard held > 0 else {
                #expect(written.markers.count == 1000 && !result.stderr.contains("more are not\n"))
                continue
            }
            #expect(written.chapters.map(\.title) == (0..<held).map { "c\($0)" }, "\(name)")
            #expect(
                result.stderr.contains(
                    "holds \(held) chapters: the source's first \(held) are carried, \(1000 - held) more are not"),
                "\(name): \(result.stderr)")
        }
    }

    /// Chapters travel (issue 53): into M4A's `chpl`, MP3's and ADTS's `CHAP` frames (with a `CTOC`), FLAC's and
    /// Ogg Opus's chapter comments, read back by afkit and by mutagen; into WAV and CAF, which hold no chapters,
    /// as markers at the same times, with a note.
    @Test(arguments: ["tags/ffmpeg-chapters.mp3", "tags/ffmpeg-chapters.m4a"])
    func chaptersCarriedAcross(_ fixture: String) throws {
        let source = try AudioFile(path: Command.fixtures + "/" + fixture).properties
        let chapters = source.chapters.map { [$0.startTime, $0.title] as [AnyHashable] }
        #expect(chapters.count == 2)
        let folder = try Loopback.temporaryFolder("chapters")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["out.m4a", "out.flac", "out.mp3", "out.opus", "out.aac", "out.wav", "out.caf"] {
            let output = folder + "/" + name
            let result = try Command.run(["convert", fixture, output])
            #expect(result.status == 0, "\(fixture) → \(name): \(result.stderr)")
            let written = try AudioFile(path: output).properties
            if ["out.wav", "out.caf"].contains(name) {
                #expect(written.chapters.isEmpty)
                let rate = try #require(written.dataFormat?.sampleRate)
                #expect(
                    written.markers.map { [(Double($0.framePosition) / rate * 1000).rounded() / 1000, $0.name] }
                        == chapters, "\(fixture) → \(name)")
                #expect(result.stderr.contains("holds no chapters: the source's 2 become markers"), "\(result.stderr)")
                continue
            }
            #expect(written.chapters.map { [$0.startTime, $0.title] as [AnyHashable] } == chapters, "\(name)")
            // Every chapter ends where the next begins, the last at the end of the sound.
            #expect(written.chapters.first?.endTime.map { abs($0 - 0.4) < 0.001 } ?? !name.hasSuffix(".mp3"))
            guard name != "out.aac" else { continue }
            let read = try ChapterAuthoringTests.mutagen(output)
            #expect(read == chapters, "mutagen, \(name): \(read)")
        }
        // --no-metadata leaves tags and pictures out; chapters, like markers and loops, are the sound's and stay.
        let bare = try Command.run(["convert", "--no-metadata", fixture, folder + "/bare.m4a"])
        #expect(bare.status == 0)
        let kept = try AudioFile(path: folder + "/bare.m4a").properties
        #expect(kept.chapters.map { [$0.startTime, $0.title] as [AnyHashable] } == chapters)
        #expect(kept.infoDictionary["title"] == nil)
    }

    /// A 2 MB cover (a phone's photo) travels into WAV and AIFF, whose ID3 chunk then holds more than other
    /// metadata chunks, and afkit reads its own output back: tags and cover whole (a new user's finding).
    @Test func aLargeCoverIntoWAVAndAIFFReadsBack() throws {
        let folder = try Loopback.temporaryFolder("large-cover")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // flac-picture.flac with a 2 MB JPEG-headed picture block after STREAMINFO.
        var bytes = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/pictures/flac-picture.flac")))
        var cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        var state: UInt64 = 53
        while cover.count < 2_000_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            cover.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        cover += [0xFF, 0xD9]
        func be(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let mime = Array("image/jpeg".utf8)
        let body = be(3) + be(mime.count) + mime + be(0) + be(1200) + be(900) + be(24) + be(0) + be(cover.count) + cover
        bytes.insert(contentsOf: [6] + Array(be(body.count).dropFirst()) + body, at: 8 + 34)
        let source = folder + "/large.flac"
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        for name in ["out.wav", "out.aiff"] {
            let output = folder + "/" + name
            #expect(try Command.run(["convert", source, output]).status == 0)
            let written = try AudioFile(path: output)
            #expect(written.properties.infoDictionary["title"] == "Encoded With Picture", "\(name)")
            let picture = try #require(written.properties.pictures.first { $0.byteCount > 1_000_000 }, "\(name)")
            #expect(try written.pictureData(picture) == cover, "\(name)")
            let again = try Command.run(["convert", output, folder + "/again-" + name + ".flac"])
            #expect(again.status == 0)
            let back = try AudioFile(path: folder + "/again-" + name + ".flac")
            #expect(back.properties.pictures.map(\.byteCount).contains(cover.count), "\(name) → flac")
        }
    }

    static func md5(_ bytes: [UInt8]) -> String {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
