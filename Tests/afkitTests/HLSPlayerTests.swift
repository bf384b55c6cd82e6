import Foundation
import LoopbackServers
import Testing

/// afkit's HLS packages in two independent players over HTTP (issue 69): FFmpeg and GStreamer's hlsdemux2
/// (`uridecodebin3`; it fetches over HTTP only), from nginx on a loopback port. For fMP4 and packed audio, a
/// package with mono, stereo and 5.1 renditions: each rendition's playlist decodes to the programme's frames (within the
/// players' own priming offsets, three packets), the master plays, the 5.1 rendition is selected from it, and
/// neither player prints a warning.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct HLSPlayerTests {
    /// A program's exit status and standard error; standard output goes to `output`.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], output: String)
        throws -> (status: Int32, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? out.close() }
        let errorLog = output + ".stderr"
        _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
        defer { try? err.close() }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Bounded: a player that stalls is stopped and fails the test.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "")
    }

    /// The frames of 16-bit `channels`-channel audio in the file at `path`.
    static func frames(_ path: String, channels: Int) throws -> Int {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        return size / (2 * channels)
    }

    /// GStreamer's warnings and errors at its debug level 2 (GST_DEBUG=2: more than gst-launch prints, which is
    /// nothing), but for two of its own: one about its HTTP session object, logged for every download, and
    /// qtdemux's "unknown QuickTime node type ludt": GStreamer 1.22 has no entry for ISO/IEC 14496-12's loudness
    /// box, which afkit writes in each init section where ISO/IEC 14496-12 places it, and which qtdemux passes
    /// over as it should.
    static func gstreamerWarnings(_ log: String) -> [Substring] {
        // (Not about the package: GStreamer's own session field, QuickTime's loudness box it does not read, and an
        // optional element it looks for where plugins-bad is not installed, hlsdemux2's tsdemux.)
        log.split(separator: "\n").filter {
            ($0.contains("WARN") || $0.contains("ERROR")) && !$0.contains("GstSoupSession")
                && !$0.contains("unknown QuickTime node type ludt") && !$0.contains("no such element factory")
        }
    }

    /// GStreamer's `uridecodebin3` playing `url` into `sink` as `caps`. hlsdemux2 (GStreamer 1.22) now and then gives
    /// up on a package's fragments some 50 ms in, in a loaded run ("Can't push EOS on non-exposed pad", then "too many
    /// failures") while nginx has served every request it made whole: a race of its own, seen on renditions and on the
    /// master. A first failure is recorded as a warning with nginx's log, which must show no failed request, and the
    /// sound is played again; the second play must pass.
    static func play(_ url: String, caps: String, sink: String, server: NginxServer, named name: String) throws
        -> (status: Int32, stderr: String)
    {
        let gstreamer = try Loopback.executable("gst-launch-1.0")
        func once() throws -> (status: Int32, stderr: String) {
            try run(
                gstreamer,
                [
                    "-q", "uridecodebin3", "uri=\(url)", "!", "audioconvert", "!", caps, "!", "filesink",
                    "location=\(sink)",
                ],
                environment: ["GST_DEBUG": "2", "GST_DEBUG_NO_COLOR": "1"], output: sink + ".out")
        }
        let first = try once()
        guard first.status != 0 else { return first }
        let log = server.accessLog
        Issue.record(
            Comment(rawValue: "\(name): GStreamer failed once; nginx's log: " + log.suffix(12).joined(separator: "\n")),
            severity: .warning)
        // Every request nginx answered was answered whole (200, or 206 for a range): the failure was the player's.
        let failed = log.filter { line in !line.contains("\" 200 ") && !line.contains("\" 206 ") }
        #expect(failed.isEmpty, "\(name): nginx answered \(failed)")
        return try once()
    }

    @Test(arguments: ["fmp4", "packed"])
    func playersDecodeEveryRendition(segmentType: String) throws {
        let folder = try Loopback.temporaryFolder("hls-players")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ffmpeg = try Loopback.executable("ffmpeg")
        // A 0.5 s 5.1 sound at 24 kHz, padded to 13 s: three 6 s segments a rendition, resampled to 48 kHz.
        let made = try Command.run([
            "hls", "report/multichannel.wav", "--pad", "0,12.5", "--segment-type", segmentType, "--renditions",
            "mono:48k,stereo:96k,5.1:320k", "--language", "en", "--out", folder + "/pkg",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let expected = 13 * 48000
        let server = try NginxServer(serving: folder)  // (stopped when released)
        for (rendition, channels) in [("aac-1ch-48k", 1), ("aac-2ch-96k", 2), ("aac-6ch-320k", 6)] {
            let url = server.url("pkg/\(rendition)/prog_index.m3u8")
            let decoded = folder + "/ffmpeg-\(rendition).raw"
            let byFFmpeg = try Self.run(
                ffmpeg, ["-nostdin", "-v", "warning", "-i", url, "-f", "s16le", "-"], output: decoded)
            #expect(byFFmpeg.status == 0 && byFFmpeg.stderr.isEmpty, "\(rendition): \(byFFmpeg.stderr)")
            let ffmpegFrames = try Self.frames(decoded, channels: channels)
            #expect(abs(ffmpegFrames - expected) <= 3 * 1024, "\(segmentType) \(rendition): FFmpeg \(ffmpegFrames)")

            let sink = folder + "/gst-\(rendition).raw"
            let byGStreamer = try Self.play(
                url, caps: "audio/x-raw,format=S16LE", sink: sink, server: server, named: "\(segmentType) \(rendition)")
            #expect(byGStreamer.status == 0, "\(rendition): \(byGStreamer.stderr)")
            #expect(Self.gstreamerWarnings(byGStreamer.stderr).isEmpty, "\(rendition): \(byGStreamer.stderr)")
            let gstreamerFrames = try Self.frames(sink, channels: channels)
            #expect(
                abs(gstreamerFrames - expected) <= 3 * 1024, "\(segmentType) \(rendition): GStreamer \(gstreamerFrames)"
            )
        }
        // The master: FFmpeg selects the 5.1 rendition's stream from it; GStreamer plays it to the end.
        let master = server.url("pkg/master.m3u8")
        let selected = folder + "/ffmpeg-master.raw"
        let byFFmpeg = try Self.run(
            ffmpeg, ["-nostdin", "-v", "warning", "-i", master, "-map", "0:a:2", "-f", "s16le", "-"], output: selected)
        #expect(byFFmpeg.status == 0 && byFFmpeg.stderr.isEmpty, "master: \(byFFmpeg.stderr)")
        #expect(abs(try Self.frames(selected, channels: 6) - expected) <= 3 * 1024)
        let byGStreamer = try Self.play(
            master, caps: "audio/x-raw,format=S16LE,channels=2", sink: folder + "/gst-master.raw", server: server,
            named: "\(segmentType) master")
        #expect(byGStreamer.status == 0 && Self.gstreamerWarnings(byGStreamer.stderr).isEmpty, "\(byGStreamer.stderr)")
        #expect(try Self.frames(folder + "/gst-master.raw", channels: 2) > expected / 2)
    }
}
