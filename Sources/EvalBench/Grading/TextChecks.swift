import Foundation

/// The checks on the answer's text.
enum TextChecks {
    static func contains(_ value: String, in output: String, _ ignoreCase: Bool) -> CheckOutcome {
        CheckOutcome(holds: find(value, in: output, ignoreCase),
                     expected: "the answer to contain \(Grader.quote(value))\(flag(ignoreCase))", actual: excerpt(output))
    }

    static func notContains(_ value: String, in output: String, _ ignoreCase: Bool) -> CheckOutcome {
        CheckOutcome(holds: !find(value, in: output, ignoreCase),
                     expected: "the answer not to contain \(Grader.quote(value))\(flag(ignoreCase))", actual: excerpt(output))
    }

    static func equals(_ value: String, _ output: String, _ ignoreCase: Bool) -> CheckOutcome {
        let answer = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let equal = ignoreCase ? answer.caseInsensitiveCompare(value) == .orderedSame : answer == value
        return CheckOutcome(holds: equal, expected: "the answer (trimmed) to equal \(Grader.quote(value))\(flag(ignoreCase))",
                            actual: excerpt(answer))
    }

    static func startsWith(_ value: String, _ output: String, _ ignoreCase: Bool) -> CheckOutcome {
        let answer = String(output.drop { $0.isWhitespace })
        let prefix = String(answer.prefix(value.count))
        let starts = ignoreCase ? prefix.caseInsensitiveCompare(value) == .orderedSame : prefix == value
        return CheckOutcome(holds: starts, expected: "the answer to start with \(Grader.quote(value))\(flag(ignoreCase))",
                            actual: excerpt(answer))
    }

    static func regex(_ pattern: String, _ output: String, _ ignoreCase: Bool, negated: Bool) -> CheckOutcome {
        let expected = "\(negated ? "no match" : "a match") for /\(pattern)/\(ignoreCase ? "i" : "")"
        switch match(pattern, output, ignoreCase) {
        case .matched: return CheckOutcome(holds: !negated, expected: expected, actual: excerpt(output))
        case .noMatch: return CheckOutcome(holds: negated, expected: expected, actual: excerpt(output))
        case let .timedOut(seconds):
            return CheckOutcome(holds: false, expected: expected, actual: excerpt(output),
                                note: "the pattern was still matching after \(Grader.number(seconds)) s on this answer, so the check "
                                    + "fails undecided; rewrite it without nested repetition (e.g. (a+)+ or (.*x){n})")
        }
    }

    static func containsAll(_ values: [String], _ output: String, _ ignoreCase: Bool) -> CheckOutcome {
        let missing = values.filter { !find($0, in: output, ignoreCase) }
        let detail = missing.isEmpty ? "" : " (missing \(quoteList(missing)))"
        return CheckOutcome(holds: missing.isEmpty, expected: "the answer to contain all of \(quoteList(values))\(flag(ignoreCase))",
                            actual: excerpt(output) + detail)
    }

    static func containsAny(_ values: [String], _ output: String, _ ignoreCase: Bool) -> CheckOutcome {
        let found = values.filter { find($0, in: output, ignoreCase) }
        let detail = found.isEmpty ? " (none of them)" : " (found \(quoteList(found)))"
        return CheckOutcome(holds: !found.isEmpty, expected: "the answer to contain one of \(quoteList(values))\(flag(ignoreCase))",
                            actual: excerpt(output) + detail)
    }

    /// Length in characters (grapheme clusters) of the answer trimmed of surrounding whitespace.
    static func length(_ output: String, _ minimum: Int?, _ maximum: Int?) -> CheckOutcome {
        let answer = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let count = answer.count
        let expected = switch (minimum, maximum) {
        case let (low?, high?): "between \(low) and \(high) characters"
        case let (low?, nil): "at least \(low) characters"
        case let (nil, high?): "at most \(high) characters"
        case (nil, nil): "any length"
        }
        let holds = count >= (minimum ?? 0) && count <= (maximum ?? .max)
        return CheckOutcome(holds: holds, expected: "the answer (trimmed) to have \(expected)",
                            actual: "\(count) characters: \(excerpt(answer))")
    }

