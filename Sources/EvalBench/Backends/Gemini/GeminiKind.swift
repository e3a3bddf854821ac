import Foundation

/// Kind `gemini`: Google's Gemini API, and one backend's options.
public struct GeminiKind: BackendKind {
    /// The config's `kind` value, `gemini`.
    public static let name = "gemini"
    /// The keys a `gemini` backend accepts; `model` is required.
    public static let keys: [ConfigKey] = [
        ConfigKey.model.required, .baseURL, .apiKeyEnv, .headers, .headersFromEnv, .concurrency, .timeoutSeconds, .contextSize,
        .reasoning, .extraBody, .structuredOutput, .pricing,
    ]
    /// Counted as paid: without `pricing` the cost is unknown, never 0.
    public static let costsMoney = true

    /// The API root; Google's when absent.
    public var baseURL: String?
    /// The key's variable; `GEMINI_API_KEY` when absent.
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
    /// Fields merged into every request body.
    public var extraBody: [String: JSONValue]?
    /// How a case's `output` schema is sent; `native` (`responseJsonSchema`) when nil.
    public var structuredOutput: StructuredOutputMode?

    /// The options of a `gemini` backend; nil fields take the defaults above.
    public init(baseURL: String? = nil, apiKeyEnv: String? = nil, headers: [String: String]? = nil,
                extraBody: [String: JSONValue]? = nil, structuredOutput: StructuredOutputMode? = nil) {
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.headers = headers
        self.extraBody = extraBody
        self.structuredOutput = structuredOutput
    }

    /// The options from the loader's values for `keys`; never nil, as every option is optional.
    public init?(_ values: ConfigValues) {
        self.init(baseURL: values.string("baseURL"), apiKeyEnv: values.string("apiKeyEnv"),
                  headers: values.headers("headers"), extraBody: values.object("extraBody"),
                  structuredOutput: values.string("structuredOutput").flatMap(StructuredOutputMode.init(rawValue:)))
        headersFromEnv = values.headers("headersFromEnv")
    }

    /// A Gemini backend. Throws a `Diagnostic` when `model` is missing or `baseURL` is not a URL.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        var url = GeminiBackend.defaultBaseURL
        if let baseURL {
            guard let parsed = URL(string: baseURL) else {
                throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' has no valid baseURL",
                                 fix: "set baseURL, e.g. \"https://generativelanguage.googleapis.com\", or leave it out")
            }
            url = parsed
        }
        guard let model = config.model, !model.isEmpty else {
            throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' names no model",
                             fix: "set \"model\", e.g. \"gemini-2.5-flash\"")
        }
        let variable = apiKeyEnv ?? GeminiBackend.defaultAPIKeyVariable
        let sent = try context.headers(literal: headers, fromEnvironment: headersFromEnv, backend: config.name)
        return GeminiBackend(name: config.name, model: model, baseURL: url,
                             apiKey: context.apiKey(variable: variable), apiKeyVariable: variable,
                             headers: sent.values, publicParts: sent.publicParts,
                             concurrency: config.concurrency ?? context.defaultConcurrency,
                             timeoutSeconds: config.timeoutSeconds, reasoningOverrides: config.reasoning ?? [:],
                             extraBody: extraBody ?? [:], structuredOutput: structuredOutput ?? .native,
                             transport: context.transport)
    }

    /// `baseURL`, `extraBody` and `structuredOutput`, those that are set.
    public var cacheIdentity: [String: JSONValue] {
        var parts: [String: JSONValue] = [:]
        if let baseURL { parts["baseURL"] = .string(baseURL) }
        if let extraBody { parts["extraBody"] = .object(extraBody) }
        if let structuredOutput { parts["structuredOutput"] = .string(structuredOutput.rawValue) }
        return parts
    }
}

extension GeminiKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? {
        #"{ "name": "gemini", "kind": "gemini", "model": "gemini-2.5-flash", "apiKeyEnv": "GEMINI_API_KEY" }"#
    }
}
