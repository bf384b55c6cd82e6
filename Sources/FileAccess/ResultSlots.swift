import Synchronization

/// Results that parallel workers fill, each its own slot, under one lock. Read ``values`` once the
/// workers are done.
public final class ResultSlots<Value: Sendable>: Sendable {
    private let state: Mutex<(slots: [Value?], filled: Int)>

    /// Room for `count` results.
    public init(count: Int) { state = Mutex((Array(repeating: nil, count: count), 0)) }

    /// Stores a result; returns how many slots are filled now.
    @discardableResult
    public func store(_ value: Value, at index: Int) -> Int {
        state.withLock { state in
            state.slots[index] = value
            state.filled += 1
            return state.filled
        }
    }

    /// The results stored, in slot order.
    public var values: [Value] { state.withLock { $0.slots.compactMap { $0 } } }
}
