import Foundation

/// The time one assertion may take to grade (`defaults.gradingTimeoutSeconds`, 10 s unless
/// set). Swift cannot stop a thread, so the limit is a deadline the grader stops *waiting* at:
/// the assertion is recorded as failed with the error `grading_timeout` and the run goes on.
/// The checks bound their own work as well (regular expressions have a step budget, answers a
/// size cap), so work given up on ends by itself soon after.
package enum GradingTimeLimit {
    /// The default limit, in seconds.
    package static let defaultSeconds = 10.0
    /// The error an assertion that passed its limit records.
    package static let error = "grading_timeout"

    /// `work`'s outcome, or nil when it did not finish within `seconds`. Blocking work runs on a
    /// thread of its own, so that a slow check holds neither the run's tasks nor the deadline.
    static func outcome(within seconds: Double, blocking work: @escaping @Sendable () -> CheckOutcome) async -> CheckOutcome? {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            DispatchQueue.global().async { once.resume(work()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(nil) }
        }
    }

    /// `work`'s outcome, or nil when it did not finish within `seconds` (it is then cancelled).
    static func outcome(within seconds: Double, async work: @escaping @Sendable () async -> CheckOutcome) async -> CheckOutcome? {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let task = Task { once.resume(await work()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                once.resume(nil)
                task.cancel()
            }
        }
    }

    /// The verdict of an assertion whose grading passed its limit: failed, whatever `not` says.
    static func timedOut(_ assertion: Assertion, name: String, seconds: Double) -> AssertionResult {
        var result = AssertionResult(
            type: assertion.type, name: name, passed: false,
            message: "grading stopped after \(duration(seconds)) (defaults.gradingTimeoutSeconds); "
                + "the assertion counts as failed. Simplify the check or raise the limit",
            metric: assertion.name, weight: assertion.effectiveWeight, inverted: assertion.inverted)
        result.error = error
        return result
    }

    /// `250 ms` below a second, `2.5 s` from there.
    private static func duration(_ seconds: Double) -> String {
        seconds < 1 ? "\(max(1, Int((seconds * 1000).rounded()))) ms" : "\(Grader.number(seconds)) s"
    }
}

/// Resumes a continuation with the first value it is given and ignores the rest.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<CheckOutcome?, Never>?

    init(_ continuation: CheckedContinuation<CheckOutcome?, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: CheckOutcome?) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(returning: value)
    }
}
