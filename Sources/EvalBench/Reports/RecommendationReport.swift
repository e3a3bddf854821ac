/// `recommendation.csv`: one row per tag × backend × reasoning × variant, the pick marked.
package enum RecommendationCSV {
    /// The column names, in order. Figures are formatted as in summary.csv; the tag-wide
    /// columns (`cases`, `target`, `fits_on_device`, …) repeat on each of the tag's rows.
    package static let columns = [
        "tag", "cases", "target", "target_source", "backend", "model", "reasoning", "variant",
        "case_runs", "passed", "pass_rate", "pass_rate_low", "pass_rate_high", "meets_target",
        "latency_p50_ms", "latency_p95_ms", "ttft_p50_ms", "ttft_p95_ms", "meets_latency_targets", "goodput",
        "cost_usd", "cost_per_1000_cases_usd", "fits_on_device", "largest_case_tokens_estimated",
        "pcc_requests_per_task", "recommended",
    ]

    package static func render(_ recommendations: [TagRecommendation]) -> String {
        var csv = CSVWriter(header: columns)
        for recommendation in recommendations {
            for (index, candidate) in recommendation.candidates.enumerated() {
                let summary = candidate.summary
                csv.append([
                    .text(recommendation.label),
                    .integer(recommendation.cases),
                    .trimmed(recommendation.target, maxPlaces: 4),
                    .text(recommendation.targetSource),
                    .text(summary.group.backend),
                    .text(summary.model),
                    .text(summary.group.reasoning.rawValue),
                    .text(summary.group.variant),
                    .integer(summary.cases - summary.skipped),
                    .integer(summary.passed),
                    .fixed(summary.passRate, places: 4),
                    .fixed(summary.passRateLow, places: 4),
                    .fixed(summary.passRateHigh, places: 4),
                    .text(String(candidate.meetsTarget)),
                    .fixed(summary.latencyP50Ms, places: 2),
                    .fixed(summary.latencyP95Ms, places: 2),
                    .fixed(summary.ttftP50Ms, places: 2),
                    .fixed(summary.ttftP95Ms, places: 2),
                    .text(candidate.meetsLatency.map(String.init)),
                    .fixed(summary.goodput, places: 4),
                    .trimmed(summary.costUSD, maxPlaces: 6),
                    .trimmed(summary.costPerThousandCasesUSD, maxPlaces: 6),
                    .text(recommendation.onDevice.largestTokens == nil && recommendation.onDevice.measuredOverflowing.isEmpty
                          ? nil : String(recommendation.onDevice.fits)),
                    .integer(recommendation.onDevice.largestTokens),
                    .trimmed(recommendation.pccMeasuredRequestsPerTask ?? recommendation.pccRequestsPerTask, maxPlaces: 2),
                    .text(String(recommendation.recommendedIndex == index)),
                ])
            }
        }
        return csv.text
    }
}

