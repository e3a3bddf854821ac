import Foundation
import Testing
@testable import EvalBench

private let start = Date(timeIntervalSince1970: 1_767_225_600)

private func markdown(_ results: [RequestResult], notes: [String: String] = [:]) -> String {
    let input = ReportInput(results: results, startedAt: start, endedAt: start + 252, backendNotes: notes)
    return SummaryMarkdown.render(input, aggregate: RunAggregate(input.results, bootstrapIntervals: true))
}

private let sixCases: [RequestResult] = (1...5).map {
    fixtureResult(caseID: "c\($0)", status: .pass, latencyMs: Double($0) * 100, ttftMs: 10,
                  usage: Usage(inputTokens: 100, cachedInputTokens: 25, outputTokens: 4))
} + [fixtureResult(caseID: "c6", status: .fail, latencyMs: 600, ttftMs: 10, failedAssertion: "says | Paris")]

@Test("The title names the suites and the run time")
func markdownTitle() {
    let text = markdown(sixCases)
    #expect(text.hasPrefix("# evalbench: geo\n"))
    #expect(text.contains("Run from 2026-01-01T00:00:00Z to 2026-01-01T00:04:12Z (4 min 12 s): 6 requests, 6 case runs"))
}

@Test("The headline row shows the pass rate with its Wilson interval, percentiles, tokens and n/a for nulls")
func markdownHeadline() {
    let text = markdown(sixCases)
    // 5/6: 83.3% with Wilson bounds 43.6% and 97.0%; cost was never reported.
    // c6 reported no usage, so the token sums are unknown and say how many reported them.
    #expect(text.contains("| local | gemma-3-270m | none | default | 83.3% [43.6–97.0] | 5/6 | 0 | 0 | 300.0 / 600.0 | 10.0 / 10.0 | n/a (5 of 6 reported) | n/a (5 of 6 reported) | n/a (5 of 6 reported) | 25.0% | n/a |"),
            "\(text)")
    let complete = markdown(Array(sixCases.prefix(5)))
    #expect(complete.contains("| 500 | 125 | 20 | 25.0% | n/a |"))
}

@Test("Nothing reported reads n/a, never 0")
func markdownNotReported() {
    let text = markdown([fixtureResult(caseID: "a", model: nil, status: .error, errorKind: .network)])
    #expect(text.contains("| local | n/a | none | default | 0.0% [0.0–79.3] | 0/1 | 1 | 0 | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"))
}

@Test("The case matrix has a row per suite/case and a column per group, with escaped assertion names")
func markdownCaseMatrix() {
    let results = sixCases + [
        fixtureResult(caseID: "c1", backend: "cloud", status: .error, errorKind: .rateLimited),
        fixtureResult(caseID: "c2", backend: "cloud", status: .skipped),
    ]
    let text = markdown(results)
    #expect(text.contains("| Case | local · none · default | cloud · none · default |"))
    #expect(text.contains("| geo/c1 | pass | error: rate_limited |"))
    #expect(text.contains("| geo/c2 | pass | skipped |"))
    #expect(text.contains("| geo/c3 | pass | — |"))
    #expect(text.contains("| geo/c6 | fail: says \\| Paris | — |"))
}

@Test("With repeats a matrix cell counts the passing runs")
func markdownRepeats() {
    let results = (1...3).map { fixtureResult(caseID: "a", repeatIndex: $0, status: $0 == 2 ? .fail : .pass) }
    #expect(markdown(results).contains("| geo/a | 2/3 pass |"))
}

@Test("Table cells escape pipes and line breaks in every section")
func markdownEscaping() {
    let results = [
        fixtureResult(caseID: "a|b", status: .error, errorKind: .server, errorMessage: "HTTP 500\nupstream | down"),
    ]
    let text = markdown(results, notes: ["local": "reasoning: none → omitted"])
    #expect(text.contains("| geo/a\\|b | error: server |"))
    #expect(text.contains("| local | server | 1 | HTTP 500 upstream \\| down |"))
    #expect(text.contains("- **local**: reasoning: none → omitted"))
}

@Test("The cache section shows each turn of multi-turn cases with its token-weighted hit ratio")
func markdownCacheByTurn() {
    let results = [
        fixtureResult(caseID: "trip", turn: 1, turns: 2, status: .pass, latencyMs: 90, ttftMs: 80,
                      usage: Usage(inputTokens: 200, cachedInputTokens: 0)),
        fixtureResult(caseID: "trip", turn: 2, turns: 2, status: .pass, latencyMs: 30, ttftMs: 20,
                      usage: Usage(inputTokens: 400, cachedInputTokens: 300)),
    ]
    let text = markdown(results)
    #expect(text.contains("| local · none · default | 1 | 1 | 200 | 0 | 0.0% | n/a | 80.0 |"))
    #expect(text.contains("| local · none · default | 2 | 1 | 400 | 300 | 75.0% | n/a | 20.0 |"), "no prefix recorded: the ideal is unknown")
    #expect(markdown(sixCases).contains("No multi-turn cases in this run."))
}

