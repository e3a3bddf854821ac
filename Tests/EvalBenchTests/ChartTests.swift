import Foundation
import Testing
@testable import EvalBench

/// A run of four groups: a free local backend, a paid slower cloud backend that passes more,
/// a backend with markup characters in its names and no pricing, and one that skipped everything.
private func comparisonRun() -> [RequestResult] {
    var results: [RequestResult] = []
    for (index, latency) in [100.0, 200, 300, 400].enumerated() {
        results.append(fixtureResult(caseID: "c\(index)", status: index == 3 ? .fail : .pass, latencyMs: latency,
                                     ttftMs: latency / 4, costUSD: 0))
        results.append(fixtureResult(caseID: "c\(index)", backend: "cloud", model: "big", status: .pass,
                                     latencyMs: latency + 800, ttftMs: latency / 2 + 100, costUSD: 0.001))
        results.append(fixtureResult(caseID: "c\(index)", variant: "it's", backend: #"a<b>&"c""#,
                                     status: index < 2 ? .pass : .fail, latencyMs: latency + 300, ttftMs: 50))
        results.append(fixtureResult(caseID: "c\(index)", backend: "off", status: .skipped))
    }
    return results
}

private func chart(_ name: String, in set: ChartSet) throws -> Chart {
    try #require(set.charts.first { $0.fileName == name })
}

/// summary.csv's rows keyed by `backend · reasoning · variant`.
private func rowsByLabel(_ aggregate: RunAggregate) -> [String: [String: String]] {
    Dictionary(uniqueKeysWithValues: summaryRows(aggregate.groups).map {
        ("\($0["backend"]!) · \($0["reasoning"]!) · \($0["variant"]!)", $0)
    })
}

@Suite("Charts")
struct ChartTests {
    @Test("the Pareto frontier keeps the points no other beats on both quality and cost, ties included, unknowns excluded")
    func paretoFrontier() {
        let points = [
            ParetoPoint(id: "A", quality: 0.9, cost: 300),
            ParetoPoint(id: "B", quality: 0.95, cost: 900),
            ParetoPoint(id: "C", quality: 0.8, cost: 100),
            ParetoPoint(id: "D", quality: 0.85, cost: 500),   // A is cheaper and better
            ParetoPoint(id: "E", quality: 0.9, cost: 300),    // an exact tie with A
            ParetoPoint(id: "F", quality: 0.9, cost: 400),    // as good as A, dearer
            ParetoPoint(id: "G", quality: nil, cost: 50),
            ParetoPoint(id: "H", quality: 0.99, cost: nil),
            ParetoPoint(id: "I", quality: 0.7, cost: 100),    // as cheap as C, worse
            ParetoPoint(id: "J", quality: .nan, cost: 10),
        ]
        #expect(ParetoFrontier.frontier(points).map(\.id) == ["C", "A", "E", "B"])
        #expect(ParetoFrontier.frontier([ParetoPoint<String>]()).isEmpty)
        #expect(ParetoFrontier.frontier([ParetoPoint(id: 1, quality: 0, cost: 0)]).map(\.id) == [1])
        // The input order does not matter, except among exact ties.
        #expect(ParetoFrontier.frontier(points.reversed()).map(\.id) == ["C", "E", "A", "B"])
    }

