import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func suite(_ cases: String) -> String {
    #"{"format": "evalbench.suite/1", "suite": "s", "cases": [\#(cases)]}"#
}

@Suite("Resume checks what it resumes", .serialized)
struct ResumeCheckTests {
    @Test("a resumed run whose suite changed a case and deleted another is refused with the list; --resume-changed re-runs only those")
    func changedSuite() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let v1 = suite(#"""
        {"id": "a", "prompt": "qa", "expect": [{"type": "contains", "value": "ok"}]},
        {"id": "b", "prompt": "qb"}, {"id": "c", "prompt": "qc"}
        """#)
        let fixture = try RunFixture("resume-check", suite: v1,
                                     config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"retries": 0}}"#)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 3)

        let v2 = suite(#"""
        {"id": "a", "prompt": "qa", "expect": [{"type": "contains", "value": "NOT THERE"}]},
        {"id": "c", "prompt": "qc"}, {"id": "d", "prompt": "qd"}
        """#)
        try Data(v2.utf8).write(to: URL(fileURLWithPath: fixture.suitePath))
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        let refused = loadDiagnostics { () throws(LoadError) in
            do { _ = try EvalRun.load(resumed) } catch let error as LoadError { throw error } catch {}
        }
        let diagnostic = try #require(refused.first)
        #expect(diagnostic.message.contains("changed: s/a; deleted: s/b; added: s/d"), "\(diagnostic.message)")
        #expect(diagnostic.file.hasSuffix("run.json"))
        #expect(diagnostic.fix?.contains("--resume-changed") == true)

        resumed.resumeChanged = true
        let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 5, "a and d are sent again, c is kept")
        #expect(outcome.results.map(\.caseID).sorted() == ["a", "c", "d"])
        #expect(outcome.results.first { $0.caseID == "a" }?.status == .fail, "a's new assertion decides, not its old verdict")
        #expect(outcome.verdict.notes.contains { $0.contains("resumed with changes") })
    }

    @Test("a resume that leaves out a backend of the run, or resumes another shard, is refused; --resume-changed drops that backend's results")
    func droppedBackendAndOtherShard() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let url = server.baseURL.absoluteString + "/v1"
        let fixture = try RunFixture("resume-backends", suite: suite(#"{"id": "a", "prompt": "qa"}, {"id": "b", "prompt": "qb"}"#), config: """
        {"backends": [{"name": "f", "kind": "openai", "baseURL": "\(url)"}, {"name": "g", "kind": "openai", "baseURL": "\(url)"}],
         "defaults": {"retries": 0}}
        """)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        var resumed = fixture.request(backends: ["f"])
        resumed.resumeDirectory = resumed.outputDirectory
        func refusal(_ request: RunRequest) -> Diagnostic? {
            loadDiagnostics { () throws(LoadError) in
                do { _ = try EvalRun.load(request) } catch let error as LoadError { throw error } catch {}
            }.first
        }
        #expect(refusal(resumed)?.message.contains("backends not selected now: g") == true, "\(String(describing: refusal(resumed)))")
        var sharded = fixture.request()
        sharded.resumeDirectory = sharded.outputDirectory
        sharded.shard = .part(Shard(index: 1, count: 2), shardsGiven: nil)
        #expect(refusal(sharded)?.message == "the run being resumed is not sharded, and this run is shard 1/2")

        resumed.resumeChanged = true
        let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
        #expect(outcome.results.map(\.backend) == ["f", "f"], "g's results are not kept in a run of f alone")
        #expect(server.requests.count == 4, "f's finished case runs are kept, not sent again")
    }

    @Test("a resumed run whose suite changed one variant's prompt wrapper is refused naming it; --resume-changed sends only that variant's case runs")
    func changedVariant() async throws {
        // "Rome" in the prompt makes the fake answer it: the new wrapper fails the case.
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content(request.messages.last?.content.contains("Rome") == true ? "Rome" : "Paris")])
        }
        try server.start()
        defer { server.stop() }
        func variants(wrap: String) -> String {
            #"{"format": "evalbench.suite/1", "suite": "s", "variants": [{"name": "plain"}, {"name": "wrap", "prompt": "\#(wrap)"}], "cases": [{"id": "a", "prompt": "capital of France?", "expect": [{"type": "contains", "value": "Paris"}]}]}"#
        }
        let fixture = try RunFixture("resume-variant", suite: variants(wrap: "{{prompt}} (one word)"),
                                     config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"retries": 0}}"#)
        defer { fixture.remove() }
        let first = fixture.request()
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 2)

        try Data(variants(wrap: "{{prompt}} Rome").utf8).write(to: URL(fileURLWithPath: fixture.suitePath))
        var resumed = fixture.request()
        resumed.resumeDirectory = resumed.outputDirectory
        let refused = loadDiagnostics { () throws(LoadError) in
            do { _ = try EvalRun.load(resumed) } catch let error as LoadError { throw error } catch {}
        }
        #expect(refused.first?.message.contains("variants changed: s/wrap") == true, "\(refused)")

        resumed.resumeChanged = true
        let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 3, "only the wrap variant's case run is sent again")
        #expect(outcome.results.first { $0.variant == "wrap" }?.prompt == "capital of France? Rome")
        #expect(outcome.verdict.exitStatus == .gateFailed, "as a fresh run of the changed suite fails")
    }

    @Test("a case's digest changes with its assertions and not with the order of its keys")
    func caseDigest() {
        let one = EvalCase(id: "a", turns: [Turn(prompt: "q", expect: [Assertion(.contains("x", ignoreCase: false))])])
        var other = one
        other.turns[0].expect = [Assertion(.contains("y", ignoreCase: false))]
        #expect(ResumeCheck.digest(one) == ResumeCheck.digest(one))
        #expect(ResumeCheck.digest(one) != ResumeCheck.digest(other))
    }
}

@Suite("What a resume compares")
struct ResumeComparisonTests {
    /// run.json as a run of `suite` on `config` records it.
    private func metadata(_ suite: Suite, config: Config = Config(backends: [])) -> RunMetadata {
        let loaded = LoadedRun(suites: [suite], config: config, backendNames: [], plan: RunPlan(caseRuns: []))
        return EvalRun.startMetadata(loaded, RunRequest(suitePaths: []), started: Date(), gitCommit: nil)
    }

    private func result(_ caseID: String, variant: String = "default", backend: String = "f") -> RequestResult {
        fixtureResult(suite: "s", caseID: caseID, variant: variant, backend: backend, status: .pass)
    }

    @Test("a dataset row that changed is a changed case even though the suite file's digest is the same")
    func datasetChange() throws {
        let directory = PackagePaths.temporaryDirectory("resume-dataset")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("s.json")
        try Data(#"{"dataset": {"path": "rows.jsonl"}}"#.utf8).write(to: file)
        let before = Suite(name: "s", file: file.path, cases: [EvalCase(id: "row-1", turns: [Turn(prompt: "Capital of France?")])])
        var after = before
        after.cases[0].turns[0].prompt = "Capital of Peru?"
        #expect(EvalRun.suiteDigest(after) == EvalRun.suiteDigest(before), "the suite file itself did not change")
        let check = ResumeCheck(metadata(before), suites: [after], config: Config(backends: []), backends: [])
        #expect(check.changed == ["s/row-1"])
        #expect(ResumeCheck(metadata(before), suites: [before], config: Config(backends: []), backends: []).isUnchanged)
    }

    @Test("a backend whose config changed makes its kept results stale; a run.json without case digests marks every case")
    func configAndOldRunJSON() {
        let suite = Suite(name: "s", file: "/nonexistent/s.json", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])])
        let old = Config(backends: [BackendConfig(name: "b", timeoutSeconds: 10, options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1"))])
        let new = Config(backends: [BackendConfig(name: "b", timeoutSeconds: 20, options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1"))])
        let check = ResumeCheck(metadata(suite, config: old), suites: [suite], config: new, backends: ["b"])
        #expect(check.changedBackends == ["b"])
        var legacy = metadata(suite)
        legacy.suites[0].cases = nil
        legacy.suites[0].sha256 = "different"
        #expect(ResumeCheck(legacy, suites: [suite], config: Config(backends: []), backends: []).changed == ["s/a"])
    }

    @Test("a variant whose prompt wrapper, instructions, options or output changed makes its case runs stale, and only its own")
    func variantChange() {
        var before = Suite(name: "s", file: "/nonexistent/s.json", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])])
        before.variants = [PromptVariant(name: "plain"), PromptVariant(name: "wrap", promptTemplate: "{{prompt}} (one word)")]
        let changes: [(String, (inout PromptVariant) -> Void)] = [
            ("prompt", { $0.promptTemplate = "{{prompt}} (two words)" }),
            ("instructions", { $0.instructions = "Answer in French." }),
            ("options", { $0.options = GenerationOptions(temperature: 1) }),
            ("output", { $0.output = StructuredOutput(schema: .object(["type": .string("object")])) }),
        ]
        for (what, change) in changes {
            var after = before
            change(&after.variants[1])
            let check = ResumeCheck(metadata(before), suites: [after], config: Config(backends: []), backends: [])
            #expect(!check.isUnchanged, "\(what)")
            #expect(check.summary == "variants changed: s/wrap", "\(what)")
            #expect(check.isStale(result("a", variant: "wrap")), "\(what)")
            #expect(!check.isStale(result("a", variant: "plain")), "\(what)")
        }
        var renamed = before
        renamed.variants[1].name = "wrapped"
        let check = ResumeCheck(metadata(before), suites: [renamed], config: Config(backends: []), backends: [])
        #expect(check.summary == "variants deleted: s/wrap; variants added: s/wrapped")
        #expect(check.isStale(result("a", variant: "wrap")))
        #expect(ResumeCheck(metadata(before), suites: [before], config: Config(backends: []), backends: []).isUnchanged)
    }

    @Test("a suite that gains a default variant of its own that wraps the prompt changes the case runs of `default`")
    func explicitDefaultVariant() {
        let before = Suite(name: "s", file: "/nonexistent/s.json", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])])
        var after = before
        after.variants = [PromptVariant(name: "default", promptTemplate: "{{prompt}}!")]
        let check = ResumeCheck(metadata(before), suites: [after], config: Config(backends: []), backends: [])
        #expect(check.summary == "variants changed: s/default")
        #expect(check.isStale(result("a")))
    }

    @Test("a run.json without variant digests resumes when the suite file is as it was, and counts every variant as changed, saying so, when it is not")
    func runJSONWithoutVariantDigests() throws {
        let directory = PackagePaths.temporaryDirectory("resume-old-variants")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("s.json")
        func write(_ wrap: String) throws -> Suite {
            let text = #"{"format": "evalbench.suite/1", "suite": "s", "variants": [{"name": "plain"}, {"name": "wrap", "prompt": "\#(wrap)"}], "cases": [{"id": "a", "prompt": "q"}]}"#
            try Data(text.utf8).write(to: file)
            return try SuiteLoader.load(path: file.path)
        }
        var legacy = metadata(try write("{{prompt}}!"))
        legacy.suites[0].variants = nil
        #expect(ResumeCheck(legacy, suites: [try write("{{prompt}}!")], config: Config(backends: []), backends: []).isUnchanged)
        let check = ResumeCheck(legacy, suites: [try write("{{prompt}}?")], config: Config(backends: []), backends: [])
        #expect(check.changed.isEmpty, "the case itself is as it was")
        #expect(check.isStale(result("a", variant: "plain")) && check.isStale(result("a", variant: "wrap")))
        #expect(check.summary.contains("variants changed: s/plain, s/wrap"), "\(check.summary)")
        #expect(check.summary.contains("records no variant digests"), "\(check.summary)")
    }

    @Test("a judge's or a turn switch's backend whose config changed makes the case runs of the cases that call it stale on every backend")
    func calledBackendChanged() {
        let judged = EvalCase(id: "judged", turns: [Turn(prompt: "q", expect: [Assertion(.judge(ModelGrader(backend: "j"), rubric: "is right", minScore: nil))])])
        let switching = EvalCase(id: "switching", turns: [Turn(prompt: "q"), Turn(prompt: "r", switchTo: TurnSwitch(backend: "g"))])
        let plain = EvalCase(id: "plain", turns: [Turn(prompt: "q")])
        let suite = Suite(name: "s", file: "/nonexistent/s.json", cases: [judged, switching, plain])
        func config(judgeTimeout: Double, switchTimeout: Double) -> Config {
            Config(backends: ["f", "j", "g"].map { name in
                BackendConfig(name: name, timeoutSeconds: name == "j" ? judgeTimeout : name == "g" ? switchTimeout : 10,
                              options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1"))
            })
        }
        let then = metadata(suite, config: config(judgeTimeout: 10, switchTimeout: 10))
        let judgeChanged = ResumeCheck(then, suites: [suite], config: config(judgeTimeout: 20, switchTimeout: 10), backends: ["f"])
        #expect(!judgeChanged.isUnchanged)
        #expect(judgeChanged.isStale(result("judged")))
        #expect(!judgeChanged.isStale(result("switching")) && !judgeChanged.isStale(result("plain")))
        #expect(judgeChanged.summary == "backend config changed: j; cases that switch to or grade with a changed backend: s/judged")
        let switchChanged = ResumeCheck(then, suites: [suite], config: config(judgeTimeout: 10, switchTimeout: 20), backends: ["f"])
        #expect(switchChanged.isStale(result("switching")) && !switchChanged.isStale(result("judged")))
        #expect(ResumeCheck(then, suites: [suite], config: config(judgeTimeout: 10, switchTimeout: 10), backends: ["f"]).isUnchanged)
    }

    @Test("the suite's instructions, options, vars and tools, and a dataset's rows and case template, reach every case's digest")
    func suiteLevelInputs() throws {
        let directory = PackagePaths.temporaryDirectory("resume-suite-level")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("s.json")
        let rows = directory.appendingPathComponent("rows.jsonl")
        let base: [String: String] = [
            "instructions": #""Be brief.""#, "options": #"{"temperature": 0}"#, "vars": #"{"x": "France"}"#,
            "tools": #"[{"name": "lookup", "description": "Looks up", "parameters": {"type": "object"}, "results": [{"result": "Paris"}]}]"#,
        ]
        let changed: [String: String] = [
            "instructions": #""Be thorough.""#, "options": #"{"temperature": 1}"#, "vars": #"{"x": "Peru"}"#,
            "tools": #"[{"name": "lookup", "description": "Looks up", "parameters": {"type": "object"}, "results": [{"result": "Lima"}]}]"#,
        ]
        func load(_ members: [String: String], row: String = #"{"q": "capital?"}"#, template: String = "{{q}} of {{x}}") throws -> Suite {
            let fields = members.sorted { $0.key < $1.key }.map { #""\#($0.key)": \#($0.value)"# }.joined(separator: ", ")
            let text = #"{"format": "evalbench.suite/1", "suite": "s", \#(fields), "dataset": {"path": "rows.jsonl", "case": {"prompt": "\#(template)"}}}"#
            try Data(text.utf8).write(to: file)
            try Data((row + "\n").utf8).write(to: rows)
            return try SuiteLoader.load(path: file.path)
        }
        let then = metadata(try load(base))
        #expect(ResumeCheck(then, suites: [try load(base)], config: Config(backends: []), backends: []).isUnchanged)
        for key in base.keys.sorted() {
            var members = base
            members[key] = changed[key]
            let check = ResumeCheck(then, suites: [try load(members)], config: Config(backends: []), backends: [])
            #expect(check.changed == ["s/row-1"], "\(key)")
        }
        #expect(ResumeCheck(then, suites: [try load(base, row: #"{"q": "largest city?"}"#)], config: Config(backends: []), backends: []).changed == ["s/row-1"])
        #expect(ResumeCheck(then, suites: [try load(base, template: "{{q}} in {{x}}")], config: Config(backends: []), backends: []).changed == ["s/row-1"])
    }

    @Test("a backend that a case only switches to is not a dropped backend, and a case run whose planned backend changed is stale in every turn, a switched one too")
    func switchedTurns() {
        let switching = EvalCase(id: "switching", turns: [Turn(prompt: "q"), Turn(prompt: "r", switchTo: TurnSwitch(backend: "g"))])
        let suite = Suite(name: "s", file: "/nonexistent/s.json", cases: [switching])
        func config(_ timeout: Double) -> Config {
            Config(backends: ["f", "g"].map { BackendConfig(name: $0, timeoutSeconds: $0 == "f" ? timeout : 10, options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1")) })
        }
        var then = metadata(suite, config: config(10))
        // As a run records them: the selected backend, then the one a turn switches to.
        then.backends = ["f", "g"].map { RunMetadata.BackendInfo(name: $0, kind: "openai", availability: "available", reasoning: [:]) }
        #expect(ResumeCheck(then, suites: [suite], config: config(10), backends: ["f"]).isUnchanged)
        var secondTurn = fixtureResult(suite: "s", caseID: "switching", turn: 2, turns: 2, backend: "g", status: .pass)
        secondTurn.key = "s/switching/default/f/none/1"
        let changed = ResumeCheck(then, suites: [suite], config: config(20), backends: ["f"])
        #expect(changed.isStale(secondTurn), "turn 2 ran on g, in a case run planned on f, whose config changed")
        #expect(changed.isStale(result("switching")))
    }
}