@Test("The definitions state the token-weighted cache ratio, the pass rate rule and n/a")
func markdownDefinitions() throws {
    let text = markdown(sixCases)
    let definitions = try #require(text.components(separatedBy: "## Definitions").last)
    #expect(definitions.contains("the ratio of sums rather than the mean of per-request ratios"))
    #expect(definitions.contains("passed / (cases − skipped)"))
    #expect(definitions.contains("clustered by case: the Wilson score interval with the number of distinct cases as n"))
    #expect(definitions.contains("nearest-rank"))
    #expect(definitions.contains("**n/a**: not reported by the backend"))
}

@Test("The reasoning section shows each level's mapping and what it adds over none, computed by hand")
func markdownReasoningSection() {
    let results = [
        fixtureResult(caseID: "a", backend: "cloud", status: .pass, latencyMs: 100, ttftMs: 50,
                      usage: Usage(inputTokens: 10, outputTokens: 4), costUSD: 0.001),
        fixtureResult(caseID: "b", backend: "cloud", status: .fail, latencyMs: 300, ttftMs: 70,
                      usage: Usage(inputTokens: 10, outputTokens: 6), costUSD: 0.001),
        fixtureResult(caseID: "a", backend: "cloud", reasoning: .deep, status: .pass, latencyMs: 900, ttftMs: 600,
                      usage: Usage(inputTokens: 10, outputTokens: 104, reasoningTokens: 100), costUSD: 0.004),
        fixtureResult(caseID: "b", backend: "cloud", reasoning: .deep, status: .pass, latencyMs: 1300, ttftMs: 800,
                      usage: Usage(inputTokens: 10, outputTokens: 206, reasoningTokens: 200), costUSD: 0.006),
        fixtureResult(caseID: "a", backend: "cloud", reasoning: .light, status: .skipped),
        fixtureResult(caseID: "b", backend: "cloud", reasoning: .light, status: .skipped),
    ]
    let input = ReportInput(results: results, startedAt: start, endedAt: start + 1,
                            reasoningMappings: ["cloud": ["none": "thinking disabled", "deep": "effort high",
                                                          "light": "skipped (no low effort)"]])
    let text = SummaryMarkdown.render(input, aggregate: RunAggregate(input.results))
    // none: pass 1/2, latency p50 100 (nearest rank of [100, 300]), TTFA p50 50, output 5/req, cost 0.002.
    #expect(text.contains("| cloud · default | none | thinking disabled | 50.0% | baseline | 100.0 | baseline | 50.0 | baseline | n/a | baseline | 5.0 | baseline |"))
    // deep: pass 2/2 (+50 pp), latency p50 900 (+800), TTFA p50 600 (+550), reasoning 150/req (none reported none: n/a),
    // output 155/req, cost 0.010 − 0.002 = +0.008.
    #expect(text.contains("| cloud · default | deep | effort high | 100.0% | +50.0 pp | 900.0 | +800.0 | 600.0 | +550.0 | 150.0 | n/a | 155.0 | +0.008000 |"))
    #expect(text.contains("| cloud · default | light | skipped (no low effort) | n/a | n/a |"))
    let none = markdown(sixCases)
    #expect(!none.contains("## Reasoning levels"), "a run at none alone has no reasoning section")
}

@Test("The cache section gives each turn's ideal ratio and names the segment that broke a prefix")
func markdownBrokenPrefix() {
    var second = fixtureResult(caseID: "trip", turn: 2, turns: 2, status: .pass, latencyMs: 30, ttftMs: 20,
                               usage: Usage(inputTokens: 400, cachedInputTokens: 4))
    second.prefix = PrefixComparison(previous: CanonicalPrompt(segments: [.init(name: "instructions", marker: "system:", text: "Monday. Be brief.")]),
                                     current: CanonicalPrompt(segments: [.init(name: "instructions", marker: "system:", text: "Tuesday. Be brief."),
                                                                         .init(name: "prompt", marker: "user:", text: "q")]))
    let results = [
        fixtureResult(caseID: "trip", turn: 1, turns: 2, status: .pass, latencyMs: 90, ttftMs: 80,
                      usage: Usage(inputTokens: 200, cachedInputTokens: 0)),
        second,
    ]
    let text = markdown(results)
    // "system:" (7) shared of "system:Tuesday. Be brief.\nuser:q" (32): 21.9%.
    #expect(text.contains("| local · none · default | 2 | 1 | 400 | 4 | 1.0% | 21.9% | 20.0 |"), "\(text)")
    #expect(text.contains("| geo/trip/default/local/none/1 | 2 | 1.0% | 21.9% | instructions changed at character 0 |"))
}

