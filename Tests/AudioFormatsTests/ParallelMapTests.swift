import AudioFormats
import Dispatch
import Synchronization
import Testing

/// `parallelMap`: results in the collection's order; work that waits runs its whole width at once, whatever the
/// cores and nested in another parallel map (as the validator's segment fetches are, inside its files).
struct ParallelMapTests {
    /// How many transforms were running at once at most, each waiting (up to 10 s) until `width` run together.
    static func widestRun(of count: Int, width: Int, waits: Bool) -> (results: [Int], widest: Int) {
        let running = Atomic(0)
        let widest = Atomic(0)
        let results = (0..<count).parallelMap(width: width, waits: waits) { element in
            let now = running.wrappingAdd(1, ordering: .relaxed).newValue
            widest.max(now, ordering: .relaxed)
            // A barrier for the first `width` elements: they meet only where they run at once.
            let deadline = DispatchTime.now() + .seconds(10)
            while element < width, widest.load(ordering: .relaxed) < width, DispatchTime.now() < deadline {
                _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(5))
            }
            running.wrappingSubtract(1, ordering: .relaxed)
            return element * 2
        }
        return (results, widest.load(ordering: .relaxed))
    }

    @Test func waitingWorkRunsItsWholeWidthInOrder() {
        let (results, widest) = Self.widestRun(of: 10, width: 4, waits: true)
        #expect(results == (0..<10).map { $0 * 2 })
        #expect(widest == 4)
    }

    @Test func waitingWorkNestedInAnotherMapRunsItsWholeWidth() {
        let nested = [0, 1].parallelMap { _ in Self.widestRun(of: 6, width: 4, waits: true) }
        for (results, widest) in nested {
            #expect(results == (0..<6).map { $0 * 2 })
            #expect(widest == 4)
        }
    }

    @Test func theFirstErrorInOrderIsThrownAfterEveryElement() {
        struct Failure: Error, Equatable { var element: Int }
        let seen = Atomic(0)
        #expect(throws: Failure(element: 3)) {
            try (0..<8).parallelMap(width: 3, waits: true) { element throws(Failure) -> Int in
                seen.wrappingAdd(1, ordering: .relaxed)
                if element == 3 || element == 6 { throw Failure(element: element) }
                return element
            }
        }
        #expect(seen.load(ordering: .relaxed) == 8)
    }
}
