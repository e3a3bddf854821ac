/// `compare.md`: the verdict first, then one table per backend × reasoning × variant, the
/// flipped cases with why they fail, the case runs not compared, and how the figures are
/// obtained. A figure not available is `n/a`.
package enum CompareMarkdown {
    /// Most flipped or uncompared case runs listed; the rest are counted (compare.csv and the
    /// two results.jsonl have them all).
    private static let listLimit = 200
    /// Longest explanation shown before it is cut.
    private static let explanationLimit = 300

    /// The whole document; `baselineName` and `currentName` name the two runs (their directories).
    package static func render(_ comparison: Comparison, baselineName: String, currentName: String) -> String {
        [
            header(comparison, baselineName: baselineName, currentName: currentName),
            comparison.groups.map { group(comparison, $0) }.joined(separator: "\n"),
            flips(comparison),
            uncompared(comparison),
            definitions(comparison.thresholds),
        ].compactMap { $0 }.joined(separator: "\n")
    }

    private static func header(_ comparison: Comparison, baselineName: String, currentName: String) -> String {
        let paired = comparison.groups.reduce(0) { $0 + $1.pairedCaseRuns }
        let regressed = comparison.flips.filter { $0.direction == .regressed }.count
        let fixed = comparison.flips.count - regressed
        let thresholds = comparison.thresholds
        let alpha = ComparisonText.decimal(thresholds.alpha, places: 6)
        let latencyGate = thresholds.maxLatencyIncrease.map {
            ", or a latency p50 increase over \(ComparisonText.percentChange(1 + $0)) with Mann-Whitney p < \(alpha) and a larger current median"
        } ?? "; latency is not gated (`--max-latency-increase X` gates it)"
        return """
            # evalbench compare

            **\(MarkdownTable.escape(comparison.verdict)).**

            Baseline `\(baselineName)` (\(comparison.baselineCaseRuns) case runs) against current `\(currentName)` \
            (\(comparison.currentCaseRuns) case runs): \(paired) compared in pairs, \(comparison.flips.count) flipped \
            (\(regressed) pass → fail, \(fixed) fail → pass), \(comparison.uncompared.count) not compared \
            (in one run only, or skipped).

            A regression is a pass-rate drop over \(ComparisonText.points(thresholds.maxPassRateDrop).dropFirst()) \
            with p < \(alpha) in the paired test over cases\(latencyGate).

            """
    }

    private static func group(_ comparison: Comparison, _ group: GroupComparison) -> String {
        let before = group.baseline
        let after = group.current
        var table = MarkdownTable([("Figure", .left), ("Baseline", .right), ("Current", .right), ("Change", .right),
                                   ("Test", .left)])
        table.appendRow(["Model", before?.modelText ?? "n/a", after?.modelText ?? "n/a", "", ""])
        let mcNemar = group.passRateTest.map { test in
            "\(ComparisonText.testName(test)) \(ComparisonText.pIs(test.pValue)): \(group.passToFail) pass → fail, "
                + "\(group.failToPass) fail → pass of \(group.pairedCaseRuns) pairs"
                + (test.cases < group.pairedCaseRuns ? " (\(test.cases) cases, \(test.changedCases) changed)" : "")
        } ?? "n/a (no case run in both runs)"
        table.appendRow(["Pass rate [95% CI]", passRate(before), passRate(after),
                         group.passRateChange.map(ComparisonText.points) ?? "n/a", mcNemar])
        if group.uncomparedCaseRuns > 0, let paired = group.pairedPassRateChange {
            table.appendRow(["Pass rate, paired case runs", "\(group.pairedPassedBaseline)/\(group.pairedCaseRuns)",
                             "\(group.pairedPassedCurrent)/\(group.pairedCaseRuns)", ComparisonText.points(paired),
                             "\(group.uncomparedCaseRuns) case runs not compared"])
        }
        let latencyTest = mannWhitney(group.latencyMannWhitneyP,
                                      cases: (group.baselineCaseMedians.latenciesMs.count, group.currentCaseMedians.latenciesMs.count),
                                      requests: (before?.timedLatenciesMs.count ?? 0, after?.timedLatenciesMs.count ?? 0))
        let ttftTest = mannWhitney(group.ttftMannWhitneyP,
                                   cases: (group.baselineCaseMedians.ttftsMs.count, group.currentCaseMedians.ttftsMs.count),
                                   requests: (before?.timedTTFTsMs.count ?? 0, after?.timedTTFTsMs.count ?? 0))
        table.appendRow(["Latency p50 (ms)", ReportFormat.milliseconds(before?.latencyP50Ms), ReportFormat.milliseconds(after?.latencyP50Ms),
                         ratio(group.latencyP50Ratio), latencyTest])
        table.appendRow(["Latency p95 (ms)", ReportFormat.milliseconds(before?.latencyP95Ms), ReportFormat.milliseconds(after?.latencyP95Ms),
                         ratio(group.latencyP95Ratio), ""])
        table.appendRow(["TTFT p50 (ms)", ReportFormat.milliseconds(before?.ttftP50Ms), ReportFormat.milliseconds(after?.ttftP50Ms),
                         ratio(group.ttftP50Ratio), ttftTest])
        table.appendRow(["TTFT p95 (ms)", ReportFormat.milliseconds(before?.ttftP95Ms), ReportFormat.milliseconds(after?.ttftP95Ms),
                         ratio(group.ttftP95Ratio), ""])
        for (label, figure) in [("Input tokens", \UsageTotals.inputTokens), ("Cached input tokens", \UsageTotals.cachedInputTokens),
                                ("Output tokens", \UsageTotals.outputTokens)] {
            let old = before?.usage[keyPath: figure]
            let new = after?.usage[keyPath: figure]
            table.appendRow([label, old.map(String.init) ?? "n/a", new.map(String.init) ?? "n/a",
                             signedInteger(old, new), ""])
        }
        table.appendRow(["Cache hit", ReportFormat.percent(before?.usage.cacheHitRatio), ReportFormat.percent(after?.usage.cacheHitRatio),
                         group.cacheHitRatioChange.map(ComparisonText.points) ?? "n/a", ""])
        table.appendRow(["Cost (USD)", cost(before?.costUSD), cost(after?.costUSD),
                         group.costChange.map { ($0 < 0 ? "−" : "+") + cost(abs($0)) } ?? "n/a", ""])
        let findings = comparison.findings.filter { $0.group == group.group }
        let verdict: String
        if let worst = findings.first(where: { $0.kind.isWorse && $0.significant }) {
            verdict = "Regression: " + worst.text
        } else if findings.isEmpty {
            verdict = "No significant change"
        } else {
            verdict = findings.map(\.text).joined(separator: "; ")
        }
        return "## \(MarkdownTable.escape(group.group.label))\n\n\(MarkdownTable.escape(verdict)).\n\n" + table.text
    }

    private static func flips(_ comparison: Comparison) -> String {
        let heading = "## Flipped cases\n\n"
        guard !comparison.flips.isEmpty else { return heading + "No case run changed between pass and not-pass.\n" }
        var table = MarkdownTable([("Case", .left), ("Backend · reasoning · variant", .left), ("Repeat", .right),
                                   ("Flip", .left), ("Why it does not pass", .left)])
        // Regressions first: they are what a reader of a failed build looks for.
        let ordered = comparison.flips.filter { $0.direction == .regressed } + comparison.flips.filter { $0.direction == .fixed }
        for flip in ordered.prefix(listLimit) {
            let side = flip.direction == .regressed ? "current run" : "baseline"
            let why = flip.explanation.map { "\(side): " + MarkdownTable.truncate($0, to: explanationLimit) } ?? "n/a"
            table.appendRow(["\(flip.suite)/\(flip.caseID)", flip.group.label, String(flip.repeatIndex),
                             "\(flip.baselineStatus.rawValue) → \(flip.currentStatus.rawValue)", why])
        }
        let more = ordered.count > listLimit ? "\n\(ordered.count - listLimit) more flips are not listed.\n" : ""
        return heading + "Case runs that passed in one run and failed or errored in the other, with the failing "
            + "side's first failed assertion or error.\n\n" + table.text + more
    }

    private static func uncompared(_ comparison: Comparison) -> String? {
        guard !comparison.uncompared.isEmpty else { return nil }
        var table = MarkdownTable([("Case run", .left), ("Baseline", .left), ("Current", .left), ("Why not compared", .left)])
        for item in comparison.uncompared.prefix(listLimit) {
            table.appendRow([item.key, item.baselineStatus?.rawValue ?? "—", item.currentStatus?.rawValue ?? "—",
                             item.reason.rawValue])
        }
        let more = comparison.uncompared.count > listLimit ? "\n\(comparison.uncompared.count - listLimit) more are not listed.\n" : ""
        return "## Not compared\n\nCase runs in one run only, or skipped in either: counted here, never as flips, "
            + "and left out of McNemar's test.\n\n" + table.text + more
    }

    private static func definitions(_ thresholds: ComparisonThresholds) -> String {
        """
        ## How these figures are obtained

        - Case runs are joined by key `suite/case/variant/backend/reasoning/repeat`. A case run passes when every \
        turn passes; an error counts as not passing. Pairs where either side was skipped, and keys in one run \
        only, are listed apart and not tested.
        - Pass rate = passed / (case runs − skipped) in each run, with its 95% interval clustered by case: \
        the Wilson score interval with the number of distinct cases as n, as repeats of one case are not \
        independent. The change is current − baseline in percentage points.
        - The pass-rate test treats the case as the unit: each case's change in pass fraction k/N between the \
        runs, tested with the exact sign-flip (paired permutation) test; asking the same question again does \
        not add evidence. When every changed case changed wholly (always so with one repeat) this is McNemar's \
        exact test: b pass → fail, c fail → pass, p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, ½), \
        and 1 with no flips. Suites too large to enumerate use the test's normal approximation.
        - Latency and TTFT: nearest-rank p50 and p95 over the successful requests timed in each run \
        (answers replayed from another run, from the response cache or from a fallback are left out); \
        the change is the ratio current / baseline. The two-sided Mann-Whitney U test compares the two runs' \
        cases, each by the median of its timed requests over every repeat and turn (normal approximation with \
        tie and continuity corrections): repeats of one case are not independent, so they do not make a change \
        more significant. With one timed request per case it is the test over the timed requests.
        - Tokens are sums over the requests that reported them; the cache-hit ratio is Σ cached / Σ input \
        (token-weighted); cost is shown when both runs priced their requests.
        - Exit code 1 only for a change past its threshold that is also significant at alpha: a drop in the \
        paired pass rate over --max-pass-rate-drop with the paired test's p < alpha, or a latency p50 ratio − 1 over \
        --max-latency-increase with Mann-Whitney p < alpha and a larger current median. A change past its \
        threshold that is not significant is reported as such and exits 0.

        """
    }

    /// `100.0% [80.6–100.0] (16/16)`.
    private static func passRate(_ summary: GroupSummary?) -> String {
        guard let summary, let rate = summary.passRate, let low = summary.passRateLow, let high = summary.passRateHigh else {
            return "n/a"
        }
        return "\(ReportFormat.percent(rate)) [\(ReportFormat.percent(low))–\(ReportFormat.percent(high))] (\(summary.passed)/\(summary.cases - summary.skipped))"
    }

    /// `×1.25 (+25.0%)`.
    private static func ratio(_ value: Double?) -> String {
        guard let value, let text = DecimalText.fixed(value, places: 2) else { return "n/a" }
        return "×\(text) (\(ComparisonText.percentChange(value)))"
    }

    /// `Mann-Whitney p = 0.012 (24 and 24 cases)`, with the timed requests when cases have more than one.
    private static func mannWhitney(_ p: Double?, cases: (Int, Int), requests: (Int, Int)) -> String {
        guard let p else { return "n/a (no timed requests in one run)" }
        let casesText = "\(cases.0) and \(cases.1) cases"
        return "Mann-Whitney \(ComparisonText.pIs(p)) ("
            + (requests == cases ? casesText : casesText + "; \(requests.0) and \(requests.1) timed requests") + ")"
    }

    private static func signedInteger(_ old: Int?, _ new: Int?) -> String {
        guard let old, let new else { return "n/a" }
        let change = new - old
        return change == 0 ? "±0" : change < 0 ? "−\(-change)" : "+\(change)"
    }

    private static func cost(_ value: Double?) -> String {
        value.flatMap { DecimalText.trimmed($0, maxPlaces: 6) } ?? "n/a"
    }
}
