import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Chapters and loudness tags as FFmpeg, mutagen and metaflac write them (Tests/Fixtures/make-tagged-fixtures.sh,
/// tags/): read as the reference reads them, the same at every chunk size.
@Suite struct TagTests {
    static let chaptered = [
        "ffmpeg-chapters.m4a", "ffmpeg-chapters.mp3", "ffmpeg-chapters.opus", "chapter-track-moov-last.m4a",
        "chapter-track-moov-first.m4a",
    ]

    /// Each chapter's start and title are ffprobe's; its end too where the file states one (ID3 `CHAP`, MP4's
    /// chapter track, read whether `moov` comes first or last, from a file, a stream that can seek or one that
    /// cannot), and where it does not (Vorbis comments) the chapter runs to the next one's start. The chapter
    /// comments of Ogg are chapters, not metadata.
    @Test(arguments: chaptered)
    func chaptersAsFFprobeReadsThem(_ name: String) throws {
        let fixture = Fixture.named("tags/" + name)
        let reference = try String(contentsOfFile: fixture.path + ".chapters", encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",", maxSplits: 2).map(String.init) }
        let properties = try AudioFile(path: fixture.path).properties
        let chapters = properties.chapters
        #expect(chapters.map(\.title) == reference.map { $0[2] })
        for (index, (chapter, line)) in zip(chapters, reference).enumerated() {
            #expect(abs(chapter.startTime - Double(line[0])!) < 0.0005, "\(name) \(index)")
            let end = chapter.endTime ?? (index + 1 < chapters.count ? chapters[index + 1].startTime : nil)
            if let end, index + 1 < chapters.count || chapter.endTime != nil {
                #expect(abs(end - Double(line[1])!) < 0.0005, "\(name) \(index)")
            }
        }
        #expect(!name.hasSuffix(".opus") == chapters.allSatisfy { $0.endTime != nil })
        #expect(!properties.infoDictionary.keys.contains { $0.hasPrefix("chapter") }, "\(properties.infoDictionary)")
        #expect(properties.infoDictionary["title"] == "Chaptered")
        // FFmpeg's M4A holds a chapter track and `chpl` (the copies here: the track alone): the track is read.
        #expect(properties.chapterSource == (name.hasSuffix(".m4a") ? "chapter track" : nil), "\(name)")
        let file = try AudioFileSummary(properties)
        for size in [1, 7, 4096, 1 << 20] {
            for seeks in [false, true] {
                let recording = record(fixture.bytes, chunkSizes: [size], answeringSeeks: seeks)
                #expect(try AudioFileSummary(recording.properties) == file, "\(name), \(size)-byte chunks, \(seeks)")
            }
        }
    }

    /// FFmpeg's 2,204 chapters (tags/many-chapters.m4a): the chapter track's first 1,000 read, as before, and the
    /// 1,204 more said (they were left out silently), the same at every chunking of a stream.
    @Test func chaptersPastTheCapAreSaid() throws {
        let fixture = Fixture.named("tags/many-chapters.m4a")
        let properties = try AudioFile(path: fixture.path).properties
        #expect(properties.chapters.count == 1000)
        #expect(properties.chapters.first?.title == "c0" && properties.chapters.last?.title == "c999")
        #expect(properties.notRead == [NotRead(what: "chapter track", count: 1204, unit: "chapters", offset: nil)])
        #expect(
            properties.warnings.contains(
                "mp4: the chapter track holds 2204 chapters; the first 1000 are read, 1204 more chapters not read"),
            "\(properties.warnings)")
        for size in [7, 4096] {
            // (A stream that cannot seek never reaches the chapter track's samples, which lie before its table.)
            let recording = record(fixture.bytes, chunkSizes: [size])
            #expect(recording.properties.notRead == properties.notRead, "\(size)-byte chunks")
        }
    }

    /// ReplayGain under its own names from ID3 `TXXX`, MP4 free-form items and FLAC comments; iTunes'
    /// normalization from an ID3 comment with that description and an MP4 free-form item, the plain comment
    /// left as the comment (it was overwritten by whichever comment frame came last).
    @Test(arguments: ["mutagen-gain.mp3", "mutagen-gain.m4a", "metaflac-gain.flac"])
    func loudnessTagsUnderTheirNames(_ name: String) throws {
        let fixture = Fixture.named("tags/" + name)
        let metadata = try AudioFile(path: fixture.path).properties.infoDictionary
        #expect(metadata["comments"] == "A plain comment", "\(metadata)")
        #expect(metadata["replaygain_track_gain"] == "-6.20 dB", "\(metadata)")
        if !name.hasSuffix(".m4a") { #expect(metadata["replaygain_track_peak"] == "0.988525") }
        if !name.hasSuffix(".flac") { #expect(metadata["itunnorm"]?.hasPrefix(" 00000180 0000016F") == true) }
    }

    /// An M4A's gapless tag is reported as `itunsmpb` (the numbers iTunes reads) beside the priming it gives.
    @Test func theGaplessTagIsShown() throws {
        let properties = try AudioFile(path: Fixture.named("mp4/assembled-itunsmpb.mp4").path).properties
        let fields = try #require(properties.infoDictionary["itunsmpb"]).split(separator: " ")
        #expect(fields.count >= 4)
        #expect(Int64(fields[1], radix: 16) == Int64(properties.packetTableInfo?.primingFrames ?? -1))
    }

    /// id3v2's ID3v2.3 frames: title, artist, album, year, the track with its total, and the genre it writes by
    /// number ("(17)") named as ffprobe and mutagen name it.
    @Test func id3v2sFramesAsTheTaggerWroteThem() throws {
        let metadata = try AudioFile(path: Fixture.named("tags/id3v2-text.mp3").path).properties.infoDictionary
        #expect(metadata["title"] == "Id3v2 Title" && metadata["artist"] == "Id3v2 Artist", "\(metadata)")
        #expect(metadata["album"] == "Id3v2 Album" && metadata["year"] == "1999", "\(metadata)")
        #expect(metadata["track number"] == "3/9" && metadata["genre"] == "Rock", "\(metadata)")
    }
}
