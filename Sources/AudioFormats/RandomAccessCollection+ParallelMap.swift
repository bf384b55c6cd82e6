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
    ///
    /// Work that mostly `waits` (fetches over the network) runs `width` workers at once whatever the cores
    /// (computing work runs at most as many as there are cores, one where it is nested in another's): the
    /// calling thread and, for the call's length, a thread of Dispatch's for each other worker.
    @discardableResult
    public func parallelMap<Mapped: Sendable, Failure: Error>(
        width: Int? = nil, waits: Bool = false, _ transform: @Sendable (Element) throws(Failure) -> Mapped
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
        let next = Atomic(0)
        @Sendable func work() {
            while true {
                let offset = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard offset < count else { return }
                run(offset)
            }
        }
        if waits && workers > 1 {
            // A serial queue of its own for each worker: Dispatch gives each a thread, cores or not.
            withoutActuallyEscaping(work) { work in
                let group = DispatchGroup()
                for worker in 1..<workers {
                    DispatchQueue(label: "afkit waiting worker \(worker)").async(group: group, execute: work)
                }
                work()
                group.wait()
            }
        } else if workers == count {
            DispatchQueue.concurrentPerform(iterations: count) { offset in run(offset) }
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { _ in work() }
        }
        var mapped: [Mapped] = []
        mapped.reserveCapacity(count)
        for result in results { mapped.append(try result.get()) }
        return mapped
    }
}
