import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// One recorded response from a provider SDK's own test fixtures, as `manifest.json` in
/// Resources/ProviderFixtures describes it: where it came from, how it is served, and what
/// evalbench must make of it (derived from the provider's documented stream semantics by
/// scripts/harvest-provider-fixtures.py, not from evalbench's code).
struct ProviderFixture: Decodable, Sendable, CustomTestStringConvertible {
    var file: String
    var provider: String
    var repository: String
    var path: String
    var commit: String
    var interaction: Int?
    var status: Int
    var contentType: String
    var exercises: String
    var expected: Expected

    struct Expected: Decodable, Sendable {
        /// `success` or `failure`.
        var outcome: String
        var errorKind: String?
        var finishReason: String?
        var model: String?
        var text: String?
        var reasoning: String?
        var usage: ExpectedUsage?
    }

    /// The figures the stream reported; a figure left out is one the stream did not report.
    struct ExpectedUsage: Decodable, Sendable {
        var input: Int?
        var cached: Int?
        var cacheWrite: Int?
        var output: Int?
        var reasoning: Int?
    }

    var testDescription: String { file }

    static let directory = Bundle.module.url(forResource: "ProviderFixtures", withExtension: nil)

    /// Every fixture of the manifest; empty (and the count test fails) when it cannot be read.
    static let all: [ProviderFixture] = {
        struct Manifest: Decodable { var fixtures: [ProviderFixture] }
        guard let directory, let data = try? Data(contentsOf: directory.appendingPathComponent("manifest.json")),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else { return [] }
        return manifest.fixtures
    }()

    func body() throws -> Data {
        let directory = try #require(Self.directory)
        return try Data(contentsOf: directory.appendingPathComponent(file))
    }
}

/// Serves `fixture`'s body byte for byte, with its recorded status and content type, to every request.
private func server(for fixture: ProviderFixture) throws -> FakeHTTPServer {
    let body = try fixture.body()
    let headers = ["Content-Type": fixture.contentType]
    let status = fixture.status
    let server = FakeHTTPServer { _ in
        (200..<300).contains(status) ? .stream(status: status, headers: headers, pieces: [.init(body)])
            : .full(status: status, headers: headers, body: body)
    }
    try server.start()
    return server
}

/// The provider's backend pointed at `server`, over `transport`.
private func backend(for fixture: ProviderFixture, at server: FakeHTTPServer, transport: any HTTPStreaming) -> any Backend {
    switch fixture.provider {
    case "anthropic":
        return AnthropicBackend(name: "claude", model: "claude-test", baseURL: server.baseURL, apiKey: "sk-ant-test",
                                concurrency: 1, transport: transport)
    case "gemini":
        return GeminiBackend(name: "gemini", model: "gemini-test", baseURL: server.baseURL, apiKey: "gemini-test-key",
                             concurrency: 1, transport: transport)
    default:
        return OpenAIBackend(name: "gpt", model: "gpt-test", baseURL: server.baseURL.appendingPathComponent("v1"),
                             apiKey: "sk-test", concurrency: 1, transport: transport)
    }
}

private func respond(to fixture: ProviderFixture, over transport: any HTTPStreaming) async throws -> Result<ModelResponse, BackendFailure> {
    let server = try server(for: fixture)
    defer { server.stop() }
    let conversation = await backend(for: fixture, at: server, transport: transport).startConversation()
    let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "Hello")],
                               options: GenerationOptions(), timeoutSeconds: 20)
    return await conversation.respond(to: request)
}

/// Checks `result` against what the fixture's provider documents for it.
private func check(_ result: Result<ModelResponse, BackendFailure>, against fixture: ProviderFixture) {
    let expected = fixture.expected
    switch result {
    case let .success(response):
        #expect(expected.outcome == "success", "\(fixture.file): expected \(expected.errorKind ?? "?"), got an answer")
        #expect(response.text == expected.text ?? "")
        #expect(response.reasoningText == expected.reasoning)
        #expect(response.finishReason == expected.finishReason)
        #expect(response.model == expected.model)
        let usage = expected.usage
        #expect(response.usage.inputTokens == usage?.input)
        #expect(response.usage.cachedInputTokens == usage?.cached)
        #expect(response.usage.cacheWriteInputTokens == usage?.cacheWrite)
        #expect(response.usage.outputTokens == usage?.output)
        #expect(response.usage.reasoningTokens == usage?.reasoning)
        #expect(response.usage.source == (usage.map { _ in TokenSource.reported }))
    case let .failure(failure):
        #expect(expected.outcome == "failure", "\(fixture.file): expected an answer, got \(failure)")
        #expect(failure.kind.rawValue == expected.errorKind, "\(failure)")
        #expect(failure.httpStatus == fixture.status)
    }
}

