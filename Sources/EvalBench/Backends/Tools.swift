import Foundation

/// A tool the model may call, as a request carries it: each backend sends it in its provider's
/// form (OpenAI `tools[].function`, Anthropic `tools[]` with `input_schema`, Gemini
/// `functionDeclarations`).
public struct ToolDefinition: Sendable, Codable, Equatable, Hashable {
    /// The tool's name, as the model calls it.
    public var name: String
    /// What the tool does, for the model.
    public var description: String
    /// The JSON Schema of the tool's arguments as compact JSON text, keys in the order written.
    public var parametersText: String

    /// A tool named `name`; `parametersText` defaults to an object schema with no properties.
    public init(name: String, description: String, parametersText: String = #"{"type":"object","properties":{}}"#) {
        self.name = name
        self.description = description
        self.parametersText = parametersText
    }
}

/// Whether and which tool the model must call (a suite's `options.toolChoice`).
public enum ToolChoice: Sendable, Codable, Equatable, Hashable {
    /// The model decides (every provider's default).
    case auto
    /// The model must call some tool.
    case required
    /// The model may not call a tool.
    case none
    /// The model must call the tool of this name.
    case tool(String)

    /// `auto`, `required`, `none`, or the tool's name, as a suite writes it.
    public var text: String {
        switch self {
        case .auto: "auto"
        case .required: "required"
        case .none: "none"
        case let .tool(name): name
        }
    }

    /// The choice a suite's `toolChoice` string means: a keyword, else a tool name.
    public init(text: String) {
        switch text {
        case "auto": self = .auto
        case "required": self = .required
        case "none": self = .none
        default: self = .tool(text)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(text: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// One tool call a model made, as it streamed it.
public struct ToolCall: Sendable, Codable, Equatable, Hashable {
    /// The provider's id for the call (OpenAI `call_…`, Anthropic `toolu_…`); evalbench makes
    /// one up for providers that send none (Gemini), so a result can always name its call.
    public var id: String
    /// The tool the model called.
    public var name: String
    /// The arguments exactly as the model produced them; not necessarily valid JSON.
    public var argumentsText: String
    /// Opaque data the provider requires back with the call: Gemini's `thoughtSignature`;
    /// on an Anthropic turn's first call, the thinking blocks (as JSON) that preceded the calls.
    public var signature: String?

    /// A call of `name` with `argumentsText`.
    public init(id: String, name: String, argumentsText: String, signature: String? = nil) {
        self.id = id
        self.name = name
        self.argumentsText = argumentsText
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case id, name, signature
        case argumentsText = "arguments_text"
    }

    /// The arguments as JSON, or nil when the text does not parse. Empty text is `{}`, as
    /// OpenAI-compatible servers send a call with no arguments.
    public var arguments: JSONValue? {
        ToolArguments.parse(argumentsText)?.value
    }
}

/// What evalbench sent back for one tool call.
public struct ToolOutput: Sendable, Codable, Equatable, Hashable {
    /// The id of the call this answers.
    public var callID: String
    /// The tool that was called.
    public var name: String
    /// The result as sent: JSON text for a JSON result, else plain text.
    public var content: String
    /// Whether the tool failed (a canned `error`, an unknown tool, unmatched or malformed arguments).
    public var isError: Bool

    /// The output of call `callID` of tool `name`.
    public init(callID: String, name: String, content: String, isError: Bool = false) {
        self.callID = callID
        self.name = name
        self.content = content
        self.isError = isError
    }

    enum CodingKeys: String, CodingKey {
        case callID = "call_id"
        case name, content
        case isError = "is_error"
    }
}

/// Parsing of a call's argument text, shared by the backends and the grader.
package enum ToolArguments {
    /// The arguments' value and their compact JSON text (keys in the order written), or nil
    /// when `text` is not one JSON value.
    package static func parse(_ text: String) -> (value: JSONValue, compact: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return (.object([:]), "{}") }
        guard let root = try? JSONDocument(data: Data(trimmed.utf8), file: "arguments").root else { return nil }
        return (JSONValue(root), root.compactJSON)
    }

    /// The arguments as a JSON object's text for providers that need an object (Anthropic
    /// `input`, Gemini `args`): `{}` when they did not parse or are not an object.
    package static func objectText(_ text: String) -> String {
        guard let parsed = parse(text), case .object = parsed.value else { return "{}" }
        return parsed.compact
    }
}

/// How many tokens a tool set takes in a backend's prompts, counted by its own tokenizer, and how.
package struct ToolTokenCount: Sendable, Equatable {
    package var tokens: Int
    /// How it was counted, for `plan` and summary.md (e.g. "counted by llama-server /tokenize").
    package var method: String
}

/// A backend that can count what a tool set costs with its own tokenizer.
package protocol ToolTokenCounting: Sendable {
    /// The count for `tools`; nil when this backend cannot count here (not started, no counter).
    func countToolTokens(_ tools: [ToolDefinition]) async -> ToolTokenCount?
}

extension ToolCall {
    /// `calls` with every id usable as a key: an empty one made up as `madeUp(position)` does
    /// for a missing one, and an id met before given `_2`, `_3`… after it. Each result goes
    /// back naming one call; two calls under one id (a server's slip) would leave the model
    /// unable to tell their results apart.
    static func withUniqueIDs(_ calls: [ToolCall], madeUp: (Int) -> String) -> [ToolCall] {
        var used: Set<String> = []
        return calls.enumerated().map { position, call in
            var call = call
            let base = call.id.isEmpty ? madeUp(position) : call.id
            var id = base
            var suffix = 1
            while !used.insert(id).inserted {
                suffix += 1
                id = "\(base)_\(suffix)"
            }
            call.id = id
            return call
        }
    }
}
