import Foundation
import Testing
@testable import EvalBench

private let start = Date(timeIntervalSince1970: 1_767_225_600)

private func graded(_ caseID: String, backend: String = "local", turn: Int = 1, turns: Int = 1, threshold: Double? = nil,
                    _ assertions: [AssertionResult]) -> RequestResult {
    var result = fixtureResult(caseID: caseID, turn: turn, turns: turns, backend: backend,
                               status: WeightedScore(assertions).passes(threshold: threshold) ? .pass : .fail)
    result.assertions = assertions
    result.threshold = threshold
    result.score = WeightedScore(assertions).value
    return result
}

private func verdict(_ name: String, _ passed: Bool, metric: Bool = true, weight: Double = 1,
                     message: String? = nil) -> AssertionResult {
    AssertionResult(type: "json", name: name, passed: passed, message: passed ? nil : (message ?? "expected x; got y"),
                    metric: metric ? name : nil, weight: weight)
}

private func markdown(_ results: [RequestResult]) -> String {
    let input = ReportInput(results: results, startedAt: start, endedAt: start + 1)
    return SummaryMarkdown.render(input, aggregate: RunAggregate(input.results))
}

@Suite("Scores, thresholds and named metrics in reports")
struct ScoringReportTests {
    @Test("With a threshold a multi-turn case passes on its score over every turn, though a turn fell short")
    func thresholdAcrossTurns() {
        let turn1 = graded("chat", turn: 1, turns: 2, threshold: 0.6, [verdict("a", false), verdict("b", true)])
        let turn2 = graded("chat", turn: 2, turns: 2, threshold: 0.6, [verdict("c", true, weight: 2)])
        #expect(turn1.status == .fail, "turn 1 alone scores 0.5")
        var caseRun = CaseRun(first: turn1)
        caseRun.add(turn2)
        #expect(caseRun.score == 0.75)
        #expect(caseRun.status == .pass)
        let strict = CaseRun(first: graded("chat", turn: 1, turns: 2, threshold: 0.6, [verdict("a", true)]))
        #expect(strict.status == .fail, "a missing turn never passes")
    }

    @Test("Without a threshold a case passes only when every assertion passes")
    func noThreshold() {
        let caseRun = CaseRun(first: graded("a", [verdict("x", true, weight: 9), verdict("y", false)]))
        #expect(caseRun.status == .fail)
        #expect(caseRun.score == 0.9)
    }

    @Test("summary.md has a Named metrics section: each name's pass rate per backend × reasoning × variant")
    func namedMetricsMarkdown() {
        let results = [
            graded("a", [verdict("valid-json", true), verdict("is-cat", false), verdict("unnamed", false, metric: false)]),
            graded("b", [verdict("valid-json", true), verdict("is-cat", true)]),
            graded("c", [verdict("valid-json", false)]),
            graded("a", backend: "cloud", [verdict("valid-json", true)]),
        ]
        let text = markdown(results)
        #expect(text.contains("## Named metrics"))
        #expect(text.contains("| Metric | local · none · default | cloud · none · default |"))
        #expect(text.contains("| valid-json | 66.7% (2/3) | 100.0% (1/1) |"))
        #expect(text.contains("| is-cat | 50.0% (1/2) | — |"))
        #expect(!text.contains("| unnamed | 0.0% (0/1)"), "only named assertions are metrics")
        #expect(!markdown([graded("a", [verdict("x", true, metric: false)])]).contains("## Named metrics"))
    }

    @Test("metrics.csv has one row per group and named assertion")
    func metricsCSV() {
        let results = [
            graded("a", [verdict("valid-json", true), verdict("is-cat", false)]),
            graded("b", [verdict("valid-json", false)]),
        ]
        let csv = MetricsCSV.render(RunAggregate(results).groups)
        #expect(csv == """
            backend,model,reasoning,variant,metric,passed,total,rate\r
            local,gemma-3-270m,none,default,valid-json,1,2,0.5000\r
            local,gemma-3-270m,none,default,is-cat,0,1,0.0000\r

            """)
    }

    @Test("The Failures section shows each failed assertion's turn and explanation")
    func failuresSection() {
        let results = [
            graded("a", turn: 2, turns: 2, [verdict("is-cat", false, message: #"at /label: expected "cat"; got "dog""#)]),
            graded("a", turn: 1, turns: 2, [verdict("valid-json", true)]),
            graded("b", [verdict("fine", true)]),
        ]
        let text = markdown(results)
        #expect(text.contains("## Failures"))
        #expect(text.contains(#"| geo/a | local · none · default | 1 | 2/2 | is-cat | at /label: expected "cat"; got "dog" |"#))
        #expect(!text.contains("| geo/b | local · none · default | 1 |"))
        #expect(!markdown([graded("b", [verdict("fine", true)])]).contains("## Failures"))
    }

    @Test("The case matrix shows the score against the threshold for a case that fell short")
    func matrixScore() {
        let text = markdown([graded("a", threshold: 0.75, [verdict("x", true), verdict("y", false)])])
        #expect(text.contains("| geo/a | fail: score 0.50 < 0.75 |"))
    }

    @Test("Scores and thresholds survive results.jsonl")
    func codable() throws {
        var result = graded("a", threshold: 0.5, [verdict("x", true, weight: 2)])
        result.caseScore = 1
        let line = try JSONEncoder().encode(result)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains("\"case_score\":1"))
        #expect(text.contains("\"threshold\":0.5"))
        #expect(try JSONDecoder().decode(RequestResult.self, from: line) == result)
    }
}
