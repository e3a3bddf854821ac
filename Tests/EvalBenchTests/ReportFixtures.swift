import Foundation
@testable import EvalBench

/// Builds a `RequestResult` for report tests with only the fields a test cares about.
func fixtureResult(
    suite: String = "geo", caseID: String, turn: Int = 1, turns: Int = 1, variant: String = "default",
    backend: String = "local", model: String? = "gemma-3-270m", reasoning: ReasoningLevel = .none,
    repeatIndex: Int = 1, status: RequestResult.Status, errorKind: ErrorKind? = nil,
    errorMessage: String? = nil, latencyMs: Double? = nil, ttftMs: Double? = nil,
    usage: Usage = Usage(), failedAssertion: String? = nil, costUSD: Double? = nil
) -> RequestResult {
    let key = "\(suite)/\(caseID)/\(variant)/\(backend)/\(reasoning.rawValue)/\(repeatIndex)"
    let timing = latencyMs.map {
        RequestTiming(startedAt: Date(timeIntervalSince1970: 0), firstTokenMs: ttftMs, firstAnswerTokenMs: ttftMs, endMs: $0)
    }
    let assertions = failedAssertion.map { [AssertionResult(type: "contains", name: $0, passed: false, message: "no")] } ?? []
    return RequestResult(
        key: key, suite: suite, caseID: caseID, turn: turn, turns: turns, variant: variant, backend: backend,
        model: model, reasoning: reasoning, repeatIndex: repeatIndex, tags: [], status: status,
        errorKind: errorKind, errorMessage: errorMessage, instructions: nil, prompt: "Q", timing: timing,
        usage: usage, assertions: assertions, costUSD: costUSD)
}