/// One case run through the runner against `fixture`'s body, as `evalbench run` would record it.
private func runResult(_ fixture: ProviderFixture, pricing: Pricing? = nil) async throws -> RequestResult {
    let server = try server(for: fixture)
    defer { server.stop() }
    let made = backend(for: fixture, at: server, transport: DefaultStreamTransport())
    let out = PackagePaths.temporaryDirectory("provider-fixture")
    defer { try? FileManager.default.removeItem(at: out) }
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: [made.name: made], store: store, concurrency: 1, timeoutSeconds: 20,
                        retryPolicy: RetryPolicy(maxRetries: 0, baseDelaySeconds: 0.01, maxDelaySeconds: 0.05),
                        pricing: pricing.map { [made.name: $0] } ?? [:])
    let suite = Suite(name: "s", file: "s.json", cases: [EvalCase(id: "a", turns: [Turn(prompt: "Hello")])])
    await runner.run(Planner.plan([suite], PlanSelection(backends: [made.name], reasoning: [.none])),
                     availability: [made.name: .available])
    try store.close()
    return try #require(store.all().first)
}

extension LoopbackNetworkTests {
    @Suite("Provider SDK fixtures served verbatim over a socket")
    struct ProviderFixtureConformanceTests {
        @Test("the conformance set has at least 50 recorded responses, at least 12 per provider, each with its source and commit")
        func manifestIsComplete() throws {
            let fixtures = ProviderFixture.all
            #expect(fixtures.count >= 50)
            for provider in ["anthropic", "openai", "gemini"] {
                #expect(fixtures.filter { $0.provider == provider }.count >= 12, "\(provider)")
            }
            for fixture in fixtures {
                #expect(fixture.commit.count == 40 && fixture.repository.contains("/") && !fixture.path.isEmpty)
                #expect(!fixture.exercises.isEmpty)
                _ = try fixture.body()
            }
        }

        @Test("each recorded response gives the documented text, usage, finish reason, status and error kind (socket transport)",
              arguments: ProviderFixture.all)
        func overSockets(_ fixture: ProviderFixture) async throws {
            check(try await respond(to: fixture, over: SocketStreamTransport()), against: fixture)
        }

        @Test("through the runner, a recorded answer of each provider reaches results with its text and every reported figure",
              arguments: ProviderFixture.all.filter {
                  ["anthropic/python-stream-b-fallback.sse", "openai/a491adda08c3d4fd.sse",
                   "gemini/Client_Tests_server_side_MCP_server_ML_Dev_should_call_server_side_MCP_server,_stream-0.sse"].contains($0.file)
              })
        func throughTheRunner(_ fixture: ProviderFixture) async throws {
            let result = try await runResult(fixture)
            let usage = fixture.expected.usage
            #expect(result.status == .pass, "\(result.errorMessage ?? "")")
            #expect(result.output == fixture.expected.text)
            #expect(result.usage.inputTokens == usage?.input)
            #expect(result.usage.outputTokens == usage?.output)
            #expect(result.usage.reasoningTokens == usage?.reasoning)
        }

        @Test("through the runner, a truncated stream and a refusal are errors of their kind, not passes with an empty answer",
              arguments: ProviderFixture.all.filter {
                  ["anthropic/python-refusal_response.sse",
                   "gemini/Client_Tests_generateContentStream_ML_Dev_should_return_the_headers_in_the_sdkHttpResponse_for_each_chunk-0.sse"]
                      .contains($0.file)
              })
        func errorsThroughTheRunner(_ fixture: ProviderFixture) async throws {
            let result = try await runResult(fixture)
            #expect(result.status == .error)
            #expect(result.errorKind?.rawValue == fixture.expected.errorKind)
        }

        @Test("a refused request keeps the usage its stream reported, and its cost: refusals are billed",
              arguments: ProviderFixture.all.filter { $0.expected.errorKind == "refusal" && $0.expected.usage?.input != nil })
        func refusalsKeepTheirUsage(_ fixture: ProviderFixture) async throws {
            let pricing = Pricing(inputPerMTok: 1_000_000, outputPerMTok: 2_000_000)
            let result = try await runResult(fixture, pricing: pricing)
            #expect(result.status == .error && result.errorKind == .refusal)
            let usage = try #require(fixture.expected.usage)
            #expect(result.usage.inputTokens == usage.input)
            #expect(result.usage.outputTokens == usage.output)
            let expectedCost = Double(usage.input ?? 0) + 2 * Double(usage.output ?? 0)
            #expect(result.costUSD.map { abs($0 - expectedCost) < 1e-6 } == true, "\(String(describing: result.costUSD)) ≠ \(expectedCost)")
        }

        @Test("the same through URLSession, for one response of each provider and outcome",
              arguments: ProviderFixture.all.filter {
                  ["anthropic/python-basic_response.sse", "anthropic/python-stream-a-refusal.sse",
                   "anthropic/python-snapshot-d743d628-0.json", "openai/a491adda08c3d4fd.sse", "openai/173417d553406f03.sse",
                   "gemini/Chats_Tests_sendMessage_Google_AI_with_text_stream-0.sse",
                   "gemini/Chats_Tests_sendMessage_Send_message_stream_with_error-0.json"].contains($0.file)
              })
        func overURLSession(_ fixture: ProviderFixture) async throws {
            check(try await respond(to: fixture, over: URLSessionStreamTransport()), against: fixture)
        }
    }
}
