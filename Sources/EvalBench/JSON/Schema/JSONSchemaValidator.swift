import Foundation

/// Validates instances against compiled schema nodes, collecting every violation.
struct SchemaValidator {
    let schema: JSONSchema
    /// The references being followed, with the instance location, so that a reference cycle
    /// that makes no progress into the instance fails instead of recursing forever.
    private var activeReferences: Set<[JSONPointer]> = []
    /// The schema resources entered so far, outermost first: where a `$dynamicRef` looks.
    private var dynamicScope: [String] = []

    /// What validating one value against one schema found: the violations, and the members
    /// and elements of the value that the schema evaluated, which `unevaluatedProperties` and
    /// `unevaluatedItems` of an enclosing schema leave alone. Evaluations of a schema the
    /// value fails do not count, so callers only keep those of valid outcomes.
    struct Outcome {
        var violations: [SchemaViolation] = []
        var properties: Set<String> = []
        var items: Set<Int> = []

        var isValid: Bool { violations.isEmpty }

        mutating func absorb(_ other: Outcome) {
            violations += other.violations
            absorbEvaluations(of: other)
        }

        mutating func absorbEvaluations(of other: Outcome) {
            properties.formUnion(other.properties)
            items.formUnion(other.items)
        }
    }

    init(schema: JSONSchema) {
        self.schema = schema
    }

    mutating func validate(_ instance: JSONValue, against node: SchemaNode, at pointer: JSONPointer) -> Outcome {
        switch node {
        case .always(true, _):
            return Outcome()
        case .always(false, let schemaPointer):
            return Outcome(violations: [SchemaViolation(pointer: pointer, rule: "false", schemaPointer: schemaPointer,
                                                        message: "no value is allowed here, found \(Self.show(instance))")])
        case .rules(let rules):
            return validate(instance, rules, at: pointer)
        }
    }

    private mutating func validate(_ instance: JSONValue, _ rules: SchemaRules, at pointer: JSONPointer) -> Outcome {
        var outcome = Outcome()
        func fail(_ rule: String, _ message: String) {
            outcome.violations.append(Self.violation(rules, rule, message, at: pointer))
        }
        let entersResource = dynamicScope.last != rules.resource
        if entersResource { dynamicScope.append(rules.resource) }
        defer { if entersResource { dynamicScope.removeLast() } }
        if let text = rules.ref, let target = schema.references[rules.pointer] {
            outcome.absorb(follow(text, to: target, instance, rules, at: pointer))
        }
        if let text = rules.dynamicRef, let reference = schema.dynamicReferences[rules.pointer] {
            var target = reference.target
            if let anchor = reference.anchor {
                let anchors = schema.dynamicAnchors
                target = dynamicScope.lazy.compactMap { anchors[$0 + "#" + anchor] }.first ?? target
            }
            outcome.absorb(follow(text, to: target, instance, rules, at: pointer))
        }
        if let types = rules.types, !types.contains(where: { $0.matches(instance) }) {
            let expected = types.map(\.rawValue).joined(separator: " or ")
            fail("type", "expected \(expected), found \(instance == .null ? "null" : instance.kindDescription + " " + Self.clip(instance.jsonText))")
            // Further keywords would only restate the type mismatch.
            return outcome
        }
        if let values = rules.enumValues, !values.contains(where: { $0.isSchemaEqual(to: instance) }) {
            fail("enum", values.isEmpty ? "no value is allowed by an empty 'enum', found \(Self.show(instance))"
                : "expected one of \(Self.clip(values.map(\.jsonText).joined(separator: ", "))), found \(Self.show(instance))")
        }
        if let constant = rules.constValue, !constant.isSchemaEqual(to: instance) {
            fail("const", "expected \(Self.clip(constant.jsonText)), found \(Self.show(instance))")
        }
        switch instance {
        case .object(let members): outcome.absorb(object(members, rules, at: pointer))
        case .array(let elements): outcome.absorb(array(elements, rules, at: pointer))
        case .number(let number): outcome.violations += numeric(number, rules, at: pointer)
        case .string(let text): outcome.violations += string(text, rules, at: pointer)
        case .null, .bool: break
        }
        outcome.absorb(combinators(instance, rules, at: pointer))
        unevaluated(instance, rules, at: pointer, into: &outcome)
        return outcome
    }