/// The "Recommendation" section of summary.md: a short table, then one sentence per tag.
package enum RecommendationMarkdown {
    /// The table's columns, for summary.md and report.html alike.
    static let header = ["Tag", "Cases", "Target", "Recommended", "Pass rate [95% CI]", "Latency p50 / p95 (ms)", "Goodput",
                         "Cost per 1,000 cases (USD)", "Fits on-device", "PCC requests per task"]

    /// One row per tag: the pick, or the closest candidate when none qualifies.
    static func rows(_ recommendations: [TagRecommendation]) -> [[String]] {
        recommendations.map { recommendation in
            let shown = recommendation.recommended ?? recommendation.closest
            return [
                recommendation.label,
                String(recommendation.cases),
                ReportFormat.percent(recommendation.target),
                recommendation.recommended.map { $0.summary.group.label }
                    ?? "none meets it" + (shown.map { " (closest: \($0.summary.group.label))" } ?? ""),
                shown.map { ReportFormat.passRate($0.summary) } ?? "n/a",
                shown.map { "\(ReportFormat.milliseconds($0.summary.latencyP50Ms)) / \(ReportFormat.milliseconds($0.summary.latencyP95Ms))" } ?? "n/a",
                ReportFormat.percent(shown?.summary.goodput),
                shown?.summary.costPerThousandCasesUSD.flatMap { DecimalText.trimmed($0, maxPlaces: 6) } ?? "n/a",
                fitText(recommendation.onDevice),
                (recommendation.pccMeasuredRequestsPerTask ?? recommendation.pccRequestsPerTask)
                    .flatMap { DecimalText.trimmed($0, maxPlaces: 2) } ?? "n/a",
            ]
        }
    }

    /// How the pick is made, for the section's first paragraph.
    static let method = "Per tag, the backend × reasoning × variant whose pass rate's 95% lower bound reaches the target and whose "
        + "p95 latency and p95 TTFT are within the suite's `slo`, at the lowest cost per 1,000 cases, then the lowest "
        + "p50 latency. Target from `--target`, else the suite's `target`, else \(ReportFormat.percent(RecommendationSettings.defaultTarget)). "
        + "Context fit is estimated from the recorded text (\(TokenEstimate.rule)) "
        + "(instructions, the conversation so far and the answer); the on-device model's tokenizer is not available here. "
        + "recommendation.csv has every candidate."

    /// Why an interrupted run makes no recommendation: its candidates ran different parts of
    /// the plan, so a pick between them could turn on which requests happened to finish.
    static let withheld = "No recommendation: the run was interrupted, so the candidates' figures cover different parts "
        + "of the plan and a pick between them could turn on which requests happened to finish. Finish the run with "
        + "`evalbench run … --resume DIR` (or `evalbench run` again) for a recommendation; recommendation.csv has each "
        + "candidate's figures so far, none marked recommended."

    /// Why a partial merge makes no recommendation: its figures leave out whole shards' cases.
    static let withheldFromPartialMerge = "No recommendation: the merge is partial (`--allow-partial`), so the figures leave out "
        + "the cases of the missing or unfinished shards and a pick could turn on which shards were there. Run or finish those "
        + "shards and merge again for a recommendation; recommendation.csv has each candidate's figures so far, none marked recommended."

    /// The section; when `withheld` (an interrupted run or a partial merge), only that sentence
    /// saying why no recommendation is made.
    package static func render(_ recommendations: [TagRecommendation], withheld: String? = nil) -> String? {
        guard !recommendations.isEmpty else { return nil }
        if let withheld { return "## Recommendation\n\n" + withheld + "\n" }
        let tooFew = tooFewCases(recommendations).map { "\n" + $0 + "\n" } ?? ""
        if let single = singleCandidate(recommendations) { return "## Recommendation\n\n" + single + "\n" + tooFew }
        var table = MarkdownTable(header.enumerated().map { index, heading in
            (heading, [1, 2, 4, 5, 6, 7, 9].contains(index) ? .right : .left)
        })
        for row in rows(recommendations) { table.appendRow(row) }
        var text = "## Recommendation\n\n" + method + "\n\n"
        text += table.text + "\n"
        text += recommendations.map { "- " + sentence($0) }.joined(separator: "\n") + "\n"
        return text + tooFew
    }

    /// With one candidate there is nothing to choose between: what a choice would need; nil
    /// when two or more candidates ran.
    static func singleCandidate(_ recommendations: [TagRecommendation]) -> String? {
        guard recommendations.allSatisfy({ $0.candidates.count < 2 }) else { return nil }
        let only = recommendations.first?.candidates.first.map { " (\($0.summary.group.label))" } ?? ""
        return "Only one backend × reasoning × variant ran\(only), so there is nothing to choose "
            + "between: run another backend or reasoning level beside it (`--backend local,gpt`, `--reasoning none,light`) "
            + "for a recommendation per tag. recommendation.csv has its figures against the target."
    }

    /// The cases a tag needs before any candidate can reach `target` at 95% confidence: the
    /// Wilson lower bound of n passes out of n is n / (n + z²), so n ≥ z² · target / (1 − target).
    /// Nil for a target of 1, which no finite suite reaches.
    static func casesNeeded(for target: Double, z: Double = 1.959964) -> Int? {
        guard target < 1 else { return nil }
        guard target > 0 else { return 1 }
        return Int((z * z * target / (1 - target)).rounded(.up))
    }

    /// One sentence naming the tags too small to reach their target even if every case
    /// passed, with the number of cases each would need; nil when none is.
    static func tooFewCases(_ recommendations: [TagRecommendation]) -> String? {
        let small = recommendations.compactMap { recommendation -> String? in
            guard let needed = casesNeeded(for: recommendation.target) else {
                return "\(recommendation.label) (a 100% target: no number of cases reaches it at 95% confidence)"
            }
            return recommendation.cases < needed ? "\(recommendation.label) (\(recommendation.cases) of the \(needed) cases a \(ReportFormat.percent(recommendation.target)) target needs)" : nil
        }
        guard !small.isEmpty else { return nil }
        return "Too few cases to reach the target at 95% confidence even if every case passed: " + small.joined(separator: "; ")
            + ". Add cases (repeats do not count: they are samples within a case), or lower the target."
    }

    /// One sentence saying what to use for the tag, and why; the tag in bold Markdown unless `markdown` is false.
    package static func sentence(_ recommendation: TagRecommendation, markdown: Bool = true) -> String {
        let cases = "\(recommendation.cases) case\(recommendation.cases == 1 ? "" : "s")"
        var text = (markdown ? "**\(recommendation.label)**" : recommendation.label) + " (\(cases)): "
        let target = ReportFormat.percent(recommendation.target)
        if let pick = recommendation.recommended {
            let summary = pick.summary
            text += "use \(summary.group.label): pass rate \(ReportFormat.passRate(summary)) meets the \(target) target"
            if recommendation.slo != nil { text += " within the latency targets" }
            text += ", at " + (summary.costPerThousandCasesUSD.flatMap { DecimalText.trimmed($0, maxPlaces: 6) }.map { "$\($0)" } ?? "an unknown cost")
            text += " per 1,000 cases, p50 latency \(ReportFormat.millisecondsWithUnit(summary.latencyP50Ms))"
            if let goodput = summary.goodput { text += ", goodput \(ReportFormat.percent(goodput))" }
            text += "."
        } else if let closest = recommendation.closest {
            let summary = closest.summary
            let reaching = recommendation.candidates.filter(\.meetsTarget)
            if reaching.isEmpty {
                text += "no backend × level reaches the \(target) target at 95% confidence; the closest is \(summary.group.label) "
                text += "at \(ReportFormat.passRate(summary)). Add cases to narrow the interval (repeats do not: they are samples within a case), or lower the target."
            } else {
                text += reaching.map { $0.summary.group.label }.joined(separator: ", ")
                text += " reach\(reaching.count == 1 ? "es" : "") the \(target) target but miss the latency targets."
            }
        } else {
            text += "nothing ran."
        }
        let fit = recommendation.onDevice
        if !fit.measuredOverflowing.isEmpty {
            text += " On-device, \(fit.measuredOverflowing.joined(separator: ", ")) overflowed the context window (measured)."
        } else if let largest = fit.largestTokens {
            text += fit.fits
                ? " Every case fits the on-device \(fit.window)-token window (largest about \(largest) tokens, estimated)."
                : " \(fit.overflowing.count) case\(fit.overflowing.count == 1 ? "" : "s") would not fit the on-device \(fit.window)-token window (estimated): \(fit.overflowing.joined(separator: ", "))."
        }
        if let measured = recommendation.pccMeasuredRequestsPerTask {
            text += " On Private Cloud Compute each task spent \(DecimalText.trimmed(measured, maxPlaces: 2) ?? "?") requests of a user's daily quota (measured, retries included)."
        } else if let planned = recommendation.pccRequestsPerTask {
            let count = DecimalText.trimmed(planned, maxPlaces: 2) ?? "?"
            text += " On Private Cloud Compute each task would spend \(count) request\(planned == 1 ? "" : "s") of a user's daily quota."
        }
        return text
    }

    static func fitText(_ fit: OnDeviceFit) -> String {
        if !fit.measuredOverflowing.isEmpty { return "no: \(fit.measuredOverflowing.count) overflowed (measured)" }
        guard let largest = fit.largestTokens else { return "n/a" }
        return fit.fits ? "yes (≤ \(largest) of \(fit.window), est.)" : "no: \(fit.overflowing.count) over \(fit.window) (est.)"
    }

}

/// The recommendation as a section of report.html: the same table and sentences as summary.md.
package enum RecommendationHTML {
    package static func section(_ recommendations: [TagRecommendation], withheld: String? = nil) -> HTMLSection? {
        guard !recommendations.isEmpty else { return nil }
        func plain(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "") }
        if let withheld { return HTMLSection(title: "Recommendation", paragraphs: [plain(withheld)]) }
        if let single = RecommendationMarkdown.singleCandidate(recommendations) {
            return HTMLSection(title: "Recommendation",
                               paragraphs: [single, RecommendationMarkdown.tooFewCases(recommendations)].compactMap { $0 }.map(plain))
        }
        return HTMLSection(
            title: "Recommendation",
            paragraphs: [RecommendationMarkdown.method.replacingOccurrences(of: "`", with: "")],
            table: HTMLTable(header: RecommendationMarkdown.header, rows: RecommendationMarkdown.rows(recommendations)),
            items: recommendations.map { RecommendationMarkdown.sentence($0, markdown: false) })
    }
}
