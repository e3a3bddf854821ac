import Foundation
import Testing
@testable import EvalBench

/// `count` single-turn case runs c1…cN on one group; `status(i)` decides case i's verdict.
private func run(_ count: Int, latency: (Int) -> Double? = { _ in nil },
                 status: (Int) -> RequestResult.Status = { _ in .pass }) -> [RequestResult] {
    (1...count).map { index in
        let verdict = status(index)
        return fixtureResult(caseID: "c\(index)", status: verdict, latencyMs: latency(index),
                             ttftMs: latency(index).map { $0 / 4 },
                             failedAssertion: verdict == .fail ? "contains \"Paris\"" : nil)
    }
}

/// compare.csv parsed into one dictionary per row, by column name.
private func csvRows(_ text: String) -> [[String: String]] {
    let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    let header = lines[0].components(separatedBy: ",")
    return lines.dropFirst().map { line in
        Dictionary(uniqueKeysWithValues: zip(header, line.components(separatedBy: ",")))
    }
}

@Suite("Comparing a baseline run with a current one")
struct ComparisonTests {
    @Test("identical runs: no flips, McNemar p = 1, exit 0 and 'No significant change'")
    func identicalRuns() throws {
        let results = run(16, latency: { Double(100 + $0) }, status: { $0 <= 12 ? .pass : .fail })
        let comparison = Comparison(baseline: results, current: results,
                                    thresholds: ComparisonThresholds(maxLatencyIncrease: 0.2))
        #expect(comparison.flips.isEmpty)
        #expect(comparison.uncompared.isEmpty)
        let group = try #require(comparison.groups.first)
        #expect(group.pairedCaseRuns == 16)
        #expect(group.passRateP == 1)
        #expect(group.latencyP50Ratio == 1)
        #expect(group.passRateChange == 0)
        #expect(comparison.exitStatus == .success)
        #expect(comparison.verdict == "No significant change")
        let markdown = CompareMarkdown.render(comparison, baselineName: "a", currentName: "b")
        #expect(markdown.hasPrefix("# evalbench compare\n\n**No significant change.**"))
        #expect(markdown.contains("No case run changed between pass and not-pass."))
    }

    @Test("12 of 16 cases flip pass → fail: McNemar p < 0.05, a regression, and compare.md names them with why")
    func realRegression() throws {
        let baseline = run(16)
        let current = run(16, status: { $0 <= 12 ? .fail : .pass })
        let comparison = Comparison(baseline: baseline, current: current)
        let group = try #require(comparison.groups.first)
        #expect(group.passToFail == 12 && group.failToPass == 0)
        let p = try #require(group.passRateP)
        #expect(p == mcNemarExactPValue(b: 12, c: 0))
        #expect(p < 0.05)
        #expect(group.pairedPassRateChange == -12.0 / 16)
        #expect(comparison.flips.count == 12)
        #expect(comparison.flips.allSatisfy { $0.direction == .regressed && $0.explanation == "contains \"Paris\": no" })
        #expect(comparison.isRegression)
        #expect(comparison.exitStatus == .gateFailed)
        #expect(comparison.verdict.hasPrefix("Regression: local · none · default: pass rate −75.0 pts"), "\(comparison.verdict)")
        let markdown = CompareMarkdown.render(comparison, baselineName: "a", currentName: "b")
        #expect(markdown.contains("**Regression: "))
        for index in 1...12 {
            #expect(markdown.contains("| geo/c\(index) | local · none · default | 1 | pass → fail | current run: contains \"Paris\": no |"))
        }
        #expect(!markdown.contains("| geo/c13 |"), "a case that did not flip is not listed")
        let row = try #require(csvRows(CompareCSV.render(comparison)).first)
        #expect(row["verdict"] == "regression")
        #expect(row["pass_to_fail"] == "12")
        #expect(row["paired_pass_rate_change"] == "-0.7500")
        #expect(row["pass_rate_p"].flatMap(Double.init) == p)
    }