    private mutating func follow(_ text: String, to target: JSONPointer, _ instance: JSONValue, _ rules: SchemaRules,
                                 at pointer: JSONPointer) -> Outcome {
        guard let node = schema.subschemas[target] else { return Outcome() }
        let key = [target, pointer]
        guard !activeReferences.contains(key) else {
            let rule = rules.ref == text ? "$ref" : "$dynamicRef"
            return Outcome(violations: [Self.violation(rules, rule, "the reference \"\(text)\" loops back to itself without descending into the value",
                                                       at: pointer)])
        }
        activeReferences.insert(key)
        defer { activeReferences.remove(key) }
        return validate(instance, against: node, at: pointer)
    }

    private mutating func object(_ members: [String: JSONValue], _ rules: SchemaRules, at pointer: JSONPointer) -> Outcome {
        var outcome = Outcome()
        func fail(_ rule: String, _ message: String, at location: JSONPointer? = nil) {
            outcome.violations.append(Self.violation(rules, rule, message, at: location ?? pointer))
        }
        // Property names match by Unicode code points, not by Swift's canonical equivalence.
        let present = Set(members.keys.map { Array($0.utf8) })
        for name in rules.required where !present.contains(Array(name.utf8)) {
            fail("required", "missing required property '\(name)'")
        }
        for (name, required) in rules.dependentRequired where present.contains(Array(name.utf8)) {
            for missing in required where !present.contains(Array(missing.utf8)) {
                fail("dependentRequired", "property '\(name)' requires property '\(missing)', which is missing")
            }
        }
        if let minimum = rules.minProperties, members.count < minimum {
            fail("minProperties", "expected at least \(minimum) properties, found \(members.count)")
        }
        if let maximum = rules.maxProperties, members.count > maximum {
            fail("maxProperties", "expected at most \(maximum) properties, found \(members.count)")
        }
        let declared = Dictionary(rules.properties.map { (Array($0.name.utf8), $0.schema) }, uniquingKeysWith: { first, _ in first })
        for key in members.keys.sorted() {
            let value = members[key]!
            let here = pointer.appending(key)
            var matched = false
            if let schema = declared[Array(key.utf8)] {
                matched = true
                outcome.violations += validate(value, against: schema, at: here).violations
            }
            for (pattern, schema) in rules.patternProperties where pattern.matches(key) {
                matched = true
                outcome.violations += validate(value, against: schema, at: here).violations
            }
            if !matched, let additional = rules.additionalProperties {
                matched = true
                if case .always(false, _) = additional {
                    let allowed = rules.properties.map { "'\($0.name)'" }.joined(separator: ", ")
                    fail("additionalProperties", "property '\(key)' is not allowed" + (allowed.isEmpty ? "" : "; allowed: \(allowed)"), at: here)
                } else {
                    outcome.violations += validate(value, against: additional, at: here).violations
                }
            }
            if matched { outcome.properties.insert(key) }
            if let names = rules.propertyNames, let first = validate(.string(key), against: names, at: here).violations.first {
                fail("propertyNames", "the property name '\(key)' breaks 'propertyNames': \(first.rule): \(first.message)", at: here)
            }
        }
        for (name, schema) in rules.dependentSchemas where present.contains(Array(name.utf8)) {
            outcome.absorb(validate(.object(members), against: schema, at: pointer))
        }
        return outcome
    }

