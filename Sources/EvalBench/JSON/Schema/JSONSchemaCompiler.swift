import Foundation

/// Checks a schema's keywords and turns them into `SchemaNode`s, collecting every problem.
struct SchemaCompiler {
    let source: JSONValue
    private(set) var problems: [SchemaProblem] = []
    private(set) var subschemas: [JSONPointer: SchemaNode] = [:]
    /// Each `$ref` met, with where it was written.
    private var references: [(target: JSONPointer, at: JSONPointer)] = []

    /// Likely names from other drafts or other tools, and what to write instead.
    private static let renamed: [String: String] = [
        "definitions": "rename it to \"$defs\" (draft 2020-12); '$ref's then point at \"#/$defs/name\"",
        "additionalItems": "in draft 2020-12 'items' applies to the elements after 'prefixItems'",
        "nullable": "add \"null\" to 'type', e.g. \"type\": [\"string\", \"null\"]",
    ]

    /// Common type names from programming languages, and the JSON Schema name.
    private static let typeAliases: [String: String] = [
        "int": "integer", "float": "number", "double": "number", "bool": "boolean", "str": "string",
        "list": "array", "dict": "object", "map": "object", "obj": "object", "none": "null",
    ]

    init(source: JSONValue) {
        self.source = source
    }

    mutating func compile(_ value: JSONValue, at pointer: JSONPointer) -> SchemaNode {
        let node: SchemaNode
        switch value {
        case .bool(let flag):
            node = .always(flag, at: pointer)
        case .object(let members):
            node = .rules(rules(members, at: pointer))
        default:
            report(pointer, "a schema must be an object or a boolean, found \(value.kindDescription)",
                   fix: "write a schema such as {\"type\": \"string\"}, or true to allow anything")
            node = .always(true, at: pointer)
        }
        subschemas[pointer] = node
        return node
    }

    /// Reports each `$ref` whose target is not a schema of this document.
    mutating func resolveReferences() {
        for (target, at) in references where subschemas[target] == nil {
            let fragment = "#" + target.description
            if case .found = target.resolve(in: source) {
                report(at, "'$ref' \"\(fragment)\" points at a value that is not a schema",
                       fix: "point at a schema, usually one under \"$defs\"")
            } else {
                let defined = definitions().map { "\"#/$defs/\($0)\"" }
                let hint = definitions().isEmpty ? "define it under \"$defs\""
                    : "defined: " + defined.joined(separator: ", ")
                report(at, "'$ref' \"\(fragment)\" does not resolve", fix: hint)
            }
        }
    }

    private func definitions() -> [String] {
        if case .object(let root) = source, case .object(let defs)? = root["$defs"] { return defs.keys.sorted() }
        return []
    }

    private mutating func rules(_ members: [String: JSONValue], at pointer: JSONPointer) -> SchemaRules {
        var rules = SchemaRules(pointer: pointer)
        for key in members.keys.sorted() {
            let value = members[key]!
            let here = pointer.appending(key)
            switch key {
            case "type": rules.types = types(value, at: here)
            case "properties":
                guard case .object(let properties) = value else {
                    report(here, "'properties' must be an object of schemas, found \(value.kindDescription)")
                    continue
                }
                rules.properties = properties.keys.sorted().map { ($0, compile(properties[$0]!, at: here.appending($0))) }
            case "required": rules.required = uniqueStrings(value, at: here)
            case "additionalProperties": rules.additionalProperties = compile(value, at: here)
            case "minProperties": rules.minProperties = count(value, at: here)
            case "maxProperties": rules.maxProperties = count(value, at: here)
            case "enum":
                guard case .array(let values) = value, !values.isEmpty else {
                    report(here, "'enum' must be a non-empty array of values, found \(value.kindDescription)")
                    continue
                }
                rules.enumValues = values
            case "const": rules.constValue = value
            case "items":
                if case .array = value {
                    report(here, "'items' must be a schema; an array of schemas is 'prefixItems' in draft 2020-12",
                           fix: "rename it to \"prefixItems\"")
                    continue
                }
                rules.items = compile(value, at: here)
            case "prefixItems": rules.prefixItems = schemaList(value, at: here) ?? []
            case "minItems": rules.minItems = count(value, at: here)
            case "maxItems": rules.maxItems = count(value, at: here)
            case "uniqueItems":
                guard case .bool(let flag) = value else {
                    report(here, "'uniqueItems' must be true or false, found \(value.kindDescription)")
                    continue
                }
                rules.uniqueItems = flag
            case "minimum": rules.minimum = number(value, at: here)
            case "maximum": rules.maximum = number(value, at: here)
            case "exclusiveMinimum", "exclusiveMaximum":
                if case .bool = value {
                    report(here, "'\(key)' must be a number in draft 2020-12, found a boolean",
                           fix: "write the bound itself: \"\(key)\": 0 (and remove the matching '\(key == "exclusiveMinimum" ? "minimum" : "maximum")')")
                    continue
                }
                let bound = number(value, at: here)
                if key == "exclusiveMinimum" { rules.exclusiveMinimum = bound } else { rules.exclusiveMaximum = bound }
            case "multipleOf":
                guard case .number(let step) = value, step > 0 else {
                    report(here, "'multipleOf' must be a number greater than 0, found \(value.jsonText)")
                    continue
                }
                rules.multipleOf = step
            case "minLength": rules.minLength = count(value, at: here)
            case "maxLength": rules.maxLength = count(value, at: here)
            case "pattern": rules.pattern = pattern(value, at: here)
            case "format": rules.format = format(value, at: here)
            case "anyOf": rules.anyOf = schemaList(value, at: here)
            case "oneOf": rules.oneOf = schemaList(value, at: here)
            case "allOf": rules.allOf = schemaList(value, at: here)
            case "not": rules.not = compile(value, at: here)
            case "$ref": rules.ref = reference(value, at: here)
            case "$defs":
                guard case .object(let definitions) = value else {
                    report(here, "'$defs' must be an object of named schemas, found \(value.kindDescription)")
                    continue
                }
                for name in definitions.keys.sorted() { _ = compile(definitions[name]!, at: here.appending(name)) }
            case _ where JSONSchema.annotations.contains(key):
                continue
            default:
                unknown(key, at: here)
            }
        }
        checkBounds(rules, members)
        if case .bool(false)? = members["additionalProperties"] {
            let declared = Set(rules.properties.map(\.name))
            for name in rules.required where !declared.contains(name) {
                report(pointer.appending("required"),
                       "required property '\(name)' is not in 'properties' and 'additionalProperties' is false, so nothing can pass",
                       fix: "declare '\(name)' under \"properties\", or remove it from 'required'")
            }
        }
        return rules
    }

