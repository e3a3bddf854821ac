import Foundation
import Testing
@testable import EvalBench

private func classify(_ status: Int, type: String, message: String = "something went wrong",
                      headers: [String: String] = [:]) -> BackendFailure {
    let body = #"{"type":"error","error":{"type":"\#(type)","message":"\#(message)"}}"#
    return HTTPFailureClassifier.anthropic(status: status, headers: headers, body: Data(body.utf8), backend: "claude")
}

@Suite("Anthropic error classification")
struct AnthropicFailureClassifierTests {
    @Test("429 rate_limit_error is rate limited, with retry-after honoured")
    func rateLimit() {
        let failure = classify(429, type: "rate_limit_error", headers: ["retry-after": "12"])
        #expect(failure.kind == .rateLimited)
        #expect(failure.retryAfterSeconds == 12)
        #expect(failure.httpStatus == 429)
        #expect(failure.kind.isRetryable)
    }

    @Test("529 overloaded_error is overloaded and retryable")
    func overloaded() {
        let failure = classify(529, type: "overloaded_error", message: "Overloaded")
        #expect(failure.kind == .overloaded)
        #expect(failure.kind.isRetryable)
        #expect(failure.message == "claude: HTTP 529 overloaded: Overloaded")
    }

    @Test("400 invalid_request_error 'prompt is too long' is a context overflow; other invalid requests are bad requests")
    func promptTooLong() {
        #expect(classify(400, type: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum").kind == .contextOverflow)
        #expect(classify(400, type: "invalid_request_error", message: "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000").kind == .contextOverflow)
        #expect(classify(400, type: "invalid_request_error", message: "max_tokens: Field required").kind == .badRequest)
    }

    @Test("billing_error is quota exhausted at any status, and not retryable", arguments: [400, 402, 403])
    func billing(status: Int) {
        let failure = classify(status, type: "billing_error", message: "Your credit balance is too low")
        #expect(failure.kind == .quotaExhausted)
        #expect(!failure.kind.isRetryable)
    }

    @Test("types map to kinds", arguments: [
        (401, "authentication_error", ErrorKind.auth), (403, "permission_error", .auth),
        (413, "request_too_large", .badRequest), (404, "not_found_error", .badRequest),
        (500, "api_error", .server), (504, "timeout_error", .timeout),
    ])
    func types(status: Int, type: String, kind: ErrorKind) {
        #expect(classify(status, type: type).kind == kind)
    }

    @Test("statuses map to kinds when the body is not Anthropic's", arguments: [
        (401, ErrorKind.auth), (403, .auth), (402, .quotaExhausted), (408, .timeout), (429, .rateLimited),
        (500, .server), (502, .server), (503, .overloaded), (529, .overloaded), (400, .badRequest), (422, .badRequest),
    ])
    func statuses(status: Int, kind: ErrorKind) {
        let failure = HTTPFailureClassifier.anthropic(status: status, headers: [:], body: Data("<html>oops</html>".utf8), backend: "b")
        #expect(failure.kind == kind)
        #expect(failure.message.contains("oops"))
    }

    @Test("llama-server's exceed_context_size_error on /v1/messages is a context overflow")
    func llamaServerOverflow() {
        let body = #"{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#
        let failure = HTTPFailureClassifier.anthropic(status: 400, headers: [:], body: Data(body.utf8), backend: "b")
        #expect(failure.kind == .contextOverflow)
    }
}
