import AudioContainers
import Foundation
import Testing

/// Chapters written from a file (issue 71, `--chapters`): FFmpeg's metadata file, read as FFmpeg reads it (its
/// ffprobe listing beside it, compose/), and show notes' lines, into M4A, MP3, Ogg Opus and FLAC, read back by afkit
/// and by mutagen; hostile files refused with their line and byte.
@Suite struct ChapterAuthoringTests {
    /// mutagen's chapters of a file, `[start seconds, title]`.
    static func mutagen(_ path: String) throws -> [[AnyHashable]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MetadataRoundTripTests.python)
        process.arguments = ["-c", MetadataRoundTripTests.chapterReader, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let read = try #require(try JSONSerialization.jsonObject(with: data) as? [[Any]], "mutagen, \(path)")
        return read.map { [(($0[0] as? Double ?? -1) * 1000).rounded() / 1000, $0[1] as? String ?? ""] }
    }

    /// FFmpeg's file (a time base of nanoseconds, escaped titles, a global tag): every chapter where ffprobe puts it
    /// (within a millisecond, what MP3's CHAP frames hold), its title unescaped, into each container that holds
    /// chapters; the global tag said not applied.
    @Test(arguments: ["out.m4a", "out.mp3", "out.opus", "out.flac"])
    func ffmpegMetadataFile(_ name: String) throws {
        let reference = try String(
            contentsOfFile: Command.fixtures + "/compose/ffmpeg-chapters.ffmeta.chapters", encoding: .utf8
        )
        .split(separator: "\n").map { line -> [AnyHashable] in
            let fields = line.split(separator: ",", maxSplits: 2).map(String.init)
            return [((Double(fields[0]) ?? -1) * 1000).rounded() / 1000, fields[2]]
        }
        #expect(reference.map { $0[1] } == ["Cold open", "Q=A; part #2", "Outro"])
        let folder = try ScratchFolder()
        let output = folder.path + "/" + name
        let result = try Command.run([
            "convert", "--chapters", "compose/ffmpeg-chapters.ffmeta", "compose/a.wav", output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("not applied: line 2: the tag 'title'"), "\(result.stderr)")
        let chapters = try AudioFile(path: output).properties.chapters
        #expect(
            chapters.map { [($0.startTime * 1000).rounded() / 1000, $0.title] as [AnyHashable] } == reference, "\(name)"
        )
        // The last ends at the end of the sound (0.5 s).
        #expect(chapters.last?.endTime.map { abs($0 - 0.5) < 0.001 } ?? !name.hasSuffix(".mp3"), "\(name)")
        #expect(try Self.mutagen(output) == reference, "mutagen, \(name)")
    }

    /// Show notes (`0:00 Title`, `00:00:00.125 - Title`, an en dash): the times and titles as written; into WAV, which
    /// holds no chapters, as markers with a note.
    @Test func showNotes() throws {
        let folder = try ScratchFolder()
        let expected: [[AnyHashable]] = [[0.0, "Cold open"], [0.125, "Headlines"], [0.3, "Interview: part 1"]]
        let output = folder.path + "/out.m4a"
        let result = try Command.run(["convert", "--chapters", "compose/show-notes.txt", "compose/a.wav", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try AudioFile(path: output).properties.chapters.map { [$0.startTime, $0.title] as [AnyHashable] }
                == expected)
        #expect(try Self.mutagen(output) == expected)
        let wav = folder.path + "/out.wav"
        let marked = try Command.run(["convert", "--chapters", "compose/show-notes.txt", "compose/a.wav", wav])
        #expect(
            marked.stderr.contains("WAV holds no chapters: the chapter file's 3 become markers"), "\(marked.stderr)")
        #expect(try AudioFile(path: wav).properties.markers.map(\.framePosition) == [0, 2756, 6615])
        // join takes them too, on the joined sound's clock.
        let joined = folder.path + "/joined.mp3"
        let join = try Command.run([
            "join", "compose/a.wav", "compose/b.wav", "--chapters", "compose/show-notes.txt", "-o", joined,
        ])
        #expect(join.status == 0, "\(join.stderr)")
        #expect(try AudioFile(path: joined).properties.chapters.map(\.title) == expected.map { $0[1] as? String })
    }