    /// The classifier check: the normalised answer must be a known label, and the right one.
    static func label(_ output: String, expected: String, labels: [String]) -> CheckOutcome {
        let answer = LabelNormalizer.normalize(output)
        let known = labels.map(LabelNormalizer.normalize)
        let wanted = LabelNormalizer.normalize(expected)
        let expectation = "the label \(Grader.quote(expected)) (labels: \(labels.joined(separator: ", ")))"
        if answer == wanted {
            return CheckOutcome(holds: true, expected: expectation, actual: "the label \(Grader.quote(answer))")
        }
        guard let index = known.firstIndex(of: answer) else {
            return CheckOutcome(holds: false, expected: expectation,
                                actual: "an unknown label: \(excerpt(output))" + (answer == output ? "" : ", normalised to \(Grader.quote(answer, limit: 60))"))
        }
        return CheckOutcome(holds: false, expected: expectation,
                            actual: "the wrong known label \(Grader.quote(labels[index]))")
    }

    static func keywords(_ values: [String], _ output: String, _ minRatio: Double, _ ignoreCase: Bool) -> CheckOutcome {
        let missing = values.filter { !find($0, in: output, ignoreCase) }
        let present = values.count - missing.count
        let ratio = Double(present) / Double(values.count)
        let needed = Int((minRatio * Double(values.count) - 1e-9).rounded(.up))
        return CheckOutcome(
            holds: present >= needed,
            expected: "at least \(percent(minRatio)) of the keywords \(quoteList(values))\(flag(ignoreCase)) (\(needed) of \(values.count))",
            actual: "\(present) of \(values.count) (\(percent(ratio)))" + (missing.isEmpty ? "" : ", missing \(quoteList(missing))")
                + " in \(excerpt(output))")
    }

    static func find(_ value: String, in text: String, _ ignoreCase: Bool) -> Bool {
        if let found = asciiFind(value, in: text, ignoreCase) { return found }
        return text.range(of: value, options: ignoreCase ? [.caseInsensitive] : []) != nil
    }

    /// `find` over the bytes when both strings are printable ASCII, tabs and line feeds (where
    /// Foundation's search, ignoring case or not, is a byte search): about a tenth of its cost.
    /// Nil for anything else, and for an empty value, which Foundation never finds.
    static func asciiFind(_ value: String, in text: String, _ ignoreCase: Bool) -> Bool? {
        func plain(_ byte: UInt8) -> Bool { (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A }
        func folded(_ byte: UInt8) -> UInt8 { ignoreCase && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
        var value = value, text = text
        return value.withUTF8 { needle -> Bool? in
            text.withUTF8 { haystack -> Bool? in
                guard !needle.isEmpty, needle.allSatisfy(plain), haystack.allSatisfy(plain) else { return nil }
                guard needle.count <= haystack.count else { return false }
                let first = folded(needle[0])
                for start in 0...(haystack.count - needle.count) where folded(haystack[start]) == first {
                    var offset = 1
                    while offset < needle.count, folded(haystack[start + offset]) == folded(needle[offset]) { offset += 1 }
                    if offset == needle.count { return true }
                }
                return false
            }
        }
    }

    static func match(_ pattern: String, _ text: String, _ ignoreCase: Bool) -> BoundedRegex.Outcome {
        // Patterns were compiled once at load time, so this cannot fail for a loaded suite;
        // a pattern that does not compile never matches.
        guard let regex = try? NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : []) else {
            return .noMatch
        }
        return BoundedRegex.firstMatch(regex, in: text)
    }

    static func excerpt(_ text: String) -> String {
        Grader.quote(text, limit: Grader.excerptLimit)
    }

    private static func flag(_ ignoreCase: Bool) -> String {
        ignoreCase ? " (ignoring case)" : ""
    }

    private static func quoteList(_ values: [String]) -> String {
        let shown = values.prefix(10).map { Grader.quote($0, limit: 40) }.joined(separator: ", ")
        return values.count > 10 ? shown + " and \(values.count - 10) more" : shown
    }

    private static func percent(_ ratio: Double) -> String {
        Grader.number((ratio * 1000).rounded() / 10) + "%"
    }
}

/// How a classifier's answer and its labels are compared: trimmed, case-folded, with
/// surrounding punctuation, symbols and quotes removed (`"Positive."` and `**positive**` are `positive`).
package enum LabelNormalizer {
    package static func normalize(_ text: String) -> String {
        let strip = CharacterSet.whitespacesAndNewlines.union(.punctuationCharacters).union(.symbols)
        return text.trimmingCharacters(in: strip).folding(options: [.caseInsensitive], locale: nil)
    }
}
