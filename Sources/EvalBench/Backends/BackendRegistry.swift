import Foundation

/// Makes a backend from its configuration; one per kind.
public typealias BackendFactory = @Sendable (BackendConfig, BackendContext) throws -> any Backend

/// What a backend factory may use besides its own configuration.
public struct BackendContext: Sendable {
    /// The process environment, for API keys (never logged).
    public var environment: [String: String]
    public var transport: any HTTPStreaming
    /// Where managed servers write their logs.
    public var logDirectory: URL
    public var defaultConcurrency: Int
    /// Every configured backend, for a backend that names another (`fallback`).
    public var backendConfigs: [BackendConfig]

    public init(environment: [String: String], transport: any HTTPStreaming, logDirectory: URL,
                defaultConcurrency: Int, backendConfigs: [BackendConfig] = []) {
        self.environment = environment
        self.transport = transport
        self.logDirectory = logDirectory
        self.defaultConcurrency = defaultConcurrency
        self.backendConfigs = backendConfigs
    }

    /// The API key a backend names with `apiKeyEnv`, if set and not empty.
    public func apiKey(for config: BackendConfig) -> String? {
        guard let variable = config.apiKeyEnv, let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }
}

/// Backend kinds by name. Adding a kind means adding its file and one entry here.
public enum BackendRegistry {
    public static let factories: [String: BackendFactory] = [
        "openai": OpenAIBackend.make,
        "anthropic": AnthropicBackend.make,
        "gemini": GeminiBackend.make,
        "llama-server": LlamaServerBackend.make,
        "apple-system": AppleBackend.makeOnDevice,
        "apple-pcc": AppleBackend.makePrivateCloudCompute,
        "replay": ReplayBackend.make,
    ]

    /// Every kind the loader accepts, implemented or not.
    public static let knownKinds = ["openai", "llama-server", "anthropic", "gemini", "apple-system", "apple-pcc", "replay"]

    public static func make(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        guard let factory = factories[config.kind] else {
            return UnavailableBackend(config: config, reason: "backend kind '\(config.kind)' is not implemented in this version of evalbench")
        }
        return try factory(config, context)
    }
}

extension OpenAIBackend {
    static let make: BackendFactory = { config, context in
        guard let text = config.baseURL, let baseURL = URL(string: text) else {
            throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' has no valid baseURL",
                             fix: "set baseURL, e.g. \"http://127.0.0.1:8080/v1\"")
        }
        return OpenAIBackend(name: config.name, model: config.model, baseURL: baseURL,
                             apiKey: context.apiKey(for: config), headers: config.headers ?? [:],
                             concurrency: config.concurrency ?? context.defaultConcurrency,
                             sendReasoningNone: config.sendReasoningNone ?? false,
                             reasoningOverrides: config.reasoning ?? [:], extraBody: config.extraBody ?? [:],
                             maxTokensField: config.maxTokensField ?? "max_tokens",
                             structuredOutput: config.structuredOutput ?? .native, transport: context.transport)
    }
}
