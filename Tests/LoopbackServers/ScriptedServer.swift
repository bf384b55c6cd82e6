import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP server on a loopback port whose every answer is scripted by the test: a lying header,
/// a stall, a connection closed early. Each connection's request head is kept for the test to read.
public final class ScriptedServer: @unchecked Sendable {
    /// What the server does with each connection: its number, the request head, the socket.
    public typealias Script = @Sendable (_ connection: Int, _ request: String, _ socket: Int32) -> Void

    /// The loopback port it listens on.
    public let port: Int
    private let listener: Int32
    private let script: Script
    private let lock = NSLock()
    private var requestHeads: [String] = []
    private var thread: Thread?
    private var connectionThreads: [Thread] = []

    /// Starts a server that runs `script` for each connection.
    public init(_ script: @escaping Script) throws {
        self.script = script
        let (listener, port) = try Loopback.listener()
        self.listener = listener
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        self.thread = thread
        thread.start()
    }

    /// The stream URL.
    public var url: String { "http://127.0.0.1:\(port)/stream" }

    /// The request heads received, in order.
    public var requests: [String] { lock.withLock { requestHeads } }

    private func acceptLoop() {
        var index = 0
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let number = index
            index += 1
            let worker = Thread { [self] in
                let head = Self.readHead(connection)
                lock.withLock { requestHeads.append(head) }
                script(number, head, connection)
                close(connection)
            }
            worker.start()
        }
    }

    private static func readHead(_ socket: Int32) -> String {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 16_384, recv(socket, &byte, 1, 0) == 1 {
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] { break }
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// Sends bytes, all of them.
    public static func send(_ socket: Int32, _ bytes: [UInt8]) { Loopback.send(socket, bytes) }

    /// Sends text as UTF-8.
    public static func send(_ socket: Int32, _ text: String) { Loopback.send(socket, Array(text.utf8)) }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
