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
    /// The fetch runs on a thread of its own, which waits for the transfer's: no task's thread waits.
    public static func fetch(
        _ location: String, range: HLS.ByteRange? = nil, options: HTTPAudioStream.Options = .init(),
        deadline: ContinuousClock.Instant? = nil, budget: RetryBudget? = nil
    ) async throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        let budget = budget ?? RetryBudget(options)
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        with: Result {
                            try fetchWaiting(
                                location, range: range, options: options, deadline: deadline, budget: budget,
                                cancellation: cancellation)
                        })
                }
                thread.name = "afkit http fetch"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// ``fetch(_:range:options:deadline:budget:)`` for code that cannot wait asynchronously (the validator's
    /// worker threads, a playlist reader's fetch): the calling thread waits for the transfer's own thread, never
    /// for a task.
    public static func fetchWaiting(
        _ location: String, range: HLS.ByteRange? = nil, options: HTTPAudioStream.Options = .init(),
        deadline: ContinuousClock.Instant? = nil, budget: RetryBudget? = nil
    ) throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        try fetchWaiting(
            location, range: range, options: options, deadline: deadline, budget: budget ?? RetryBudget(options),
            cancellation: Cancellation())
    }

    private static func fetchWaiting(
        _ location: String, range: HLS.ByteRange?, options: HTTPAudioStream.Options,
        deadline: ContinuousClock.Instant?, budget: RetryBudget, cancellation: Cancellation
    ) throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        let trustedRoots = try HTTPAudioStream.Options.trustedRoots(adding: options.additionalTrustRoots)
        if budget.isSpent {
            throw AudioFileError.network("http: \(location): not tried: \(budget.spentReason)", offset: nil)
        }
        let server = origin(of: location)
        if let known = UnreachableServers.failure(of: server) {
            throw AudioFileError.network(
                "http: \(location): not tried: \(Redaction.credentialsRemoved(from: server)) could not be reached "
                    + "moments ago (\(known))", offset: nil)
        }
        var attempt = 0
        while true {
            let started = ContinuousClock.now
            let failure: AudioFileError
            do {
                let fetched = try fetchOnce(
                    location, range: range, options: options, deadline: deadline, trustedRoots: trustedRoots,
                    attempt: attempt, cancellation: cancellation)
                budget.fetchSucceeded()
                return fetched
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as AudioFileError where error.code == "net!" {
                failure = error
            } catch let unreachable as Unreachable {
                failure = unreachable.error
                // Every attempt failed to connect: the other resources on that server fail at once for a while
                // (a package of many segments on a dead host is not retried segment by segment).
                if attempt >= options.maximumReconnectAttempts { UnreachableServers.note(server, unreachable.reason) }
            } catch {
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
            try cancellation.sleep(for: delay)
            // Another fetch of the reading spent the budget while this one waited.
            if budget.isSpent {
                budget.fetchFailed()
                throw failure.rewritten { $0 + "; not retried: \(budget.spentReason)" }
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

    private static func fetchOnce(
        _ location: String, range: HLS.ByteRange?, options: HTTPAudioStream.Options,
        deadline: ContinuousClock.Instant?, trustedRoots: HTTPTransfer.TrustedRoots?, attempt: Int,
        cancellation: Cancellation
    ) throws -> (bytes: [UInt8], response: HTTPAudioStream.Response, location: String) {
        var request = HTTPTransfer.Request(
            url: location, options: options, deadline: deadline, trustedRoots: trustedRoots)
        if let range {
            request.rangeStart = range.offset ?? 0
            request.rangeEnd = (range.offset ?? 0) + range.length - 1
        }
        let transfer = HTTPTransfer(request)
        defer { transfer.cancel() }
        try cancellation.follow(transfer)
        do {
            let head = try transfer.waitForResponseHead()
            guard (200..<300).contains(head.status) else {
                let error = AudioFileError.network(
                    "http: \(location) answered \(head.status) \(head.reason)", offset: nil)
                // The server's refusal of the request itself is not retried.
                if (400..<500).contains(head.status) { throw Final(error: error) }
                throw error
            }
            let response = try HTTPAudioStream.Response(head: head, wantsMetadata: false, attempt: attempt)
            var bytes: [UInt8] = []
            while let chunk = try transfer.waitForNextChunk() {
                bytes += chunk
                guard bytes.count <= maximumSize else {
                    throw AudioFileError.limitExceeded(
                        "http: \(location) holds more than \(maximumSize) bytes", offset: nil)
                }
            }
            // A server that ignored the range sent the whole resource: the range is cut from it.
            if let range, head.status == 200 {
                let start = Int(range.offset ?? 0)
                guard start + Int(range.length) <= bytes.count else {
                    throw AudioFileError.truncated(
                        "http: \(location) holds \(bytes.count) bytes; the range \(range.text) runs past them",
                        offset: Int64(bytes.count))
                }
                bytes = Array(bytes[start..<start + Int(range.length)])
            } else if let range, bytes.count != Int(range.length) {
                throw AudioFileError.truncated(
                    "http: \(location) sent \(bytes.count) bytes of the range \(range.text)", offset: nil)
            }
            // Where the bytes came from after redirects, its credentials kept: what relative URIs resolve against.
            return (bytes, response, head.url)
        } catch let failure as HTTPTransfer.Failure {
            switch failure {
            case .cancelled: throw CancellationError()
            case .deadlinePassed:
                throw AudioFileError.network("http: the time limit passed while \(location) was read", offset: nil)
            case .transfer(let message, let code):
                let error = AudioFileError.network("http: \(location): \(message)", offset: nil)
                // No connection at all (the name not resolved, the connection refused or timed out).
                if [5, 6, 7].contains(code) { throw Unreachable(error: error, reason: message) }
                throw error
            case .stalled(let timeout):
                throw AudioFileError.network("http: \(location): no byte arrived for \(timeout)", offset: nil)
            case .tooSlow:
                throw AudioFileError.network("http: \(location): slower than the speed limit", offset: nil)
            }
        }
    }

    /// How a fetch running on a thread of its own learns that its task was cancelled: the transfer under way
    /// is cancelled, the wait between attempts cut short.
    private final class Cancellation: Sendable {
        private let state = Mutex<(cancelled: Bool, transfer: HTTPTransfer?)>((false, nil))
        private let woken = DispatchSemaphore(value: 0)

        func cancel() {
            let transfer = state.withLock { state in
                state.cancelled = true
                return state.transfer
            }
            transfer?.cancel()
            woken.signal()
        }

        /// Makes `transfer` the one a cancellation ends; throws where the fetch was cancelled already.
        func follow(_ transfer: HTTPTransfer) throws {
            let cancelled = state.withLock { state in
                state.transfer = transfer
                return state.cancelled
            }
            if cancelled { throw CancellationError() }
        }

        /// Waits `delay`, or throws as soon as the fetch is cancelled.
        func sleep(for delay: Duration) throws {
            if state.withLock({ $0.cancelled }) { throw CancellationError() }
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            _ = woken.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
            if state.withLock({ $0.cancelled }) { throw CancellationError() }
        }
    }

    /// An error no retry mends.
    private struct Final: Error {
        var error: AudioFileError
    }

    /// A failure to connect to the server at all.
    private struct Unreachable: Error {
        var error: AudioFileError
        var reason: String
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
