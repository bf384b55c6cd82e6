import AudioContainers
import Foundation
import Testing

/// QuickTime chapter tracks (issue 71): what afkit writes into M4A beside Nero's `chpl` (the chapters Apple's players
/// show), proved by ffprobe (which reads the track), mutagen (which reads `chpl`) and FFmpeg's decode of the sound
/// (the chapters start where the sound players decode does); read back, preferred over `chpl`, carried on, and
/// damaged tracks said, never the sound lost (Tests/Fixtures/make-chapter-track-fixtures.sh, chapters/).
@Suite struct ChapterTrackTests {
    /// The committed outputs: name, chapter file, data format.
    static let outputs = [
        ("bursts-aac", "bursts.txt", "aac"), ("bursts-alac", "bursts.txt", "alac"), ("late-alac", "late.txt", "alac"),
    ]

    /// `[start, end, title]` lines of a `.chapters` (ffprobe) or `[start, title]` of a `.mutagen` listing.
    static func listing(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            line.split(separator: ",", maxSplits: line.filter { $0 == "," }.count == 1 ? 1 : 2).map(String.init)
        }
    }

    /// afkit still writes the committed files byte for byte (what ffprobe, mutagen and FFmpeg were run on).
    @Test(arguments: outputs)
    func writesTheCommittedFiles(_ name: String, _ chapters: String, _ format: String) throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/" + name + ".m4a"
        let result = try Command.run([
            "convert", "--chapters", "chapters/" + chapters, "chapters/bursts.wav", "-d", format, output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/chapters/\(name).m4a"))))
    }

    /// ffprobe reads the chapter track alone (`chpl` renamed `free`) to the chapters written, on a frame each; afkit
    /// reads the same, from the track, with or without `chpl`, each chapter ending where the next starts and the last
    /// with the sound, at 1.5 s. (ffprobe ends the last chapter at the track's media length, read as a presentation
    /// time: a track opening with an empty edit had it end early, at 1 s where it started, until its last sample
    /// ran the media as long as the sound.)
    @Test(arguments: outputs.map(\.0))
    func readAsFFprobeReadsTheTrack(_ name: String) throws {
        let reference = try Self.listing(Command.fixtures + "/chapters/\(name)-track-only.m4a.chapters")
        #expect(try Self.listing(Command.fixtures + "/chapters/\(name).m4a.chapters") == reference)
        let written =
            name.hasPrefix("late")
            ? [(0.5, "First burst"), (1.0, "Second burst")]
            : [(0.0, "Opening"), (0.5, "First burst – café"), (1.0, "Second burst")]
        #expect(reference.map { Double($0[0]) } == written.map(\.0))
        #expect(reference.map { $0[2] } == written.map(\.1))
        for file in [name, name + "-track-only"] {
            let properties = try AudioFile(path: Command.fixtures + "/chapters/\(file).m4a").properties
            #expect(properties.chapterSource == "chapter track", "\(file)")
            #expect(properties.chapters.map(\.title) == written.map(\.1), "\(file)")
            #expect(properties.chapters.map(\.startTime) == written.map(\.0), "\(file)")
            #expect(properties.chapters.map(\.endTime) == written.dropFirst().map(\.0) + [1.5], "\(file)")
            for (chapter, line) in zip(properties.chapters, reference) {
                #expect(chapter.endTime == Double(line[1]), "\(file): \(line)")
            }
        }
    }

    /// mutagen reads `chpl`: the same titles, and the starts once its scale is undone (it takes `chpl`'s 100 ns
    /// units as 1/10000 of the movie's timescale, right only where that is 1000; afkit's is the sample rate, 16000).
    @Test(arguments: outputs.map(\.0))
    func mutagenReadsTheList(_ name: String) throws {
        let read = try Self.listing(Command.fixtures + "/chapters/\(name).m4a.mutagen")
        let chapters = try AudioFile(path: Command.fixtures + "/chapters/\(name).m4a").properties.chapters
        #expect(read.map { $0[1] } == chapters.map(\.title))
        #expect(read.map { ((Double($0[0]) ?? -1) * 16).rounded(toPlaces: 6) } == chapters.map(\.startTime))
    }

    /// Chapter times are the sound's presentation times: FFmpeg's decode (the edit list's priming skipped) puts
    /// each burst within 2 frames at 16 kHz (its rise to half the peak) of the chapter written for it, in AAC (1024
    /// priming frames) as in ALAC (none). A text track shifted by the priming would put them 64 ms off.
    @Test(arguments: ["bursts-aac", "bursts-alac"])
    func chaptersStartWhereTheSoundIs(_ name: String) throws {
        let onsets = try String(contentsOfFile: Command.fixtures + "/chapters/\(name).m4a.onsets", encoding: .utf8)
            .split(separator: "\n").compactMap { Double($0) }
        let chapters = try AudioFile(path: Command.fixtures + "/chapters/\(name).m4a").properties.chapters
        #expect(onsets.count == 2)
        for (onset, chapter) in zip(onsets, chapters.dropFirst()) {
            #expect(onset >= chapter.startTime && onset - chapter.startTime < 3.0 / 16000, "\(onset) \(chapter)")
        }
    }

    /// The boxes (ISO/IEC 14496-12, QuickTime File Format): `moov` first (fast start), the sound track's edit skips
    /// the 1024 priming frames and names the chapter track in `tref/chap`; the text track (ID 2, disabled, handler
    /// `text`) starts at media time 0 and lasts the 24,000 valid frames; its titles open `mdat`, before the packets;
    /// `chpl` is kept. Where the first chapter starts at 0.5 s, an empty edit of 8,000 frames comes first.
    @Test func theTrackAsWritten() throws {
        let file = try Boxes(Command.fixtures + "/chapters/bursts-aac.m4a")
        #expect(file.top.map(\.type) == ["ftyp", "moov", "free", "mdat"])
        let tracks = file.children(of: file.top[1]).filter { $0.type == "trak" }
        #expect(tracks.count == 2)
        let sound = tracks[0]
        let text = tracks[1]
        #expect(file.integers(file.find(["tref", "chap"], in: sound), from: 8) == [2])
        #expect(file.editList(of: sound) == [[24000, 1024]])
        #expect(file.editList(of: text) == [[24000, 0]])
        let header = file.find(["tkhd"], in: text)
        #expect(file.bytes[header.offset + 9..<header.offset + 12].allSatisfy { $0 == 0 })  // flags: disabled
        #expect(file.integers(header, from: 28, count: 1) == [2])  // version 1: the track ID after the times
        let handler = file.find(["mdia", "hdlr"], in: text)
        #expect(String(decoding: file.bytes[handler.offset + 16..<handler.offset + 20], as: UTF8.self) == "text")
        let offsets = file.find(["mdia", "minf", "stbl", "stco"], in: text)
        #expect(file.integers(offsets, from: 16, count: 1) == [file.top[3].offset + 16])
        let first = file.top[3].offset + 16
        #expect(Array(file.bytes[first..<first + 9]) == [0, 7] + Array("Opening".utf8))
        #expect(file.find(["udta", "chpl"], in: file.top[1]).type == "chpl")
        let late = try Boxes(Command.fixtures + "/chapters/late-alac.m4a")
        let lateText = late.children(of: late.top[1]).filter { $0.type == "trak" }[1]
        #expect(late.editList(of: lateText) == [[8000, -1], [16000, 0]])
        // What ffprobe needs to end the last chapter with the sound: the media (timescale 1000) as long as the sound,
        // 1500, the last title's sample lasting 1000, past the 500 the edit shows of it.
        let media = late.find(["mdia", "mdhd"], in: lateText)
        #expect(late.integers(media, from: 28, count: 1) == [1000])  // version 1: timescale after the times
        #expect(late.integers(media, from: 32, count: 2) == [0, 1500])  // the duration, 64 bits
        let times = late.find(["mdia", "minf", "stbl", "stts"], in: lateText)
        #expect(late.integers(times, from: 12) == [2, 1, 500, 1, 1000])
    }

    /// Where a file holds both, the chapter track's titles are read, not `chpl`'s (a copy whose `chpl` titles
    /// differ), and `info` says which (`chapterSource`); a file whose track cannot be read falls back to `chpl`.
    @Test func theTrackIsPreferredAndSaid() throws {
        let folder = try ScratchFolder()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/chapters/bursts-aac.m4a")))
        let list = try #require(bytes.firstRange(of: Array("chpl".utf8))).lowerBound
        let title = try #require(bytes[list...].firstRange(of: Array("Opening".utf8))).lowerBound
        bytes.replaceSubrange(title..<title + 7, with: Array("OPENING".utf8))
        let both = folder.path + "/both.m4a"
        FileManager.default.createFile(atPath: both, contents: Data(bytes))
        let json = try Command.run(["info", "--json", both])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains(#""chapterSource": "chapter track""#) && json.stdout.contains(#""Opening""#))
        #expect(!json.stdout.contains("OPENING"))
        #expect(try Command.run(["info", both]).stdout.contains("Chapters from:          chapter track"))
        // The text track's handler made something else: `chpl`'s titles, said so.
        let file = try Boxes(Command.fixtures + "/chapters/bursts-aac.m4a")
        let text = file.children(of: file.top[1]).filter { $0.type == "trak" }[1]
        let handler = file.find(["mdia", "hdlr"], in: text).offset + 16
        bytes.replaceSubrange(handler..<handler + 4, with: Array("sbtl".utf8))
        let listOnly = folder.path + "/list-only.m4a"
        FileManager.default.createFile(atPath: listOnly, contents: Data(bytes))
        let properties = try AudioFile(path: listOnly).properties
        #expect(properties.chapterSource == "chpl")
        #expect(properties.chapters.map(\.title) == ["OPENING", "First burst – café", "Second burst"])
    }

    /// A chapter track that lies (sample counts, sizes, offsets, a title's length): the sound is read whole, the
    /// chapters come from `chpl` or from the titles that can be read, and a warning names the byte. Never a crash,
    /// never a seek past the end of the file that would lose the audio (the counts and the size lie used to lose it).
    @Test func damagedTracksAreSaidNotTrusted() throws {
        let folder = try ScratchFolder()
        let source = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/chapters/bursts-aac.m4a")))
        let file = try Boxes(Command.fixtures + "/chapters/bursts-aac.m4a")
        let text = file.children(of: file.top[1]).filter { $0.type == "trak" }[1]
        let table = ["mdia", "minf", "stbl"]
        let stsz = file.find(table + ["stsz"], in: text).offset
        let stts = file.find(table + ["stts"], in: text).offset
        let stco = file.find(table + ["stco"], in: text).offset
        let title = file.top[3].offset + 16
        func patched(_ at: Int, _ value: UInt32) -> [UInt8] {
            var bytes = source
            bytes.replaceSubrange(at..<at + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
            return bytes
        }
        var lengthLie = source
        lengthLie.replaceSubrange(title..<title + 2, with: [0xFF, 0xFF])
        let cases: [(String, [UInt8], String, [String])] = [
            ("count", patched(stsz + 16, 0xFFFF_FFFF), "'stsz' counts 4294967295 entries", ["Opening"]),
            ("timing", patched(stts + 12, 0x7FFF_FFFF), "'stts' counts 2147483647 entries", ["Opening"]),
            ("size", patched(stsz + 20, 0xFFFF_FFF0), "are not 2 to 4096 bytes", ["Opening"]),
            ("offset", patched(stco + 16, UInt32(source.count - 5)), "lie outside the media data", ["Opening"]),
            ("length", lengthLie, "the chapter title at byte \(title) does not fit", ["First burst – café"]),
        ]
        for (name, bytes, warning, first) in cases {
            let path = folder.path + "/\(name).m4a"
            FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let properties = try AudioFile(path: path).properties
            #expect(properties.validFrameCount == 24000, "\(name)")
            #expect(properties.warnings.contains { $0.contains(warning) && $0.contains("byte") }, "\(name)")
            #expect(properties.chapters.first.map { [$0.title] } == first, "\(name)")
            let info = try Command.run(["info", path])
            #expect(info.status == 0 && info.stdout.contains(warning), "\(name): \(info.stdout)")
        }
    }

    /// Chapters carried through `convert`: FFmpeg's file whose chapters are in its chapter track alone, into M4A
    /// (a chapter track and `chpl` again) and MP3 (ID3 `CHAP`), each as ffprobe read the source.
    @Test(arguments: ["out.m4a", "out.mp3"])
    func carriedThroughConvert(_ name: String) throws {
        let source = "tags/chapter-track-moov-last.m4a"
        let reference = try Self.listing(Command.fixtures + "/" + source + ".chapters")
        let folder = try ScratchFolder()
        let output = folder.path + "/" + name
        let result = try Command.run(["convert", source, output])
        #expect(result.status == 0, "\(result.stderr)")
        let properties = try AudioFile(path: output).properties
        #expect(properties.chapters.map(\.title) == reference.map { $0[2] })
        for (chapter, line) in zip(properties.chapters, reference) {
            #expect(abs(chapter.startTime - (Double(line[0]) ?? -1)) < 0.0005, "\(name)")
            #expect(abs((chapter.endTime ?? -1) - (Double(line[1]) ?? -1)) < 0.0005, "\(name)")
        }
        #expect(properties.chapterSource == (name.hasSuffix(".m4a") ? "chapter track" : nil))
    }
}

/// The boxes of an ISO base media file, for the tests to look inside what afkit wrote.
private struct Boxes {
    struct Box {
        var type: String
        var offset: Int
        var size: Int
    }

    let bytes: [UInt8]
    let top: [Box]

    init(_ path: String) throws {
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        top = Self.walk(bytes, from: 0, to: bytes.count)
    }

    static func walk(_ bytes: [UInt8], from start: Int, to end: Int) -> [Box] {
        var boxes: [Box] = []
        var at = start
        while at + 8 <= end {
            var size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 { size = bytes[at + 8..<at + 16].reduce(0) { $0 << 8 | Int($1) } }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            guard size >= 8 else { break }
            boxes.append(Box(type: type, offset: at, size: size))
            at += size
        }
        return boxes
    }

    func children(of box: Box) -> [Box] { Self.walk(bytes, from: box.offset + 8, to: box.offset + box.size) }

    /// The box at `path` inside `box` (a placeholder typed "" where there is none).
    func find(_ path: [String], in box: Box) -> Box {
        var current = box
        for type in path {
            guard let next = children(of: current).first(where: { $0.type == type }) else {
                return Box(type: "", offset: 0, size: 0)
            }
            current = next
        }
        return current
    }

    /// Big-endian 32-bit integers of `box` from byte `from` of it (`count`: how many; `nil`: to its end).
    func integers(_ box: Box, from: Int, count: Int? = nil) -> [Int] {
        let end = count.map { box.offset + from + 4 * $0 } ?? box.offset + box.size
        return stride(from: box.offset + from, to: end, by: 4).map {
            bytes[$0..<$0 + 4].reduce(0) { $0 << 8 | Int($1) }
        }
    }

    /// A track's edits, `[duration, media time]` each (version 1 `elst`, as afkit writes it).
    func editList(of track: Box) -> [[Int]] {
        let list = find(["edts", "elst"], in: track)
        let count = integers(list, from: 12, count: 1).first ?? 0
        return (0..<count).map { index in
            let at = list.offset + 16 + index * 20
            let duration = bytes[at..<at + 8].reduce(0) { $0 << 8 | Int($1) }
            let time = Int64(bitPattern: bytes[at + 8..<at + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            return [duration, Int(time)]
        }
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
