import Foundation

/// Kind `openai`: any OpenAI-compatible Chat Completions server, and one backend's options.
public struct OpenAIKind: BackendKind {
    /// The config's `kind` value, `openai`.
    public static let name = "openai"
    /// The keys an `openai` backend accepts; `baseURL` is required.
    public static let keys: [ConfigKey] = [
        .model, ConfigKey.baseURL.required, .apiKeyEnv, .headers, .headersFromEnv, .concurrency, .timeoutSeconds, .contextSize,
        .sendReasoningNone, maxTokensField, reasoningModel, .reasoning, .extraBody, .structuredOutput, .prewarm, .pricing,
    ]
    /// Counted as paid, since the server may be a cloud API: without `pricing` the cost is unknown,
    /// never 0 (price a local server at 0 to count it free).
    public static let costsMoney = true
    /// Refuses `thinkingBudget`: OpenAI-compatible servers have no standard field for it.
    public static let reasoningRules = ReasoningOverrideRules(refused: [
        "thinkingBudget": (message: "OpenAI-compatible servers have no standard thinking-budget field",
                           fix: "send the server's own field through \"extraBody\": llama.cpp {\"reasoning_budget_tokens\": 1024}, vLLM {\"thinking_token_budget\": 1024}"),
    ])
    /// `max_tokens` (default) or `max_completion_tokens` (OpenAI's reasoning models need it).
    static let maxTokensField = ConfigKey("maxTokensField", .choice(["max_tokens", "max_completion_tokens"]))
    /// Whether the model follows OpenAI's reasoning-model rules; see `reasoningModel`.
    static let reasoningModel = ConfigKey("reasoningModel", .bool)

    /// Base URL of the API, e.g. `http://127.0.0.1:8080/v1`.
    public var baseURL: String
    /// The environment variable holding the key sent as `Authorization: Bearer`; no key is sent
    /// when absent (a local server).
    public var apiKeyEnv: String?
    /// Extra HTTP headers, written in plain sight: their values must not be secrets, and an
    /// answer that quotes one keeps it (a credential goes in `headersFromEnv` or `apiKeyEnv`,
    /// whose values are redacted from everything a server sends back). One named like a
    /// default (`Content-Type`, `anthropic-version`) replaces it, whatever its case.
    public var headers: [String: String]?
    /// Extra HTTP headers read from environment variables: header → variable.
    public var headersFromEnv: [String: String]?
    /// `headers` and `baseURL`, checked for secrets when the config is built in Swift.
    public var plainSight: (headers: [String: String], baseURL: String?) { (headers ?? [:], baseURL) }
    /// Whether to send `reasoning_effort: "none"` for level `none` (some servers reject it);
    /// absent: only for a reasoning model.
    public var sendReasoningNone: Bool?
    /// The name of the output-token limit field; absent: `max_completion_tokens` for a
    /// reasoning model, `max_tokens` otherwise.
    public var maxTokensField: String?
    /// Whether the model is one of OpenAI's reasoning models, which take `max_completion_tokens`
    /// and reject `temperature`, `top_p` and `stop` while they reason; absent: true for
    /// `api.openai.com` with an `o1`, `o3`, `o4` or `gpt-5` (or later) model, false otherwise.
    public var reasoningModel: Bool?
    /// Fields merged into every request body.
    public var extraBody: [String: JSONValue]?
    /// How a case's `output` schema is sent; `native` (`response_format` `json_schema`) when nil.
    public var structuredOutput: StructuredOutputMode?

    /// The options of an `openai` backend; nil fields take the defaults above.
    public init(baseURL: String, apiKeyEnv: String? = nil, headers: [String: String]? = nil,
                sendReasoningNone: Bool? = nil, maxTokensField: String? = nil, extraBody: [String: JSONValue]? = nil,
                structuredOutput: StructuredOutputMode? = nil, reasoningModel: Bool? = nil) {
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.headers = headers
        self.sendReasoningNone = sendReasoningNone
        self.maxTokensField = maxTokensField
        self.reasoningModel = reasoningModel
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
    }

    /// The options from the loader's values for `keys`; nil when `baseURL` is missing.
    public init?(_ values: ConfigValues) {
        guard let baseURL = values.string("baseURL") else { return nil }
        self.init(baseURL: baseURL, apiKeyEnv: values.string("apiKeyEnv"), headers: values.headers("headers"),
                  sendReasoningNone: values.bool("sendReasoningNone"), maxTokensField: values.string("maxTokensField"),
                  extraBody: values.object("extraBody"),
                  structuredOutput: values.string("structuredOutput").flatMap(StructuredOutputMode.init(rawValue:)),
                  reasoningModel: values.bool("reasoningModel"))
        headersFromEnv = values.headers("headersFromEnv")
    }

    /// A Chat Completions backend. Throws a `Diagnostic` when `baseURL` is not a URL.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        guard let url = URL(string: baseURL) else {
            throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' has no valid baseURL",
                             fix: "set baseURL, e.g. \"http://127.0.0.1:8080/v1\"")
        }
        let sent = try context.headers(literal: headers, fromEnvironment: headersFromEnv, backend: config.name)
        return OpenAIBackend(name: config.name, model: config.model, baseURL: url,
                             apiKey: context.apiKey(variable: apiKeyEnv),
                             headers: sent.values, publicParts: sent.publicParts,
                             concurrency: config.concurrency ?? context.defaultConcurrency,
                             reasoningModel: reasoningModel
                                 ?? OpenAIBackend.isOpenAIReasoningModel(baseURL: url, model: config.model),
                             sendReasoningNone: sendReasoningNone,
                             reasoningOverrides: config.reasoning ?? [:], extraBody: extraBody ?? [:],
                             maxTokensField: maxTokensField,
                             structuredOutput: structuredOutput ?? .native, transport: context.transport)
    }

    /// `baseURL` and, those that are set, `extraBody`, `sendReasoningNone`, `maxTokensField` and
    /// `structuredOutput`.
    public var cacheIdentity: [String: JSONValue] {
        var parts: [String: JSONValue] = ["baseURL": .string(baseURL)]
        if let extraBody { parts["extraBody"] = .object(extraBody) }
        if let sendReasoningNone { parts["sendReasoningNone"] = .bool(sendReasoningNone) }
        if let maxTokensField { parts["maxTokensField"] = .string(maxTokensField) }
        if let reasoningModel { parts["reasoningModel"] = .bool(reasoningModel) }
        if let structuredOutput { parts["structuredOutput"] = .string(structuredOutput.rawValue) }
        return parts
    }
}

extension OpenAIKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? {
        #"{ "name": "gpt", "kind": "openai", "baseURL": "https://api.openai.com/v1", "model": "gpt-5-mini", "apiKeyEnv": "OPENAI_API_KEY", "pricing": { "inputPerMTok": 0.25, "cachedInputPerMTok": 0.025, "outputPerMTok": 2 } }"#
    }
}
