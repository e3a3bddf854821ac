import Foundation
import Testing
@testable import EvalBench

private func classify(_ status: Int, _ body: String, headers: [String: String] = [:]) -> BackendFailure {
    HTTPFailureClassifier.openAI(status: status, headers: headers, body: Data(body.utf8), backend: "b")
}

@Suite("Error classification")
struct HTTPFailureClassifierTests {
    @Test("429 is a rate limit unless the body says insufficient_quota")
    func rateLimitVersusQuota() {
        let limited = classify(429, #"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
                               headers: ["retry-after": "2"])
        #expect(limited.kind == .rateLimited)
        #expect(limited.retryAfterSeconds == 2)
        let quota = classify(429, #"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#)
        #expect(quota.kind == .quotaExhausted)
        #expect(!quota.kind.isRetryable)
    }

    @Test("OpenAI's context_length_exceeded and llama.cpp's exceed_context_size_error are context overflows")
    func contextOverflow() {
        #expect(classify(400, #"{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#).kind == .contextOverflow)
        #expect(classify(400, #"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#).kind == .contextOverflow)
    }

    @Test("statuses map to kinds", arguments: [
        (401, ErrorKind.auth), (403, .auth), (408, .timeout), (500, .server), (502, .server),
        (503, .overloaded), (529, .overloaded), (400, .badRequest), (404, .badRequest),
    ])
    func statuses(status: Int, kind: ErrorKind) {
        #expect(classify(status, "{}").kind == kind)
    }

    @Test("Retry-After as an HTTP date and retry-after-ms")
    func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(HTTPFailureClassifier.retryAfterSeconds(["retry-after": "Sun, 09 Sep 2001 01:46:50 GMT"], now: now) == 10)
        #expect(HTTPFailureClassifier.retryAfterSeconds(["retry-after-ms": "1500"]) == 1.5)
        #expect(HTTPFailureClassifier.retryAfterSeconds([:]) == nil)
    }

    @Test("a non-JSON error body is kept, shortened, in the message")
    func plainBody() {
        let failure = classify(502, "<html>Bad Gateway</html>")
        #expect(failure.kind == .server)
        #expect(failure.message.contains("Bad Gateway"))
    }
}