    @Test("2 flips one way and 1 the other: past the threshold, not significant, exit 0 with the p-value said")
    func noisyNonRegression() throws {
        let baseline = run(16, status: { $0 == 3 ? .fail : .pass })
        let current = run(16, status: { $0 == 1 || $0 == 2 ? .fail : .pass })
        let comparison = Comparison(baseline: baseline, current: current)
        let group = try #require(comparison.groups.first)
        #expect(group.passToFail == 2 && group.failToPass == 1)
        let p = try #require(group.passRateP)
        #expect(p >= 0.05)
        #expect(!comparison.isRegression)
        #expect(comparison.exitStatus == .success)
        let finding = try #require(comparison.findings.first)
        #expect(finding.kind == .passRateDrop && !finding.significant)
        #expect(comparison.verdict.hasPrefix("No significant change: local · none · default: pass rate −6.3 pts"), "\(comparison.verdict)")
        #expect(comparison.verdict.contains("not significant (McNemar \(ComparisonText.pIs(p)))"))
        #expect(comparison.flips.map(\.direction) == [.regressed, .regressed, .fixed])
        #expect(csvRows(CompareCSV.render(comparison)).first?["verdict"] == "not_significant")
    }

    @Test("a drop within --max-pass-rate-drop is no finding; a significant rise is an improvement, exit 0")
    func thresholdAndImprovement() throws {
        let baseline = run(16)
        let current = run(16, status: { $0 <= 12 ? .fail : .pass })
        let tolerant = Comparison(baseline: baseline, current: current, thresholds: ComparisonThresholds(maxPassRateDrop: 0.8))
        #expect(tolerant.findings.isEmpty)
        #expect(tolerant.exitStatus == .success)
        let reversed = Comparison(baseline: current, current: baseline)
        #expect(reversed.exitStatus == .success)
        #expect(reversed.verdict.hasPrefix("No regression; improved: local · none · default: pass rate +75.0 pts"), "\(reversed.verdict)")
        #expect(reversed.flips.allSatisfy { $0.direction == .fixed && $0.explanation == "contains \"Paris\": no" })
    }

    @Test("an error counts as not passing: pass → error flips, fail → error does not")
    func errorsAreNotPass() throws {
        let baseline = [fixtureResult(caseID: "a", status: .pass), fixtureResult(caseID: "b", status: .fail, failedAssertion: "x")]
        let current = [fixtureResult(caseID: "a", status: .error, errorKind: .timeout, errorMessage: "no answer in 30 s"),
                       fixtureResult(caseID: "b", status: .error, errorKind: .server, errorMessage: "500")]
        let comparison = Comparison(baseline: baseline, current: current)
        #expect(comparison.flips.map(\.caseID) == ["a"])
        #expect(comparison.flips.first?.explanation == "error timeout: no answer in 30 s")
        #expect(comparison.groups.first?.pairedCaseRuns == 2)
    }

    @Test("clearly slower latencies with --max-latency-increase 0.2 are a regression; the same distribution is not")
    func latencyRegression() throws {
        let thresholds = ComparisonThresholds(maxLatencyIncrease: 0.2)
        let baseline = run(24, latency: { Double(100 + $0) })
        let slower = run(24, latency: { Double(200 + $0) })
        let comparison = Comparison(baseline: baseline, current: slower, thresholds: thresholds)
        let group = try #require(comparison.groups.first)
        let p = try #require(group.latencyMannWhitneyP)
        #expect(p < 0.05)
        let ratio = try #require(group.latencyP50Ratio)
        #expect(ratio > 1.2)
        #expect(group.ttftMannWhitneyP != nil)
        #expect(comparison.isRegression)
        #expect(comparison.regressions.map(\.kind) == [.latencyIncrease])
        #expect(comparison.verdict.contains("latency p50"), "\(comparison.verdict)")

        // Same values in another order: nothing moved.
        let shuffled = run(24, latency: { Double(100 + (($0 * 7) % 24) + 1) })
        let same = Comparison(baseline: baseline, current: shuffled, thresholds: thresholds)
        #expect(same.findings.isEmpty)
        #expect(same.verdict == "No significant change")

        // Latency is not gated without --max-latency-increase.
        #expect(Comparison(baseline: baseline, current: slower).findings.isEmpty)
    }

    @Test("each case's median comes out the same when its repeats are not neighbours, on two backends interleaved")
    func caseMediansOutOfOrder() throws {
        // Case i's repeat r on backend b at 10·i + r (+ 1,000 on b); the results interleave cases and backends.
        var results: [RequestResult] = []
        for repeatIndex in 1...3 {
            for index in 1...4 {
                for backend in ["a", "b"] {
                    let ms = Double(10 * index + repeatIndex + (backend == "b" ? 1_000 : 0))
                    results.append(fixtureResult(caseID: "c\(index)", backend: backend, repeatIndex: repeatIndex, status: .pass,
                                                 latencyMs: ms, ttftMs: ms / 2))
                }
            }
        }
        let comparison = Comparison(baseline: results, current: results.reversed())
        let medians = Dictionary(uniqueKeysWithValues: comparison.groups.map { ($0.group.backend, $0) })
        #expect(medians["a"]?.baselineCaseMedians.latenciesMs == [12, 22, 32, 42])
        #expect(medians["b"]?.baselineCaseMedians.ttftsMs == [506, 511, 516, 521])
        #expect(medians["a"]?.currentCaseMedians.latenciesMs.sorted() == [12, 22, 32, 42])
        #expect(comparison.flips.isEmpty && comparison.uncompared.isEmpty)
    }

