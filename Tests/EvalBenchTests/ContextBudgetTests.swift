import Foundation
import Testing
@testable import EvalBench

@Suite("Context budgets in the plan")
struct ContextBudgetTests {
    @Test("each case's largest turn is split into instructions, schema, history, prompt and output; a conversation that outgrows the window is flagged at the turn it does")
    func budgets() async throws {
        let big = String(repeating: "word ", count: 800)  // 4,000 characters: 1,000 tokens estimated
        let conversation = EvalCase(id: "long-chat", instructions: String(repeating: "i", count: 400),
                                    options: GenerationOptions(maxOutputTokens: 100),
                                    turns: [Turn(prompt: big), Turn(prompt: big), Turn(prompt: "short")],
                                    output: StructuredOutput(schema: .object(["type": .string("object")])))
        let suite = Suite(name: "s", file: "s.json", cases: [conversation])
        let plan = Planner.plan([suite], PlanSelection(backends: ["small"]))
        let config = BackendConfig(name: "small", contextSize: 2048, options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1"))
        let backend = OpenAIBackend(name: "small", model: nil, baseURL: URL(string: "http://127.0.0.1:9/v1")!, apiKey: nil,
                                    concurrency: 1, transport: URLSessionStreamTransport())
        let report = try #require(await ContextFit.check(plan, backends: [("small", backend, config)]).first)
        #expect(report.source == .estimated)
        let budget = try #require(report.budgets.first)
        // Turn 3: instructions 100, schema {"type":"object"} 5 (17 characters), history 2,000 prompts + 200 answers,
        // prompt "short" 2, output 100.
        #expect(budget.turn == 3)
        #expect(budget.instructions == 100)
        #expect(budget.schema == TokenEstimate.tokens(in: #"{"type":"object"}"#))
        #expect(budget.history == 2000 + 200)
        #expect(budget.prompt == TokenEstimate.tokens(in: "short"))
        #expect(budget.output == 100)
        let overflow = try #require(report.overflows.first)
        // Turn 1 needs 100 + 5 + 1,000 + 100 < 2,048; turn 2 adds 1,000 + 100 more: the first turn over the window.
        #expect(overflow.turn == 2)
        #expect(overflow.totalTokens > 2048)
    }
}
