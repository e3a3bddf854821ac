import Foundation

extension HTTPFailureClassifier {
    /// Classifies an Anthropic Messages error response,
    /// `{"type": "error", "error": {"type": "overloaded_error", "message": "..."}}`, by its
    /// error type first and its status second. Retry-After is kept for the retry loop.
    static func anthropic(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        let error = (try? JSONDecoder().decode(AnthropicEnvelope.self, from: body))?.error
        let detail = error?.message ?? ServerText.clip(bytes: body, 300)
        let (kind, what) = anthropicKind(status: status, type: error?.type, message: detail)
        return BackendFailure(kind: kind, message: "\(backend): HTTP \(status) \(what): \(ServerText.clip(detail, 300))",
                              httpStatus: status, retryAfterSeconds: retryAfterSeconds(headers))
    }

    /// The error kind of an Anthropic error type (`overloaded_error`, …), its message, and the
    /// HTTP status when there was one (nil for an `error` event after HTTP 200), with a few
    /// words saying what it means.
    ///
    /// `request_too_large` (413) is a bad request, not a context overflow: it is the byte
    /// size of the HTTP request that is over the limit, which says nothing about tokens.
    static func anthropicKind(status: Int?, type: String?, message: String) -> (ErrorKind, String) {
        let type = (type ?? "").lowercased()
        let text = message.lowercased()
        if type == "billing_error" {
            return (.quotaExhausted, "billing error (credit or quota exhausted)")
        }
        let meaning: FailureMeaning
        if text.contains("prompt is too long") || text.contains("exceed context limit")
            || text.contains("context window") || type == "exceed_context_size_error"
            || text.contains("exceeds the available context size") {
            meaning = .contextOverflow
        } else if let typed = typeMeaning(type) {
            meaning = typed
        } else {
            meaning = statusMeaning(status)
        }
        return (meaning.kind, meaning.what)
    }

    private static let timedOut = FailureMeaning(.timeout, "the server timed out")

    /// What an Anthropic error type means, when it is one evalbench knows.
    private static func typeMeaning(_ type: String) -> FailureMeaning? {
        switch type {
        case "authentication_error", "permission_error": .auth
        case "rate_limit_error": .rateLimited
        case "overloaded_error": .overloaded
        case "api_error": .server
        case "timeout_error": timedOut
        case "request_too_large": FailureMeaning(.badRequest, "request too large")
        case "invalid_request_error", "not_found_error": .badRequest
        default: nil
        }
    }

    /// What the status means, where Anthropic's differ from the shared table.
    private static func statusMeaning(_ status: Int?) -> FailureMeaning {
        switch status {
        case nil: .server
        case 402?: FailureMeaning(.quotaExhausted, "payment required (credit or quota exhausted)")
        case 408?, 504?: timedOut
        case let status?: .of(status: status)
        }
    }

    private struct AnthropicEnvelope: Decodable {
        var error: AnthropicErrorBody?
    }
}
