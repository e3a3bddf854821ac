import Foundation

extension HTTPFailureClassifier {
    /// Classifies an Anthropic Messages error response,
    /// `{"type": "error", "error": {"type": "overloaded_error", "message": "..."}}`, by its
    /// error type first and its status second. Retry-After is kept for the retry loop.
    static func anthropic(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        let error = (try? JSONDecoder().decode(AnthropicEnvelope.self, from: body))?.error
        let detail = error?.message ?? String(decoding: body.prefix(300), as: UTF8.self)
        let (kind, what) = anthropicKind(status: status, type: error?.type, message: detail)
        return BackendFailure(kind: kind, message: "\(backend): HTTP \(status) \(what): \(detail.prefix(300))",
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
        if text.contains("prompt is too long") || text.contains("exceed context limit")
            || text.contains("context window") || type == "exceed_context_size_error"
            || text.contains("exceeds the available context size") {
            return (.contextOverflow, "context overflow")
        }
        switch type {
        case "authentication_error", "permission_error":
            return (.auth, "authentication failed; check the API key variable")
        case "rate_limit_error": return (.rateLimited, "rate limited")
        case "overloaded_error": return (.overloaded, "overloaded")
        case "api_error": return (.server, "server error")
        case "timeout_error": return (.timeout, "the server timed out")
        case "request_too_large": return (.badRequest, "request too large")
        case "invalid_request_error", "not_found_error": return (.badRequest, "bad request")
        default: break
        }
        switch status {
        case nil: return (.server, "server error")
        case 401?, 403?: return (.auth, "authentication failed; check the API key variable")
        case 402?: return (.quotaExhausted, "payment required (credit or quota exhausted)")
        case 408?, 504?: return (.timeout, "the server timed out")
        case 429?: return (.rateLimited, "rate limited")
        case 503?, 529?: return (.overloaded, "overloaded")
        case let status? where (500...599).contains(status): return (.server, "server error")
        default: return (.badRequest, "bad request")
        }
    }

    private struct AnthropicEnvelope: Decodable {
        var error: AnthropicErrorBody?
    }
}
