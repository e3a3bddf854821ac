import Foundation

/// A regular expression of a schema (`pattern`, `patternProperties`), compiled once. JSON
/// Schema patterns are ECMA-262 expressions, in which `$` matches only at the very end; ICU's
/// `$` also matches before a final newline, so each `$` outside a character class is read as `\z`.
struct SchemaPattern: Sendable {
    /// The pattern as written.
    let source: String
    private let regex: NSRegularExpression

    init?(_ source: String) {
        guard let regex = try? NSRegularExpression(pattern: Self.anchoredAtEnd(source)) else { return nil }
        self.source = source
        self.regex = regex
    }

    /// Whether the pattern matches anywhere in `text` (patterns are not implicitly anchored).
    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func anchoredAtEnd(_ pattern: String) -> String {
        var result = ""
        var escaped = false
        var inClass = false
        for character in pattern {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if inClass {
                if character == "]" { inClass = false }
            } else if character == "[" {
                inClass = true
            } else if character == "$" {
                result += "\\z"
                continue
            }
            result.append(character)
        }
        return result
    }
}

extension JSONValue {
    /// Equality as JSON Schema defines it for `const`, `enum` and `uniqueItems`: strings and
    /// object keys are equal only when their Unicode code points are (Swift's `==` would call
    /// "ä" and "a\u{308}" equal), numbers by value, so `1` equals `1.0`.
    func isSchemaEqual(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.string(let lhs), .string(let rhs)):
            return lhs.unicodeScalars.elementsEqual(rhs.unicodeScalars)
        case (.array(let lhs), .array(let rhs)):
            return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.isSchemaEqual(to: $1) }
        case (.object(let lhs), .object(let rhs)):
            guard lhs.count == rhs.count else { return false }
            let byCodePoints = Dictionary(rhs.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
            return lhs.allSatisfy { key, value in byCodePoints[Array(key.utf8)].map(value.isSchemaEqual) ?? false }
        default:
            return self == other
        }
    }
}
