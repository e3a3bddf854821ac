import Foundation

/// Function calling in the Gemini format: `tools[].functionDeclarations` (with
/// `parametersJsonSchema`), `toolConfig.functionCallingConfig`, `functionCall` parts in the
/// model's content and `functionResponse` parts in the next user content.
enum GeminiTools {
    /// The prefix of the ids evalbench gives calls that came without one; such ids are not sent back.
    static let madeUpIDPrefix = "evalbench-call-"

    /// The content of `message` when it is a tool round, else nil.
    static func content(_ message: ChatMessage) -> [String: Any]? {
        if message.role == .tool, !message.toolOutputs.isEmpty {
            let parts: [[String: Any]] = message.toolOutputs.map { output in
                var response: [String: Any] = ["name": output.name, "response": RawJSON(responseText(output))]
                if !output.callID.hasPrefix(madeUpIDPrefix) { response["id"] = output.callID }
                return ["functionResponse": response]
            }
            return ["role": "user", "parts": parts]
        }
        guard message.role == .assistant, !message.toolCalls.isEmpty else { return nil }
        var parts: [[String: Any]] = message.content.isEmpty ? [] : [["text": message.content]]
        for call in message.toolCalls {
            var functionCall: [String: Any] = ["name": call.name, "args": RawJSON(ToolArguments.objectText(call.argumentsText))]
            if !call.id.hasPrefix(madeUpIDPrefix) { functionCall["id"] = call.id }
            var part: [String: Any] = ["functionCall": functionCall]
            if let signature = call.signature { part["thoughtSignature"] = signature }
            parts.append(part)
        }
        return ["role": "model", "parts": parts]
    }

    /// A `functionResponse.response` must be an object: a JSON object result as it is, any
    /// other result under `result`, an error under `error`.
    static func responseText(_ output: ToolOutput) -> String {
        if output.isError { return JSONWriter.string(["error": output.content]) }
        if let parsed = ToolArguments.parse(output.content), case .object = parsed.value { return parsed.compact }
        if let parsed = ToolArguments.parse(output.content) { return "{\"result\":\(parsed.compact)}" }
        return JSONWriter.string(["result": output.content])
    }

    /// Adds `tools` and `toolConfig` to `body` when the request has tools.
    static func add(_ request: ModelRequest, to body: inout [String: Any]) {
        guard !request.tools.isEmpty else { return }
        let declarations: [[String: Any]] = request.tools.map { tool in
            ["name": tool.name, "description": tool.description, "parametersJsonSchema": RawJSON(tool.parametersText)]
        }
        body["tools"] = [["functionDeclarations": declarations]]
        let config: [String: Any]? = switch request.options.toolChoice {
        case nil: nil
        case .auto?: ["mode": "AUTO"]
        case .required?: ["mode": "ANY"]
        case .none?: ["mode": "NONE"]
        case let .tool(name)?: ["mode": "ANY", "allowedFunctionNames": [name]]
        }
        if let config { body["toolConfig"] = ["functionCallingConfig": config] }
    }
}
