import Foundation
import Testing
@testable import EvalBench

/// Tool calling on the real local model. Gemma 3 270M's template has no tool format
/// (`/props`: `supports_tool_calls` false), so the llama-server kind uses evalbench's JSON
/// format, which llama.cpp's grammar enforces: every call parses, whichever tool the tiny
/// model picks.
@Suite("Tool calling on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct ToolsLocalModelIntegrationTests {
    @Test("evals/tools.json: the model makes real tool calls with parsed arguments, the canned results go back, and the weather answer uses its result")
    func realToolCalls() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("tools-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/tools.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path)
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        #expect(outcome.results.count == 3)
        for result in outcome.results {
            #expect(result.status != .error, "\(result.caseID): \(result.errorMessage ?? "")")
            let calls = try #require(result.toolCalls, "\(result.caseID): no tool record")
            #expect(!calls.isEmpty, "\(result.caseID): the model called no tool: \(result.output ?? "")")
            for call in calls {
                #expect(call.arguments != nil, "\(result.caseID): \(call.name)'s arguments did not parse: \(call.argumentsText ?? "")")
                #expect(call.result != nil, "\(result.caseID): \(call.name) got no result back")
            }
            let rounds = try #require(result.rounds)
            #expect(rounds.count == (result.toolRoundCount ?? 0) + 1, "\(result.caseID): the last request answers without a call")
            #expect(rounds.allSatisfy { $0.usage.inputTokens != nil }, "\(result.caseID): every round reports its usage")
            if rounds.allSatisfy({ $0.usage.inputTokens != nil }) {
                #expect(result.usage.inputTokens == rounds.compactMap(\.usage.inputTokens).reduce(0, +))
            }
        }
        let weather = try #require(outcome.results.first { $0.caseID == "weather" })
        #expect(weather.toolCalls?.first?.name == "get_weather")
        #expect(weather.toolCalls?.first?.arguments == .object(["city": .string("Tokyo")]))
        #expect(weather.toolCalls?.first?.matched == true)
        #expect(weather.output?.contains("12") == true, "the answer uses the tool's 12 °C: \(weather.output ?? "")")
    }
}
