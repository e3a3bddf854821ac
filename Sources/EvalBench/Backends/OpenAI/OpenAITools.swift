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
            let index = piece.index ?? indexWithout(piece, at: position)
            if calls[index] == nil {
                calls[index] = (nil, "", "")
                order.append(index)
            }
            if let id = piece.id, !id.isEmpty { calls[index]?.id = id }
            if let name = piece.function?.name { calls[index]?.name += name }
            if let fragment = piece.function?.arguments { calls[index]?.arguments += fragment }
        }
    }

    /// Where a piece without `index` goes (some servers send none, each chunk a whole call):
    /// a piece after the first of its chunk, or with a new id, opens a call after the others;
    /// otherwise it continues the last call opened (with none yet, it opens the first).
    private func indexWithout(_ piece: OpenAIChunk.ToolCallDelta, at position: Int) -> Int {
        guard let last = order.last else { return position }
        if position > 0 { return (order.max() ?? -1) + 1 }
        if let id = piece.id, !id.isEmpty, id != calls[last]?.id { return (order.max() ?? -1) + 1 }
        return last
    }

    /// The calls in the order they were opened. A call with no id gets `call_<index>`, and an
    /// id met before gets `_2`, `_3`… after it: each result must name one call when it goes back.
    var toolCalls: [ToolCall] {
        let calls = order.compactMap { index in
            self.calls[index].map { ToolCall(id: $0.id ?? "call_\(index)", name: $0.name, argumentsText: $0.arguments) }
        }
        return ToolCall.withUniqueIDs(calls) { "call_\(order[$0])" }
    }
}

/// How an OpenAI-compatible backend sends tools.
package enum ToolFormat: String, Sendable {
    /// `tools` and `tool_choice`, and calls streamed as `delta.tool_calls`.
    case native
    /// For a server whose chat template has no tool format (llama-server's `/props` says
    /// `supports_tool_calls: false`): the tools go into the instructions, the answer is
    /// constrained by `response_format` to `{"tool_calls": [...]}` or `{"response": "..."}`,
    /// and evalbench reads the calls out of that JSON.
    case json
}

/// The JSON tool format: evalbench's own, for models without one.
enum JSONToolFormat {
    /// `request` as the JSON format sends it: tools described in the instructions, the answer
    /// constrained to the format's schema, tool rounds in the history written as JSON.
    static func applying(to request: ModelRequest) -> ModelRequest {
        guard !request.tools.isEmpty else { return request }
        var request = request
        let ask = instructions(request.tools)
        request.instructions = [request.instructions, ask].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n\n")
        request.messages = request.messages.map(written)
        request.output = StructuredOutput(schema: .null, name: "tool_call_or_response", schemaText: schemaText(request))
        request.tools = []
        return request
    }

    /// What the format adds to the instructions for `tools`: the list and how to call them.
    static func instructions(_ tools: [ToolDefinition]) -> String {
        let listed = tools.map { "- \($0.name): \($0.description) Arguments: \($0.parametersText)" }.joined(separator: "\n")
        return "You can call these tools:\n\(listed)\nReply with JSON only: {\"tool_calls\": [{\"name\": \"<tool>\", \"arguments\": {...}}]} "
            + "to call tools, or {\"response\": \"<your answer>\"} to answer. Tool results come back as {\"tool_results\": [...]}."
    }

    /// A tool round as plain messages: the calls as the assistant's JSON, the results as a user message.
    private static func written(_ message: ChatMessage) -> ChatMessage {
        if message.role == .assistant, !message.toolCalls.isEmpty {
            let calls = message.toolCalls.map { "{\"name\":\(JSONWriter.string($0.name)),\"arguments\":\(ToolArguments.objectText($0.argumentsText))}" }
            return ChatMessage(role: .assistant, content: "{\"tool_calls\":[\(calls.joined(separator: ","))]}")
        }
        if message.role == .tool, !message.toolOutputs.isEmpty {
            let results = message.toolOutputs.map { output in
                let value = ToolArguments.parse(output.content).map(\.compact) ?? JSONWriter.string(output.content)
                return "{\"name\":\(JSONWriter.string(output.name)),\(output.isError ? "\"error\"" : "\"result\""):\(value)}"
            }
            return ChatMessage(role: .user, content: "{\"tool_results\":[\(results.joined(separator: ","))]}")
        }
        return message
    }

    /// `{"tool_calls": [one of the tools]}` or `{"response": text}`, as `toolChoice` allows.
    private static func schemaText(_ request: ModelRequest) -> String {
        var tools = request.tools
        if case let .tool(name)? = request.options.toolChoice { tools = tools.filter { $0.name == name } }
        let call = tools.map { tool in
            "{\"type\":\"object\",\"properties\":{\"name\":{\"const\":\(JSONWriter.string(tool.name))},\"arguments\":\(tool.parametersText)},"
                + "\"required\":[\"name\",\"arguments\"]}"
        }
        let calls = "{\"type\":\"object\",\"properties\":{\"tool_calls\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"anyOf\":[\(call.joined(separator: ","))]}}},\"required\":[\"tool_calls\"]}"
        let answer = #"{"type":"object","properties":{"response":{"type":"string"}},"required":["response"]}"#
        switch request.options.toolChoice {
        case .required?, .tool?: return calls
        case .none?: return answer
        default: return "{\"anyOf\":[\(calls),\(answer)]}"
        }
    }

    /// `response` with the calls read out of its JSON text, or its `response` as the text; an
    /// answer that does not follow the format is left as it is, to be graded as such.
    static func reading(_ response: ModelResponse) -> ModelResponse {
        guard let parsed = ToolArguments.parse(response.text), case let .object(members) = parsed.value else { return response }
        var response = response
        if case let .array(calls)? = members["tool_calls"] {
            response.toolCalls = calls.enumerated().compactMap { index, call in
                guard case let .object(fields) = call, case let .string(name)? = fields["name"] else { return nil }
                let arguments = fields["arguments"].map { JSONWriter.string($0.foundationObject) } ?? "{}"
                return ToolCall(id: "call_\(index + 1)", name: name, argumentsText: arguments)
            }
            response.text = ""
        } else if case let .string(text)? = members["response"] {
            response.text = text
        }
        return response
    }
}
