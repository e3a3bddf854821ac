import Foundation

/// A JSON Schema (draft 2020-12, or draft-07 when its `$schema` says so) that was checked
/// when it was loaded, ready to validate answers. Use it for the `jsonSchema` assertion and
/// for structured-output schemas.
///
/// Supported: every validation and applicator keyword of both drafts (`JSONSchema.keywords`),
/// `$ref` and `$dynamicRef` to JSON pointers, `$id`s, `$anchor`s and `$dynamicAnchor`s of the
/// same document (recursion allowed), and the formats of `JSONSchemaFormat`. Refused at load
/// rather than silently not enforced: any other keyword or format, a reference to another
/// document, and a `$schema` other than the two drafts.
public struct JSONSchema: Sendable, Equatable, Codable {
    /// The drafts a schema may be written in; a schema's own `$schema` picks one.
    package enum Draft: String, Sendable, CaseIterable {
        /// Draft-07: `definitions`, array `items` with `additionalItems`, `dependencies`, and a
        /// `$ref` that replaces its sibling keywords.
        case draft7 = "draft-07"
        /// Draft 2020-12, the default: `$defs`, `prefixItems`, `dependentRequired` and
        /// `dependentSchemas`, `unevaluated*`, `$anchor` and `$dynamicRef`.
        case draft2020_12 = "draft 2020-12"

        /// The draft a `$schema` URI names, with or without the trailing `#`.
        init?(schemaURI: String) {
            var uri = schemaURI
            if uri.hasSuffix("#") { uri.removeLast() }
            uri = uri.replacingOccurrences(of: "https://", with: "http://")
            switch uri {
            case "http://json-schema.org/draft-07/schema": self = .draft7
            case "http://json-schema.org/draft/2020-12/schema": self = .draft2020_12
            default: return nil
            }
        }
    }

    /// The schema as written.
    package let source: JSONValue
    /// The draft the schema was read as.
    package let draft: Draft
    let root: SchemaNode
    /// Every subschema by its location, so that a `$ref` finds its target.
    let subschemas: [JSONPointer: SchemaNode]
    /// For each schema holding a `$ref`, where the reference leads.
    let references: [JSONPointer: JSONPointer]
    /// For each schema holding a `$dynamicRef`, where it leads and the dynamic anchor it seeks.
    let dynamicReferences: [JSONPointer: DynamicReference]
    /// Each `$dynamicAnchor` by `resource#name`.
    let dynamicAnchors: [String: JSONPointer]

    /// The keywords that constrain instances, in either draft.
    package static let keywords = [
        "type", "properties", "patternProperties", "additionalProperties", "propertyNames", "required",
        "dependentRequired", "dependentSchemas", "dependencies", "minProperties", "maxProperties",
        "unevaluatedProperties", "enum", "const", "items", "prefixItems", "additionalItems", "contains",
        "minContains", "maxContains", "unevaluatedItems", "minItems", "maxItems", "uniqueItems",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
        "$ref", "$dynamicRef", "$defs", "definitions", "$id", "$anchor", "$dynamicAnchor",
    ]

    /// Keywords that only annotate, accepted and ignored.
    package static let annotations = [
        "$schema", "$comment", "title", "description", "default", "examples", "deprecated",
        "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "contentSchema",
    ]

    /// Checks `source` and compiles it as `draft`, unless its own `$schema` names a draft;
    /// throws every problem found, each at its location in the schema.
    package init(validating source: JSONValue, draft: Draft = .draft2020_12) throws(JSONSchemaError) {
        var compiler = SchemaCompiler(source: source, draft: draft)
        let root = compiler.compileDocument()
        guard compiler.problems.isEmpty else { throw JSONSchemaError(problems: compiler.problems) }
        self.source = source
        self.draft = compiler.draft
        self.root = root
        self.subschemas = compiler.subschemas
        self.references = compiler.resolvedReferences
        self.dynamicReferences = compiler.resolvedDynamicReferences
        self.dynamicAnchors = compiler.dynamicAnchors
    }

    /// Every way `instance` breaks the schema; empty when it is valid.
    package func validate(_ instance: JSONValue) -> [SchemaViolation] {
        var validator = SchemaValidator(schema: self)
        return validator.validate(instance, against: root, at: JSONPointer(tokens: [])).violations
    }