    private mutating func checkBounds(_ rules: SchemaRules, _ members: [String: JSONValue]) {
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

    private mutating func types(_ value: JSONValue, at pointer: JSONPointer) -> [SchemaType]? {
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

    private mutating func schemaList(_ value: JSONValue, at pointer: JSONPointer) -> [SchemaNode]? {
        guard case .array(let elements) = value, !elements.isEmpty else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a non-empty array of schemas, found \(value.kindDescription)")
            return nil
        }
        return elements.enumerated().map { compile($1, at: pointer.appending($0)) }
    }

    private mutating func uniqueStrings(_ value: JSONValue, at pointer: JSONPointer) -> [String] {
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
            if names.contains(name) {
                report(pointer.appending(index), "'\(name)' is listed twice", fix: "list each property once")
                continue
            }
            names.append(name)
        }
        return names
    }

    private mutating func count(_ value: JSONValue, at pointer: JSONPointer) -> Int? {
        guard case .number(let number) = value, number >= 0, number.rounded() == number, let whole = Int(exactly: number) else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a whole number of at least 0, found \(value.jsonText)")
            return nil
        }
        return whole
    }

    private mutating func number(_ value: JSONValue, at pointer: JSONPointer) -> Double? {
        guard case .number(let number) = value else {
            report(pointer, "'\(pointer.tokens.last ?? "")' must be a number, found \(value.kindDescription)",
                   fix: value.kindDescription == "a string" ? "remove the quotes around the value" : nil)
            return nil
        }
        return number
    }

    private mutating func pattern(_ value: JSONValue, at pointer: JSONPointer) -> String? {
        guard case .string(let pattern) = value else {
            report(pointer, "'pattern' must be a regular expression in a string, found \(value.kindDescription)")
            return nil
        }
        guard (try? NSRegularExpression(pattern: pattern)) != nil else {
            report(pointer, "the pattern '\(pattern)' is not a valid regular expression",
                   fix: "check its syntax (an unbalanced '(' or '[' is the usual cause); in JSON a backslash is written twice: \"\\\\d+\"")
            return nil
        }
        return pattern
    }

    private mutating func format(_ value: JSONValue, at pointer: JSONPointer) -> JSONSchemaFormat? {
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

    private mutating func reference(_ value: JSONValue, at pointer: JSONPointer) -> JSONPointer? {
        guard case .string(let text) = value else {
            report(pointer, "'$ref' must be a string such as \"#/$defs/name\", found \(value.kindDescription)")
            return nil
        }
        guard text.hasPrefix("#") else {
            report(pointer, "'$ref' \"\(text)\" is not a local reference; only \"#\" and \"#/...\" (usually \"#/$defs/name\") are supported",
                   fix: "copy the schema under \"$defs\" and point at it")
            return nil
        }
        let fragment = String(text.dropFirst()).removingPercentEncoding ?? String(text.dropFirst())
        do {
            let target = try JSONPointer(parsing: fragment)
            references.append((target, pointer))
            return target
        } catch {
            report(pointer, "'$ref' \"\(text)\": \(error.message)", fix: "write \"#/$defs/name\"")
            return nil
        }
    }

    private mutating func unknown(_ key: String, at pointer: JSONPointer) {
        if let fix = Self.renamed[key] {
            report(pointer, "unsupported schema keyword '\(key)'", fix: fix, isAboutKey: true)
            return
        }
        let hint = suggestion(for: key, among: JSONSchema.keywords + JSONSchema.annotations).map { "; did you mean '\($0)'?" } ?? ""
        report(pointer, "unsupported schema keyword '\(key)'\(hint)",
               fix: "evalbench checks: \(JSONSchema.keywords.joined(separator: ", ")); remove it rather than leave it unchecked",
               isAboutKey: true)
    }

    private mutating func report(_ pointer: JSONPointer, _ message: String, fix: String? = nil, isAboutKey: Bool = false) {
        problems.append(SchemaProblem(pointer: pointer, message: message, fix: fix, isAboutKey: isAboutKey))
    }
}
