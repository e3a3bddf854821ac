/// A text with `{{name}}` placeholders (spaces inside the braces allowed: `{{ name }}`).
///
/// A name starts with a letter or `_` and continues with letters, digits, `_`, `-` or `.`.
/// Braces around anything else (`{{"a": 1}}` in a prompt that shows JSON) are plain text.
/// Substituted values are inserted as they are, never rendered again.
package struct Template: Sendable, Equatable {
    package let source: String
    private let parts: [Part]

    private enum Part: Sendable, Equatable {
        case text(Substring)
        /// A placeholder's name, and the placeholder as written (`{{ name }}`).
        case variable(String, written: Substring)
    }

    package init(_ source: String) {
        self.source = source
        self.parts = Template.parse(source)
    }

    /// The variable names the text uses, each once, in order of first use.
    package var names: [String] {
        var seen: Set<String> = []
        return parts.compactMap { part in
            guard case .variable(let name, _) = part, seen.insert(name).inserted else { return nil }
            return name
        }
    }

    /// Whether `name` can be used as a placeholder name.
    package static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isNameContinuation)
    }

    /// The text with every placeholder replaced; throws listing every name missing from `vars`.
    package func render(_ vars: [String: String]) throws(UnknownVariables) -> String {
        let unknown = names.filter { vars[$0] == nil }
        guard unknown.isEmpty else { throw UnknownVariables(names: unknown) }
        return filling(vars)
    }

    /// The text with each placeholder whose name `values` has replaced, in one pass over the
    /// template: the others are left as written, and a value is inserted as it is, so a
    /// `{{name}}` inside it is text.
    package func filling(_ values: [String: String]) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case let .variable(name, written): result += values[name] ?? String(written)
            }
        }
        return result
    }

    /// The names a template used that had no value, in order of first use.
    package struct UnknownVariables: Error, Sendable, Equatable {
        package var names: [String]
    }

    private static func parse(_ source: String) -> [Part] {
        var parts: [Part] = []
        let scalars = source.unicodeScalars
        var textStart = scalars.startIndex
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard let (name, end) = placeholder(in: scalars, at: index) else {
                index = scalars.index(after: index)
                continue
            }
            if textStart < index { parts.append(.text(Substring(scalars[textStart..<index]))) }
            parts.append(.variable(name, written: Substring(scalars[index..<end])))
            index = end
            textStart = end
        }
        if textStart < scalars.endIndex { parts.append(.text(Substring(scalars[textStart...]))) }
        return parts
    }

    /// The name and the index after the closing braces of a placeholder starting at `start`.
    private static func placeholder(in scalars: String.UnicodeScalarView,
                                    at start: String.Index) -> (String, String.Index)? {
        var index = start
        for _ in 0..<2 {
            guard index < scalars.endIndex, scalars[index] == "{" else { return nil }
            index = scalars.index(after: index)
        }
        while index < scalars.endIndex, scalars[index] == " " { index = scalars.index(after: index) }
        let nameStart = index
        guard index < scalars.endIndex, isNameStart(scalars[index]) else { return nil }
        while index < scalars.endIndex, isNameContinuation(scalars[index]) { index = scalars.index(after: index) }
        let name = String(scalars[nameStart..<index])
        while index < scalars.endIndex, scalars[index] == " " { index = scalars.index(after: index) }
        for _ in 0..<2 {
            guard index < scalars.endIndex, scalars[index] == "}" else { return nil }
            index = scalars.index(after: index)
        }
        return (name, index)
    }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || scalar == "_")
    }

    private static func isNameContinuation(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
    }
}
