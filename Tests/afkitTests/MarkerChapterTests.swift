import AudioContainers
import AudioFormats
import Foundation
import Testing

/// Markers carried as chapters (issue 71): a WAV's cue points (libsndfile's, unnamed; the byte-built sampler's,
/// labelled) and an AIFF's MARK (libsndfile's, named, out of time order) converted into containers that hold chapters
/// and no markers, each chapter starting at its marker's frame at the output's rate and titled by its name, else
/// 'Marker' and its id; read back by afkit, ffprobe and mutagen (Tests/Fixtures/make-marker-chapter-fixtures.sh,
/// chapters/markers-*). And what every note says where markers are not carried.
@Suite struct MarkerChapterTests {
    /// A committed output: its name, source, options, the rate and chapters (start frame, title) it holds, its
    /// frames, and whether its chapters are kept to the millisecond (ID3 `CHAP`, Vorbis `CHAPTERnnn`) rather than
    /// to the frame (M4A's chapter track at the sample rate, `chpl` in 100 ns).
    struct Output: Sendable, CustomStringConvertible {
        var name: String
        var source: String
        var options: [String]
        var rate: Double
        var chapters: [(frame: Int64, title: String)]
        var frames: Int64
        var description: String { name }
        var toTheMillisecond: Bool { !name.hasSuffix(".m4a") }

        /// Where a chapter starts as the container keeps it, in seconds.
        func start(_ frame: Int64) -> Double {
            toTheMillisecond ? (Double(frame) / rate * 1000).rounded() / 1000 : Double(frame) / rate
        }
    }

    static let cues: [(Int64, String)] = [(0, "Marker 1"), (4001, "Marker 2"), (12007, "Marker 3")]
    static let outputs = [
        Output(
            name: "markers-cues-aac.m4a", source: "chapters/markers-cues.wav", options: ["-d", "aac"], rate: 16000,
            chapters: cues, frames: 24000),
        Output(
            name: "markers-cues.mp3", source: "chapters/markers-cues.wav", options: [], rate: 16000, chapters: cues,
            frames: 24000),
        Output(
            name: "markers-cues.flac", source: "chapters/markers-cues.wav", options: [], rate: 16000, chapters: cues,
            frames: 24000),
        Output(
            name: "markers-named-alac.m4a", source: "chapters/markers-named.aiff", options: ["-d", "alac"],
            rate: 16000, chapters: [(2000, "Intro"), (8003, "Verse – café"), (20000, "Marker 3")], frames: 24000),
        Output(
            name: "markers-sampler-alac.m4a", source: "markers/sampler.wav", options: ["-d", "alac@44100"],
            rate: 44100, chapters: [(2000, "loop start"), (6000, "loop end"), (7200, "tail")], frames: 8000),
    ]

    /// `[start, end, title]` of an ffprobe listing, `[start, title]` of a mutagen one.
    static func listing(_ name: String) throws -> [[String]] {
        try ChapterTrackTests.listing(Command.fixtures + "/chapters/" + name)
    }

    /// The sources hold what their makers were told (libsndfile's empty AIFF name, one NUL byte, reads as none).
    @Test func theSourcesMarkers() throws {
        let cues = try AudioFile(path: Command.fixtures + "/chapters/markers-cues.wav").properties.markers
        #expect(cues.map(\.framePosition) == [0, 4001, 12007] && cues.allSatisfy(\.name.isEmpty), "\(cues)")
        let named = try AudioFile(path: Command.fixtures + "/chapters/markers-named.aiff").properties.markers
        #expect(named.map(\.framePosition) == [8003, 2000, 20000], "\(named)")
        #expect(named.map(\.name) == ["Verse – café", "Intro", ""])
    }

