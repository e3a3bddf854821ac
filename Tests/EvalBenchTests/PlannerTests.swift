import Foundation
import Testing
@testable import EvalBench

private let suite = Suite(name: "s", file: "s.json", cases: [
    EvalCase(id: "a", tags: ["x"], turns: [Turn(prompt: "1")]),
    EvalCase(id: "b", tags: ["y"], turns: [Turn(prompt: "1"), Turn(prompt: "2")]),
], repeatCount: 2)

@Suite("Planning and gates")
struct PlannerTests {
    @Test("the matrix is cases × backends × levels × repeats with stable keys")
    func matrix() {
        let plan = Planner.plan([suite], PlanSelection(backends: ["p", "q"], reasoning: [.none, .light]))
        #expect(plan.caseRuns.count == 2 * 2 * 2 * 2)
        #expect(plan.caseRuns.first?.key == "s/a/default/p/none/1")
        #expect(plan.requestCount == (1 + 2) * 2 * 2 * 2)
        #expect(Set(plan.caseRuns.map(\.key)).count == plan.caseRuns.count)
    }

    @Test("a backend named twice on the command line or in defaults.backends runs once: no case run has a twin key")
    func backendNamedTwice() throws {
        var request = RunRequest(suitePaths: [], backends: ["a", "b", "a"], environment: [:])
        request.sources = [.suite(suite)]
        request.configValue = Config(file: nil, backends: [])
        request.providedBackends = [FixedAnswerBackend(name: "a"), FixedAnswerBackend(name: "b")]
        let loaded = try EvalRun.load(request)
        #expect(loaded.backendNames == ["a", "b"])
        #expect(loaded.plan.caseRuns.count == 2 * 2 * 2, "2 cases × 2 backends × 2 repeats")
        #expect(Set(loaded.plan.caseRuns.map(\.key)).count == loaded.plan.caseRuns.count)
        request.backends = []
        request.configValue = Config(file: nil, backends: [], defaults: RunDefaults(backends: ["b", "b"]))
        #expect(try EvalRun.load(request).backendNames == ["b"])
    }

