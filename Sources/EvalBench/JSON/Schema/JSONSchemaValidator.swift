import Foundation

/// Validates instances against compiled schema nodes, collecting every violation.
struct SchemaValidator {
    let subschemas: [JSONPointer: SchemaNode]
    /// The `$ref`s being followed, with the instance location, so that a reference cycle
    /// that makes no progress into the instance fails instead of recursing forever.
    private var activeReferences: Set<[JSONPointer]> = []

    init(subschemas: [JSONPointer: SchemaNode]) {
        self.subschemas = subschemas
    }

    mutating func validate(_ instance: JSONValue, against node: SchemaNode, at pointer: JSONPointer) -> [SchemaViolation] {
        switch node {
        case .always(true, _):
            return []
        case .always(false, let schemaPointer):
            return [SchemaViolation(pointer: pointer, rule: "false", schemaPointer: schemaPointer,
                                    message: "no value is allowed here, found \(Self.show(instance))")]
        case .rules(let rules):
            return validate(instance, rules, at: pointer)
        }
    }

    private mutating func validate(_ instance: JSONValue, _ rules: SchemaRules, at pointer: JSONPointer) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        func fail(_ rule: String, _ message: String, at where_: JSONPointer? = nil) {
            violations.append(SchemaViolation(pointer: where_ ?? pointer, rule: rule,
                                              schemaPointer: rules.pointer.appending(rule), message: message))
        }

