import Foundation

/// The checks of keyword values: counts, numbers, type names, lists, patterns and formats.
extension SchemaCompiler {
    /// Common type names from programming languages, and the JSON Schema name.
    private static let typeAliases: [String: String] = [
        "int": "integer", "float": "number", "double": "number", "bool": "boolean", "str": "string",
        "list": "array", "dict": "object", "map": "object", "obj": "object", "none": "null",
    ]

    mutating func checkBounds(_ rules: SchemaRules) {
        func check(_ low: Double?, _ high: Double?, _ lowKey: String, _ highKey: String, strict: Bool = false) {
            guard let low, let high, strict ? low >= high : low > high else { return }
            report(rules.pointer.appending(lowKey),
                   "'\(lowKey)' (\(JSONValue.numberText(low))) is \(strict ? "not below" : "greater than") '\(highKey)' (\(JSONValue.numberText(high))), so nothing can pass",
                   fix: "swap them, or correct one of the two")
        }
        check(rules.minimum, rules.maximum, "minimum", "maximum")
        check(rules.exclusiveMinimum, rules.exclusiveMaximum, "exclusiveMinimum", "exclusiveMaximum", strict: true)
        check(rules.minLength.map(Double.init), rules.maxLength.map(Double.init), "minLength", "maxLength")
        check(rules.minItems.map(Double.init), rules.maxItems.map(Double.init), "minItems", "maxItems")
        check(rules.minProperties.map(Double.init), rules.maxProperties.map(Double.init), "minProperties", "maxProperties")
    }

    /// A required property that `additionalProperties: false` forbids makes the schema unsatisfiable.
    mutating func checkRequired(_ rules: SchemaRules, _ members: [String: JSONValue]) {
        guard case .bool(false)? = members["additionalProperties"] else { return }
        let declared = Set(rules.properties.map { Array($0.name.utf8) })
        for name in rules.required where !declared.contains(Array(name.utf8)) && !rules.patternProperties.contains(where: { $0.pattern.matches(name) }) {
            report(rules.pointer.appending("required"),
                   "required property '\(name)' is not in 'properties' and 'additionalProperties' is false, so nothing can pass",
                   fix: "declare '\(name)' under \"properties\", or remove it from 'required'")
        }
    }

    mutating func types(_ value: JSONValue, at pointer: JSONPointer) -> [SchemaType]? {
        let names: [(String, JSONPointer)]
        switch value {
        case .string(let name): names = [(name, pointer)]
        case .array(let elements) where !elements.isEmpty:
            var list: [(String, JSONPointer)] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let name) = element else {
                    report(pointer.appending(index), "each type must be a string, found \(element.kindDescription)")
                    continue
                }
                list.append((name, pointer.appending(index)))
            }
            names = list
        default:
            report(pointer, "'type' must be a type name or a non-empty array of them, found \(value.kindDescription)",
                   fix: "types: " + SchemaType.allCases.map(\.rawValue).joined(separator: ", "))
            return nil
        }
        var types: [SchemaType] = []
        for (name, at) in names {
            guard let type = SchemaType(rawValue: name) else {
                let known = SchemaType.allCases.map(\.rawValue)
                let near = Self.typeAliases[name.lowercased()] ?? suggestion(for: name, among: known)
                report(at, "unknown type name '\(name)'" + (near.map { "; did you mean '\($0)'?" } ?? ""),
                       fix: "types: " + known.joined(separator: ", "))
                continue
            }
            if types.contains(type) {
                report(at, "type '\(name)' is listed twice", fix: "list each type once")
                continue
            }
            types.append(type)
        }
        return types
    }

    mutating func schemaList(_ value: JSONValue, at pointer: JSONPointer, allowsEmpty: Bool = false) -> [SchemaNode]? {
        guard case .array(let elements) = value, allowsEmpty || !elements.isEmpty else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a non-empty array of schemas, found \(value.kindDescription)")
            return nil
        }
        return elements.enumerated().map { compile($1, at: pointer.appending($0)) }
    }

    /// An object of named schemas (`properties`, `$defs`), in name order.
    mutating func schemaMap(_ value: JSONValue, at pointer: JSONPointer) -> [(name: String, schema: SchemaNode)] {
        guard case .object(let schemas) = value else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be an object of schemas, found \(value.kindDescription)")
            return []
        }
        return schemas.keys.sorted().map { ($0, compile(schemas[$0]!, at: pointer.appending($0))) }
    }

    mutating func uniqueStrings(_ value: JSONValue, at pointer: JSONPointer) -> [String] {
        guard case .array(let elements) = value else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be an array of property names, found \(value.kindDescription)")
            return []
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let name) = element else {
                report(pointer.appending(index), "each property name must be a string, found \(element.kindDescription)")
                continue
            }
            if names.contains(where: { $0.unicodeScalars.elementsEqual(name.unicodeScalars) }) {
                report(pointer.appending(index), "'\(name)' is listed twice", fix: "list each property once")
                continue
            }
            names.append(name)
        }
        return names
    }

    mutating func count(_ value: JSONValue, at pointer: JSONPointer) -> Int? {
        guard case .number(let number) = value, number >= 0, number.rounded() == number, let whole = Int(exactly: number) else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a whole number of at least 0, found \(value.jsonText)")
            return nil
        }
        return whole
    }

    mutating func number(_ value: JSONValue, at pointer: JSONPointer) -> Double? {
        guard case .number(let number) = value else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a number, found \(value.kindDescription)",
                   fix: value.kindDescription == "a string" ? "remove the quotes around the value" : nil)
            return nil
        }
        return number
    }

    mutating func pattern(_ value: JSONValue, at pointer: JSONPointer) -> SchemaPattern? {
        guard case .string(let text) = value else {
            report(pointer, "'pattern' must be a regular expression in a string, found \(value.kindDescription)")
            return nil
        }
        guard let pattern = SchemaPattern(text) else {
            report(pointer, "the pattern '\(text)' is not a valid regular expression",
                   fix: "check its syntax (an unbalanced '(' or '[' is the usual cause); in JSON a backslash is written twice: \"\\\\d+\"")
            return nil
        }
        if let reason = BoundedRegex.catastrophicShape(in: text) {
            report(pointer, "the pattern '\(Diagnostic.excerpt(text))' can take exponential time on a hostile answer: \(reason)",
                   fix: "repeat something that cannot match the same text two ways: (a+)+ is a+, (.*x){3} is (?:[^x]*x){3}")
            return nil
        }
        return pattern
    }

    mutating func format(_ value: JSONValue, at pointer: JSONPointer) -> JSONSchemaFormat? {
        guard case .string(let name) = value else {
            report(pointer, "'format' must be a string, found \(value.kindDescription)")
            return nil
        }
        guard let format = JSONSchemaFormat(rawValue: name) else {
            let known = JSONSchemaFormat.allCases.map(\.rawValue)
            report(pointer, "unsupported format '\(name)'" + (suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""),
                   fix: "formats checked: \(known.joined(separator: ", ")); use 'pattern' for anything else")
            return nil
        }
        return format
    }
}
