import Foundation

/// A JSON Schema (a draft 2020-12 subset) that was checked when it was loaded, ready to
/// validate answers. Use it for the `jsonSchema` assertion and for structured-output schemas.
///
/// Supported: `type`, `properties`, `required`, `additionalProperties`, `minProperties`,
/// `maxProperties`, `enum`, `const`, `items`, `prefixItems`, `minItems`, `maxItems`,
/// `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
/// `minLength`, `maxLength` (in Unicode code points), `pattern`, `format` (see
/// `JSONSchemaFormat`), `anyOf`, `oneOf`, `allOf`, `not`, `$defs` and local `$ref`s
/// (recursion allowed). Any other keyword is refused rather than silently not enforced.
public struct JSONSchema: Sendable, Equatable, Codable {
    /// The schema as written.
    public let source: JSONValue
    let root: SchemaNode
    /// Every subschema by its location, so that a `$ref` finds its target.
    let subschemas: [JSONPointer: SchemaNode]

    /// The keywords that constrain instances.
    public static let keywords = [
        "type", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
        "enum", "const", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format", "anyOf", "oneOf", "allOf", "not", "$ref", "$defs",
    ]

    /// Keywords that only annotate, accepted and ignored.
    public static let annotations = [
        "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
        "readOnly", "writeOnly",
    ]

    /// Checks `source` and compiles it; throws every problem found, each at its location in
    /// the schema.
    public init(validating source: JSONValue) throws(JSONSchemaError) {
        var compiler = SchemaCompiler(source: source)
        let root = compiler.compile(source, at: JSONPointer(tokens: []))
        compiler.resolveReferences()
        guard compiler.problems.isEmpty else { throw JSONSchemaError(problems: compiler.problems) }
        self.source = source
        self.root = root
        self.subschemas = compiler.subschemas
    }

    /// Every way `instance` breaks the schema; empty when it is valid.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        var validator = SchemaValidator(subschemas: subschemas)
        return validator.validate(instance, against: root, at: JSONPointer(tokens: []))
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
public struct JSONSchemaError: Error, Sendable, Equatable {
    public var problems: [SchemaProblem]
}

/// One thing wrong with a schema: where in the schema, what, and how to fix it.
public struct SchemaProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where in the schema, as a JSON pointer: `/properties/age/minimum`.
    public var pointer: JSONPointer
    public var message: String
    public var fix: String?
    /// Whether the problem is the key at `pointer` itself (an unknown keyword) rather than its value.
    public var isAboutKey: Bool

    public init(pointer: JSONPointer, message: String, fix: String? = nil, isAboutKey: Bool = false) {
        self.pointer = pointer
        self.message = message
        self.fix = fix
        self.isAboutKey = isAboutKey
    }

    public var description: String { "\(pointer.readable): \(message)" }
}

/// One way an instance breaks a schema: where in the instance, which rule, and why.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Where in the instance, as a JSON pointer ("" is the whole instance).
    public var pointer: JSONPointer
    /// The keyword that failed: `required`, `minimum`, `type`.
    public var rule: String
    /// Where the keyword is in the schema.
    public var schemaPointer: JSONPointer
    /// Expected versus found, in words.
    public var message: String

    public var description: String { "at \(pointer.readable): \(rule): \(message)" }
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

/// An object schema's keywords, checked and typed.
struct SchemaRules: Sendable {
    var pointer: JSONPointer
    var types: [SchemaType]?
    var properties: [(name: String, schema: SchemaNode)] = []
    var required: [String] = []
    var additionalProperties: SchemaNode?
    var minProperties: Int?
    var maxProperties: Int?
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    var items: SchemaNode?
    var prefixItems: [SchemaNode] = []
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
    var pattern: String?
    var format: JSONSchemaFormat?
    var anyOf: [SchemaNode]?
    var oneOf: [SchemaNode]?
    var allOf: [SchemaNode]?
    var not: SchemaNode?
    /// The location a `$ref` points at, resolved against `subschemas`.
    var ref: JSONPointer?
}
