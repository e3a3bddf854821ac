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

@Suite("Tool set cost and cache on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct ToolCostLocalModelIntegrationTests {
    @Test("evals/tools-switch.json: turn 2 switches the tool set, the prefix analysis says tools changed, and the measured cache drops below turn 1's prompt")
    func toolSwitchBreaksTheCache() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("tools-switch-local")
        defer { try? FileManager.default.removeItem(at: out) }
        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/tools-switch.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        let turns = outcome.results.sorted { $0.turn < $1.turn }
        try #require(turns.count == 2 && turns.allSatisfy { $0.status != .error }, "\(turns.compactMap(\.errorMessage))")
        let second = turns[1]
        let prefix = try #require(second.prefix)
        #expect(prefix.brokenSegment == "tools", "\(prefix)")
        // The cache can serve at most the shared instructions: less than turn 1's first request.
        let firstPrompt = try #require(turns[0].rounds?.first?.usage.inputTokens)
        let cached = try #require(second.rounds?.first?.usage.cachedInputTokens, "llama-server reports cached tokens")
        #expect(cached < firstPrompt, "turn 2 cached \(cached) of turn 1's \(firstPrompt)-token prompt")
        // Counted by the server's tokenizer, beside the estimate; turn 2's set is the larger.
        let counted = try #require(second.toolDefinitionTokensCounted)
        #expect(second.toolDefinitionTokensMethod?.contains("/tokenize") == true)
        let firstCounted = try #require(turns[0].toolDefinitionTokensCounted)
        #expect(counted > firstCounted, "three tools \(counted) vs one \(firstCounted)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("tools changed at character"))
        #expect(summary.contains("counted by llama-server /tokenize"))
    }
}