    @Test("case runs found by key when every key has the same hash: each still finds its own, and a key not there none")
    func caseRunIndexCollisions() {
        let results = (1...5).map { fixtureResult(caseID: "c\($0)", status: .pass, latencyMs: Double($0)) }
        let aggregate = RunAggregate(results)
        var index = CaseRunIndex(aggregate.caseRuns, hash: { _ in 7 })
        for (position, caseRun) in aggregate.caseRuns.enumerated() { index.insert(caseRun.key, at: position) }
        for caseRun in aggregate.caseRuns {
            #expect(index.caseRun(caseRun.key)?.key == caseRun.key)
            #expect(index.contains(caseRun.key))
        }
        #expect(index.caseRun("geo/c9/default/local/none/1") == nil)
        #expect(!index.contains("geo/c9/default/local/none/1"))
    }

    @Test("repeats do not make a latency change significant: 2 cases × 50 repeats are 2 cases, not 100 requests")
    func latencyTestOverCases() throws {
        /// Case i's repeats on `backend`, all at `latency(i)` ms give or take a little.
        func repeated(_ cases: Int, _ repeats: Int, latency: (Int) -> Double) -> [RequestResult] {
            (1...cases).flatMap { index in
                (1...repeats).map { repeatIndex in
                    let ms = latency(index) + Double(repeatIndex % 3)
                    return fixtureResult(caseID: "c\(index)", repeatIndex: repeatIndex, status: .pass, latencyMs: ms, ttftMs: ms / 4)
                }
            }
        }
        let thresholds = ComparisonThresholds(maxLatencyIncrease: 0.2)
        let baseline = repeated(2, 50, latency: { Double($0 * 100) })
        let slower = repeated(2, 50, latency: { Double($0 * 100 + 50) })
        let comparison = Comparison(baseline: baseline, current: slower, thresholds: thresholds)
        let group = try #require(comparison.groups.first)
        #expect(group.baselineCaseMedians.latenciesMs == [101, 201], "each case's median over its 50 repeats")
        #expect(group.currentCaseMedians.latenciesMs == [151, 251])
        // Over the 100 requests the change would look certain.
        let overRequests = try #require(mannWhitneyU(group.current!.timedLatenciesMs.array, group.baseline!.timedLatenciesMs.array))
        #expect(overRequests.pValue < 0.001)
        let p = try #require(group.latencyMannWhitneyP)
        #expect(p == mannWhitneyU([151, 251], [101, 201])?.pValue)
        #expect(p > 0.05)
        let finding = try #require(comparison.findings.first)
        #expect(finding.kind == .latencyIncrease && !finding.significant)
        #expect(comparison.exitStatus == .success)
        let markdown = CompareMarkdown.render(comparison, baselineName: "a", currentName: "b")
        #expect(markdown.contains("(2 and 2 cases; 100 and 100 timed requests)"), "compare.md says what the test counted")

        // The same shift on 24 cases, each repeated 3 times, is a regression.
        let many = Comparison(baseline: repeated(24, 3, latency: { Double(100 + $0) }),
                              current: repeated(24, 3, latency: { Double(200 + $0) }), thresholds: thresholds)
        #expect(many.groups.first?.currentCaseMedians.latenciesMs.count == 24)
        #expect(many.regressions.map(\.kind) == [.latencyIncrease])
        #expect(CompareMarkdown.render(many, baselineName: "a", currentName: "b").contains("(24 and 24 cases; 72 and 72 timed requests)"))
    }

    @Test("a case's median is its middle timed value, or the mean of the two middle ones")
    func caseMedian() {
        #expect(CaseSamples.median([]) == nil)
        #expect(CaseSamples.median([7]) == 7)
        #expect(CaseSamples.median([9, 1, 5]) == 5)
        #expect(CaseSamples.median([4, 1, 3, 10]) == 3.5)
        #expect(CaseSamples.median([.greatestFiniteMagnitude, .greatestFiniteMagnitude]) == .greatestFiniteMagnitude, "no overflow to infinity")
    }

