import Foundation

/// Checks a schema's keywords and turns them into `SchemaNode`s, collecting every problem.
struct SchemaCompiler {
    let source: JSONValue
    /// The draft the schema is read as: the caller's, unless the root's `$schema` names one.
    var draft: JSONSchema.Draft
    var problems: [SchemaProblem] = []
    var subschemas: [JSONPointer: SchemaNode] = [:]
    /// For each schema holding a `$ref`, the location it leads to; filled by `resolveReferences`.
    var resolvedReferences: [JSONPointer: JSONPointer] = [:]
    /// For each schema holding a `$dynamicRef`, where it leads; filled by `resolveReferences`.
    var resolvedDynamicReferences: [JSONPointer: DynamicReference] = [:]
    /// Each `$ref` and `$dynamicRef` met: as written, the base URI it is relative to, the
    /// schema holding it, and which of the two it is.
    var references: [(text: String, base: URIReference, holder: JSONPointer, dynamic: Bool)] = []
    /// Each schema resource (the document, and each `$id`) by its absolute URI.
    var resources: [String: JSONPointer] = [:]
    /// Each `$anchor` (and draft-07 `"$id": "#name"`) by `resource#name`.
    var anchors: [String: JSONPointer] = [:]
    /// Each `$dynamicAnchor` by `resource#name`, and the name declared by each schema.
    var dynamicAnchors: [String: JSONPointer] = [:]
    var dynamicAnchorNames: [JSONPointer: String] = [:]
    /// The base URI of the schema being compiled and of those enclosing it.
    var bases: [URIReference] = [Self.documentBase]

    /// The base URI of a schema without an `$id`; never shown to users.
    static let documentBase = URIReference("evalbench:/schema.json")

    /// Keywords of one draft only, refused in the other with what to write instead.
    static let draftOnly: [String: (draft: JSONSchema.Draft, fix: String)] = [
        "additionalItems": (.draft7, "in draft 2020-12 'items' applies to the elements after 'prefixItems'"),
        "dependencies": (.draft7, "split it into 'dependentRequired' (the arrays) and 'dependentSchemas' (the schemas)"),
        "prefixItems": (.draft2020_12, "in draft-07 an array of schemas is written as 'items', the rest as 'additionalItems'"),
        "dependentRequired": (.draft2020_12, "in draft-07 write it under 'dependencies'"),
        "dependentSchemas": (.draft2020_12, "in draft-07 write it under 'dependencies'"),
        "unevaluatedProperties": (.draft2020_12, "draft-07 has no such keyword; use 'additionalProperties'"),
        "unevaluatedItems": (.draft2020_12, "draft-07 has no such keyword; use 'additionalItems'"),
        "minContains": (.draft2020_12, "draft-07 has no such keyword"),
        "maxContains": (.draft2020_12, "draft-07 has no such keyword"),
        "$anchor": (.draft2020_12, "in draft-07 write \"$id\": \"#name\""),
        "$dynamicRef": (.draft2020_12, "draft-07 has no dynamic references; use '$ref'"),
        "$dynamicAnchor": (.draft2020_12, "draft-07 has no dynamic references; use '$id' and '$ref'"),
    ]

    /// Likely names from other drafts or other tools, and what to write instead.
    static let renamed: [String: String] = [
        "nullable": "add \"null\" to 'type', e.g. \"type\": [\"string\", \"null\"]",
        "$recursiveRef": "evalbench does not follow recursive references (draft 2019-09); use '$ref'",
        "$recursiveAnchor": "evalbench does not follow recursive references (draft 2019-09); use '$ref'",
    ]

    init(source: JSONValue, draft: JSONSchema.Draft) {
        self.source = source
        self.draft = draft
    }

