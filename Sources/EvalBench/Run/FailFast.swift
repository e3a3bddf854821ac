import Foundation

/// Stops sending to a backend that keeps failing the same way: after `limit` consecutive
/// identical non-retryable failures (same error kind and message: a 400 for a wrong parameter,
/// a 401), the backend's remaining case runs are skipped with the reason instead of spending
/// minutes and money on answers that cannot come. Retryable failures (rate limits, timeouts)
/// and cancellations do not count; any other result resets the streak.
///
/// A lock rather than an actor: every result of a run passes through `note`, and an actor hop
/// there cost each answer a task switch.
package final class FailFast: @unchecked Sendable {
    /// How the skip reason of every case run fail fast stopped begins.
    static let reasonPrefix = "fail fast:"

    /// Whether `skipReason` is fail fast's: the case run was never sent.
    package static func stopped(_ skipReason: String?) -> Bool { skipReason?.hasPrefix(reasonPrefix) == true }

    /// The error kind that stopped `backend`, from fail fast's reason (`… on backend 'b'
    /// (bad_request: …)`): the failure that was repeated, not whichever request finished last.
    static func stoppingKind(_ reason: String, backend: String) -> ErrorKind? {
        guard let range = reason.range(of: "on backend '\(backend)' (") else { return nil }
        let rest = reason[range.upperBound...]
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return ErrorKind(rawValue: String(rest[..<colon]))
    }

    // @unchecked: `last`, `streak` and `stopReason` are touched only under `lock`.
    /// Consecutive identical failures that stop the backend; 0 never stops.
    let limit: Int
    private let lock = NSLock()
    private var last: String?
    private var streak = 0
    private var stopReason: String?

    package init(limit: Int) {
        self.limit = limit
    }

    /// Why the backend was stopped, once it was.
    package var reason: String? { lock.withLock { stopReason } }

    /// Counts `result`; returns the reason when this result is the one that stops the backend.
    package func note(_ result: RequestResult) -> String? {
        guard limit > 0, result.status != .skipped else { return nil }
        return lock.withLock { count(result) }
    }

    private func count(_ result: RequestResult) -> String? {
        guard stopReason == nil else { return nil }
        guard result.status == .error, let kind = result.errorKind, !kind.isRetryable, kind != .cancelled else {
            last = nil
            streak = 0
            return nil
        }
        let signature = kind.rawValue + ": " + String((result.errorMessage ?? "").prefix(300))
        streak = signature == last ? streak + 1 : 1
        last = signature
        guard streak >= limit else { return nil }
        stopReason = "\(Self.reasonPrefix) \(limit) consecutive identical failures on backend '\(result.backend)' (\(signature)); "
            + "its remaining case runs were not sent (config defaults.failFastAfter)"
        return stopReason
    }
}