    /// Past the output's end: a chapter that starts there is refused (nothing written), one that ends there is cut
    /// to it with a note.
    @Test func chaptersPastTheEnd() throws {
        let folder = try ScratchFolder()
        let starts = folder.path + "/starts.txt"
        try "00:00 One\n00:00.6 Two\n".write(toFile: starts, atomically: true, encoding: .utf8)
        let output = folder.path + "/out.m4a"
        let refused = try Command.run(["convert", "--chapters", starts, "compose/a.wav", output])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "line 2: the chapter 'Two' starts at 00:00:00.600, at or past the output's end (00:00:00.500)"),
            "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let ends = folder.path + "/ends.ffmeta"
        try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=900\ntitle=All\n".write(
            toFile: ends, atomically: true, encoding: .utf8)
        // (MP3's CHAP frames hold each chapter's end.)
        let mp3 = folder.path + "/out.mp3"
        let cut = try Command.run(["convert", "--chapters", ends, "compose/a.wav", mp3])
        #expect(
            cut.status == 0
                && cut.stderr.contains("line 2: the chapter 'All' ends at 00:00:00.900, past the output's end"),
            "\(cut.stderr)")
        #expect(try AudioFile(path: mp3).properties.chapters.first?.endTime.map { abs($0 - 0.5) < 0.001 } == true)
    }

    /// Hostile chapter files: each refused (exit 1, nothing written) with its line and byte, never guessed at.
    @Test func hostileFilesAreRefusedWithTheirLine() throws {
        let folder = try ScratchFolder()
        let cases: [([UInt8], String, String)] = [
            (
                Array("00:00 A\n00:02 B\nhello world\n".utf8), "line 3: 'hello world' is not 'HH:MM:SS[.mmm] Title'",
                "at byte 16"
            ),
            (
                Array("00:05 A\n00:02 B\n".utf8),
                "line 2: the chapter starts at 00:00:02.000, not after the one on line 1", "at byte 8"
            ),
            (Array(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=0/0\nSTART=1\n".utf8), "line 3: TIMEBASE=0/0", "at byte 23"),
            (
                Array(";FFMETADATA1\n[CHAPTER]\nSTART=5000\nEND=1000\n".utf8),
                "line 2: the chapter ends (END=1000) before", "at byte 13"
            ),
            (
                Array(";FFMETADATA1\n[CHAPTER]\nSTART=99999999999999999999\n".utf8),
                "line 3: START=99999999999999999999", "at byte 23"
            ),
            (
                Array(";FFMETADATA1\n[CHAPTER]\nSTART=0\nEND=500\n[CHAPTER]\nSTART=400\n".utf8),
                "line 2: the chapter ends at 00:00:00.000", "code"
            ),
            (Array(";FFMETADATA1\n[BOOK]\n".utf8), "line 2: '[BOOK]'", "at byte 13"),
            (Array("00:00 A".utf8) + [0xFF, 0xFE] + Array("\n".utf8), "not UTF-8 text", "at byte 7"),
            (Array("00:00 A\u{0}\n".utf8), "a NUL byte", "at byte 7"),
            ([], "no chapter in it", "at byte 0"),
            (Array(repeating: UInt8(ascii: "a"), count: 1_100_000), "more than 1048576 bytes", "code 'lim!'"),
        ]
        let output = folder.path + "/out.m4a"
        for (index, (bytes, message, place)) in cases.enumerated() {
            let path = folder.path + "/chapters\(index).txt"
            FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let result = try Command.run(["convert", "--chapters", path, "compose/a.wav", output])
            #expect(result.status == 1, "\(index): \(result.stderr)")
            #expect(
                result.stderr.contains("'\(path)'") && result.stderr.contains(message), "\(index): \(result.stderr)")
            #expect(result.stderr.contains(place), "\(index): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let missing = try Command.run(["convert", "--chapters", folder.path + "/none.txt", "compose/a.wav", output])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"), "\(missing.stderr)")
    }
}
