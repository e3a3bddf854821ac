import Foundation

/// A counting semaphore for tasks: at most `limit` holders at once, waiters served in order.
///
/// A lock rather than an actor: every request acquires and releases it, and while a unit is
/// free (always, when the limit is the run's concurrency) neither call suspends.
final class AsyncSemaphore: @unchecked Sendable {
    // @unchecked: `available` and `waiters` are touched only under `lock`.
    private let lock = NSLock()
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        available = max(1, limit)
    }

    func acquire() async {
        if takeUnit() { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            // A unit released since `takeUnit` goes to this waiter at once.
            let now = lock.withLock { () -> Bool in
                if available > 0 {
                    available -= 1
                    return true
                }
                waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    func release() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiters.isEmpty {
                available += 1
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume()
    }

    private func takeUnit() -> Bool {
        lock.withLock {
            guard available > 0 else { return false }
            available -= 1
            return true
        }
    }
}
