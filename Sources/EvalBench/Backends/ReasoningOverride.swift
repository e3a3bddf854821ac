import Foundation

/// A backend's own way of sending one reasoning level (config `reasoning.<level>`), replacing
/// the kind's default mapping from DESIGN.md's table for that level.
public struct ReasoningOverride: Sendable, Codable, Equatable {
    /// The effort value: OpenAI-compatible `reasoning_effort`, Anthropic `output_config.effort`,
    /// Gemini `thinkingLevel`.
    public var effort: String?
    /// A thinking budget in tokens: Anthropic `thinking.budget_tokens`, Gemini `thinkingBudget`.
    /// OpenAI-compatible servers name it differently; send it there through `extraBody`.
    public var thinkingBudget: Int?
    /// Fields merged into the request body at this level (objects merge, other values replace).
    public var extraBody: [String: JSONValue]?
    /// Set when this backend cannot honour the level: its results are `skipped` with this reason.
    public var unsupported: String?

    /// An override; every field nil keeps the kind's default mapping for the level.
    public init(effort: String? = nil, thinkingBudget: Int? = nil, extraBody: [String: JSONValue]? = nil,
                unsupported: String? = nil) {
        self.effort = effort
        self.thinkingBudget = thinkingBudget
        self.extraBody = extraBody
        self.unsupported = unsupported
    }
}

extension BackendConfig {
    /// The configured override for `level`, if any.
    public func reasoningOverride(_ level: ReasoningLevel) -> ReasoningOverride? {
        reasoning?[level.rawValue]
    }
}

/// Building JSON request bodies as Foundation objects for `JSONSerialization`.
enum RequestBody {
    /// Merges `extra` into `body`: an object merges into an object key by key, anything else
    /// replaces what was there, and `null` removes the key.
    static func merge(_ extra: [String: JSONValue], into body: inout [String: Any]) {
        for (key, value) in extra {
            switch value {
            case .null:
                body.removeValue(forKey: key)
            case .object(let members):
                var inner = body[key] as? [String: Any] ?? [:]
                merge(members, into: &inner)
                body[key] = inner
            default:
                body[key] = value.foundationObject
            }
        }
    }

    /// A compact, key-sorted JSON text of `value`, for the mapping reports print.
    static func describe(_ value: [String: JSONValue]) -> String {
        let object = JSONValue.object(value).foundationObject
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{…}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension JSONValue {
    /// The value as `JSONSerialization` takes it; whole numbers become integers so that a
    /// budget of 1024 is sent as `1024`, not `1024.0`.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 { Int(value) } else { value }
        case .string(let text): text
        case .array(let elements): elements.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }
}
