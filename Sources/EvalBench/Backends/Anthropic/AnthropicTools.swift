import Foundation

/// Tool use in the Messages format: `tools[]` with `input_schema`, `tool_choice`, `tool_use`
/// blocks in the assistant's content and `tool_result` blocks in the next user message.
enum AnthropicTools {
    /// The content of `message` when it is a tool round (an answer with calls, or their
    /// results), as blocks; nil for an ordinary message.
    static func blocks(_ message: ChatMessage) -> [[String: Any]]? {
        if message.role == .tool, !message.toolOutputs.isEmpty {
            return message.toolOutputs.map { output in
                var block: [String: Any] = ["type": "tool_result", "tool_use_id": output.callID, "content": output.content]
                if output.isError { block["is_error"] = true }
                return block
            }
        }
        guard message.role == .assistant, !message.toolCalls.isEmpty else { return nil }
        // With thinking on, the thinking blocks that led to the calls go first, as they came.
        var blocks = message.toolCalls.first?.signature
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [[String: Any]] } ?? []
        if !message.content.isEmpty { blocks.append(["type": "text", "text": message.content]) }
        for call in message.toolCalls {
            blocks.append(["type": "tool_use", "id": call.id, "name": call.name,
                           "input": RawJSON(ToolArguments.objectText(call.argumentsText))])
        }
        return blocks
    }

    /// The role a message is sent with: tool results go in a `user` message.
    static func role(_ message: ChatMessage) -> String {
        message.role == .tool ? "user" : message.role.rawValue
    }

    /// Adds `tools` and `tool_choice` to `body` when the request has tools.
    static func add(_ request: ModelRequest, to body: inout [String: Any]) {
        guard !request.tools.isEmpty else { return }
        body["tools"] = request.tools.map { tool in
            ["name": tool.name, "description": tool.description, "input_schema": RawJSON(tool.parametersText)]
        }
        switch request.options.toolChoice {
        case nil: break
        case .auto?: body["tool_choice"] = ["type": "auto"]
        case .required?: body["tool_choice"] = ["type": "any"]
        case .none?: body["tool_choice"] = ["type": "none"]
        case let .tool(name)?: body["tool_choice"] = ["type": "tool", "name": name]
        }
    }
}
