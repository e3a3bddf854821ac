import Foundation

/// The checks on the JSON in the answer: `json`, `jsonSchema`, `jsonPath`, `jsonPointer`.
enum JSONChecks {
    static func json(_ output: String) -> CheckOutcome {
        switch AnswerJSON.parse(output) {
        case .success(let answer):
            return CheckOutcome(holds: true, expected: "the answer to be JSON", actual: show(answer.value), note: answer.note)
        case .failure(let failure):
            return notJSON(failure, output, expected: "the answer to be JSON")
        }
    }

    static func schema(_ schema: JSONSchema, _ output: String) -> CheckOutcome {
        let expected = "the answer's JSON to match the schema"
        let answer: AnswerJSON
        switch AnswerJSON.parse(output) {
        case .success(let parsed): answer = parsed
        case .failure(let failure): return notJSON(failure, output, expected: expected)
        }
        let violations = schema.validate(answer.value)
        guard let first = violations.first else {
            return CheckOutcome(holds: true, expected: expected, actual: show(answer.value), note: answer.note)
        }
        var actual = "\(first.rule): \(first.message)"
        if violations.count > 1 {
            let others = violations.dropFirst().prefix(3).map(\.description).joined(separator: "; ")
            actual += " (and \(violations.count - 1) more: \(others)\(violations.count > 4 ? "; …" : ""))"
        }
        return CheckOutcome(holds: false, expected: expected + " (rule '\(first.rule)')", actual: actual,
                            pointer: first.pointer, note: answer.note)
    }

    static func path(_ query: JSONPathQuery, _ expectation: JSONExpectation, _ output: String) -> CheckOutcome {
        let expected = "the value at \(query.description) to be \(phrase(expectation))" + (query.hasWildcard ? " (any of the values selected)" : "")
        let answer: AnswerJSON
        switch AnswerJSON.parse(output) {
        case .success(let parsed): answer = parsed
        case .failure(let failure): return notJSON(failure, output, expected: expected)
        }
        let selected = query.select(in: answer.value)
        guard !selected.isEmpty else {
            return CheckOutcome(holds: false, expected: expected,
                                actual: "nothing: \(query.description) selects no value in \(show(answer.value))", note: answer.note)
        }
        if let hit = selected.first(where: { satisfies($0.value, expectation) }) {
            return CheckOutcome(holds: true, expected: expected, actual: show(hit.value), pointer: hit.pointer, note: answer.note)
        }
        let actual = selected.count == 1 ? show(selected[0].value)
            : "\(selected.count) values, none of them matching: " + clip(selected.prefix(5).map { "\($0.pointer.readable) = \($0.value.jsonText)" }.joined(separator: ", "))
        return CheckOutcome(holds: false, expected: expected, actual: actual, pointer: selected[0].pointer, note: answer.note)
    }

    static func pointer(_ pointer: JSONPointer, _ expectation: JSONExpectation, _ output: String) -> CheckOutcome {
        let expected = "the value to be \(phrase(expectation))"
        let answer: AnswerJSON
        switch AnswerJSON.parse(output) {
        case .success(let parsed): answer = parsed
        case .failure(let failure): return notJSON(failure, output, expected: expected)
        }
        switch pointer.resolve(in: answer.value) {
        case .missing(_, let reason):
            return CheckOutcome(holds: false, expected: expected, actual: "nothing: \(reason)", pointer: pointer, note: answer.note)
        case .found(let value):
            return CheckOutcome(holds: satisfies(value, expectation), expected: expected, actual: show(value),
                                pointer: pointer, note: answer.note)
        }
    }

    static func satisfies(_ value: JSONValue, _ expectation: JSONExpectation) -> Bool {
        switch (expectation, value) {
        case (.exists, _):
            return true
        case let (.equals(.string(wanted), true), .string(text)):
            return text.caseInsensitiveCompare(wanted) == .orderedSame
        case let (.equals(wanted, _), _):
            return value == wanted
        case let (.contains(.string(part), ignoreCase), .string(text)):
            return TextChecks.find(part, in: text, ignoreCase)
        case let (.contains(.string(key), _), .object(members)):
            return members[key] != nil
        case let (.contains(element, ignoreCase), .array(elements)):
            return elements.contains { satisfies($0, .equals(element, ignoreCase: ignoreCase)) }
        case (.contains, _):
            return false
        case let (.matches(pattern, ignoreCase), .string(text)):
            return TextChecks.match(pattern, text, ignoreCase) == .matched
        case (.matches, _):
            return false
        case let (.approx(target, tolerance), .number(number)):
            return abs(number - target) <= tolerance
        case (.approx, _):
            return false
        }
    }

    /// What an expectation asks for, as a noun phrase.
    static func phrase(_ expectation: JSONExpectation) -> String {
        switch expectation {
        case .exists: "present"
        case let .equals(value, ignoreCase): clip(value.jsonText) + (ignoreCase ? " (ignoring case)" : "")
        case let .contains(.string(text), ignoreCase): "a string containing \(clip(JSONValue.string(text).jsonText)) (or an object with that key, or an array with that element)" + (ignoreCase ? ", ignoring case" : "")
        case let .contains(value, _): "an array containing \(clip(value.jsonText))"
        case let .matches(pattern, ignoreCase): "a string matching /\(pattern)/\(ignoreCase ? "i" : "")"
        case let .approx(target, tolerance): "a number within \(JSONValue.numberText(tolerance)) of \(JSONValue.numberText(target))"
        }
    }

    /// The expectation's part of a check's description: ` = 3`, ` ~ 3.5±0.1`.
    static func describe(_ expectation: JSONExpectation) -> String {
        switch expectation {
        case .exists: ""
        case let .equals(value, _): " = " + clip(value.jsonText, limit: 30)
        case let .contains(value, _): " contains " + clip(value.jsonText, limit: 30)
        case let .matches(pattern, _): " matches /\(pattern.prefix(30))/"
        case let .approx(target, tolerance): " ≈ \(JSONValue.numberText(target))±\(JSONValue.numberText(tolerance))"
        }
    }

    private static func notJSON(_ failure: AnswerJSONFailure, _ output: String, expected: String) -> CheckOutcome {
        CheckOutcome(holds: false, expected: expected, actual: "no JSON: \(failure.reason), in \(TextChecks.excerpt(output))")
    }

    private static func show(_ value: JSONValue) -> String {
        clip(value.jsonText)
    }

    private static func clip(_ text: String, limit: Int = Grader.excerptLimit) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
