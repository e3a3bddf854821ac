import Foundation

/// A parsed JSON text (RFC 8259, UTF-8) in which every value and object key knows where it was
/// written, so that loaders can point at the exact line and column of a problem.
package struct JSONDocument: Sendable {
    /// The file name used in diagnostics.
    package let file: String
    package let root: JSONNode

    /// Objects and arrays nested deeper than this are refused rather than risking the stack.
    package static let maximumDepth = 512

    /// Parses `data`; throws a `Diagnostic` at the first syntax error, saying what was expected.
    package init(data: Data, file: String) throws(Diagnostic) {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(Diagnostic) -> JSONNode in
                var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), file: file)
                return try parser.parseDocument()
            }
        }
        self.file = file
        self.root = try result.get()
    }
}

/// One JSON value with its source location; objects keep their members in source order.
package struct JSONNode: Sendable, Equatable {
    package var content: Content
    /// Where the value starts: its first character.
    package var location: SourceLocation

    package init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    package enum Content: Sendable, Equatable {
        case null
        case bool(Bool)
        /// The value and its text as written, so integers keep full precision.
        case number(Double, literal: String)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// An object member: its key, where the key was written, and its value.
    package struct Member: Sendable, Equatable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: JSONNode

        package init(key: String, keyLocation: SourceLocation, value: JSONNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    /// The kind of value with an article, for messages: "a string", "an object".
    package var kindDescription: String {
        switch content {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array(let elements): elements.isEmpty ? "an empty array" : "an array"
        case .object: "an object"
        }
    }

    package var stringValue: String? {
        if case .string(let text) = content { text } else { nil }
    }

    package var boolValue: Bool? {
        if case .bool(let flag) = content { flag } else { nil }
    }

    package var doubleValue: Double? {
        if case .number(let value, _) = content { value } else { nil }
    }

    /// The number as an `Int` when it is a whole number that fits; `3.0` counts, `3.5` does not.
    package var intValue: Int? {
        guard case .number(let value, let literal) = content else { return nil }
        if let exact = Int(literal) { return exact }
        guard value.rounded() == value, let whole = Int(exactly: value) else { return nil }
        return whole
    }

    package var arrayValue: [JSONNode]? {
        if case .array(let elements) = content { elements } else { nil }
    }

    package var members: [Member]? {
        if case .object(let members) = content { members } else { nil }
    }

    /// The member named `key` of an object, or nil.
    package subscript(key: String) -> JSONNode? {
        members?.first { $0.key == key }?.value
    }
}

/// A plain JSON value without source locations, for raw JSON that other layers carry around.
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value of a parsed node, locations dropped.
    package init(_ node: JSONNode) {
        switch node.content {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let value, _): self = .number(value)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members):
            self = .object(Dictionary(members.map { ($0.key, JSONValue($0.value)) },
                                      uniquingKeysWith: { first, _ in first }))
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let value): try container.encode(value)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}
