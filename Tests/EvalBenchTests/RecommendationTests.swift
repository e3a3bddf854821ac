import Foundation
import Testing
@testable import EvalBench

/// `count` passing single-turn cases tagged `tags` on `backend`, with latencies from `latencies`
/// (cycled) and `cost` each.
private func cases(_ count: Int, prefix: String, tags: [String], backend: String, failing: Int = 0,
                   latencies: [Double], ttftMs: Double = 50, cost: Double?, slo: ServiceLevel? = nil) -> [RequestResult] {
    (0..<count).map { index in
        var result = fixtureResult(caseID: "\(prefix)-\(index)", backend: backend,
                                   status: index < failing ? .fail : .pass,
                                   latencyMs: latencies[index % latencies.count], ttftMs: ttftMs,
                                   usage: Usage(inputTokens: 100, cachedInputTokens: 0, outputTokens: 10), costUSD: cost)
        result.tags = tags
        result.slo = slo
        return result
    }
}

@Suite("Recommendation per tag")
struct RecommendationTests {
    @Test("of the backends that reach the target, the cheapest is recommended; at equal cost the faster")
    func cheapestThenFastest() throws {
        // 20/20 passes: Wilson lower bound 83.9%, above the 80% default target for all three.
        let results = cases(20, prefix: "q", tags: ["qa"], backend: "cloud", latencies: [100], cost: 0.001)
            + cases(20, prefix: "q", tags: ["qa"], backend: "local", latencies: [900], cost: 0)
            + cases(20, prefix: "q", tags: ["qa"], backend: "device", latencies: [400], cost: 0)
        let recommendations = Recommendation.compute(results, settings: RecommendationSettings())
        #expect(recommendations.map(\.label) == [Recommendation.allCasesLabel, "qa"])
        let qa = try #require(recommendations.last)
        #expect(qa.target == 0.8 && qa.targetSource == "default")
        #expect(qa.candidates.allSatisfy { $0.meetsTarget })
        #expect(qa.recommended?.summary.group.backend == "device")
        // Cost per 1,000 cases by hand: $0.001 × 20 / 20 × 1,000 = $1.
        let cloud = try #require(qa.candidates.first { $0.summary.group.backend == "cloud" })
        let perThousand = try #require(cloud.summary.costPerThousandCasesUSD)
        #expect(abs(perThousand - 1) < 1e-12)
        #expect(RecommendationMarkdown.sentence(qa).contains("use device · none · default"))
        // Each candidate keeps its percentiles, not the samples they came from (a tag's would
        // otherwise outlive the recommendation, on every report).
        #expect(qa.candidates.allSatisfy { $0.summary.timedLatenciesMs.isEmpty && $0.summary.timedTTFTsMs.isEmpty })
        #expect(cloud.summary.latencyP50Ms == 100 && cloud.summary.ttftP95Ms == 50)
    }