    private mutating func array(_ elements: [JSONValue], _ rules: SchemaRules, at pointer: JSONPointer) -> Outcome {
        var outcome = Outcome()
        func fail(_ rule: String, _ message: String, at location: JSONPointer? = nil) {
            outcome.violations.append(Self.violation(rules, rule, message, at: location ?? pointer))
        }
        if let minimum = rules.minItems, elements.count < minimum {
            fail("minItems", "expected at least \(minimum) element(s), found \(elements.count)")
        }
        if let maximum = rules.maxItems, elements.count > maximum {
            fail("maxItems", "expected at most \(maximum) element(s), found \(elements.count)")
        }
        if rules.uniqueItems {
            outer: for (index, element) in elements.enumerated() {
                for earlier in 0..<index where elements[earlier].isSchemaEqual(to: element) {
                    fail("uniqueItems", "element \(index) repeats element \(earlier): \(Self.show(element))", at: pointer.appending(index))
                    break outer
                }
            }
        }
        for (index, element) in elements.enumerated() {
            if index < rules.prefixItems.count {
                outcome.violations += validate(element, against: rules.prefixItems[index], at: pointer.appending(index)).violations
            } else if let items = rules.items {
                if case .always(false, _) = items {
                    fail("items", "expected at most \(rules.prefixItems.count) element(s), found \(elements.count)", at: pointer.appending(index))
                    break
                }
                outcome.violations += validate(element, against: items, at: pointer.appending(index)).violations
            } else {
                continue
            }
            outcome.items.insert(index)
        }
        if let contains = rules.contains {
            var matching = 0
            for (index, element) in elements.enumerated() where validate(element, against: contains, at: pointer.appending(index)).isValid {
                matching += 1
                outcome.items.insert(index)
            }
            let minimum = rules.minContains ?? 1
            if matching < minimum {
                fail(rules.minContains == nil ? "contains" : "minContains",
                     "expected at least \(minimum) element(s) matching 'contains', found \(matching)")
            }
            if let maximum = rules.maxContains, matching > maximum {
                fail("maxContains", "expected at most \(maximum) element(s) matching 'contains', found \(matching)")
            }
        }
        return outcome
    }

    private func numeric(_ number: Double, _ rules: SchemaRules, at pointer: JSONPointer) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        func fail(_ rule: String, _ message: String) { violations.append(Self.violation(rules, rule, message, at: pointer)) }
        let found = JSONValue.numberText(number)
        if let bound = rules.minimum, number < bound { fail("minimum", "expected a number ≥ \(JSONValue.numberText(bound)), found \(found)") }
        if let bound = rules.maximum, number > bound { fail("maximum", "expected a number ≤ \(JSONValue.numberText(bound)), found \(found)") }
        if let bound = rules.exclusiveMinimum, number <= bound {
            fail("exclusiveMinimum", "expected a number > \(JSONValue.numberText(bound)), found \(found)")
        }
        if let bound = rules.exclusiveMaximum, number >= bound {
            fail("exclusiveMaximum", "expected a number < \(JSONValue.numberText(bound)), found \(found)")
        }
        if let step = rules.multipleOf {
            let quotient = number / step
            // Decimal steps such as 0.01 are not exact in binary, so allow rounding error.
            if !quotient.isFinite || abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                fail("multipleOf", "expected a multiple of \(JSONValue.numberText(step)), found \(found)")
            }
        }
        return violations
    }

    private func string(_ text: String, _ rules: SchemaRules, at pointer: JSONPointer) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        func fail(_ rule: String, _ message: String) { violations.append(Self.violation(rules, rule, message, at: pointer)) }
        let length = text.unicodeScalars.count
        if let minimum = rules.minLength, length < minimum {
            fail("minLength", "expected at least \(minimum) character(s), found \(length): \(Self.show(.string(text)))")
        }
        if let maximum = rules.maxLength, length > maximum {
            fail("maxLength", "expected at most \(maximum) character(s), found \(length): \(Self.show(.string(text)))")
        }
        if let pattern = rules.pattern, !pattern.matches(text) {
            fail("pattern", "expected a match for /\(pattern.source)/, found \(Self.show(.string(text)))")
        }
        if let format = rules.format, !format.matches(text) {
            fail("format", "expected a \(format.rawValue), found \(Self.show(.string(text)))")
        }
        return violations
    }
}
