import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

extension LoopbackNetworkTests {
    /// The same request, answered by each provider in its own wire format: 1,000 input tokens
    /// of which 900 came from the cache, 20 output tokens of which 12 were reasoning.
    @Test("one suite on openai, anthropic and gemini kinds at two levels: every kind's 900-of-1,000 cache read is a 0.9 ratio, and the figures obey DESIGN.md")
    func sameSuiteEveryKind() async throws {
        let openAI = FakeOpenAIServer { _ in
            FakeOpenAIServer.Script(steps: [.reasoning("hm", afterMs: 5), .content("Paris", afterMs: 5)],
                                    usage: .init(promptTokens: 1000, completionTokens: 20, cachedTokens: 900, reasoningTokens: 12))
        }
        // Anthropic's input_tokens leaves out the cache: 100 + 900 read = 1,000.
        let anthropic = FakeAnthropicServer { _ in
            FakeAnthropicServer.Script(steps: [.thinking("hm", afterMs: 5), .text("Paris", afterMs: 5)],
                                       usage: .init(inputTokens: 100, cacheCreationInputTokens: 0, cacheReadInputTokens: 900, outputTokens: 20))
        }
        // Gemini's promptTokenCount includes the cache; output is candidates + thoughts.
        let gemini = FakeGeminiServer { _ in
            FakeGeminiServer.Script(steps: [.thought("hm", afterMs: 5), .text("Paris", afterMs: 5)],
                                    usage: .init(promptTokenCount: 1000, cachedContentTokenCount: 900,
                                                 candidatesTokenCount: 8, thoughtsTokenCount: 12))
        }
        try openAI.start()
        try anthropic.start()
        try gemini.start()
        defer {
            openAI.stop()
            anthropic.stop()
            gemini.stop()
        }
        let fixture = try RunFixture("cross-kind", suiteFile: "suite.json",
                                     suite: """
        { "format": "evalbench.suite/1", "suite": "kinds", "reasoning": ["none", "deep"],
          "instructions": "Answer with one word.",
          "cases": [ { "id": "capital", "prompt": "Capital of France?", "expect": [ { "type": "equals", "value": "Paris" } ] } ] }
        """,
                                     config: """
        { "backends": [
            { "name": "oai", "kind": "openai", "model": "m", "baseURL": "\(openAI.baseURL.absoluteString)/v1" },
            { "name": "claude", "kind": "anthropic", "model": "claude-x", "baseURL": "\(anthropic.baseURL.absoluteString)",
              "apiKeyEnv": "EVALBENCH_TEST_ANTHROPIC_KEY" },
            { "name": "gem", "kind": "gemini", "model": "gemini-x", "baseURL": "\(gemini.baseURL.absoluteString)",
              "apiKeyEnv": "EVALBENCH_TEST_GEMINI_KEY" } ] }
        """)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out")
        let request = RunRequest(suitePaths: [fixture.suitePath], configPath: fixture.configPath, outputDirectory: out.path,
                                 environment: ["EVALBENCH_TEST_ANTHROPIC_KEY": "sk-ant-secret-0000",
                                               "EVALBENCH_TEST_GEMINI_KEY": "AIza-secret-0000"])
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())

        #expect(outcome.results.count == 6, "3 backends × 2 levels")
        for result in outcome.results {
            let label = "\(result.backend)/\(result.reasoning.rawValue)"
            #expect(result.status == .pass, "\(label): \(result.errorMessage ?? result.output ?? "")")
            #expect(result.usage.inputTokens == 1000, "\(label)")
            #expect(result.usage.cachedInputTokens == 900, "\(label)")
            #expect(result.usage.cacheHitRatio == 0.9, "\(label)")
            #expect(result.usage.outputTokens == 20, "\(label)")
            // Anthropic reports no separate thinking count: null, never a guess.
            #expect(result.usage.reasoningTokens == (result.backend == "claude" ? nil : 12), "\(label)")
            let timing = try #require(result.timing)
            let ttft = try #require(timing.ttftMs)
            let ttfa = try #require(timing.ttfaMs)
            #expect(ttft < ttfa, "\(label): reasoning streams first, so the first token precedes the first answer token")
        }
        #expect(openAI.requests.map { $0.reasoningEffort ?? "omitted" }.sorted() == ["high", "omitted"])
        #expect(Set(anthropic.requests.map { ($0.body["thinking"] as? [String: Any])?["type"] as? String ?? "?" }) == ["disabled", "adaptive"])
        #expect(Set(gemini.requests.map { $0.thinkingConfig["thinkingLevel"] as? String ?? "budget \($0.thinkingConfig["thinkingBudget"] ?? "?")" })
                == ["budget 0", "HIGH"])

        let summary = try String(contentsOf: out.appendingPathComponent("summary.csv"), encoding: .utf8)
        let rows = summary.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == 6, "one row per backend × level")
        let header = summary.split(whereSeparator: \.isNewline).first!.split(separator: ",")
        let ratioColumn = try #require(header.firstIndex(of: "cache_hit_ratio"))
        #expect(rows.allSatisfy { $0[ratioColumn] == "0.9000" }, "\(rows.map { $0[ratioColumn] })")
        for file in ["results.jsonl", "results.csv", "summary.md", "run.json"] {
            let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("sk-ant-secret-0000") && !text.contains("AIza-secret-0000"), "\(file) holds no key")
        }
    }
}