    @Test("a tag's percentiles, kept as positions in (or bits over) the whole run's samples, equal an aggregate of the tag's results alone")
    func tagPercentilesExact() throws {
        // Latencies with ties, a -0 and values on both sides of each tag's share, on two backends.
        var results: [RequestResult] = []
        for index in 0..<90 {
            var result = fixtureResult(caseID: "c\(index)", backend: index % 2 == 0 ? "local" : "cloud", status: .pass,
                                       latencyMs: index == 4 ? -0.0 : Double((index * 37) % 23) + 0.125,
                                       ttftMs: Double((index * 11) % 7))
            result.tags = index % 3 == 0 ? ["odd-one"] : ["common"]
            results.append(result)
        }
        let recommendations = Recommendation.compute(results, settings: RecommendationSettings())
        for tag in ["odd-one", "common"] {
            let row = try #require(recommendations.first { $0.tag == tag })
            let alone = RunAggregate(results.filter { $0.tags == [tag] })
            for candidate in row.candidates {
                let expected = try #require(alone.groups.first { $0.group == candidate.summary.group })
                let got = candidate.summary
                #expect([got.latencyP50Ms, got.latencyP90Ms, got.latencyP95Ms, got.latencyP99Ms].map { $0?.bitPattern }
                    == [expected.latencyP50Ms, expected.latencyP90Ms, expected.latencyP95Ms, expected.latencyP99Ms].map { $0?.bitPattern })
                #expect([got.ttftP50Ms, got.ttftP90Ms, got.ttftP95Ms, got.ttftP99Ms]
                    == [expected.ttftP50Ms, expected.ttftP90Ms, expected.ttftP95Ms, expected.ttftP99Ms])
                #expect([got.ttfaP50Ms, got.ttfaP95Ms] == [expected.ttfaP50Ms, expected.ttfaP95Ms])
                #expect(got.passRate == expected.passRate && got.cases == expected.cases)
            }
        }
    }

    @Test("a backend missing the suite's latency targets is passed over for a dearer one that meets them")
    func latencyTargets() throws {
        let slo = ServiceLevel(latencyMs: 500)
        let results = cases(20, prefix: "q", tags: [], backend: "cloud", latencies: [100, 200], cost: 0.001, slo: slo)
            + cases(20, prefix: "q", tags: [], backend: "local", latencies: [300, 900], cost: 0, slo: slo)
        let all = try #require(Recommendation.compute(results, settings: RecommendationSettings()).first)
        let local = try #require(all.candidates.first { $0.summary.group.backend == "local" })
        #expect(local.meetsTarget && local.meetsLatency == false)
        #expect(all.recommended?.summary.group.backend == "cloud")
        #expect(all.recommended?.summary.goodput == 1)
        #expect(local.summary.goodput == 0.5)
    }

    @Test("when no interval's lower bound reaches the target, nothing is recommended and the closest is named")
    func noneMeetsTarget() throws {
        // 5/5 passes: lower bound 56.6%; 4/5: 37.6%.
        let results = cases(5, prefix: "s", tags: ["science"], backend: "local", latencies: [100], cost: 0)
            + cases(5, prefix: "s", tags: ["science"], backend: "cloud", failing: 1, latencies: [100], cost: 0.01)
        let science = try #require(Recommendation.compute(results, settings: RecommendationSettings()).last)
        #expect(science.recommended == nil)
        #expect(science.closest?.summary.group.backend == "local")
        let sentence = RecommendationMarkdown.sentence(science)
        #expect(sentence.contains("no backend × level reaches the 80.0% target"))
        #expect(sentence.contains("closest is local · none · default at 100.0% [56.6–100.0]"))
        // At equal bounds the cheaper is the closest.
        let tied = cases(5, prefix: "s", tags: [], backend: "dear", latencies: [100], cost: 0.02)
            + cases(5, prefix: "s", tags: [], backend: "cheap", latencies: [100], cost: 0.01)
        #expect(Recommendation.compute(tied, settings: RecommendationSettings()).first?.closest?.summary.group.backend == "cheap")
        // A lower target the 5/5 lower bound reaches picks it.
        let lowered = try #require(Recommendation.compute(results, settings: RecommendationSettings(target: 0.5)).last)
        #expect(lowered.recommended?.summary.group.backend == "local")
        #expect(lowered.targetSource == "command line")
    }

    @Test("--target overrides the suite's target, which overrides the default")
    func targetSources() throws {
        let results = cases(3, prefix: "c", tags: [], backend: "local", latencies: [100], cost: 0)
        let suite = try #require(Recommendation.compute(results, settings: RecommendationSettings(suiteTargets: ["geo": 0.3])).first)
        #expect(suite.target == 0.3 && suite.targetSource == "suite")
        let flag = try #require(Recommendation.compute(results, settings: RecommendationSettings(target: 0.6, suiteTargets: ["geo": 0.3])).first)
        #expect(flag.target == 0.6 && flag.targetSource == "command line")
    }

    @Test("an unknown cost ranks after every known cost")
    func unknownCost() throws {
        let results = cases(20, prefix: "q", tags: [], backend: "unpriced", latencies: [10], cost: nil)
            + cases(20, prefix: "q", tags: [], backend: "priced", latencies: [900], cost: 0.5)
        let all = try #require(Recommendation.compute(results, settings: RecommendationSettings()).first)
        #expect(all.recommended?.summary.group.backend == "priced")
        #expect(all.candidates.first { $0.summary.group.backend == "unpriced" }?.summary.costUSD == nil)
    }

    @Test("context fit is estimated from instructions, the conversation so far and the answer; on-device overflows are measured")
    func onDeviceFit() throws {
        var long = fixtureResult(caseID: "long", status: .pass, latencyMs: 10)
        long.instructions = String(repeating: "a", count: 16_000)  // 4,000 tokens
        long.prompt = String(repeating: "b", count: 400)           // 100
        long.output = "yes"                                         // 1 → 4,101 > 4,096
        var turn1 = fixtureResult(caseID: "chat", turn: 1, turns: 2, status: .pass, latencyMs: 10)
        turn1.prompt = String(repeating: "c", count: 40)            // 10
        turn1.output = String(repeating: "d", count: 80)            // 20
        var turn2 = fixtureResult(caseID: "chat", turn: 2, turns: 2, status: .pass, latencyMs: 10)
        turn2.prompt = String(repeating: "e", count: 40)            // 10 + 30 earlier + 1 answer = 41
        turn2.output = "ok"
        let all = try #require(Recommendation.compute([long, turn1, turn2], settings: RecommendationSettings()).first)
        #expect(all.onDevice.largestTokens == 4101 && all.onDevice.largestCase == "long")
        #expect(all.onDevice.overflowing == ["long"] && !all.onDevice.fits)
        #expect(all.pccRequestsPerTask == 1.5)

        let chatOnly = try #require(Recommendation.compute([turn1, turn2], settings: RecommendationSettings()).first)
        #expect(chatOnly.onDevice.largestTokens == 41 && chatOnly.onDevice.fits)

        var overflowed = fixtureResult(caseID: "chat", backend: "device", status: .error, errorKind: .contextOverflow)
        overflowed.prompt = "short"
        let measured = try #require(Recommendation.compute([turn1, turn2, overflowed],
                                                           settings: RecommendationSettings(placements: ["device": .onDevice])).first)
        #expect(measured.onDevice.measuredOverflowing == ["chat"] && !measured.onDevice.fits)
    }

    @Test("Private Cloud Compute's quota per task is one request per turn, or the attempts counted on an apple-pcc backend")
    func pccQuota() throws {
        var first = fixtureResult(caseID: "chat", turn: 1, turns: 2, backend: "pcc", status: .pass, latencyMs: 10)
        first.attempts = 2  // one retry spent a second request
        var second = fixtureResult(caseID: "chat", turn: 2, turns: 2, backend: "pcc", status: .pass, latencyMs: 10)
        second.attempts = 1
        var single = fixtureResult(caseID: "one", backend: "pcc", status: .pass, latencyMs: 10)
        single.attempts = 1
        let planned = try #require(Recommendation.compute([first, second, single], settings: RecommendationSettings()).first)
        #expect(planned.pccRequestsPerTask == 1.5 && planned.pccMeasuredRequestsPerTask == nil)
        let measured = try #require(Recommendation.compute([first, second, single],
                                                           settings: RecommendationSettings(placements: ["pcc": .privateCloudCompute])).first)
        #expect(measured.pccMeasuredRequestsPerTask == 2)
        #expect(RecommendationMarkdown.sentence(measured).contains("each task spent 2 requests of a user's daily quota (measured"))
    }

    @Test("recommendation.csv marks one pick per tag, and its all-cases figures equal summary.csv's")
    func csvMatchesSummary() throws {
        let results = cases(20, prefix: "q", tags: ["qa"], backend: "cloud", failing: 1, latencies: [100, 150, 700], cost: 0.0011)
            + cases(20, prefix: "q", tags: ["qa"], backend: "local", latencies: [250, 300], cost: 0)
        let rows = try parseCSV(RecommendationCSV.render(Recommendation.compute(results, settings: RecommendationSettings(target: 0.7))))
        #expect(rows.first == RecommendationCSV.columns)
        let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(RecommendationCSV.columns, $0)) }
        #expect(records.count == 4)
        for tag in [Recommendation.allCasesLabel, "qa"] {
            #expect(records.filter { $0["tag"] == tag && $0["recommended"] == "true" }.map { $0["backend"] } == ["local"])
        }
        let summaryRows = try parseCSV(SummaryCSV.render(RunAggregate(results).groups))
        let summaries = summaryRows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(summaryRows[0], $0)) }
        for summary in summaries {
            let row = try #require(records.first { $0["tag"] == Recommendation.allCasesLabel && $0["backend"] == summary["backend"] })
            for column in ["pass_rate", "pass_rate_low", "pass_rate_high", "latency_p50_ms", "latency_p95_ms",
                           "ttft_p50_ms", "ttft_p95_ms", "cost_usd", "passed"] {
                #expect(row[column] == summary[column], "\(column) of \(summary["backend"] ?? "")")
            }
        }
        // $0.0011 × 20 / 20 × 1,000 = $1.1 per 1,000 cases; local costs 0, not empty.
        #expect(records.first { $0["backend"] == "cloud" }?["cost_per_1000_cases_usd"] == "1.1")
        #expect(records.first { $0["backend"] == "local" }?["cost_per_1000_cases_usd"] == "0")
    }

    @Test("the report writer writes recommendation.csv and a Recommendation section with one sentence per tag")
    func writtenByReportWriter() throws {
        let results = cases(4, prefix: "q", tags: ["qa", "a|b"], backend: "local", latencies: [100], cost: nil)
            + cases(4, prefix: "q", tags: ["qa", "a|b"], backend: "cloud", latencies: [200], cost: nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ReportWriter.write(ReportInput(results: results, startedAt: Date(), endedAt: Date()), to: directory)
        let markdown = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("## Recommendation"))
        #expect(markdown.contains("- **qa** (4 cases): no backend × level reaches"))
        #expect(markdown.contains("a\\|b"), "a tag with a pipe is escaped in the table")
        #expect(markdown.contains("Too few cases to reach the target at 95% confidence even if every case passed: (all cases) (4 of the 16 cases a 80.0% target needs)"),
                "\(markdown)")
        let one = cases(4, prefix: "q", tags: ["qa"], backend: "local", latencies: [100], cost: nil)
        let single = SummaryMarkdown.render(ReportInput(results: one, startedAt: Date(), endedAt: Date()), aggregate: RunAggregate(one))
        #expect(single.contains("Only one backend × reasoning × variant ran (local · none · default), so there is nothing to choose between"))
        #expect(!single.contains("none meets it"))
        let csv = try String(contentsOf: directory.appendingPathComponent("recommendation.csv"), encoding: .utf8)
        let rows = try parseCSV(csv)
        #expect(rows.count == 7, "a header and 3 tags × 2 candidates")
        #expect(rows.dropFirst().allSatisfy { $0[RecommendationCSV.columns.firstIndex(of: "cost_usd")!] == "" },
                "an unknown cost stays empty")
    }

    @Test("each case run's tags are found once each, whichever turn carries them")
    func caseRunsByTag() {
        func turn(_ caseID: String, _ turn: Int, tags: [String]) -> RequestResult {
            var result = fixtureResult(caseID: caseID, turn: turn, turns: 2, status: .pass)
            result.tags = tags
            return result
        }
        let aggregate = RunAggregate([turn("a", 1, tags: ["x", "y"]), turn("a", 2, tags: ["x", "y"]),
                                      turn("b", 1, tags: ["y"]), turn("b", 2, tags: ["y", "z"]),
                                      turn("c", 1, tags: []), turn("c", 2, tags: ["x", "x"])])
        #expect(aggregate.caseRuns.map(\.caseID) == ["a", "b", "c"])
        var lookup = Recommendation.TagLookup(["x", "y", "z", "unused"])
        #expect(aggregate.caseRuns.map { lookup.positions(of: $0) } == [[0, 1], [1, 2], [0]])
    }
}

