import Foundation

/// The backend kinds a config may name. A value, passed to the loader
/// (`Evaluation.backendKinds`), so that an app adds a kind of its own without global state:
///
/// ```swift
/// var evaluation = Evaluation(suites: [.file("evals/support.json")], config: .file("evalbench.json"))
/// evaluation.backendKinds = .builtIn.registering(MyKind.self)
/// ```
public struct BackendKindRegistry: Sendable {
    /// The kinds evalbench ships, in the order the documentation lists them. Adding a kind to
    /// evalbench is adding its folder under Backends/ and one line here.
    public static let builtIn = BackendKindRegistry([
        OpenAIKind.self,
        LlamaServerKind.self,
        AnthropicKind.self,
        GeminiKind.self,
        AppleSystemKind.self,
        ApplePCCKind.self,
        ReplayKind.self,
    ])

    /// Every kind, in order.
    public let kinds: [any BackendKind.Type]

    /// A registry of exactly `kinds`, in this order; the first of a name wins a lookup.
    public init(_ kinds: [any BackendKind.Type]) {
        self.kinds = kinds
    }

    /// These kinds and `kind`, which replaces a kind of the same name.
    public func registering(_ kind: any BackendKind.Type) -> BackendKindRegistry {
        BackendKindRegistry(kinds.filter { $0.name != kind.name } + [kind])
    }

    /// The kind of this name, if registered.
    public func kind(named name: String) -> (any BackendKind.Type)? {
        kinds.first { $0.name == name }
    }

    /// Every kind's name, in order.
    public var names: [String] { kinds.map { $0.name } }

    /// Where `BackendConfig`'s decoder looks for the registry that decodes kind options;
    /// the built-in kinds when absent.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "evalbench.backendKinds")!
}

/// What a backend factory may use besides its own configuration.
public struct BackendContext: Sendable {
    /// The process environment, for API keys (never logged).
    public var environment: [String: String]
    /// The HTTP transport evalbench's own kinds stream through (tests script it).
    package var transport: any HTTPStreaming
    /// Where managed servers write their logs.
    public var logDirectory: URL
    /// Requests in flight at once for a backend whose config sets no `concurrency`: the run's
    /// `--concurrency`, else the config's `defaults.concurrency`.
    public var defaultConcurrency: Int
    /// Every configured backend, for a backend that names another (`fallback`).
    public var backendConfigs: [BackendConfig]

    /// A context for making backends outside a run (a test of a kind of one's own).
    public init(environment: [String: String], logDirectory: URL, defaultConcurrency: Int,
                backendConfigs: [BackendConfig] = []) {
        self.init(environment: environment, transport: DefaultStreamTransport(), logDirectory: logDirectory,
                  defaultConcurrency: defaultConcurrency, backendConfigs: backendConfigs)
    }

    package init(environment: [String: String], transport: any HTTPStreaming, logDirectory: URL,
                defaultConcurrency: Int, backendConfigs: [BackendConfig] = []) {
        self.environment = environment
        self.transport = transport
        self.logDirectory = logDirectory
        self.defaultConcurrency = defaultConcurrency
        self.backendConfigs = backendConfigs
    }

    /// The headers `headersFromEnv` names (header → variable), with each variable's value;
    /// a variable that is unset or empty is an error that names it, never its value.
    public func headers(fromEnvironment variables: [String: String]?, backend: String) throws -> [String: String] {
        var headers: [String: String] = [:]
        for (header, variable) in variables ?? [:] {
            guard let value = environment[variable], !value.isEmpty else {
                throw Diagnostic(file: "evalbench.json", message: "backend '\(backend)' sends the header '\(header)' from the environment variable \(variable), which is not set",
                                 fix: "export \(variable)=... before running, or select another backend with --backend")
            }
            headers[header] = value
        }
        return headers
    }

    /// A backend's headers, the config's literal `headers` and those `headersFromEnv` names,
    /// one value for each name whatever the case it is written in (the environment's wins:
    /// two lines of one header would send both), with what of the request is public.
    package func headers(literal: [String: String]?, fromEnvironment variables: [String: String]?,
                         backend: String) throws -> (values: [String: String], publicParts: PublicRequestParts) {
        let values = HeaderLayers.merged(literal ?? [:], try headers(fromEnvironment: variables, backend: backend))
        return (values, .config(literal: literal, fromEnvironment: variables))
    }

    /// The value of the environment variable `variable`, if it is set and not empty.
    public func apiKey(variable: String?) -> String? {
        guard let variable, let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }
}