        if let target = rules.ref, let node = subschemas[target] {
            let key = [target, pointer]
            if activeReferences.contains(key) {
                fail("$ref", "the reference \"#\(target.description)\" loops back to itself without descending into the value")
            } else {
                activeReferences.insert(key)
                let referenced = validate(instance, against: node, at: pointer)
                violations.append(contentsOf: referenced)
                activeReferences.remove(key)
            }
        }
        if let types = rules.types, !types.contains(where: { $0.matches(instance) }) {
            let expected = types.map(\.rawValue).joined(separator: " or ")
            fail("type", "expected \(expected), found \(instance == .null ? "null" : instance.kindDescription + " " + Self.clip(instance.jsonText))")
            // Further keywords would only restate the type mismatch.
            return violations
        }
        if let values = rules.enumValues, !values.contains(instance) {
            fail("enum", "expected one of \(Self.clip(values.map(\.jsonText).joined(separator: ", "))), found \(Self.show(instance))")
        }
        if let constant = rules.constValue, constant != instance {
            fail("const", "expected \(Self.clip(constant.jsonText)), found \(Self.show(instance))")
        }
        var nested: [SchemaViolation] = []
        switch instance {
        case .object(let members): nested = object(members, rules, at: pointer, fail: fail)
        case .array(let elements): nested = array(elements, rules, at: pointer, fail: fail)
        case .number(let number): numeric(number, rules, fail: fail)
        case .string(let text): string(text, rules, fail: fail)
        case .null, .bool: break
        }
        violations.append(contentsOf: nested)
        let combined = combinators(instance, rules, at: pointer, fail: fail)
        violations.append(contentsOf: combined)
        return violations
    }

    private mutating func object(_ members: [String: JSONValue], _ rules: SchemaRules, at pointer: JSONPointer,
                                 fail: (String, String, JSONPointer?) -> Void) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        for name in rules.required where members[name] == nil {
            fail("required", "missing required property '\(name)'", nil)
        }
        if let minimum = rules.minProperties, members.count < minimum {
            fail("minProperties", "expected at least \(minimum) properties, found \(members.count)", nil)
        }
        if let maximum = rules.maxProperties, members.count > maximum {
            fail("maxProperties", "expected at most \(maximum) properties, found \(members.count)", nil)
        }
        let declared = Dictionary(rules.properties.map { ($0.name, $0.schema) }, uniquingKeysWith: { first, _ in first })
        for key in members.keys.sorted() {
            let value = members[key]!
            if let schema = declared[key] {
                violations += validate(value, against: schema, at: pointer.appending(key))
            } else if let additional = rules.additionalProperties {
                if case .always(false, _) = additional {
                    let allowed = rules.properties.map { "'\($0.name)'" }.joined(separator: ", ")
                    fail("additionalProperties", "property '\(key)' is not allowed" + (allowed.isEmpty ? "" : "; allowed: \(allowed)"),
                         pointer.appending(key))
                } else {
                    violations += validate(value, against: additional, at: pointer.appending(key))
                }
            }
        }
        return violations
    }

    private mutating func array(_ elements: [JSONValue], _ rules: SchemaRules, at pointer: JSONPointer,
                                fail: (String, String, JSONPointer?) -> Void) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        if let minimum = rules.minItems, elements.count < minimum {
            fail("minItems", "expected at least \(minimum) element(s), found \(elements.count)", nil)
        }
        if let maximum = rules.maxItems, elements.count > maximum {
            fail("maxItems", "expected at most \(maximum) element(s), found \(elements.count)", nil)
        }
        if rules.uniqueItems {
            outer: for (index, element) in elements.enumerated() {
                for earlier in 0..<index where elements[earlier] == element {
                    fail("uniqueItems", "element \(index) repeats element \(earlier): \(Self.show(element))", pointer.appending(index))
                    break outer
                }
            }
        }
        for (index, element) in elements.enumerated() {
            if index < rules.prefixItems.count {
                violations += validate(element, against: rules.prefixItems[index], at: pointer.appending(index))
            } else if let items = rules.items {
                if case .always(false, _) = items {
                    fail("items", "expected at most \(rules.prefixItems.count) element(s), found \(elements.count)", pointer.appending(index))
                    break
                }
                violations += validate(element, against: items, at: pointer.appending(index))
            }
        }
        return violations
    }

    private func numeric(_ number: Double, _ rules: SchemaRules, fail: (String, String, JSONPointer?) -> Void) {
        let found = JSONValue.numberText(number)
        if let bound = rules.minimum, number < bound { fail("minimum", "expected a number ≥ \(JSONValue.numberText(bound)), found \(found)", nil) }
        if let bound = rules.maximum, number > bound { fail("maximum", "expected a number ≤ \(JSONValue.numberText(bound)), found \(found)", nil) }
        if let bound = rules.exclusiveMinimum, number <= bound {
            fail("exclusiveMinimum", "expected a number > \(JSONValue.numberText(bound)), found \(found)", nil)
        }
        if let bound = rules.exclusiveMaximum, number >= bound {
            fail("exclusiveMaximum", "expected a number < \(JSONValue.numberText(bound)), found \(found)", nil)
        }
        if let step = rules.multipleOf {
            let quotient = number / step
            // Decimal steps such as 0.01 are not exact in binary, so allow rounding error.
            if !quotient.isFinite || abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                fail("multipleOf", "expected a multiple of \(JSONValue.numberText(step)), found \(found)", nil)
            }
        }
    }

    private func string(_ text: String, _ rules: SchemaRules, fail: (String, String, JSONPointer?) -> Void) {
        let length = text.unicodeScalars.count
        if let minimum = rules.minLength, length < minimum {
            fail("minLength", "expected at least \(minimum) character(s), found \(length): \(Self.show(.string(text)))", nil)
        }
        if let maximum = rules.maxLength, length > maximum {
            fail("maxLength", "expected at most \(maximum) character(s), found \(length): \(Self.show(.string(text)))", nil)
        }
        if let pattern = rules.pattern,
           let regex = try? NSRegularExpression(pattern: pattern),
           regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
            fail("pattern", "expected a match for /\(pattern)/, found \(Self.show(.string(text)))", nil)
        }
        if let format = rules.format, !format.matches(text) {
            fail("format", "expected a \(format.rawValue), found \(Self.show(.string(text)))", nil)
        }
    }

    private mutating func combinators(_ instance: JSONValue, _ rules: SchemaRules, at pointer: JSONPointer,
                                      fail: (String, String, JSONPointer?) -> Void) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        if let branches = rules.allOf {
            for branch in branches { violations += validate(instance, against: branch, at: pointer) }
        }
        if let branches = rules.anyOf {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer) }
            if !outcomes.contains(where: \.isEmpty) {
                fail("anyOf", "matched none of the \(branches.count) alternatives (\(Self.summary(outcomes)))", nil)
            }
        }
        if let branches = rules.oneOf {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer) }
            let matching = outcomes.indices.filter { outcomes[$0].isEmpty }
            if matching.isEmpty {
                fail("oneOf", "matched none of the \(branches.count) alternatives (\(Self.summary(outcomes)))", nil)
            } else if matching.count > 1 {
                fail("oneOf", "matched alternatives \(matching.map { String($0 + 1) }.joined(separator: " and ")); exactly one must match", nil)
            }
        }
        if let negated = rules.not, validate(instance, against: negated, at: pointer).isEmpty {
            fail("not", "expected a value that does not match the 'not' schema, found \(Self.show(instance))", nil)
        }
        return violations
    }

    /// The first violation of each alternative: `1: at /a: type: …; 2: …`.
    private static func summary(_ outcomes: [[SchemaViolation]]) -> String {
        outcomes.enumerated().compactMap { index, violations in
            violations.first.map { "\(index + 1): \($0.description)" }
        }.joined(separator: "; ")
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .object, .array: value.kindDescription + " " + clip(value.jsonText)
        case .null: "null"
        default: clip(value.jsonText)
        }
    }

    private static func clip(_ text: String, limit: Int = 80) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
