internal import CCurl
import Foundation
import Synchronization

/// The one libcurl multi handle of the process and the one thread that drives it: every ``HTTPTransfer``
/// (each stream's connections, each HLS fetch) runs here, so a process holding a thousand streams holds one
/// thread for them, not a thousand.
///
/// Other threads and tasks never call libcurl's multi interface: they queue what they want (a transfer to
/// start, to cancel, to resume after its reader caught up) under one lock and wake the loop with
/// `curl_multi_wakeup`, the one call libcurl allows from any thread. The loop drains the queue, lets
/// libcurl move every transfer (`curl_multi_perform`), ends the finished ones, checks each transfer's
/// deadline, stall and speed limit about ten times a second, and sleeps in `curl_multi_poll` until a socket
/// is ready, a timer of libcurl's falls due, or it is woken.
final class HTTPEventLoop: @unchecked Sendable {
    /// What other threads ask of the loop, drained at each turn.
    private struct Queue {
        var starting: [HTTPTransfer] = []
        var cancelled: [HTTPTransfer] = []
        var resumed: [HTTPTransfer] = []
        /// End every transfer running (``cancelAll()``).
        var cancelsAll = false
        /// Transfers started and not yet ended (queued or running).
        var count = 0
    }

    private let curl: afkit_curl
    private let multi: UnsafeMutableRawPointer
    private let queue = Mutex(Queue())

    // The loop's thread only.
    /// The transfers libcurl is running, by their easy handle.
    private var running: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
    private var lastSweep = ContinuousClock.now

    /// How often the loop checks the transfers' deadlines, stalls and speed limits, in milliseconds.
    static let sweepInterval: Int32 = 100

    /// The loop of `curl`, its thread started.
    init?(curl: afkit_curl) {
        guard let multi = curl.curl_multi_init() else { return nil }
        self.curl = curl
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "afkit http"
        thread.start()
    }

    /// The transfers started and not yet ended.
    var transferCount: Int { queue.withLock { $0.count } }

    /// Runs `transfer` (its easy handle configured) on the loop.
    func start(_ transfer: HTTPTransfer) {
        queue.withLock {
            $0.starting.append(transfer)
            $0.count += 1
        }
        wake()
    }

    /// Ends `transfer`: its connection is closed at the loop's next turn.
    func cancel(_ transfer: HTTPTransfer) {
        queue.withLock { $0.cancelled.append(transfer) }
        wake()
    }

    /// Continues `transfer`, paused while its reader was behind.
    func resume(_ transfer: HTTPTransfer) {
        queue.withLock { $0.resumed.append(transfer) }
        wake()
    }

    /// Ends every transfer started so far.
    func cancelAll() {
        queue.withLock { $0.cancelsAll = true }
        wake()
    }

    private func wake() { _ = curl.curl_multi_wakeup(multi) }

    // MARK: - The loop's thread

    private func run() {
        let clock = ContinuousClock()
        var stillRunning: Int32 = 0
        while true {
            let (starting, cancelled, resumed, cancelsAll) = queue.withLock { queue in
                defer {
                    queue.starting.removeAll(keepingCapacity: true)
                    queue.cancelled.removeAll(keepingCapacity: true)
                    queue.resumed.removeAll(keepingCapacity: true)
                    queue.cancelsAll = false
                }
                return (queue.starting, queue.cancelled, queue.resumed, queue.cancelsAll)
            }
            for transfer in starting {
                guard let easy = transfer.easyHandle else { continue }
                running[easy] = transfer
                transfer.begin(at: clock.now)
                _ = curl.curl_multi_add_handle(multi, easy)
            }
            for transfer in cancelled {
                guard let easy = transfer.easyHandle, running[easy] === transfer else { continue }
                end(easy, .failure(.cancelled))
            }
            if cancelsAll {
                for easy in Array(running.keys) { end(easy, .failure(.cancelled)) }
            }
            for transfer in resumed {
                guard let easy = transfer.easyHandle, running[easy] === transfer else { continue }
                transfer.resumeIfAsked(at: clock.now)
            }
            _ = curl.curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = curl.curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = running[easy]
                else { continue }
                let code = afkit_curl_message_result(message)
                end(easy, code == CURLE_OK ? .success(()) : .failure(transfer.failure(code, easy)))
            }
            let now = clock.now
            if now - lastSweep >= .milliseconds(Self.sweepInterval) {
                lastSweep = now
                for (easy, transfer) in running {
                    if let failure = transfer.expiry(at: now) { end(easy, .failure(failure)) }
                }
            }
            // Idle, the loop waits for a wake-up alone; curl_multi_poll wakes sooner for libcurl's own timers.
            _ = curl.curl_multi_poll(multi, nil, 0, running.isEmpty ? 1000 : Self.sweepInterval, nil)
        }
    }

    /// Takes `easy` out of libcurl and hands `transfer` its outcome.
    private func end(_ easy: UnsafeMutableRawPointer, _ result: Result<Void, HTTPTransfer.Failure>) {
        guard let transfer = running.removeValue(forKey: easy) else { return }
        _ = curl.curl_multi_remove_handle(multi, easy)
        transfer.end(result)
        queue.withLock { $0.count -= 1 }
    }
}