@Test("Latency and TTFT percentiles carry bootstrap 95% intervals from 20 timed requests, n/a below, and say how they were obtained")
func markdownBootstrapIntervals() throws {
    let many = (1...40).map {
        fixtureResult(caseID: "c\($0)", backend: "big", status: .pass, latencyMs: Double($0) * 10, ttftMs: Double($0))
    }
    let few = (1...5).map {
        fixtureResult(caseID: "c\($0)", backend: "small", status: .pass, latencyMs: Double($0) * 10, ttftMs: Double($0))
    }
    let text = markdown(many + few)
    #expect(text == markdown(many + few), "the same results give the same intervals")
    #expect(text.contains("### Bootstrap 95% intervals"))
    #expect(text.contains("with replacement, from a SplitMix64 generator with the fixed seed 0x5EED"))
    #expect(text.contains("| small | none | default | Latency (ms) | 5 | 5 | 30.0 [n/a] | 50.0 [n/a] | 50.0 [n/a] | 50.0 [n/a] |"), "\(text)")

    let latencies = (1...40).map { Double($0) * 10 }
    let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| big | none | default | Latency (ms) | 40 | 40 |") })
    let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    // One timed request per case: the bootstrap over requests. Nearest-rank p50, p90, p95, p99 of 10…400 are 200, 360, 380, 400.
    for (cell, (p, estimate)) in zip(cells[6...9], zip([50.0, 90, 95, 99], [200.0, 360, 380, 400])) {
        let interval = try #require(bootstrapPercentileInterval(p, of: latencies, resamples: 1000, seed: 0x5EED))
        #expect(interval.low <= estimate && estimate <= interval.high)
        #expect(latencies.contains(interval.low) && latencies.contains(interval.high), "a percentile bootstrap returns sample values")
        #expect(cell == String(format: "%.1f [%.1f–%.1f]", estimate, interval.low, interval.high), "p\(p): \(cell)")
    }
    // The p50 interval is neither a point nor the whole range.
    let p50 = try #require(bootstrapPercentileInterval(50, of: latencies))
    #expect(p50.low < 200 && p50.high > 200 && p50.low > 10 && p50.high < 400, "\(p50)")
}

@Test("Bootstrap intervals resample cases: repeats of a case do not narrow them, and 5 cases × 10 repeats get none")
func markdownBootstrapOverCases() throws {
    // 24 cases, each repeated 5 times at nearly the same latency: 120 requests, 24 units.
    let repeated = (1...24).flatMap { index in
        (1...5).map { repeatIndex in
            fixtureResult(caseID: "c\(index)", backend: "big", repeatIndex: repeatIndex, status: .pass,
                          latencyMs: Double(index) * 10 + Double(repeatIndex) / 10, ttftMs: Double(index))
        }
    }
    let aggregate = RunAggregate(repeated, bootstrapIntervals: true)
    let group = try #require(aggregate.groups.first)
    #expect(group.timedLatencyCases == 24 && group.timedLatenciesMs.count == 120)
    #expect(RunAggregate(repeated).groups.first?.timedLatencyCases == nil, "not counted unless asked for: unknown, not 0")
    let overCases = try #require(group.latencyIntervals)
    // The same 120 values taken as independent requests give a narrower p50 interval.
    let overRequests = try #require(bootstrapPercentileIntervals(GroupSummary.bootstrapPercentiles, of: repeated.compactMap { $0.timing?.latencyMs }))
    #expect(overCases[0].high - overCases[0].low > overRequests[0].high - overRequests[0].low,
            "p50: over cases \(overCases[0]), over requests \(overRequests[0])")
    let text = markdown(repeated)
    #expect(text.contains("| big | none | default | Latency (ms) | 120 | 24 |"), "\(text)")

    // 5 cases are too few for an interval, however many repeats they have.
    let fewCases = (1...5).flatMap { index in
        (1...10).map { repeatIndex in
            fixtureResult(caseID: "c\(index)", backend: "few", repeatIndex: repeatIndex, status: .pass, latencyMs: Double(index * 10), ttftMs: 1)
        }
    }
    #expect(RunAggregate(fewCases, bootstrapIntervals: true).groups.first?.latencyIntervals == nil)
    #expect(markdown(fewCases).contains("| few | none | default | Latency (ms) | 50 | 5 | 30.0 [n/a] |"))
}

@Test("The case bootstrap with one value per case is the bootstrap over values, and cases may be named by any numbers")
func caseBootstrapEqualsValueBootstrapForSingletons() throws {
    let values = (0..<45).map { Double(($0 * 29 + 3) % 31) }
    let plain = try #require(bootstrapPercentileIntervals([50, 95], of: values, resamples: 200, seed: 3))
    let singletons = try #require(caseBootstrapPercentileIntervals([50, 95], of: values, cases: (0..<45).map { UInt32($0 * 7 + 100) },
                                                                   resamples: 200, seed: 3))
    #expect(plain.map(\.low) == singletons.map(\.low) && plain.map(\.high) == singletons.map(\.high))
    // Two values of one case always come together: a pool's size is even when every case has two.
    let pairs = values + values
    let paired = try #require(caseBootstrapPercentileIntervals([50], of: pairs, cases: (0..<90).map { UInt32($0 % 45) }, resamples: 200, seed: 3))
    #expect(paired[0].low <= paired[0].high)
    #expect(caseBootstrapPercentileIntervals([50], of: [1, 2], cases: [0]) == nil, "a case for every value")
}

@Test("A group answered by several models shows each with its requests, most first")
func markdownSeveralModels() {
    let text = markdown(fallbackRouterResults())
    #expect(text.contains("| router | small-fallback-v1 (4), big-model-v2 (1) | none | default |"), "\(text)")
}
