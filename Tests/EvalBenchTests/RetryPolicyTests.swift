import Testing
@testable import EvalBench

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxRetries: 3, baseDelaySeconds: 0.5, maxDelaySeconds: 4, maxRetryAfterSeconds: 60)

    @Test("retryable kinds back off exponentially, with jitter between half and all of the delay")
    func exponential() {
        let failure = BackendFailure(kind: .server, message: "HTTP 500")
        #expect(policy.delay(beforeRetry: 1, after: failure, jitter: 1) == 0.5)
        #expect(policy.delay(beforeRetry: 2, after: failure, jitter: 1) == 1.0)
        #expect(policy.delay(beforeRetry: 3, after: failure, jitter: 1) == 2.0)
        #expect(policy.delay(beforeRetry: 2, after: failure, jitter: 0) == 0.5)
        #expect(policy.delay(beforeRetry: 4, after: failure, jitter: 1) == nil)
    }

    @Test("the computed delay is capped")
    func capped() {
        let many = RetryPolicy(maxRetries: 10, baseDelaySeconds: 1, maxDelaySeconds: 4)
        #expect(many.delay(beforeRetry: 8, after: BackendFailure(kind: .network, message: ""), jitter: 1) == 4)
    }

    @Test("Retry-After is honoured as given, and a wait past the limit fails instead")
    func retryAfter() {
        #expect(policy.delay(beforeRetry: 1, after: BackendFailure(kind: .rateLimited, message: "", retryAfterSeconds: 7), jitter: 0) == 7)
        #expect(policy.delay(beforeRetry: 1, after: BackendFailure(kind: .rateLimited, message: "", retryAfterSeconds: 600), jitter: 0) == nil)
    }

    @Test("context overflow, refusals, auth and quota errors are never retried",
          arguments: [ErrorKind.contextOverflow, .refusal, .auth, .quotaExhausted, .badRequest, .guardrail, .cancelled, .unavailable])
    func notRetried(kind: ErrorKind) {
        #expect(policy.delay(beforeRetry: 1, after: BackendFailure(kind: kind, message: ""), jitter: 1) == nil)
    }

    @Test("run retries until success and counts attempts")
    func runCountsAttempts() async {
        let fast = RetryPolicy(maxRetries: 3, baseDelaySeconds: 0.001, maxDelaySeconds: 0.001)
        let counter = Counter()
        let (result, attempts) = await fast.run { () async -> Result<ModelResponse, BackendFailure> in
            let n = await counter.next()
            if n < 3 { return .failure(BackendFailure(kind: .overloaded, message: "busy")) }
            return .success(ModelResponse(text: "ok", timing: RequestTiming(startedAt: .init()), usage: Usage()))
        }
        #expect(attempts == 3)
        #expect((try? result.get())?.text == "ok")
    }

    @Test("run gives up after the last retry and records the attempts on the failure")
    func runGivesUp() async {
        let fast = RetryPolicy(maxRetries: 2, baseDelaySeconds: 0.001, maxDelaySeconds: 0.001)
        let (result, attempts) = await fast.run { () async -> Result<ModelResponse, BackendFailure> in
            .failure(BackendFailure(kind: .network, message: "reset"))
        }
        #expect(attempts == 3)
        guard case let .failure(failure) = result else { Issue.record("expected a failure"); return }
        #expect(failure.attempts == 3)
    }
}

private actor Counter {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}
