import Foundation

/// Kind `anthropic`: Anthropic's Messages API (and llama-server's `/v1/messages`), and one
/// backend's options.
public struct AnthropicKind: BackendKind {
    /// The config's `kind` value, `anthropic`.
    public static let name = "anthropic"
    /// The keys an `anthropic` backend accepts; `model` is required.
    public static let keys: [ConfigKey] = [
        ConfigKey.model.required, .baseURL, .apiKeyEnv, .headers, .headersFromEnv, .concurrency, .timeoutSeconds, .contextSize,
        promptCache, .reasoning, .extraBody, .structuredOutput, .pricing,
    ]
    /// Counted as paid: without `pricing` the cost is unknown, never 0.
    public static let costsMoney = true
    /// `auto` (default) puts `cache_control` breakpoints on the instructions and the newest
    /// message; `off` sends none.
    static let promptCache = ConfigKey("promptCache", .choice(["auto", "off"]))

    /// The server root without `/v1`; Anthropic's API when absent.
    public var baseURL: String?
    /// The environment variable holding the key sent as `x-api-key`; no key is sent when absent
    /// (as llama-server's `/v1/messages` needs none).
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
    /// Config `promptCache`: `auto` (the default when nil) or `off`.
    public var promptCache: String?
    /// Fields merged into every request body.
    public var extraBody: [String: JSONValue]?
    /// How a case's `output` schema is sent; `native` (`output_config.format`) when nil.
    public var structuredOutput: StructuredOutputMode?

    /// The options of an `anthropic` backend; nil fields take the defaults above.
    public init(baseURL: String? = nil, apiKeyEnv: String? = nil, headers: [String: String]? = nil,
                promptCache: String? = nil, extraBody: [String: JSONValue]? = nil,
                structuredOutput: StructuredOutputMode? = nil) {
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.headers = headers
        self.promptCache = promptCache
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
    }

    /// The options from the loader's values for `keys`; never nil, as every option is optional.
    public init?(_ values: ConfigValues) {
        self.init(baseURL: values.string("baseURL"), apiKeyEnv: values.string("apiKeyEnv"),
                  headers: values.headers("headers"), promptCache: values.string("promptCache"),
                  extraBody: values.object("extraBody"),
                  structuredOutput: values.string("structuredOutput").flatMap(StructuredOutputMode.init(rawValue:)))
        headersFromEnv = values.headers("headersFromEnv")
    }

    /// An Anthropic Messages backend. Throws a `Diagnostic` when `model` is missing or `baseURL`
    /// is not a URL.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        guard let model = config.model, !model.isEmpty else {
            throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' (kind anthropic) has no model",
                             fix: "set model, e.g. \"claude-sonnet-4-5\"")
        }
        var url = AnthropicBackend.defaultBaseURL
        if let baseURL {
            guard let parsed = URL(string: baseURL), parsed.scheme != nil else {
                throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' has no valid baseURL",
                                 fix: "set baseURL to the server root, e.g. \"https://api.anthropic.com\" or \"http://127.0.0.1:8080\"")
            }
            url = parsed
        }
        let sent = try context.headers(literal: headers, fromEnvironment: headersFromEnv, backend: config.name)
        return AnthropicBackend(name: config.name, model: model, baseURL: url, apiKey: context.apiKey(variable: apiKeyEnv),
                                headers: sent.values, publicParts: sent.publicParts,
                                concurrency: config.concurrency ?? context.defaultConcurrency,
                                promptCache: promptCache != "off", extraBody: extraBody ?? [:],
                                reasoning: config.reasoning ?? [:], structuredOutput: structuredOutput ?? .native,
                                transport: context.transport)
    }

    /// `baseURL`, `extraBody`, `promptCache` and `structuredOutput`, those that are set.
    public var cacheIdentity: [String: JSONValue] {
        var parts: [String: JSONValue] = [:]
        if let baseURL { parts["baseURL"] = .string(baseURL) }
        if let extraBody { parts["extraBody"] = .object(extraBody) }
        if let promptCache { parts["promptCache"] = .string(promptCache) }
        if let structuredOutput { parts["structuredOutput"] = .string(structuredOutput.rawValue) }
        return parts
    }
}

extension AnthropicKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? {
        #"{ "name": "claude", "kind": "anthropic", "model": "claude-sonnet-4-5", "apiKeyEnv": "ANTHROPIC_API_KEY", "pricing": { "inputPerMTok": 3, "cachedInputPerMTok": 0.3, "cacheWritePerMTok": 3.75, "outputPerMTok": 15 } }"#
    }
}
