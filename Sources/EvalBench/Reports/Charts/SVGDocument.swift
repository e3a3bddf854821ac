/// A small SVG builder: elements are appended in order, and every attribute value and text
/// is escaped, so a backend or variant name cannot break the markup.
struct SVGDocument {
    /// Attribute names and their unescaped values, in order.
    typealias Attributes = [(String, String)]

    let width: Double
    let height: Double
    private var body = ""

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `<name …/>`, or `<name …>text</name>`; `title` adds a `<title>` child, which viewers
    /// show as a tooltip.
    mutating func add(_ name: String, _ attributes: Attributes, text: String? = nil, title: String? = nil) {
        body += "<" + name + Self.render(attributes)
        guard text != nil || title != nil else {
            body += "/>\n"
            return
        }
        body += ">"
        if let title { body += "<title>" + JUnitXML.escape(title) + "</title>" }
        if let text { body += JUnitXML.escape(text) }
        body += "</" + name + ">\n"
    }

    /// Opens a group; every `open` is matched by a `close`.
    mutating func open(_ name: String, _ attributes: Attributes) {
        body += "<" + name + Self.render(attributes) + ">\n"
    }

    mutating func close(_ name: String) {
        body += "</" + name + ">\n"
    }

    /// The standalone document, `<svg>` root included.
    func text(title: String) -> String {
        let root: Attributes = [
            ("xmlns", "http://www.w3.org/2000/svg"),
            ("viewBox", "0 0 " + Self.number(width) + " " + Self.number(height)),
            ("width", Self.number(width)), ("height", Self.number(height)),
            ("role", "img"), ("aria-label", title),
            ("font-family", "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"),
            ("font-size", "12"),
        ]
        return "<svg" + Self.render(root) + ">\n<title>" + JUnitXML.escape(title) + "</title>\n" + body + "</svg>\n"
    }

    /// A coordinate with at most two decimals, locale-independent.
    static func number(_ value: Double) -> String {
        DecimalText.trimmed(value, maxPlaces: 2) ?? "0"
    }

    private static func render(_ attributes: Attributes) -> String {
        var text = ""
        for (name, value) in attributes { text += " " + name + "=\"" + JUnitXML.escape(value) + "\"" }
        return text
    }
}
