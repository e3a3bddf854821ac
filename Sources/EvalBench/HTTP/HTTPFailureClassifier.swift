import Foundation

/// Turns an HTTP error response into one of DESIGN.md's error kinds.
enum HTTPFailureClassifier {
    /// Classifies an OpenAI-compatible error response (OpenAI, llama.cpp, vLLM).
    static func openAI(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        let error = (try? JSONDecoder().decode(Envelope.self, from: body))?.error
        let detail = error?.message ?? ServerText.clip(bytes: body, 300)
        let code = (error?.code ?? "").lowercased()
        let type = (error?.type ?? "").lowercased()
        let text = detail.lowercased()
        let retryAfter = retryAfterSeconds(headers)

        func failure(_ meaning: FailureMeaning) -> BackendFailure {
            BackendFailure(kind: meaning.kind, message: "\(backend): HTTP \(status) \(meaning.what): \(ServerText.clip(detail, 300))",
                           httpStatus: status, retryAfterSeconds: retryAfter)
        }

        if code == "context_length_exceeded" || type == "exceed_context_size_error"
            || text.contains("maximum context length") || text.contains("exceeds the available context size")
            || text.contains("context length") && text.contains("exceed") {
            return failure(.contextOverflow)
        }
        if code == "insufficient_quota" || type == "insufficient_quota" || text.contains("exceeded your current quota") {
            return failure(FailureMeaning(.quotaExhausted, "quota exhausted"))
        }
        return failure(.of(status: status))
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

/// An error kind with the words a failure message says it in. The ones every HTTP provider
/// shares are here once, with what a bare HTTP status means.
struct FailureMeaning: Sendable, Equatable {
    let kind: ErrorKind
    let what: String

    init(_ kind: ErrorKind, _ what: String) {
        self.kind = kind
        self.what = what
    }

    static let auth = FailureMeaning(.auth, "authentication failed; check the API key variable")
    static let rateLimited = FailureMeaning(.rateLimited, "rate limited")
    static let overloaded = FailureMeaning(.overloaded, "overloaded")
    static let server = FailureMeaning(.server, "server error")
    static let badRequest = FailureMeaning(.badRequest, "bad request")
    static let requestTimeout = FailureMeaning(.timeout, "request timeout")
    static let contextOverflow = FailureMeaning(.contextOverflow, "context overflow")

    /// What an HTTP status means when the body says nothing more specific (DESIGN.md's error kinds).
    static func of(status: Int) -> FailureMeaning {
        switch status {
        case 401, 403: .auth
        case 408: .requestTimeout
        case 429: .rateLimited
        case 503, 529: .overloaded
        case 500...599: .server
        case 300...399: FailureMeaning(.badRequest, "redirect, not followed (it could carry the key to another host; use the address it points to)")
        default: .badRequest
        }
    }
}