    @Test("a latency increase past the threshold on two requests each is reported as not significant")
    func latencyTooFewSamples() throws {
        let baseline = run(2, latency: { Double(100 + $0) })
        let current = run(2, latency: { Double(300 + $0) })
        let comparison = Comparison(baseline: baseline, current: current, thresholds: ComparisonThresholds(maxLatencyIncrease: 0.2))
        let finding = try #require(comparison.findings.first)
        #expect(finding.kind == .latencyIncrease && !finding.significant)
        #expect(comparison.exitStatus == .success)
        #expect(comparison.verdict.contains("not significant (Mann-Whitney p = "), "\(comparison.verdict)")
    }

    @Test("replayed and response-cache answers are not timed: no latency samples, no ratio, no test")
    func untimedAnswersLeftOut() throws {
        let baseline = run(20, latency: { Double(100 + $0) })
        let current = run(20, latency: { Double(900 + $0) }).enumerated().map { index, result in
            var copy = result
            if index % 2 == 0 { copy.replayed = true } else { copy.cached = true }
            return copy
        }
        let comparison = Comparison(baseline: baseline, current: current, thresholds: ComparisonThresholds(maxLatencyIncrease: 0.2))
        let group = try #require(comparison.groups.first)
        #expect(group.current?.timedLatenciesMs.isEmpty == true)
        #expect(group.latencyP50Ratio == nil)
        #expect(group.latencyMannWhitneyP == nil)
        #expect(comparison.findings.isEmpty)
        let row = try #require(csvRows(CompareCSV.render(comparison)).first)
        #expect(row["current_timed_requests"] == "0")
        #expect(row["current_latency_p50_ms"] == "")
        #expect(row["latency_mann_whitney_p"] == "")
    }

