import Foundation

/// Removes every secret a request carries (the API key, the value of any credential header)
/// from what a server sends back: error messages, echoed error bodies, answer text and every
/// other string of a response (the model's name, the stop reason, tool calls' names and ids),
/// in the forms `SecretPatterns` finds. A server may echo what it was sent; a secret never
/// reaches a result, report, log or the response cache.
package struct SecretRedactor: Sendable {
    /// What a secret is replaced with.
    static let mark = "[redacted]"
    /// Longest first, so that `Bearer KEY` goes before `KEY` would split it.
    var secrets: [String] { found.secrets }
    private let found: Found

    /// A request's secrets and the patterns that find them.
    private struct Found: Sendable {
        var secrets: [String]
        var patterns: SecretPatterns
    }

    /// The secrets of `request`: each credential header's value (`Authorization`, `x-api-key`,
    /// `x-goog-api-key`, any header named like a secret or whose value looks like one) and, for
    /// `Bearer KEY`, the key alone; the URL's user name, password and query values.
    package init(_ request: HTTPStreamRequest) {
        let target = Target(url: request.url, headers: request.headers, publicParts: request.publicParts)
        found = Self.ofRequests.value(for: target) {
            var secrets = Self.secrets(in: request.url, publicQuery: request.publicParts.query)
            secrets.formUnion(Self.secrets(inHeaders: request.headers, public: request.publicParts.headerNames))
            let sorted = secrets.sorted { $0.utf8.count > $1.utf8.count }
            return Found(secrets: sorted, patterns: SecretPatterns(sorted))
        }
    }

    /// Where a request goes and what it carries: all its secrets come from these.
    private struct Target: Hashable {
        var url: URL
        var headers: [String: String]
        var publicParts: PublicRequestParts
    }

    /// The secrets of requests seen before, longest first: a backend sends every request to
    /// the same URL with the same headers, and finding them again (the URL's parts, the
    /// headers hashed) was about 2 µs of each answer's CPU at concurrency 256.
    private static let ofRequests = MemoCache<Target, Found>()

    /// Any header may carry a secret (`headersFromEnv` sends one under any name): every value
    /// long enough to be a credential is one, except those of the protocol's own headers and
    /// those a config wrote literally (`publicNames`, lowercased), unless named or shaped like a
    /// credential.
    private static func secrets(inHeaders headers: [String: String], public publicNames: Set<String>) -> Set<String> {
        var secrets: Set<String> = []
        let plain: Set<String> = ["content-type", "accept", "user-agent", "connection", "anthropic-version", "anthropic-beta"]
        for (name, value) in headers
        where LiteralSecret.isSecretName(name) || LiteralSecret.looksLikeSecret(value)
            || (!plain.contains(name.lowercased()) && !publicNames.contains(name.lowercased()) && value.count >= 8) {
            let value = value.trimmingWhitespace()
            guard !value.isEmpty else { continue }
            secrets.insert(value)
            if let space = value.firstIndex(of: " ") {
                let token = value[value.index(after: space)...].trimmingWhitespace()
                if !token.isEmpty { secrets.insert(token) }
            }
        }
        return secrets
    }

    /// A URL's credentials: `user:password@` and the value of every query parameter longer
    /// than a few characters (`?key=…`), percent-encoded and not; of a config's `baseURL`
    /// (`publicQuery`), only those named or shaped like a credential, the rest being refused there.
    private static func secrets(in url: URL, publicQuery: Bool) -> Set<String> {
        var found: Set<String> = []
        // Most URLs carry none; parsing their components was a few percent of a request's CPU.
        guard url.user != nil || url.password != nil || url.query != nil else { return found }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        for part in [components?.user, components?.password, components?.percentEncodedUser, components?.percentEncodedPassword] {
            if let part, !part.isEmpty { found.insert(part) }
        }
        for item in components?.queryItems ?? [] {
            guard let value = item.value, value.count >= 8 else { continue }
            if publicQuery && !LiteralSecret.isSecretName(item.name) && !LiteralSecret.looksLikeSecret(value) { continue }
            found.insert(value)
            if let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) { found.insert(encoded) }
        }
        return found
    }

    package func redact(_ text: String) -> String {
        found.patterns.redact(text, mark: Self.mark)
    }

    /// `redact`, and a secret cut short by `ServerText.clip` goes too: for messages, which
    /// quote server text clipped.
    func redactMessage(_ text: String) -> String {
        found.patterns.redact(text, mark: Self.mark, clipped: true)
    }

    func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .string(text): .string(redact(text))
        case let .array(values): .array(values.map(redact))
        // Two names redacted alike keep the first value met: never a trap.
        case let .object(members): .object(Dictionary(members.map { (redact($0.key), redact($0.value)) }, uniquingKeysWith: { first, _ in first }))
        default: value
        }
    }

    func redact(_ call: ToolCall) -> ToolCall {
        var call = call
        call.id = redact(call.id)
        call.name = redact(call.name)
        call.argumentsText = redact(call.argumentsText)
        call.signature = call.signature.map(redact)
        return call
    }

    func redact(_ record: ToolCallRecord) -> ToolCallRecord {
        var record = record
        record.id = redact(record.id)
        record.name = redact(record.name)
        record.arguments = record.arguments.map(redact)
        record.argumentsText = record.argumentsText.map(redact)
        record.result = record.result.map(redact)
        return record
    }

    func redact(_ failure: BackendFailure) -> BackendFailure {
        var failure = failure
        failure.message = redactMessage(failure.message)
        failure.handledToolCalls = failure.handledToolCalls.map(redact)
        if let suspect = failure.usage?.suspect { failure.usage?.suspect = redactMessage(suspect) }
        return failure
    }

    func redact(_ response: ModelResponse) -> ModelResponse {
        var response = response
        response.text = redact(response.text)
        response.reasoningText = response.reasoningText.map(redact)
        response.finishReason = response.finishReason.map(redact)
        response.model = response.model.map(redact)
        response.toolCalls = response.toolCalls.map(redact)
        response.handledToolCalls = response.handledToolCalls.map(redact)
        // Says what an unreadable count was, as the server wrote it.
        response.usage.suspect = response.usage.suspect.map(redactMessage)
        return response
    }

    func redact<Value>(_ result: Result<Value, BackendFailure>) -> Result<Value, BackendFailure> {
        result.mapError(redact)
    }

    func redact(_ result: Result<ModelResponse, BackendFailure>) -> Result<ModelResponse, BackendFailure> {
        result.map(redact).mapError(redact)
    }
}
