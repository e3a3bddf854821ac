import Foundation
import Testing
@testable import EvalBench

private func value(_ text: String) -> JSONValue {
    // Test tables are written by hand; a typo in one should fail loudly here.
    JSONValue(try! JSONDocument(data: Data(text.utf8), file: "test").root)
}

/// One schema and instance, and the first violation expected: nil when the instance is valid.
struct SchemaCase: Sendable, CustomTestStringConvertible {
    var schema: String
    var instance: String
    var pointer: String?
    var rule: String?

    init(_ schema: String, _ instance: String, fails rule: String? = nil, at pointer: String? = nil) {
        self.schema = schema
        self.instance = instance
        self.rule = rule
        self.pointer = rule == nil ? nil : (pointer ?? "")
    }

    var testDescription: String { "\(schema) ← \(instance)" + (rule.map { " fails \($0)" } ?? " is valid") }
}

private let validationTable: [SchemaCase] = [
    // type
    SchemaCase(##"{"type": "string"}"##, ##""x""##),
    SchemaCase(##"{"type": "string"}"##, "1", fails: "type"),
    SchemaCase(##"{"type": "integer"}"##, "3.0"),
    SchemaCase(##"{"type": "integer"}"##, "3.5", fails: "type"),
    SchemaCase(##"{"type": "number"}"##, "3"),
    SchemaCase(##"{"type": ["string", "null"]}"##, "null"),
    SchemaCase(##"{"type": ["string", "null"]}"##, "false", fails: "type"),
    SchemaCase(##"{"type": "array"}"##, "{}", fails: "type"),
    SchemaCase(##"{"type": "object"}"##, "[]", fails: "type"),
    SchemaCase(##"{"type": "boolean"}"##, "true"),
    // properties, required, additionalProperties, min/maxProperties
    SchemaCase(##"{"properties": {"a": {"type": "string"}}}"##, ##"{"a": 1}"##, fails: "type", at: "/a"),
    SchemaCase(##"{"properties": {"a": {"type": "string"}}}"##, ##"{"b": 1}"##),
    SchemaCase(##"{"required": ["a"]}"##, ##"{"a": null}"##),
    SchemaCase(##"{"required": ["a"]}"##, ##"{"b": 1}"##, fails: "required"),
    SchemaCase(##"{"properties": {"a": {}}, "additionalProperties": false}"##, ##"{"a": 1}"##),
    SchemaCase(##"{"properties": {"a": {}}, "additionalProperties": false}"##, ##"{"a": 1, "b/c": 2}"##, fails: "additionalProperties", at: "/b~1c"),
    SchemaCase(##"{"additionalProperties": {"type": "integer"}}"##, ##"{"n": 2.5}"##, fails: "type", at: "/n"),
    SchemaCase(##"{"minProperties": 2}"##, ##"{"a": 1}"##, fails: "minProperties"),
    SchemaCase(##"{"maxProperties": 1}"##, ##"{"a": 1, "b": 2}"##, fails: "maxProperties"),
    // enum, const
    SchemaCase(##"{"enum": ["cat", "dog", 1]}"##, "1.0"),
    SchemaCase(##"{"enum": ["cat", "dog"]}"##, ##""cow""##, fails: "enum"),
    SchemaCase(##"{"const": {"a": [1, 2]}}"##, ##"{"a": [1, 2]}"##),
    SchemaCase(##"{"const": null}"##, "0", fails: "const"),
    // items, prefixItems, minItems, maxItems, uniqueItems
    SchemaCase(##"{"items": {"type": "integer"}}"##, "[1, 2, 3]"),
    SchemaCase(##"{"items": {"type": "integer"}}"##, ##"[1, "2"]"##, fails: "type", at: "/1"),
    SchemaCase(##"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"##, ##"["a", 1, true]"##),
    SchemaCase(##"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"##, ##"["a", "b"]"##, fails: "type", at: "/1"),
    SchemaCase(##"{"prefixItems": [{"type": "string"}], "items": false}"##, ##"["a", 1]"##, fails: "items", at: "/1"),
    SchemaCase(##"{"minItems": 2}"##, "[1]", fails: "minItems"),
    SchemaCase(##"{"maxItems": 2}"##, "[1, 2]"),
    SchemaCase(##"{"maxItems": 2}"##, "[1, 2, 3]", fails: "maxItems"),
    SchemaCase(##"{"uniqueItems": true}"##, ##"[1, {"a": 1}, {"a": 1}]"##, fails: "uniqueItems", at: "/2"),
    // numeric bounds, multipleOf
    SchemaCase(##"{"minimum": 0}"##, "0"),
    SchemaCase(##"{"minimum": 0}"##, "-0.5", fails: "minimum"),
    SchemaCase(##"{"maximum": 10}"##, "10.5", fails: "maximum"),
    SchemaCase(##"{"exclusiveMinimum": 0}"##, "0", fails: "exclusiveMinimum"),
    SchemaCase(##"{"exclusiveMinimum": 0}"##, "0.001"),
    SchemaCase(##"{"exclusiveMaximum": 1}"##, "1", fails: "exclusiveMaximum"),
    SchemaCase(##"{"multipleOf": 0.01}"##, "19.99"),
    SchemaCase(##"{"multipleOf": 3}"##, "10", fails: "multipleOf"),
    SchemaCase(##"{"minimum": 5}"##, ##""3""##),
    // strings
    SchemaCase(##"{"minLength": 2}"##, ##""é""##, fails: "minLength"),
    SchemaCase(##"{"maxLength": 1}"##, ##""é""##),
    SchemaCase(##"{"maxLength": 1}"##, ##""e\u0301""##, fails: "maxLength"),
    SchemaCase(##"{"maxLength": 2}"##, ##""😀😀""##),
    SchemaCase(##"{"pattern": "^[A-Z]{3}$"}"##, ##""EUR""##),
    SchemaCase(##"{"pattern": "^[A-Z]{3}$"}"##, ##""euro""##, fails: "pattern"),
    SchemaCase(##"{"pattern": "b"}"##, ##""abc""##),
    // formats
    SchemaCase(##"{"format": "date"}"##, ##""2024-02-29""##),
    SchemaCase(##"{"format": "date"}"##, ##""2023-02-29""##, fails: "format"),
    SchemaCase(##"{"format": "date"}"##, ##""2024-2-1""##, fails: "format"),
    SchemaCase(##"{"format": "date-time"}"##, ##""2017-01-01T05:29:60.25+05:30""##),
    SchemaCase(##"{"format": "date-time"}"##, ##""2026-01-31T24:00:00Z""##, fails: "format"),
    SchemaCase(##"{"format": "date-time"}"##, ##""2026-01-31""##, fails: "format"),
    SchemaCase(##"{"format": "email"}"##, ##""ada.lovelace+x@example.co.uk""##),
    SchemaCase(##"{"format": "email"}"##, ##""ada@""##, fails: "format"),
    SchemaCase(##"{"format": "uri"}"##, ##""https://example.com/a?b=c#d""##),
    SchemaCase(##"{"format": "uri"}"##, ##""example.com/a b""##, fails: "format"),
    SchemaCase(##"{"format": "uuid"}"##, ##""123e4567-e89b-12d3-a456-426614174000""##),
    // combinators
    SchemaCase(##"{"anyOf": [{"type": "string"}, {"minimum": 2}]}"##, "3"),
    SchemaCase(##"{"anyOf": [{"type": "string"}, {"type": "boolean"}]}"##, "3", fails: "anyOf"),
    SchemaCase(##"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"##, "1"),
    SchemaCase(##"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"##, "3", fails: "oneOf"),
    SchemaCase(##"{"oneOf": [{"type": "string"}, {"type": "null"}]}"##, "3", fails: "oneOf"),
    SchemaCase(##"{"allOf": [{"type": "integer"}, {"minimum": 2}]}"##, "1", fails: "minimum"),
    SchemaCase(##"{"not": {"type": "null"}}"##, "0"),
    SchemaCase(##"{"not": {"type": "null"}}"##, "null", fails: "not"),
    // $ref and $defs, with recursion
    SchemaCase(##"{"$defs": {"age": {"type": "integer", "minimum": 0}}, "properties": {"age": {"$ref": "#/$defs/age"}}}"##,
               ##"{"age": -1}"##, fails: "minimum", at: "/age"),
    SchemaCase(##"{"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name"]}}, "$ref": "#/$defs/node"}"##,
               ##"{"name": "root", "children": [{"name": "a", "children": [{"children": []}]}]}"##, fails: "required", at: "/children/0/children/0"),
    SchemaCase(##"{"type": "array", "items": {"$ref": "#"}}"##, "[[[]], []]"),
    SchemaCase(##"{"$defs": {"loop": {"$ref": "#/$defs/loop"}}, "$ref": "#/$defs/loop"}"##, "1", fails: "$ref"),
    // boolean schemas
    SchemaCase("true", ##"{"anything": 1}"##),
    SchemaCase("false", "1", fails: "false"),
    // strings and keys compare by code points: "ä" (U+00E4) is not "a\u0308"
    SchemaCase(##"{"const": "ä"}"##, ##""a\u0308""##, fails: "const"),
    SchemaCase(##"{"enum": ["ä"]}"##, ##""a\u0308""##, fails: "enum"),
    SchemaCase(##"{"required": ["ä"]}"##, ##"{"a\u0308": 1}"##, fails: "required"),
    SchemaCase(##"{"uniqueItems": true}"##, ##"["ä", "a\u0308"]"##),
    SchemaCase(##"{"properties": {"ä": {"type": "integer"}}, "additionalProperties": false}"##, ##"{"a\u0308": 1}"##,
               fails: "additionalProperties", at: "/a\u{308}"),
    SchemaCase(##"{"enum": []}"##, "1", fails: "enum"),
    // `$` does not match before a final newline, in patterns and formats
    SchemaCase(##"{"pattern": "^abc$"}"##, ##""abc\n""##, fails: "pattern"),
    SchemaCase(##"{"pattern": "^[$]$"}"##, ##""$""##),
    // \d and \w are ASCII only, as in ECMA-262
    SchemaCase(##"{"pattern": "^\\d+$"}"##, ##""\u0663""##, fails: "pattern"),
    SchemaCase(##"{"pattern": "^[\\w-]+$"}"##, ##""é""##, fails: "pattern"),
    SchemaCase(##"{"pattern": "^[^\\D]\\s\\S$"}"##, ##""7\u000bx""##),
    SchemaCase(##"{"format": "date"}"##, ##""2024-02-29\n""##, fails: "format"),
    // formats: uri per RFC 3986, emails with quoted local parts and IP literals, leap seconds
    SchemaCase(##"{"format": "uri"}"##, ##""urn:isbn:0451450523""##),
    SchemaCase(##"{"format": "uri"}"##, ##""http://[2001:db8::1]:8080/a%20b?q=1#f""##),
    SchemaCase(##"{"format": "uri"}"##, ##""//example.com/a""##, fails: "format"),
    SchemaCase(##"{"format": "uri"}"##, ##""http://example.com/%zz""##, fails: "format"),
    SchemaCase(##"{"format": "uri"}"##, ##""http://exa<mple.com/""##, fails: "format"),
    SchemaCase(##"{"format": "uri-reference"}"##, ##""../a/b?c""##),
    SchemaCase(##"{"format": "email"}"##, ##""\"joe bloggs\"@example.com""##),
    SchemaCase(##"{"format": "email"}"##, ##""joe@[127.0.0.1]""##),
    SchemaCase(##"{"format": "email"}"##, ##""joe@[IPv6:::1]""##),
    SchemaCase(##"{"format": "email"}"##, ##""joe..bloggs@example.com""##, fails: "format"),
    SchemaCase(##"{"format": "date-time"}"##, ##""1998-12-31T23:59:60Z""##),
    SchemaCase(##"{"format": "date-time"}"##, ##""1998-12-31T15:59:60-08:00""##),
    SchemaCase(##"{"format": "date-time"}"##, ##""1998-12-31T22:59:60Z""##, fails: "format"),
    SchemaCase(##"{"format": "time"}"##, ##""23:59:60+01:00""##, fails: "format"),
    SchemaCase(##"{"format": "ipv4"}"##, ##""192.168.01.1""##, fails: "format"),
    SchemaCase(##"{"format": "ipv6"}"##, ##""::ffff:192.0.2.1""##),
    SchemaCase(##"{"format": "duration"}"##, ##""P1DT2H""##),
    // object applicators
    SchemaCase(##"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"##, ##"{"x-a": "1"}"##),
    SchemaCase(##"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"##, ##"{"x-a": 1}"##,
               fails: "type", at: "/x-a"),
    SchemaCase(##"{"propertyNames": {"maxLength": 3}}"##, ##"{"long": 1}"##, fails: "propertyNames", at: "/long"),
    SchemaCase(##"{"dependentRequired": {"card": ["billing"]}}"##, ##"{"card": 1}"##, fails: "dependentRequired"),
    SchemaCase(##"{"dependentSchemas": {"card": {"required": ["billing"]}}}"##, ##"{"card": 1}"##, fails: "required"),
    SchemaCase(##"{"properties": {"a": true}, "allOf": [{"properties": {"b": true}}], "unevaluatedProperties": false}"##, ##"{"a": 1, "b": 2}"##),
    SchemaCase(##"{"properties": {"a": true}, "anyOf": [{"properties": {"b": true}, "required": ["c"]}], "unevaluatedProperties": false}"##,
               ##"{"a": 1, "b": 2}"##, fails: "anyOf"),
    SchemaCase(##"{"properties": {"a": true}, "not": {"properties": {"b": true}, "required": ["x"]}, "unevaluatedProperties": false}"##,
               ##"{"a": 1, "b": 2}"##, fails: "unevaluatedProperties", at: "/b"),
    SchemaCase(##"{"if": {"properties": {"kind": {"const": "dog"}}}, "then": {"required": ["bark"]}, "else": {"required": ["meow"]}}"##,
               ##"{"kind": "cat"}"##, fails: "required"),
    // array applicators
    SchemaCase(##"{"contains": {"type": "string"}, "minContains": 2, "maxContains": 3}"##, ##"[1, "a", "b"]"##),
    SchemaCase(##"{"contains": {"type": "string"}, "minContains": 2}"##, ##"[1, "a"]"##, fails: "minContains"),
    SchemaCase(##"{"contains": {"type": "string"}}"##, "[1]", fails: "contains"),
    SchemaCase(##"{"prefixItems": [true], "contains": {"type": "string"}, "unevaluatedItems": false}"##, ##"[1, "a"]"##),
    SchemaCase(##"{"prefixItems": [true], "unevaluatedItems": false}"##, "[1, 2]", fails: "unevaluatedItems", at: "/1"),
    // references by $anchor and $id, and draft-07
    SchemaCase(##"{"$defs": {"n": {"$anchor": "count", "type": "integer"}}, "items": {"$ref": "#count"}}"##, "[1, 2.5]", fails: "type", at: "/1"),
    SchemaCase(##"{"$id": "https://example.com/root.json", "$defs": {"n": {"$id": "n.json", "type": "integer"}}, "$ref": "n.json"}"##, "true", fails: "type"),
    SchemaCase(##"{"$id": "https://example.com/root.json", "$defs": {"a": {"$id": "a/", "$defs": {"b": {"type": "null"}}, "$ref": "#/$defs/b"}}, "$ref": "a/"}"##, "0", fails: "type"),
    SchemaCase(##"{"$id": "https://example.com/strict-tree", "$dynamicAnchor": "node", "$ref": "tree", "unevaluatedProperties": false, "$defs": {"tree": {"$id": "tree", "$dynamicAnchor": "node", "type": "object", "properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}}}"##,
               ##"{"children": [{"daat": 1}]}"##, fails: "unevaluatedProperties", at: "/children/0/daat"),
    SchemaCase(##"{"$id": "https://example.com/tree", "$dynamicAnchor": "node", "type": "object", "properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}"##,
               ##"{"children": [{"daat": 1}]}"##),
    SchemaCase(##"{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}"##, ##"["a", 1]"##,
               fails: "items", at: "/1"),
    SchemaCase(##"{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}"##, ##"{"c": 1}"##,
               fails: "required"),
    SchemaCase(##"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "type": "integer"}"##,
               ##""a""##),
]

/// One invalid schema and its first problem: where in the schema and a part of the message.
struct SchemaProblemCase: Sendable, CustomTestStringConvertible {
    var schema: String
    var pointer: String
    var message: String
    var testDescription: String { schema }
}

private let problemTable: [SchemaProblemCase] = [
    .init(schema: ##"{"type": "int"}"##, pointer: "/type", message: "unknown type name 'int'; did you mean 'integer'?"),
    .init(schema: ##"{"type": "strng"}"##, pointer: "/type", message: "did you mean 'string'?"),
    .init(schema: ##""string""##, pointer: "", message: "a schema must be an object or a boolean, found a string"),
    .init(schema: ##"{"properties": {"a": 3}}"##, pointer: "/properties/a", message: "a schema must be an object or a boolean"),
    .init(schema: ##"{"$ref": "#/$defs/missing", "$defs": {"other": {}}}"##, pointer: "/$ref", message: ##"'$ref' "#/$defs/missing" does not resolve"##),
    .init(schema: ##"{"$ref": "other.json#/x"}"##, pointer: "/$ref", message: ##"'$ref' "other.json#/x" points into another document"##),
    .init(schema: ##"{"$id": "https://example.com/a.json", "$ref": "b.json"}"##, pointer: "/$ref",
          message: "points into another document (https://example.com/b.json)"),
    .init(schema: ##"{"$ref": "#thing", "$defs": {"a": {"$anchor": "other"}}}"##, pointer: "/$ref", message: "names the anchor 'thing', which no '$anchor' defines"),
    .init(schema: ##"{"$anchor": "1st"}"##, pointer: "/$anchor", message: "'$anchor' must be a name"),
    .init(schema: ##"{"$id": "https://example.com/a.json#part"}"##, pointer: "/$id", message: "has a fragment"),
    .init(schema: ##"{"$schema": "http://json-schema.org/draft-04/schema#"}"##, pointer: "/$schema", message: "names no draft evalbench reads"),
    .init(schema: ##"{"$schema": "http://json-schema.org/draft-07/schema#", "$dynamicRef": "#node"}"##, pointer: "/$dynamicRef",
          message: "'$dynamicRef' is a draft 2020-12 keyword, and this schema is read as draft-07"),
    .init(schema: ##"{"additionalItems": false}"##, pointer: "/additionalItems", message: "'additionalItems' is a draft-07 keyword, and this schema is read as draft 2020-12"),
    .init(schema: ##"{"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": []}"##, pointer: "/prefixItems",
          message: "'prefixItems' is a draft 2020-12 keyword, and this schema is read as draft-07"),
    .init(schema: ##"{"patternProperties": {"(": {}}}"##, pointer: "/patternProperties/(", message: "the pattern '(' is not a valid regular expression"),
    .init(schema: ##"{"pattern": "(abc"}"##, pointer: "/pattern", message: "the pattern '(abc' is not a valid regular expression"),
    .init(schema: ##"{"minLength": 5, "maxLength": 2}"##, pointer: "/minLength", message: "'minLength' (5) is greater than 'maxLength' (2)"),
    .init(schema: ##"{"minimum": 5, "maximum": 2.5}"##, pointer: "/minimum", message: "'minimum' (5) is greater than 'maximum' (2.5)"),
    .init(schema: ##"{"minItems": 3, "maxItems": 1}"##, pointer: "/minItems", message: "greater than 'maxItems'"),
    .init(schema: ##"{"exclusiveMinimum": true}"##, pointer: "/exclusiveMinimum", message: "must be a number in draft-07 and draft 2020-12"),
    .init(schema: ##"{"items": [{"type": "string"}]}"##, pointer: "/items", message: "'prefixItems' in draft 2020-12"),
    .init(schema: ##"{"multipleOf": 0}"##, pointer: "/multipleOf", message: "greater than 0"),
    .init(schema: ##"{"minLength": -1}"##, pointer: "/minLength", message: "a whole number of at least 0"),
    .init(schema: ##"{"format": "datetime"}"##, pointer: "/format", message: "unsupported format 'datetime'; did you mean 'date-time'?"),
    .init(schema: ##"{"requird": ["a"]}"##, pointer: "/requird", message: "unsupported schema keyword 'requird'; did you mean 'required'?"),
    .init(schema: ##"{"required": "a"}"##, pointer: "/required", message: "must be an array of property names"),
    .init(schema: ##"{"enum": {}}"##, pointer: "/enum", message: "'enum' must be an array of values"),
    .init(schema: ##"{"anyOf": {}}"##, pointer: "/anyOf", message: "must be a non-empty array of schemas"),
    .init(schema: ##"{"properties": {"a": {}}, "required": ["b"], "additionalProperties": false}"##, pointer: "/required",
          message: "required property 'b' is not in 'properties'"),
]

@Suite("JSON Schema")
struct JSONSchemaTests {
    @Test("Each keyword accepts and rejects as draft 2020-12 says, naming the failing pointer and rule", arguments: validationTable)
    func validation(_ example: SchemaCase) throws {
        let schema = try JSONSchema(validating: value(example.schema))
        let violations = schema.validate(value(example.instance))
        if let rule = example.rule {
            let first = try #require(violations.first, "expected a '\(rule)' violation")
            #expect(first.rule == rule)
            #expect(first.pointer.description == example.pointer)
            #expect(!first.message.isEmpty)
        } else {
            #expect(violations.isEmpty, "\(violations)")
        }
    }

    @Test("An invalid schema is refused with the problem's location in the schema", arguments: problemTable)
    func problems(_ example: SchemaProblemCase) throws {
        do {
            _ = try JSONSchema(validating: value(example.schema))
            Issue.record("the schema was accepted")
        } catch {
            let first = try #require(error.problems.first)
            #expect(first.pointer.description == example.pointer)
            #expect(first.message.contains(example.message), "\(first.message)")
        }
    }

    @Test("Object keys that differ only in code points are two keys, not a duplicate")
    func codePointKeys() throws {
        let document = try JSONDocument(data: Data(##"{"ä": 1, "a\u0308": 2}"##.utf8), file: "k.json")
        #expect(document.root.members?.count == 2)
        #expect(throws: Diagnostic.self) { try JSONDocument(data: Data(##"{"ä": 1, "ä": 2}"##.utf8), file: "k.json") }
    }

    @Test("A remote reference is refused at load at its line and column, with the JSON path and a fix")
    func remoteReferenceAtLoad() throws {
        let text = "{\"format\": \"evalbench.suite/1\", \"cases\": [{\"id\": \"a\", \"prompt\": \"p\", \"expect\": [\n"
            + ##"{"type": "jsonSchema", "schema": {"properties": {"a": {"$ref": "https://example.com/a.json"}}}}]}]}"##
        do {
            _ = try SuiteLoader.load(data: Data(text.utf8), file: "g.json")
            Issue.record("the suite loaded")
        } catch {
            let found = try #require(error.diagnostics.first)
            #expect(found.message.hasPrefix("invalid schema: '$ref' \"https://example.com/a.json\" points into another document"))
            #expect(found.location == SourceLocation(line: 2, column: 64), "the '$ref' value")
            #expect(found.path == "$.cases[0].expect[0].schema.properties.a[\"$ref\"]")
            #expect(found.fix?.contains("$defs") == true)
        }
    }

    @Test("The schema's own $schema picks the draft; without one the caller's draft applies")
    func draftSelection() throws {
        let draft7 = try JSONSchema(validating: value(##"{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}"##))
        #expect(draft7.draft == .draft7)
        #expect(draft7.validate(value("[1]")).first?.rule == "type")
        let chosen = try JSONSchema(validating: value(##"{"items": [{"type": "string"}]}"##), draft: .draft7)
        #expect(chosen.draft == .draft7)
        #expect(throws: JSONSchemaError.self) { try JSONSchema(validating: value(##"{"items": [{"type": "string"}]}"##)) }
        let source = value(##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [true]}"##)
        #expect(try JSONSchema(validating: source, draft: .draft7).source == source, "the schema is kept as written")
    }

    @Test("Every problem of a schema is reported, not only the first")
    func everyProblem() {
        #expect(throws: JSONSchemaError.self) { try JSONSchema(validating: value(##"{"type": "int", "minimum": "0", "nope": 1}"##)) }
        do {
            _ = try JSONSchema(validating: value(##"{"type": "int", "minimum": "0", "nope": 1}"##))
        } catch {
            #expect(error.problems.map(\.pointer.description) == ["/minimum", "/nope", "/type"])
        }
    }

    @Test("Violation messages say what was expected and what was found")
    func messages() throws {
        let schema = try JSONSchema(validating: value(##"{"type": "object", "required": ["label"], "properties": {"score": {"type": "integer"}}}"##))
        let violations = schema.validate(value(##"{"score": 0.5}"##))
        #expect(violations.map(\.description) == [
            "at the root: required: missing required property 'label'",
            "at /score: type: expected integer, found a number 0.5",
        ])
        #expect(violations[1].schemaPointer.description == "/properties/score/type")
    }

    @Test("A schema survives a Codable round trip and compares by its source")
    func codable() throws {
        let schema = try JSONSchema(validating: value(##"{"type": "array", "items": {"$ref": "#"}}"##))
        let decoded = try JSONDecoder().decode(JSONSchema.self, from: JSONEncoder().encode(schema))
        #expect(decoded == schema)
        #expect(decoded.validate(value(##"[[], [1]]"##)).first?.pointer.description == "/1/0")
    }
}

@Suite("JSONPath and JSON pointers")
struct JSONPathPointerTests {
    private let document = value(##"{"store": {"books": [{"title": "A", "tags": ["x"]}, {"title": "B"}], "first name": "Ada"}}"##)

    @Test("JSONPath selects by name, quoted name, index, negative index and wildcard, with pointers",
          arguments: [
              ("$", [""]),
              ("$.store.books[0].title", ["/store/books/0/title"]),
              ("$['store'][\"first name\"]", ["/store/first name"]),
              ("$.store.books[-1]", ["/store/books/1"]),
              ("$.store.books[*].title", ["/store/books/0/title", "/store/books/1/title"]),
              ("$.store.*", ["/store/books", "/store/first name"]),
              ("$.store.books[5]", []),
          ])
    func select(_ path: String, _ pointers: [String]) throws {
        let query = try JSONPathQuery(parsing: path)
        #expect(query.select(in: document).map(\.pointer.description) == pointers)
    }

    @Test("A JSONPath that cannot parse says why and where",
          arguments: [
              ("store.books", "a JSONPath starts with '$'", 1),
              ("$..title", "recursive descent '..' is not supported", 3),
              ("$.books[0", "expected ']'", 10),
              ("$.books[?(@.x)]", "filter expressions '[?...]' are not supported", 9),
              ("$.books[0:2]", "slices and unions are not supported", 10),
              ("$.books['x]", "the quoted name is not closed", 12),
              ("$.1st", "'1' cannot start a member name after '.'", 3),
              ("$ books", "expected '.' or '[' but found ' '", 2),
          ])
    func pathSyntax(_ path: String, _ message: String, _ offset: Int) {
        #expect(throws: JSONPathSyntaxError.self) { try JSONPathQuery(parsing: path) }
        do {
            _ = try JSONPathQuery(parsing: path)
        } catch {
            #expect(error.message == message)
            #expect(error.offset == offset)
        }
    }

    @Test("JSON pointers unescape ~1 and ~0, and refuse other escapes and a missing slash")
    func pointerSyntax() throws {
        #expect(try JSONPointer(parsing: "/a~1b/~0").tokens == ["a/b", "~"])
        #expect(try JSONPointer(parsing: "").tokens == [])
        #expect(try JSONPointer(parsing: "/").tokens == [""])
        #expect(throws: JSONPointerSyntaxError.self) { try JSONPointer(parsing: "/a~2") }
        do {
            _ = try JSONPointer(parsing: "$.a.b")
        } catch {
            #expect(error.fix.contains("\"/a/b\""))
        }
        let pointer = try JSONPointer(parsing: "/store/books/01")
        #expect(pointer.resolve(in: document) == .missing(at: JSONPointer(tokens: ["store", "books"]),
                                                          reason: "/store/books is an array, and '01' is not an index"))
    }
}
