import Foundation
import Testing
@testable import EvalBench

@Suite("Reports that stay readable: GITHUB_STEP_SUMMARY under 1 MiB, the case matrix in cases.csv above 200 case runs")
struct StepSummaryTests {
    private let small = "# evalbench: geo\n\nRun from then to now.\n\n## Results\n\n| a | b |\n\n## Failures\n\ncase-1 failed\n"

    private func report(casesBytes: Int) -> String {
        let row = "| geo/case | pass |\n"
        return "# evalbench: geo\n\nRun from then to now.\n\n## Results\n\n| backend | pass rate |\n| local | 50% |\n\n"
            + "## Cases\n\n" + String(repeating: row, count: casesBytes / row.utf8.count)
            + "## Failures\n\n| geo/case-1 | contains | no |\n\n## Definitions\n\nwords\n"
    }

    @Test("a report within the budget is appended whole")
    func fitsWhole() {
        #expect(StepSummary.fit(small, budget: StepSummary.limit, source: "in summary.md") == small)
        #expect(StepSummary.split(small).joined() == small)
    }

    @Test("over the budget: the title and the sections that fit, in order, then a note naming each section left out, its size and where the whole report is")
    func trimsBySection() {
        let summary = StepSummary.fit(report(casesBytes: 2_200_000), budget: StepSummary.limit, source: "in run/summary.md")
        #expect(summary.utf8.count <= StepSummary.limit)
        #expect(summary.hasPrefix("# evalbench: geo\n\nRun from then to now.\n\n## Results\n"))
        #expect(summary.contains("## Failures\n\n| geo/case-1 | contains | no |") && summary.contains("## Definitions"))
        #expect(!summary.contains("| geo/case | pass |"))
        #expect(summary.contains("leaves out, to stay under GitHub's 1 MiB limit: ## Cases (2.1 MiB). The whole report is in run/summary.md."),
                "\(summary.suffix(300))")
        #expect(StepSummary.fit(report(casesBytes: 2_200_000), budget: 100, source: "x").isEmpty, "not even the note fits")
    }

    @Test("appending to a GITHUB_STEP_SUMMARY that already holds 900 KiB keeps the file within 1 MiB, saying what it left out")
    func countsWhatIsThere() throws {
        let work = PackagePaths.temporaryDirectory("step-summary")
        defer { try? FileManager.default.removeItem(at: work) }
        let stepFile = work.appendingPathComponent("step.md")
        try Data(String(repeating: "x", count: 900 * 1024).utf8).write(to: stepFile)
        try Data(report(casesBytes: 300_000).utf8).write(to: work.appendingPathComponent("summary.md"))
        try EvalRun.appendStepSummary(from: work, environment: ["GITHUB_STEP_SUMMARY": stepFile.path])
        let appended = try String(contentsOf: stepFile, encoding: .utf8)
        #expect(appended.utf8.count <= StepSummary.limit)
        #expect(appended.contains("## Results") && appended.contains("## Cases (292 KiB)"), "\(appended.suffix(400))")
    }

    @Test("above 200 case runs summary.md says the matrix is in cases.csv instead of showing it; cases.csv holds every case; at 200 the matrix stays")
    func caseMatrixMoves() throws {
        let work = PackagePaths.temporaryDirectory("cases-csv")
        defer { try? FileManager.default.removeItem(at: work) }
        for count in [200, 201] {
            let results = (0..<count).map { fixtureResult(caseID: "case-\($0)", status: $0 == 7 ? .fail : .pass, failedAssertion: $0 == 7 ? "capital" : nil) }
            let directory = work.appendingPathComponent("\(count)")
            try ReportWriter.write(ReportInput(results: results, startedAt: Date(), endedAt: Date()), to: directory)
            let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
            let rows = try parseCSV(String(contentsOf: directory.appendingPathComponent(RunDirectory.FileName.casesCSV), encoding: .utf8))
            #expect(rows.count == count + 1 && rows[0] == ["case", "local · none · default"], "\(rows.prefix(2))")
            #expect(rows[8] == ["geo/case-7", "fail: capital"])
            let pointer = "The per-case matrix of these 201 case runs (over 200) is in [cases.csv](cases.csv)"
            #expect(summary.contains(pointer) == (count == 201))
            #expect(summary.contains("| geo/case-199 |") == (count == 200))
        }
    }
}
