import Foundation

/// Turns an HTTP error response into one of DESIGN.md's error kinds.
enum HTTPFailureClassifier {
    /// Classifies an OpenAI-compatible error response (OpenAI, llama.cpp, vLLM).
    static func openAI(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        let error = (try? JSONDecoder().decode(Envelope.self, from: body))?.error
        let detail = error?.message ?? String(decoding: body.prefix(300), as: UTF8.self)
        let code = (error?.code ?? "").lowercased()
        let type = (error?.type ?? "").lowercased()
        let text = detail.lowercased()
        let retryAfter = retryAfterSeconds(headers)

        func failure(_ kind: ErrorKind, _ what: String) -> BackendFailure {
            BackendFailure(kind: kind, message: "\(backend): HTTP \(status) \(what): \(detail.prefix(300))",
                           httpStatus: status, retryAfterSeconds: retryAfter)
        }

        if code == "context_length_exceeded" || type == "exceed_context_size_error"
            || text.contains("maximum context length") || text.contains("exceeds the available context size")
            || text.contains("context length") && text.contains("exceed") {
            return failure(.contextOverflow, "context overflow")
        }
        if code == "insufficient_quota" || type == "insufficient_quota" || text.contains("exceeded your current quota") {
            return failure(.quotaExhausted, "quota exhausted")
        }
        switch status {
        case 401, 403: return failure(.auth, "authentication failed; check the API key variable")
        case 408: return failure(.timeout, "request timeout")
        case 429: return failure(.rateLimited, "rate limited")
        case 503, 529: return failure(.overloaded, "overloaded")
        case 500...599: return failure(.server, "server error")
        default: return failure(.badRequest, "bad request")
        }
    }

    /// Seconds from `Retry-After` (seconds or an HTTP date) or `retry-after-ms`.
    static func retryAfterSeconds(_ headers: [String: String], now: Date = Date()) -> Double? {
        if let milliseconds = headers["retry-after-ms"].flatMap(Double.init) { return max(0, milliseconds / 1000) }
        guard let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private struct Envelope: Decodable {
        var error: OpenAIErrorBody?
    }
}
