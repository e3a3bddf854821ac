/// Pass rate against a cost (latency or price), one marker per group with its 95% Wilson
/// interval as a vertical error bar, and the Pareto frontier drawn through the groups no
/// other group beats on both.
struct ScatterChart {
    /// One group's figures: pass rate and interval as ratios (0…1), `x` in the axis's unit.
    struct Point {
        var label: String
        var styleIndex: Int
        var passRate: Double
        var passRateLow: Double
        var passRateHigh: Double
        var x: Double
        /// `x` as the data attribute prints it, formatted like the summary.csv column it comes from.
        var xText: String
        /// More `data-` attributes for the marker (name without the prefix, value).
        var data: [(String, String)] = []
    }

    var title: String
    var xLabel: String
    /// What x measures, for the notes ("median latency").
    var xMeasure: String
    var points: [Point]
    var notes: [String]
    /// Said across the plot when there are no points.
    var noData: String

    func render() -> String {
        let frame = ChartFrame(title: title, xAxis: Axis(covering: points.map(\.x), includingZero: true),
                               yAxis: Axis(covering: [0, 100]), xLabel: xLabel, yLabel: "Pass rate (%)")
        let frontier = ParetoFrontier.frontier(points.indices.map {
            ParetoPoint(id: $0, quality: points[$0].passRate, cost: points[$0].x)
        }).map(\.id)
        let onFrontier = Set(frontier)
        let legend = points.map { ChartFrame.LegendEntry(label: $0.label, style: ChartStyle(index: $0.styleIndex), line: false) }
        var notes = notes
        if !points.isEmpty {
            notes.insert("Bars: 95% Wilson interval of the pass rate. Grey line: the Pareto frontier, the groups no other "
                + "group beats on both pass rate and \(xMeasure); they are ringed.", at: 0)
        }
        let n = SVGDocument.number
        return frame.render(legend: legend, notes: notes, noData: points.isEmpty ? noData : nil) { svg in
            var path = ""
            for (step, index) in frontier.enumerated() {
                let point = points[index]
                let px = frame.x(point.x), py = frame.y(point.passRate * 100)
                if step == 0 {
                    path += "M" + n(px) + " " + n(py)
                } else {
                    path += " H" + n(px) + " V" + n(py)
                }
            }
            if !frontier.isEmpty {
                svg.add("path", [("class", "frontier"), ("d", path), ("fill", "none"), ("stroke", "#888888"),
                                 ("stroke-width", "2"), ("stroke-dasharray", "6 3"), ("data-points", String(frontier.count))])
            }
            for (index, point) in points.enumerated() {
                let style = ChartStyle(index: point.styleIndex)
                let px = frame.x(point.x)
                let low = frame.y(point.passRateLow * 100), high = frame.y(point.passRateHigh * 100)
                svg.add("path", [("class", "error-bar"), ("d", "M\(n(px - 4)) \(n(low)) H\(n(px + 4)) M\(n(px)) \(n(low)) "
                                    + "V\(n(high)) M\(n(px - 4)) \(n(high)) H\(n(px + 4))"),
                                 ("stroke", style.colour), ("stroke-width", "1.5"), ("fill", "none"),
                                 ("data-group", point.label)])
                let py = frame.y(point.passRate * 100)
                if onFrontier.contains(index) {
                    svg.add("circle", [("class", "frontier-mark"), ("cx", n(px)), ("cy", n(py)), ("r", "9"),
                                       ("fill", "none"), ("stroke", "#555555"), ("stroke-width", "1.5"),
                                       ("data-group", point.label)])
                }
                let data: [(String, String)] = [
                    ("group", point.label),
                    ("pass-rate", DecimalText.fixed(point.passRate, places: 4) ?? ""),
                    ("pass-rate-low", DecimalText.fixed(point.passRateLow, places: 4) ?? ""),
                    ("pass-rate-high", DecimalText.fixed(point.passRateHigh, places: 4) ?? ""),
                    ("x", point.xText),
                    ("frontier", onFrontier.contains(index) ? "true" : "false"),
                ] + point.data
                style.marker(into: &svg, x: px, y: py, label: point.label, data: data)
            }
        }
    }
}
