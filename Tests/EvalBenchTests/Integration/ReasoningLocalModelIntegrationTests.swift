import Foundation
import Testing
@testable import EvalBench

/// Reasoning levels on the real local model: Gemma 3 270M's chat template takes no
/// `reasoning_effort`, so llama-server would ignore the field; evalbench reads that from
/// `/props` and skips levels the config does not map itself.
@Suite("Reasoning levels on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct ReasoningLocalModelIntegrationTests {
    @Test("unmapped levels are skipped with the /props reason; a level mapped through extraBody reaches the real server")
    func levels() async throws {
        let root = PackagePaths.root
        let directory = PackagePaths.temporaryDirectory("local-reasoning")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("evalbench.json").path
        // `deep` is mapped by the config: llama.cpp's own `n_predict` caps generation at one
        // token, so the server honouring the level's extraBody is visible in output_tokens.
        try Data("""
        { "backends": [ { "name": "local", "kind": "llama-server", "model": "gemma-3-270m",
            "modelPath": "~/.cache/evalbench/models/gemma-3-270m-q4_k_m.gguf", "contextSize": 2048,
            "chatTemplateFile": "\(root.appendingPathComponent("evals/qa-chat-template.jinja").path)", "concurrency": 1,
            "reasoning": { "deep": { "extraBody": { "n_predict": 1, "max_tokens": null } } } } ] }
        """.utf8).write(to: URL(fileURLWithPath: configPath))
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/quickstart.json").path],
                                 configPath: configPath, reasoning: [.none, .light, .deep],
                                 outputDirectory: directory.appendingPathComponent("out").path,
                                 caseIDs: ["capital-france"])
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        let byLevel = Dictionary(uniqueKeysWithValues: outcome.results.map { ($0.reasoning, $0) })

        let none = try #require(byLevel[.none])
        #expect(none.status == .pass, "\(none.output ?? "nil") \(none.errorMessage ?? "")")
        #expect((none.usage.outputTokens ?? 0) >= 2, "Paris and the stop: more than one token")

        let light = try #require(byLevel[.light])
        #expect(light.status == .skipped)
        #expect(light.skipReason?.contains("supports_reasoning_effort is false") == true, "\(light.skipReason ?? "nil")")

        let deep = try #require(byLevel[.deep])
        #expect(deep.status != .error, "\(deep.errorMessage ?? "")")
        #expect(deep.usage.outputTokens == 1, "the level's extraBody (n_predict: 1) reached llama-server")
        #expect(deep.finishReason == "length")

        let summary = try String(contentsOfFile: directory.appendingPathComponent("out/summary.md").path, encoding: .utf8)
        #expect(summary.contains(#"| local · default | deep | reasoning_effort: "high", {"max_tokens":null,"n_predict":1} |"#))
    }
}