    @Test("a planned run points into the plan's one array of cases, shared by every backend, level and repeat, and still acts as a value")
    func sharedCases() {
        let plan = Planner.plan([suite], PlanSelection(backends: ["x", "y"], reasoning: [.none, .light]))
        #expect(plan.caseRuns.count == 2 * 2 * 2 * 2)
        #expect(MemoryLayout<PlannedCaseRun>.size < MemoryLayout<EvalCase>.size,
                "\(MemoryLayout<PlannedCaseRun>.size) bytes a run against \(MemoryLayout<EvalCase>.size) for a case")
        #expect(plan.caseRuns.filter { $0.evalCase.id == "b" }.allSatisfy { $0.evalCase == suite.cases[1] })
        var changed = plan.caseRuns[0]
        changed.evalCase.turns.append(Turn(prompt: "more"))
        #expect(changed.evalCase.turns.count == 2 && plan.caseRuns[0].evalCase.turns.count == 1, "a change stays in its copy")
        #expect(changed != plan.caseRuns[0] && plan.caseRuns[0] == Planner.plan([suite], PlanSelection(backends: ["x", "y"], reasoning: [.none, .light])).caseRuns[0])
    }

    @Test("a plan holds a run in 32 bytes, what a case shares once; each run reads back as the planner made it")
    func compactPlan() {
        var variants = Suite(name: "v", file: "v.json", cases: suite.cases, repeatCount: 3)
        variants.variants = [PromptVariant(name: "plain"), PromptVariant(name: "terse", instructions: "Be brief.")]
        let plan = Planner.plan([suite, variants], PlanSelection(backends: ["p", "q"], reasoning: [.none, .deep]))
        #expect(PlannedCaseRuns.bytesPerRun <= 32)
        // One slot per case and variant: 2 cases, then 2 cases × 2 variants.
        #expect(plan.caseRuns.slotCount == 2 + 4)
        #expect(plan.caseRuns.count == 2 * 2 * 2 * 2 + 4 * 2 * 2 * 3)
        #expect(plan.caseRuns.map(\.index) == Array(plan.caseRuns.indices))
        #expect(plan.caseRuns[16].key == "v/a/plain/p/none/1" && plan.caseRuns[16].evalCase.instructions == nil)
        let terse = plan.caseRuns.first { $0.variant == "terse" }
        #expect(terse?.key == "v/a/terse/p/none/1" && terse?.evalCase.instructions == "Be brief.")
        #expect(plan.caseRuns.last?.key == "v/b/terse/q/deep/3")
        #expect(plan.caseRuns.map(\.backend) == plan.caseRuns.indices.map { plan.caseRuns.backend(at: $0) })
        #expect(plan.caseRuns.indices.allSatisfy { plan.caseRuns.keyed($0) == plan.caseRuns[$0] })
        // The same runs given as values make an equal plan.
        let asValues = RunPlan(caseRuns: Array(plan.caseRuns))
        #expect(asValues == plan)
        #expect(asValues.requestCount == plan.requestCount && plan.requestCount == (1 + 2) * 2 * 2 * 2 + (1 + 2) * 2 * 2 * 2 * 3)
    }

    @Test("runs given as values keep a key of their own and their plan index, through filtering too")
    func runsAsValues() {
        let plan = Planner.plan([suite], PlanSelection(backends: ["p"]))
        var renamed = plan.caseRuns[1]
        renamed.key = "kept as given"
        renamed.index = 41
        let given = RunPlan(caseRuns: [plan.caseRuns[0], renamed, plan.caseRuns[3]])
        #expect(given.caseRuns.map(\.key) == ["s/a/default/p/none/1", "kept as given", "s/b/default/p/none/2"])
        #expect(given.caseRuns.map(\.index) == [0, 41, 3])
        let filtered = given.caseRuns.filtered { $0.index != 0 }
        #expect(filtered.map(\.key) == ["kept as given", "s/b/default/p/none/2"])
        #expect(filtered.map(\.index) == [41, 3])
        #expect(RunPlan(caseRuns: filtered).requestCount == 1 + 2)
        let empty: PlannedCaseRuns = []
        #expect(empty.isEmpty && RunPlan(caseRuns: empty).requestCount == 0)
    }

    @Test("--repeat overrides the suite; --case and --tag select")
    func selection() {
        #expect(Planner.plan([suite], PlanSelection(backends: ["p"], repeatCount: 3)).caseRuns.count == 6)
        #expect(Planner.plan([suite], PlanSelection(backends: ["p"], caseIDs: ["b"])).caseRuns.map(\.evalCase.id) == ["b", "b"])
        #expect(Planner.plan([suite], PlanSelection(backends: ["p"], caseIDs: ["s/a"])).caseRuns.count == 2)
        #expect(Planner.plan([suite], PlanSelection(backends: ["p"], tags: ["y"])).caseRuns.allSatisfy { $0.evalCase.id == "b" })
    }

    @Test("a multi-turn case run passes only when every turn passes, and errors when one errors")
    func caseRunStatus() {
        func result(_ key: String, _ turn: Int, _ status: RequestResult.Status, turns: Int = 2) -> RequestResult {
            RequestResult(key: key, suite: "s", caseID: "b", turn: turn, turns: turns, variant: "default", backend: "p",
                          model: nil, reasoning: .none, repeatIndex: 1, tags: [], status: status, instructions: nil, prompt: "")
        }
        let runs = RunAggregate([
            result("k1", 1, .pass), result("k1", 2, .pass),
            result("k2", 1, .pass), result("k2", 2, .fail),
            result("k3", 1, .error), result("k3", 2, .skipped),
            result("k4", 1, .skipped), result("k4", 2, .skipped),
        ]).caseRuns
        #expect(runs.map(\.status) == [.pass, .fail, .error, .skipped])
        let halfPassing = [result("k1", 1, .pass, turns: 1), result("k2", 1, .fail, turns: 1)]
        #expect(Gate().evaluate(halfPassing, unavailableBackends: []).exitStatus == .gateFailed)
        #expect(Gate(minPassRate: 0.5).evaluate(halfPassing, unavailableBackends: []).exitStatus == .success)
        #expect(Gate(minPassRate: 0.6).evaluate(halfPassing, unavailableBackends: []).exitStatus == .gateFailed)
        #expect(Gate().evaluate([result("k1", 1, .pass, turns: 1)], unavailableBackends: ["p"]).exitStatus == .infrastructure)
        #expect(Gate().evaluate([result("k1", 1, .pass, turns: 1), result("k4", 1, .skipped, turns: 1)], unavailableBackends: []).exitStatus == .success)
    }

    @Test("Results in any order make the same case runs with plan indexes (found by neighbour) as without (found by key)")
    func caseRunsByPlanIndex() {
        func result(_ key: String, plan: Int?, turn: Int, _ status: RequestResult.Status) -> RequestResult {
            var result = RequestResult(key: key, suite: "s", caseID: key, turn: turn, turns: 2, variant: "default", backend: "p",
                                       model: nil, reasoning: .none, repeatIndex: 1, tags: [], status: status, instructions: nil, prompt: "")
            result.planIndex = plan
            return result
        }
        // Turns of three case runs interleaved, as a concurrent run appends them.
        let order: [(String, Int, Int, RequestResult.Status)] = [
            ("c", 2, 2, .pass), ("a", 0, 1, .pass), ("c", 2, 1, .pass), ("b", 1, 2, .fail), ("a", 0, 2, .pass), ("b", 1, 1, .pass),
        ]
        let planned = RunAggregate(order.map { result($0.0, plan: $0.1, turn: $0.2, $0.3) })
        #expect(planned.caseRuns.map(\.key) == ["a", "b", "c"])
        #expect(planned.caseRuns.map { $0.requests.map(\.turn) } == [[1, 2], [1, 2], [1, 2]])
        #expect(planned.statuses == [.pass, .fail, .pass])
        #expect(planned.statuses == planned.caseRuns.map(\.status))
        // One result without a plan index: every case run is found by key again, and that
        // result joins its case run instead of starting one of its own.
        var mixed = order.map { result($0.0, plan: $0.1, turn: $0.2, $0.3) }
        mixed[4].planIndex = nil
        let keyed = RunAggregate(mixed)
        #expect(keyed.caseRuns.map(\.key) == ["a", "b", "c"])
        #expect(keyed.caseRuns.map { $0.requests.count } == [2, 2, 2])
        #expect(keyed.groups.map(\.cases) == planned.groups.map(\.cases))
    }

    @Test("results.jsonl keeps every appended line and skips a torn last line")
    func resultStore() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try ResultStore(url: url)
        let first = RequestResult(key: "s/a/default/p/none/1", suite: "s", caseID: "a", turn: 1, turns: 1, variant: "default",
                                  backend: "p", model: "m", reasoning: .none, repeatIndex: 1, tags: [], status: .pass,
                                  instructions: nil, prompt: "q", output: "a", usage: Usage(inputTokens: 3))
        try store.append(first)
        try store.close()
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"key\":\"s/b".utf8))
        try handle.close()
        let read = try ResultStore.read(url)
        #expect(read == [first])
        let line = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.contains("\"case\":\"a\""))
        #expect(line.contains("\"repeat\":1"))
    }
}
