import Foundation

/// Kind `openai`: any OpenAI-compatible Chat Completions server, and one backend's options.
public struct OpenAIKind: BackendKind {
    public static let name = "openai"
    public static let keys: [ConfigKey] = [
        .model, ConfigKey.baseURL.required, .apiKeyEnv, .headers, .headersFromEnv, .concurrency, .timeoutSeconds, .contextSize,
        .sendReasoningNone, maxTokensField, .reasoning, .extraBody, .structuredOutput, .prewarm, .pricing,
    ]
    public static let costsMoney = true
    public static let reasoningRules = ReasoningOverrideRules(refused: [
        "thinkingBudget": (message: "OpenAI-compatible servers have no standard thinking-budget field",
                           fix: "send the server's own field through \"extraBody\": llama.cpp {\"reasoning_budget_tokens\": 1024}, vLLM {\"thinking_token_budget\": 1024}"),
    ])
    /// `max_tokens` (default) or `max_completion_tokens` (OpenAI's reasoning models need it).
    static let maxTokensField = ConfigKey("maxTokensField", .choice(["max_tokens", "max_completion_tokens"]))

    /// Base URL of the API, e.g. `http://127.0.0.1:8080/v1`.
    public var baseURL: String
    public var apiKeyEnv: String?
    /// Extra HTTP headers (values must not be secrets; use `apiKeyEnv`).
    public var headers: [String: String]?
    /// Extra HTTP headers read from environment variables: header → variable.
    public var headersFromEnv: [String: String]?
    /// Whether to send `reasoning_effort: "none"` for level `none` (some servers reject it).
    public var sendReasoningNone: Bool?
    /// The name of the output-token limit field.
    public var maxTokensField: String?
    /// Fields merged into every request body.
    public var extraBody: [String: JSONValue]?
    public var structuredOutput: StructuredOutputMode?

    public init(baseURL: String, apiKeyEnv: String? = nil, headers: [String: String]? = nil,
                sendReasoningNone: Bool? = nil, maxTokensField: String? = nil, extraBody: [String: JSONValue]? = nil,
                structuredOutput: StructuredOutputMode? = nil) {
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.headers = headers
        self.sendReasoningNone = sendReasoningNone
        self.maxTokensField = maxTokensField
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
    }

    public init?(_ values: ConfigValues) {
        guard let baseURL = values.string("baseURL") else { return nil }
        self.init(baseURL: baseURL, apiKeyEnv: values.string("apiKeyEnv"), headers: values.headers("headers"),
                  sendReasoningNone: values.bool("sendReasoningNone"), maxTokensField: values.string("maxTokensField"),
                  extraBody: values.object("extraBody"),
                  structuredOutput: values.string("structuredOutput").flatMap(StructuredOutputMode.init(rawValue:)))
        headersFromEnv = values.headers("headersFromEnv")
    }

    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        guard let url = URL(string: baseURL) else {
            throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' has no valid baseURL",
                             fix: "set baseURL, e.g. \"http://127.0.0.1:8080/v1\"")
        }
        return OpenAIBackend(name: config.name, model: config.model, baseURL: url,
                             apiKey: context.apiKey(variable: apiKeyEnv),
                             headers: (headers ?? [:]).merging(try context.headers(fromEnvironment: headersFromEnv, backend: config.name)) { $1 },
                             concurrency: config.concurrency ?? context.defaultConcurrency,
                             sendReasoningNone: sendReasoningNone ?? false,
                             reasoningOverrides: config.reasoning ?? [:], extraBody: extraBody ?? [:],
                             maxTokensField: maxTokensField ?? "max_tokens",
                             structuredOutput: structuredOutput ?? .native, transport: context.transport)
    }

    public var cacheIdentity: [String: JSONValue] {
        var parts: [String: JSONValue] = ["baseURL": .string(baseURL)]
        if let extraBody { parts["extraBody"] = .object(extraBody) }
        if let sendReasoningNone { parts["sendReasoningNone"] = .bool(sendReasoningNone) }
        if let maxTokensField { parts["maxTokensField"] = .string(maxTokensField) }
        if let structuredOutput { parts["structuredOutput"] = .string(structuredOutput.rawValue) }
        return parts
    }
}
