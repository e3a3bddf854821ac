import Foundation
import Testing
@testable import EvalBench

/// The end of a run in the terminal (issue 21, item 1).
@Suite("What a run prints when it ends")
struct TerminalSummaryTests {
    private let results = (1...7).map { index in
        fixtureResult(caseID: "c\(index)", status: index <= 6 ? .pass : .fail, latencyMs: Double(index) * 100, ttftMs: 10,
                      usage: Usage(inputTokens: 100, cachedInputTokens: 50, outputTokens: 5),
                      failedAssertion: index == 7 ? "contains \"Paris\"" : nil)
    }

    @Test("the headline row, the first failures with why, the verdict with its exit code's meaning, and both report paths")
    func plain() {
        let verdict = Gate().evaluate(results, unavailableBackends: [])
        let lines = TerminalSummary(color: false).run(results, verdict: verdict, directory: URL(fileURLWithPath: "/tmp/out"))
        let text = lines.joined(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("  Backend · level · variant") })
        #expect(lines.contains { $0.contains("local · none · default") && $0.contains("85.7% [48.7–97.4]") && $0.contains("6/7")
                && $0.contains("400.0 / 700.0") && $0.contains("50.0%") }, "\(text)")
        #expect(text.contains("Failures (1):\n  ✗ geo/c7 (local · none · default): contains \"Paris\": no"))
        #expect(text.contains("FAIL: 1 case run(s) did not pass (default gate: every case passes); first: geo/c7/default/local/none/1 (exit 1: a gate failed"))
        #expect(text.contains("Reports: /tmp/out/summary.md\n         /tmp/out/report.html"))
        #expect(!text.contains("\u{1B}["), "no escape codes when colour is off")
    }

    @Test("a note quoting a server's message prints its control characters escaped")
    func noteEscaped() {
        var verdict = Gate().evaluate(results, unavailableBackends: [])
        verdict.notes = ["fail fast: 2 consecutive identical failures (auth: bad\u{1B}[2J\u{202E}key)"]
        let text = TerminalSummary(color: false).run(results, verdict: verdict, directory: URL(fileURLWithPath: "/o")).joined(separator: "\n")
        #expect(text.contains("note: fail fast: 2 consecutive identical failures (auth: bad\\u{1B}[2J\\u{202E}key)"), "\(text)")
        #expect(!text.contains("\u{1B}") && !text.contains("\u{202E}"))
    }

    @Test("colour only when asked; failures past five are counted, not listed")
    func colourAndCap() {
        let failing = (1...8).map { fixtureResult(caseID: "f\($0)", status: .fail, failedAssertion: "x") }
        let verdict = Gate().evaluate(failing, unavailableBackends: [])
        let text = TerminalSummary(color: true).run(failing, verdict: verdict, directory: URL(fileURLWithPath: "/o")).joined(separator: "\n")
        #expect(text.contains("\u{1B}[31mFAIL\u{1B}[0m"))
        #expect(text.components(separatedBy: "✗").count - 1 == 5)
        #expect(text.contains("… and 3 more in summary.md"))
    }
}
