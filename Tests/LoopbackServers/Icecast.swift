import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Icecast 2.4 on a loopback port with a generated configuration. New listeners get the
/// mount's whole queue (a 4 MiB burst), so one that joins a moment after the source hears it all.
public final class IcecastServer: @unchecked Sendable {
    /// The loopback port it listens on.
    public let port: Int
    /// Its scratch folder (configuration, logs).
    public let folder: String
    /// The password sources stream with.
    public static let sourcePassword = "afkit-source"
    private let server: ServerProcess

    /// Starts Icecast on a free loopback port.
    public init() throws {
        folder = try Loopback.temporaryFolder("icecast")
        port = try Loopback.freePort()
        // Icecast refuses to run as root; it drops to `nobody` after binding.
        let owner =
            getuid() == 0
            ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : ""
        let config = """
            <icecast>
              <limits><clients>16</clients><sources>4</sources><queue-size>4194304</queue-size>
                <burst-on-connect>1</burst-on-connect><burst-size>4194304</burst-size>
                <source-timeout>5</source-timeout></limits>
              <authentication><source-password>\(Self.sourcePassword)</source-password>
                <admin-user>admin</admin-user><admin-password>afkit-admin</admin-password></authentication>
              <hostname>127.0.0.1</hostname>
              <location>loopback</location><admin>afkit@localhost</admin>
              <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
              <paths><basedir>/usr/share/icecast2</basedir><logdir>\(folder)</logdir>
                <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
              <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
              <security><chroot>0</chroot>\(owner)</security>
            </icecast>
            """
        try config.write(toFile: folder + "/icecast.xml", atomically: true, encoding: .utf8)
        server = try ServerProcess(
            try Loopback.executable("icecast2"), ["-c", folder + "/icecast.xml"],
            log: folder + "/stdout.log")
        try Loopback.waitUntilListening(port: port)
    }

    /// Every log in the server's folder (Icecast's, each source's), for a failure message.
    public var logs: String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted().map { name in
            "== \(name)\n" + ((try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }

    /// The URL of `mount`.
    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }

    /// ezstream playing files once to a mount, as MP3, the title of each being its file name.
    public func ezstream(playing files: [String], to mount: String) throws -> ServerProcess {
        let name = "ezstream-\(UUID().uuidString.prefix(8))"
        let playlist = folder + "/\(name).m3u"
        try (files.joined(separator: "\n") + "\n").write(toFile: playlist, atomically: true, encoding: .utf8)
        let config = """
            <ezstream>
              <servers><server><hostname>127.0.0.1</hostname><port>\(port)</port>
                <password>\(Self.sourcePassword)</password></server></servers>
              <streams><stream><mountpoint>\(mount)</mountpoint><format>MP3</format>
                <stream_name>afkit test</stream_name><stream_genre>Test</stream_genre></stream></streams>
              <intakes><intake><filename>\(playlist)</filename><stream_once>Yes</stream_once></intake></intakes>
            </ezstream>
            """
        let path = folder + "/\(name).xml"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        // ezstream will not read a configuration others may read (it holds the password).
        chmod(path, 0o600)
        return try ServerProcess(try Loopback.executable("ezstream"), ["-c", path], log: folder + "/\(name).log")
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension IcecastServer {
    /// A source client of the test's own (Icecast 2.4 takes a source by HTTP `PUT`): sends each
    /// file's bytes after setting the mount's title to its name through the admin interface, then
    /// leaves. For formats ezstream does not stream (ADTS AAC). Runs on a thread of its own; returns
    /// the thread's end as a flag to wait for. `waitsForListener`: it sends nothing until a listener is on the mount
    /// (10 s at most: on a loaded machine the whole playlist, 1.5 s, once went by before the test's client joined).
    public func putSource(
        _ files: [String], titles: [String], to mount: String, contentType: String, waitsForListener: Bool = false
    ) throws -> ServerProcess.Flag {
        let bytes = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let port = port
        let done = ServerProcess.Flag()
        let thread = Thread {
            defer { done.set() }
            guard let socket = Loopback.connect(port: port) else { return }
            defer { close(socket) }
            let credentials = Data("source:\(Self.sourcePassword)".utf8).base64EncodedString()
            Loopback.send(
                socket,
                Array(
                    ("PUT \(mount) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                        + "Authorization: Basic \(credentials)\r\nContent-Type: \(contentType)\r\nIce-Public: 0\r\n"
                        + "Ice-Name: afkit test\r\n\r\n").utf8))
            // Icecast answers once the mount is set up.
            var answer: [UInt8] = []
            var byte: UInt8 = 0
            while answer.suffix(4) != [13, 10, 13, 10], recv(socket, &byte, 1, 0) == 1 { answer.append(byte) }
            guard String(decoding: answer, as: UTF8.self).contains(" 200 ") else { return }
            let deadline = Date().addingTimeInterval(10)
            while waitsForListener, self.listeners(on: mount) < 1, Date() < deadline { usleep(20_000) }
            for (file, title) in zip(bytes, titles) {
                self.setTitle(title, of: mount)
                usleep(200_000)
                Loopback.send(socket, Array(file))
                usleep(300_000)
            }
        }
        thread.start()
        return done
    }

    /// The listeners on `mount` now, from the admin interface's statistics (`/admin/stats`); 0 where unknown.
    public func listeners(on mount: String) -> Int {
        guard let socket = Loopback.connect(port: port) else { return 0 }
        defer { close(socket) }
        let credentials = Data("admin:afkit-admin".utf8).base64EncodedString()
        Loopback.send(socket, Array("GET /admin/stats HTTP/1.0\r\nAuthorization: Basic \(credentials)\r\n\r\n".utf8))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let source = text.range(of: "<source mount=\"\(mount)\">"),
            let open = text.range(of: "<listeners>", range: source.upperBound..<text.endIndex),
            let shut = text.range(of: "</listeners>", range: open.upperBound..<text.endIndex)
        else { return 0 }
        return Int(text[open.upperBound..<shut.lowerBound]) ?? 0
    }

    /// The mount's title, through the admin interface (`/admin/metadata?mode=updinfo`).
    public func setTitle(_ title: String, of mount: String) {
        guard let socket = Loopback.connect(port: port) else { return }
        defer { close(socket) }
        let credentials = Data("admin:afkit-admin".utf8).base64EncodedString()
        let query =
            "mount=\(mount)&mode=updinfo&song=\(title)"
            .addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        Loopback.send(
            socket, Array(("GET /admin/metadata?\(query) HTTP/1.0\r\nAuthorization: Basic \(credentials)\r\n\r\n").utf8)
        )
        var byte: UInt8 = 0
        while recv(socket, &byte, 1, 0) == 1 {}
    }
}