    @Test("case runs in one run only, or skipped in either, are listed apart and are not flips")
    func unmatchedAndSkipped() throws {
        let baseline = [fixtureResult(caseID: "a", status: .pass), fixtureResult(caseID: "gone", status: .pass),
                        fixtureResult(caseID: "s", status: .pass)]
        let current = [fixtureResult(caseID: "a", status: .pass), fixtureResult(caseID: "new", status: .fail, failedAssertion: "x"),
                       fixtureResult(caseID: "s", status: .skipped)]
        let comparison = Comparison(baseline: baseline, current: current)
        #expect(comparison.flips.isEmpty)
        #expect(comparison.uncompared.map(\.reason) == [.onlyInBaseline, .skipped, .onlyInCurrent])
        #expect(comparison.uncompared.map(\.key) == ["geo/gone/default/local/none/1", "geo/s/default/local/none/1",
                                                     "geo/new/default/local/none/1"])
        let group = try #require(comparison.groups.first)
        #expect(group.pairedCaseRuns == 1)
        #expect(group.uncomparedCaseRuns == 3)
        #expect(comparison.exitStatus == .success)
        let markdown = CompareMarkdown.render(comparison, baselineName: "a", currentName: "b")
        #expect(markdown.contains("## Not compared"))
        #expect(markdown.contains("| geo/gone/default/local/none/1 | pass | — | only in the baseline |"))
        #expect(markdown.contains("| geo/new/default/local/none/1 | — | fail | only in the current run |"))
        #expect(markdown.contains("| geo/s/default/local/none/1 | pass | skipped | skipped |"))
        #expect(csvRows(CompareCSV.render(comparison)).first?["uncompared_case_runs"] == "3")
    }

    @Test("figures no run reported stay empty in compare.csv and n/a in compare.md, never 0")
    func nullsStayEmpty() throws {
        let baseline = [fixtureResult(caseID: "a", status: .pass)]
        let current = [fixtureResult(caseID: "a", status: .pass),
                       fixtureResult(caseID: "b", backend: "other", status: .pass,
                                     usage: Usage(inputTokens: 10, cachedInputTokens: 5, outputTokens: 2), costUSD: 0.5)]
        let comparison = Comparison(baseline: baseline, current: current)
        let rows = csvRows(CompareCSV.render(comparison))
        #expect(rows.count == 2)
        #expect(rows[0].keys.count == CompareCSV.columns.count)
        for column in ["baseline_latency_p50_ms", "current_latency_p50_ms", "latency_p50_ratio", "latency_mann_whitney_p",
                       "ttft_p95_ratio", "baseline_input_tokens", "current_cached_input_tokens", "baseline_cache_hit_ratio",
                       "cache_hit_ratio_change", "baseline_cost_usd", "cost_change_usd"] {
            #expect(rows[0][column] == "", "\(column) is \(rows[0][column] ?? "missing")")
        }
        // A group new in the current run: its baseline side and the paired figures are unknown.
        #expect(rows[1]["backend"] == "other")
        #expect(rows[1]["baseline_pass_rate"] == "")
        #expect(rows[1]["pass_rate_p"] == "")
        #expect(rows[1]["pass_rate_change"] == "")
        #expect(rows[1]["current_input_tokens"] == "10")
        #expect(rows[1]["current_cache_hit_ratio"] == "0.5000")
        #expect(rows[1]["current_cost_usd"] == "0.5")
        #expect(rows[1]["cost_change_usd"] == "")
        let markdown = CompareMarkdown.render(comparison, baselineName: "a", currentName: "b")
        #expect(markdown.contains("| Latency p50 (ms) | n/a | n/a | n/a | n/a (no timed requests in one run) |"))
        #expect(markdown.contains("| Cost (USD) | n/a | 0.5 | n/a |  |"))
    }

    @Test("reading a run: a missing directory, a missing results.jsonl and a malformed line each say where and how to fix")
    func readingRuns() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-compare-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: Diagnostic.self) { try Comparison.readResults(inRun: directory.appendingPathComponent("nope").path, role: "baseline") }
        do {
            _ = try Comparison.readResults(inRun: directory.path, role: "baseline")
            Issue.record("a directory without results.jsonl must fail")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.file.hasSuffix("results.jsonl"))
            #expect(diagnostic.message.contains("no results.jsonl"))
            #expect(diagnostic.fix != nil)
        }
        let good = String(decoding: try ResultStore.makeEncoder().encode(fixtureResult(caseID: "a", status: .pass)), as: UTF8.self)
        let other = String(decoding: try ResultStore.makeEncoder().encode(fixtureResult(caseID: "b", status: .pass)), as: UTF8.self)
        try Data("\(good)\n{\"key\": 1}\n\(other)\n".utf8).write(to: directory.appendingPathComponent("results.jsonl"))
        var skipped: [Diagnostic] = []
        #expect(try ResultStore.read(directory.appendingPathComponent("results.jsonl")) { skipped.append($0) }.count == 2,
                "a malformed line is skipped, the good ones around it kept")
        #expect(skipped.first?.location?.line == 2)
        #expect(skipped.first?.description.contains("results.jsonl:2:1: error: not a result line, skipped") == true)
        // What compares, gates or reports refuses it: without that request the results would read as whole.
        do {
            _ = try Comparison.readResults(inRun: directory.path, role: "baseline")
            Issue.record("a line mid-file that is not a result must be refused")
        } catch let diagnostic as Diagnostic {
            #expect(diagnostic.location?.line == 2 && diagnostic.file.hasSuffix("results.jsonl"), "\(diagnostic)")
            #expect(diagnostic.message.contains("the baseline run's results.jsonl was edited or damaged there"), "\(diagnostic)")
            #expect(diagnostic.fix?.contains("--resume") == true)
        }
        #expect(try RunDirectory(directory).finishedResults().count == 2, "--resume skips it and sends its request again")
        // A torn last line (a crash while writing it) is still only a warning.
        try Data("\(good)\n\(other)\n{\"key\": \"s/c".utf8).write(to: directory.appendingPathComponent("results.jsonl"))
        #expect(try Comparison.readResults(inRun: directory.path, role: "baseline").count == 2)
    }

    @Test("p-values read with two significant digits, changes with a sign")
    func texts() {
        #expect(ComparisonText.pValue(1) == "1")
        #expect(ComparisonText.pValue(0.5) == "0.5")
        #expect(ComparisonText.pValue(0.0215) == "0.022")
        #expect(ComparisonText.pValue(0.00048828125) == "0.00049")
        #expect(ComparisonText.pValue(0.00001) == "< 0.0001")
        #expect(ComparisonText.pIs(0.00001) == "p < 0.0001" && ComparisonText.pIs(0.0215) == "p = 0.022")
        #expect(ComparisonText.points(-0.0625) == "−6.3 pts")
        #expect(ComparisonText.points(0.125) == "+12.5 pts")
        #expect(ComparisonText.points(0) == "±0.0 pts")
        #expect(ComparisonText.percentChange(1.2) == "+20.0%")
    }
}
