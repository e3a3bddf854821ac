import Foundation
import Testing
@testable import EvalBench

/// One llama-server (Gemma 3 270M, the quickstart's config) spoken to through both of its
/// APIs: an `openai` backend on `/v1/chat/completions` and an `anthropic` backend on
/// `/v1/messages`. `scripts/test` installs the server and the model.
@Suite("Anthropic Messages API on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct AnthropicLocalModelIntegrationTests {
    @Test("the quickstart's requests count the same input tokens through openai and anthropic; anthropic's later turns read the cache")
    func sameInputThroughBothAPIs() async throws {
        let root = PackagePaths.root
        let config = try ConfigLoader.load(path: root.appendingPathComponent("evalbench.json").path)
        let local = try #require(config.backend(named: "local"))
        let logs = PackagePaths.temporaryDirectory("anthropic-local")
        defer { try? FileManager.default.removeItem(at: logs) }
        let transport = URLSessionStreamTransport()
        let server = try local.makeBackend(context: BackendContext(
            environment: ProcessInfo.processInfo.environment, transport: transport,
            logDirectory: logs, defaultConcurrency: 1))
        let availability = await server.prepare()
        do {
            try #require(availability == .available, "llama-server did not start: \(availability)")
            let serverURL = try #require((server as? LlamaServerBackend)?.serverURL)
            try await compare(serverURL: serverURL, model: local.model ?? "gemma-3-270m", transport: transport)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private func compare(serverURL: URL, model: String, transport: URLSessionStreamTransport) async throws {
        let suite = try SuiteLoader.load(path: PackagePaths.root.appendingPathComponent("evals/quickstart.json").path)
        // llama-server answers `Keep-Alive` but closes the connection after every streamed
        // response; on Linux a request URLSession then sends on that connection can stall
        // until its 60 s idle timeout (seen on both APIs, about 1 request in 20). Closing
        // after each response avoids the race and changes no token count.
        let headers = ["Connection": "close"]
        let openAI = OpenAIBackend(name: "openai", model: model, baseURL: serverURL.appendingPathComponent("v1"),
                                   apiKey: nil, headers: headers, concurrency: 1, transport: transport)
        let anthropic = AnthropicBackend(name: "anthropic", model: model, baseURL: serverURL, apiKey: nil,
                                         headers: headers, concurrency: 1, transport: transport)
        // One kind after the other, one request at a time: each sees the same server state.
        let viaOpenAI = try await run(suite, on: openAI)
        let viaAnthropic = try await run(suite, on: anthropic)
        #expect(viaOpenAI.count == viaAnthropic.count)
        #expect(viaAnthropic.allSatisfy { $0.status != .error }, "errors: \(viaAnthropic.compactMap(\.errorMessage))")

        var lines = ["case turn openai_input anthropic_input anthropic_cached anthropic_cache_write"]
        for (chat, message) in zip(viaOpenAI, viaAnthropic) {
            try #require(chat.caseID == message.caseID && chat.turn == message.turn)
            let label = "\(chat.caseID) turn \(chat.turn)"
            lines.append("\(chat.caseID) \(chat.turn) \(chat.usage.inputTokens.map(String.init) ?? "nil") "
                + "\(message.usage.inputTokens.map(String.init) ?? "nil") \(message.usage.cachedInputTokens.map(String.init) ?? "nil") "
                + "\(message.usage.cacheWriteInputTokens.map(String.init) ?? "nil")")
            #expect(chat.output == message.output, "\(label): temperature 0 gives the same answer through both APIs")
            let chatInput = try #require(chat.usage.inputTokens, "\(label): openai reported no input tokens")
            let messageInput = try #require(message.usage.inputTokens, "\(label): anthropic reported no input tokens")
            #expect(chatInput > 20, "\(label): the instructions alone are longer")
            #expect(messageInput == chatInput, "\(label): the same request must count the same input tokens")
            #expect(message.usage.source == .reported)
            #expect((message.usage.outputTokens ?? 0) >= 1, "\(label)")
            #expect(message.finishReason == "end_turn" || message.finishReason == "max_tokens", "\(label): \(message.finishReason ?? "nil")")
            let timing = try #require(message.timing)
            let ttft = try #require(timing.ttftMs)
            #expect(ttft > 0 && ttft <= (timing.latencyMs ?? 0))
            if message.turn > 1 {
                let cached = try #require(message.usage.cachedInputTokens, "\(label): no cache figure")
                #expect(cached > 0, "\(label): a later turn reads the earlier turns from the cache")
                #expect((message.usage.cacheHitRatio ?? 0) > 0.5, "\(label): \(String(describing: message.usage.cacheHitRatio))")
            }
        }
        #expect(viaAnthropic.filter { $0.turn > 1 }.count == 4, "the quickstart's two 3-turn conversations")
        print(lines.joined(separator: "\n"))
    }

    /// Every quickstart case at level `none` on one backend, in a fresh result store.
    private func run(_ suite: Suite, on backend: any Backend) async throws -> [RequestResult] {
        let out = PackagePaths.temporaryDirectory("anthropic-local-\(backend.name)")
        defer { try? FileManager.default.removeItem(at: out) }
        let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
        let runner = Runner(backends: [backend.name: backend], store: store, concurrency: 1, timeoutSeconds: 120,
                            retryPolicy: RetryPolicy(maxRetries: 0))
        await runner.run(Planner.plan([suite], PlanSelection(backends: [backend.name])),
                         availability: [backend.name: .available])
        try store.close()
        return store.all().sorted { ($0.caseID, $0.turn) < ($1.caseID, $1.turn) }
    }
}
