/// Lines over a shared pair of axes, one per group: straight segments between points, or
/// the steps of an empirical CDF; each series has markers in its shape where the caller puts them.
struct LineChart {
    struct Marker {
        var x: Double
        var y: Double
        /// `data-` attributes (name without the prefix, value).
        var data: [(String, String)]
    }

    struct Series {
        var label: String
        var styleIndex: Int
        /// In drawing order; for steps, ascending x.
        var points: [(x: Double, y: Double)]
        var markers: [Marker]
        /// `data-` attributes of the line (name without the prefix, value).
        var data: [(String, String)]
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var xAxis: Axis
    var yAxis: Axis
    var series: [Series]
    /// Draws each series as steps that rise at each point (an empirical CDF starting at y = 0).
    var stepped: Bool
    var notes: [String]
    /// Said across the plot when no series has a point.
    var noData: String

    func render() -> String {
        let frame = ChartFrame(title: title, xAxis: xAxis, yAxis: yAxis, xLabel: xLabel, yLabel: yLabel)
        let drawn = series.filter { !$0.points.isEmpty }
        let legend = drawn.map { ChartFrame.LegendEntry(label: $0.label, style: ChartStyle(index: $0.styleIndex), line: true) }
        return frame.render(legend: legend, notes: notes, noData: drawn.isEmpty ? noData : nil) { svg in
            for line in drawn {
                let style = ChartStyle(index: line.styleIndex)
                let path = stepped ? Self.stepPath(line.points, frame: frame) : Self.linePath(line.points, frame: frame)
                svg.add("path", [("class", "series"), ("d", path), ("fill", "none"), ("stroke", style.colour),
                                 ("stroke-width", "2"), ("data-group", line.label)] + line.data.map { ("data-" + $0.0, $0.1) })
                for marker in line.markers {
                    style.marker(into: &svg, x: frame.x(marker.x), y: frame.y(marker.y), radius: 4.5, label: line.label,
                                 data: [("group", line.label)] + marker.data)
                }
            }
        }
    }

    private static func linePath(_ points: [(x: Double, y: Double)], frame: ChartFrame) -> String {
        let n = SVGDocument.number
        return points.enumerated().map { index, point in
            (index == 0 ? "M" : "L") + n(frame.x(point.x)) + " " + n(frame.y(point.y))
        }.joined(separator: " ")
    }

    /// Rises from y = 0 at the first point, then runs flat to each next point and rises to it.
    /// Steps closer than half a pixel to the last drawn one are merged into it, so 100,000
    /// requests draw at most a few thousand segments.
    private static func stepPath(_ points: [(x: Double, y: Double)], frame: ChartFrame) -> String {
        guard let first = points.first else { return "" }
        let n = SVGDocument.number
        var x = frame.x(first.x)
        var y = frame.y(first.y)
        var path = "M" + n(x) + " " + n(frame.y(frame.yAxis.lower))
        for point in points.dropFirst() {
            let px = frame.x(point.x)
            if px - x >= 0.5 {
                path += " V" + n(y) + " H" + n(px)
                x = px
            }
            y = frame.y(point.y)
        }
        return path + " V" + n(y)
    }
}
