internal import CCurl
import Foundation
import Synchronization

/// The one libcurl multi handle of the process and the one thread that drives it: every ``HTTPTransfer``
/// (each stream's connections, each HLS fetch) runs here, so a process holding a thousand streams holds one
/// thread for them, not a thousand.
///
/// Other threads and tasks never call libcurl's multi interface: they queue what they want (a transfer to
/// start, to cancel, to resume after its reader caught up) under one lock and wake the loop. The loop drains
/// the queue, lets libcurl move the transfers, ends the finished ones, checks each transfer's deadline, stall
/// and speed limit about ten times a second, and sleeps until a socket is ready, a timer of libcurl's falls
/// due, or it is woken.
///
/// On Linux the loop drives libcurl's socket interface over an epoll set of its own: libcurl names the sockets
/// it waits on and for what (`CURLMOPT_SOCKETFUNCTION`) and when it next wants to be called
/// (`CURLMOPT_TIMERFUNCTION`); `epoll_wait` returns the sockets that are ready, and only their transfers are
/// moved (`curl_multi_socket_action`); an eventfd wakes it. The cost of a turn grows with the sockets ready,
/// not with the transfers held (`curl_multi_perform` visits every transfer and `curl_multi_poll` asks the
/// kernel about every socket, at each turn: at 200 live streams, most of the process's CPU). Elsewhere it
/// sleeps in `curl_multi_poll` (woken by `curl_multi_wakeup`) and calls `curl_multi_perform`.
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

    #if os(Linux)
        /// The sockets libcurl waits on, and the eventfd that wakes the loop.
        private let epoll: Int32
        private let wakeup: Int32
        /// The sockets in the epoll set (the loop's thread only).
        private var watched: Set<Int32> = []
        /// When libcurl next wants to be called with no socket ready (its timer), if it does.
        private var timerDue: ContinuousClock.Instant?
        /// What `epoll_wait` fills (the loop's thread only).
        private var events = [epoll_event](repeating: epoll_event(), count: 256)
    #endif

    /// The loop of `curl`, its thread started.
    init?(curl: afkit_curl, api: UnsafePointer<afkit_curl>) {
        guard let multi = curl.curl_multi_init() else { return nil }
        self.curl = curl
        self.multi = multi
        #if os(Linux)
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = wakeup
            guard epoll >= 0, wakeup >= 0, epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
                _ = curl.curl_multi_cleanup(multi)
                return nil
            }
            let this = Unmanaged.passUnretained(self).toOpaque()
            let socketSet = afkit_curl_multi_set_socket_function(
                api, multi,
                { _, socket, what, context, _ in
                    guard let context else { return -1 }
                    Unmanaged<HTTPEventLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, for: what)
                    return 0
                }, this)
            let timerSet = afkit_curl_multi_set_timer_function(
                api, multi,
                { _, milliseconds, context in
                    guard let context else { return -1 }
                    Unmanaged<HTTPEventLoop>.fromOpaque(context).takeUnretainedValue().setTimer(milliseconds)
                    return 0
                }, this)
            guard socketSet == CURLM_OK, timerSet == CURLM_OK else {
                _ = curl.curl_multi_cleanup(multi)
                return nil
            }
        #endif
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

    private func wake() {
        #if os(Linux)
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        #else
            _ = curl.curl_multi_wakeup(multi)
        #endif
    }

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
            drive(&stillRunning)
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
            #if os(Linux)
                wait(running.isEmpty ? 1000 : Self.sweepInterval, &stillRunning)
            #else
                // Idle, the loop waits for a wake-up alone; curl_multi_poll wakes sooner for libcurl's timers.
                _ = curl.curl_multi_poll(multi, nil, 0, running.isEmpty ? 1000 : Self.sweepInterval, nil)
            #endif
        }
    }

    #if os(Linux)
        /// Lets libcurl act on what fell due: its timer (a transfer just added, resumed or timed).
        private func drive(_ stillRunning: inout Int32) {
            guard let due = timerDue, due <= .now else { return }
            timerDue = nil
            _ = curl.curl_multi_socket_action(multi, CURL_SOCKET_BAD, 0, &stillRunning)
        }

        /// Sleeps until a socket is ready, libcurl's timer falls due or the loop is woken (at most `milliseconds`),
        /// and moves the transfers whose sockets are ready.
        private func wait(_ milliseconds: Int32, _ stillRunning: inout Int32) {
            var timeout = milliseconds
            if let due = timerDue {
                let (seconds, attoseconds) = (due - .now).components
                timeout = Int32(
                    clamping: max(0, min(Int64(timeout), seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
            }
            let count = epoll_wait(epoll, &events, Int32(events.count), timeout)
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let event = events[index]
                let socket = event.data.fd
                if socket == wakeup {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, 8)
                    continue
                }
                var flags: Int32 = 0
                if event.events & EPOLLIN.rawValue != 0 { flags |= CURL_CSELECT_IN }
                if event.events & EPOLLOUT.rawValue != 0 { flags |= CURL_CSELECT_OUT }
                if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { flags |= CURL_CSELECT_ERR }
                _ = curl.curl_multi_socket_action(multi, socket, flags, &stillRunning)
            }
        }

        /// libcurl's socket callback: `socket` is to be waited on for `what` (`CURL_POLL_IN`, `_OUT`, `_INOUT`), or
        /// no longer (`CURL_POLL_REMOVE`).
        private func watch(_ socket: Int32, for what: Int32) {
            if what == CURL_POLL_REMOVE {
                if watched.remove(socket) != nil { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil) }
                return
            }
            var event = epoll_event()
            event.events =
                (what & CURL_POLL_IN != 0 ? EPOLLIN.rawValue : 0) | (what & CURL_POLL_OUT != 0 ? EPOLLOUT.rawValue : 0)
            event.data.fd = socket
            if watched.insert(socket).inserted {
                if epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) != 0, errno == EEXIST {
                    _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event)
                }
            } else if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) != 0, errno == ENOENT {
                _ = epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event)
            }
        }

        /// libcurl's timer callback: call it back after `milliseconds` (0: at once; -1: no timer).
        private func setTimer(_ milliseconds: Int) {
            timerDue = milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
        }
    #else
        /// Lets libcurl move every transfer.
        private func drive(_ stillRunning: inout Int32) {
            _ = curl.curl_multi_perform(multi, &stillRunning)
        }
    #endif

    /// Takes `easy` out of libcurl and hands `transfer` its outcome.
    private func end(_ easy: UnsafeMutableRawPointer, _ result: Result<Void, HTTPTransfer.Failure>) {
        guard let transfer = running.removeValue(forKey: easy) else { return }
        _ = curl.curl_multi_remove_handle(multi, easy)
        transfer.end(result)
        queue.withLock { $0.count -= 1 }
    }
}
