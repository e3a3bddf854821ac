import Foundation

/// Exponential backoff with jitter for retryable failures, honouring `Retry-After`.
package struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt.
    package var maxRetries: Int
    /// The delay before the first retry, doubled each time.
    package var baseDelaySeconds: Double
    /// No computed delay exceeds this.
    package var maxDelaySeconds: Double
    /// A server's `Retry-After` is honoured up to this; beyond it the request fails instead.
    package var maxRetryAfterSeconds: Double

    package init(maxRetries: Int = 3, baseDelaySeconds: Double = 0.5, maxDelaySeconds: Double = 30,
                maxRetryAfterSeconds: Double = 120) {
        self.maxRetries = maxRetries
        self.baseDelaySeconds = baseDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
    }

    /// The wait before retry number `retry` (from 1) after `failure`, or nil for no retry.
    /// `jitter` in 0...1 spreads computed delays between half and all of their value.
    package func delay(beforeRetry retry: Int, after failure: BackendFailure, jitter: Double) -> Double? {
        guard failure.kind.isRetryable, retry <= maxRetries else { return nil }
        if let retryAfter = failure.retryAfterSeconds {
            return retryAfter <= maxRetryAfterSeconds ? retryAfter : nil
        }
        let exponential = min(maxDelaySeconds, baseDelaySeconds * pow(2, Double(retry - 1)))
        return exponential * (0.5 + 0.5 * min(1, max(0, jitter)))
    }

    /// Why a retryable failure with retries left was not retried: the server asked for a
    /// longer wait than `maxRetryAfterSeconds`. Nil otherwise.
    func waitRefused(_ failure: BackendFailure, retry: Int) -> String? {
        guard failure.kind.isRetryable, retry <= maxRetries, let asked = failure.retryAfterSeconds,
              !(asked <= maxRetryAfterSeconds) else { return nil }
        let shown = String(format: asked < 1e9 ? "%.0f s" : "%g s", asked)
        return " (not retried: the server asked to wait \(shown), more than the \(String(format: "%g", maxRetryAfterSeconds)) s evalbench waits at most)"
    }

    /// The longest a call and its retries may take when each attempt takes at most
    /// `attemptSeconds`: every attempt, and before each retry the longest wait allowed (a
    /// computed delay, or a `Retry-After` up to `maxRetryAfterSeconds`).
    package func worstCaseSeconds(attemptSeconds: Double) -> Double {
        let attempts = Double(max(0, maxRetries)) + 1
        return attempts * attemptSeconds + (attempts - 1) * max(maxDelaySeconds, maxRetryAfterSeconds)
    }

    /// Runs `attempt` until it succeeds, fails for good, or retries run out; the result
    /// carries the number of attempts made.
    package func run<Success>(
        _ attempt: () async -> Result<Success, BackendFailure>
    ) async -> (Result<Success, BackendFailure>, attempts: Int) {
        var attempts = 0
        while true {
            attempts += 1
            let result = await attempt()
            guard case let .failure(failure) = result,
                  let wait = delay(beforeRetry: attempts, after: failure, jitter: Double.random(in: 0...1)),
                  !Task.isCancelled else {
                if case var .failure(failure) = result {
                    failure.attempts = attempts
                    if let note = waitRefused(failure, retry: attempts) { failure.message += note }
                    return (.failure(failure), attempts)
                }
                return (result, attempts)
            }
            do {
                try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            } catch {
                var failure = failure
                failure.attempts = attempts
                return (.failure(failure), attempts)
            }
        }
    }
}
