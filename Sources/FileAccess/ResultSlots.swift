import Dispatch

/// Results that parallel workers fill, each its own slot, under a lock (a semaphore from Dispatch: no
/// Foundation here). Read ``values`` once the workers are done.
public final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [Value?]
    private var filled = 0
    private let lock = DispatchSemaphore(value: 1)

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// Stores a result; returns how many slots are filled now.
    @discardableResult
    public func store(_ value: Value, at index: Int) -> Int {
        lock.wait()
        defer { lock.signal() }
        slots[index] = value
        filled += 1
        return filled
    }

    /// The results stored, in slot order.
    public var values: [Value] { slots.compactMap { $0 } }
}
