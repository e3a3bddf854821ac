import Foundation
import Testing
@testable import EvalBench

/// evals/graders.json on the real local model: every assertion type runs, Gemma 3 270M judges
/// through the same llama-server, and a second llama-server started with `--embeddings`
/// serves the similarity check.
@Suite("Every assertion type on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct GradersLocalModelIntegrationTests {
    @Test("every type is graded, judge and embedding calls are recorded apart, and each failure is explained in the report")
    func everyAssertionType() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("graders-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/graders.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path)
        let loaded = try EvalRun.load(request)
        #expect(loaded.switchBackendNames == ["embedder"], "the similarity backend starts without being planned")
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        #expect(outcome.results.allSatisfy { $0.status != .error }, "\(outcome.results.compactMap(\.errorMessage))")
        let types = Set(outcome.results.flatMap { $0.assertions.map(\.type) })
        // The tool assertions need a suite with tools: evals/tools.json (ToolsLocalModelIntegrationTests) grades them.
        let expected = Set(Assertion.types.filter { !$0.hasPrefix("tool") && !$0.hasPrefix("maxTool") })
        #expect(types == expected, "missing: \(expected.subtracting(types).sorted())")

        let graded = try #require(outcome.results.first { $0.caseID == "capital-graded" })
        let judge = try #require(graded.assertions.first { $0.type == "judge" }?.judge)
        #expect(judge.error == nil, "\(judge.error ?? "")\n\(serverLogTail(in: out, backend: "local"))")
        #expect(judge.verdict != nil, "constrained decoding gives a parseable verdict even from a 270M model")
        #expect((judge.usage.inputTokens ?? 0) > 50 && judge.usage.source == .reported)
        #expect((graded.usage.inputTokens ?? 0) < (judge.usage.inputTokens ?? 0), "the judge's prompt is not counted in the answer's")
        let similar = try #require(graded.assertions.first { $0.type == "similar" })
        #expect(similar.passed, "\(similar.message ?? "")")
        #expect(similar.note?.hasPrefix("similarity ") == true)

        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Grading calls"))
        let failed = outcome.results.flatMap { result in result.assertions.filter { !$0.passed } }
        for assertion in failed {
            let message = try #require(assertion.message, "\(assertion.name) failed without an explanation")
            #expect(message.contains("expected ") && message.contains("; got "), "\(message)")
        }
        if !failed.isEmpty { #expect(summary.contains("## Failures")) }
    }
}
