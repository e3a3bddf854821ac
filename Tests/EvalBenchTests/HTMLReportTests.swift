import Foundation
import Testing
@testable import EvalBench

/// Two groups, one with markup characters in its backend and variant names and no pricing.
private func markupRun() -> [RequestResult] {
    var results: [RequestResult] = []
    for (index, latency) in [120.0, 240, 360].enumerated() {
        results.append(fixtureResult(caseID: "c\(index)", status: index == 2 ? .fail : .pass, latencyMs: latency,
                                     ttftMs: latency / 3, usage: Usage(inputTokens: 40, cachedInputTokens: 10, outputTokens: 5),
                                     costUSD: 0.0004))
        results.append(fixtureResult(caseID: "c\(index)", variant: "it's", backend: #"a<b>&"c""#, model: nil,
                                     status: .pass, latencyMs: latency * 2))
    }
    return results
}

private func report(_ results: [RequestResult], extraSections: [HTMLSection] = []) -> (html: String, aggregate: RunAggregate) {
    let aggregate = RunAggregate(results)
    let input = ReportInput(results: results, suiteNames: ["geo<&>"], startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                            endedAt: Date(timeIntervalSince1970: 1_800_000_042))
    return (HTMLReport.render(input, aggregate: aggregate, charts: ChartSet(aggregate),
                              extraSections: extraSections), aggregate)
}

@Suite("report.html")
struct HTMLReportTests {
    @Test("report.html parses as XML and has the title, run time, headline table, charts and footer")
    func structure() throws {
        let (html, aggregate) = report(markupRun())
        #expect(html.hasPrefix("<!DOCTYPE html>\n"))
        let page = try ParsedXML(html)
        #expect(page.elements.first?.name == "html")
        #expect(page.all("title").first?.text == "evalbench: geo<&>")
        #expect(page.all("h1").first?.text == "evalbench: geo<&>")
        let runTime = try #require(page.all("p", class: "run-time").first?.text)
        #expect(runTime.contains("2027-01-15T08:00:00Z") && runTime.contains("42.0 s"))
        #expect(runTime.contains("\(aggregate.caseRuns.count) case runs"))
        #expect(page.all("style").count == 1)
        #expect(page.all("table", class: "headline").count == 1)
        let set = ChartSet(aggregate)
        let figures = page.all("figure")
        #expect(figures.compactMap { $0.attributes["id"] } == set.charts.map { $0.fileName.replacingOccurrences(of: ".svg", with: "") })
        #expect(page.all("svg").count == set.charts.count)
        #expect(page.all("svg").allSatisfy { $0.attributes["xmlns"] == "http://www.w3.org/2000/svg" })
        #expect(page.all("p", class: "omitted").first?.text.contains("no multi-turn cases") == true)
        #expect(page.all("footer").count == 1)
    }

    @Test("the headline table has summary.csv's columns and its figures, n/a where summary.csv is empty")
    func headlineEqualsSummaryCSV() throws {
        let (html, aggregate) = report(markupRun())
        let page = try ParsedXML(html)
        let tableIndex = try #require(page.elements.firstIndex { $0.name == "table" && $0.attributes["class"] == "headline" })
        let inside = page.descendants(of: tableIndex)
        #expect(inside.filter { $0.name == "th" }.compactMap { $0.attributes["data-column"] } == SummaryCSV.columns)
        let rows = summaryRows(aggregate.groups)
        let rowIndices = page.elements.indices.filter { index in
            guard page.elements[index].name == "tr", let body = page.elements[index].parent else { return false }
            return page.elements[body].name == "tbody" && page.elements[body].parent == tableIndex
        }
        #expect(rowIndices.count == rows.count)
        var compared = 0
        for (rowIndex, csvRow) in zip(rowIndices, rows) {
            let cells = page.descendants(of: rowIndex).filter { $0.name == "td" }
            #expect(cells.count == SummaryCSV.columns.count)
            for (cell, column) in zip(cells, SummaryCSV.columns) {
                let expected = csvRow[column] ?? ""
                if ["pass_rate", "pass_rate_low", "pass_rate_high", "cache_hit_ratio"].contains(column), let ratio = Double(expected) {
                    // Fractions read as percentages; the cell keeps summary.csv's value.
                    #expect(cell.text == ReportFormat.percent(ratio), "\(column)")
                    #expect(cell.attributes["data-value"] == expected, "\(column)")
                } else {
                    #expect(cell.text == (expected.isEmpty ? "n/a" : expected), "\(column)")
                }
                compared += 1
            }
        }
        #expect(compared == rows.count * SummaryCSV.columns.count)
        // The markup-named group has no model, cost or tokens: n/a, never 0.
        #expect(rows[1]["model"] == "" && rows[1]["cost_usd"] == "")
    }

    @Test("a group answered by several models shows each with its requests; the cell keeps summary.csv's model")
    func severalModels() throws {
        let page = try ParsedXML(report(fallbackRouterResults()).html)
        let tableIndex = try #require(page.elements.firstIndex { $0.name == "table" && $0.attributes["class"] == "headline" })
        let cells = page.descendants(of: tableIndex).filter { $0.name == "td" }
        let model = try #require(cells.dropFirst().first)
        #expect(model.text == "small-fallback-v1 (4), big-model-v2 (1)")
        #expect(model.attributes["data-value"] == "small-fallback-v1")
    }