@Test("report.html carries the recommendation: the same table rows as summary.md and a sentence per tag, escaped")
func recommendationInReportHTML() throws {
    let results = cases(20, prefix: "q", tags: ["<qa & \"co\">"], backend: "local", latencies: [100], cost: 0)
        + cases(20, prefix: "q", tags: ["<qa & \"co\">"], backend: "cloud", latencies: [200], cost: 0)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rec-html-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try ReportWriter.write(ReportInput(results: results, startedAt: Date(), endedAt: Date()), to: directory)
    let html = try String(contentsOf: directory.appendingPathComponent("report.html"), encoding: .utf8)
    #expect(html.contains("&lt;qa &amp; &quot;co&quot;&gt;") && !html.contains("<qa &"))
    let page = try ParsedXML(html)
    let index = try #require(page.elements.firstIndex { $0.name == "section" && $0.attributes["class"] == "extra" })
    let inside = page.descendants(of: index)
    #expect(inside.first { $0.name == "h2" }?.text == "Recommendation")
    #expect(inside.filter { $0.name == "th" }.map(\.text) == RecommendationMarkdown.header)
    let recommendations = Recommendation.compute(results, settings: RecommendationSettings())
    #expect(inside.filter { $0.name == "td" }.map(\.text) == RecommendationMarkdown.rows(recommendations).flatMap { $0 })
    #expect(inside.filter { $0.name == "li" }.map(\.text) == recommendations.map { RecommendationMarkdown.sentence($0, markdown: false) })
    #expect(inside.filter { $0.name == "li" }.last?.text.hasPrefix("<qa & \"co\"> (20 cases): use local · none · default") == true)

    // With one candidate, report.html says what a choice needs, as summary.md does, and has no table.
    let one = results.filter { $0.backend == "local" }
    let section = try #require(RecommendationHTML.section(Recommendation.compute(one, settings: RecommendationSettings())))
    #expect(section.table == nil)
    #expect(section.paragraphs.first?.hasPrefix("Only one backend × reasoning × variant ran (local · none · default)") == true)
}

