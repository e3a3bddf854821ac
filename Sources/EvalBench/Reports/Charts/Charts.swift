/// One SVG chart of a run, written beside the report and inlined in report.html.
package struct Chart: Sendable, Equatable {
    /// The file it is written to, such as `chart-pass-rate-vs-latency.svg`.
    package var fileName: String
    /// Its title.
    package var title: String
    /// One line saying what it shows, for summary.md and report.html.
    package var caption: String
    /// False when it was drawn with a "no data" note instead of data.
    package var hasData: Bool
    /// The standalone SVG document.
    package var svg: String

    package init(fileName: String, title: String, caption: String, hasData: Bool, svg: String) {
        self.fileName = fileName
        self.title = title
        self.caption = caption
        self.hasData = hasData
        self.svg = svg
    }
}

/// A chart that was not drawn, and why.
package struct OmittedChart: Sendable, Equatable {
    package var fileName: String
    package var title: String
    package var reason: String

    package init(fileName: String, title: String, reason: String) {
        self.fileName = fileName
        self.title = title
        self.reason = reason
    }
}

/// The charts of a run: pass rate against latency and against cost with their Pareto
/// frontiers, the latency and TTFT distributions, and the cache hit by turn.
package struct ChartSet: Sendable, Equatable {
    package static let passRateVsLatency = "chart-pass-rate-vs-latency.svg"
    package static let passRateVsCost = "chart-pass-rate-vs-cost.svg"
    package static let latencyCDF = "chart-latency-cdf.svg"
    package static let ttftCDF = "chart-ttft-cdf.svg"
    package static let cacheByTurn = "chart-cache-by-turn.svg"

    /// The charts drawn, in the order reports show them.
    package var charts: [Chart]
    /// The charts not drawn (only the cache chart, when no case has several turns).
    package var omitted: [OmittedChart]

    /// Draws the charts of `aggregate`.
    package init(_ aggregate: RunAggregate) {
        let groups = aggregate.groups
        var charts = [Self.latencyScatter(groups), Self.costScatter(groups)]
        let latency = CDFChart.render(.latency, groups: groups)
        charts.append(Chart(fileName: Self.latencyCDF, title: "Latency distribution",
                            caption: "the share of successful requests finished within each latency, per group (empirical CDF).",
                            hasData: latency.hasData, svg: latency.svg))
        let ttft = CDFChart.render(.ttft, groups: groups)
        charts.append(Chart(fileName: Self.ttftCDF, title: "TTFT distribution",
                            caption: "the share of successful requests whose first token came within each time, per group (empirical CDF).",
                            hasData: ttft.hasData, svg: ttft.svg))
        var omitted: [OmittedChart] = []
        if let cache = CacheByTurnChart.render(groups: groups) {
            charts.append(Chart(fileName: Self.cacheByTurn, title: "Cache hit by turn",
                                caption: "cached ÷ input tokens at each turn of the multi-turn cases, per group.",
                                hasData: cache.hasData, svg: cache.svg))
        } else {
            omitted.append(OmittedChart(fileName: Self.cacheByTurn, title: "Cache hit by turn",
                                        reason: "not written: no multi-turn cases in this run."))
        }
        self.charts = charts
        self.omitted = omitted
    }

    private static func latencyScatter(_ groups: [GroupSummary]) -> Chart {
        var points: [ScatterChart.Point] = []
        var nothingRan: [String] = []
        var untimed: [String] = []
        for (index, summary) in groups.enumerated() {
            guard let rate = summary.passRate, let low = summary.passRateLow, let high = summary.passRateHigh else {
                nothingRan.append(summary.group.label)
                continue
            }
            guard let latency = summary.latencyP50Ms, latency.isFinite else {
                untimed.append(summary.group.label)
                continue
            }
            points.append(ScatterChart.Point(label: summary.group.label, styleIndex: index, passRate: rate,
                                             passRateLow: low, passRateHigh: high, x: latency,
                                             xText: DecimalText.fixed(latency, places: 2) ?? ""))
        }
        var notes: [String] = []
        if !untimed.isEmpty { notes.append("Not plotted, no successful request timed in this run: " + untimed.joined(separator: ", ") + ".") }
        if !nothingRan.isEmpty { notes.append("Not plotted, every case skipped: " + nothingRan.joined(separator: ", ") + ".") }
        let chart = ScatterChart(title: "Pass rate vs latency p50", xLabel: "Latency p50 (ms)", xMeasure: "median latency",
                                 points: points, notes: notes, noData: noData(groups, missing: "a timed successful request"))
        return Chart(fileName: passRateVsLatency, title: "Pass rate vs latency",
                     caption: "pass rate (95% interval) against median latency per group; the line is the Pareto frontier.",
                     hasData: !points.isEmpty, svg: chart.render())
    }

    /// x = cost_usd ÷ (cases − skipped) × 1,000. A cost of 0 (a free or on-device backend) is
    /// a point at 0; an unknown cost is not plotted, and the chart says so.
    private static func costScatter(_ groups: [GroupSummary]) -> Chart {
        var points: [ScatterChart.Point] = []
        var nothingRan: [String] = []
        var unknownCost: [String] = []
        for (index, summary) in groups.enumerated() {
            let ran = summary.cases - summary.skipped
            guard ran > 0, let rate = summary.passRate, let low = summary.passRateLow, let high = summary.passRateHigh else {
                nothingRan.append(summary.group.label)
                continue
            }
            guard let cost = summary.costUSD, cost.isFinite else {
                unknownCost.append(summary.group.label)
                continue
            }
            let perThousand = cost / Double(ran) * 1000
            points.append(ScatterChart.Point(
                label: summary.group.label, styleIndex: index, passRate: rate, passRateLow: low, passRateHigh: high,
                x: perThousand, xText: DecimalText.trimmed(perThousand, maxPlaces: 6) ?? "",
                data: [("cost-usd", DecimalText.trimmed(cost, maxPlaces: 6) ?? ""), ("cases-run", String(ran))]))
        }
        var notes: [String] = []
        if !unknownCost.isEmpty { notes.append("Not plotted, cost unknown: " + unknownCost.joined(separator: ", ") + ".") }
        if !nothingRan.isEmpty { notes.append("Not plotted, every case skipped: " + nothingRan.joined(separator: ", ") + ".") }
        let chart = ScatterChart(title: "Pass rate vs cost per 1,000 cases", xLabel: "Cost per 1,000 cases (USD)", xMeasure: "cost",
                                 points: points, notes: notes, noData: noData(groups, missing: "a known cost"))
        return Chart(fileName: passRateVsCost, title: "Pass rate vs cost",
                     caption: "pass rate (95% interval) against cost per 1,000 cases per group (0 for free or on-device backends); the line is the Pareto frontier.",
                     hasData: !points.isEmpty, svg: chart.render())
    }

    private static func noData(_ groups: [GroupSummary], missing: String) -> String {
        groups.isEmpty ? "No data: the run has no results." : "No data: no group that ran has \(missing)."
    }
}
