import Foundation

/// A regular expression of a schema (`pattern`, `patternProperties`), compiled once. JSON
/// Schema patterns are ECMA-262 expressions, run here by ICU, so the constructs whose meaning
/// differs are rewritten: `$` outside a character class matches only at the very end (ICU's
/// also matches before a final newline), `\d` and `\w` are ASCII only, and `\s` is ECMA-262's
/// white space (with U+000B and U+FEFF, which ICU leaves out).
struct SchemaPattern: Sendable {
    /// The pattern as written.
    let source: String
    private let regex: NSRegularExpression

    init?(_ source: String) {
        guard let regex = try? NSRegularExpression(pattern: Self.translated(source)) else { return nil }
        self.source = source
        self.regex = regex
    }

    /// Whether the pattern matches anywhere in `text` (patterns are not implicitly anchored),
    /// within `BoundedRegex`'s time limit: a match still running then counts as no match, so
    /// a hostile answer cannot stall grading.
    func matches(_ text: String) -> Bool {
        BoundedRegex.firstMatch(regex, in: text) == .matched
    }

    /// The ECMA-262 class escapes as ICU sets: the members, to be written inside a class.
    private static let classEscapes: [Character: String] = [
        "d": "0-9", "w": "A-Za-z0-9_", "s": "\\t\\n\\x{0B}\\f\\r\\p{Zs}\\x{2028}\\x{2029}\\x{FEFF}",
    ]

    private static func translated(_ pattern: String) -> String {
        var result = ""
        var escaped = false
        var inClass = false
        for character in pattern {
            if escaped {
                escaped = false
                let lower = Character(character.lowercased())
                if let members = classEscapes[lower], character.isASCII {
                    let negated = character != lower
                    result.removeLast()
                    // Inside a class a negated set is nested, which ICU reads as a union.
                    result += negated ? "[^\(members)]" : inClass ? members : "[\(members)]"
                    continue
                }
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
