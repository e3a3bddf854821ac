import Foundation

/// `summary.md`: the comparison report: headline table, backend notes, case matrix, cache
/// behaviour by turn, errors and the metric definitions. A figure not reported is `n/a`.
package enum SummaryMarkdown {
    /// Longest error message shown before it is cut.
    private static let messageLimit = 120
    /// Longest assertion explanation shown before it is cut.
    private static let explanationLimit = 300
    /// Most failed assertions listed; the rest are counted, and all are in results.jsonl.
    private static let failureLimit = 50
    /// Most flaky cases listed; the rest are counted, and every case's k/N is in cases.csv.
    package static let flakyLimit = 50

    /// The whole document for `input`, aggregated as `aggregate`; `recommendations` and
    /// `charts` are computed from `input` when not given.
    package static func render(_ input: ReportInput, aggregate: RunAggregate,
                              recommendations: [TagRecommendation]? = nil, charts chartSet: ChartSet? = nil) -> String {
        [
            input.interruption.map { "> **\(MarkdownTable.escape($0))**\n" },
            input.partialMerge.map { "> **\(MarkdownTable.escape($0))**\n" },
            title(input, aggregate: aggregate),
            input.verdict.map { verdict($0, note: input.verdictNote) },
            headline(aggregate),
            RecommendationMarkdown.render(recommendations ?? Recommendation.compute(input.results, settings: input.recommendation),
                                          withheld: input.recommendationWithheld),
            latencyPercentiles(aggregate),
            repeats(aggregate),
            flakyCases(aggregate),
            backendNotes(input, aggregate: aggregate),
            reasoningLevels(input, aggregate: aggregate),
            variantComparison(input.results, aggregate: aggregate),
            cases(aggregate),
            failures(aggregate),
            namedMetrics(aggregate),
            ToolsSection.render(aggregate),
            gradingCalls(input.results),
            cacheByTurn(aggregate, results: input.results),
            // Only a result kept whole can carry details.
            RequestDetailsSection.render(input.results.keptWhole),
            errors(aggregate),
            charts(chartSet ?? ChartSet(aggregate)),
            "## Definitions\n\n" + MetricDefinitions.markdown,
        ].compactMap { $0 }.joined(separator: "\n")
    }

    private static func title(_ input: ReportInput, aggregate: RunAggregate) -> String {
        let dates = ISO8601DateFormatter()
        let suites = input.suiteNames.isEmpty ? "no suites" : input.suiteNames.joined(separator: ", ")
        return """
            # evalbench: \(suites)\(input.shard.map { " (shard \($0))" } ?? "")
            \(input.shard.map { "\nThis is shard \($0) of a sharded run: these figures cover its cases only; `evalbench merge` gives the whole run's.\n" } ?? "")
            Run from \(dates.string(from: input.startedAt)) to \(dates.string(from: input.endedAt)) \
            (\(duration(input.endedAt.timeIntervalSince(input.startedAt)))): \(input.results.count) requests, \
            \(aggregate.caseRuns.count) case runs, \(aggregate.groups.count) backend × reasoning × variant.
            \(cachedNote(input.results))\(suspectNote(input.results))
            """
    }

    /// The verdict the run ended with, first after the title (a step summary trimmed to
    /// GitHub's limit keeps it): the word, the exit code, why, what the gates checked, notes.
    static func verdict(_ verdict: RecordedVerdict, note: String?) -> String {
        var text = "## Verdict\n\n**\(MarkdownTable.escape(verdict.status))**: exit \(verdict.exitCode)"
            + (verdict.meaning.map { " (\($0))" } ?? "") + "\n"
        if let note { text += "\n" + MarkdownTable.escape(note) + "\n" }
        func list(_ title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            text += "\n\(title)\n\n"
            for item in items.prefix(RecordedVerdict.listLimit) { text += "- " + MarkdownTable.escape(item) + "\n" }
            if items.count > RecordedVerdict.listLimit { text += "- … and \(items.count - RecordedVerdict.listLimit) more in run.json\n" }
        }
        list("Why:", verdict.reasons)
        list("Gates checked:", verdict.checks)
        list("Notes:", verdict.notes)
        return text
    }

    /// Says how many requests reported usage that cannot be true, if any did: their figures
    /// are in results.jsonl as reported, and left out of every sum, ratio and cost here.
    private static func suspectNote(_ results: ResultTable) -> String {
        let suspect = results.indices.filter { results.usage(at: $0).implausibility != nil }
        guard let first = suspect.first.map({ results[$0] }) else { return "" }
        return "\n\(suspect.count) of \(results.count) requests reported impossible or unreadable usage (first: \(first.key), "
            + MarkdownTable.escape(first.usage.implausibility ?? "") + "): kept as reported (an unreadable count as unknown) in results.jsonl with `usage.suspect`, "
            + "and left out of the token sums, cache-hit ratios and costs below.\n"
    }

    /// Says how many answers came from evalbench's response cache, if any did.
    private static func cachedNote(_ results: ResultTable) -> String {
        // Only a result kept whole can have come from the response cache.
        let cached = results.keptWhole.filter { $0.cached == true }.count
        guard cached > 0 else { return "" }
        return "\n\(cached) of \(results.count) answers came from evalbench's response cache (`--cache`): graded again, "
            + "and left out of the latency and TTFT figures (their timings are the original requests').\n"
    }

    private static func headline(_ aggregate: RunAggregate) -> String {
        "## Results\n\n" + headlineTable(aggregate) + intervalMethod(aggregate)
    }

    /// Says how the intervals were obtained when some case ran more than once: over how many
    /// independent cases, as repeats are samples within a case.
    private static func intervalMethod(_ aggregate: RunAggregate) -> String {
        let repeated = aggregate.groups.filter { $0.distinctCases > 0 && $0.cases - $0.skipped > $0.distinctCases }
        guard !repeated.isEmpty else { return "" }
        let counts = repeated.map { "\($0.group.label): \($0.cases - $0.skipped) case runs of \($0.distinctCases) cases" }
        return "\nPass-rate intervals are clustered by case (the Wilson interval with the number of distinct cases as n), "
            + "as repeats of a case are not independent: " + counts.joined(separator: "; ") + ".\n"
    }

    /// The headline table: one row per backend × reasoning × variant.
    package static func headlineTable(_ aggregate: RunAggregate) -> String {
        var table = MarkdownTable([
            ("Backend", .left), ("Model", .left), ("Reasoning", .left), ("Variant", .left),
            ("Pass rate [95% CI]", .right), ("Passed", .right), ("Errors", .right), ("Skipped", .right),
            ("Latency p50 / p95 (ms)", .right), ("TTFT p50 / p95 (ms)", .right), ("Input tokens", .right),
            ("Cached tokens", .right), ("Output tokens", .right), ("Cache hit", .right), ("Cost (USD)", .right),
        ])
        for summary in aggregate.groups {
            table.appendRow([
                summary.group.backend,
                summary.modelText ?? "n/a",
                summary.group.reasoning.rawValue,
                summary.group.variant,
                ReportFormat.passRate(summary),
                "\(summary.passed)/\(summary.cases - summary.skipped)",
                String(summary.errors),
                String(summary.skipped),
                pair(summary.latencyP50Ms, summary.latencyP95Ms),
                pair(summary.ttftP50Ms, summary.ttftP95Ms),
                tokens(summary.usage, .input),
                tokens(summary.usage, .cached),
                tokens(summary.usage, .output),
                ReportFormat.percent(summary.usage.cacheHitRatio),
                cost(summary),
            ])
        }
        return table.text
    }

    /// p50/p90/p95/p99 of latency and TTFT, and goodput where a suite declares an `slo`.
    private static func latencyPercentiles(_ aggregate: RunAggregate) -> String? {
        guard !aggregate.groups.isEmpty else { return nil }
        let withGoodput = aggregate.groups.contains { $0.sloRequests > 0 }
        let withReplayed = aggregate.groups.contains { $0.replayedRequests > 0 }
        var columns: [(heading: String, alignment: MarkdownTable.Alignment)] = [
            ("Backend", .left), ("Reasoning", .left), ("Variant", .left),
            ("Latency p50 / p90 / p95 / p99 (ms)", .right), ("TTFT p50 / p90 / p95 / p99 (ms)", .right),
        ]
        if withGoodput { columns.append(("Goodput", .right)) }
        if withReplayed { columns.append(("Replayed (not timed)", .right)) }
        var table = MarkdownTable(columns)
        for summary in aggregate.groups {
            var row = [
                summary.group.backend, summary.group.reasoning.rawValue, summary.group.variant,
                [summary.latencyP50Ms, summary.latencyP90Ms, summary.latencyP95Ms, summary.latencyP99Ms]
                    .map(ReportFormat.milliseconds).joined(separator: " / "),
                [summary.ttftP50Ms, summary.ttftP90Ms, summary.ttftP95Ms, summary.ttftP99Ms]
                    .map(ReportFormat.milliseconds).joined(separator: " / "),
            ]
            if withGoodput {
                row.append(summary.goodput.map { "\(ReportFormat.percent($0)) (\(summary.goodRequests)/\(summary.sloRequests))" } ?? "n/a")
            }
            if withReplayed { row.append(String(summary.replayedRequests)) }
            table.appendRow(row)
        }
        var text = "## Latency percentiles\n\nNearest-rank over successful requests timed in this run"
        if withGoodput {
            text += "; goodput is the share of requests run under the suite's `slo` that succeeded within every declared target"
        }
        return text + ".\n\n" + table.text + "\n" + bootstrapIntervals(aggregate)
    }

    /// 95% case bootstrap intervals of each group's latency and TTFT percentiles, once a group
    /// has ``minimumBootstrapSampleSize`` timed cases (computed by the aggregate, from each
    /// case's timed requests: `GroupSummary.latencyIntervals`).
    private static func bootstrapIntervals(_ aggregate: RunAggregate) -> String {
        var table = MarkdownTable([("Backend", .left), ("Reasoning", .left), ("Variant", .left), ("Measure", .left),
                                   ("Timed requests", .right), ("Cases", .right), ("p50 [95% CI]", .right),
                                   ("p90 [95% CI]", .right), ("p95 [95% CI]", .right), ("p99 [95% CI]", .right)])
        for summary in aggregate.groups {
            let rows = [("Latency (ms)", summary.timedLatenciesMs.count, summary.timedLatencyCases, summary.latencyIntervals,
                         [summary.latencyP50Ms, summary.latencyP90Ms, summary.latencyP95Ms, summary.latencyP99Ms]),
                        ("TTFT (ms)", summary.timedTTFTsMs.count, summary.timedTTFTCases, summary.ttftIntervals,
                         [summary.ttftP50Ms, summary.ttftP90Ms, summary.ttftP95Ms, summary.ttftP99Ms])]
            for (measure, requests, cases, intervals, estimates) in rows {
                var row = [summary.group.backend, summary.group.reasoning.rawValue, summary.group.variant, measure,
                           String(requests), cases.map(String.init) ?? "n/a"]
                if let intervals {
                    row += zip(estimates, intervals).map { estimate, interval in
                        "\(ReportFormat.milliseconds(estimate)) [\(ReportFormat.milliseconds(interval.low))–\(ReportFormat.milliseconds(interval.high))]"
                    }
                } else {
                    row += estimates.map { "\(ReportFormat.milliseconds($0)) [n/a]" }
                }
                table.appendRow(row)
            }
        }
        return """
            ### Bootstrap 95% intervals

            Percentile bootstrap over cases: \(GroupSummary.bootstrapResamples) resamples, each drawing as many \
            cases as timed, with replacement, from a SplitMix64 generator with the fixed seed \
            0x\(String(GroupSummary.bootstrapSeed, radix: 16, uppercase: true)); a case drawn brings all its timed \
            requests (every repeat and turn), so repeats do not narrow the interval as more cases would. Each \
            resample's nearest-rank percentile, and the 2.5th and 97.5th percentiles of those. With one timed \
            request per case this is the bootstrap over requests. A group with fewer than \(minimumBootstrapSampleSize) \
            timed cases gets no interval (`n/a`).


            """ + table.text
    }

    /// pass^N per group, when any case ran more than once.
    private static func repeats(_ aggregate: RunAggregate) -> String? {
        guard aggregate.repeats.contains(where: { $0.ran > 1 }) else { return nil }
        var table = MarkdownTable([("Backend", .left), ("Reasoning", .left), ("Variant", .left),
                                   ("Cases", .right), ("pass^N (every repeat passed)", .right), ("Flaky", .right)])
        // One pass over the case repeats, not one per group.
        var flakyByGroup: [SummaryGroupKey: Int] = [:]
        for item in aggregate.repeats where item.isFlaky { flakyByGroup[item.group, default: 0] += 1 }
        for summary in aggregate.groups {
            table.appendRow([summary.group.backend, summary.group.reasoning.rawValue, summary.group.variant,
                             String(summary.distinctCases),
                             "\(summary.casesPassingEveryRepeat)/\(summary.distinctCases)", String(flakyByGroup[summary.group] ?? 0)])
        }
        return "## Repeats\n\n" + table.text
    }

    /// Cases that passed on some repeats and not on others (0 < k < N): the first `flakyLimit`
    /// in plan order, and how many more there are.
    private static func flakyCases(_ aggregate: RunAggregate) -> String? {
        guard aggregate.repeats.contains(where: { $0.ran > 1 }) else { return nil }
        var table = MarkdownTable([("Suite", .left), ("Case", .left), ("Backend", .left), ("Reasoning", .left),
                                   ("Variant", .left), ("Passed k/N", .right)])
        var total = 0
        for item in aggregate.repeats where item.isFlaky {
            total += 1
            guard total <= flakyLimit else { continue }
            table.appendRow([item.suite, item.caseID, item.group.backend, item.group.reasoning.rawValue,
                             item.group.variant, "\(item.passed)/\(item.ran)"])
        }
        guard total > 0 else { return "## Flaky cases\n\nNone: every case passed on all its repeats or on none.\n" }
        let more = total > flakyLimit
            ? "\n\(total - flakyLimit) more flaky cases (case × backend × reasoning × variant) are not listed; "
                + "every case's k/N is in cases.csv.\n"
            : ""
        return "## Flaky cases\n\n" + table.text + more
    }

    private static func backendNotes(_ input: ReportInput, aggregate: RunAggregate) -> String? {
        guard !input.backendNotes.isEmpty else { return nil }
        var seen: Set<String> = []
        let backendsRun = aggregate.groups.map(\.group.backend).filter { seen.insert($0).inserted }
        let backends = backendsRun.filter { input.backendNotes[$0] != nil }
            + input.backendNotes.keys.filter { !seen.contains($0) }.sorted()
        let items = backends.compactMap { backend in
            input.backendNotes[backend].map { "- **\(backend)**: " + MarkdownTable.escape($0) }
        }
        return "## Backends\n\n" + items.joined(separator: "\n") + "\n"
    }

    /// Per backend and variant, each level's mapping and what it adds over `none`; nil when the
    /// whole run was at `none`.
    private static func reasoningLevels(_ input: ReportInput, aggregate: RunAggregate) -> String? {
        guard aggregate.groups.contains(where: { $0.group.reasoning != .none }) else { return nil }
        var table = MarkdownTable([
            ("Backend · variant", .left), ("Level", .left), ("Sent as", .left), ("Pass rate", .right),
            ("Δ pass rate", .right), ("Latency p50 (ms)", .right), ("Δ latency", .right),
            ("TTFA p50 (ms)", .right), ("Δ TTFA", .right), ("Reasoning tok/req", .right),
            ("Δ reasoning tok", .right), ("Output tok/req", .right), ("Δ cost (USD)", .right),
        ])
        var order: [String] = []
        var byBackendVariant: [String: [GroupSummary]] = [:]
        for summary in aggregate.groups {
            let key = "\(summary.group.backend) · \(summary.group.variant)"
            if byBackendVariant[key] == nil { order.append(key) }
            byBackendVariant[key, default: []].append(summary)
        }
        for key in order {
            let summaries = byBackendVariant[key]!.sorted { $0.group.reasoning < $1.group.reasoning }
            let baseline = summaries.first { $0.group.reasoning == .none }
            for summary in summaries {
                let level = summary.group.reasoning
                let isBaseline = level == .none
                func delta(_ value: Double?, _ base: Double?, places: Int = 1, suffix: String = "") -> String {
                    if isBaseline { return "baseline" }
                    guard let value, let base else { return "n/a" }
                    return signed(value - base, places: places) + suffix
                }
                let sentAs = input.reasoningMappings[summary.group.backend]?[level.rawValue] ?? "n/a"
                table.appendRow([
                    key, level.rawValue, sentAs,
                    ReportFormat.percent(summary.passRate),
                    delta(summary.passRate.map { $0 * 100 }, baseline?.passRate.map { $0 * 100 }, suffix: " pp"),
                    ReportFormat.milliseconds(summary.latencyP50Ms),
                    delta(summary.latencyP50Ms, baseline?.latencyP50Ms),
                    ReportFormat.milliseconds(summary.ttfaP50Ms),
                    delta(summary.ttfaP50Ms, baseline?.ttfaP50Ms),
                    ReportFormat.oneDecimal(summary.reasoningTokensPerRequest),
                    delta(summary.reasoningTokensPerRequest, baseline?.reasoningTokensPerRequest),
                    ReportFormat.oneDecimal(summary.outputTokensPerRequest),
                    delta(summary.costUSD, baseline?.costUSD, places: 6),
                ])
            }
        }
        return "## Reasoning levels\n\n"
            + "What each level was sent as, and what it adds over `none` on the same backend and variant: "
            + "medians over successful requests, tokens per request over the requests that reported them, "
            + "pass-rate differences in percentage points. A level a backend cannot honour is skipped, with its reason.\n\n"
            + table.text
    }

    /// Prompt variants side by side per backend and level: pass rate, what the instructions
    /// cost in tokens, latency, and the cases whose verdict differs between variants. Nil when
    /// the run has one variant.
    private static func variantComparison(_ results: some Collection<RequestResult>, aggregate: RunAggregate) -> String? {
        let variants = Set(aggregate.groups.map(\.group.variant))
        guard variants.count > 1 else { return nil }
        var instructionTokens: [SummaryGroupKey: (sum: Int, count: Int)] = [:]
        for result in results where result.status == .pass || result.status == .fail {
            let key = SummaryGroupKey(result)
            let tokens = TokenEstimate.tokens(in: result.instructions ?? "")
            instructionTokens[key, default: (0, 0)].sum += tokens
            instructionTokens[key, default: (0, 0)].count += 1
        }
        var table = MarkdownTable([
            ("Backend · reasoning", .left), ("Variant", .left), ("Pass rate [95% CI]", .right), ("Passed", .right),
            ("Instruction tokens/request (est.)", .right), ("Input tokens/request", .right),
            ("Latency p50 (ms)", .right), ("TTFT p50 (ms)", .right),
        ])
        for summary in aggregate.groups.sorted(by: { ($0.group.backend, $0.group.reasoning, $0.group.variant) < ($1.group.backend, $1.group.reasoning, $1.group.variant) }) {
            let instructions = instructionTokens[summary.group].map { $0.count > 0 ? Double($0.sum) / Double($0.count) : 0 }
            let requests = summary.usage.reported(.input)
            let inputPerRequest = requests > 0 ? Double(summary.usage.reportedTotal(.input)) / Double(requests) : nil
            table.appendRow([
                "\(summary.group.backend) · \(summary.group.reasoning.rawValue)", summary.group.variant, ReportFormat.passRate(summary),
                "\(summary.passed)/\(summary.cases - summary.skipped)",
                ReportFormat.oneDecimal(instructions),
                ReportFormat.oneDecimal(inputPerRequest),
                ReportFormat.milliseconds(summary.latencyP50Ms), ReportFormat.milliseconds(summary.ttftP50Ms),
            ])
        }
        // Cases whose verdict differs between variants on the same backend, level and repeat.
        var verdicts: [String: [String: RequestResult.Status]] = [:]
        var order: [String] = []
        for (caseRun, status) in zip(aggregate.caseRuns, aggregate.statuses) {
            let slot = "\(caseRun.suite)/\(caseRun.caseID) on \(caseRun.group.backend) · \(caseRun.group.reasoning.rawValue) (repeat \(caseRun.repeatIndex))"
            if verdicts[slot] == nil { order.append(slot) }
            verdicts[slot, default: [:]][caseRun.group.variant] = status
        }
        let names = variants.sorted()
        var flips = MarkdownTable([("Case", .left)] + names.map { ($0, .left) })
        var flipped = 0
        for slot in order {
            let byVariant = verdicts[slot]!
            guard Set(byVariant.values).count > 1 else { continue }
            flipped += 1
            flips.appendRow([slot] + names.map { byVariant[$0]?.rawValue ?? "—" })
        }
        return "## Variants\n\nEach prompt variant per backend and level. Instruction tokens are estimated "
            + "(\(TokenEstimate.rule)); input tokens are as the backend reported them.\n\n"
            + table.text
            + (flipped == 0 ? "\nNo case changed its verdict between variants.\n"
                            : "\nCases whose verdict differs between variants (\(flipped)):\n\n" + flips.text)
    }

    /// `+12.5`, `-3.0`, `+0.0`.
    private static func signed(_ value: Double, places: Int) -> String {
        let text = DecimalText.fixed(abs(value), places: places) ?? "n/a"
        return (value < 0 && text.contains(where: { $0 != "0" && $0 != "." }) ? "-" : "+") + text
    }

    /// The most case runs whose matrix summary.md shows; above it, the matrix is in cases.csv only.
    package static let caseMatrixLimit = 200

    private static func cases(_ aggregate: RunAggregate) -> String {
        guard aggregate.caseRuns.count <= caseMatrixLimit else {
            return "## Cases\n\nThe per-case matrix of these \(aggregate.caseRuns.count) case runs (over \(caseMatrixLimit)) is in "
                + "[\(RunDirectory.FileName.casesCSV)](\(RunDirectory.FileName.casesCSV)): one row per case, one column per "
                + "backend · reasoning · variant; every request is in \(RunDirectory.FileName.resultsCSV).\n"
        }
        let matrix = CaseMatrix(aggregate)
        var table = MarkdownTable([("Case", .left)] + aggregate.groups.map { ($0.group.label, .left) })
        for (label, row) in zip(matrix.rowLabels, matrix.cells) {
            table.appendRow([label] + row.map(\.text))
        }
        return "## Cases\n\n" + table.text
    }

    /// Every failed assertion of the case runs that failed: where and why; nil when none failed.
    private static func failures(_ aggregate: RunAggregate) -> String? {
        var table = MarkdownTable([
            ("Case", .left), ("Backend · reasoning · variant", .left), ("Repeat", .right), ("Turn", .right),
            ("Assertion", .left), ("Explanation", .left),
        ])
        var listed = 0
        var total = 0
        // Only the failed case runs are read.
        for index in aggregate.statuses.indices where aggregate.statuses[index] == .fail {
            let caseRun = aggregate.caseRuns[index]
            for request in caseRun.requests {
                for assertion in request.failedAssertions {
                    total += 1
                    guard listed < failureLimit else { continue }
                    listed += 1
                    table.appendRow([
                        "\(caseRun.suite)/\(caseRun.caseID)", caseRun.group.label, String(caseRun.repeatIndex),
                        "\(request.turn)/\(request.turns)", assertion.name,
                        MarkdownTable.truncate(assertion.message ?? "failed", to: explanationLimit),
                    ])
                }
            }
        }
        guard total > 0 else { return nil }
        let more = total > listed ? "\n\(total - listed) more failed assertions are in results.jsonl.\n" : ""
        return "## Failures\n\nThe failed assertions of the case runs that failed: what was expected and what came back.\n\n"
            + table.text + more
    }

    /// The calls judge and similar assertions made, per grading backend: their own latency and
    /// tokens, kept out of the graded backends' figures. Nil when there were none.
    private static func gradingCalls(_ results: ResultTable) -> String? {
        var order: [String] = []
        var calls: [String: [(type: String, call: JudgeCall)]] = [:]
        for index in results.indices {
            for assertion in results.judgedAssertions(at: index) {
                guard let call = assertion.judge else { continue }
                if calls[call.backend] == nil { order.append(call.backend) }
                calls[call.backend, default: []].append((assertion.type, call))
            }
        }
        guard !order.isEmpty else { return nil }
        var table = MarkdownTable([("Grading backend", .left), ("Kind of call", .left), ("Calls", .right), ("Failed calls", .right),
                                   ("Retries", .right), ("Verdicts passing", .right), ("Latency p50 (ms)", .right), ("Input tokens", .right),
                                   ("Output tokens", .right)])
        for backend in order {
            let list = calls[backend]!
            var usage = UsageTotals()
            for entry in list { usage.add(entry.call.usage) }
            let verdicts = list.compactMap(\.call.verdict)
            let kinds = Set(list.map(\.type)).sorted().joined(separator: ", ")
            table.appendRow([backend, kinds, String(list.count), String(list.filter { $0.call.error != nil }.count),
                             retries(list.compactMap(\.call.attempts)), verdicts.isEmpty ? "n/a" : "\(verdicts.filter(\.pass).count)/\(verdicts.count)",
                             ReportFormat.milliseconds(percentile(50, of: list.compactMap(\.call.latencyMs).sorted())),
                             tokens(usage.inputTokens), tokens(usage.outputTokens)])
        }
        return "## Grading calls\n\nThe judge and embedding calls that judge and similar assertions made, with their own "
            + "latency and tokens; none of it is counted in the graded backends' figures.\n\n" + table.text
    }

    /// The retries among grading calls' attempts, "—" when no call recorded its attempts (results
    /// written before they were), at most `Int.max` whatever a results file says.
    static func retries(_ attempts: [Int]) -> String {
        guard !attempts.isEmpty else { return "—" }
        var total = 0
        for count in attempts where count > 1 {
            let (sum, overflow) = total.addingReportingOverflow(count - 1)
            total = overflow ? Int.max : sum
        }
        return String(total)
    }

    /// Each named assertion's pass rate per group; nil when no assertion is named.
    private static func namedMetrics(_ aggregate: RunAggregate) -> String? {
        var names: [String] = []
        var seen: Set<String> = []
        for summary in aggregate.groups {
            for metric in summary.metrics where seen.insert(metric.name).inserted { names.append(metric.name) }
        }
        guard !names.isEmpty else { return nil }
        var table = MarkdownTable([("Metric", .left)] + aggregate.groups.map { ($0.group.label, .right) })
        for name in names {
            table.appendRow([name] + aggregate.groups.map { summary in
                guard let metric = summary.metrics.first(where: { $0.name == name }), let rate = metric.rate else { return "—" }
                return "\(ReportFormat.percentNumber(rate))% (\(metric.passed)/\(metric.total))"
            })
        }
        return "## Named metrics\n\nEach named assertion's pass rate over the turns it graded; also in metrics.csv.\n\n"
            + table.text
    }

    private static func cacheByTurn(_ aggregate: RunAggregate, results: some Collection<RequestResult>) -> String {
        let heading = "## Cache behaviour by turn\n\n"
        let groupsWithTurns = aggregate.groups.filter { !$0.turns.isEmpty }
        guard !groupsWithTurns.isEmpty else { return heading + "No multi-turn cases in this run.\n" }
        var table = MarkdownTable([
            ("Backend · reasoning · variant", .left), ("Turn", .right), ("Requests", .right),
            ("Input tokens", .right), ("Cached tokens", .right), ("Cache hit", .right), ("Ideal", .right),
            ("TTFT p50 (ms)", .right),
        ])
        for summary in groupsWithTurns {
            for turn in summary.turns {
                table.appendRow([
                    summary.group.label,
                    String(turn.turn),
                    String(turn.requests),
                    tokens(turn.usage.inputTokens),
                    tokens(turn.usage.cachedInputTokens),
                    ReportFormat.percent(turn.usage.cacheHitRatio),
                    ReportFormat.percent(turn.idealRatio),
                    ReportFormat.milliseconds(turn.ttftP50Ms),
                ])
            }
        }
        return heading + "Multi-turn cases only: the share of each turn's input the backend served from its cache, "
            + "and the ideal: the share of the request, in characters, that repeats the conversation's previous request "
            + "exactly from its start (what a prompt cache could serve).\n\n"
            + table.text + brokenPrefixes(results) + switches(results)
    }

    /// What each mid-conversation switch cost: the switched turn's cache hit and TTFT beside
    /// the turn before it.
    private static func switches(_ results: some Collection<RequestResult>) -> String {
        let switched = results.filter { $0.switched != nil && $0.turn > 1 && ($0.status == .pass || $0.status == .fail) }
        guard !switched.isEmpty else { return "" }
        var byTurn: [String: RequestResult] = [:]
        for result in results { byTurn["\(result.caseRunKey)#\(result.turn)"] = result }
        var table = MarkdownTable([("Case run", .left), ("Turn", .right), ("Switched", .left), ("Backend", .left),
                                   ("Cache hit", .right), ("Before", .right), ("TTFT (ms)", .right), ("Before (ms)", .right)])
        for result in switched.sorted(by: { ($0.key, $0.turn) < ($1.key, $1.turn) }) {
            let before = byTurn["\(result.caseRunKey)#\(result.turn - 1)"]
            table.appendRow([result.key, String(result.turn), result.switched ?? "", result.backend,
                             ReportFormat.percent(result.usage.cacheHitRatio), ReportFormat.percent(before?.usage.cacheHitRatio),
                             ReportFormat.milliseconds(result.timing?.ttftMs), ReportFormat.milliseconds(before?.timing?.ttftMs)])
        }
        return "\nMid-conversation switches (a turn's own instructions, options, reasoning or backend) and what they cost:\n\n"
            + table.text
    }

    /// The turns furthest below their ideal ratio, with the segment that broke the prefix.
    private static func brokenPrefixes(_ results: some Collection<RequestResult>, limit: Int = 5) -> String {
        var rows: [(gap: Double, cells: [String])] = []
        for result in results where result.status == .pass || result.status == .fail {
            guard let prefix = result.prefix, let ideal = prefix.idealRatio else { continue }
            let measured = result.usage.cacheHitRatio
            let gap = ideal - (measured ?? 0)
            guard prefix.brokenSegment != nil || (measured != nil && gap > 0.2) else { continue }
            rows.append((gap, [result.key, String(result.turn), ReportFormat.percent(measured), ReportFormat.percent(ideal),
                               prefix.explanation ?? "prefix intact; the server did not reuse it"]))
        }
        guard !rows.isEmpty else { return "" }
        var table = MarkdownTable([("Case run", .left), ("Turn", .right), ("Cache hit", .right), ("Ideal", .right),
                                   ("What broke the prefix", .left)])
        for row in rows.sorted(by: { $0.gap > $1.gap }).prefix(limit) { table.appendRow(row.cells) }
        return "\nTurns furthest below their ideal (a changed segment, or a cache the server did not use):\n\n" + table.text
    }

    private static func errors(_ aggregate: RunAggregate) -> String {
        let heading = "## Errors\n\n"
        var backends: [String] = []
        var counts: [String: [ErrorKind: Int]] = [:]
        var messages: [String: [ErrorKind: String]] = [:]
        for summary in aggregate.groups where !summary.errorCounts.isEmpty {
            let backend = summary.group.backend
            if counts[backend] == nil { backends.append(backend) }
            counts[backend, default: [:]].merge(summary.errorCounts, uniquingKeysWith: +)
            messages[backend, default: [:]].merge(summary.firstErrorMessages) { first, _ in first }
        }
        guard !backends.isEmpty else { return heading + "No errors.\n" }
        var table = MarkdownTable([("Backend", .left), ("Kind", .left), ("Count", .right), ("First message", .left)])
        for backend in backends {
            for kind in ErrorKind.allCases {
                guard let count = counts[backend]?[kind] else { continue }
                let message = messages[backend]?[kind].map { MarkdownTable.truncate($0, to: messageLimit) }
                table.appendRow([backend, kind.rawValue, String(count), message ?? ""])
            }
        }
        return heading + table.text
    }

    /// Links to the chart files written beside this report, one line each on what it shows.
    private static func charts(_ charts: ChartSet) -> String {
        var items = charts.charts.map { chart in
            "- [\(chart.title)](\(chart.fileName)): \(chart.caption)"
                + (chart.hasData ? "" : " No data in this run: the chart says so instead.")
        }
        items += charts.omitted.map { "- \($0.title) (`\($0.fileName)`): \($0.reason)" }
        return "## Charts\n\nSVG files beside this report, also inlined in [report.html](report.html):\n\n"
            + items.joined(separator: "\n") + "\n"
    }

    private static func pair(_ p50: Double?, _ p95: Double?) -> String {
        p50 == nil && p95 == nil ? "n/a" : "\(ReportFormat.milliseconds(p50)) / \(ReportFormat.milliseconds(p95))"
    }

    private static func tokens(_ value: Int?) -> String {
        value.map(String.init) ?? "n/a"
    }

    /// The sum of `figure`, or `n/a (5 of 6 reported)` when some requests did not report it:
    /// a sum with an unknown part is unknown, and the cell says how much is known.
    static func tokens(_ usage: UsageTotals, _ figure: UsageTotals.Figure) -> String {
        let known: Int? = switch figure {
        case .input: usage.inputTokens
        case .cached: usage.cachedInputTokens
        case .cacheWrite: usage.cacheWriteInputTokens
        case .output: usage.outputTokens
        case .reasoning: usage.reasoningTokens
        }
        if let known { return String(known) }
        let reported = usage.reported(figure)
        return reported > 0 ? "n/a (\(reported) of \(usage.requests) reported)" : "n/a"
    }

    /// The group's cost, or `n/a (1 of 5 priced)` when some requests' cost is unknown.
    static func cost(_ summary: GroupSummary) -> String {
        if let cost = summary.costUSD { return DecimalText.trimmed(cost, maxPlaces: 6) ?? "n/a" }
        return summary.requestsWithCost > 0 ? "n/a (\(summary.requestsWithCost) of \(summary.requestsSent) priced)" : "n/a"
    }

    /// `42.0 s`, `4 min 12 s`, `1 h 3 min`.
    static func duration(_ seconds: TimeInterval) -> String {
        guard seconds >= 60 else { return (DecimalText.fixed(max(seconds, 0), places: 1) ?? "0") + " s" }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
