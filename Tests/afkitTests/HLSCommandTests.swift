import AudioContainers
@testable import FileAccess
import Foundation
import Testing

/// `afkit hls` and `validate --profile hls-audio` as the contract's "New commands and profiles" spell them
/// (issue 51): the folder, the exit statuses, the refusals by name.
@Suite struct HLSCommandTests {
    let scratch = NSTemporaryDirectory() + "afkit-hls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init() throws { try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true) }

    /// A playlist made wrong on purpose: `old` replaced by `new` in the file at `path`.
    static func replace(_ old: String, with new: String, in path: String) throws {
        try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: old, with: new).write(
            toFile: path, atomically: true, encoding: .utf8)
    }

    /// A package of speech (mono, 22.05 kHz, 2.5 s) in 1 s segments, both kinds: the master names the renditions,
    /// each rendition's segments are there, and validate passes it (exit 0) as text and JSON.
    @Test func writesAndValidatesAPackage() throws {
        for type in ["fmp4", "packed"] {
            let out = scratch + "/" + type
            let result = try Command.run([
                "hls", "signals/speech.wav", "--out", out, "--segment-type", type, "--segment-duration", "1",
                "--bitrates", "48k,96k",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\(out)/master.m3u8: 2 renditions"), "\(result.stdout)")
            let master = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
            #expect(master.contains("CODECS=\"mp4a.40.2\"") && master.contains("CHANNELS=\"1\""))
            let segments = try FileManager.default.contentsOfDirectory(atPath: out + "/aac-48k")
            let suffix = type == "fmp4" ? ".m4s" : ".aac"
            #expect(segments.filter { $0.hasSuffix(suffix) }.count == 3, "\(segments)")
            #expect(segments.contains("init.mp4") == (type == "fmp4"))
            let checked = try Command.run([
                "validate", "--profile", "hls-audio", "--format", "json", out + "/master.m3u8",
            ])
            #expect(checked.status == 0, "\(checked.stdout)")
            let files = (checked.json as? [String: Any])?["files"] as? [[String: Any]]
            // Apple's 6 s target and 44.1/48 kHz are recommendations: warnings, the package passes.
            #expect(files?.first?["ok"] as? Bool == true)
            // A folder: its master playlist is found, the media playlists it names are not checked twice.
            let walked = try Command.run(["validate", "--profile", "hls-audio", out])
            #expect(walked.stdout.contains("1 file checked with profile 'hls-audio'"), "\(walked.stdout)")
        }
    }

    /// Usage errors exit 2 (a source that does not exist, HE-AAC, a segment duration out of range, sources
    /// whose folders would clash); a broken package fails validation with exit 1; a playlist given to `info`
    /// is refused by name.
    @Test func refusalsAndStatuses() throws {
        let missing = try Command.run(["hls", "no-such.wav", "--out", scratch + "/x"])
        #expect(missing.status == 2)
        let heAAC = try Command.run(["hls", "-d", "aach", "signals/speech.wav", "--out", scratch + "/x"])
        #expect(heAAC.status == 2 && heAAC.stderr.contains("HE-AAC"), "\(heAAC.stderr)")
        let duration = try Command.run([
            "hls", "--segment-duration", "0.2", "signals/speech.wav", "--out", scratch + "/x",
        ])
        #expect(duration.status == 2)
        let clash = try Command.run([
            "hls", "signals/speech.wav", "clip/speech-peak-0.3.wav", "signals/speech.wav", "--out", scratch + "/x",
        ])
        #expect(clash.status == 2 && clash.stderr.contains("would both be 'speech'"), "\(clash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/x"))

        let out = scratch + "/broken"
        #expect(try Command.run(["hls", "signals/speech.wav", "--out", out, "--segment-duration", "1"]).status == 0)
        try Self.replace("segment1.m4s", with: "segment7.m4s", in: out + "/aac-128k/prog_index.m3u8")
        let checked = try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"])
        #expect(checked.status == 1)
        #expect(
            checked.stdout.contains("error: hls-segments: aac-128k/prog_index.m3u8: segment7.m4s"), "\(checked.stdout)")

        let info = try Command.run(["info", out + "/master.m3u8"])
        #expect(info.status == 1 && info.stderr.contains("segment7.m4s"), "\(info.stderr)")
        // convert does not read playlists yet: refused by name.
        let convert = try Command.run(["convert", out + "/master.m3u8", scratch + "/x.wav"])
        #expect(convert.status == 1 && convert.stderr.contains("an HTTP Live Streaming playlist"), "\(convert.stderr)")
    }

    /// `info --loudness` on a playlist measures the rendition `info` reports (a master playlist's: the one its `HLS:`
    /// line and `hls.mediaPlaylist` name), its segments decoded in order as one sound: within a few tenths of a LU of
    /// the source it was made from, as AAC keeps it, in text as for a file and in `--json`'s `loudness`; a master's
    /// every rendition too (`renditions`, "Rendition loudness:" lines). (It was refused with code 'nope', then showed
    /// the best rendition alone.)
    @Test func infoMeasuresAPlaylistsLoudness() throws {
        let source = scratch + "/tone.wav"
        try toneWAV(source, seconds: 4, rate: 48000, channels: 2)
        let measured = try #require(try Command.run(["info", "--loudness", "--json", source]).json as? [[String: Any]])
        let sourceLoudness = try #require((measured.first?["loudness"] as? [String: Any])?["integrated"] as? Double)
        for type in ["fmp4", "packed"] {
            let out = scratch + "/loudness-" + type
            let made = try Command.run([
                "hls", source, "--out", out, "--segment-type", type, "--segment-duration", "1", "--bitrates",
                "96k,160k",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            for playlist in [out + "/master.m3u8", out + "/aac-96k/prog_index.m3u8"] {
                let info = try Command.run(["info", "--loudness", "--json", playlist])
                #expect(info.status == 0, "\(playlist): \(info.stderr)")
                let entry = try #require((info.json as? [[String: Any]])?.first)
                let loudness = try #require(entry["loudness"] as? [String: Any], "\(info.stdout)")
                let integrated = try #require(loudness["integrated"] as? Double)
                #expect(abs(integrated - sourceLoudness) <= 0.3, "\(playlist): \(integrated) against \(sourceLoudness)")
                #expect(loudness["truePeak"] is Double && loudness["range"] is Double, "\(loudness)")
                let rendition = playlist.hasSuffix("master.m3u8") ? "aac-160k" : "aac-96k"
                #expect(
                    (entry["hls"] as? [String: Any])?["mediaPlaylist"] as? String
                        == "\(out)/\(rendition)/prog_index.m3u8")
                let text = try Command.run(["info", "--loudness", playlist])
                #expect(text.status == 0, "\(text.stderr)")
                #expect(
                    text.stdout.contains(" segments of \(out)/\(rendition)/prog_index.m3u8\nLoudness:               "),
                    "\(text.stdout)")
                // A master's every rendition is measured too, lowest bandwidth first; a media playlist is its own.
                let renditions = entry["renditions"] as? [[String: Any]]
                if playlist.hasSuffix("master.m3u8") {
                    #expect(
                        renditions?.map { $0["mediaPlaylist"] as? String }
                            == ["\(out)/aac-96k/prog_index.m3u8", "\(out)/aac-160k/prog_index.m3u8"])
                    for each in renditions ?? [] {
                        let level = try #require((each["loudness"] as? [String: Any])?["integrated"] as? Double)
                        #expect(abs(level - sourceLoudness) <= 0.3, "\(each)")
                    }
                    #expect(text.stdout.contains("Rendition loudness:     \(out)/aac-96k/prog_index.m3u8: "))
                } else {
                    #expect(renditions == nil && !text.stdout.contains("Rendition loudness"))
                }
            }
        }
    }

    /// Several sources: a folder each, named after it, each with its master playlist.
    @Test func severalSources() throws {
        let out = scratch + "/many"
        let result = try Command.run([
            "hls", "signals/speech.wav", "clip/inter-sample-11k.wav", "--out", out, "--segment-duration", "1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for stem in ["speech", "inter-sample-11k"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(stem)/master.m3u8"))
        }
    }

    /// `packets` and `info` on FFmpeg's playlists: the segments as one stream (the packets of the init section and
    /// segments concatenated), each segment's start listed; byte ranges read the same packets; MPEG-TS refused by
    /// name (exit 1); a bad --variant is a usage error.
    @Test func packetsAndInfoReadPlaylists() throws {
        let listing = try Command.run(["packets", "--json", "hls/ffmpeg-fmp4/prog.m3u8"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let object = try #require(listing.json as? [String: Any])
        let packets = try #require(object["packets"] as? [[String: Any]])
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.map { $0["uri"] as? String } == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"])
        #expect(segments.map { $0["firstPacket"] as? Int } == [0, 47, 94, 141])
        // The same packets as the four segments joined after their init section, read as one file.
        let joined = scratch + "/joined.mp4"
        var bytes = Data()
        for name in ["init.mp4", "seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"] {
            bytes += try Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/hls/ffmpeg-fmp4/" + name))
        }
        try bytes.write(to: URL(fileURLWithPath: joined))
        let whole = try #require(try Command.run(["packets", "--json", joined]).json as? [String: Any])
        let sizes = { (list: [[String: Any]]) in list.map { $0["size"] as? Int ?? -1 } }
        #expect(sizes(packets) == sizes(whole["packets"] as? [[String: Any]] ?? []))
        let ranged = try #require(
            try Command.run(["packets", "--json", "hls/ffmpeg-byterange/prog.m3u8"]).json as? [String: Any])
        #expect(sizes(ranged["packets"] as? [[String: Any]] ?? []) == sizes(packets))

        let info = try Command.run(["info", "--json", "hls/ffmpeg-fmp4/prog.m3u8"])
        let entry = try #require((info.json as? [[String: Any]])?.first)
        #expect((entry["hls"] as? [String: Any])?["segments"] as? Int == 4)
        #expect(entry["packetCount"] as? Int == packets.count)

        let ts = try Command.run(["packets", "hls/ffmpeg-ts/prog.m3u8"])
        #expect(ts.status == 1 && ts.stderr.contains("MPEG-2 transport stream"), "\(ts.stderr)")
        #expect(try Command.run(["packets", "--variant", "loud", "hls/ffmpeg-fmp4/prog.m3u8"]).status == 2)
    }

    /// A new user's cases: a source named with '#' (a path is taken as it is, not as a URL with a fragment), a
    /// segment URI with %XX escapes on the disk, --quiet printing nothing, a last segment cut mid-frame failing.
    @Test func pathsEscapesQuietAndCutSegments() throws {
        let folder = scratch + "/odd #1?"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/my song #1.wav"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/signals/speech.wav", toPath: source)
        let out = folder + "/out #2"
        let quiet = try Command.run([
            "hls", "--quiet", "--segment-type", "packed", "--segment-duration", "1", source, "--out", out,
        ])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        #expect(try Command.run(["validate", "--profile", "hls-audio", out]).status == 0)
        // A segment renamed with a space and '#', named in the playlist by its %XX escapes.
        let media = out + "/aac-128k/prog_index.m3u8"
        try FileManager.default.moveItem(atPath: out + "/aac-128k/segment0.aac", toPath: out + "/aac-128k/seg one#.aac")
        let text = try String(contentsOfFile: media, encoding: .utf8)
        try text.replacingOccurrences(of: "segment0.aac", with: "seg%20one%23.aac").write(
            toFile: media, atomically: true, encoding: .utf8)
        let escaped = try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"])
        #expect(escaped.status == 0, "\(escaped.stdout)")
        // The last segment cut 50 bytes short.
        let last = out + "/aac-128k/segment2.aac"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: last))
        try bytes.dropLast(50).write(to: URL(fileURLWithPath: last))
        let cut = try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"])
        #expect(cut.status == 1 && cut.stdout.contains("segment2.aac: cut short"), "\(cut.stdout)")
    }

    /// The second new user's smaller cases: `mp4a.40.02` is `mp4a.40.2`; a wrong CODECS is one error, not two;
    /// packed audio where fMP4 belongs is named; --variant on a file that is no playlist is a usage error; a byte
    /// order mark is a reader's problem too; a package without a stereo rendition says so when it is made.
    @Test func secondRoundEdges() throws {
        let out = scratch + "/edges"
        #expect(try Command.run(["hls", "signals/speech.wav", "--out", out, "--segment-duration", "1"]).status == 0)
        let master = out + "/master.m3u8"
        let text = try String(contentsOfFile: master, encoding: .utf8)
        try Self.replace("mp4a.40.2", with: "mp4a.40.02", in: master)
        #expect(try Command.run(["validate", "--profile", "hls-audio", master]).status == 0)
        try text.write(toFile: master, atomically: true, encoding: .utf8)
        try Self.replace("mp4a.40.2", with: "mp4a.40.5", in: master)
        let wrong = try Command.run(["validate", "--profile", "hls-audio", "--format", "json", master])
        let violations =
            ((wrong.json as? [String: Any])?["files"] as? [[String: Any]])?.first?["violations"] as? [[String: Any]]
        #expect(violations?.filter { $0["rule"] as? String == "hls-codecs" }.count == 1, "\(wrong.stdout)")
        try text.write(toFile: master, atomically: true, encoding: .utf8)
        // An ADTS segment put where an .m4s belongs.
        let packed = scratch + "/edges-packed"
        #expect(
            try Command.run(["hls", "--segment-type", "packed", "signals/speech.wav", "--out", packed]).status == 0)
        try FileManager.default.removeItem(atPath: out + "/aac-128k/segment0.m4s")
        try FileManager.default.copyItem(
            atPath: packed + "/aac-128k/segment0.aac", toPath: out + "/aac-128k/segment0.m4s")
        let misplaced = try Command.run(["validate", "--profile", "hls-audio", master])
        #expect(
            misplaced.stdout.contains("a packed-audio (ID3/ADTS) segment where an fMP4 segment belongs"),
            "\(misplaced.stdout)")
        #expect(try Command.run(["packets", "--variant", "best", "signals/speech.wav"]).status == 2)
        // A byte order mark: info reads the playlist and lists it among the problems.
        let bom = packed + "/aac-128k/prog_index.m3u8"
        let media = try Data(contentsOf: URL(fileURLWithPath: bom))
        try (Data([0xEF, 0xBB, 0xBF]) + media).write(to: URL(fileURLWithPath: bom))
        let info = try Command.run(["info", bom])
        #expect(info.status == 0 && info.stdout.contains("byte order mark"), "\(info.stdout)")
        let surround = try Command.run(["hls", "-c", "6", "report/multichannel.wav", "--out", scratch + "/six"])
        #expect(
            surround.status == 0 && surround.stderr.contains("asks for a stereo AAC rendition beside them"),
            "\(surround.stderr)")
    }

    /// The names in `folder`, sorted (hidden ones included).
    static func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// Issue 65: rates that round to one kbit/s get folders of their own (they shared `aac-16k-1`, the later
    /// overwriting the earlier, the master listing it twice), and the package passes validate.
    @Test func renditionsAreNamedUniquely() throws {
        let out = scratch + "/rates"
        let result = try Command.run([
            "hls", "signals/speech.wav", "--out", out, "--segment-duration", "1", "--bitrates", "16000,16050,16100",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.names(out) == [".afkit-package", "aac-16050", "aac-16100", "aac-16k", "master.m3u8"])
        let master = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
        let uris = master.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(uris == ["aac-16k/prog_index.m3u8", "aac-16050/prog_index.m3u8", "aac-16100/prog_index.m3u8"])
        #expect(try Command.run(["validate", "--profile", "hls-audio", out + "/master.m3u8"]).status == 0)
    }

    /// Issue 65: the limits are usage errors (exit 2) that say them, before anything is written: a segment duration
    /// of 2e9 s, 33 renditions, a pad over ten minutes in seconds or in the source's frames (22,050 Hz), sources whose
    /// folders would be '.' or '..' (named by afkit, not stopped by the kernel). The help states the limits.
    @Test func limitsAreUsageErrors() throws {
        let out = scratch + "/limits"
        let rates = (0..<33).map { "\(8 + $0)k" }.joined(separator: ",")
        let dots = scratch + "/dots"
        try FileManager.default.createDirectory(atPath: dots, withIntermediateDirectories: true)
        for name in ["..wav", "...wav"] {
            try FileManager.default.copyItem(
                atPath: Command.fixtures + "/signals/speech.wav", toPath: dots + "/" + name)
        }
        let cases: [([String], String)] = [
            (["--segment-duration", "2e9"], "give 1 to 60 s"),
            (["--bitrates", rates], "33 renditions: a package holds at most 32"),
            (["--pad", "601"], "a pad of 601 s at the start: afkit hls pads at most 600 s each side"),
            (["--pad", "0,13230001f"], "a pad of 13230001 frames (over 13230000 at the source's 22050 Hz) at the end"),
            ([dots + "/..wav"], "'\(dots)/..wav' would get '.', which names no folder of its own"),
            ([dots + "/...wav"], "'\(dots)/...wav' would get '..', which names no folder of its own"),
        ]
        for (arguments, message) in cases {
            let result = try Command.run(["hls", "signals/speech.wav", "--out", out] + arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try Self.names(dots) == ["...wav", "..wav"])
        let help = try Command.run(["hls", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(help.contains("at most 32 renditions") && help.contains("--pad at most 600 s each side"), "\(help)")
    }

    /// Issue 65: only a package afkit wrote is replaced. A folder of package-like names (sounds of one's own) is
    /// refused, naming --out, and left as it was; a package holds a marker naming the files afkit wrote, and one
    /// holding anything else is refused, naming that file; a package an earlier afkit wrote (no marker, its master
    /// naming everything in afkit's layout) is replaced.
    @Test func replacesOnlyWhatAfkitWrote() throws {
        let mine = scratch + "/my sounds"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        for name in ["a.aac", "b.m4s", "c.m3u8"] {
            try FileManager.default.copyItem(
                atPath: Command.fixtures + "/signals/speech.wav", toPath: mine + "/" + name)
        }
        let refused = try Command.run(["hls", "signals/speech.wav", "--out", mine])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("'\(mine)' holds") && refused.stderr.contains("no package afkit wrote"))
        #expect(try Self.names(mine) == ["a.aac", "b.m4s", "c.m3u8"])

        let out = scratch + "/package"
        #expect(try Command.run(["hls", "--quiet", "signals/speech.wav", "--out", out]).status == 0)
        let marker = try String(contentsOfFile: out + "/.afkit-package", encoding: .utf8).split(separator: "\n")
        #expect(marker.first?.hasPrefix("afkit hls package (afkit ") == true)
        #expect(
            Array(marker.dropFirst()) == [
                "aac-128k/init.mp4", "aac-128k/prog_index.m3u8", "aac-128k/segment0.m4s", "master.m3u8",
            ])
        try Data([1]).write(to: URL(fileURLWithPath: out + "/aac-128k/segment9.m4s"))
        let foreign = try Command.run(["hls", "signals/speech.wav", "--out", out])
        #expect(foreign.status == 2 && foreign.stderr.contains("'\(out)/aac-128k/segment9.m4s' in it is not afkit's"))
        #expect(FileManager.default.fileExists(atPath: out + "/aac-128k/segment9.m4s"))
        try FileManager.default.removeItem(atPath: out + "/aac-128k/segment9.m4s")
        // An earlier afkit's package, without the marker: recognised by its master playlist, replaced.
        try FileManager.default.removeItem(atPath: out + "/.afkit-package")
        let replaced = try Command.run(["hls", "--quiet", "signals/speech.wav", "--out", out, "--bitrates", "64k"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Self.names(out) == [".afkit-package", "aac-64k", "master.m3u8"])
    }

    /// Issue 65, what a kill -9 leaves, made by hand (no timing): temporary folders of killed runs, one aside
    /// copy of the old package with no --out (a kill between the two renames where names cannot be exchanged).
    /// The next run puts the old package back, then replaces it; it removes every temporary no process holds,
    /// and keeps one another process holds locked (as a live run does), however old.
    @Test func killedRunsLeaveNothingBehind() throws {
        let parent = scratch + "/killed"
        let out = parent + "/out"
        #expect(try Command.run(["hls", "--quiet", "signals/speech.wav", "--out", out]).status == 0)
        let partial = parent + "/.out.afkit-aaaaaaaaaaaa"
        try FileManager.default.createDirectory(atPath: partial + "/aac-128k", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: partial + "/aac-128k/segment0.m4s"))
        let live = parent + "/.out.afkit-bbbbbbbbbbbb"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        // Not afkit's shape: left alone.
        try FileManager.default.createDirectory(atPath: parent + "/.out.afkit-mine", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: out, toPath: parent + "/.out.afkit-cccccccccccc.old")
        let holder = try Command.holdLock(on: live)
        defer { holder.terminate() }
        let result = try Command.run(["hls", "signals/speech.wav", "--out", out, "--bitrates", "64k"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.names(parent) == [".out.afkit-bbbbbbbbbbbb", ".out.afkit-mine", "out"])
        #expect(try Self.names(out) == [".afkit-package", "aac-64k", "master.m3u8"])
        // An aside copy beside a complete --out (a kill after the second rename) is removed too.
        try FileManager.default.createDirectory(
            atPath: parent + "/.out.afkit-dddddddddddd.old/aac-128k", withIntermediateDirectories: true)
        #expect(try Command.run(["hls", "--quiet", "signals/speech.wav", "--out", out]).status == 0)
        #expect(try Self.names(parent) == [".out.afkit-bbbbbbbbbbbb", ".out.afkit-mine", "out"])
    }

    /// The swap itself: where names can be exchanged, --out is exchanged for the new folder in one step (a new
    /// folder at the same name, the old one's files gone); where they cannot, the old folder goes aside and the
    /// new one in, and neither the aside copy nor the temporary is left.
    @Test func theFolderIsSwappedWhole() throws {
        let parent = scratch + "/swap"
        let out = parent + "/out"
        for exchanging in [true, false] {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try Data([1]).write(to: URL(fileURLWithPath: out + "/old"))
            let temporary = try TemporaryFolders.create(beside: out)
            try Data([2]).write(to: URL(fileURLWithPath: temporary + "/new"))
            try TemporaryFolders.settle(temporary, at: out, as: out, checkingReplaced: nil, exchanging: exchanging)
            #expect(try Self.names(parent) == ["out"], "exchanging: \(exchanging)")
            #expect(try Self.names(out) == ["new"])
            try FileManager.default.removeItem(atPath: out)
        }
        // The exchange of two names, as the system call gives it.
        try FileManager.default.createDirectory(atPath: parent + "/a/x", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: parent + "/b/y", withIntermediateDirectories: true)
        if renamePath(parent + "/a", parent + "/b", flags: .exchange) == 0 {
            #expect(try Self.names(parent + "/a") == ["y"] && Self.names(parent + "/b") == ["x"])
        } else {
            // A file system without the exchange: the fallback above is what such a one gets.
            #expect(TemporaryFolders.exchangeMissing.contains(errno))
        }
    }
}
