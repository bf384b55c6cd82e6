import Foundation
import Testing

/// Issue 71's smaller defects: a cut MP3 says where it is cut, plain `info` shows what `--json` shows of
/// markers, loops and the instrument, `--trace` says nothing of trailing bytes where there are none, and every
/// subcommand names itself and the file in a missing file's message.
@Suite struct InfoAndMessageTests {
    static func info(_ path: String) throws -> [String: Any] {
        let result = try Command.run(["info", "--json", path])
        return try #require((result.json as? [[String: Any]])?.first, "\(result.stderr)")
    }

    /// Every 16-bit sample of a conversion of `path` to WAV (frames decoded by afkit, as every command delivers).
    static func decoded(_ path: String, _ folder: ScratchFolder, _ name: String) throws -> [UInt8] {
        let output = folder.path + "/" + name
        let result = try Command.run(["convert", "-d", "LEI16", path, output])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try Self.info(output)
        let offset = try #require(info["dataOffset"] as? Int)
        let count = try #require(info["dataByteCount"] as? Int)
        return Array(try Data(contentsOf: URL(fileURLWithPath: output))[offset..<offset + count])
    }

    /// The first 12,000 bytes of a LAME MP3 (Tests/Fixtures/make-cut-mp3-fixtures.sh): 27 whole frames and a cut one.
    /// The contract states priming and remainder from the LAME tag alone (remainder = padding - 529), so the tag's
    /// 713 frames of padding are taken off what is left, as from the whole file; every command delivers those
    /// frames, the whole file's own samples there, and the cut is said with the byte where it comes.
    @Test func aCutMP3KeepsTheTagsCountsAndSaysWhereItIsCut() throws {
        let cut = try Self.info("mp3/lame-cut-mid-file.mp3")
        #expect(cut["packetCount"] as? Int == 27)
        #expect(cut["primingFrames"] as? Int == 1105)
        #expect(cut["remainderFrames"] as? Int == 713)
        #expect(cut["frameCount"] as? Int == 27 * 1152 - 1105 - 713)
        #expect(cut["truncated"] as? Bool == true)
        let whole = try Self.info("mp3/lame-cbr128-stereo-44k.mp3")
        #expect(whole["remainderFrames"] as? Int == 713 && whole["frameCount"] as? Int == 59 * 1152 - 1105 - 713)

        let text = try Command.run(["info", "mp3/lame-cut-mid-file.mp3"])
        #expect(text.stdout.contains("Frames:                 29286 valid + 1105 priming + 713 remainder"))
        #expect(text.stdout.contains("the file is truncated at byte 11701"), "\(text.stdout)")

        let folder = try ScratchFolder()
        let fromCut = try Self.decoded("mp3/lame-cut-mid-file.mp3", folder, "cut.wav")
        let fromWhole = try Self.decoded("mp3/lame-cbr128-stereo-44k.mp3", folder, "whole.wav")
        #expect(fromCut.count == 29286 * 4)
        #expect(fromCut[...] == fromWhole[..<fromCut.count])
    }

