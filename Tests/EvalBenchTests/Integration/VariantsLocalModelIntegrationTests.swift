import Foundation
import Testing
@testable import EvalBench

/// evals/variants.json on the real local model: two instruction variants side by side.
@Suite("Prompt variants on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct VariantsLocalModelIntegrationTests {
    @Test("each variant has its pass rate, its instruction tokens and the backend's input tokens; the short one costs fewer")
    func twoVariants() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("variants-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/variants.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path, outputDirectory: out.path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.results.count == 8)
        #expect(outcome.results.allSatisfy { $0.status != .error }, "\(outcome.results.compactMap(\.errorMessage))")
        func input(_ variant: String) -> Int {
            outcome.results.filter { $0.variant == variant }.compactMap(\.usage.inputTokens).reduce(0, +)
        }
        #expect(input("one-line") < input("few-shot") / 2, "one-line \(input("one-line")) vs few-shot \(input("few-shot")) reported input tokens")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Variants"))
        #expect(summary.contains("| local · none | few-shot |"))
        #expect(summary.contains("| local · none | one-line |"))
        #expect(summary.contains("No case changed its verdict between variants.") || summary.contains("Cases whose verdict differs between variants"))
    }
}
