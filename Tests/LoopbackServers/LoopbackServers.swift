import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The committed fixtures the network tests serve.
public let networkFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

/// Servers started by the tests: on 127.0.0.1 only, on a port the kernel picked, stopped by the test.
public enum Loopback {
    /// A port free on 127.0.0.1 now (the kernel's pick for a socket bound to port 0).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LoopbackError("socket() failed") }
        defer { close(socket) }
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw LoopbackError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port that refuses every connection for the rest of the process: bound and never listened on,
    /// so the kernel never hands it to a server a later test starts (a port only closed could be, and afkit
    /// remembers a server it could not reach for a minute).
    public static func refusingPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LoopbackError("socket() failed") }
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(socket)
            throw LoopbackError("bind() failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        // (The socket stays open until the process ends: that is what keeps the port.)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A socket listening on a free loopback port, and the port.
    public static func listener() throws -> (socket: Int32, port: Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw LoopbackError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw LoopbackError("cannot listen on loopback")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The IPv4 loopback address at `port`.
    public static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Waits until something accepts connections on the port, or throws after `timeout`.
    public static func waitUntilListening(port: Int, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let socket = connect(port: port) {
                close(socket)
                return
            }
            usleep(50_000)
        }
        throw LoopbackError("nothing listens on 127.0.0.1:\(port) after \(timeout) s")
    }

    /// A connected socket to 127.0.0.1:port, or nil.
    public static func connect(port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected == 0 { return socket }
        close(socket)
        return nil
    }

    /// Sends bytes whole (or until the peer has gone).
    public static func send(_ socket: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// A program from Debian's packages (`make test` installs them), searched in PATH and the sbin folders.
    public static func executable(_ name: String) throws -> String {
        let folders =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/sbin", "/usr/bin"]
        for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        throw LoopbackError("\(name) is not installed: `make test` installs it from Debian's packages")
    }

    /// A fresh folder the test removes; open to every user (Icecast drops root for `nobody`).
    public static func temporaryFolder(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "afkit-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        return path
    }
}

/// A server that could not be started.
public struct LoopbackError: Error, CustomStringConvertible {
    /// Why.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A server or client program run for a test, stopped (TERM, then KILL) when the test is done with it.
public final class ServerProcess: @unchecked Sendable {
    /// The running program.
    public let process = Process()
    /// Its name in messages.
    public let name: String

    /// Starts `executable` with `arguments`, its output to `log`.
    public init(_ executable: String, _ arguments: [String], log: String) throws {
        name = URL(fileURLWithPath: executable).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Stops the program (at once when `immediately`: a server whose state the test throws away),
    /// killing it when it does not end within two seconds.
    public func stop(immediately: Bool = false) {
        guard process.isRunning else { return }
        if immediately { kill(process.processIdentifier, SIGKILL) } else { process.terminate() }
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A flag a thread sets and a test awaits (without holding one of the concurrency pool's threads).
    public final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var isSet = false
        /// A flag not yet set.
        public init() {}

        /// Sets the flag.
        public func set() { lock.withLock { isSet = true } }

        /// Whether it was set within `timeout` seconds.
        public func wait(timeout: Double) async -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while !lock.withLock({ isSet }) && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return lock.withLock { isSet }
        }
    }

    /// Waits for the program to end by itself, up to `timeout` seconds; whether it did.
    public func waitForExit(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !process.isRunning
    }

    deinit { stop() }
}

/// nginx serving a folder on a loopback port (it honours `Range`).
public final class NginxServer {
    /// The loopback port it listens on.
    public let port: Int
    /// The folder it serves.
    public let folder: String
    private let scheme: String
    private let server: ServerProcess

    /// Serves `root`; with `certificate` and `key` (PEM files), over HTTPS; `locations` go into the
    /// server block as they are (a redirect, say).
    public init(serving root: String, certificate: String? = nil, key: String? = nil, locations: String = "") throws {
        folder = try Loopback.temporaryFolder("nginx")
        port = try Loopback.freePort()
        scheme = certificate == nil ? "http" : "https"
        let config = """
            daemon off;
            master_process off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            events { worker_connections 64; }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                types { audio/mp4 m4a; audio/x-caf caf; audio/mpeg mp3; audio/aac aac; }
                server {
                    listen 127.0.0.1:\(port)\(certificate == nil ? "" : " ssl");
                    \(certificate.map { "ssl_certificate \($0); ssl_certificate_key \(key ?? "");" } ?? "")
                    root \(root);
                    \(locations)
                }
            }
            """
        try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        server = try ServerProcess(
            try Loopback.executable("nginx"), ["-e", folder + "/error.log", "-c", folder + "/nginx.conf"],
            log: folder + "/stdout.log")
        try Loopback.waitUntilListening(port: port)
    }

    /// The URL of `path`.
    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)/\(path)" }

    /// The access log's lines: method, path, status and bytes sent, one request each.
    public var accessLog: [String] {
        ((try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    deinit {
        server.stop(immediately: true)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
