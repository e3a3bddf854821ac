import Dispatch

/// `transform` of each element of `items`, computed on every core, in the order of `items`.
/// For pure, independent work (each group's bootstrap intervals): the results are the same
/// as a sequential `map`'s.
package func concurrentMap<Item: Sendable, Value: Sendable>(_ items: [Item], _ transform: @Sendable (Item) -> Value) -> [Value] {
    var values = [Value?](repeating: nil, count: items.count)
    values.withUnsafeMutableBufferPointer { buffer in
        // Each iteration writes only its own slot.
        nonisolated(unsafe) let slots = buffer
        DispatchQueue.concurrentPerform(iterations: items.count) { index in slots[index] = transform(items[index]) }
    }
    return values.map { $0! }
}
