/// The parts every chart shares: a title, a plot area with grid lines, tick labels and axis
/// labels with units, a legend below it and notes under the legend. The document is 800
/// wide and as tall as its legend and notes need.
struct ChartFrame {
    /// One legend row: a series' label, its style, and whether it is drawn as a line.
    struct LegendEntry {
        var label: String
        var style: ChartStyle
        var line: Bool
    }

    static let width = 800.0
    static let plotLeft = 78.0
    static let plotRight = 776.0
    static let plotTop = 56.0
    static let plotBottom = 396.0
    private static let legendTop = 462.0
    private static let legendRow = 20.0
    private static let noteRow = 17.0
    /// Characters of a note line before it wraps, at 12 px on 760 px.
    private static let noteColumns = 118

    let title: String
    let xAxis: Axis
    let yAxis: Axis
    let xLabel: String
    let yLabel: String

    /// The horizontal pixel position of `value` on the x axis.
    func x(_ value: Double) -> Double {
        Self.plotLeft + xAxis.fraction(value) * (Self.plotRight - Self.plotLeft)
    }

    /// The vertical pixel position of `value` on the y axis.
    func y(_ value: Double) -> Double {
        Self.plotBottom - yAxis.fraction(value) * (Self.plotBottom - Self.plotTop)
    }

    /// Draws the frame around `plot`, which draws the data; `noData`, when given, is printed
    /// across an empty plot area instead.
    func render(legend: [LegendEntry], notes: [String], noData: String?, plot: (inout SVGDocument) -> Void) -> String {
        let noteLines = notes.flatMap { Self.wrap($0, columns: Self.noteColumns) }
        let legendHeight = Double(legend.count) * Self.legendRow
        let height = Self.legendTop + legendHeight + Double(noteLines.count) * Self.noteRow + 12
        var svg = SVGDocument(width: Self.width, height: height)
        let n = SVGDocument.number
        svg.add("rect", [("class", "background"), ("x", "0"), ("y", "0"), ("width", n(Self.width)),
                         ("height", n(height)), ("fill", "#ffffff")])
        svg.add("text", [("class", "chart-title"), ("x", n(Self.width / 2)), ("y", "28"), ("text-anchor", "middle"),
                         ("font-size", "16"), ("font-weight", "600")], text: title)

        svg.open("g", [("class", "axis x-axis")])
        for tick in xAxis.ticks {
            let position = x(tick)
            svg.add("line", [("class", "grid"), ("x1", n(position)), ("x2", n(position)), ("y1", n(Self.plotTop)),
                             ("y2", n(Self.plotBottom)), ("stroke", "#e5e5e5")])
            svg.add("text", [("class", "tick-label"), ("x", n(position)), ("y", n(Self.plotBottom + 18)),
                             ("text-anchor", "middle"), ("fill", "#333333")], text: xAxis.label(tick))
        }
        svg.add("line", [("class", "axis-line"), ("x1", n(Self.plotLeft)), ("x2", n(Self.plotRight)),
                         ("y1", n(Self.plotBottom)), ("y2", n(Self.plotBottom)), ("stroke", "#333333")])
        svg.add("text", [("class", "axis-label"), ("x", n((Self.plotLeft + Self.plotRight) / 2)),
                         ("y", n(Self.plotBottom + 42)), ("text-anchor", "middle"), ("font-size", "13")], text: xLabel)
        svg.close("g")

        svg.open("g", [("class", "axis y-axis")])
        for tick in yAxis.ticks {
            let position = y(tick)
            svg.add("line", [("class", "grid"), ("x1", n(Self.plotLeft)), ("x2", n(Self.plotRight)), ("y1", n(position)),
                             ("y2", n(position)), ("stroke", "#e5e5e5")])
            svg.add("text", [("class", "tick-label"), ("x", n(Self.plotLeft - 8)), ("y", n(position + 4)),
                             ("text-anchor", "end"), ("fill", "#333333")], text: yAxis.label(tick))
        }
        svg.add("line", [("class", "axis-line"), ("x1", n(Self.plotLeft)), ("x2", n(Self.plotLeft)),
                         ("y1", n(Self.plotTop)), ("y2", n(Self.plotBottom)), ("stroke", "#333333")])
        let middle = (Self.plotTop + Self.plotBottom) / 2
        svg.add("text", [("class", "axis-label"), ("x", "20"), ("y", n(middle)), ("text-anchor", "middle"),
                         ("font-size", "13"), ("transform", "rotate(-90 20 \(n(middle)))")], text: yLabel)
        svg.close("g")

        if let noData {
            svg.add("text", [("class", "no-data"), ("x", n((Self.plotLeft + Self.plotRight) / 2)), ("y", n(middle)),
                             ("text-anchor", "middle"), ("font-size", "14"), ("fill", "#666666")], text: noData)
        } else {
            svg.open("g", [("class", "plot")])
            plot(&svg)
            svg.close("g")
        }

        svg.open("g", [("class", "legend")])
        for (index, entry) in legend.enumerated() {
            let rowY = Self.legendTop + Double(index) * Self.legendRow
            svg.open("g", [("class", "legend-entry"), ("data-label", entry.label)])
            if entry.line {
                svg.add("line", [("x1", n(Self.plotLeft)), ("x2", n(Self.plotLeft + 28)), ("y1", n(rowY)), ("y2", n(rowY)),
                                 ("stroke", entry.style.colour), ("stroke-width", "2")])
            }
            entry.style.marker(into: &svg, x: Self.plotLeft + 14, y: rowY, className: "legend-marker")
            svg.add("text", [("x", n(Self.plotLeft + 38)), ("y", n(rowY + 4))], text: entry.label)
            svg.close("g")
        }
        svg.close("g")

        let notesTop = Self.legendTop + legendHeight + 4
        for (index, line) in noteLines.enumerated() {
            svg.add("text", [("class", "note"), ("x", "20"), ("y", n(notesTop + Double(index) * Self.noteRow)),
                             ("fill", "#555555")], text: line)
        }
        return svg.text(title: title)
    }

    /// `text` broken at spaces into lines of at most `columns` characters (a longer word
    /// stays whole).
    static func wrap(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > columns {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
