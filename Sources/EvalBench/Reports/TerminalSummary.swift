import Foundation

/// What `evalbench run` prints when a run ends: a compact headline table (one row per
/// backend × level × variant: pass rate with its interval, latency and TTFT p50/p95, cache hit,
/// cost), the gate's verdict in one line with what its exit code means, the first failures
/// with why, and where the reports are. Coloured with ANSI escapes when asked (a terminal
/// without `NO_COLOR`), plain otherwise.
package struct TerminalSummary {
    /// The most failures listed; the rest are counted.
    package static let failureLimit = 5

    package var color: Bool

    package init(color: Bool) {
        self.color = color
    }

    /// The lines for a finished run of `results` with `verdict`, written to `directory`.
    package func run(_ results: some Collection<RequestResult>, verdict: Gate.Verdict, directory: URL, comparison: String? = nil) -> [String] {
        let aggregate = RunAggregate(results)
        var lines = [""] + table(aggregate) + [""]
        lines += failures(aggregate)
        for note in verdict.notes { lines.append(paint("note: ", .dim) + TerminalText.safe(note)) }
        if let comparison { lines.append(comparison) }
        lines.append(verdictLine(verdict))
        let run = RunDirectory(directory)
        lines.append("Reports: \(run.summaryMarkdown.path)")
        lines.append("         \(run.file(RunDirectory.FileName.html).path)")
        return lines
    }

    /// The lines for `evalbench compare`: its verdict, the flips (capped) and where compare.md is.
    package func compare(_ comparison: Comparison, directory: URL) -> [String] {
        var lines = [""]
        for group in comparison.groups {
            let change = group.passRateChange.map(ComparisonText.points) ?? "n/a"
            let test = group.passRateTest.map { "\(ComparisonText.testName($0)) \(ComparisonText.pIs($0.pValue))" } ?? "no pairs"
            lines.append("  \(group.group.label): pass rate \(change), \(group.passToFail) pass → fail, \(group.failToPass) fail → pass (\(test))")
        }
        for flip in comparison.flips.prefix(Self.failureLimit) {
            let mark = flip.direction == .regressed ? paint("✗ ", .red) : paint("✓ ", .green)
            lines.append("  " + mark + TerminalText.safe("\(flip.suite)/\(flip.caseID) repeat \(flip.repeatIndex) (\(flip.group.label)): "
                + (flip.explanation.map { String($0.prefix(160)) } ?? flip.direction.rawValue)))
        }
        if comparison.flips.count > Self.failureLimit {
            lines.append("  … and \(comparison.flips.count - Self.failureLimit) more flips in compare.md")
        }
        let status = comparison.exitStatus
        let verdict = "evalbench: " + paint(comparison.verdict, status == .success ? .green : .red)
        lines += ["", verdict + " (exit \(status.rawValue): \(status.meaning))",
                  "Report: \(RunDirectory(directory).compareMarkdown.path)"]
        return lines
    }

    private func table(_ aggregate: RunAggregate) -> [String] {
        var rows = [["Backend · level · variant", "Pass rate [95% CI]", "Passed", "Latency p50/p95 ms", "TTFT p50/p95 ms",
                     "Cache hit", "Cost (USD)"]]
        for summary in aggregate.groups {
            rows.append([summary.group.label, ReportFormat.passRate(summary), "\(summary.passed)/\(summary.cases - summary.skipped)",
                         pair(summary.latencyP50Ms, summary.latencyP95Ms), pair(summary.ttftP50Ms, summary.ttftP95Ms),
                         ReportFormat.percent(summary.usage.cacheHitRatio),
                         SummaryMarkdown.cost(summary)])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.enumerated().map { index, row in
            let text = row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                            : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
            return "  " + (index == 0 ? paint(text, .bold) : text)
        }
    }

    private func failures(_ aggregate: RunAggregate) -> [String] {
        let failing = aggregate.caseRuns.filter { $0.status == .fail || $0.status == .error }
        guard !failing.isEmpty else { return [] }
        var lines = [paint("Failures", .bold) + " (\(failing.count)):"]
        for caseRun in failing.prefix(Self.failureLimit) {
            let mark = caseRun.status == .error ? paint("! ", .yellow) : paint("✗ ", .red)
            let why = Comparison.explanation(caseRun).map { String($0.prefix(160)) } ?? caseRun.status.rawValue
            lines.append("  " + mark + TerminalText.safe("\(caseRun.suite)/\(caseRun.caseID) (\(caseRun.group.label)): \(why)"))
        }
        if failing.count > Self.failureLimit {
            lines.append("  … and \(failing.count - Self.failureLimit) more in summary.md")
        }
        return lines + [""]
    }

    private func verdictLine(_ verdict: Gate.Verdict) -> String {
        let status = verdict.exitStatus
        let style: Style = switch status {
        case .success: .green
        case .gateFailed: .red
        default: .yellow
        }
        let word = paint(status.verdictWord, style)
        let why = verdict.reasons.isEmpty ? "" : ": " + TerminalText.safe(verdict.reasons.joined(separator: "; "))
        return "\(word)\(why) (exit \(status.rawValue): \(status.meaning))"
    }

    private func pair(_ first: Double?, _ second: Double?) -> String {
        "\(ReportFormat.milliseconds(first)) / \(ReportFormat.milliseconds(second))"
    }

    private enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}
