import Foundation
import Testing
@testable import EvalBench
import EvalBenchTestSupport

private let key = "sk-test-7f3a9c1e5b2d4086"
private let transport = URLSessionStreamTransport()

private func ask(_ backend: any Backend) async -> Result<ModelResponse, BackendFailure> {
    let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "hi")],
                               options: GenerationOptions(), timeoutSeconds: 10)
    return await backend.startConversation().respond(to: request)
}

/// Every provider's backend, each on a fake that echoes the key in an error body and in the answer.
struct RedactionProvider: Sendable, CustomStringConvertible {
    var description: String
    var start: @Sendable (_ echoInError: Bool) throws -> (backend: any Backend, stop: @Sendable () -> Void)

    static let all = [
        RedactionProvider(description: "openai") { inError in
            let server = FakeOpenAIServer(replies: [inError
                ? .init(fault: .openAIError(status: 401, message: "Incorrect API key provided: \(key)", type: "invalid_request_error", code: "invalid_api_key"))
                : .init(steps: [.content("your key is \(key)")])])
            try server.start()
            let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"),
                                        apiKey: key, concurrency: 1, transport: transport)
            return (backend, { server.stop() })
        },
        RedactionProvider(description: "anthropic") { inError in
            let server = FakeAnthropicServer(replies: [inError
                ? .init(fault: .anthropicError(status: 401, type: "authentication_error", message: "invalid x-api-key: \(key)"))
                : .init(steps: [.text("your key is \(key)")])])
            try server.start()
            let backend = AnthropicBackend(name: "a", model: "claude", baseURL: server.baseURL, apiKey: key,
                                           concurrency: 1, transport: transport)
            return (backend, { server.stop() })
        },
        RedactionProvider(description: "gemini") { inError in
            let server = FakeGeminiServer(replies: [inError
                ? .init(fault: .googleError(code: 400, status: "INVALID_ARGUMENT", message: "API key not valid: \(key)"))
                : .init(steps: [.text("your key is \(key)")])])
            try server.start()
            let backend = GeminiBackend(name: "g", model: "gemini-2.5-flash", baseURL: server.baseURL, apiKey: key,
                                        concurrency: 1, transport: transport)
            return (backend, { server.stop() })
        },
    ]
}

@Suite("Secrets a request carries never come back in a result")
struct SecretRedactionTests {
    @Test("an error body that echoes the API key is redacted, for every provider", arguments: RedactionProvider.all)
    func errorBody(_ provider: RedactionProvider) async throws {
        let (backend, stop) = try provider.start(true)
        defer { stop() }
        guard case let .failure(failure) = await ask(backend) else {
            Issue.record("\(provider): the request succeeded")
            return
        }
        #expect(!failure.message.contains(key), "\(provider): \(failure.message)")
        #expect(failure.message.contains(SecretRedactor.mark), "\(provider): \(failure.message)")
    }

    @Test("an answer that repeats the API key is redacted, for every provider", arguments: RedactionProvider.all)
    func answerText(_ provider: RedactionProvider) async throws {
        let (backend, stop) = try provider.start(false)
        defer { stop() }
        let response = try await ask(backend).get()
        #expect(response.text == "your key is \(SecretRedactor.mark)", "\(provider)")
    }

    @Test("an embeddings error that echoes the API key is redacted")
    func embeddings() async throws {
        let body = #"{"error": {"message": "Incorrect API key provided: \#(key)", "type": "invalid_request_error", "code": "invalid_api_key"}}"#
        let server = FakeHTTPServer { _ in .full(status: 401, headers: ["Content-Type": "application/json"], body: Data(body.utf8)) }
        try server.start()
        defer { server.stop() }
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"),
                                    apiKey: key, concurrency: 1, transport: transport)
        guard case let .failure(failure) = await backend.embed(["x"], timeoutSeconds: 5) else {
            Issue.record("the embeddings request succeeded")
            return
        }
        #expect(failure.kind == .auth)
        #expect(!failure.message.contains(key) && failure.message.contains(SecretRedactor.mark), "\(failure.message)")
    }

    @Test("a malformed stream line that echoes the key is redacted in the failure")
    func malformedLine() async throws {
        let line = "data: {\"choices\": [{\"delta\": {\"content\": \"Authorization: Bearer \(key)\"\n\n"
        let server = FakeHTTPServer { _ in .stream(status: 200, headers: ["Content-Type": "text/event-stream"], pieces: [.init(line)]) }
        try server.start()
        defer { server.stop() }
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"),
                                    apiKey: key, concurrency: 1, transport: transport)
        guard case let .failure(failure) = await ask(backend) else {
            Issue.record("a malformed stream must fail")
            return
        }
        #expect(!failure.description.contains(key), "\(failure.description)")
    }

    @Test("a judge whose answer echoes the key gives a verdict and a recorded call without it")
    func judgeEcho() async throws {
        let verdict = #"{"reason": "the request carried Bearer \#(key)", "score": 1, "pass": true}"#
        let server = FakeOpenAIServer(replies: [.init(steps: [.content(verdict)])])
        try server.start()
        defer { server.stop() }
        let judge = OpenAIBackend(name: "judge", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"),
                                  apiKey: key, concurrency: 1, transport: transport)
        let grader = Grader(models: ["judge": judge])
        let result = await grader.grade(Assertion(.judge(ModelGrader(backend: "judge"), rubric: "polite", minScore: nil)),
                                        GradingInput(output: "hello", latencyMs: 1, ttftMs: 1, usage: Usage(), prompt: "hi"))
        let recorded = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        #expect(result.passed, "\(recorded)")
        #expect(!recorded.contains(key) && recorded.contains(SecretRedactor.mark), "\(recorded)")
    }

    @Test("the redactor finds the key in each provider's credential header, alone and after Bearer")
    func secretsOfARequest() {
        let url = URL(string: "http://127.0.0.1:9")!
        let bearer = SecretRedactor(HTTPStreamRequest(url: url, headers: ["Authorization": "Bearer \(key)", "Accept": "text/event-stream"]))
        #expect(Set(bearer.secrets) == ["Bearer \(key)", key])
        #expect(bearer.redact("got \(key), expected another") == "got [redacted], expected another")
        #expect(SecretRedactor(HTTPStreamRequest(url: url, headers: ["x-api-key": key])).secrets == [key])
        #expect(SecretRedactor(HTTPStreamRequest(url: url, headers: ["x-goog-api-key": key])).secrets == [key])
        #expect(SecretRedactor(HTTPStreamRequest(url: url, headers: ["x-trace": "t1"])).secrets.isEmpty,
                "an ordinary header is not a secret")
    }
}
