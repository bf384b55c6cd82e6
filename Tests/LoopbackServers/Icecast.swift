import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Debian's Icecast 2.4 on a loopback port with a generated configuration. New listeners get the
/// mount's whole queue (a 4 MiB burst), so one that joins a moment after the source hears it all.
public final class IcecastServer {
    public let port: Int
    public let folder: String
    public static let sourcePassword = "afkit-source"
    private let server: ServerProcess

    public init() throws {
        folder = try Loopback.temporaryFolder("icecast")
        port = try Loopback.freePort()
        // Icecast refuses to run as root; it drops to `nobody` after binding.
        let owner = getuid() == 0
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
        server = try ServerProcess(try Loopback.executable("icecast2"), ["-c", folder + "/icecast.xml"],
            log: folder + "/stdout.log")
        try Loopback.waitUntilListening(port: port)
    }

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

