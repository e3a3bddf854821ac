import Foundation
import Testing
@testable import EvalBench

private func classify(_ status: Int, _ body: String, headers: [String: String] = [:]) -> BackendFailure {
    GeminiFailureClassifier.http(status: status, headers: headers, body: Data(body.utf8), backend: "gem", model: "gemini-9-ultra")
}

/// A Google error body with `details`.
private func googleError(_ code: Int, _ status: String, _ message: String, details: String = "[]") -> String {
    #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":\#(details)}}"#
}

private let perMinute = #"{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]}"#
private let perDay = #"{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}"#
private func retryInfo(_ delay: String) -> String {
    #"{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"\#(delay)"}"#
}
private let help = #"{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]}"#

@Suite("Gemini error classification")
struct GeminiFailureClassifierTests {
    @Test("a per-minute 429 is a retryable rate limit that honours RetryInfo's retryDelay")
    func rateLimit() {
        let limited = classify(429, googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.",
                                                details: "[\(perMinute),\(help),\(retryInfo("13s"))]"))
        #expect(limited.kind == .rateLimited)
        #expect(limited.kind.isRetryable)
        #expect(limited.retryAfterSeconds == 13)
        let fractional = classify(429, googleError(429, "RESOURCE_EXHAUSTED", "slow down", details: "[\(retryInfo("45.837906927s"))]"))
        #expect(fractional.retryAfterSeconds == 45.837906927)
    }

    @Test("without RetryInfo, the Retry-After header is honoured")
    func retryAfterHeader() {
        let limited = classify(429, googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
                               headers: ["retry-after": "7"])
        #expect(limited.kind == .rateLimited)
        #expect(limited.retryAfterSeconds == 7)
    }

    @Test("a per-day quota or a limit of 0 is quota exhausted, not retried")
    func dailyQuota() {
        let daily = classify(429, googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.",
                                              details: "[\(perMinute),\(perDay),\(retryInfo("20s"))]"))
        #expect(daily.kind == .quotaExhausted)
        #expect(!daily.kind.isRetryable)
        #expect(daily.message.contains("GenerateRequestsPerDayPerProjectPerModel-FreeTier"))
        let noTier = classify(429, googleError(429, "RESOURCE_EXHAUSTED",
                                               "You exceeded your current quota. * Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro"))
        #expect(noTier.kind == .quotaExhausted)
    }

    @Test("statuses and canonical names map to kinds", arguments: [
        (503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ErrorKind.overloaded),
        (500, "INTERNAL", "An internal error has occurred.", .server),
        (504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", .timeout),
        (401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", .auth),
        (403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.", .auth),
        (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", .auth),
        (400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", .contextOverflow),
        (400, "INVALID_ARGUMENT", "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \\\"hot\\\"", .badRequest),
        (400, "FAILED_PRECONDITION", "User location is not supported for the API use.", .badRequest),
    ])
    func statuses(status: Int, canonical: String, message: String, kind: ErrorKind) {
        let failure = classify(status, googleError(status, canonical, message))
        #expect(failure.kind == kind, "\(status) \(canonical): got \(failure.kind)")
        #expect(failure.httpStatus == status)
        #expect(failure.message.contains(canonical))
    }

    @Test("API_KEY_INVALID in ErrorInfo is an auth failure whatever the message")
    func errorInfoReason() {
        let failure = classify(400, googleError(400, "INVALID_ARGUMENT", "Bad key.",
                                                details: #"[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]"#))
        #expect(failure.kind == .auth)
    }

    @Test("404 is a bad request that names the model")
    func notFound() {
        let failure = classify(404, googleError(404, "NOT_FOUND", "models/gemini-9-ultra is not found for API version v1beta"))
        #expect(failure.kind == .badRequest)
        #expect(failure.message.contains("model 'gemini-9-ultra'"))
    }

    @Test("an error body wrapped in an array, and a body that is not JSON, are read")
    func bodyShapes() {
        let wrapped = classify(503, "[" + googleError(503, "UNAVAILABLE", "overloaded") + "]")
        #expect(wrapped.kind == .overloaded)
        #expect(wrapped.message.contains("UNAVAILABLE"))
        let html = classify(502, "<html>Bad Gateway</html>")
        #expect(html.kind == .server)
        #expect(html.message.contains("Bad Gateway"))
    }

    @Test("retryDelay is read only from RetryInfo and only as seconds")
    func retryDelayParsing() {
        let details = [GeminiErrorBody.Detail]()
        #expect(GeminiFailureClassifier.retryDelaySeconds(details) == nil)
        let parsed = GeminiErrorBody.decode(Data(googleError(429, "RESOURCE_EXHAUSTED", "x", details: "[\(retryInfo("0.5s"))]").utf8))
        #expect(GeminiFailureClassifier.retryDelaySeconds(parsed?.details ?? []) == 0.5)
        let notSeconds = GeminiErrorBody.decode(Data(googleError(429, "RESOURCE_EXHAUSTED", "x", details: "[\(retryInfo("soon"))]").utf8))
        #expect(GeminiFailureClassifier.retryDelaySeconds(notSeconds?.details ?? []) == nil)
    }
}
