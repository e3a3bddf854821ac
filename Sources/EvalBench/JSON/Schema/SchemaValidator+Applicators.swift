import Foundation

/// The keywords that apply subschemas to the value itself: `allOf`, `anyOf`, `oneOf`, `not`,
/// `if`/`then`/`else`, and last `unevaluatedProperties` and `unevaluatedItems`, which see
/// what every other keyword of the schema evaluated.
extension SchemaValidator {
    mutating func combinators(_ instance: JSONValue, _ rules: SchemaRules, at pointer: JSONPointer) -> Outcome {
        var outcome = Outcome()
        func fail(_ rule: String, _ message: String) {
            outcome.violations.append(Self.violation(rules, rule, message, at: pointer))
        }
        for branch in rules.allOf ?? [] {
            outcome.absorb(validate(instance, against: branch, at: pointer))
        }
        if let branches = rules.anyOf {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer) }
            if !outcomes.contains(where: \.isValid) {
                fail("anyOf", "matched none of the \(branches.count) alternatives (\(Self.summary(outcomes)))")
            }
            for valid in outcomes where valid.isValid { outcome.absorbEvaluations(of: valid) }
        }
        if let branches = rules.oneOf {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer) }
            let matching = outcomes.indices.filter { outcomes[$0].isValid }
            if matching.isEmpty {
                fail("oneOf", "matched none of the \(branches.count) alternatives (\(Self.summary(outcomes)))")
            } else if matching.count > 1 {
                fail("oneOf", "matched alternatives \(matching.map { String($0 + 1) }.joined(separator: " and ")); exactly one must match")
            } else {
                outcome.absorbEvaluations(of: outcomes[matching[0]])
            }
        }
        if let negated = rules.not, validate(instance, against: negated, at: pointer).isValid {
            fail("not", "expected a value that does not match the 'not' schema, found \(Self.show(instance))")
        }
        if let condition = rules.ifSchema {
            let test = validate(instance, against: condition, at: pointer)
            if test.isValid {
                outcome.absorbEvaluations(of: test)
                if let then = rules.thenSchema { outcome.absorb(validate(instance, against: then, at: pointer)) }
            } else if let otherwise = rules.elseSchema {
                outcome.absorb(validate(instance, against: otherwise, at: pointer))
            }
        }
        return outcome
    }

    /// Applies `unevaluatedProperties` and `unevaluatedItems` to what `outcome` left unevaluated.
    mutating func unevaluated(_ instance: JSONValue, _ rules: SchemaRules, at pointer: JSONPointer, into outcome: inout Outcome) {
        if let schema = rules.unevaluatedProperties, case .object(let members) = instance {
            for key in members.keys.sorted() where !outcome.properties.contains(key) {
                let here = pointer.appending(key)
                if case .always(false, _) = schema {
                    outcome.violations.append(Self.violation(rules, "unevaluatedProperties",
                                                             "property '\(key)' is not allowed: no keyword of the schema covers it", at: here))
                } else {
                    outcome.violations += validate(members[key]!, against: schema, at: here).violations
                }
                outcome.properties.insert(key)
            }
        }
        if let schema = rules.unevaluatedItems, case .array(let elements) = instance {
            for index in elements.indices where !outcome.items.contains(index) {
                let here = pointer.appending(index)
                if case .always(false, _) = schema {
                    outcome.violations.append(Self.violation(rules, "unevaluatedItems",
                                                             "element \(index) is not allowed: no keyword of the schema covers it", at: here))
                } else {
                    outcome.violations += validate(elements[index], against: schema, at: here).violations
                }
                outcome.items.insert(index)
            }
        }
    }

    static func violation(_ rules: SchemaRules, _ rule: String, _ message: String, at pointer: JSONPointer) -> SchemaViolation {
        SchemaViolation(pointer: pointer, rule: rule, schemaPointer: rules.pointer.appending(rule), message: message)
    }

    /// The first violation of each alternative: `1: at /a: type: …; 2: …`.
    static func summary(_ outcomes: [Outcome]) -> String {
        outcomes.enumerated().compactMap { index, outcome in
            outcome.violations.first.map { "\(index + 1): \($0.description)" }
        }.joined(separator: "; ")
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .object, .array: value.kindDescription + " " + clip(value.jsonText)
        case .null: "null"
        default: clip(value.jsonText)
        }
    }

    static func clip(_ text: String, limit: Int = 80) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
