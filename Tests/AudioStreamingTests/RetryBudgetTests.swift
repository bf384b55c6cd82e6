import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// One reading's fetches share one retry budget (`HTTPResource.RetryBudget`): the retries one fetch makes are not
/// there for the next; once a retry is refused, every later fetch fails at once, untried, saying the budget is
/// spent and how many fetches failed; the time lost counts as retries do; a fetch that succeeds earns back a
/// tenth of a retry.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RetryBudgetTests {
    /// Quick retries: 2 a fetch, 1 ms apart.
    static var options: HTTPAudioStream.Options {
        var options = HTTPAudioStream.Options()
        options.maximumReconnectAttempts = 2
        options.reconnectDelay = .milliseconds(1)
        return options
    }

    static let answer500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    /// The message of the `AudioFileError` a fetch throws (an issue where it reads).
    static func failure(_ fetch: () throws -> Any) -> String? {
        #expect(throws: AudioFileError.self) { _ = try fetch() }?.message
    }

    @Test func theBudgetIsSharedAndOnceSpentFailsTheNextFetchAtOnce() throws {
        let server = try ScriptedServer { _, _, socket in ScriptedServer.send(socket, Self.answer500) }
        let budget = HTTPResource.RetryBudget(retries: 3, time: .seconds(60))
        let url = "http://127.0.0.1:\(server.port)"
        func fetch(_ path: String) -> String? {
            Self.failure { try HTTPResource.fetchWaiting(url + path, options: Self.options, budget: budget) }
        }
        // The first fetch makes its two retries: one is left.
        let first = fetch("/seg0.aac")
        #expect(first == "http: \(url)/seg0.aac answered 500 Internal Server Error")
        #expect(server.requests.count == 3 && !budget.isSpent && budget.failedFetches == 1)
        // The second gets the last retry, and is refused its second.
        let second = fetch("/seg1.aac")
        #expect(
            second?.hasPrefix(
                "http: \(url)/seg1.aac answered 500 Internal Server Error; not retried: the retry budget of this "
                    + "reading is spent (2 fetches failed;") == true, "\(second ?? "read")")
        #expect(server.requests.count == 5 && budget.isSpent)
        // The next fails at once, without a request, with the budget's message.
        let third = fetch("/seg2.aac")
        #expect(
            third?.hasPrefix(
                "http: \(url)/seg2.aac: not tried: the retry budget of this reading is spent (2 fetches failed; its "
                    + "fetches may make 3 retries") == true, "\(third ?? "read")")
        #expect(server.requests.count == 5 && budget.failedFetches == 2)
        // Another reading (a budget of its own) is tried as usual.
        _ = Self.failure { try HTTPResource.fetchWaiting(url + "/seg2.aac", options: Self.options) }
        #expect(server.requests.count == 8)
    }

    /// The waits count against the time: with 1 s in all and 400 ms before the first retry, the second retry's
    /// 800 ms wait is refused.
    @Test func theTimeLostIsBoundedToo() throws {
        let server = try ScriptedServer { _, _, socket in ScriptedServer.send(socket, Self.answer500) }
        let budget = HTTPResource.RetryBudget(retries: 10, time: .seconds(1))
        var options = Self.options
        options.maximumReconnectAttempts = 5
        options.reconnectDelay = .milliseconds(400)
        let failure = Self.failure {
            try HTTPResource.fetchWaiting(
                "http://127.0.0.1:\(server.port)/seg0.aac", options: options, budget: budget)
        }
        #expect(failure?.contains("; not retried: the retry budget of this reading is spent (1 fetch failed;") == true)
        #expect(server.requests.count == 2 && budget.isSpent)
    }

    /// A budget of one retry: spent by a fetch that needed it, earned back by ten fetches that succeed (that one
    /// and nine more; eight more are not enough).
    @Test func aFetchThatSucceedsEarnsBackATenthOfARetry() throws {
        // Each path ending `-flaky` fails its first request; every other request is answered.
        final class Paths: @unchecked Sendable {
            let lock = NSLock()
            var failed: Set<String> = []
            func firstFailure(_ path: String) -> Bool { lock.withLock { failed.insert(path).inserted } }
        }
        let paths = Paths()
        let server = try ScriptedServer { _, request, socket in
            let path = request.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            if path.hasSuffix("-flaky"), paths.firstFailure(path) {
                ScriptedServer.send(socket, Self.answer500)
            } else {
                ScriptedServer.send(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            }
        }
        let url = "http://127.0.0.1:\(server.port)"
        for (name, successes, earnedBack) in [("ten", 9, true), ("nine", 8, false)] {
            let budget = HTTPResource.RetryBudget(retries: 1, time: .seconds(60))
            let first = try HTTPResource.fetchWaiting(url + "/\(name)-1-flaky", options: Self.options, budget: budget)
            #expect(first.bytes == Array("ok".utf8))
            for index in 0..<successes {
                _ = try HTTPResource.fetchWaiting(url + "/\(name)-\(index)", options: Self.options, budget: budget)
            }
            let second = Result {
                try HTTPResource.fetchWaiting(url + "/\(name)-2-flaky", options: Self.options, budget: budget).bytes
            }
            #expect((try? second.get()) == (earnedBack ? Array("ok".utf8) : nil), "\(name): \(second)")
            #expect(budget.isSpent != earnedBack && budget.failedFetches == (earnedBack ? 0 : 1))
        }
    }
}
