import Dispatch
import Synchronization

extension RandomAccessCollection where Self: Sendable {
    /// The elements transformed on every core at once, returned in the collection's order: the one way
    /// afkit runs independent work in parallel (files to validate, report sections, a batch's jobs, a
    /// codec's channels or packets).
    ///
    /// With `width`, at most that many elements are transformed at a time, each worker taking the next
    /// element in order as it finishes one (a batch's `--jobs`); without it, as many as there are cores.
    /// Where `transform` throws for some elements, every element is still transformed and the error of the
    /// first in order is thrown. A transform that fills workspaces of its own may discard the result.
    @discardableResult
    public func parallelMap<Mapped: Sendable, Failure: Error>(
        width: Int? = nil, _ transform: @Sendable (Element) throws(Failure) -> Mapped
    ) throws(Failure) -> [Mapped] {
        let count = self.count
        guard count > 0 else { return [] }
        let workers = Swift.min(Swift.max(width ?? count, 1), count)
        let results = UnsafeMutableBufferPointer<Result<Mapped, Failure>>.allocate(capacity: count)
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        // Each element's result is stored once, by the one worker that took the element.
        nonisolated(unsafe) let slots = results
        @Sendable func run(_ offset: Int) {
            let element = self[index(startIndex, offsetBy: offset)]
            slots.initializeElement(at: offset, to: Result { () throws(Failure) in try transform(element) })
        }
        if workers == count {
            DispatchQueue.concurrentPerform(iterations: count) { offset in run(offset) }
        } else {
            let next = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let offset = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard offset < count else { return }
                    run(offset)
                }
            }
        }
        var mapped: [Mapped] = []
        mapped.reserveCapacity(count)
        for result in results { mapped.append(try result.get()) }
        return mapped
    }
}
