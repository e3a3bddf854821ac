import Foundation

/// How a backend asks for a case's structured output (config `structuredOutput`).
public enum StructuredOutputMode: String, Sendable, Codable, Equatable {
    /// The kind's own request field, so the server can constrain decoding: OpenAI-compatible
    /// `response_format` `json_schema` (llama.cpp turns it into a grammar), Anthropic
    /// `output_config.format`, Gemini `responseJsonSchema`.
    case native
    /// The schema goes into the instructions as text, for servers that cannot constrain
    /// output (or ignore the field, as llama-server's `/v1/messages` does); nothing enforces it.
    case prompt

    /// `request` as this mode sends it: in prompt mode the schema joins the instructions and
    /// the request carries no native output field.
    func applying(to request: ModelRequest) -> ModelRequest {
        guard self == .prompt, let output = request.output else { return request }
        var request = request
        request.instructions = Self.instructions(request.instructions, output: output)
        request.output = nil
        return request
    }

    /// The instructions with the schema appended.
    static func instructions(_ base: String?, output: StructuredOutput) -> String {
        let schema = output.schemaText
        let ask = "Reply with only a JSON value that follows this JSON Schema, with no other text:\n\(schema)"
        guard let base, !base.isEmpty else { return ask }
        return base + "\n\n" + ask
    }

    /// For reports: how `kind`'s native field is named, or that the schema is in the prompt.
    func description(native: String) -> String {
        switch self {
        case .native: "native (\(native))"
        case .prompt: "in the prompt (not enforced by the server)"
        }
    }
}

extension RequestBody {
    /// A compact, key-sorted JSON text of any JSON value.
    static func describe(_ value: JSONValue) -> String {
        if case let .object(members) = value { return describe(members) }
        let object = value.foundationObject
        guard let data = try? JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "null"
        }
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
