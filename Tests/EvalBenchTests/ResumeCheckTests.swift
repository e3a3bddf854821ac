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

    @Test("a case's digest changes with its assertions and not with the order of its keys")
    func caseDigest() {
        let one = EvalCase(id: "a", turns: [Turn(prompt: "q", expect: [Assertion(.contains("x", ignoreCase: false))])])
        var other = one
        other.turns[0].expect = [Assertion(.contains("y", ignoreCase: false))]
        #expect(ResumeCheck.digest(one) == ResumeCheck.digest(one))
        #expect(ResumeCheck.digest(one) != ResumeCheck.digest(other))
    }
}
