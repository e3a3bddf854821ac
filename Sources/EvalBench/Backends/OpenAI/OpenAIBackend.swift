import Foundation

/// Any OpenAI-compatible Chat Completions server (OpenAI, llama.cpp, vLLM, SGLang, Ollama),
/// streamed with `stream: true` and `stream_options.include_usage`.
package struct OpenAIBackend: Backend {
    package let name: String
    package let kind: String
    package let model: String?
    package let concurrency: Int
    let baseURL: URL
    let apiKey: String?
    let headers: [String: String]
    /// What of the URL and `headers` a config wrote in plain sight: left in answers by the redactor.
    let publicParts: PublicRequestParts
    /// Whether the model follows OpenAI's reasoning-model rules (see `body(for:)`).
    let reasoningModel: Bool
    /// Whether level `none` sends `reasoning_effort: "none"`; nil: when `reasoningModel`.
    let sendReasoningNone: Bool?
    /// Report the configured model name rather than the server's (llama-server reports the
    /// GGUF file path).
    let prefersConfiguredModelName: Bool
    /// Per-level overrides of the default `reasoning_effort` mapping, by level name.
    let reasoningOverrides: [String: ReasoningOverride]
    /// Fields merged into every request body.
    let extraBody: [String: JSONValue]
    /// `max_tokens` or `max_completion_tokens`; nil: `max_completion_tokens` for a reasoning
    /// model, `max_tokens` otherwise.
    let maxTokensField: String?
    let structuredOutput: StructuredOutputMode
    /// How tools are sent: natively, or in evalbench's JSON format for a template without one.
    let toolFormat: ToolFormat
    let transport: any HTTPStreaming
    /// Where and with what headers every chat request goes, worked out once.
    private let chatURL: URL
    private let chatHeaders: [String: String]

    package init(name: String, kind: String = OpenAIKind.name, model: String?, baseURL: URL, apiKey: String?,
                headers: [String: String] = [:], publicParts: PublicRequestParts = .none, concurrency: Int, reasoningModel: Bool = false,
                sendReasoningNone: Bool? = nil, prefersConfiguredModelName: Bool = false,
                reasoningOverrides: [String: ReasoningOverride] = [:],
                extraBody: [String: JSONValue] = [:], maxTokensField: String? = nil,
                structuredOutput: StructuredOutputMode = .native, toolFormat: ToolFormat = .native,
                transport: any HTTPStreaming) {
        self.toolFormat = toolFormat
        self.name = name
        self.kind = kind
        self.model = model
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.headers = headers
        self.publicParts = publicParts
        self.concurrency = concurrency
        self.reasoningModel = reasoningModel
        self.sendReasoningNone = sendReasoningNone
        self.prefersConfiguredModelName = prefersConfiguredModelName
        self.reasoningOverrides = reasoningOverrides
        self.extraBody = extraBody
        self.maxTokensField = maxTokensField
        self.structuredOutput = structuredOutput
        self.transport = transport
        chatURL = baseURL.appendingPathComponent("chat/completions")
        chatHeaders = HeaderLayers.merged(["Content-Type": "application/json", "Accept": "text/event-stream"], headers,
                                          apiKey.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    package func prepare() async -> Availability { .available }

    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        let override = reasoningOverrides[level.rawValue]
        if let reason = override?.unsupported { return .unsupported(reason) }
        if level == .none, override == nil, reasoningModel, sendReasoningNone != false, Self.lacksNoneEffort(model) {
            return .unsupported("\(name): \(model ?? "the model") has no reasoning_effort \"none\"; map level none with "
                + "\"reasoning\": {\"none\": {\"effort\": \"minimal\"}} (or \"low\"), or set \"sendReasoningNone\": false "
                + "to run it at the model's default effort")
        }
        var parts: [String] = []
        if let effort = effort(for: level) {
            parts.append("reasoning_effort: \"\(effort)\"")
        } else {
            parts.append("reasoning_effort omitted")
        }
        if tokenLimitField != "max_tokens" { parts.append("output limit as \(tokenLimitField)") }
        if !sendsSampling(at: level) { parts.append("temperature, top_p and stop not sent") }
        if let extra = override?.extraBody, !extra.isEmpty { parts.append(RequestBody.describe(extra)) }
        return .supported(parts.joined(separator: ", "))
    }

    /// The `reasoning_effort` value sent at `level`, or nil when the field is left out.
    func effort(for level: ReasoningLevel) -> String? {
        if let effort = reasoningOverrides[level.rawValue]?.effort { return effort }
        return level == .none && !(sendReasoningNone ?? reasoningModel) ? nil : Self.effort(level)
    }

    /// The name of the output-token limit field.
    var tokenLimitField: String {
        maxTokensField ?? (reasoningModel ? "max_completion_tokens" : "max_tokens")
    }

    /// Whether `temperature`, `top_p` and `stop` are sent at `level`. OpenAI's reasoning models
    /// reject them while they reason; GPT-5.1 and later take them at `reasoning_effort: "none"`.
    /// Other servers get them at every level.
    func sendsSampling(at level: ReasoningLevel) -> Bool {
        !reasoningModel || effort(for: level) == "none"
    }

    /// Whether a backend of kind `openai` talks to one of OpenAI's reasoning models when its
    /// config does not say: the base URL is OpenAI's API and the model is of the `o1`, `o3`,
    /// `o4` or `gpt-5` families (later ones included). Anything else keeps the compatible rules.
    /// Whether `model` is one of OpenAI's reasoning models that take no `reasoning_effort:
    /// "none"`: the o-series and GPT-5 before 5.1 (`gpt-5`, `gpt-5-mini`, `gpt-5-nano`, dated
    /// snapshots). Sending it there is a 400, and leaving it out runs the model at its default
    /// effort, so level `none` is unsupported unless the config maps it.
    static func lacksNoneEffort(_ model: String?) -> Bool {
        guard let model = model?.lowercased() else { return false }
        if ["o1", "o3", "o4"].contains(where: { model == $0 || model.hasPrefix($0 + "-") }) { return true }
        return model == "gpt-5" || model.hasPrefix("gpt-5-")
    }

    static func isOpenAIReasoningModel(baseURL: URL, model: String?) -> Bool {
        guard baseURL.host?.lowercased() == "api.openai.com", let model = model?.lowercased() else { return false }
        if ["o1", "o3", "o4"].contains(where: { model == $0 || model.hasPrefix($0 + "-") }) { return true }
        guard model.hasPrefix("gpt-") else { return false }
        let version = model.dropFirst(4).prefix { $0.isNumber }
        return Int(version).map { $0 >= 5 } ?? false
    }

    package var structuredOutputSupport: String {
        structuredOutput.description(native: "response_format json_schema, strict")
    }

    package func startConversation() async -> any Conversation {
        OpenAIConversation(backend: self)
    }

    package func shutdown() async {}

    static func effort(_ level: ReasoningLevel) -> String {
        switch level {
        case .none: "none"
        case .light: "low"
        case .moderate: "medium"
        case .deep: "high"
        }
    }

    /// The JSON body of a streamed Chat Completions request. For a reasoning model the output
    /// limit is `max_completion_tokens` and, unless the effort sent is `"none"`, no
    /// `temperature`, `top_p` or `stop` is sent; `none` sends `reasoning_effort: "none"`. Config
    /// keys `reasoningModel`, `maxTokensField`, `sendReasoningNone` and `reasoning` override this.
    func body(for request: ModelRequest) -> [String: Any] {
        var request = structuredOutput.applying(to: request)
        if toolFormat == .json { request = JSONToolFormat.applying(to: request) }
        var messages: [[String: Any]] = []
        if let instructions = request.instructions {
            messages.append(["role": "system", "content": instructions])
        }
        for message in request.messages {
            messages += OpenAITools.messages(message)
        }
        var body: [String: Any] = [
            "messages": messages,
            "stream": true,
            "stream_options": ["include_usage": true],
        ]
        if let model { body["model"] = model }
        let options = request.options
        if let maxOutputTokens = options.maxOutputTokens { body[tokenLimitField] = maxOutputTokens }
        if sendsSampling(at: request.reasoning) {
            if let temperature = options.temperature { body["temperature"] = temperature }
            if let topP = options.topP { body["top_p"] = topP }
            if let stop = options.stop, !stop.isEmpty { body["stop"] = stop }
        }
        if let seed = options.seed { body["seed"] = seed }
        if let effort = effort(for: request.reasoning) { body["reasoning_effort"] = effort }
        if let output = request.output {
            body["response_format"] = ["type": "json_schema",
                                       "json_schema": ["name": output.name, "schema": RawJSON(output.schemaText),
                                                       "strict": true]]
        }
        OpenAITools.add(request, to: &body)
        RequestBody.merge(extraBody, into: &body)
        if let extra = reasoningOverrides[request.reasoning.rawValue]?.extraBody {
            RequestBody.merge(extra, into: &body)
        }
        return body
    }

    func httpRequest(for request: ModelRequest) throws -> HTTPStreamRequest {
        HTTPStreamRequest(url: chatURL, method: "POST", headers: chatHeaders, body: JSONWriter.data(body(for: request)),
                          timeoutSeconds: request.timeoutSeconds, publicParts: publicParts)
    }
}

/// A backend that can warm its cache for a conversation before the first, timed request.
package protocol Prewarming: Sendable {
    /// Sends the conversation's shared prefix (its instructions) so the server caches it;
    /// true when the server answered.
    func prewarm(instructions: String?, options: GenerationOptions, timeoutSeconds: Double) async -> Bool
}

extension OpenAIBackend: Prewarming {
    /// A request with the instructions and an empty user message, one token of output: the
    /// server evaluates (and llama.cpp caches) the prefix the first turn shares.
    package func prewarm(instructions: String?, options: GenerationOptions, timeoutSeconds: Double) async -> Bool {
        var warmOptions = options
        warmOptions.maxOutputTokens = 1
        let request = ModelRequest(instructions: instructions, messages: [ChatMessage(role: .user, content: "")],
                                   options: warmOptions, timeoutSeconds: timeoutSeconds)
        if case .success = await OpenAIConversation(backend: self).respond(to: request) { return true }
        return false
    }
}

/// OpenAI-compatible servers keep no session state: each request carries the whole history.
struct OpenAIConversation: Conversation {
    let backend: OpenAIBackend

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        let result = await StreamedResponse.respond({ try backend.httpRequest(for: request) }, on: backend.transport,
                                                    backend: backend.name,
                                                    with: OpenAIStreamReader(backend: backend.name, stopwatch: Stopwatch()))
        return result.map { response in
            var response = backend.toolFormat == .json && !request.tools.isEmpty ? JSONToolFormat.reading(response) : response
            if backend.prefersConfiguredModelName, let model = backend.model { response.model = model }
            return response
        }
    }
}