    /// Plain `info` shows the markers, loops, instrument and comments `--json` gives, a line each.
    @Test func plainInfoShowsLoopsMarkersAndTheInstrument() throws {
        for name in ["markers/sampler.wav", "markers/sampler.aiff", "markers/sampler.caf"] {
            let result = try Command.run(["info", name])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try Self.info(name)
            let loops = json["loops"] as? [[String: Any]] ?? []
            #expect(!loops.isEmpty)
            for loop in loops {
                let line =
                    "Loop:                   \(loop["playMode"] as? String ?? ""), frames \(loop["start"] as? Int ?? -1) "
                    + "to \(loop["end"] as? Int ?? -1)"
                #expect(result.stdout.contains(line), "\(name): \(result.stdout)")
            }
            for marker in json["markers"] as? [[String: Any]] ?? [] {
                #expect(
                    result.stdout.contains(
                        "Marker:                 \(marker["id"] as? Int ?? -1) at frame \(marker["position"] as? Int ?? -1)"
                    ),
                    "\(name): \(result.stdout)")
            }
            let instrument = try #require(json["instrument"] as? [String: Any])
            #expect(
                result.stdout.contains(
                    "Instrument:             base note \(instrument["baseNote"] as? Int ?? -1), detune "
                        + "\(instrument["detune"] as? Int ?? -99) cents"), "\(name): \(result.stdout)")
        }
        let aiff = try Command.run(["info", "markers/sampler.aiff"])
        #expect(aiff.stdout.contains("Comment:                marker 1: loop here"), "\(aiff.stdout)")
    }

    /// `info --loudness` on a file of no audio frames says there is nothing to measure, where it printed a loudness
    /// of -inf as though silence had been measured; `--json` keeps the contract's nulls.
    @Test func aFileOfNoFramesHasNoLoudness() throws {
        let folder = try ScratchFolder()
        let empty = folder.path + "/empty.wav"
        try toneWAV(empty, seconds: 0)
        let text = try Command.run(["info", "--loudness", empty])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Loudness:               none: the file holds no audio frames to measure\n"))
        #expect(!text.stdout.contains("-inf LUFS"), "\(text.stdout)")
        let json = try Command.run(["info", "--loudness", "--json", empty])
        let loudness = ((json.json as? [[String: Any]])?.first?["loudness"] as? [String: Any]) ?? [:]
        #expect(loudness["integrated"] is NSNull, "\(json.stdout)")
    }

    /// An AIFF's COMT comment is shown once, on its `Comment:` line (it was also a `Metadata: comments:` line, the
    /// tag made of the same text); `--json` keeps both, as the contract lists them.
    @Test func anAIFFCommentIsShownOnce() throws {
        let result = try Command.run(["info", "aiff/sox-s16-comment.aiff"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "made by sox").count == 2, "\(result.stdout)")
        #expect(result.stdout.contains("Comment:                made by sox"), "\(result.stdout)")
        let json = try Self.info("aiff/sox-s16-comment.aiff")
        #expect((json["metadata"] as? [String: Any])?["comments"] as? String == "made by sox")
        #expect((json["comments"] as? [[String: Any]])?.first?["text"] as? String == "made by sox")
        // afkit's own AIFF of it holds the text twice, as an annotation (ANNO) and a comment (COMT): shown once.
        let folder = try ScratchFolder()
        let copy = folder.path + "/copy.aiff"
        let converted = try Command.run(["convert", "aiff/sox-s16-comment.aiff", copy])
        #expect(converted.status == 0, "\(converted.stderr)")
        let shown = try Command.run(["info", copy]).stdout
        #expect(shown.components(separatedBy: "made by sox").count == 2, "\(shown)")
    }

    /// `--trace` on a clean WAV says nothing of bytes after its end; with a byte more, it says so at that byte.
    @Test func traceIsQuietAtACleanEnd() throws {
        let folder = try ScratchFolder()
        let clean = folder.path + "/clean.wav"
        try toneWAV(clean, seconds: 0.1)
        let result = try Command.run(["info", "--trace", clean])
        #expect(result.status == 0 && !result.stderr.contains("after the end"), "\(result.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: clean)[.size] as? Int)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        bytes.append(0)
        let padded = folder.path + "/padded.wav"
        try bytes.write(to: URL(fileURLWithPath: padded))
        let trailing = try Command.run(["info", "--trace", padded])
        #expect(trailing.stderr.contains("@\(size): bytes after the end of the outer chunk ignored"), "\(trailing)")
    }

    /// A missing file, in every subcommand: `COMMAND: FILE: error: no such file`, then the usage, status 2.
    @Test func aMissingFileIsNamedByEveryCommand() throws {
        let folder = try ScratchFolder()
        for arguments in [
            ["convert", "missing.wav", folder.path + "/out.caf"], ["validate", "missing.wav"],
            ["packets", "missing.wav"], ["clip", "missing.wav"],
            ["waveform", "missing.wav", "--output", folder.path + "/w.png"],
            ["batch", "--preset", "sfx", "--out", folder.path + "/b", "missing.wav"],
            ["hls", "missing.wav", "--out", folder.path + "/h"],
        ] {
            let result = try Command.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("\(arguments[0]): missing.wav: error: no such file\n"),
                "\(arguments): \(result.stderr)")
        }
        let info = try Command.run(["info", "missing.wav"])
        #expect(info.status == 2 && info.stderr.hasPrefix("info: missing.wav: error: "), "\(info.stderr)")
        let folderOut = try Command.run(["convert", "markers/sampler.wav", folder.path + "/none/out.caf"])
        #expect(folderOut.status == 2)
        #expect(folderOut.stderr.hasPrefix("convert: \(folder.path)/none/out.caf: error: no such folder"))
    }

    /// A folder given where a command reads a file, in every command that takes one: a usage error in the shape
    /// of a missing file's (`COMMAND: FOLDER: error: is a folder, not a file ...`, status 2, nothing written), as
    /// one function (`inputPathProblem`) decides for all; `info` reports it in the folder's place (its JSON object an
    /// error) and reads the other files. Before, `info`, `hls`, `clip`, `waveform`, `packets`, `join` and `mix` said
    /// `'wav' is a folder, not a regular file` without the FILE field (`join` and `mix` naming the output), status 1.
    @Test func aFolderGivenAsAFileIsAUsageErrorOfEveryCommand() throws {
        let folder = try ScratchFolder()
        let source = "wav/pcm-s16-stereo.wav"
        for arguments in [
            ["convert", "wav", folder.path + "/out.caf"], ["packets", "wav"], ["clip", "wav"],
            ["waveform", "wav", "--output", folder.path + "/w.png"], ["hls", "wav", "--out", folder.path + "/h"],
            ["join", source, "wav", "-o", folder.path + "/j.wav"],
            ["mix", "wav", source, "-o", folder.path + "/m.wav"],
            ["info", "wav"], ["info", source, "wav"],
        ] {
            let result = try Command.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("\(arguments[0]): wav: error: is a folder, not a file (afkit batch "),
                "\(arguments): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "\(arguments)")
        }
        let json = try Command.run(["info", "--json", "wav", source])
        #expect(json.status == 2, "\(json.stderr)")
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json.stdout)")
        let error = try #require(objects.first?["error"] as? [String: Any], "\(json.stdout)")
        #expect((error["message"] as? String)?.hasPrefix("is a folder, not a file") == true, "\(json.stdout)")
        #expect(objects.count == 2 && objects[1]["frameCount"] != nil, "\(json.stdout)")
        // A folder for a chapter file: the same usage error, with no word of sounds.
        let chapters = try Command.run(["convert", "--chapters", "wav", source, folder.path + "/c.m4a"])
        #expect(chapters.status == 2 && chapters.stderr.hasPrefix("convert: wav: error: is a folder, not a file\n"))
        // validate and batch search folders: a folder is what they take.
        #expect(try Command.run(["validate", "wav"]).status != 2)
    }
}
