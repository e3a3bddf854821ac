import Foundation
import Testing
@testable import EvalBench

/// Prompt-cache behaviour on the real local model (evals/cache.json): llama-server's KV cache
/// serves a steady conversation's prefix, and cannot serve one whose instructions start with a
/// value that changes every turn.
@Suite("Cache behaviour on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct CacheLocalModelIntegrationTests {
    @Test("steady instructions: later turns reach 0.8 × the ideal ratio; a changing prefix: near zero, and the instructions are named")
    func measuredAgainstIdeal() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("cache-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/cache.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.results.allSatisfy { $0.status != .error }, "\(outcome.results.compactMap(\.errorMessage))")
        for result in outcome.results where result.turn > 1 {
            let label = "\(result.caseID) turn \(result.turn)"
            let measured = try #require(result.usage.cacheHitRatio, "\(label): no cache figures")
            let prefix = try #require(result.prefix, "\(label): no prefix comparison")
            let ideal = try #require(prefix.idealRatio)
            if result.caseID == "steady" {
                #expect(prefix.brokenSegment == nil, "\(label)")
                #expect(ideal > 0.8, "\(label): the instructions dominate the prompt")
                #expect(measured >= 0.8 * ideal, "\(label): measured \(measured) vs ideal \(ideal)")
            } else {
                #expect(prefix.brokenSegment == "instructions", "\(label)")
                #expect(prefix.brokenAt == 8, "\(label): \"Request \" is shared")
                #expect(measured < 0.1, "\(label): measured \(measured)")
            }
        }
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| cache/changing-prefix/default/local/none/1 | 2 | 0.0% |"))
        #expect(summary.contains("instructions changed at character 8"))
    }
}