/// RFC 4180 records of `text` (CRLF line ends, quoted fields with doubled quotes).
func parseCSV(_ text: String) throws -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var iterator = Array(text).makeIterator()
    var pending: Character? = nil
    while let character = pending ?? iterator.next() {
        pending = nil
        if quoted {
            if character == "\"" {
                if let next = iterator.next() {
                    if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                } else { quoted = false }
            } else { field.append(character) }
            continue
        }
        switch character {
        case "\"": quoted = true
        case ",": row.append(field); field = ""
        case "\r\n", "\n": row.append(field); rows.append(row); row = []; field = ""
        default: field.append(character)
        }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}

@Test("A suite's target loads, and a bad one is an error at its line and JSON path")
func suiteTargetLoads() throws {
    let suite = try SuiteLoader.load(data: Data("""
    { "format": "evalbench.suite/1", "suite": "s", "target": 0.9, "cases": [ { "id": "c", "prompt": "p" } ] }
    """.utf8), file: "s.json")
    #expect(suite.target == 0.9)
    do {
        _ = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s",
          "target": 0, "cases": [ { "id": "c", "prompt": "p" } ] }
        """.utf8), file: "s.json")
        Issue.record("a target of 0 loaded")
    } catch {
        let text = error.diagnostics.map(\.description).joined(separator: "\n")
        #expect(text.contains("s.json:2:"), "\(text)")
        #expect(text.contains("$.target"), "\(text)")
        #expect(text.contains("greater than 0 and at most 1"), "\(text)")
    }
}

@Test("A tag's recommendation, made from the case runs that carry the tag, equals one aggregated from its results")
func tagRecommendationFromCaseRuns() throws {
    var results: [RequestResult] = []
    for index in 0..<60 {
        var result = fixtureResult(caseID: "case-\(index % 10)", backend: index % 3 == 0 ? "a" : (index % 3 == 1 ? "b" : "c"),
                                   repeatIndex: index / 30 + 1, status: index % 7 == 0 ? .fail : (index % 11 == 0 ? .error : .pass),
                                   errorKind: index % 11 == 0 && index % 7 != 0 ? .timeout : nil,
                                   latencyMs: Double(80 + index * 3), ttftMs: Double(10 + index), costUSD: Double(index) / 1000)
        result.tags = index % 10 < 4 ? ["short", "geo"] : ["long"]
        result.planIndex = index
        results.append(result)
    }
    let settings = RecommendationSettings()
    let computed = Recommendation.compute(results, settings: settings)
    #expect(computed.map(\.tag) == [nil, "short", "geo", "long"])
    for recommendation in computed.dropFirst() {
        let tag = try #require(recommendation.tag)
        let tagged = results.filter { $0.tags.contains(tag) }
        // The all-cases row of a run of only the tagged results, named after the tag.
        var expected = try #require(Recommendation.compute(tagged, settings: settings).first)
        expected.tag = tag
        #expect(recommendation == expected, "tag \(tag)")
        #expect(RunAggregate(caseRuns: RunAggregate(results).caseRuns.filter { $0.requests[0].tags.contains(tag) }).groups
                == RunAggregate(tagged).groups)
    }
}
