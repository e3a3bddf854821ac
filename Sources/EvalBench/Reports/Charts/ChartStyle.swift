/// How one series is drawn: a colour from the Okabe–Ito colour-blind-safe palette and a
/// marker shape, so two series differ in shape even where colours are hard to tell apart.
struct ChartStyle {
    enum Shape: String, CaseIterable {
        case circle, square, triangle, diamond, triangleDown = "triangle-down", cross
    }

    /// Okabe & Ito (2008) without its yellow, which is unreadable on white.
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"]

    let colour: String
    let shape: Shape

    /// The style of the `index`th series: colours and shapes cycle at different lengths, so
    /// the first 42 series each get a distinct pair.
    init(index: Int) {
        colour = Self.palette[index % Self.palette.count]
        shape = Shape.allCases[index % Shape.allCases.count]
    }

    /// Draws the marker centred at (`x`, `y`), `radius` across half its width.
    func marker(into svg: inout SVGDocument, x: Double, y: Double, radius: Double = 5,
                className: String = "marker", label: String? = nil, data: [(String, String)] = []) {
        let n = SVGDocument.number
        func polygon(_ corners: [(Double, Double)]) -> String {
            corners.map { n(x + $0.0 * radius) + "," + n(y + $0.1 * radius) }.joined(separator: " ")
        }
        let element: String
        var attributes: SVGDocument.Attributes
        switch shape {
        case .circle:
            element = "circle"
            attributes = [("cx", n(x)), ("cy", n(y)), ("r", n(radius))]
        case .square:
            element = "rect"
            let side = radius * 1.7
            attributes = [("x", n(x - side / 2)), ("y", n(y - side / 2)), ("width", n(side)), ("height", n(side))]
        case .triangle:
            element = "polygon"
            attributes = [("points", polygon([(0, -1.2), (1.1, 0.8), (-1.1, 0.8)]))]
        case .diamond:
            element = "polygon"
            attributes = [("points", polygon([(0, -1.3), (1.1, 0), (0, 1.3), (-1.1, 0)]))]
        case .triangleDown:
            element = "polygon"
            attributes = [("points", polygon([(0, 1.2), (1.1, -0.8), (-1.1, -0.8)]))]
        case .cross:
            element = "polygon"
            let a = 0.35, b = 1.1
            attributes = [("points", polygon([(-a, -b), (a, -b), (a, -a), (b, -a), (b, a), (a, a), (a, b), (-a, b),
                                              (-a, a), (-b, a), (-b, -a), (-a, -a)]))]
        }
        attributes += [("class", className), ("fill", colour), ("stroke", "#ffffff"), ("stroke-width", "1"),
                       ("data-shape", shape.rawValue)]
        svg.add(element, attributes + data.map { ("data-" + $0.0, $0.1) }, title: label)
    }
}
