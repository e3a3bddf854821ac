import Foundation

/// A structured-output schema as `DynamicGenerationSchema` builds it, converted by hand from
/// the JSON Schema subset evalbench supports (the framework has no JSON Schema initializer):
/// objects with `properties` and `required`, strings (with `enum`), integers, numbers,
/// booleans and arrays (`items`, `minItems`, `maxItems`), each with an optional `description`.
package indirect enum AppleSchema: Sendable, Equatable {
    case object(name: String, description: String?, properties: [Property])
    /// A string; with `choices`, one of them (`DynamicGenerationSchema(name:description:anyOf:)`).
    case string(description: String?, choices: [String]?)
    case integer(description: String?)
    case number(description: String?)
    case boolean(description: String?)
    case array(of: AppleSchema, minimumElements: Int?, maximumElements: Int?)

    /// `DynamicGenerationSchema.Property`.
    package struct Property: Sendable, Equatable {
        package var name: String
        package var description: String?
        package var schema: AppleSchema
        package var isOptional: Bool
    }

    /// A JSON Schema keyword or shape outside the subset, with where it is.
    package struct ConversionError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A JSON path inside the schema, from `$`.
        package var path: String
        package var message: String
        package var description: String { "output schema at \(path): \(message)" }
    }

    /// Converts `json`; `name` names the root object (the framework needs one).
    package init(jsonSchema json: JSONValue, name: String = "Output") throws(ConversionError) {
        self = try Self.convert(json, name: name, path: "$")
    }

    private static let keywordsByType: [String: Set<String>] = [
        "object": ["properties", "required", "additionalProperties"],
        "string": ["enum"],
        "integer": [], "number": [], "boolean": [],
        "array": ["items", "minItems", "maxItems"],
    ]

    private static func convert(_ json: JSONValue, name: String, path: String) throws(ConversionError) -> AppleSchema {
        guard case let .object(members) = json else {
            throw ConversionError(path: path, message: "a schema must be an object")
        }
        let description = try string(members["description"], path: path + ".description")
        let type: String
        if let declared = try string(members["type"], path: path + ".type") {
            type = declared
        } else if members["enum"] != nil {
            type = "string"
        } else {
            throw ConversionError(path: path, message: "\"type\" is missing; write one of object, string, integer, number, boolean, array")
        }
        guard let allowed = keywordsByType[type] else {
            throw ConversionError(path: path + ".type", message: "type \"\(type)\" is not in the supported subset (object, string, integer, number, boolean, array)")
        }
        let common: Set<String> = ["type", "description", "title", "$schema"]
        for key in members.keys.sorted() where !common.contains(key) && !allowed.contains(key) {
            throw ConversionError(path: path + "." + key, message: "\"\(key)\" is not supported on type \(type) here")
        }
        switch type {
        case "object":
            return try object(members, name: name, description: description, path: path)
        case "string":
            guard let choices = members["enum"] else { return .string(description: description, choices: nil) }
            guard case let .array(elements) = choices, !elements.isEmpty else {
                throw ConversionError(path: path + ".enum", message: "\"enum\" must be a non-empty array of strings")
            }
            var values: [String] = []
            for (index, element) in elements.enumerated() {
                guard case let .string(value) = element else {
                    throw ConversionError(path: path + ".enum[\(index)]", message: "only string enums are supported")
                }
                values.append(value)
            }
            return .string(description: description, choices: values)
        case "integer": return .integer(description: description)
        case "number": return .number(description: description)
        case "boolean": return .boolean(description: description)
        default:
            guard let items = members["items"] else {
                throw ConversionError(path: path, message: "an array needs \"items\"")
            }
            let element = try convert(items, name: name + "Item", path: path + ".items")
            return .array(of: element, minimumElements: try count(members["minItems"], path: path + ".minItems"),
                          maximumElements: try count(members["maxItems"], path: path + ".maxItems"))
        }
    }

    private static func object(_ members: [String: JSONValue], name: String, description: String?,
                               path: String) throws(ConversionError) -> AppleSchema {
        if let extra = members["additionalProperties"], extra != .bool(false) {
            throw ConversionError(path: path + ".additionalProperties", message: "only false is supported (the model writes exactly the listed properties)")
        }
        guard case let .object(properties)? = members["properties"] else {
            throw ConversionError(path: path, message: "an object needs \"properties\"")
        }
        var required: Set<String> = []
        if let list = members["required"] {
            guard case let .array(elements) = list else {
                throw ConversionError(path: path + ".required", message: "\"required\" must be an array of property names")
            }
            for (index, element) in elements.enumerated() {
                guard case let .string(property) = element, properties[property] != nil else {
                    throw ConversionError(path: path + ".required[\(index)]", message: "names no property of this object")
                }
                required.insert(property)
            }
        }
        var converted: [Property] = []
        for key in properties.keys.sorted() {
            let propertyPath = path + ".properties." + key
            let schema = try convert(properties[key]!, name: name + key.prefix(1).uppercased() + key.dropFirst(), path: propertyPath)
            var propertyDescription: String?
            if case let .object(inner)? = properties[key] {
                propertyDescription = try string(inner["description"], path: propertyPath + ".description")
            }
            converted.append(Property(name: key, description: propertyDescription, schema: schema,
                                      isOptional: !required.contains(key)))
        }
        return .object(name: name, description: description, properties: converted)
    }

    private static func string(_ value: JSONValue?, path: String) throws(ConversionError) -> String? {
        switch value {
        case nil: return nil
        case let .string(text)?: return text
        default: throw ConversionError(path: path, message: "must be a string")
        }
    }

    private static func count(_ value: JSONValue?, path: String) throws(ConversionError) -> Int? {
        switch value {
        case nil: return nil
        case let .number(number)? where number >= 0 && number.rounded() == number: return Int(number)
        default: throw ConversionError(path: path, message: "must be a whole number of at least 0")
        }
    }
}
