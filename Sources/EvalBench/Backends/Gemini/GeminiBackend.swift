import Foundation

/// Google's Gemini API (`generativelanguage.googleapis.com`), streamed with
/// `models/{model}:streamGenerateContent?alt=sse` and the key in the `x-goog-api-key` header.
package struct GeminiBackend: Backend {
    /// Where the Gemini API lives when the config names no `baseURL`.
    package static let defaultBaseURL = URL(string: "https://generativelanguage.googleapis.com")!
    /// The variable the key is read from when the config names no `apiKeyEnv`.
    package static let defaultAPIKeyVariable = "GEMINI_API_KEY"

    package let name: String
    package let kind = GeminiKind.name
    package let model: String?
    package let concurrency: Int
    /// The API root, with or without a version segment (`/v1beta` is added when it has none).
    let baseURL: URL
    let apiKey: String?
    /// The variable the key comes from, named in the message when it is missing.
    let apiKeyVariable: String
    let headers: [String: String]
    /// What of the URL and `headers` a config wrote in plain sight: left in answers by the redactor.
    let publicParts: PublicRequestParts
    /// Every request's headers, worked out once (the key last).
    private let requestHeaders: [String: String]
    /// This backend's `timeoutSeconds`, replacing the run's default when set.
    let timeoutSeconds: Double?
    /// Per-level overrides of the default `thinkingConfig` mapping, keyed by level name.
    let reasoningOverrides: [String: ReasoningOverride]
    /// Fields merged into every request body, before a level's own `extraBody`.
    let extraBody: [String: JSONValue]
    let structuredOutput: StructuredOutputMode
    let transport: any HTTPStreaming

    package init(name: String, model: String, baseURL: URL = GeminiBackend.defaultBaseURL, apiKey: String?,
                apiKeyVariable: String = GeminiBackend.defaultAPIKeyVariable, headers: [String: String] = [:],
                publicParts: PublicRequestParts = .none, concurrency: Int, timeoutSeconds: Double? = nil, reasoningOverrides: [String: ReasoningOverride] = [:],
                extraBody: [String: JSONValue] = [:], structuredOutput: StructuredOutputMode = .native,
                transport: any HTTPStreaming) {
        self.name = name
        self.model = model.hasPrefix("models/") ? String(model.dropFirst("models/".count)) : model
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.apiKeyVariable = apiKeyVariable
        self.headers = headers
        self.publicParts = publicParts
        requestHeaders = HeaderLayers.merged(["Content-Type": "application/json", "Accept": "text/event-stream"], headers,
                                             apiKey.map { ["x-goog-api-key": $0] } ?? [:])
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.reasoningOverrides = reasoningOverrides
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
        self.transport = transport
    }

    package var structuredOutputSupport: String {
        structuredOutput.description(native: "generationConfig.responseJsonSchema")
    }

    package func prepare() async -> Availability {
        guard apiKey != nil else {
            return .unavailable("\(name): the environment variable \(apiKeyVariable) is not set; "
                + "export the Gemini API key there, or name another variable with \"apiKeyEnv\"")
        }
        return .available
    }

    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        let override = reasoningOverrides[level.rawValue]
        if let reason = override?.unsupported { return .unsupported(reason) }
        var description: String
        switch Self.thinking(for: level, override: override) {
        case let .budget(tokens):
            description = "thinkingConfig.thinkingBudget: \(tokens)"
        case let .level(name):
            description = "thinkingConfig.thinkingLevel: \"\(name)\""
        }
        if Self.includesThoughts(level, override: override) { description += ", includeThoughts: true" }
        if let extra = override?.extraBody, !extra.isEmpty {
            description += "; extraBody \(RequestBody.describe(extra))"
        }
        return .supported(description)
    }

    package func startConversation() async -> any Conversation {
        GeminiConversation(backend: self)
    }

    package func shutdown() async {}

    /// What `thinkingConfig` carries for one level.
    enum Thinking: Equatable {
        /// `thinkingBudget: N` (Gemini 2.5; 0 turns thinking off).
        case budget(Int)
        /// `thinkingLevel: "LOW"` and the like (Gemini 3).
        case level(String)
    }

    /// DESIGN.md's table, unless the level's override names an effort or a budget; a budget
    /// wins over an effort, since the API rejects a request that sends both.
    static func thinking(for level: ReasoningLevel, override: ReasoningOverride?) -> Thinking {
        if let budget = override?.thinkingBudget { return .budget(budget) }
        if let effort = override?.effort { return .level(effort) }
        switch level {
        case .none: return .budget(0)
        case .light: return .level("LOW")
        case .moderate: return .level("MEDIUM")
        case .deep: return .level("HIGH")
        }
    }

    /// Thought summaries are asked for whenever the model may think, so that thinking streams
    /// (it sets TTFT) and its text is kept; never with a budget of 0.
    static func includesThoughts(_ level: ReasoningLevel, override: ReasoningOverride?) -> Bool {
        thinking(for: level, override: override) != .budget(0)
    }

    /// The JSON body of a `streamGenerateContent` request.
    func body(for request: ModelRequest) -> [String: Any] {
        let request = structuredOutput.applying(to: request)
        var systemTexts: [String] = []
        if let instructions = request.instructions { systemTexts.append(instructions) }
        var contents: [[String: Any]] = []
        for message in request.messages {
            if let round = GeminiTools.content(message) {
                contents.append(round)
                continue
            }
            switch message.role {
            case .system: systemTexts.append(message.content)
            case .user: contents.append(["role": "user", "parts": [["text": message.content]]])
            case .assistant: contents.append(["role": "model", "parts": [["text": message.content]]])
            case .tool: contents.append(["role": "user", "parts": [["text": message.content]]])
            }
        }
        var body: [String: Any] = ["contents": contents]
        if !systemTexts.isEmpty {
            body["systemInstruction"] = ["parts": systemTexts.map { ["text": $0] }]
        }

        var generationConfig: [String: Any] = [:]
        let options = request.options
        if let temperature = options.temperature { generationConfig["temperature"] = temperature }
        if let topP = options.topP { generationConfig["topP"] = topP }
        if let maxOutputTokens = options.maxOutputTokens { generationConfig["maxOutputTokens"] = maxOutputTokens }
        if let seed = options.seed { generationConfig["seed"] = seed }
        if let stop = options.stop, !stop.isEmpty { generationConfig["stopSequences"] = stop }
        if let output = request.output {
            generationConfig["responseMimeType"] = "application/json"
            generationConfig["responseJsonSchema"] = RawJSON(output.schemaText)
        }

        let override = reasoningOverrides[request.reasoning.rawValue]
        var thinkingConfig: [String: Any] = [:]
        switch Self.thinking(for: request.reasoning, override: override) {
        case let .budget(tokens): thinkingConfig["thinkingBudget"] = tokens
        case let .level(name): thinkingConfig["thinkingLevel"] = name
        }
        if Self.includesThoughts(request.reasoning, override: override) { thinkingConfig["includeThoughts"] = true }
        generationConfig["thinkingConfig"] = thinkingConfig
        body["generationConfig"] = generationConfig

        GeminiTools.add(request, to: &body)
        RequestBody.merge(extraBody, into: &body)
        if let levelExtra = override?.extraBody { RequestBody.merge(levelExtra, into: &body) }
        return body
    }

    /// `{baseURL}/v1beta/models/{model}:streamGenerateContent?alt=sse`; a baseURL that already
    /// ends in a version segment (`/v1`, `/v1beta`, `/v1alpha`) keeps it.
    var streamURL: URL {
        var root = baseURL.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        if !Self.endsInVersion(baseURL) { root += "/v1beta" }
        let model = (self.model ?? "").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/:?#"))) ?? ""
        return URL(string: "\(root)/models/\(model):streamGenerateContent?alt=sse")!
    }

    private static func endsInVersion(_ url: URL) -> Bool {
        let last = url.path.split(separator: "/").last.map(String.init) ?? ""
        return last.range(of: #"^v[0-9]+((alpha|beta)[0-9]*)?$"#, options: .regularExpression) != nil
    }

    func httpRequest(for request: ModelRequest) throws -> HTTPStreamRequest {
        let data = JSONWriter.data(body(for: request))
        return HTTPStreamRequest(url: streamURL, method: "POST", headers: requestHeaders, body: data,
                                 timeoutSeconds: timeoutSeconds ?? request.timeoutSeconds, publicParts: publicParts)
    }
}

/// The Gemini API keeps no session state here: each request carries the whole history.
struct GeminiConversation: Conversation {
    let backend: GeminiBackend

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        await StreamedResponse.respond({ try backend.httpRequest(for: request) }, on: backend.transport,
                                       backend: backend.name,
                                       with: GeminiStreamReader(backend: backend.name, model: backend.model, stopwatch: Stopwatch()))
    }
}
