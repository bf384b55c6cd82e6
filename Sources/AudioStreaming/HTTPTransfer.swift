internal import CCurl
import AudioFormats
import Foundation
import Synchronization

/// One HTTP request, run by libcurl on the process's one ``HTTPEventLoop``, its response body handed to the
/// reader a chunk at a time with back-pressure: while `bufferLimit` bytes wait unread the transfer alone is
/// paused (`CURL_WRITEFUNC_PAUSE`, continued from the loop once the reader has taken half), so the server is
/// read only as fast as the reader reads (and a paused transfer is never counted as stalled or slow).
///
/// libcurl brings the HTTP a build farm expects: HTTP/1.1 and HTTP/2, TLS with the system's roots,
/// the proxy variables (`http_proxy`, `https_proxy`, `no_proxy`, `all_proxy`), redirects.
final class HTTPTransfer: @unchecked Sendable {
    struct Request {
        var url: String
        /// Extra request header lines (`Name: value`).
        var headers: [String] = []
        /// Ask for the resource from this byte (`Range: bytes=N-`); 0 asks for all of it.
        var rangeStart: Int64 = 0
        /// With `rangeStart`, the last byte asked for (`Range: bytes=N-M`): an HLS byte range.
        var rangeEnd: Int64?
        var userAgent = "afkit"
        var connectTimeout: Duration = .seconds(10)
        /// No byte (header or body) for this long while the reader waits: the transfer has stalled.
        var stallTimeout: Duration = .seconds(15)
        /// Fewer than `bytes` a second over each `period` of unpaused transfer: too slow.
        var speedLimit: (bytes: Int, period: Duration)?
        /// When the whole stream must be done by.
        var deadline: ContinuousClock.Instant?
        /// The roots trusted for https instead of libcurl's default file.
        var trustedRoots: TrustedRoots?
        /// Follow a redirect from https to plain http.
        var followsRedirectsToHTTP = false
        /// libcurl's receive buffer for this transfer (`CURLOPT_BUFFERSIZE`), where not its default 16 KiB.
        var receiveBufferSize: Int?

        /// A request for `url` with a stream's timeouts, speed limit, user agent and redirect rule, ended by
        /// `deadline`, trusting `trustedRoots`.
        init(
            url: String, options: HTTPAudioStream.Options, deadline: ContinuousClock.Instant?,
            trustedRoots: TrustedRoots?
        ) {
            self.url = url
            userAgent = options.userAgent
            connectTimeout = options.connectTimeout
            stallTimeout = options.readTimeout
            speedLimit = options.speedLimit.map { ($0.bytesPerSecond, $0.period) }
            self.deadline = deadline
            self.trustedRoots = trustedRoots
            followsRedirectsToHTTP = options.followsRedirectsToHTTP
        }
    }

    /// Root certificates trusted for https.
    enum TrustedRoots: Sendable {
        /// A PEM bundle libcurl reads when a connection needs it (`CURLOPT_CAINFO`).
        case file(String)
        /// PEM text (the system's bundle and the caller's roots, joined), which libcurl copies into each
        /// transfer and each connection (`CURLOPT_CAINFO_BLOB`).
        case text([UInt8])
    }

    /// The final response's head (after redirects).
    struct Head {
        var status: Int
        var reason: String
        /// Whether the status line was SHOUTcast's `ICY 200 OK`.
        var isICYStatusLine: Bool
        /// Header fields in order, names lower-cased.
        var fields: [(name: String, value: String)]
        /// The address that answered, after redirects.
        var url: String

