import AudioContainers
import AudioFormats
import Foundation
import Testing

/// ``HLS/ResourceAccess``: the one trust boundary between a playlist and what it names.
@Suite struct PlaylistResourceAccessTests {
    /// A package folder with a playlist, a segment, a sub-folder and links, beside a file outside it.
    static func layout() throws -> (root: String, package: String) {
        let root = NSTemporaryDirectory() + "afkit-access-\(UUID().uuidString.prefix(8))"
        let package = root + "/pkg"
        let manager = FileManager.default
        try manager.createDirectory(atPath: package + "/sub", withIntermediateDirectories: true)
        for (path, text) in [
            (package + "/index.m3u8", "#EXTM3U\n"), (package + "/seg.m4s", "segment"),
            (package + "/sub/inner.m4s", "inner"), (root + "/outside.txt", "outside"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        try manager.createSymbolicLink(atPath: package + "/out.m4s", withDestinationPath: root + "/outside.txt")
        try manager.createSymbolicLink(atPath: package + "/in.m4s", withDestinationPath: "sub/inner.m4s")
        try manager.createSymbolicLink(atPath: package + "/up", withDestinationPath: "..")
        try manager.createSymbolicLink(atPath: package + "/environ.m4s", withDestinationPath: "/proc/self/environ")
        return (root, package)
    }

    static func refusal(_ body: () throws -> [UInt8]) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as AudioFileError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func aPlaylistOnTheDiskReadsBelowItsFolderOnly() throws {
        let (root, package) = try Self.layout()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let playlist = package + "/index.m3u8"
        let access = HLS.ResourceAccess(playlist: playlist)
        #expect(try access.fetch(playlist, nil) == Array("#EXTM3U\n".utf8))
        for name in ["seg.m4s", "sub/inner.m4s", "in.m4s", "sub/../seg.m4s"] {
            #expect(
                try access.fetch(HLS.resolve(name, against: playlist), nil).count > 0, "\(name) lies inside")
        }
        #expect(try access.fetch(package + "/seg.m4s", HLS.ByteRange(length: 3, offset: 2)) == Array("gme".utf8))
        for reference in [
            root + "/outside.txt", "../outside.txt", "%2e%2e/outside.txt", "out.m4s", "up/outside.txt",
            "environ.m4s", "/proc/self/environ", "/dev/zero", "/etc/passwd", "sub/../../outside.txt",
        ] {
            let message = Self.refusal { try access.fetch(HLS.resolve(reference, against: playlist), nil) }
            #expect(message?.contains("is not read: outside the folder") == true, "\(reference): \(message ?? "read")")
            #expect(message?.contains("outside\"") != true)
        }
        // A folder given: its files are below it, a playlist's own folder or not.
        let wider = HLS.ResourceAccess(playlist: playlist, folder: root)
        #expect(try wider.fetch(HLS.resolve("../outside.txt", against: playlist), nil) == Array("outside".utf8))
        #expect(Self.refusal { try wider.fetch("/etc/passwd", nil) } != nil)
    }

    @Test func theNetworkFromTheDiskOnlyWhenAskedAndNeverAFileFromTheNetwork() throws {
        let (root, package) = try Self.layout()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let playlist = package + "/index.m3u8"
        let fetched = Fetched()
        let network: HLS.ResourceAccess.NetworkFetch = { url, _ in
            fetched.add(url)
            return [1]
        }
        let closed = HLS.ResourceAccess(playlist: playlist, network: network)
        for url in ["http://127.0.0.1:9/seg.m4s", "HTTPS://example.com/seg.m4s"] {
            #expect(Self.refusal { try closed.fetch(url, nil) }?.contains("--allow-network") == true)
        }
        #expect(fetched.urls.isEmpty)
        let open = HLS.ResourceAccess(playlist: playlist, allowsNetwork: true, network: network)
        #expect(try open.fetch("http://127.0.0.1:9/seg.m4s", nil) == [1])
        for uri in ["file:///etc/passwd", "ftp://example.com/x", "gopher://127.0.0.1:70/x"] {
            #expect(Self.refusal { try open.fetch(uri, nil) }?.contains("http and https only") == true, "\(uri)")
        }
        // Read over HTTP: other hosts are fine, a local path and file: never.
        let remote = HLS.ResourceAccess(playlist: "http://127.0.0.1:9/index.m3u8", network: network)
        #expect(try remote.fetch("https://cdn.example.com/seg.m4s", nil) == [1])
        #expect(Self.refusal { try remote.fetch(package + "/seg.m4s", nil) }?.contains("over HTTP") == true)
        #expect(Self.refusal { try remote.fetch("file://" + package + "/seg.m4s", nil) } != nil)
        #expect(fetched.urls == ["http://127.0.0.1:9/seg.m4s", "https://cdn.example.com/seg.m4s"])
    }

    @Test func everyPrintedURLPassesOneRedaction() {
        let cases = [
            ("http://alice:s3cret@host/x", "http://***@host/x"),
            ("see 'https://u:p%40ss@h:8080/a?b#c' now", "see 'https://***@h:8080/a?b#c' now"),
            ("http://a:b'c@host/", "http://***@host/"),
            ("http://a:b&#39;c@host/ and http://x:y&amp;z@h2/", "http://***@host/ and http://***@h2/"),
            ("no credentials http://host/a@b", "no credentials http://host/a@b"),
            ("mail bob@example.com", "mail bob@example.com"),
        ]
        for (text, redacted) in cases { #expect(Redaction.credentialsRemoved(from: text) == redacted, "\(text)") }
    }

    @Test func bidirectionalControlsAreDisplayedEscaped() {
        #expect(PathEscaping.displayed("a\u{202E}b\u{2066}c\u{200F}") == "a\\u202Eb\\u2066c\\u200F")
        #expect(PathEscaping.controlEscaped("title\u{202E}\n") == "title\\u202E\\n")
        #expect(PathEscaping.displayed("é ü — “quotes”") == "é ü — “quotes”")
    }
}

/// The URLs a test's network fetch was asked for.
private final class Fetched: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ url: String) { lock.withLock { list.append(url) } }
    var urls: [String] { lock.withLock { list } }
}