    @Test("names with markup characters are escaped in the page and read back unchanged")
    func escaping() throws {
        let (html, _) = report(markupRun(), extraSections: [
            HTMLSection(title: "Pick <this> & 'that'", paragraphs: [#"Use "a<b>" if x < y & z > 0."#],
                        table: HTMLTable(header: ["back<end>"], rows: [[#"a<b>&"c""#]])),
        ])
        #expect(!html.contains("a<b>"))
        #expect(html.contains("a&lt;b&gt;&amp;&quot;c&quot;") && html.contains("it&apos;s"))
        let page = try ParsedXML(html)
        let cells = page.all("td").map(\.text)
        #expect(cells.contains(#"a<b>&"c""#) && cells.contains("it's"))
        #expect(page.all("h2").map(\.text).contains("Pick <this> & 'that'"))
        #expect(page.all("p").map(\.text).contains(#"Use "a<b>" if x < y & z > 0."#))
        #expect(page.all("th").map(\.text).contains("back<end>"))
    }

    @Test("extra sections come after the headline table and before the charts, with their paragraphs and table")
    func extraSections() throws {
        let section = HTMLSection(title: "Recommendation", paragraphs: ["local passes 67% at 240 ms.", "Second."],
                                  table: HTMLTable(header: ["Backend", "Why"], rows: [["local", "fast"], ["cloud", "n/a"]]))
        let page = try ParsedXML(report(markupRun(), extraSections: [section]).html)
        let headings = page.all("h2").map(\.text)
        #expect(headings == ["Results", "Recommendation", "Charts"])
        let sectionIndex = try #require(page.elements.firstIndex { $0.name == "section" && $0.attributes["class"] == "extra" })
        let inside = page.descendants(of: sectionIndex)
        #expect(inside.filter { $0.name == "p" }.map(\.text) == section.paragraphs)
        #expect(inside.filter { $0.name == "th" }.map(\.text) == ["Backend", "Why"])
        #expect(inside.filter { $0.name == "td" }.map(\.text) == ["local", "fast", "cloud", "n/a"])
    }

    @Test("report.html is self-contained: no link, script, image or URL other than the SVG namespace")
    func selfContained() throws {
        for results in [markupRun(), []] {
            let html = report(results).html
            let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
            #expect(!withoutNamespace.contains("http://") && !withoutNamespace.contains("https://"))
            #expect(!withoutNamespace.contains("//"), "no protocol-relative references either")
            let page = try ParsedXML(html)
            #expect(page.all("link").isEmpty && page.all("script").isEmpty && page.all("img").isEmpty)
            #expect(page.elements.allSatisfy { $0.attributes["src"] == nil && $0.attributes["href"] == nil })
        }
    }

    @Test("an empty run still gives a page that says there are no results")
    func emptyRun() throws {
        let page = try ParsedXML(report([]).html)
        #expect(page.all("table").isEmpty)
        #expect(page.all("p").map(\.text).contains("No results in this run."))
        #expect(page.all("text", class: "no-data").count == 4)
    }

    @Test("the report writer writes report.html and the charts, links them from summary.md, and drops a stale cache chart")
    func writerWritesFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-html-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let multiTurn = [1, 2].map { fixtureResult(caseID: "chat", turn: $0, turns: 2, status: .pass, latencyMs: 10,
                                                   usage: Usage(inputTokens: 10, cachedInputTokens: $0 * 4)) }
        try ReportWriter.write(ReportInput(results: multiTurn, startedAt: Date(), endedAt: Date()), to: directory)
        let cacheChart = directory.appendingPathComponent(ChartSet.cacheByTurn)
        #expect(FileManager.default.fileExists(atPath: cacheChart.path))

        let results = markupRun()
        let input = ReportInput(results: results, startedAt: Date(), endedAt: Date())
        try ReportWriter.write(input, to: directory)
        #expect(!FileManager.default.fileExists(atPath: cacheChart.path))
        let aggregate = RunAggregate(results)
        let set = ChartSet(aggregate)
        for chart in set.charts {
            let written = try String(contentsOf: directory.appendingPathComponent(chart.fileName), encoding: .utf8)
            #expect(written == chart.svg)
        }
        let html = try String(contentsOf: directory.appendingPathComponent("report.html"), encoding: .utf8)
        let recommendation = RecommendationHTML.section(Recommendation.compute(results, settings: input.recommendation))
        #expect(html == HTMLReport.render(input, aggregate: aggregate, charts: set, extraSections: [try #require(recommendation)],
                                          grid: CaseGridCollector.grid(aggregate, baseline: nil)))
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Charts"))
        for chart in set.charts { #expect(summary.contains("](\(chart.fileName)): \(chart.caption)")) }
        #expect(summary.contains("`\(ChartSet.cacheByTurn)`): not written: no multi-turn cases in this run."))
        #expect(summary.contains("[report.html](report.html)"))
    }
}
