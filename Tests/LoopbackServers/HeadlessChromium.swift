import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's `chromium`, headless, for the tests that look at a page as a browser shows it: a fresh
/// profile each run, its requests sent through a ``RequestCatcher`` as proxy, bounded in time.
public struct HeadlessChromium {
    /// What a run printed.
    public struct Output {
        /// `--dump-dom`'s page, or nothing.
        public var stdout: String
        /// Chromium's log, the page's console messages among it (`CONSOLE` lines).
        public var stderr: String
        /// The page's console messages (errors, warnings, logs), each as Chromium's log line.
        public var consoleMessages: [String] {
            stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }.map(String.init)
        }
    }

    let executable: String
    /// Every request the browser makes goes here (a page that loads nothing makes none).
    public let catcher: RequestCatcher

    /// Chromium found in PATH, with a fresh request catcher.
    public init() throws {
        executable = try Loopback.executable("chromium")
        catcher = try RequestCatcher()
    }

    /// Opens `url` in a `width` × `height` window, lets it run `budget` milliseconds of virtual time, and
    /// does what `mode` asks: `--dump-dom`, or `--screenshot=PATH`; `options` are more of Chromium's switches.
    public func run(
        _ url: String, mode: String, width: Int = 1200, height: Int = 900, budget: Int = 5000, options: [String] = []
    ) throws
        -> Output
    {
        let profile = try Loopback.temporaryFolder("chromium")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
                "--disable-client-side-phishing-detection", "--disable-domain-reliability", "--no-pings",
                "--proxy-server=http://127.0.0.1:\(catcher.port)", "--proxy-bypass-list=<-loopback>",
                "--enable-logging=stderr", "--v=0", "--window-size=\(width),\(height)",
                "--virtual-time-budget=\(budget)",
            ] + options + [mode, url]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while it runs (a full pipe would stall it); stop it after a minute whatever it does.
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isError) in [(out, false), (err, true)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.store(data, isError: isError)
                group.leave()
            }
        }
        if group.wait(timeout: .now() + 60) == .timedOut {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            throw LoopbackError("chromium did not finish within 60 s")
        }
        process.waitUntilExit()
        return Output(stdout: collected.text(isError: false), stderr: collected.text(isError: true))
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        func store(_ data: Data, isError: Bool) { lock.withLock { if isError { err = data } else { out = data } } }
        func text(isError: Bool) -> String { lock.withLock { String(decoding: isError ? err : out, as: UTF8.self) } }
    }
}

/// A listener on a loopback port that takes every connection and keeps each one's first line (a proxy's
/// view of a browser's request: `GET http://host/path HTTP/1.1`, `CONNECT host:443 HTTP/1.1`), then closes it.
public final class RequestCatcher: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var lines: [String] = []
    private var stopped = false

    /// Listens on a free loopback port.
    public init() throws {
        let (socket, port) = try Loopback.listener()
        self.socket = socket
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// The first line of every request so far.
    public var requests: [String] { lock.withLock { lines } }

    /// The requests but the browser's own calls home (its component updater and account service at Google,
    /// which headless Chromium makes whatever page it shows and whatever switches say): what a page asked for.
    public var pageRequests: [String] {
        requests.filter { line in
            let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let host = (target.hasPrefix("http://") ? String(target.dropFirst(7)) : target)
                .prefix { $0 != "/" && $0 != ":" }
            return !["google.com", "googleapis.com", "gvt1.com"].contains { host == $0 || host.hasSuffix("." + $0) }
        }
    }

    /// Stops listening.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(socket, Int32(SHUT_RDWR))
            close(socket)
        }
    }

    private func acceptLoop() {
        while !lock.withLock({ stopped }) {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 2048)
            var reader = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            var line = "(a connection that sent nothing)"
            if poll(&reader, 1, 2000) > 0 {
                let count = recv(client, &buffer, buffer.count, 0)
                if count > 0 {
                    line =
                        String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\r\n").first.map(
                            String.init)
                        ?? line
                }
            }
            close(client)
            lock.withLock { lines.append(line) }
        }
    }
}
