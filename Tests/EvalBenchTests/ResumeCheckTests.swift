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
    private func metadata(_ suite: Suite, config: Config = Config(backends: [])) -> RunMetadata {
        RunMetadata(toolVersion: "t", arguments: [], suites: [
            RunMetadata.SuiteFile(path: suite.file, suite: suite.name, sha256: EvalRun.suiteDigest(suite),
                                  cases: suite.cases.reduce(into: [:]) { $0[$1.id] = ResumeCheck.digest($1) }),
        ], config: config, gitCommit: nil, host: .current(), startedAt: Date(), endedAt: nil, backends: [])
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
}
