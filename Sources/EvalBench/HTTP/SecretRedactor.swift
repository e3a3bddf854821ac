import Foundation

/// Removes every secret a request carries (the API key, the value of any credential header)
/// from what a server sends back: error messages, echoed error bodies and answer text. A
/// server may echo what it was sent; a secret never reaches a result, report or log.
struct SecretRedactor: Sendable {
    /// What a secret is replaced with.
    static let mark = "[redacted]"
    /// Longest first, so that `Bearer KEY` goes before `KEY` would split it.
    let secrets: [String]

    /// The secrets of `request`: each credential header's value (`Authorization`, `x-api-key`,
    /// `x-goog-api-key`, any header named like a secret) and, for `Bearer KEY`, the key alone.
    init(_ request: HTTPStreamRequest) {
        var secrets: Set<String> = []
        for (name, value) in request.headers where LiteralSecret.isSecretName(name) {
            let value = value.trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { continue }
            secrets.insert(value)
            if let space = value.firstIndex(of: " ") {
                let token = value[value.index(after: space)...].trimmingCharacters(in: .whitespaces)
                if !token.isEmpty { secrets.insert(token) }
            }
        }
        self.secrets = secrets.sorted { $0.count > $1.count }
    }

    func redact(_ text: String) -> String {
        secrets.reduce(text) { text, secret in
            text.contains(secret) ? text.replacingOccurrences(of: secret, with: Self.mark) : text
        }
    }

    func redact(_ failure: BackendFailure) -> BackendFailure {
        var failure = failure
        failure.message = redact(failure.message)
        return failure
    }

    func redact(_ response: ModelResponse) -> ModelResponse {
        var response = response
        response.text = redact(response.text)
        response.reasoningText = response.reasoningText.map(redact)
        response.toolCalls = response.toolCalls.map { call in
            var call = call
            call.argumentsText = redact(call.argumentsText)
            return call
        }
        return response
    }

    func redact<Value>(_ result: Result<Value, BackendFailure>) -> Result<Value, BackendFailure> {
        result.mapError(redact)
    }

    func redact(_ result: Result<ModelResponse, BackendFailure>) -> Result<ModelResponse, BackendFailure> {
        result.map(redact).mapError(redact)
    }
}
