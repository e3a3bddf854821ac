import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// Holds the run's task so that the run's own observer can cancel it, as Ctrl-C does.
/// Safe unchecked: every access goes through the lock.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<RunOutcome, any Error>?

    func set(_ task: Task<RunOutcome, any Error>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task?.cancel() } }
}

@Suite("Interrupted runs say so", .serialized)
struct InterruptedRunTests {
    @Test("a run cancelled after its first result opens summary.md, report.html and junit.xml with how many requests did not run")
    func interruptedReports() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 20)]) }
        try server.start()
        defer { server.stop() }
        let cases = (0..<20).map { #"{"id": "c\#($0)", "prompt": "q\#($0)"}"# }.joined(separator: ", ")
        let fixture = try RunFixture("interrupted", suite: #"{"format": "evalbench.suite/1", "suite": "s", "cases": [\#(cases)]}"#,
                                     config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"concurrency": 1, "retries": 0}}"#)
        defer { fixture.remove() }
        let request = fixture.request()
        let loaded = try EvalRun.load(request)
        let box = TaskBox()
        let task = Task {
            try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport(), onEvent: { _ in box.cancel() })
        }
        box.set(task)
        let outcome = try await task.value
        let interruption = try #require(outcome.interruption)
        #expect(interruption.plannedRequests == 20)
        #expect(interruption.unfinishedRequests == 20 - outcome.results.count)
        #expect(interruption.unfinishedRequests > 0)
        // Every finished answer passed, yet a partial run neither passes nor fails the gates.
        #expect(outcome.verdict.exitStatus == .interrupted, "\(outcome.verdict)")
        #expect(outcome.verdict.reasons.first?.contains("the gates were not applied") == true)
        let terminal = TerminalSummary(color: false).run(outcome.results, verdict: outcome.verdict, directory: outcome.outputDirectory)
        #expect(terminal.contains { $0.hasPrefix("INTERRUPTED: ") && $0.hasSuffix("(exit 130: \(ExitStatus.interrupted.meaning))") }, "\(terminal)")
        #expect(!terminal.contains { $0.hasPrefix("PASS") })
        let run = RunDirectory(outcome.outputDirectory)
        let summary = try String(contentsOf: run.summaryMarkdown, encoding: .utf8)
        #expect(summary.hasPrefix("> **Interrupted: \(interruption.unfinishedRequests) of 20 planned requests did not run"))
        let html = try String(contentsOf: run.file(RunDirectory.FileName.html), encoding: .utf8)
        #expect(html.contains("<p class=\"interrupted\"><strong>Interrupted: "))
        let junit = try String(contentsOf: run.file(RunDirectory.FileName.junit), encoding: .utf8)
        #expect(junit.contains("<error type=\"interrupted\" message=\"Interrupted: \(interruption.unfinishedRequests) of 20"))
        #expect(try run.readMetadata().interruption == interruption, "evalbench report rewrites the same banner")
        #expect(summary.contains("## Recommendation\n\nNo recommendation: the run was interrupted"))
        #expect(html.contains("No recommendation: the run was interrupted"))
        let csv = try String(contentsOf: run.file(RunDirectory.FileName.recommendationCSV), encoding: .utf8)
        let rows = csv.split(whereSeparator: \.isNewline).dropFirst()
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasSuffix(",false") }, "no candidate of an interrupted run is marked recommended")
    }

    @Test("an interrupted run with two candidates shows no pick in summary.md, though the same figures would make one")
    func interruptedWithholdsPick() {
        let results = (0..<10).flatMap { index in
            ["fast", "slow"].map { backend in
                fixtureResult(caseID: "c\(index)", backend: backend, status: .pass, latencyMs: backend == "fast" ? 100 : 900, ttftMs: 50)
            }
        }
        let recommendations = Recommendation.compute(results, settings: RecommendationSettings())
        let complete = RecommendationMarkdown.render(recommendations) ?? ""
        let interrupted = RecommendationMarkdown.render(recommendations, withheld: RecommendationMarkdown.withheld) ?? ""
        #expect(complete.contains("| Tag |"), "the complete run's section has the table")
        #expect(!interrupted.contains("| Tag |"))
        #expect(interrupted.hasPrefix("## Recommendation\n\nNo recommendation: the run was interrupted"))
    }
}