    /// afkit still writes the committed files byte for byte (what ffprobe and mutagen were run on), and says what
    /// became of the markers.
    @Test(arguments: outputs)
    func writesTheCommittedFiles(_ output: Output) throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/" + output.name
        let result = try Command.run(["convert", output.source] + output.options + [path])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/chapters/" + output.name))))
        let container = try AudioFile(path: path).properties
        let said = [
            "markers-cues": "the source's 3 markers become chapters, titled 'Marker' and their id\n",
            "markers-named": "the source's 3 markers become chapters, the unnamed one titled 'Marker 3'\n",
            "markers-sampler": "the source's 3 markers become chapters\n",
        ]
        let key = try #require(said.keys.first { output.name.hasPrefix($0) })
        #expect(result.stderr.contains("holds no markers: " + (said[key] ?? "")), "\(result.stderr)")
        #expect(!result.stderr.contains("markers are not carried"), "\(result.stderr)")
        #expect(container.markers.isEmpty)
    }

    /// afkit reads each chapter where its marker was: to the frame at the output's rate in M4A (the chapter track's
    /// timescale is the sample rate where a start falls between milliseconds), to the millisecond in MP3 and FLAC;
    /// each ending where the next starts, the last at the sound's end.
    @Test(arguments: outputs)
    func chaptersStartAtTheMarkers(_ output: Output) throws {
        let properties = try AudioFile(path: Command.fixtures + "/chapters/" + output.name).properties
        #expect(properties.chapters.map(\.title) == output.chapters.map(\.title))
        for (chapter, marker) in zip(properties.chapters, output.chapters) {
            #expect(abs(chapter.startTime - output.start(marker.frame)) < 1e-12, "\(output.name): \(chapter)")
            if !output.toTheMillisecond {
                #expect(Int64((chapter.startTime * output.rate).rounded()) == marker.frame)
            }
        }
        // (Vorbis comments give starts alone: FLAC's chapters end where the next starts, said by none.)
        let ends = output.chapters.dropFirst().map { output.start($0.frame) } + [Double(output.frames) / output.rate]
        for (chapter, end) in zip(properties.chapters, ends) where !output.name.hasSuffix(".flac") {
            #expect(abs((chapter.endTime ?? -1) - end) < 1e-12, "\(output.name): \(chapter)")
        }
    }

    /// ffprobe reads the same starts (to its six decimals) and titles, each ending where the next starts and the last
    /// with the sound (M4A: from the chapter track, which ffprobe prefers to `chpl`; a track whose first chapter
    /// starts after 0 once had its last end early, at the media's length less that start).
    @Test(arguments: outputs)
    func ffprobeReadsThem(_ output: Output) throws {
        let read = try Self.listing(output.name + ".chapters")
        #expect(read.map { $0[2] } == output.chapters.map(\.title))
        for (line, chapter) in zip(read, output.chapters) {
            #expect(abs((Double(line[0]) ?? -1) - output.start(chapter.frame)) <= 5e-7, "\(output.name): \(line)")
        }
        let ends = output.chapters.dropFirst().map { output.start($0.frame) } + [Double(output.frames) / output.rate]
        #expect(read.count == ends.count)
        for (line, end) in zip(read, ends) {
            #expect(abs((Double(line[1]) ?? -1) - end) <= 5e-7, "\(output.name): \(line)")
        }
    }

    /// mutagen reads the same starts and titles: M4A's `chpl` (to 100 ns) and MP3's ID3 `CHAP` frames.
    @Test(arguments: outputs.filter { !$0.name.hasSuffix(".flac") })
    func mutagenReadsThem(_ output: Output) throws {
        let read = try Self.listing(output.name + ".mutagen")
        #expect(read.map { $0[1] } == output.chapters.map(\.title))
        for (line, chapter) in zip(read, output.chapters) {
            #expect(abs((Double(line[0]) ?? -1) - output.start(chapter.frame)) <= 5e-7, "\(output.name): \(line)")
        }
    }

    /// A WAV of 8000 frames at 8 kHz with the given markers (afkit's writer).
    static func marked(_ path: String, _ markers: [Marker]) throws {
        let format = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16, isFloat: false)
        var options = AudioFileWriterOptions()
        options.markers = markers
        let writer = try AudioFileWriter(path: path, fileType: .wav, format: format, options: options)
        try writer.writePackets(
            (0..<8000).flatMap { frame -> [UInt8] in
                let sample = Int16(8000 * sin(Double(frame) * 0.05))
                return [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
            })
        try writer.close()
    }

    /// Two markers at one frame start one chapter (the first's), and a marker at the output's end starts none: each
    /// said, never a chapter of no length; positions move with a cut and to the output's rate, exact to the frame; a
    /// marker the cut removes is said dropped; `-v` lists what became of each.
    @Test func markersThatStartNoChapter() throws {
        let folder = try ScratchFolder()
        let source = folder.path + "/marked.wav"
        try Self.marked(
            source,
            [
                Marker(id: 1, framePosition: 2000, name: "A"), Marker(id: 2, framePosition: 2000, name: "B"),
                Marker(id: 3, framePosition: 8000, name: ""), Marker(id: 4, framePosition: 5000, name: ""),
                Marker(id: 5, framePosition: 500, name: "cut away"),
            ])
        let output = folder.path + "/out.m4a"
        let result = try Command.run(["convert", "-v", source, "--start", "1000f", "-d", "alac@44100", output])
        #expect(result.status == 0, "\(result.stderr)")
        let chapters = try AudioFile(path: output).properties.chapters
        // 1000 source frames cut: 1000 and 4000 frames in, at 44100 Hz 5512.5 (5513) and 22050.
        #expect(chapters.map(\.title) == ["A", "Marker 4"])
        #expect(chapters.map(\.startTime) == [5513 / 44100, 22050 / 44100])
        #expect(chapters.map(\.endTime) == [22050 / 44100, 38588 / 44100])
        let stderr = result.stderr
        for said in [
            "note: marker 'B' is at the frame of marker 'A' (5513), whose chapter starts there: not carried",
            "note: marker 3 is at the output's end (frame 38588), where no chapter can start: not carried",
            "note: 1 marker lies outside the audio kept and is dropped",
            "note: M4A holds no markers: the source's 2 markers become chapters, the unnamed one titled 'Marker 4'",
            "convert: marker 'A' at frame 2000 moved to 5513: the chapter 'A'\n",
            "convert: marker 'B' at frame 2000 moved to 5513: not carried\n",
            "convert: marker 'cut away' at frame 500: outside the audio kept, dropped\n",
        ] {
            #expect(stderr.contains(said), "\(said)\n\(stderr)")
        }
        // Into WAV, which holds markers, they stay markers, all four.
        let wav = folder.path + "/out.wav"
        #expect(try Command.run(["convert", source, "--start", "1000f", wav]).status == 0)
        #expect(try AudioFile(path: wav).properties.markers.map(\.framePosition) == [1000, 1000, 7000, 4000])
    }

    /// `--chapters FILE` takes the place of the chapters the markers would make: the note says so (it said the
    /// markers were not carried, and not why); an output that holds neither says both are not carried; WAV keeps
    /// its markers and gains the file's chapters as markers.
    @Test func aChapterFileTakesTheMarkersPlace() throws {
        let folder = try ScratchFolder()
        for name in ["out.m4a", "out.flac"] {
            let result = try Command.run([
                "convert", "-v", "--chapters", "chapters/bursts.txt", "chapters/markers-cues.wav",
                folder.path + "/" + name,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "holds no markers: the source's 3 markers are not carried (the chapters of 'chapters/bursts.txt' "
                        + "are written instead)\n"), "\(result.stderr)")
            #expect(result.stderr.contains("convert: marker 2 at frame 4001: not carried\n"), "\(result.stderr)")
            #expect(!result.stderr.contains("become chapters"))
            let chapters = try AudioFile(path: folder.path + "/" + name).properties.chapters
            #expect(chapters.map(\.title) == ["Opening", "First burst – café", "Second burst"], "\(name)")
        }
        let au = try Command.run([
            "convert", "--chapters", "chapters/bursts.txt", "chapters/markers-cues.wav", folder.path + "/out.au",
        ])
        #expect(au.status == 0, "\(au.stderr)")
        #expect(au.stderr.contains("AU holds no markers: the source's 3 markers are not carried\n"), "\(au.stderr)")
        #expect(
            au.stderr.contains("AU holds no chapters: the chapter file's 3 chapters are not carried"), "\(au.stderr)")
        let wav = folder.path + "/out.wav"
        let marked = try Command.run(["convert", "--chapters", "chapters/bursts.txt", "chapters/markers-cues.wav", wav])
        #expect(
            marked.stderr.contains("WAV holds no chapters: the chapter file's 3 become markers"), "\(marked.stderr)")
        #expect(!marked.stderr.contains("not carried"), "\(marked.stderr)")
        #expect(try AudioFile(path: wav).properties.markers.map(\.framePosition) == [0, 4001, 12007, 0, 8000, 16000])
    }

    /// HLS: the markers become the package's chapters (chapters.json), on the renditions' clock; under `--loudness`
    /// the source's chapters reach the package too (the normalized signal, a CAF, holds none: they were lost, and
    /// notes spoke of that intermediate file: "CAF holds no chapters", "the source's 6 markers are not carried").
    @Test func hlsPackagesTheMarkersAsChapters() throws {
        let folder = try ScratchFolder()
        let plain = folder.path + "/plain"
        let result = try Command.run(["hls", "chapters/markers-cues.wav", "--out", plain])
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try HLSChapterTests.entries(plain)
        let starts = entries.map { ($0["start-time"] as? Double) ?? -1 }
        for (start, frame) in zip(starts, [0.0, 4001, 12007]) { #expect(abs(start - frame / 16000) < 1e-6) }
        #expect(entries.map { ($0["titles"] as? [[String: String]])?.first?["title"] } == Self.cues.map(\.1))

        let carried = folder.path + "/carried"
        let loud = try Command.run(["hls", "--loudness", "-23", "chapters/bursts-alac.m4a", "--out", carried])
        #expect(loud.status == 0, "\(loud.stderr)")
        #expect(!loud.stderr.contains("CAF") && !loud.stderr.contains("marker"), "\(loud.stderr)")
        #expect(
            try HLSChapterTests.entries(carried).map { ($0["titles"] as? [[String: String]])?.first?["title"] } == [
                "Opening", "First burst – café", "Second burst",
            ])

        let listed = folder.path + "/listed"
        let file = try Command.run([
            "hls", "--loudness", "-20", "--chapters", "chapters/bursts.txt", "chapters/markers-cues.wav", "--out",
            listed,
        ])
        #expect(file.status == 0, "\(file.stderr)")
        #expect(!file.stderr.contains("CAF"), "\(file.stderr)")
        #expect(
            file.stderr.contains(
                "the source's 3 markers are not carried (the chapters of 'chapters/bursts.txt' are written instead)"),
            "\(file.stderr)")
        #expect(try HLSChapterTests.entries(listed).map { $0["start-time"] as? Double } == [0, 0.5, 1])
    }
}
