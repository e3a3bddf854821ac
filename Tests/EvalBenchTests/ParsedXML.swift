import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import EvalBench

/// A document read back with XMLParser: every element in document order with its
/// attributes, all the text inside it (descendants' included) and its parent's index, so
/// tests check what a browser would show rather than the markup.
struct ParsedXML {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        var parent: Int?
    }

    var elements: [Element]

    /// Parses `text`, or throws what the parser said, with the line.
    init(_ text: String) throws {
        let parser = XMLParser(data: Data(text.utf8))
        let reader = Reader()
        parser.delegate = reader
        guard parser.parse() else {
            throw ParseFailure(description: "line \(parser.lineNumber): " + (parser.parserError.map { "\($0)" } ?? "unknown"))
        }
        elements = reader.elements
    }

    /// The elements named `name`, optionally with `class` containing `className`.
    func all(_ name: String? = nil, class className: String? = nil) -> [Element] {
        elements.filter { element in
            (name == nil || element.name == name)
                && (className == nil || (element.attributes["class"] ?? "").split(separator: " ").contains { $0 == className! })
        }
    }

    /// The elements inside the element at `index`, at any depth.
    func descendants(of index: Int) -> [Element] {
        elements.indices.filter { candidate in
            var parent = elements[candidate].parent
            while let current = parent {
                if current == index { return true }
                parent = elements[current].parent
            }
            return false
        }.map { elements[$0] }
    }

    struct ParseFailure: Error, CustomStringConvertible {
        var description: String
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var open: [Int] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            elements.append(Element(name: elementName, attributes: attributes, parent: open.last))
            open.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            for index in open { elements[index].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }
    }
}

/// summary.csv read back: one dictionary per row, column name → cell.
func summaryRows(_ groups: [GroupSummary]) -> [[String: String]] {
    let (records, _) = DatasetReader.parseCSV(SummaryCSV.render(groups), file: "summary.csv")
    guard let header = records.first?.fields else { return [] }
    return records.dropFirst().filter { $0.fields != [""] }.map {
        Dictionary(zip(header, $0.fields), uniquingKeysWith: { first, _ in first })
    }
}
