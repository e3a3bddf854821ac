import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// A suite of four cases; `c`'s prompt makes the fake answer "Rome", so it fails.
private let fourCases = #"""
{"format": "evalbench.suite/1", "suite": "s", "variants": [{"name": "plain"}, {"name": "wrap", "prompt": "{{prompt}} (one word)"}],
 "cases": [{"id": "a", "prompt": "qa", "expect": [{"type": "contains", "value": "Paris"}]},
           {"id": "b", "prompt": "qb", "expect": [{"type": "contains", "value": "Paris"}]},
           {"id": "c", "prompt": "Rome?", "expect": [{"type": "contains", "value": "Paris"}]},
           {"id": "d", "prompt": "qd", "expect": [{"type": "contains", "value": "Paris"}]}]}
"""#

@Suite("Resume keeps only the case runs of the plan it runs", .serialized)
struct ResumePlanTests {
    /// A fake that answers "Rome" to a prompt that names it, else "Paris".
    private func server() throws -> FakeOpenAIServer {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content(request.messages.last?.content.contains("Rome") == true ? "Rome" : "Paris")])
        }
        try server.start()
        return server
    }

    private func fixture(_ name: String, _ server: FakeOpenAIServer, suite: String = fourCases) throws -> RunFixture {
        try RunFixture(name, suite: suite, config: #"""
        {"backends": [{"name": "f", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"retries": 0}}
        """#)
    }

    private func refusal(_ request: RunRequest) -> Diagnostic? {
        loadDiagnostics { () throws(LoadError) in
            do { _ = try EvalRun.load(request) } catch let error as LoadError { throw error } catch {}
        }.first
    }

    private func lines(_ request: RunRequest) throws -> Int {
        let text = try String(contentsOf: RunDirectory(path: request.resumeDirectory ?? "").results, encoding: .utf8)
        return text.split(separator: "\n").count
    }

    @Test("a resume with fewer repeats, reasoning levels, variants or cases than the run it continues is refused, naming them; --resume-changed leaves those out of results.jsonl, the reports and the gate",
          arguments: ["repeat", "reasoning", "variant", "case"])
    func narrowerPlan(_ axis: String) async throws {
        let server = try server()
        defer { server.stop() }
        let fixture = try fixture("resume-plan-\(axis)", server)
        defer { fixture.remove() }
        var first = fixture.request()
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        let expected: String
        switch axis {
        case "repeat": (first.repeatCount, resumed.repeatCount, expected) = (2, 1, "repeat 2 (8 case runs)")
        case "reasoning": (first.reasoning, resumed.reasoning, expected) = ([.none, .light], [.none], "reasoning level light (8 case runs)")
        case "variant": (resumed.variants, expected) = (["plain"], "variant s/wrap (4 case runs)")
        default: (resumed.caseIDs, expected) = (["c"], "cases s/a, s/b, s/d (6 case runs)")
        }
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        let sent = server.requests.count

        let refused = refusal(resumed)
        #expect(refused?.message == "the run being resumed finished case runs this run does not plan (\(expected)): counted in its reports and gates, they would judge another plan",
                "\(String(describing: refused))")
        #expect(refused?.fix?.contains("--resume-changed") == true)

        resumed.resumeChanged = true
        resumed.gate = Gate(minPassRate: 0.7)
        let loaded = try EvalRun.load(resumed)
        #expect(loaded.resumed?.leftOutLine?.contains(expected) == true, "\(String(describing: loaded.resumed?.leftOutLine))")
        let outcome = try await EvalRun.execute(loaded, resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == sent, "every planned case run had finished")
        #expect(outcome.results.count == loaded.plan.caseRuns.count)
        #expect(try lines(resumed) == loaded.plan.caseRuns.count, "results.jsonl holds the plan's case runs only")
        let fresh = loaded.plan.caseRuns.filter { $0.evalCase.id != "c" }.count
        #expect(outcome.verdict.exitStatus == (Double(fresh) / Double(loaded.plan.caseRuns.count) >= 0.7 ? .success : .gateFailed),
                "the gate judges the plan, as a fresh run of it would")
        #expect(outcome.verdict.notes.contains { $0.contains(expected) })
    }

    @Test("results.jsonl lines of a case, backend or suite the run never planned are refused on resume, and left out with --resume-changed")
    func linesNobodyPlanned() async throws {
        let server = try server()
        defer { server.stop() }
        let fixture = try fixture("resume-plan-strangers", server)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        let results = RunDirectory(path: first.outputDirectory ?? "").results
        var strangers: [RequestResult] = []
        for (suite, caseID, backend) in [("s", "zzz", "f"), ("s", "a", "ghost"), ("other", "a", "f")] {
            var result = fixtureResult(suite: suite, caseID: caseID, variant: "plain", backend: backend, status: .pass)
            result.planIndex = 0
            strangers.append(result)
        }
        let encoder = ResultStore.makeEncoder()
        let handle = try FileHandle(forWritingTo: results)
        try handle.seekToEnd()
        for result in strangers { try handle.write(contentsOf: try encoder.encode(result) + Data("\n".utf8)) }
        try handle.close()

        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        #expect(refusal(resumed)?.message.contains("suite other (1 case run); case s/zzz (1 case run); backend ghost (1 case run)") == true,
                "\(String(describing: refusal(resumed)))")
        resumed.resumeChanged = true
        let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
        #expect(Set(outcome.results.map(\.backend)) == ["f"] && Set(outcome.results.map(\.suite)) == ["s"])
        #expect(outcome.results.count == 8)
    }

    @Test("an unchanged resume of the same plan keeps every finished case run and sends only the unfinished ones")
    func samePlan() async throws {
        let server = try server()
        defer { server.stop() }
        let fixture = try fixture("resume-plan-same", server)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        // The last two results lost, as a run killed before it wrote them.
        let results = RunDirectory(path: first.outputDirectory ?? "").results
        let kept = try String(contentsOf: results, encoding: .utf8).split(separator: "\n").dropLast(2)
        try Data((kept.joined(separator: "\n") + "\n").utf8).write(to: results)
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        let loaded = try EvalRun.load(resumed)
        #expect(loaded.resumed?.leftOutLine == nil)
        let outcome = try await EvalRun.execute(loaded, resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 10, "8 first, then the 2 lost")
        #expect(outcome.results.count == 8)
        #expect(outcome.verdict.notes.allSatisfy { !$0.contains("resumed with changes") })
    }

    @Test("a resume that adds repeats gives the kept case runs their places in the new plan, so the reports count each case run once, as a fresh run does")
    func keptRunsTakeTheirNewPlaces() async throws {
        let server = try server()
        defer { server.stop() }
        let twoTurns = #"""
        {"format": "evalbench.suite/1", "suite": "s",
         "cases": [{"id": "a", "turns": [{"prompt": "qa", "expect": [{"type": "contains", "value": "Paris"}]}, {"prompt": "again"}]},
                   {"id": "b", "turns": [{"prompt": "Rome?", "expect": [{"type": "contains", "value": "Paris"}]}, {"prompt": "again"}]}]}
        """#
        let fixture = try fixture("resume-plan-places", server, suite: twoTurns)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        resumed.repeatCount = 2
        let loaded = try EvalRun.load(resumed)
        let outcome = try await EvalRun.execute(loaded, resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 8, "4 requests, then the 4 of the second repeats")
        let places = Dictionary(uniqueKeysWithValues: loaded.plan.caseRuns.map { ($0.key, $0.index) })
        #expect(outcome.results.allSatisfy { $0.planIndex == places[$0.key] }, "\(outcome.results.map { "\($0.key) \(String(describing: $0.planIndex))" })")
        let aggregate = RunAggregate(outcome.results)
        #expect(aggregate.caseRuns.count == 4)
        #expect(aggregate.groups.first?.passRate == 0.5, "a passes, b fails, in each repeat")
    }

    @Test("a resume after the suite's latency targets changed keeps the answers and counts goodput against the targets as they are now")
    func keptRunsTakeTheSuitesTargets() async throws {
        let server = try server()
        defer { server.stop() }
        func suite(latencyMs: Int) -> String {
            #"{"format": "evalbench.suite/1", "suite": "s", "slo": {"latencyMs": \#(latencyMs)}, "cases": [{"id": "a", "prompt": "qa"}]}"#
        }
        let fixture = try fixture("resume-plan-slo", server, suite: suite(latencyMs: 60_000))
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        try Data(suite(latencyMs: 1).utf8).write(to: URL(fileURLWithPath: fixture.suitePath))
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 1, "the answer is kept: the targets do not change what is sent")
        #expect(outcome.results.map(\.slo?.latencyMs) == [1])
    }
}

@Suite("Finding a result's case run in a plan")
struct PlanLookupTests {
    private let suite = Suite(name: "s", file: "s.json", cases: [
        EvalCase(id: "a", turns: [Turn(prompt: "1")]),
        EvalCase(id: "b", turns: [Turn(prompt: "1"), Turn(prompt: "2", switchTo: TurnSwitch(backend: "g"))]),
    ], repeatCount: 2)

    private func result(_ caseID: String, backend: String = "p", reasoning: ReasoningLevel = .none, repeatIndex: Int = 1,
                        variant: String = "default") -> RequestResult {
        fixtureResult(suite: "s", caseID: caseID, variant: variant, backend: backend, reasoning: reasoning, repeatIndex: repeatIndex, status: .pass)
    }

    @Test("every planned run is found at its position, a switched turn by the backend its key was planned on")
    func findsEveryRun() {
        let plan = Planner.plan([suite], PlanSelection(backends: ["p", "q"], reasoning: [.none, .light])).caseRuns
        let lookup = PlanLookup(plan)
        for (position, run) in plan.enumerated() {
            let found = result(run.evalCase.id, backend: run.backend, reasoning: run.reasoning, repeatIndex: run.repeatIndex)
            #expect(lookup.position(of: found) == position, "\(run.key)")
        }
        var switched = result("b", reasoning: .light, repeatIndex: 2)
        switched.backend = "g"
        switched.turn = 2
        #expect(lookup.position(of: switched).map { plan[$0].key } == "s/b/default/p/light/2")
        var otherKey = result("a")
        otherKey.key = "s/a/default/p/none/1x"
        #expect(lookup.position(of: otherKey) == nil)
    }

    @Test("a result the plan does not have is named by the first part of its key the plan lacks")
    func mismatches() {
        let plan = Planner.plan([suite], PlanSelection(backends: ["p"], reasoning: [.none])).caseRuns
        let lookup = PlanLookup(plan)
        func mismatch(_ result: RequestResult) -> String {
            let (kind, name) = lookup.mismatch(of: result)
            return "\(kind) \(name)"
        }
        var otherSuite = result("a")
        otherSuite.suite = "t"
        #expect(mismatch(otherSuite) == "suite t")
        #expect(mismatch(result("z")) == "caseID s/z")
        #expect(mismatch(result("a", variant: "short")) == "variant s/short")
        #expect(mismatch(result("a", backend: "q")) == "backend q")
        #expect(mismatch(result("a", reasoning: .deep)) == "reasoning deep")
        #expect(mismatch(result("a", repeatIndex: 3)) == "repeatIndex 3")
        #expect(lookup.position(of: result("a", repeatIndex: 2)) != nil)
    }

    @Test("a shard's plan finds its own cases' runs only, and runs given as values are found by their keys")
    func shardsAndGivenRuns() {
        let whole = Planner.plan([suite], PlanSelection(backends: ["p"]))
        let part = RunPlan(caseRuns: whole.caseRuns.filtered { $0.evalCase.id == "b" }).caseRuns
        let lookup = PlanLookup(part)
        #expect(lookup.position(of: result("a")) == nil)
        #expect(lookup.position(of: result("b", repeatIndex: 2)).map { part[$0].key } == "s/b/default/p/none/2")

        let given = PlannedCaseRun(key: "custom-key", suite: "s", evalCase: suite.cases[0], variant: "default", backend: "p",
                                   reasoning: .none, repeatIndex: 1)
        var recorded = result("a")
        recorded.key = "custom-key"
        #expect(PlanLookup(PlannedCaseRuns([given])).position(of: recorded) == 0)
        #expect(PlanLookup(PlannedCaseRuns([given])).position(of: result("a")) == nil)
    }
}