        func value(_ name: String) -> String? {
            fields.last { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespaces) }.flatMap {
                $0.isEmpty ? nil : $0
            }
        }
    }

    /// Why a transfer ended without its whole response.
    enum Failure: Error {
        /// libcurl's error: refused, reset, cut short, TLS, a redirect refused, ...
        case transfer(String, code: Int)
        case stalled(Duration)
        case tooSlow(bytes: Int, period: Duration)
        case deadlinePassed
        case cancelled
    }

    /// Bytes waiting unread before the transfer pauses. A transfer holds at most this and one libcurl write
    /// (16 KiB, `CURL_MAX_WRITE_SIZE`) of body; a stream read as fast as it plays holds about one write.
    static let bufferLimit = 256 * 1024

    private let request: Request
    /// libcurl; `nil` when it could not be loaded (the transfer then fails at once, saying why).
    private let library: Library?
    private var curl: afkit_curl { loadedLibrary.functions }
    private var api: UnsafePointer<afkit_curl> { loadedLibrary.api }
    /// libcurl, whenever a transfer calls it: one without it fails at once and never reaches the loop.
    private var loadedLibrary: Library {
        guard let library else { preconditionFailure("http: libcurl called where it could not be loaded") }
        return library
    }
    /// State shared between libcurl's thread and the reader.
    private struct Shared {
        var chunks: [[UInt8]] = []
        var chunkIndex = 0
        var queuedBytes = 0
        var head: Head?
        var outcome: Result<Void, Failure>?
        var cancelled = false
        var paused = false
        var resumeRequested = false
        /// Wakes the reader waiting (a task's continuation, or a thread that waits for this transfer).
        var waiter: (@Sendable () -> Void)?
    }
    private let shared = Mutex(Shared())

    /// The easy handle, configured before the transfer reaches the loop (and freed by the loop when it ends);
    /// `nil` where there could be none.
    let easyHandle: UnsafeMutableRawPointer?
    /// The loop the transfer runs on.
    private let loop: HTTPEventLoop?

    // The loop's thread only (libcurl's callbacks and the loop's calls).
    private var statusLine = ""
    private var fields: [(name: String, value: String)] = []
    private var lastActivity = ContinuousClock.now
    private var windowStart = ContinuousClock.now
    private var windowBytes = 0
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Header lists the easy handle points into, freed with it.
    private var lists: [UnsafeMutablePointer<curl_slist>?] = []
    private var headPublished = false
    /// A redirect from https to plain http refused on the way (any hop, not only the first).
    private var refusedRedirect: String?

    /// Starts the request on the process's event loop.
    init(_ request: Request) {
        self.request = request
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let started = Self.loaded.flatMap { library in Self.eventLoop.map { (library, $0) } }.flatMap {
            (library, loop) in
            library.functions.curl_easy_init().map { .success((library, loop, $0)) }
                ?? .failure(.transfer("libcurl cannot start a transfer", code: -1))
        }
        switch started {
        case .success(let (library, loop, easy)):
            Self.loopStarted.store(true, ordering: .releasing)
            self.library = library
            self.loop = loop
            easyHandle = easy
        case .failure(let failure):
            library = nil
            loop = nil
            easyHandle = nil
            shared.withLock { $0.outcome = .failure(failure) }
            return
        }
        guard let easy = easyHandle else { return }
        if case .failure(let failure) = configure(easy) {
            release(easy)
            shared.withLock { $0.outcome = .failure(failure) }
            return
        }
        loop?.start(self)
    }

    /// The process's event loop, started with the first transfer.
    private static let eventLoop: Result<HTTPEventLoop, Failure> = loaded.flatMap { library in
        HTTPEventLoop(curl: library.functions, api: library.api).map { .success($0) }
            ?? .failure(.transfer("libcurl cannot start a multi handle", code: -1))
    }

    /// Whether a transfer has started the loop (a process that made none has no libcurl to end).
    private static let loopStarted = Atomic(false)

    /// Cancels every transfer still running and waits, up to `timeout`, for the loop to close their
    /// connections. A process that exits while libcurl still closes a TLS connection races the TLS library's
    /// exit handlers (they free locks libcurl still takes): call this before `exit`.
    static func endAll(within timeout: Duration) {
        guard loopStarted.load(ordering: .acquiring), case .success(let loop) = eventLoop else { return }
        loop.cancelAll()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while loop.transferCount > 0, clock.now < deadline {
            usleep(1000)
        }
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// libcurl, loaded when the first transfer starts.
    private static let loaded: Result<Library, Failure> = {
        var message = [CChar](repeating: 0, count: 256)
        guard let api = afkit_curl_load(&message, message.count) else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.transfer(text, code: -1))
        }
        _ = api.pointee.curl_global_init(Int(CURL_GLOBAL_ALL))
        return .success(Library(api: api))
    }()

    /// libcurl's functions, resolved once.
    private struct Library: @unchecked Sendable {
        let api: UnsafePointer<afkit_curl>
        var functions: afkit_curl { api.pointee }
    }

    /// libcurl's version and its TLS library's, or `nil` where libcurl cannot be loaded.
    static var engineVersion: String? {
        guard case .success(let curl) = loaded, let info = curl.functions.curl_version_info(CURLVERSION_NINTH) else {
            return nil
        }
        let version = info.pointee.version.map { String(cString: $0) } ?? "?"
        return info.pointee.ssl_version.map { "\(version) (\(String(cString: $0)))" } ?? version
    }

    /// libcurl's own CA bundle (the system's, on Debian `/etc/ssl/certs/ca-certificates.crt`).
    static var defaultTrustBundle: String? {
        guard case .success(let curl) = loaded, let info = curl.functions.curl_version_info(CURLVERSION_NINTH),
            let path = info.pointee.cainfo
        else { return nil }
        return String(cString: path)
    }

    // MARK: - The reader's side

    /// The final response's head, once the body starts (or the response ends).
    func responseHead() async throws -> Head {
        try await waitUntil(Self.headIsKnown)
        return try currentResponseHead()
    }

    /// ``responseHead()`` for a thread that cannot wait asynchronously: it waits for libcurl's thread.
    func waitForResponseHead() throws -> Head {
        waitBlocking(until: Self.headIsKnown)
        return try currentResponseHead()
    }

    /// The next piece of the body, or `nil` at its clean end.
    func nextChunk() async throws -> [UInt8]? {
        try await waitUntil(Self.chunkIsReady)
        return try takeChunk()
    }

    /// ``nextChunk()`` for a thread that cannot wait asynchronously: it waits for libcurl's thread.
    func waitForNextChunk() throws -> [UInt8]? {
        waitBlocking(until: Self.chunkIsReady)
        return try takeChunk()
    }

    private static func headIsKnown(_ state: Shared) -> Bool { state.head != nil || state.outcome != nil }

    private static func chunkIsReady(_ state: Shared) -> Bool {
        state.chunkIndex < state.chunks.count || state.outcome != nil
    }

    /// The head once ``headIsKnown(_:)``, or why there is none.
    private func currentResponseHead() throws -> Head {
        try shared.withLock { state throws(Failure) -> Head in
            // A redirect's head with a failure is a redirect that could not be followed.
            if case .failure(let failure) = state.outcome,
                state.head.map({ (300..<400).contains($0.status) }) ?? true
            {
                throw failure
            }
            if let head = state.head { return head }
            throw Failure.transfer("the server sent no response", code: Int(CURLE_GOT_NOTHING.rawValue))
        }
    }

    /// The next chunk once ``chunkIsReady(_:)`` (libcurl woken where the reader has caught up), `nil` at the end.
    private func takeChunk() throws -> [UInt8]? {
        var wake = false
        let chunk: [UInt8]? = try shared.withLock { state throws(Failure) -> [UInt8]? in
            if state.chunkIndex < state.chunks.count {
                let chunk = state.chunks[state.chunkIndex]
                state.chunkIndex += 1
                state.queuedBytes -= chunk.count
                if state.chunkIndex == state.chunks.count {
                    state.chunks.removeAll(keepingCapacity: true)
                    state.chunkIndex = 0
                }
                if state.paused, !state.resumeRequested, state.queuedBytes <= Self.bufferLimit / 2 {
                    state.resumeRequested = true
                    wake = true
                }
                return chunk
            }
            switch state.outcome {
            case .failure(let failure): throw failure
            default: return nil
            }
        }
        if wake { loop?.resume(self) }
        return chunk
    }

    /// Ends the transfer: a reader waiting is woken with `cancelled` at once, the connection closed at the
    /// loop's next turn.
    func cancel() {
        let (waiter, running) = shared.withLock { state in
            let running = state.outcome == nil && easyHandle != nil
            state.cancelled = true
            if state.outcome == nil { state.outcome = .failure(.cancelled) }
            defer { state.waiter = nil }
            return (state.waiter, running)
        }
        if running { loop?.cancel(self) }
        waiter?()
    }

    private func waitUntil(_ ready: @escaping (Shared) -> Bool) async throws {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = shared.withLock { state in
                    if ready(state) { return true }
                    state.waiter = { continuation.resume() }
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
        if Task.isCancelled { throw CancellationError() }
    }

    /// Blocks the calling thread until `ready`: the loop (or ``cancel()``) wakes it.
    private func waitBlocking(until ready: (Shared) -> Bool) {
        let woken = DispatchSemaphore(value: 0)
        while shared.withLock({ state in
            if ready(state) { return false }
            state.waiter = { woken.signal() }
            return true
        }) {
            woken.wait()
        }
    }

    /// Changes the shared state and wakes the reader.
    private func signal(_ change: (inout Shared) -> Void) {
        let waiter = shared.withLock { state in
            change(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?()
    }

    // MARK: - The loop's thread

    /// The loop has handed the transfer to libcurl.
    func begin(at now: ContinuousClock.Instant) {
        lastActivity = now
        windowStart = now
        windowBytes = 0
    }

    /// Continues a transfer paused while its reader was behind, where the reader has asked.
    func resumeIfAsked(at now: ContinuousClock.Instant) {
        let resume = shared.withLock { state in
            defer { state.resumeRequested = false }
            let resume = state.resumeRequested && state.paused
            if resume { state.paused = false }
            return resume
        }
        guard resume, let easyHandle else { return }
        // The stall and speed clocks start again: a paused transfer was waiting for its reader, not its server.
        begin(at: now)
        _ = curl.curl_easy_pause(easyHandle, 0 /* CURLPAUSE_CONT */)
    }

    /// Why the transfer must end now (its deadline passed, it stalled, it is too slow), or `nil`.
    func expiry(at now: ContinuousClock.Instant) -> Failure? {
        if let deadline = request.deadline, now >= deadline { return .deadlinePassed }
        guard !shared.withLock({ $0.paused }) else { return nil }
        if now - lastActivity >= request.stallTimeout { return .stalled(request.stallTimeout) }
        if let limit = request.speedLimit, now - windowStart >= limit.period {
            let elapsed = (now - windowStart).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            if Double(windowBytes) < Double(limit.bytes) * seconds {
                return .tooSlow(bytes: limit.bytes, period: limit.period)
            }
            windowStart = now
            windowBytes = 0
        }
        return nil
    }

    /// The loop has taken the transfer out of libcurl: the head (where none was published) and the outcome go
    /// to the reader, the easy handle is freed.
    func end(_ result: Result<Void, Failure>) {
        let head = headPublished ? nil : currentHead(easyHandle)
        if let easyHandle { release(easyHandle) }
        signal { state in
            if state.head == nil { state.head = head }
            if state.outcome == nil { state.outcome = result }
        }
    }

    /// Frees the easy handle and the header lists it points into.
    private func release(_ easy: UnsafeMutableRawPointer) {
        curl.curl_easy_cleanup(easy)
        for list in lists { curl.curl_slist_free_all(list) }
        lists.removeAll()
    }

    /// Why libcurl ended the transfer (`easy`) with `code`, in words a person can act on.
    func failure(_ code: CURLcode, _ easy: UnsafeMutableRawPointer) -> Failure {
        let detail = String(cString: errorBuffer)
        var message = detail.isEmpty ? describe(code) : detail
        // Every hop's downgrade is refused in the header callback, before libcurl's own protocol list is asked.
        if let refusedRedirect { message = "refused a redirect from https to plain http (\(refusedRedirect))" }
        if code == CURLE_COULDNT_CONNECT {
            // Which host and port, and why, in the words a person checks first: the hop that failed (after a
            // redirect, not the one first asked).
            var systemError = 0
            _ = afkit_curl_get_long(api, easy, CURLINFO_OS_ERRNO, &systemError)
            let address = Self.hostAndPort(effectiveURL(easy) ?? request.url)
            message =
                systemError == Int(ECONNREFUSED)
                ? "connection refused: \(address)"
                : "cannot connect to \(address)"
                    + (systemError != 0 ? ": \(String(cString: strerror(Int32(systemError))))" : "")
        }
        if code == CURLE_OPERATION_TIMEDOUT, !headPublished, statusLine.isEmpty {
            message = "the connection was not made within \(request.connectTimeout)"
        }
        return .transfer(message, code: Int(code.rawValue))
    }

    private func describe(_ code: CURLcode) -> String {
        curl.curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    private func configure(_ easy: UnsafeMutableRawPointer) -> Result<Void, Failure> {
        let this = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = []
        func set(_ option: CURLoption, _ value: Int) { codes.append(afkit_curl_set_long(api, easy, option, value)) }
        func set(_ option: CURLoption, _ value: String) {
            codes.append(value.withCString { afkit_curl_set_pointer(api, easy, option, $0) })
        }
        set(CURLOPT_URL, request.url)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_USERAGENT, request.userAgent)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        let fromHTTPS = request.url.lowercased().hasPrefix("https:")
        set(CURLOPT_REDIR_PROTOCOLS_STR, fromHTTPS && !request.followsRedirectsToHTTP ? "https" : "http,https")
        set(CURLOPT_FOLLOWLOCATION, 1)
        set(CURLOPT_MAXREDIRS, 5)
        set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        if let size = request.receiveBufferSize { set(CURLOPT_BUFFERSIZE, size) }
        // SHOUTcast 1 answers `ICY 200 OK`: read as HTTP/1.0's 200, its header block as headers.
        let aliases = curl.curl_slist_append(nil, "ICY 200 OK")
        lists.append(aliases)
        codes.append(afkit_curl_set_pointer(api, easy, CURLOPT_HTTP200ALIASES, aliases))
        var headers: UnsafeMutablePointer<curl_slist>?
        for line in request.headers { headers = curl.curl_slist_append(headers, line) }
        lists.append(headers)
        if let headers { codes.append(afkit_curl_set_pointer(api, easy, CURLOPT_HTTPHEADER, headers)) }
        if request.rangeStart > 0 || request.rangeEnd != nil {
            set(CURLOPT_RANGE, "\(request.rangeStart)-" + (request.rangeEnd.map(String.init) ?? ""))
        }
        switch request.trustedRoots {
        case .file(let path): set(CURLOPT_CAINFO, path)
        case .text(let roots):
            codes.append(
                roots.withUnsafeBytes { afkit_curl_set_blob(api, easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) })
        case nil: break
        }
        codes.append(afkit_curl_set_pointer(api, easy, CURLOPT_ERRORBUFFER, errorBuffer))
        codes.append(
            afkit_curl_set_write_function(api, easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                return Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
                    .received(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        codes.append(afkit_curl_set_pointer(api, easy, CURLOPT_WRITEDATA, this))
        codes.append(
            afkit_curl_set_write_function(api, easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                return Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
                    .headerLine(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        codes.append(afkit_curl_set_pointer(api, easy, CURLOPT_HEADERDATA, this))
        if let bad = codes.first(where: { $0 != CURLE_OK }) {
            return .failure(
                .transfer(
                    "libcurl refused an option: \(describe(bad))",
                    code: Int(bad.rawValue)))
        }
        return .success(())
    }

    /// `host:port` of a URL, the scheme's port where it names none.
    static func hostAndPort(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return url }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// One header line of any response on the way (redirects' too): the last block is the final head. A
    /// redirect from an https hop to plain http ends the transfer here, whichever hop it is, unless allowed
    /// (libcurl's protocol list is set once, for the first hop).
    private func headerLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
        let upper = line.uppercased()
        if upper.hasPrefix("HTTP/") || upper.hasPrefix("ICY ") {
            statusLine = line
            fields.removeAll()
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = String(line[line.index(after: colon)...])
            fields.append((name, value))
            let status = statusLine.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
            let location = value.trimmingCharacters(in: .whitespaces)
            if name == "location", (300..<400).contains(status), !request.followsRedirectsToHTTP,
                location.lowercased().hasPrefix("http://"),
                let here = effectiveURL(easyHandle), here.lowercased().hasPrefix("https:")
            {
                refusedRedirect = location
                return 0
            }
        }
        return bytes.count
    }

    /// The address libcurl is at now (after the redirects followed so far).
    private func effectiveURL(_ easy: UnsafeMutableRawPointer?) -> String? {
        guard let easy else { return nil }
        var effective: UnsafePointer<CChar>?
        guard afkit_curl_get_string(api, easy, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK, let effective else {
            return nil
        }
        return String(cString: effective)
    }

    /// The head as libcurl knows it now (from within a callback, or once the transfer is over).
    private func currentHead(_ easy: UnsafeMutableRawPointer?) -> Head? {
        guard !statusLine.isEmpty else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        var status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var url = request.url
        if let easy {
            var code = 0
            if afkit_curl_get_long(api, easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK, code > 0 { status = code }
            if let effective = effectiveURL(easy) {
                // A redirect's password is kept from what afkit prints, as the request's own is.
                Redaction.noteCredentials(in: effective)
                url = effective
            }
        }
        return Head(
            status: status, reason: parts.count > 2 ? String(parts[2]) : "",
            isICYStatusLine: statusLine.uppercased().hasPrefix("ICY "), fields: fields, url: url)
    }

    /// Body bytes from libcurl: queued, or the transfer paused while the reader is behind.
    private func received(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        let newHead = headPublished ? nil : currentHead(easyHandle)
        headPublished = true
        enum Verdict { case abort, pause, taken }
        let (verdict, waiter) = shared.withLock { state -> (Verdict, (@Sendable () -> Void)?) in
            if state.cancelled { return (.abort, nil) }
            if state.head == nil { state.head = newHead }
            defer { state.waiter = nil }
            if state.queuedBytes >= Self.bufferLimit {
                state.paused = true
                return (.pause, state.waiter)
            }
            if !bytes.isEmpty {
                state.chunks.append(Array(bytes))
                state.queuedBytes += bytes.count
            }
            return (.taken, state.waiter)
        }
        waiter?()
        switch verdict {
        case .abort: return 0
        case .pause: return Int(CURL_WRITEFUNC_PAUSE)
        case .taken:
            windowBytes += bytes.count
            return bytes.count
        }
    }
}
