import Foundation

/// Turns a Gemini API error (an HTTP error body, or an error event inside the stream) into one
/// of DESIGN.md's error kinds, and a candidate's `finishReason` or a prompt's `blockReason`
/// into a failure where it is one.
enum GeminiFailureClassifier {
    /// Classifies an HTTP error response from its status, headers and `{"error": …}` body.
    static func http(status: Int, headers: [String: String], body: Data, backend: String, model: String?) -> BackendFailure {
        let error = GeminiErrorBody.decode(body)
        let detail = error?.message ?? ServerText.clip(bytes: body, 300)
        return classify(status: status, error: error, detail: detail, headers: headers, backend: backend, model: model,
                        origin: "HTTP \(status)")
    }

    /// Classifies an error object that arrived in the stream after HTTP 200; its `code` stands
    /// in for the HTTP status.
    static func streamed(_ error: GeminiErrorBody, headers: [String: String], backend: String, model: String?) -> BackendFailure {
        let code = error.code ?? 500
        return classify(status: code, error: error, detail: error.message ?? error.status ?? "unknown",
                        headers: headers, backend: backend, model: model, origin: "error event in the stream (code \(code))")
    }

    private static func classify(status: Int, error: GeminiErrorBody?, detail: String, headers: [String: String],
                                 backend: String, model: String?, origin: String) -> BackendFailure {
        let canonical = (error?.status ?? "").uppercased()
        let text = detail.lowercased()
        let details = error?.details ?? []
        let retryAfter = retryDelaySeconds(details) ?? HTTPFailureClassifier.retryAfterSeconds(headers)

        func failure(_ meaning: FailureMeaning) -> BackendFailure {
            let named = canonical.isEmpty ? "" : " \(canonical)"
            return BackendFailure(kind: meaning.kind, message: "\(backend): \(origin)\(named) \(meaning.what): \(ServerText.clip(detail, 300))",
                                  httpStatus: status, retryAfterSeconds: meaning.kind.isRetryable ? retryAfter : nil)
        }

        if text.contains("input token count") && text.contains("exceeds the maximum")
            || text.contains("exceeds the maximum number of tokens") {
            return failure(.contextOverflow)
        }
        if status == 401 || status == 403 || canonical == "UNAUTHENTICATED" || canonical == "PERMISSION_DENIED"
            || text.contains("api key not valid") || text.contains("api key expired")
            || details.contains(where: { ["API_KEY_INVALID", "API_KEY_EXPIRED"].contains($0.reason ?? "") }) {
            return failure(.auth)
        }
        if status == 429 || canonical == "RESOURCE_EXHAUSTED" {
            if let quota = lastingQuota(details, text: text) {
                return failure(FailureMeaning(.quotaExhausted, "quota exhausted (\(quota); retrying will not help until it resets)"))
            }
            return failure(.rateLimited)
        }
        if status == 404 || canonical == "NOT_FOUND" {
            let name = model.map { "model '\($0)' not found or not available for streamGenerateContent" } ?? "not found"
            return failure(FailureMeaning(.badRequest, "\(name); check \"model\" and the baseURL's API version"))
        }
        if status == 504 { return failure(deadlineExceeded) }
        if status == 408 || (500...599).contains(status) { return failure(.of(status: status)) }
        switch canonical {
        case "UNAVAILABLE": return failure(.overloaded)
        case "DEADLINE_EXCEEDED": return failure(deadlineExceeded)
        case "INTERNAL", "UNKNOWN": return failure(.server)
        default: return failure(.badRequest)
        }
    }

    private static let deadlineExceeded = FailureMeaning(.timeout, "deadline exceeded")

    /// The quota that will not recover within a retry's wait: a per-day quota in a
    /// `QuotaFailure`, or a limit of 0 (the model has no free-tier allowance). The per-minute
    /// 429 says "You exceeded your current quota" too, so those words alone decide nothing.
    private static func lastingQuota(_ details: [GeminiErrorBody.Detail], text: String) -> String? {
        for violation in details.flatMap({ $0.violations ?? [] }) {
            let id = violation.quotaId ?? ""
            if id.lowercased().contains("perday") || (violation.quotaMetric ?? "").lowercased().contains("per_day") {
                return id.isEmpty ? "a daily quota" : "quota \(id)"
            }
        }
        if text.contains("per day") || text.contains("perday") { return "a daily quota" }
        if text.contains("limit: 0") { return "this model has no quota on this plan" }
        return nil
    }

    /// Seconds from a `google.rpc.RetryInfo` detail's `retryDelay` (`"13s"`, `"0.5s"`).
    static func retryDelaySeconds(_ details: [GeminiErrorBody.Detail]) -> Double? {
        for detail in details where (detail.type ?? "").hasSuffix("google.rpc.RetryInfo") {
            guard var text = detail.retryDelay?.trimmingCharacters(in: .whitespaces), text.hasSuffix("s") else { continue }
            text.removeLast()
            if let seconds = Double(text), seconds >= 0 { return seconds }
        }
        return nil
    }

    /// A candidate's `finishReason` that fails the request, or nil when the answer stands
    /// (`STOP`, `MAX_TOKENS`, and reasons evalbench does not know, which are recorded as given).
    static func finishFailure(_ reason: String, message: String?, hasAnswer: Bool) -> (ErrorKind, String)? {
        let said = message.map { ": \(ServerText.clip($0, 200))" } ?? ""
        switch reason {
        case "STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED":
            return nil
        case "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION", "IMAGE_SAFETY",
             "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR":
            return (.guardrail, "the answer was stopped by Gemini's \(reason) filter (finishReason \(reason))\(said)")
        case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
            return (.decoding, "the model produced an unusable function call (finishReason \(reason))\(said)")
        case "LANGUAGE":
            return (.badRequest, "the model does not support the prompt's language (finishReason LANGUAGE)\(said)")
        case "MISSING_THOUGHT_SIGNATURE":
            return (.badRequest, "the request lacks a thought signature (finishReason MISSING_THOUGHT_SIGNATURE)\(said)")
        default:
            return hasAnswer ? nil : (.server, "generation stopped with no answer (finishReason \(reason))\(said)")
        }
    }
}
