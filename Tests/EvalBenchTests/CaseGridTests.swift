import Foundation
import Testing
@testable import EvalBench

@Suite("report.html's case grid")
struct CaseGridTests {
    @Test("one row per case and one column per group; failing and flipped cases first; answers cut with the count of the rest")
    func rowsAndColumns() {
        let long = String(repeating: "a", count: CaseGrid.answerLimit + 25)
        var results = (0..<4).flatMap { index in
            ["local", "cloud"].map { backend in
                var result = fixtureResult(caseID: "c\(index)", backend: backend, status: index == 2 && backend == "cloud" ? .fail : .pass,
                                           latencyMs: 10, ttftMs: 5, failedAssertion: index == 2 && backend == "cloud" ? "contains Paris" : nil)
                result.output = index == 3 ? long : "answer \(index)"
                result.planIndex = index * 2 + (backend == "local" ? 0 : 1)
                return result
            }
        }
        results.append(fixtureResult(caseID: "c1", backend: "local", repeatIndex: 2, status: .fail, latencyMs: 10))
        var baseline = results.filter { $0.repeatIndex == 1 }
        baseline[0].status = .fail  // c0 on local passed now, failed then
        let grid = CaseGridCollector.grid(RunAggregate(results), baseline: ResultTable(baseline))
        #expect(grid.columns.map(\.label) == ["local · none · default", "cloud · none · default"])
        #expect(grid.rows.map(\.caseID) == ["c0", "c1", "c2", "c3"].sorted { lhs, rhs in
            ["c0", "c1", "c2"].contains(lhs) && !["c0", "c1", "c2"].contains(rhs)
        })
        let first = grid.rows.first { $0.caseID == "c0" }
        #expect(first?.flipped == true)
        #expect(first?.cells[0]?.baseline == CaseGrid.Baseline(status: .fail, answer: "answer 0", flipped: true))
        let repeated = grid.rows.first { $0.caseID == "c1" }?.cells[0]
        #expect(repeated?.repeats == 2 && repeated?.passedRepeats == 1 && repeated?.status == .fail)
        let failing = grid.rows.first { $0.caseID == "c2" }?.cells[1]?.turns.first
        #expect(failing?.failures == ["contains Paris: no"])
        let cut = grid.rows.first { $0.caseID == "c3" }?.cells[0]?.turns.first
        #expect(cut?.answer?.count == CaseGrid.answerLimit && cut?.omittedCharacters == 25)
        #expect(grid.sampleNote == nil)
        let html = CaseGridHTML.render(grid)
        #expect(html.contains("… 25 more characters in results.jsonl"))
        #expect(html.contains("<span class=\"flip\">flipped: was fail</span>"))
        #expect(html.contains("data-latency-ms=\"10.00\" data-ttft-ms=\"5.00\""))
    }

    @Test("above the cell limit: every failing case, then an even sample of the rest, and the page says so")
    func largeRunsAreSampled() {
        let results = (0..<3_000).map { index in
            fixtureResult(caseID: "c\(index)", status: index % 500 == 7 ? .fail : .pass, latencyMs: 1)
        }
        let grid = CaseGridCollector.grid(RunAggregate(results), baseline: nil)
        #expect(grid.totalCases == 3_000)
        #expect(grid.rows.count == CaseGrid.cellLimit)
        #expect(grid.rows.prefix(6).map(\.caseID) == ["c7", "c507", "c1007", "c1507", "c2007", "c2507"])
        #expect(Set(grid.rows.map(\.caseID)).count == grid.rows.count, "no case twice")
        #expect(grid.sampleNote?.hasPrefix("Showing 2000 of 3000 cases: every failing, erroring or flipped case first") == true)
        #expect(CaseGridHTML.render(grid).contains("class=\"grid-note sampled\""))
    }

    @Test("a case has cells only where it ran, columns first seen after it included; repeats counted, the worst verdict kept")
    func sparseCells() throws {
        let results = [
            fixtureResult(caseID: "a", backend: "x", status: .pass, latencyMs: 1),
            fixtureResult(caseID: "b", backend: "y", status: .pass, latencyMs: 1),
            fixtureResult(caseID: "b", backend: "x", repeatIndex: 1, status: .pass, latencyMs: 1),
            fixtureResult(caseID: "b", backend: "x", repeatIndex: 2, status: .error, errorKind: .timeout),
            fixtureResult(caseID: "c", backend: "z", status: .skipped),
        ]
        let grid = CaseGridCollector.grid(RunAggregate(results), baseline: nil)
        #expect(grid.columns.map(\.group.backend) == ["x", "y", "z"])
        #expect(grid.rows.map(\.caseID) == ["b", "a", "c"])
        let b = try #require(grid.rows.first)
        #expect(b.cells.keys.sorted() == [0, 1] && b.status == .error)
        #expect(b.cells[0]?.repeats == 2 && b.cells[0]?.passedRepeats == 1 && b.cells[0]?.status == .error)
        #expect(b.cells[0]?.turns.map(\.status) == [.pass], "the turns of its first repeat")
        #expect(grid.rows[1].cells.keys.sorted() == [0] && grid.rows[2].cells.keys.sorted() == [2])
    }

    @Test("each row's tags are a JSON array that the tag filter matches exactly: 'geo' does not match 'geo fr'")
    func tagsMatchExactly() throws {
        let tagged: [(String, [String])] = [("a", ["geo fr"]), ("b", ["geo", "x"]), ("c", ["bell\u{7}", "tab\tbed"])]
        let results = tagged.map { caseID, tags in
            var result = fixtureResult(caseID: caseID, status: .pass, latencyMs: 1)
            result.tags = tags
            return result
        }
        let page = try ParsedXML(CaseGridHTML.render(CaseGridCollector.grid(RunAggregate(results), baseline: nil)))
        let options = page.all("option").filter { $0.parent.map { page.elements[$0].attributes["id"] } == "filter-tag" }
            .compactMap { $0.attributes["value"] }
        #expect(options == ["", "geo fr", "geo", "x", "bell\u{FFFD}", "tab\tbed"])
        var rowTags: [String: [String]] = [:]
        for row in page.all("tr", class: "case") {
            let attribute = try #require(row.attributes["data-tags"])
            rowTags[row.attributes["data-case"] ?? ""] = try JSONSerialization.jsonObject(with: Data(attribute.utf8)) as? [String]
        }
        #expect(rowTags == ["geo/a": ["geo fr"], "geo/b": ["geo", "x"], "geo/c": ["bell\u{FFFD}", "tab\tbed"]],
                "each tag as its filter option reads it back, control characters as the page writes them")
        // What the script tests for a row: its tags hold the option's value.
        #expect(rowTags.filter { $0.value.contains("geo") }.keys.sorted() == ["geo/b"])
        #expect(options.dropFirst().allSatisfy { option in rowTags.values.contains { $0.contains(option) } })
        #expect(ViewerAssets.script.contains("JSON.parse(row.dataset.tags).indexOf(t) < 0"))
        #expect(!ViewerAssets.script.contains("' ' + t + ' '"))
    }

    @Test("a turn without a timing reads n/a, not 'n/a ms'")
    func untimedTurn() {
        let timed = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([fixtureResult(caseID: "x", status: .pass, latencyMs: 12.34, ttftMs: 5)]), baseline: nil))
        #expect(timed.contains("<span title=\"latency\">12.3 ms</span><span title=\"time to first token\">TTFT 5.0 ms</span>"))
        let untimed = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([fixtureResult(caseID: "x", status: .error, errorKind: .network)]), baseline: nil))
        #expect(untimed.contains("<span title=\"latency\">n/a</span><span title=\"time to first token\">TTFT n/a</span>"), "\(untimed)")
    }

    @Test("a turn whose usage cannot be true shows no token figure, in the page or its attributes, but why, escaped")
    func impossibleUsage() {
        var negative = fixtureResult(caseID: "x", status: .pass, latencyMs: 12.34, ttftMs: 5,
                                     usage: Usage(inputTokens: -5, cachedInputTokens: 0, outputTokens: 3, source: .reported))
        negative.usage.suspect = #"promptTokenCount is the string "<b>&", not a whole number of tokens within range; left unknown"#
        let html = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([negative]), baseline: nil))
        #expect(html.contains(#" data-input-tokens="" data-cached-input-tokens="" data-output-tokens="" data-cache-hit-ratio="""#
            + #" data-usage-suspect="promptTokenCount is the string &quot;&lt;b&gt;&amp;&quot;, not a whole number of tokens within range; left unknown">"#),
                "\(html)")
        #expect(html.contains(#"<span class="usage-suspect" title="input and output tokens">tokens n/a: impossible usage (promptTokenCount is the string &quot;&lt;b&gt;&amp;&quot;, not a whole number of tokens within range; left unknown)</span><span title="cache hit">cache n/a</span>"#))
        #expect(!html.contains("-5"), "the impossible count is nowhere on the page")
        let cachedAbove = fixtureResult(caseID: "y", status: .pass, latencyMs: 1,
                                        usage: Usage(inputTokens: 100, cachedInputTokens: 500, outputTokens: 3))
        let unflagged = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([cachedAbove]), baseline: nil))
        #expect(unflagged.contains(#"data-input-tokens="" data-cached-input-tokens="" data-output-tokens="" data-cache-hit-ratio="" data-usage-suspect="cached and cache-write input tokens (500) exceed input_tokens 100">"#),
                "figures are checked here even when the backend did not flag them: \(unflagged)")
        let fine = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([fixtureResult(caseID: "z", status: .pass, latencyMs: 1,
                                                                                          usage: Usage(inputTokens: 100, cachedInputTokens: 50, outputTokens: 3))]),
                                                          baseline: nil))
        #expect(fine.contains(#"data-input-tokens="100" data-cached-input-tokens="50" data-output-tokens="3" data-cache-hit-ratio="0.5000">"#))
        #expect(fine.contains("<span title=\"input and output tokens\">100 in (50 cached) · 3 out</span>") && !fine.contains("usage-suspect"))
    }

    @Test("hostile answers are escaped in the grid")
    func escaping() {
        var result = fixtureResult(caseID: "x", status: .pass, latencyMs: 1)
        result.output = "<script>alert(1)</script>&\"'"
        let html = CaseGridHTML.render(CaseGridCollector.grid(RunAggregate([result]), baseline: nil))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos;"))
    }
}