    @Test("nice ticks are 1, 2 or 5 × 10ⁿ apart and cover the values, even for one value, none, huge and tiny ones")
    func niceTicks() {
        #expect(Axis(covering: [0, 299]).ticks == [0, 100, 200, 300])
        #expect(Axis(covering: [12, 47], includingZero: true).ticks == [0, 10, 20, 30, 40, 50])
        #expect(Axis(covering: [0, 100]).ticks == [0, 20, 40, 60, 80, 100])
        #expect(Axis(covering: [0.0012, 0.0047]).ticks.map(Axis(covering: [0.0012, 0.0047]).label)
                    == ["0.001", "0.002", "0.003", "0.004", "0.005"])
        #expect(Axis(covering: [1, 3], minimumStep: 1).ticks == [1, 2, 3])
        for values in [[5.0, 5], [0, 0], [], [-3, 7], [1e12, 3e12], [1e-9, 4e-9], [.infinity, 2], [-1e307, 1e307]] {
            for includingZero in [false, true] {
                let axis = Axis(covering: values, includingZero: includingZero)
                let finite = values.filter(\.isFinite)
                #expect(axis.upper > axis.lower, "\(values)")
                #expect(axis.ticks.count >= 2 && axis.ticks.count <= 8, "\(values): \(axis.ticks)")
                #expect(finite.allSatisfy { $0 >= axis.lower && $0 <= axis.upper }, "\(values): \(axis.ticks)")
                let labels = axis.ticks.map(axis.label)
                #expect(Set(labels).count == labels.count, "\(values): \(labels)")
            }
        }
        // Beyond the range a Double can subtract, the axis is clamped but still usable.
        #expect(Axis(covering: [-1e308, 1e308]).upper > Axis(covering: [-1e308, 1e308]).lower)
        #expect(Axis(covering: [1e12, 3e12]).label(2e12) == "2e12")
        #expect(Axis(covering: [1e-9, 4e-9]).label(2e-9) == "2e-9")
    }

    @Test("a large CDF is thinned to a few hundred steps that stay within 1/400 of the full curve")
    func cdfThinning() {
        // 100,000 distinct values, skewed like latencies.
        let values = (0..<100_000).map { (i: Int) -> Double in
            let u = Double(i) / 100_000
            return 100 + 50 * u + 3000 * u * u * u * u
        }
        let full = EmpiricalCDF.steps(values)
        let thin = EmpiricalCDF.thinned(full)
        #expect(full.count == 100_000)
        #expect(thin.count <= 801 && thin.count > 100, "\(thin.count)")
        #expect(thin.first == full.first && thin.last == full.last)
        // The drawn curve at each original step is the last kept step at or below it.
        var keptIndex = 0
        var worst = 0.0
        for step in full {
            while keptIndex + 1 < thin.count && thin[keptIndex + 1].value <= step.value { keptIndex += 1 }
            worst = max(worst, abs(step.fraction - thin[keptIndex].fraction))
        }
        #expect(worst < 1.0 / 400, "\(worst)")
        // Small samples are drawn in full.
        let small = EmpiricalCDF.steps((1...800).map(Double.init))
        #expect(EmpiricalCDF.thinned(small) == small)
    }

    @Test("the empirical CDF has one step per distinct value at the share of values at or below it")
    func cdfSteps() {
        #expect(EmpiricalCDF.steps([30, 10, 20, 20, .nan]) == [
            CDFStep(value: 10, fraction: 0.25), CDFStep(value: 20, fraction: 0.75), CDFStep(value: 30, fraction: 1),
        ])
        #expect(EmpiricalCDF.steps([]).isEmpty)
        #expect(EmpiricalCDF.steps([7]) == [CDFStep(value: 7, fraction: 1)])
    }

    @Test("the pass-rate vs latency chart has axes, a legend entry and marker per group that ran, error bars and the frontier, with summary.csv's figures")
    func latencyScatter() throws {
        let aggregate = RunAggregate(comparisonRun())
        let set = ChartSet(aggregate)
        let svgText = try chart(ChartSet.passRateVsLatency, in: set).svg
        let svg = try ParsedXML(svgText)
        let root = try #require(svg.elements.first)
        #expect(root.name == "svg" && root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["viewBox"]?.hasPrefix("0 0 800 ") == true)
        #expect(svg.all(class: "x-axis").count == 1 && svg.all(class: "y-axis").count == 1)
        #expect(svg.all(class: "axis-label").map(\.text) == ["Latency p50 (ms)", "Pass rate (%)"])
        #expect(svg.all(class: "tick-label").count >= 4)

        let rows = rowsByLabel(aggregate)
        let ran = aggregate.groups.filter { $0.skipped < $0.cases }.map(\.group.label)
        let markers = svg.all(class: "marker")
        #expect(markers.compactMap { $0.attributes["data-group"] } == ran)
        #expect(Set(markers.compactMap { $0.attributes["data-shape"] }).count == markers.count)
        #expect(Set(markers.compactMap { $0.attributes["fill"] }).count == markers.count)
        for marker in markers {
            let row = try #require(rows[marker.attributes["data-group"] ?? ""])
            #expect(marker.attributes["data-pass-rate"] == row["pass_rate"])
            #expect(marker.attributes["data-pass-rate-low"] == row["pass_rate_low"])
            #expect(marker.attributes["data-pass-rate-high"] == row["pass_rate_high"])
            #expect(marker.attributes["data-x"] == row["latency_p50_ms"])
        }
        #expect(svg.all(class: "error-bar").count == ran.count)
        #expect(svg.all(class: "legend-entry").compactMap { $0.attributes["data-label"] } == ran)
        #expect(svg.all(class: "legend-entry").map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) } == ran)

        // local is fastest; cloud passes most; the markup-named backend is slower than local and passes less.
        let frontier = markers.filter { $0.attributes["data-frontier"] == "true" }.compactMap { $0.attributes["data-group"] }
        #expect(frontier == ["local · none · default", "cloud · none · default"])
        #expect(svg.all("path", class: "frontier").first?.attributes["data-points"] == "2")
        #expect(svg.all(class: "frontier-mark").count == 2)
        let notes = svg.all(class: "note").map(\.text).joined(separator: " ")
        #expect(notes.contains("Not plotted, every case skipped: off · none · default."))
    }

    @Test("labels with markup characters are escaped in the SVG and read back unchanged")
    func escapedLabels() throws {
        let set = ChartSet(RunAggregate(comparisonRun()))
        let label = #"a<b>&"c" · none · it's"#
        for chart in set.charts {
            #expect(!chart.svg.contains(#"a<b>"#), "\(chart.fileName)")
            let svg = try ParsedXML(chart.svg)
            let inLegend = svg.all(class: "legend-entry").contains { $0.attributes["data-label"] == label && $0.text.contains(label) }
            // The cost chart leaves the group out (its cost is unknown) and names it in a note.
            let inNote = svg.all(class: "note").map(\.text).joined(separator: " ").contains(label)
            #expect(chart.fileName == ChartSet.passRateVsCost ? inNote && !inLegend : inLegend, "\(chart.fileName)")
        }
        let svg = try chart(ChartSet.passRateVsLatency, in: set).svg
        #expect(svg.contains("a&lt;b&gt;&amp;&quot;c&quot; · none · it&apos;s"))
    }

    @Test("the pass-rate vs cost chart plots cost per 1,000 cases, a free backend at 0, and names the groups whose cost is unknown")
    func costScatter() throws {
        let aggregate = RunAggregate(comparisonRun())
        let svg = try ParsedXML(try chart(ChartSet.passRateVsCost, in: ChartSet(aggregate)).svg)
        #expect(svg.all(class: "axis-label").first?.text == "Cost per 1,000 cases (USD)")
        let rows = rowsByLabel(aggregate)
        let markers = svg.all(class: "marker")
        #expect(markers.compactMap { $0.attributes["data-group"] } == ["local · none · default", "cloud · none · default"])
        for marker in markers {
            let row = try #require(rows[marker.attributes["data-group"] ?? ""])
            #expect(marker.attributes["data-pass-rate"] == row["pass_rate"])
            #expect(marker.attributes["data-cost-usd"] == row["cost_usd"])
            let cost = try #require(Double(row["cost_usd"] ?? ""))
            let ran = try #require(Int(row["cases"] ?? "")) - (try #require(Int(row["skipped"] ?? "")))
            let x = try #require(Double(marker.attributes["data-x"] ?? ""))
            #expect(abs(x - cost / Double(ran) * 1000) < 1e-6)
        }
        #expect(markers.first?.attributes["data-x"] == "0")
        let notes = svg.all(class: "note").map(\.text).joined(separator: " ")
        #expect(notes.contains(#"Not plotted, cost unknown: a<b>&"c" · none · it's."#))
        #expect(!notes.contains("cost unknown: local"))
    }

    @Test("the latency and TTFT CDFs have one step line per timed group, over the requests summary.csv's percentiles use")
    func cdfCharts() throws {
        var results = comparisonRun()
        var replayed = fixtureResult(caseID: "r", status: .pass, latencyMs: 99_999, ttftMs: 99_999)
        replayed.replayed = true
        var cached = fixtureResult(caseID: "k", status: .pass, latencyMs: 88_888, ttftMs: 88_888)
        cached.cached = true
        results += [replayed, cached, fixtureResult(caseID: "e", status: .error, errorKind: .timeout, latencyMs: 77_777)]
        let aggregate = RunAggregate(results)
        let set = ChartSet(aggregate)
        let rows = rowsByLabel(aggregate)
        for (name, column) in [(ChartSet.latencyCDF, "latency"), (ChartSet.ttftCDF, "ttft")] {
            let svg = try ParsedXML(try chart(name, in: set).svg)
            let lines = svg.all("path", class: "series")
            #expect(lines.compactMap { $0.attributes["data-group"] }
                    == ["local · none · default", "cloud · none · default", #"a<b>&"c" · none · it's"#])
            for line in lines {
                let row = try #require(rows[line.attributes["data-group"] ?? ""])
                #expect(line.attributes["data-p50"] == row["\(column)_p50_ms"], "\(name)")
                #expect(line.attributes["data-p95"] == row["\(column)_p95_ms"], "\(name)")
                #expect(line.attributes["data-p90"] == row["\(column)_p90_ms"], "\(name)")
                #expect(line.attributes["data-count"] == "4", "\(name): replayed, cached and errored requests are left out")
            }
            #expect(svg.all(class: "marker").count == lines.count)
            let notes = svg.all(class: "note").map(\.text).joined(separator: " ")
            #expect(notes.contains("Not plotted, no successful request timed in this run: off · none · default."))
        }
    }

    @Test("a CDF step line rises at each distinct value to the share at or below it")
    func cdfPath() throws {
        let results = [10.0, 20, 20, 40].enumerated().map { fixtureResult(caseID: "c\($0)", status: .pass, latencyMs: $1) }
        let aggregate = RunAggregate(results)
        let svg = try ParsedXML(try chart(ChartSet.latencyCDF, in: ChartSet(aggregate)).svg)
        let d = try #require(svg.all("path", class: "series").first?.attributes["d"])
        // The frame maps values linearly; read the pixel positions back through the tick labels.
        let frame = ChartFrame(title: "", xAxis: Axis(covering: [10, 40], includingZero: true), yAxis: Axis(covering: [0, 100]),
                               xLabel: "", yLabel: "")
        let n = SVGDocument.number
        let expected = "M\(n(frame.x(10))) \(n(frame.y(0))) V\(n(frame.y(25))) H\(n(frame.x(20))) V\(n(frame.y(75)))"
            + " H\(n(frame.x(40))) V\(n(frame.y(100)))"
        #expect(d == expected)
    }

    @Test("the cache chart draws the cache hit of each turn per group, and is left out without multi-turn cases")
    func cacheByTurn() throws {
        var results: [RequestResult] = []
        for (turn, cached) in [(1, 0), (2, 60), (3, 90)] {
            results.append(fixtureResult(caseID: "chat", turn: turn, turns: 3, status: .pass, latencyMs: 10,
                                         usage: Usage(inputTokens: 100, cachedInputTokens: cached)))
            results.append(fixtureResult(caseID: "chat", turn: turn, turns: 3, backend: "quiet", status: .pass, latencyMs: 10,
                                         usage: Usage(inputTokens: 100)))
        }
        let aggregate = RunAggregate(results)
        let set = ChartSet(aggregate)
        #expect(set.omitted.isEmpty)
        let svg = try ParsedXML(try chart(ChartSet.cacheByTurn, in: set).svg)
        let local = try #require(aggregate.groups.first)
        let markers = svg.all(class: "marker")
        #expect(markers.compactMap { $0.attributes["data-turn"] } == local.turns.map { String($0.turn) })
        #expect(markers.compactMap { $0.attributes["data-cache-hit-ratio"] }
                == local.turns.compactMap { $0.usage.cacheHitRatio.flatMap { DecimalText.fixed($0, places: 4) } })
        #expect(svg.all(class: "tick-label").prefix(3).map(\.text) == ["1", "2", "3"])
        let notes = svg.all(class: "note").map(\.text).joined(separator: " ")
        #expect(notes.contains("Not plotted, cached input tokens not reported: quiet · none · default."))

        let singleTurn = ChartSet(RunAggregate(comparisonRun()))
        #expect(!singleTurn.charts.contains { $0.fileName == ChartSet.cacheByTurn })
        #expect(singleTurn.omitted.map(\.fileName) == [ChartSet.cacheByTurn])
    }

    @Test("with no results, or no timings, the charts are still well-formed and say there is no data")
    func edgeCases() throws {
        let empty = ChartSet(RunAggregate([]))
        #expect(empty.charts.map(\.fileName) == [ChartSet.passRateVsLatency, ChartSet.passRateVsCost,
                                                  ChartSet.latencyCDF, ChartSet.ttftCDF])
        for chart in empty.charts {
            let svg = try ParsedXML(chart.svg)
            #expect(!chart.hasData)
            #expect(svg.all(class: "no-data").first?.text == "No data: the run has no results.", "\(chart.fileName)")
            #expect(svg.all(class: "marker").isEmpty && svg.all(class: "legend-entry").isEmpty)
        }

        let untimed = [fixtureResult(caseID: "a", status: .pass, costUSD: 0), fixtureResult(caseID: "b", status: .fail, costUSD: 0)]
        let set = ChartSet(RunAggregate(untimed))
        #expect(try !chart(ChartSet.passRateVsLatency, in: set).hasData)
        #expect(try ParsedXML(try chart(ChartSet.latencyCDF, in: set).svg).all(class: "no-data").count == 1)
        // One group, all at cost 0: an x range of zero width still gives an axis, and the point sits at its start.
        let cost = try chart(ChartSet.passRateVsCost, in: set)
        #expect(cost.hasData)
        let svg = try ParsedXML(cost.svg)
        let marker = try #require(svg.all(class: "marker").first)
        #expect(marker.attributes["data-x"] == "0" && marker.attributes["data-pass-rate"] == "0.5000")
        #expect(marker.attributes["data-frontier"] == "true")
        #expect(marker.attributes["cx"] == SVGDocument.number(ChartFrame.plotLeft))

        let huge = [fixtureResult(caseID: "a", status: .pass, latencyMs: 3e12, ttftMs: 1e-7),
                    fixtureResult(caseID: "b", status: .pass, latencyMs: 1e12, ttftMs: 4e-7)]
        for chart in ChartSet(RunAggregate(huge)).charts {
            let svg = try ParsedXML(chart.svg)
            for axis in ["x-axis", "y-axis"] {
                let index = try #require(svg.elements.firstIndex { $0.attributes["class"] == "axis \(axis)" })
                let labels = svg.descendants(of: index).filter { $0.attributes["class"] == "tick-label" }.map(\.text)
                #expect(labels.count >= 2 && Set(labels).count == labels.count, "\(chart.fileName): \(labels)")
            }
            #expect(svg.all().allSatisfy { element in element.attributes.values.allSatisfy { !$0.contains("nan") && !$0.contains("inf") } })
        }
    }
}