    /// Compiles the whole document, in the draft its `$schema` names, and resolves its `$ref`s.
    mutating func compileDocument() -> SchemaNode {
        if case .object(let members) = source, let named = members["$schema"] {
            if case .string(let uri) = named, let declared = JSONSchema.Draft(schemaURI: uri) {
                draft = declared
            } else {
                report(JSONPointer(tokens: ["$schema"]), "'$schema' \(named.jsonText) names no draft evalbench reads",
                       fix: "write \"https://json-schema.org/draft/2020-12/schema\" or \"http://json-schema.org/draft-07/schema#\", or remove it")
            }
        }
        resources[Self.documentBase.description] = JSONPointer(tokens: [])
        let root = compile(source, at: JSONPointer(tokens: []))
        resolveReferences()
        return root
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

    private mutating func rules(_ members: [String: JSONValue], at pointer: JSONPointer) -> SchemaRules {
        var rules = SchemaRules(pointer: pointer)
        let entered = identify(members, at: pointer)
        defer { if entered { bases.removeLast() } }
        rules.resource = bases.last!.description
        if draft == .draft7, let ref = members["$ref"] {
            // In draft-07 a `$ref` replaces its siblings; definitions beside it stay reachable.
            rules.ref = reference(ref, at: pointer.appending("$ref"))
            for key in ["definitions", "$defs"] where members[key] != nil {
                _ = applicator(key, members[key]!, into: &rules, at: pointer.appending(key))
            }
            return rules
        }
        for key in members.keys.sorted() {
            let value = members[key]!
            let here = pointer.appending(key)
            if let only = Self.draftOnly[key], only.draft != draft {
                report(here, "'\(key)' is a \(only.draft.rawValue) keyword, and this schema is read as \(draft.rawValue)",
                       fix: only.fix + "; or declare the draft with \"$schema\"", isAboutKey: true)
                continue
            }
            let known = objectKeyword(key, value, into: &rules, at: here, members: members)
                || arrayKeyword(key, value, into: &rules, at: here, members: members)
                || valueKeyword(key, value, into: &rules, at: here)
                || applicator(key, value, into: &rules, at: here)
            if !known { unknown(key, at: here) }
        }
        checkBounds(rules)
        checkRequired(rules, members)
        return rules
    }

    private mutating func objectKeyword(_ key: String, _ value: JSONValue, into rules: inout SchemaRules, at here: JSONPointer,
                                        members: [String: JSONValue]) -> Bool {
        switch key {
        case "properties": rules.properties = schemaMap(value, at: here)
        case "patternProperties":
            rules.patternProperties = schemaMap(value, at: here).compactMap { name, schema in
                guard let pattern = SchemaPattern(name) else {
                    report(here.appending(name), "the pattern '\(name)' is not a valid regular expression",
                           fix: "check its syntax; in JSON a backslash is written twice: \"\\\\d+\"", isAboutKey: true)
                    return nil
                }
                return (pattern, schema)
            }
        case "additionalProperties": rules.additionalProperties = compile(value, at: here)
        case "propertyNames": rules.propertyNames = compile(value, at: here)
        case "required": rules.required = uniqueStrings(value, at: here)
        case "dependentRequired":
            guard case .object(let lists) = value else {
                report(here, "'dependentRequired' must be an object of property-name arrays, found \(value.kindDescription)")
                return true
            }
            rules.dependentRequired = lists.keys.sorted().map { ($0, uniqueStrings(lists[$0]!, at: here.appending($0))) }
        case "dependentSchemas": rules.dependentSchemas = schemaMap(value, at: here)
        case "dependencies":
            guard case .object(let entries) = value else {
                report(here, "'dependencies' must be an object of property-name arrays or schemas, found \(value.kindDescription)")
                return true
            }
            for name in entries.keys.sorted() {
                if case .array = entries[name]! {
                    rules.dependentRequired.append((name, uniqueStrings(entries[name]!, at: here.appending(name))))
                } else {
                    rules.dependentSchemas.append((name, compile(entries[name]!, at: here.appending(name))))
                }
            }
        case "minProperties": rules.minProperties = count(value, at: here)
        case "maxProperties": rules.maxProperties = count(value, at: here)
        case "unevaluatedProperties": rules.unevaluatedProperties = compile(value, at: here)
        default: return false
        }
        return true
    }

    private mutating func arrayKeyword(_ key: String, _ value: JSONValue, into rules: inout SchemaRules, at here: JSONPointer,
                                       members: [String: JSONValue]) -> Bool {
        switch key {
        case "items":
            guard case .array = value else {
                rules.items = compile(value, at: here)
                return true
            }
            guard draft == .draft7 else {
                report(here, "'items' must be a schema; an array of schemas is 'prefixItems' in draft 2020-12",
                       fix: "rename it to \"prefixItems\"")
                return true
            }
            rules.prefixItems = schemaList(value, at: here, allowsEmpty: true) ?? []
        case "additionalItems":
            let schema = compile(value, at: here)
            // Without an array of 'items' there is nothing for the elements to be additional to.
            if case .array? = members["items"] { rules.items = schema }
        case "prefixItems": rules.prefixItems = schemaList(value, at: here) ?? []
        case "contains": rules.contains = compile(value, at: here)
        case "minContains": rules.minContains = count(value, at: here)
        case "maxContains": rules.maxContains = count(value, at: here)
        case "unevaluatedItems": rules.unevaluatedItems = compile(value, at: here)
        case "minItems": rules.minItems = count(value, at: here)
        case "maxItems": rules.maxItems = count(value, at: here)
        case "uniqueItems":
            guard case .bool(let flag) = value else {
                report(here, "'uniqueItems' must be true or false, found \(value.kindDescription)")
                return true
            }
            rules.uniqueItems = flag
        default: return false
        }
        return true
    }

    private mutating func valueKeyword(_ key: String, _ value: JSONValue, into rules: inout SchemaRules, at here: JSONPointer) -> Bool {
        switch key {
        case "type": rules.types = types(value, at: here)
        case "enum":
            guard case .array(let values) = value else {
                report(here, "'enum' must be an array of values, found \(value.kindDescription)")
                return true
            }
            rules.enumValues = values
        case "const": rules.constValue = value
        case "minimum": rules.minimum = number(value, at: here)
        case "maximum": rules.maximum = number(value, at: here)
        case "exclusiveMinimum", "exclusiveMaximum":
            if case .bool = value {
                report(here, "'\(key)' must be a number in draft-07 and draft 2020-12, found a boolean",
                       fix: "write the bound itself: \"\(key)\": 0 (and remove the matching '\(key == "exclusiveMinimum" ? "minimum" : "maximum")')")
                return true
            }
            let bound = number(value, at: here)
            if key == "exclusiveMinimum" { rules.exclusiveMinimum = bound } else { rules.exclusiveMaximum = bound }
        case "multipleOf":
            guard case .number(let step) = value, step > 0 else {
                report(here, "'multipleOf' must be a number greater than 0, found \(value.jsonText)")
                return true
            }
            rules.multipleOf = step
        case "minLength": rules.minLength = count(value, at: here)
        case "maxLength": rules.maxLength = count(value, at: here)
        case "pattern": rules.pattern = pattern(value, at: here)
        case "format": rules.format = format(value, at: here)
        default: return false
        }
        return true
    }

    private mutating func applicator(_ key: String, _ value: JSONValue, into rules: inout SchemaRules, at here: JSONPointer) -> Bool {
        switch key {
        case "anyOf": rules.anyOf = schemaList(value, at: here)
        case "oneOf": rules.oneOf = schemaList(value, at: here)
        case "allOf": rules.allOf = schemaList(value, at: here)
        case "not": rules.not = compile(value, at: here)
        case "if": rules.ifSchema = compile(value, at: here)
        case "then": rules.thenSchema = compile(value, at: here)
        case "else": rules.elseSchema = compile(value, at: here)
        case "$ref": rules.ref = reference(value, at: here)
        case "$dynamicRef": rules.dynamicRef = reference(value, at: here, dynamic: true)
        case "$defs", "definitions": _ = schemaMap(value, at: here)
        case "$id", "$anchor", "$dynamicAnchor": break
        case "$schema": checkNestedSchemaURI(value, at: here)
        case _ where JSONSchema.annotations.contains(key): break
        default: return false
        }
        return true
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

    mutating func report(_ pointer: JSONPointer, _ message: String, fix: String? = nil, isAboutKey: Bool = false) {
        problems.append(SchemaProblem(pointer: pointer, message: message, fix: fix, isAboutKey: isAboutKey))
    }
}
