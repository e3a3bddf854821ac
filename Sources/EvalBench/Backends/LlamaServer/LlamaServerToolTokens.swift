#if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The running server counts a tool set with the model's own tokenizer. With evalbench's JSON
/// tool format (a template without a tool format) the tools are text in the instructions, so
/// `/tokenize` counts exactly that text. With the template's own format, `/apply-template`
/// renders a one-message prompt with and without the tools and `/tokenize` counts both: the
/// difference is what the tools add as the template writes them.
extension LlamaServerBackend: ToolTokenCounting {
    package func countToolTokens(_ tools: [ToolDefinition]) async -> ToolTokenCount? {
        guard !tools.isEmpty, let client = runningClient, let root = serverURL else { return nil }
        switch client.toolFormat {
        case .json:
            guard let tokens = await Self.tokenCount(root, "\n\n" + JSONToolFormat.instructions(tools)) else { return nil }
            return ToolTokenCount(tokens: tokens, method: "counted by llama-server /tokenize (the JSON tool format's instructions)")
        case .native:
            let definitions = tools.map { tool -> [String: Any] in
                let parameters = (try? JSONSerialization.jsonObject(with: Data(tool.parametersText.utf8))) ?? [String: Any]()
                return ["type": "function", "function": ["name": tool.name, "description": tool.description, "parameters": parameters]]
            }
            let message: [[String: Any]] = [["role": "user", "content": "x"]]
            guard let with = await Self.rendered(root, ["messages": message, "tools": definitions]),
                  let without = await Self.rendered(root, ["messages": message]),
                  let withTokens = await Self.tokenCount(root, with), let withoutTokens = await Self.tokenCount(root, without)
            else { return nil }
            return ToolTokenCount(tokens: withTokens - withoutTokens,
                                  method: "counted by llama-server (/apply-template with and without the tools, then /tokenize)")
        }
    }

    /// The prompt `/apply-template` renders for `body`.
    static func rendered(_ root: URL, _ body: [String: Any]) async -> String? {
        guard let object = await post(root.appendingPathComponent("apply-template"), body) else { return nil }
        return object["prompt"] as? String
    }

    /// How many tokens `/tokenize` makes of `text` (no special tokens added).
    static func tokenCount(_ root: URL, _ text: String) async -> Int? {
        guard let object = await post(root.appendingPathComponent("tokenize"), ["content": text]) else { return nil }
        return (object["tokens"] as? [Any])?.count
    }

    private static func post(_ url: URL, _ body: [String: Any]) async -> [String: Any]? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (field, value) in requestHeaders { request.setValue(value, forHTTPHeaderField: field) }
        request.httpBody = try? JSONSerialization.data(withJSONObject: body)
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
#endif
