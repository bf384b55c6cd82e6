import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A playlist is untrusted input: what it names is read below its own folder, never the network from the disk
/// unless asked, never `file:`; no byte of a file the user did not name and no password is printed, in any
/// command or report format.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PlaylistBoundaryTests {
    /// A secret outside the package, and its text: no 4 characters of it may appear in any output.
    static let secretText = "QZX7-SECRET-PAYLOAD-81WK"

    /// FFmpeg's fMP4 package (Tests/Fixtures/hls/ffmpeg-fmp4) copied into a fresh folder `pkg`, beside a secret
    /// file outside it; returns the package folder and the secret's path.
    static func package(_ name: String) throws -> (folder: String, secret: String) {
        let root = try Loopback.temporaryFolder("boundary-\(name)")
        let folder = root + "/pkg"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/hls/ffmpeg-fmp4", toPath: folder)
        let secret = root + "/secret.txt"
        try Data((secretText + "\n").utf8).write(to: URL(fileURLWithPath: secret))
        return (folder, secret)
    }

    static var playlist: String {
        (try? String(contentsOfFile: Command.fixtures + "/hls/ffmpeg-fmp4/prog.m3u8", encoding: .utf8)) ?? ""
    }

    /// Every way a command reports a playlist: info (text, JSON), packets (text, JSON) and validate in each format.
    static let readings: [[String]] =
        [
            ["info"], ["info", "--json"], ["packets"], ["packets", "--json"],
        ] + ["text", "json", "junit", "github", "html"].map { ["validate", "--profile", "hls-audio", "--format", $0] }

    static func leaks(_ output: String) -> Bool {
        let secret = Array(secretText)
        return (0...(secret.count - 4)).contains { output.contains(String(secret[$0..<$0 + 4])) }
    }

    @Test func resourcesOutsideThePackageAreRefusedByName() throws {
        let (folder, secret) = try Self.package("outside")
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.m4s", withDestinationPath: secret)
        // Each: the URI as written in the playlist, and whether it stands for the segment or the map.
        let hostile: [(uri: String, map: Bool)] = [
            (secret, false), (secret, true), ("../secret.txt", false), ("../secret.txt", true),
            ("%2E%2E/secret.txt", false), ("link.m4s", false), ("link.m4s", true), ("/proc/self/environ", false),
            ("/dev/zero", true), ("file://" + secret, false), ("file://" + secret, true),
        ]
        for (index, (uri, map)) in hostile.enumerated() {
            let text =
                map
                ? Self.playlist.replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"\(uri)\"")
                : Self.playlist.replacingOccurrences(of: "seg0.m4s", with: uri)
            let path = folder + "/hostile-\(index).m3u8"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            for reading in Self.readings {
                let result = try Command.run(reading + [path])
                let output = result.stdout + result.stderr
                #expect(result.status != 0, "\(reading) \(uri): \(output)")
                #expect(!Self.leaks(output), "\(reading) \(uri) printed the secret: \(output)")
                #expect(output.contains("is not read"), "\(reading) \(uri): \(output)")
            }
        }
        // The package itself is read (a link inside it to a file inside it too).
        try FileManager.default.createSymbolicLink(atPath: folder + "/inner.m4s", withDestinationPath: "seg0.m4s")
        let inner = folder + "/inner.m3u8"
        try Data(Self.playlist.replacingOccurrences(of: "seg0.m4s", with: "inner.m4s").utf8).write(
            to: URL(fileURLWithPath: inner))
        for path in [folder + "/prog.m3u8", inner] {
            let checked = try Command.run(["validate", "--profile", "hls-audio", path])
            #expect(checked.status == 0, "\(checked.stdout)")
        }
    }

    @Test func aPlaylistInAFolderGivenReadsBelowThatFolder() throws {
        let (folder, _) = try Self.package("given")
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        }
        let given = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        try FileManager.default.removeItem(atPath: given + "/secret.txt")
        let nested = given + "/lists"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        let shared = Self.playlist.replacingOccurrences(of: "seg", with: "../pkg/seg").replacingOccurrences(
            of: "init.mp4", with: "../pkg/init.mp4")
        try Data(shared.utf8).write(to: URL(fileURLWithPath: nested + "/prog.m3u8"))
        let walked = try Command.run(["validate", "--profile", "hls-audio", given])
        #expect(walked.status == 0 && walked.stdout.contains("2 files checked"), "\(walked.stdout)")
        // Given alone, the playlist reads below its own folder only.
        let alone = try Command.run(["validate", "--profile", "hls-audio", nested + "/prog.m3u8"])
        #expect(alone.status == 1 && alone.stdout.contains("is not read"), "\(alone.stdout)")
    }

    @Test func bytesOfASegmentThatDoesNotParseAreNeverQuoted() throws {
        let (folder, _) = try Self.package("quote")
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        }
        // Byte ranges of a file inside the package that is no segment: each 8 bytes would read as a box type
        // and size.
        try Data(Self.secretText.utf8).write(to: URL(fileURLWithPath: folder + "/notes.m4s"))
        var text = Self.playlist
        for index in 0..<3 {
            text = text.replacingOccurrences(
                of: "seg\(index).m4s\n", with: "#EXT-X-BYTERANGE:8@\(index * 8)\nnotes.m4s\n")
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/ranges.m3u8"))
        let map = Self.playlist.replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"notes.m4s\"")
        try Data(map.utf8).write(to: URL(fileURLWithPath: folder + "/map.m3u8"))
        for name in ["ranges.m3u8", "map.m3u8"] {
            for reading in Self.readings {
                let result = try Command.run(reading + [folder + "/" + name])
                let output = result.stdout + result.stderr
                #expect(result.status != 0, "\(reading) \(name)")
                #expect(!Self.leaks(output), "\(reading) \(name) quoted the bytes: \(output)")
                #expect(output.contains("notes.m4s"), "\(reading) \(name): \(output)")
            }
        }
    }

    @Test func aPlaylistOnTheDiskReachesTheNetworkOnlyWhenAsked() throws {
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        let (folder, _) = try Self.package("network")
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        }
        let base = "http://alice:s3cretpass@127.0.0.1:\(server.port)"
        let segment = Self.playlist.replacingOccurrences(of: "seg1.m4s", with: base + "/seg1.m4s")
        let map = Self.playlist.replacingOccurrences(of: "URI=\"init.mp4\"", with: "URI=\"\(base)/init.mp4\"")
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=130000,AVERAGE-BANDWIDTH=128000,CODECS="mp4a.40.2"
            \(base)/media.m3u8

            """
        for (name, text) in [("segment", segment), ("map", map), ("master", master)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/\(name).m3u8"))
        }
        for name in ["segment", "map", "master"] {
            for reading in Self.readings {
                let result = try Command.run(reading + [folder + "/\(name).m3u8"])
                let output = result.stdout + result.stderr
                #expect(result.status != 0 && output.contains("--allow-network"), "\(reading) \(name): \(output)")
                #expect(!output.contains("s3cretpass") && output.contains("***@127.0.0.1"), "\(output)")
            }
        }
        #expect(server.requests.isEmpty, "a playlist on the disk made \(server.requests.count) requests")
        // Asked, it fetches (and the server's 404 is said), the password still never printed.
        for reading in Self.readings {
            let result = try Command.run(
                [reading[0], "--allow-network"] + reading.dropFirst() + [folder + "/segment.m3u8"])
            let output = result.stdout + result.stderr
            #expect(result.status != 0 && output.contains("404"), "\(reading): \(output)")
            #expect(!output.contains("s3cretpass"), "\(output)")
        }
        #expect(!server.requests.isEmpty)
    }

    @Test func aPlaylistOverHTTPNamesNoLocalFileAndPrintsNoPassword() throws {
        let (_, secret) = try Self.package("remote")
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: secret).deletingLastPathComponent().path)
        }
        let media = Self.playlist.replacingOccurrences(of: "seg0.m4s", with: "file://" + secret)
        let server = try ScriptedServer { _, request, socket in
            // The segment after names this server again, with a password of its own.
            let port =
                request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("host:") }?
                .split(separator: ":").last.map(String.init) ?? ""
            let body =
                request.hasPrefix("GET /prog.m3u8")
                ? media.replacingOccurrences(
                    of: "seg1.m4s", with: "http://bob:hunter2pass@127.0.0.1:\(port)/seg1.m4s") : ""
            ScriptedServer.send(
                socket,
                "HTTP/1.1 \(body.isEmpty ? "404 Not Found" : "200 OK")\r\nContent-Type: "
                    + "application/vnd.apple.mpegurl\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                    + body)
        }
        let url = "http://carol:pa55word@127.0.0.1:\(server.port)/prog.m3u8"
        for reading in Self.readings {
            let result = try Command.run(reading + [url])
            let output = result.stdout + result.stderr
            #expect(result.status != 0, "\(reading): \(output)")
            #expect(!Self.leaks(output), "\(reading) printed the local file: \(output)")
            #expect(!output.contains("pa55word") && !output.contains("hunter2pass"), "\(reading): \(output)")
        }
    }

    @Test func bidirectionalControlsInANameArePrintedEscaped() throws {
        let folder = try Loopback.temporaryFolder("bidi")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = folder + "/tone\u{202E}3pm.caf"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/caf/ima4-stereo.caf", toPath: name)
        let text = try Command.run(["info", name])
        #expect(text.status == 0 && text.stdout.contains("tone\\u202E3pm.caf"), "\(text.stdout)")
        #expect(!text.stdout.unicodeScalars.contains("\u{202E}"))
        // JSON reads the name back exactly.
        let json = try Command.run(["info", "--json", name])
        let path = ((json.json as? [[String: Any]])?.first ?? (json.json as? [String: Any]))?["path"] as? String
        #expect(path == name, "\(json.stdout)")
    }

    /// What an attacker tried next: a playlist on standard input (its spool's folder is /tmp), a playlist link
    /// in a folder given to validate, a path that leads out to a file that does not exist (an existence probe),
    /// `%00`, passwords with the characters a URL's user information may not hold, and escape sequences in a
    /// URI.
    @Test func theSecondRoundOfTricksIsRefused() throws {
        let (folder, secret) = try Self.package("second")
        let root = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let secretName = URL(fileURLWithPath: secret).lastPathComponent
        // Standard input: refused as a usage error before anything is read.
        let stdin = try Command.run(
            ["validate", "--profile", "hls-audio", "-"],
            stdin: Data(Self.playlist.replacingOccurrences(of: "seg0.m4s", with: secretName).utf8))
        #expect(stdin.status == 2 && stdin.stderr.contains("standard input"), "\(stdin.stderr)")
        // A link in the folder given that leads to a playlist outside it: not read.
        let outside = root + "/outside.m3u8"
        try Data(Self.playlist.replacingOccurrences(of: "seg0.m4s", with: "QZX7-LISTED.m4s").utf8).write(
            to: URL(fileURLWithPath: outside))
        let walked = root + "/walked"
        try FileManager.default.createDirectory(atPath: walked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: walked + "/link.m3u8", withDestinationPath: outside)
        let walk = try Command.run(["validate", "--profile", "hls-audio", walked])
        #expect(!walk.stdout.contains("QZX7-LISTED") && walk.stdout.contains("is not read"), "\(walk.stdout)")
        // '..' out to a file that does not exist, and a NUL: refused by rule, never "no such file".
        for uri in ["../no-such-file.m4s", "seg0.m4s%00/../../" + secretName] {
            let path = folder + "/probe.m3u8"
            try Data(Self.playlist.replacingOccurrences(of: "seg1.m4s", with: uri).utf8).write(
                to: URL(fileURLWithPath: path))
            let result = try Command.run(["validate", "--profile", "hls-audio", path])
            #expect(
                result.stdout.contains("is not read") && !result.stdout.contains("No such file"), "\(result.stdout)")
        }
        // Passwords with characters RFC 3986 does not allow there (libcurl sends them as they are).
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        for password in ["se\"cr3t", "se<cr3t", "se>cr3t", "se\\cr3t", "se cr3t"] {
            let url = "http://alice:\(password)@127.0.0.1:\(server.port)/seg1.m4s"
            let path = folder + "/pw.m3u8"
            try Data(Self.playlist.replacingOccurrences(of: "seg1.m4s", with: url).utf8).write(
                to: URL(fileURLWithPath: path))
            for reading in Self.readings {
                let result = try Command.run([reading[0], "--allow-network"] + reading.dropFirst() + [path])
                let output = result.stdout + result.stderr
                #expect(!output.contains("cr3t"), "\(reading) \(password): \(output)")
            }
            let direct = try Command.run(["info", url.replacingOccurrences(of: "seg1.m4s", with: "x.m3u8")])
            #expect(!(direct.stdout + direct.stderr).contains("cr3t"), "\(direct.stderr)")
        }
        // An escape sequence in a URI reaches no terminal raw.
        let escape = folder + "/escape.m3u8"
        try Data(Self.playlist.replacingOccurrences(of: "seg1.m4s", with: "no\u{1B}]0;TITLE\u{07}pe.m4s").utf8).write(
            to: URL(fileURLWithPath: escape))
        for reading in [["info"], ["packets"], ["validate", "--profile", "hls-audio"]] {
            let result = try Command.run(reading + [escape])
            let output = result.stdout + result.stderr
            #expect(!output.contains("\u{1B}") && !output.contains("\u{07}"), "\(reading)")
            #expect(output.contains("\\x1B"), "\(reading): \(output)")
        }
    }
}
