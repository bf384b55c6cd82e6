import Synchronization

extension HTTPResource {
    /// The retries one reading spends across all its fetches (an HLS playlist read as a stream, or checked by
    /// `validate`: its playlists, segments and initialization sections), beside each fetch's own
    /// `maximumReconnectAttempts`: at most ``retries`` retries and ``time`` lost to failures (each failed
    /// attempt's time and the waits before retries, summed over the fetches, so fetches running at once spend it
    /// together). A fetch that succeeds earns back a tenth of a retry and a second, up to the budget, so a long
    /// reading (a live playlist followed for hours) is bounded by how densely its fetches fail, not by how many
    /// fail in all. Once a retry is refused, the budget is spent for good: every fetch still given it fails at once,
    /// untried, with an error that says so and how many fetches failed.
    public final class RetryBudget: Sendable {
        /// The retries its fetches may make together.
        public let retries: Int
        /// The time its fetches may lose to failures together.
        public let time: Duration
        private let state = Mutex(State())

        private struct State {
            /// Retries spent, in tenths (a success earns one back).
            var spentTenths = 0
            var lost = Duration.zero
            var failedFetches = 0
            var isSpent = false
        }

        /// A budget of `options.retryBudget` retries and `options.retryTimeBudget` lost to failures.
        public convenience init(_ options: HTTPAudioStream.Options = .init()) {
            self.init(retries: options.retryBudget, time: options.retryTimeBudget)
        }

        /// A budget of `retries` retries (0: none) and `time` lost to failures.
        public init(retries: Int, time: Duration) {
            self.retries = max(0, retries)
            self.time = max(.zero, time)
        }

        /// Whether a retry was refused: every fetch given the budget fails at once from then on.
        public var isSpent: Bool { state.withLock { $0.isSpent } }

        /// The fetches that were tried and failed (answered 4xx, could not connect, ran out of retries).
        public var failedFetches: Int { state.withLock { $0.failedFetches } }

        /// Why a fetch is not tried or not retried, for its error: the budget and how many fetches failed.
        var spentReason: String {
            let failed = failedFetches
            return "the retry budget of this reading is spent (\(failed) fetch\(failed == 1 ? "" : "es") failed; "
                + "its fetches may make \(retries) retr\(retries == 1 ? "y" : "ies") and lose "
                + "\(time) to failed attempts and the waits between them, in all)"
        }

        /// Counts `duration` as lost to a failed attempt.
        func lose(_ duration: Duration) {
            state.withLock { $0.lost += duration }
        }

        /// Spends a retry and the wait `delay` before it, where the budget still holds both; otherwise the budget
        /// is spent from now on and the retry refused.
        func grantRetry(waiting delay: Duration) -> Bool {
            state.withLock { state in
                guard !state.isSpent, state.spentTenths + 10 <= retries * 10, state.lost + delay <= time else {
                    state.isSpent = true
                    return false
                }
                state.spentTenths += 10
                state.lost += delay
                return true
            }
        }

        /// A fetch succeeded: a tenth of a retry and a second are earned back.
        func fetchSucceeded() {
            state.withLock { state in
                state.spentTenths = max(0, state.spentTenths - 1)
                state.lost = max(.zero, state.lost - .seconds(1))
            }
        }

        /// A fetch was tried and failed.
        func fetchFailed() {
            state.withLock { $0.failedFetches += 1 }
        }
    }
}
