import Foundation
import Testing
@testable import EvalBench

/// Reports list case runs and groups in plan order, not in the order requests finished, so
/// two runs of the same suite give files that diff cleanly (issue 16, item 7).
@Suite("Stable order and no phantom groups")
struct StableOrderTests {
    private func planned(_ backends: [String], levels: [ReasoningLevel]) -> RunPlan {
        let suite = Suite(name: "geo", file: "geo.json", cases: ["a", "b", "c"].map {
            EvalCase(id: $0, prompt: "p", expect: [])
        })
        return Planner.plan([suite], PlanSelection(backends: backends, reasoning: levels))
    }

    private func results(of plan: RunPlan) -> [RequestResult] {
        plan.caseRuns.map { caseRun in
            var result = RequestResult(planned: caseRun, turn: 0, model: "m")
            result.status = caseRun.evalCase.id == "b" ? .fail : .pass
            return result
        }
    }

    @Test("levels are planned none < light < moderate < deep whatever order --reasoning names them")
    func levelOrder() {
        let plan = planned(["x"], levels: [.deep, .none, .light])
        #expect(plan.caseRuns.prefix(3).map(\.reasoning) == [.none, .light, .deep])
        #expect(plan.caseRuns.map(\.index) == Array(0..<plan.caseRuns.count))
    }

    @Test("results finished in any order give the same summary.csv, results.csv rows and case order")
    func completionOrderDoesNotMatter() {
        let plan = planned(["y", "x"], levels: [.none, .light])
        let inOrder = results(of: plan)
        var shuffler = SplitMix64(seed: 7)
        let shuffled = inOrder.shuffled(using: &shuffler)
        #expect(shuffled.map(\.key) != inOrder.map(\.key), "the shuffle changed the order")
        let expected = RunAggregate(inOrder)
        let actual = RunAggregate(shuffled)
        #expect(actual.groups.map(\.group.label) == ["y · none · default", "y · light · default", "x · none · default", "x · light · default"])
        #expect(actual.groups.map(\.group) == expected.groups.map(\.group))
        #expect(actual.caseRuns.map(\.key) == plan.caseRuns.map(\.key))
        #expect(SummaryCSV.render(actual.groups) == SummaryCSV.render(expected.groups))
    }

    @Test("a turn that switches reasoning level counts in its case run's group: no phantom group carrying tokens")
    func switchedTurnHasNoGroupOfItsOwn() throws {
        let caseRun = PlannedCaseRun(key: "geo/a/default/x/none/1", suite: "geo",
                                     evalCase: EvalCase(id: "a", turns: [Turn(prompt: "1"), Turn(prompt: "2")]),
                                     variant: "default", backend: "x", reasoning: .none, repeatIndex: 1)
        var first = RequestResult(planned: caseRun, turn: 0, model: "m")
        first.status = .pass
        first.usage = Usage(inputTokens: 10, outputTokens: 5)
        var second = RequestResult(planned: caseRun, turn: 1, model: "m")
        second.status = .pass
        second.reasoning = .deep
        second.usage = Usage(inputTokens: 30, outputTokens: 50)
        let aggregate = RunAggregate([first, second])
        #expect(aggregate.groups.map(\.group.label) == ["x · none · default"])
        let group = try #require(aggregate.groups.first)
        #expect(group.cases == 1 && group.passed == 1)
        #expect(group.usage.inputTokens == 40 && group.usage.outputTokens == 55)
    }
}
