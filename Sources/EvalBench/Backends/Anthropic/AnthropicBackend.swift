import Foundation

/// Anthropic's Messages API, streamed (`POST {baseURL}/v1/messages`, `stream: true`); also
/// llama.cpp's `llama-server`, which serves the same API at `/v1/messages`.
///
/// `baseURL` is the server root without `/v1` (`https://api.anthropic.com`,
/// `http://127.0.0.1:8080`), as in Anthropic's SDKs; a base URL that already ends in `/v1`
/// is accepted and not doubled.
package struct AnthropicBackend: Backend {
    package static let defaultBaseURL = URL(string: "https://api.anthropic.com")!
    /// Sent as `anthropic-version` unless the config's `headers` name another.
    package static let apiVersion = "2023-06-01"
    /// `max_tokens` when the case sets no `maxOutputTokens`: Anthropic requires the field.
    package static let defaultMaxTokens = 4096

    package let name: String
    package let kind = AnthropicKind.name
    package let model: String?
    package let concurrency: Int
    let baseURL: URL
    let apiKey: String?
    let headers: [String: String]
    /// What of the URL and `headers` a config wrote in plain sight: left in answers by the redactor.
    let publicParts: PublicRequestParts
    /// Every request's headers, worked out once: a configured header replaces a default of any
    /// case (`Anthropic-Version`), and the key goes last.
    private let requestHeaders: [String: String]
    /// Whether `cache_control` breakpoints go on the instructions and the newest message.
    let promptCache: Bool
    let extraBody: [String: JSONValue]
    /// Per-level overrides of the reasoning mapping, keyed by level name.
    let reasoning: [String: ReasoningOverride]
    let structuredOutput: StructuredOutputMode
    let transport: any HTTPStreaming

    package init(name: String, model: String, baseURL: URL = AnthropicBackend.defaultBaseURL, apiKey: String?,
                headers: [String: String] = [:], publicParts: PublicRequestParts = .none, concurrency: Int, promptCache: Bool = true,
                extraBody: [String: JSONValue] = [:], reasoning: [String: ReasoningOverride] = [:],
                structuredOutput: StructuredOutputMode = .native, transport: any HTTPStreaming) {
        self.name = name
        self.model = model
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.headers = headers
        self.publicParts = publicParts
        requestHeaders = HeaderLayers.merged(["content-type": "application/json", "accept": "text/event-stream",
                                              "anthropic-version": Self.apiVersion], headers, apiKey.map { ["x-api-key": $0] } ?? [:])
        self.concurrency = concurrency
        self.promptCache = promptCache
        self.extraBody = extraBody
        self.reasoning = reasoning
        self.structuredOutput = structuredOutput
        self.transport = transport
    }

    package func prepare() async -> Availability { .available }

    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        let mapping = AnthropicReasoning(level: level, override: reasoning[level.rawValue])
        if let reason = mapping.unsupported { return .unsupported("\(name): \(reason)") }
        return .supported(mapping.description)
    }

    package var structuredOutputSupport: String {
        structuredOutput.description(native: "output_config.format json_schema")
    }

    package func startConversation() async -> any Conversation {
        AnthropicConversation(backend: self)
    }

    package func shutdown() async {}

    /// `{baseURL}/v1/messages`.
    var messagesURL: URL {
        baseURL.lastPathComponent == "v1" ? baseURL.appendingPathComponent("messages")
            : baseURL.appendingPathComponent("v1/messages")
    }

    /// The JSON body of a streamed Messages request.
    func body(for request: ModelRequest) -> [String: Any] {
        let request = structuredOutput.applying(to: request)
        let options = request.options
        var systemParts = request.instructions.map { [$0] } ?? []
        var messages: [[String: Any]] = []
        for (index, message) in request.messages.enumerated() {
            // The Messages API has no system role in `messages`: such turns join `system`.
            guard message.role != .system else {
                systemParts.append(message.content)
                continue
            }
            let isNewest = index == request.messages.count - 1
            if var blocks = AnthropicTools.blocks(message) {
                if isNewest, promptCache, !blocks.isEmpty { blocks[blocks.count - 1]["cache_control"] = ["type": "ephemeral"] }
                messages.append(["role": AnthropicTools.role(message), "content": blocks])
                continue
            }
            messages.append(["role": AnthropicTools.role(message),
                             "content": isNewest && promptCache ? Self.cachedBlocks(message.content) : message.content])
        }
        var body: [String: Any] = [
            "model": model ?? "",
            "max_tokens": options.maxOutputTokens ?? Self.defaultMaxTokens,
            "stream": true,
            "messages": messages,
        ]
        let system = systemParts.filter { !$0.isEmpty }.joined(separator: "\n\n")
        if !system.isEmpty { body["system"] = promptCache ? Self.cachedBlocks(system) : system }

        let mapping = AnthropicReasoning(level: request.reasoning, override: reasoning[request.reasoning.rawValue])
        body["thinking"] = mapping.thinkingObject
        var outputConfig: [String: Any] = [:]
        if let effort = mapping.effort { outputConfig["effort"] = effort }
        if let output = request.output {
            outputConfig["format"] = ["type": "json_schema", "schema": RawJSON(output.schemaText)]
        }
        if !outputConfig.isEmpty { body["output_config"] = outputConfig }
        // With thinking on, Anthropic accepts no temperature but 1 and no top_p below 0.95.
        if let temperature = options.temperature, !mapping.thinkingIsOn || temperature == 1 {
            body["temperature"] = temperature
        }
        if let topP = options.topP, !mapping.thinkingIsOn || topP >= 0.95 { body["top_p"] = topP }
        if let stop = options.stop, !stop.isEmpty { body["stop_sequences"] = stop }
        AnthropicTools.add(request, to: &body)
        RequestBody.merge(extraBody, into: &body)
        if let levelBody = mapping.extraBody { RequestBody.merge(levelBody, into: &body) }
        return body
    }

    /// One text block carrying an ephemeral cache breakpoint.
    private static func cachedBlocks(_ text: String) -> [[String: Any]] {
        [["type": "text", "text": text, "cache_control": ["type": "ephemeral"]]]
    }

    func httpRequest(for request: ModelRequest) throws -> HTTPStreamRequest {
        let data = JSONWriter.data(body(for: request))
        return HTTPStreamRequest(url: messagesURL, method: "POST", headers: requestHeaders, body: data,
                                 timeoutSeconds: request.timeoutSeconds, publicParts: publicParts)
    }
}

/// The Messages API keeps no session state: each request carries the whole history.
struct AnthropicConversation: Conversation {
    let backend: AnthropicBackend

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        await StreamedResponse.respond({ try backend.httpRequest(for: request) }, on: backend.transport,
                                       backend: backend.name,
                                       with: AnthropicStreamReader(backend: backend.name, stopwatch: Stopwatch()))
    }
}
