import Foundation
import Testing
@testable import EvalBench

@Test("The report writer writes results.csv, summary.csv, cases.csv, metrics.csv, recommendation.csv, summary.md, junit.xml, the charts and report.html, and nothing else")
func reportWriterFiles() throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("evalbench-report-\(UUID().uuidString)/nested")
    defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
    let results = [fixtureResult(caseID: "a", status: .pass, latencyMs: 12, ttftMs: 3)]
    try ReportWriter.write(ReportInput(results: results, startedAt: Date(), endedAt: Date()), to: directory)

    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files == ["cases.csv", "chart-latency-cdf.svg", "chart-pass-rate-vs-cost.svg", "chart-pass-rate-vs-latency.svg",
                      "chart-ttft-cdf.svg", "junit.xml", "metrics.csv", "recommendation.csv", "report.html", "results.csv", "summary.csv",
                      "summary.md"])
    let resultsCSV = try String(contentsOf: directory.appendingPathComponent("results.csv"), encoding: .utf8)
    #expect(resultsCSV == ResultsCSV.render(results))
    let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
    #expect(summary.contains("| geo/a | pass |"))
}

@Test("A report directory that cannot be created is named in the error")
func reportWriterFailure() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-file-\(UUID().uuidString)")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let input = ReportInput(results: [], startedAt: Date(), endedAt: Date())
    #expect {
        try ReportWriter.write(input, to: file.appendingPathComponent("out"))
    } throws: { error in
        (error as? ReportWriteFailure)?.path.hasSuffix("/out") == true
    }
}