    public static func == (lhs: JSONSchema, rhs: JSONSchema) -> Bool {
        lhs.source == rhs.source
    }

    public init(from decoder: any Decoder) throws {
        let source = try JSONValue(from: decoder)
        do {
            try self.init(validating: source)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: error.problems.map(\.description).joined(separator: "; ")))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try source.encode(to: encoder)
    }
}

/// Every problem found in a schema.
package struct JSONSchemaError: Error, Sendable, Equatable {
    package var problems: [SchemaProblem]
}

/// One thing wrong with a schema: where in the schema, what, and how to fix it.
package struct SchemaProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where in the schema, as a JSON pointer: `/properties/age/minimum`.
    package var pointer: JSONPointer
    package var message: String
    package var fix: String?
    /// Whether the problem is the key at `pointer` itself (an unknown keyword) rather than its value.
    package var isAboutKey: Bool

    package init(pointer: JSONPointer, message: String, fix: String? = nil, isAboutKey: Bool = false) {
        self.pointer = pointer
        self.message = message
        self.fix = fix
        self.isAboutKey = isAboutKey
    }

    package var description: String { "\(pointer.readable): \(message)" }
}

/// One way an instance breaks a schema: where in the instance, which rule, and why.
package struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Where in the instance, as a JSON pointer ("" is the whole instance).
    package var pointer: JSONPointer
    /// The keyword that failed: `required`, `minimum`, `type`.
    package var rule: String
    /// Where the keyword is in the schema.
    package var schemaPointer: JSONPointer
    /// Expected versus found, in words.
    package var message: String

    package var description: String { "at \(pointer.readable): \(rule): \(message)" }
}

/// The JSON types a schema's `type` names.
enum SchemaType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, string, integer

    func matches(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.number, .number), (.string, .string):
            true
        case (.integer, .number(let number)):
            number.isFinite && number.rounded() == number
        default:
            false
        }
    }
}

/// A compiled schema: a boolean schema, or an object schema's rules.
indirect enum SchemaNode: Sendable {
    case always(Bool, at: JSONPointer)
    case rules(SchemaRules)
}

/// An object schema's keywords, checked and typed. Draft-07 spellings are read into the
/// draft 2020-12 fields they mean (`items` as an array is `prefixItems`, `dependencies`
/// splits into `dependentRequired` and `dependentSchemas`).
struct SchemaRules: Sendable {
    var pointer: JSONPointer
    var types: [SchemaType]?
    var properties: [(name: String, schema: SchemaNode)] = []
    var patternProperties: [(pattern: SchemaPattern, schema: SchemaNode)] = []
    var additionalProperties: SchemaNode?
    var propertyNames: SchemaNode?
    var required: [String] = []
    var dependentRequired: [(name: String, required: [String])] = []
    var dependentSchemas: [(name: String, schema: SchemaNode)] = []
    var minProperties: Int?
    var maxProperties: Int?
    var unevaluatedProperties: SchemaNode?
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    var items: SchemaNode?
    var prefixItems: [SchemaNode] = []
    var contains: SchemaNode?
    var minContains: Int?
    var maxContains: Int?
    var unevaluatedItems: SchemaNode?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var minimum: Double?
    var maximum: Double?
    var exclusiveMinimum: Double?
    var exclusiveMaximum: Double?
    var multipleOf: Double?
    var minLength: Int?
    var maxLength: Int?
    var pattern: SchemaPattern?
    var format: JSONSchemaFormat?
    var anyOf: [SchemaNode]?
    var oneOf: [SchemaNode]?
    var allOf: [SchemaNode]?
    var not: SchemaNode?
    var ifSchema: SchemaNode?
    var thenSchema: SchemaNode?
    var elseSchema: SchemaNode?
    /// The `$ref` as written, for messages; `JSONSchema.references` says where it leads.
    var ref: String?
    /// The `$dynamicRef` as written; `JSONSchema.dynamicReferences` says where it leads.
    var dynamicRef: String?
    /// The URI of the schema resource this schema belongs to, for the dynamic scope.
    var resource = ""
}

/// Where a `$dynamicRef` leads: its target as a `$ref` would resolve it and, when that target
/// declares the `$dynamicAnchor` the reference names, that name, which the outermost schema
/// resource of the dynamic scope that declares it too then answers instead.
struct DynamicReference: Sendable {
    var target: JSONPointer
    var anchor: String?
}
