import AudioContainers
import AudioFormats
import Foundation
import Synchronization

/// A whole resource over HTTP, in one response: what an HLS reader fetches (playlists, segments,
/// initialization sections), with the stream options' timeouts, trust roots and retries (backoff from
/// `reconnectDelay`, at most `maximumReconnectAttempts`, within the ``RetryBudget`` the reading's fetches
/// share). A byte range is asked for with `Range`; a server that sends the whole resource instead has the range
/// cut from it.
public enum HTTPResource {
    /// The most bytes one resource may hold: `HLS.maximumResourceSize`.
    public static let maximumSize = HLS.maximumResourceSize

    /// The resource at `location` (or `range` of it), the response's facts and the address it came from after
    /// redirects (credentials kept, for resolving the URIs a playlist holds), retried with the options'
    /// backoff when the connection fails or the server answers 5xx (a 4xx answer is final), each retry spent
    /// from `budget` (the reading's, shared by its fetches; one of the fetch's own where `nil`). Errors are
    /// `AudioFileError`s: `net!` for the server and the connection, and for a budget spent.
    ///
    /// Each attempt runs on the process's one HTTP event loop and the wait between attempts is the task's own
    /// sleep: no thread waits for a fetch, and cancelling the task ends the attempt or the wait at once.
    public static func fetch(
        _ location: String, range: HLS.ByteRange? = nil, options: HTTPAudioStream.Options = .init(),
        deadline: ContinuousClock.Instant? = nil, budget: RetryBudget? = nil
    ) async throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        var attempts = try Attempts(
            location, range: range, options: options, deadline: deadline, budget: budget ?? RetryBudget(options))
        while true {
            let started = ContinuousClock.now
            do {
                let transfer = HTTPTransfer(attempts.request)
                defer { transfer.cancel() }
                var body = try attempts.body(after: await transfer.responseHead())
                while let chunk = try await transfer.nextChunk() { try body.append(chunk) }
                return try attempts.succeeded(body)
            } catch {
                try await Task.sleep(for: attempts.delay(after: error, startedAt: started))
                try attempts.waited()
            }
        }
    }

    /// ``fetch(_:range:options:deadline:budget:)`` for code that cannot wait asynchronously (the validator's
    /// worker threads, a playlist reader's fetch): the calling thread waits for the event loop (and sleeps
    /// between attempts), never for a task.
    public static func fetchWaiting(
        _ location: String, range: HLS.ByteRange? = nil, options: HTTPAudioStream.Options = .init(),
        deadline: ContinuousClock.Instant? = nil, budget: RetryBudget? = nil
    ) throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        var attempts = try Attempts(
            location, range: range, options: options, deadline: deadline, budget: budget ?? RetryBudget(options))
        while true {
            let started = ContinuousClock.now
            do {
                let transfer = HTTPTransfer(attempts.request)
                defer { transfer.cancel() }
                var body = try attempts.body(after: transfer.waitForResponseHead())
                while let chunk = try transfer.waitForNextChunk() { try body.append(chunk) }
                return try attempts.succeeded(body)
            } catch {
                let delay = try attempts.delay(after: error, startedAt: started)
                Thread.sleep(forTimeInterval: delay / .seconds(1))
                try attempts.waited()
            }
        }
    }

    /// The wait before attempt `attempt` (1 for the first retry): `reconnectDelay`, doubled for each further one
    /// up to `maximumReconnectDelay`.
    private static func backOffDelay(before attempt: Int, options: HTTPAudioStream.Options) -> Duration {
        var delay = options.reconnectDelay
        for _ in 1..<max(1, attempt) { delay = min(delay * 2, options.maximumReconnectDelay) }
        return delay
    }

    /// A URL's scheme, user information, host and port: the server a failure to connect is remembered for.
    static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(url[..<scheme.upperBound]) + String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// One fetch's attempts: the request each makes, what its response must be, and after a failure whether and
    /// when the next is made (the backoff, the deadline, the budget, a server that could not be reached). The
    /// asynchronous and the waiting fetch differ only in how they wait.
    private struct Attempts {
        let location: String
        let range: HLS.ByteRange?
        let options: HTTPAudioStream.Options
        let deadline: ContinuousClock.Instant?
        let budget: RetryBudget
        let server: String
        /// The request every attempt makes.
        let request: HTTPTransfer.Request
        /// 0 for the first attempt, 1 for the first retry, ...
        private(set) var attempt = 0

        /// The attempts of a fetch, or why none is made (the budget spent, the server unreachable moments ago).
        init(
            _ location: String, range: HLS.ByteRange?, options: HTTPAudioStream.Options,
            deadline: ContinuousClock.Instant?, budget: RetryBudget
        ) throws {
            let trustedRoots = try HTTPAudioStream.Options.trustedRoots(adding: options.additionalTrustRoots)
            if budget.isSpent {
                throw AudioFileError.network("http: \(location): not tried: \(budget.spentReason)", offset: nil)
            }
            server = HTTPResource.origin(of: location)
            if let known = UnreachableServers.failure(of: server) {
                throw AudioFileError.network(
                    "http: \(location): not tried: \(Redaction.credentialsRemoved(from: server)) could not be reached "
                        + "moments ago (\(known))", offset: nil)
            }
            self.location = location
            self.range = range
            self.options = options
            self.deadline = deadline
            self.budget = budget
            var request = HTTPTransfer.Request(
                url: location, options: options, deadline: deadline, trustedRoots: trustedRoots)
            if let range {
                request.rangeStart = range.offset ?? 0
                request.rangeEnd = (range.offset ?? 0) + range.length - 1
            }
            self.request = request
        }

        /// The body to come after `head`, or the server's refusal.
        func body(after head: HTTPTransfer.Head) throws -> Body {
            guard (200..<300).contains(head.status) else {
                let error = AudioFileError.network(
                    "http: \(location) answered \(head.status) \(head.reason)", offset: nil)
                // The server's refusal of the request itself is not retried.
                if (400..<500).contains(head.status) { throw Final(error: error) }
                throw error
            }
            return Body(
                location: location, range: range, status: head.status,
                response: try HTTPAudioStream.Response(head: head, wantsMetadata: false, attempt: attempt),
                url: head.url)
        }

        /// The fetched resource of a whole `body`, the success counted in the budget.
        func succeeded(_ body: Body) throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
            let fetched = try body.finished()
            budget.fetchSucceeded()
            return fetched
        }

        /// The wait before the next attempt after the one started at `started` failed with `error`, or the error
        /// that ends the fetch: a cancellation, a failure no retry mends, the last attempt's, the deadline's or
        /// the budget's.
        mutating func delay(after error: any Error, startedAt started: ContinuousClock.Instant) throws -> Duration {
            let failure: AudioFileError
            switch error {
            case is CancellationError, HTTPTransfer.Failure.cancelled:
                throw CancellationError()
            case let transferFailure as HTTPTransfer.Failure:
                let (error, unreachable) = describe(transferFailure)
                failure = error
                // Every attempt failed to connect: the other resources on that server fail at once for a while
                // (a package of many segments on a dead host is not retried segment by segment).
                if let unreachable, attempt >= options.maximumReconnectAttempts {
                    UnreachableServers.note(server, unreachable)
                }
            case let error as AudioFileError where error.code == "net!":
                failure = error
            default:
                // A 4xx answer, a resource over the limit or short of its range: no retry mends it.
                budget.lose(ContinuousClock.now - started)
                budget.fetchFailed()
                throw (error as? Final)?.error ?? error
            }
            budget.lose(ContinuousClock.now - started)
            guard attempt < options.maximumReconnectAttempts else {
                budget.fetchFailed()
                throw failure
            }
            attempt += 1
            let delay = backOffDelay(before: attempt, options: options)
            if let deadline, ContinuousClock.now + delay > deadline {
                budget.fetchFailed()
                throw failure
            }
            guard budget.grantRetry(waiting: delay) else {
                budget.fetchFailed()
                throw failure.rewritten { $0 + "; not retried: \(budget.spentReason)" }
            }
            lastFailure = failure
            return delay
        }

        /// The failure the wait before this attempt followed.
        private var lastFailure: AudioFileError?

        /// After the wait before a retry: throws where another fetch of the reading spent the budget meanwhile.
        func waited() throws {
            guard budget.isSpent, let lastFailure else { return }
            budget.fetchFailed()
            throw lastFailure.rewritten { $0 + "; not retried: \(budget.spentReason)" }
        }

        /// A transfer's failure in words, and where no connection was made at all (the name not resolved, the
        /// connection refused or timed out), why.
        private func describe(_ failure: HTTPTransfer.Failure) -> (AudioFileError, unreachable: String?) {
            switch failure {
            case .cancelled, .deadlinePassed:
                return (
                    AudioFileError.network("http: the time limit passed while \(location) was read", offset: nil), nil
                )
            case .transfer(let message, let code):
                let error = AudioFileError.network("http: \(location): \(message)", offset: nil)
                return (error, [5, 6, 7].contains(code) ? message : nil)
            case .stalled(let timeout):
                return (AudioFileError.network("http: \(location): no byte arrived for \(timeout)", offset: nil), nil)
            case .tooSlow:
                return (AudioFileError.network("http: \(location): slower than the speed limit", offset: nil), nil)
            }
        }
    }

    /// A response's body as it arrives, held to ``maximumSize`` and to the range asked for.
    private struct Body {
        let location: String
        let range: HLS.ByteRange?
        let status: Int
        let response: HTTPAudioStream.Response
        /// Where the bytes came from after redirects, its credentials kept: what relative URIs resolve against.
        let url: String
        private var bytes: [UInt8] = []

        init(location: String, range: HLS.ByteRange?, status: Int, response: HTTPAudioStream.Response, url: String) {
            self.location = location
            self.range = range
            self.status = status
            self.response = response
            self.url = url
        }

        mutating func append(_ chunk: [UInt8]) throws {
            bytes += chunk
            guard bytes.count <= maximumSize else {
                throw AudioFileError.limitExceeded(
                    "http: \(location) holds more than \(maximumSize) bytes", offset: nil)
            }
        }

        /// The resource (the range cut from a whole resource where the server ignored the range).
        func finished() throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
            if let range, status == 200 {
                let start = Int(range.offset ?? 0)
                guard start + Int(range.length) <= bytes.count else {
                    throw AudioFileError.truncated(
                        "http: \(location) holds \(bytes.count) bytes; the range \(range.text) runs past them",
                        offset: Int64(bytes.count))
                }
                return (Array(bytes[start..<start + Int(range.length)]), response, url)
            } else if let range, bytes.count != Int(range.length) {
                throw AudioFileError.truncated(
                    "http: \(location) sent \(bytes.count) bytes of the range \(range.text)", offset: nil)
            }
            return (bytes, response, url)
        }
    }

    /// An error no retry mends.
    private struct Final: Error {
        var error: AudioFileError
    }
}

/// The servers afkit could not connect to in this process, each for ``memory`` after its last attempt: their
/// other resources fail at once in that time instead of each waiting through the retries.
enum UnreachableServers {
    /// How long a server that could not be reached is not tried again.
    static let memory: Duration = .seconds(60)
    private static let failures = Mutex<[String: (until: ContinuousClock.Instant, reason: String)]>([:])

    static func note(_ server: String, _ reason: String) {
        failures.withLock { $0[server] = (ContinuousClock.now + memory, reason) }
    }

    /// Why `server` could not be reached, where that was within ``memory``.
    static func failure(of server: String) -> String? {
        failures.withLock { known in
            guard let entry = known[server] else { return nil }
            guard entry.until > ContinuousClock.now else {
                known[server] = nil
                return nil
            }
            return entry.reason
        }
    }
}
