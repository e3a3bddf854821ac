import Foundation

/// Values worked out once per key and looked up from any thread, for the few keys a run has
/// (a backend's URL, its header set, a loopback host). When `limit` keys are held it forgets
/// them all and starts over, so a caller that makes a new key per request stays bounded.
///
/// The key last looked up is compared before any is hashed: callers ask for the same key
/// request after request (a backend's one header set), and comparing a dictionary with the
/// one it was copied from is a check of their storage, where hashing it reads every entry.
final class MemoCache<Key: Hashable, Value>: @unchecked Sendable {
    // @unchecked: `values` and `last` are touched only under `lock`.
    private let lock = NSLock()
    private var values: [Key: Value] = [:]
    private var last: (key: Key, value: Value)?
    private let limit: Int

    init(limit: Int = 64) {
        self.limit = max(1, limit)
    }

    /// The value kept for `key`, if any.
    func value(for key: Key) -> Value? {
        lock.withLock {
            if let last, last.key == key { return last.value }
            guard let found = values[key] else { return nil }
            last = (key, found)
            return found
        }
    }

    /// Keeps `value` for `key`.
    func keep(_ value: Value, for key: Key) {
        lock.withLock {
            if values.count >= limit { values.removeAll() }
            values[key] = value
            last = (key, value)
        }
    }

    /// The value kept for `key`, or `make()`'s, kept (made outside the lock, so two threads may
    /// both make it; both get an equal value).
    func value(for key: Key, orMake make: () -> Value) -> Value {
        if let found = value(for: key) { return found }
        let made = make()
        keep(made, for: key)
        return made
    }
}
