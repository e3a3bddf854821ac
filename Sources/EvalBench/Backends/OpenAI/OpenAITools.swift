import Foundation

/// Tool calling in the Chat Completions format: `tools[].function`, `tool_choice`, an
/// assistant message's `tool_calls` and one `role: tool` message per result with its `tool_call_id`.
enum OpenAITools {
    /// The chat messages of `message`: one, except a tool round's results, one per call.
    static func messages(_ message: ChatMessage) -> [[String: Any]] {
        switch message.role {
        case .tool where !message.toolOutputs.isEmpty:
            return message.toolOutputs.map { ["role": "tool", "tool_call_id": $0.callID, "content": $0.content] }
        case .assistant where !message.toolCalls.isEmpty:
            let calls: [[String: Any]] = message.toolCalls.map { call in
                ["id": call.id, "type": "function", "function": ["name": call.name, "arguments": call.argumentsText]]
            }
            return [["role": "assistant", "content": message.content.isEmpty ? NSNull() : message.content, "tool_calls": calls]]
        case .tool:
            return [["role": "user", "content": message.content]]
        default:
            return [["role": message.role.rawValue, "content": message.content]]
        }
    }

    /// Adds `tools` and `tool_choice` to `body` when the request has tools.
    static func add(_ request: ModelRequest, to body: inout [String: Any]) {
        guard !request.tools.isEmpty else { return }
        body["tools"] = request.tools.map { tool in
            ["type": "function",
             "function": ["name": tool.name, "description": tool.description, "parameters": RawJSON(tool.parametersText)]]
        }
        switch request.options.toolChoice {
        case nil: break
        case let .tool(name)?: body["tool_choice"] = ["type": "function", "function": ["name": name]]
        case let choice?: body["tool_choice"] = choice.text
        }
    }
}

/// The tool calls of a stream, put together from `delta.tool_calls` pieces: the first piece
/// of a call carries its `index`, `id` and name, later ones fragments of its arguments.
struct OpenAIToolCallAccumulator {
    private var calls: [Int: (id: String?, name: String, arguments: String)] = [:]
    private var order: [Int] = []

    mutating func add(_ pieces: [OpenAIChunk.ToolCallDelta]) {
        for (position, piece) in pieces.enumerated() {
            let index = piece.index ?? position
            if calls[index] == nil {
                calls[index] = (nil, "", "")
                order.append(index)
            }
            if let id = piece.id, !id.isEmpty { calls[index]?.id = id }
            if let name = piece.function?.name { calls[index]?.name += name }
            if let fragment = piece.function?.arguments { calls[index]?.arguments += fragment }
        }
    }

    /// The calls in the order they were opened; a call with no id gets `call_<index>`.
    var toolCalls: [ToolCall] {
        order.compactMap { index in
            calls[index].map { ToolCall(id: $0.id ?? "call_\(index)", name: $0.name, argumentsText: $0.arguments) }
        }
    }
}
