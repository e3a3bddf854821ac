import Foundation
import Testing
@testable import EvalBench

@Suite("A run directory's files and reading a run back")
struct RunDirectoryTests {
    private func write(_ results: [RequestResult], to run: RunDirectory) throws {
        let encoder = ResultStore.makeEncoder()
        let lines = try results.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }
        try Data(lines.joined().utf8).write(to: run.results)
    }

    @Test("resuming keeps the case runs that finished every turn and drops one cut off mid-way")
    func finishedResults() throws {
        let directory = PackagePaths.temporaryDirectory("run-directory")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        try write([fixtureResult(caseID: "done", turn: 1, turns: 2, status: .pass),
                   fixtureResult(caseID: "cut", turn: 1, turns: 2, status: .pass),
                   fixtureResult(caseID: "done", turn: 2, turns: 2, status: .fail)], to: run)
        let kept = try run.finishedResults()
        #expect(kept.map(\.caseID) == ["done", "done"])
        #expect(kept.map(\.turn) == [1, 2])
    }

    @Test("resuming sends again a case run with a turn that never reached the model, and keeps the model's own errors")
    func infrastructureErrorsRunAgain() throws {
        let directory = PackagePaths.temporaryDirectory("run-directory-errors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        try write([fixtureResult(caseID: "down", status: .error, errorKind: .network, errorMessage: "connection refused"),
                   fixtureResult(caseID: "slow", turn: 1, turns: 2, status: .pass),
                   fixtureResult(caseID: "slow", turn: 2, turns: 2, status: .error, errorKind: .timeout),
                   fixtureResult(caseID: "limited", status: .error, errorKind: .rateLimited),
                   fixtureResult(caseID: "refused", status: .error, errorKind: .refusal),
                   fixtureResult(caseID: "garbled", status: .error, errorKind: .decoding),
                   fixtureResult(caseID: "good", status: .pass),
                   { var stopped = fixtureResult(caseID: "stopped", status: .skipped); stopped.skipReason = "fail fast: 5 consecutive identical failures"; return stopped }(),
                   { var level = fixtureResult(caseID: "level", status: .skipped); level.skipReason = "the backend has no level deep"; return level }()],
                  to: run)
        #expect(try run.finishedResults().map(\.caseID) == ["refused", "garbled", "good", "level"], "a fail-fast skip was never sent: it runs again")
    }

    @Test("resuming finds each case run's turns apart from each other by plan index, keeps the file's order and the results asked for")
    func finishedResultsByPlanIndex() throws {
        let directory = PackagePaths.temporaryDirectory("run-directory-plan")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        func result(_ caseID: String, turn: Int, plan: Int, backend: String = "local") -> RequestResult {
            var result = fixtureResult(caseID: caseID, turn: turn, turns: 2, backend: backend, status: .pass)
            result.planIndex = plan
            return result
        }
        // As a concurrent run records them: turns of different case runs interleaved.
        try write([result("a", turn: 1, plan: 0), result("b", turn: 1, plan: 1), result("c", turn: 1, plan: 2),
                   result("b", turn: 2, plan: 1), result("a", turn: 2, plan: 0), result("c", turn: 1, plan: 3, backend: "other"),
                   result("c", turn: 2, plan: 3, backend: "other")], to: run)
        let kept = try run.finishedResults()
        #expect(kept.map { "\($0.caseID)\($0.turn)" } == ["a1", "b1", "b2", "a2", "c1", "c2"], "c on local was cut off after turn 1")
        let notOther = try run.finishedResults { $0.backend != "other" ? $0 : nil }
        #expect(notOther.map { "\($0.caseID)\($0.turn)" } == ["a1", "b1", "b2", "a2"])
    }

    @Test("a missing run directory, results.jsonl or run.json is a diagnostic naming the path")
    func missingFiles() throws {
        let directory = PackagePaths.temporaryDirectory("run-directory-missing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        do {
            _ = try RunDirectory(directory.appendingPathComponent("nowhere")).readResults(role: "resumed")
            Issue.record("a missing directory must fail")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.message == "the resumed run directory does not exist")
        }
        do {
            _ = try run.readResults()
            Issue.record("a directory without results.jsonl must fail")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.file == run.results.path)
            #expect(diagnostic.message == "the run directory has no results.jsonl")
        }
        try FileManager.default.createDirectory(at: run.results, withIntermediateDirectories: true)
        #expect(run.missingResults(role: "resumed")?.message == "the resumed run's results.jsonl is a directory, not the file of results a run writes",
                "checked where --resume is loaded (exit 2), not when the run reads it")
        do {
            _ = try run.readResultTable(role: "baseline")
            Issue.record("a results.jsonl that is a directory must fail")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.message.contains("is a directory") && !diagnostic.message.contains("NSCocoaErrorDomain"), "\(diagnostic)")
        }
        try FileManager.default.removeItem(at: run.results)
        do {
            _ = try RunDirectory(directory.appendingPathComponent("nowhere")).readMetadata()
            Issue.record("a missing directory has no run.json to read")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.message == "the run directory does not exist", "not that it lacks run.json")
        }
        do {
            _ = try run.readMetadata()
            Issue.record("a directory without run.json must fail")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.file == run.metadata.path)
            #expect(diagnostic.fix != nil)
        }
    }

    @Test("the report writer writes every report file under the name RunDirectory gives it")
    func reportFileNames() throws {
        let directory = PackagePaths.temporaryDirectory("run-directory-reports")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = [fixtureResult(caseID: "a", status: .pass, latencyMs: 10, ttftMs: 2)]
        try ReportWriter.write(ReportInput(results: results, suiteNames: ["geo"], startedAt: Date(), endedAt: Date()), to: directory)
        let run = RunDirectory(directory)
        for name in [RunDirectory.FileName.resultsCSV, RunDirectory.FileName.summaryCSV, RunDirectory.FileName.metricsCSV,
                     RunDirectory.FileName.recommendationCSV, RunDirectory.FileName.summaryMarkdown,
                     RunDirectory.FileName.junit, RunDirectory.FileName.html] {
            #expect(FileManager.default.fileExists(atPath: run.file(name).path), "\(name)")
        }
    }
}
