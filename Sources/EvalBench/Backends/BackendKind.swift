import Foundation

/// One kind of backend (the config's `"kind"`), and one configured backend's options of
/// that kind. The type knows everything evalbench needs about the kind: its name, the config
/// keys it accepts and their types, whether it costs money, where its model runs, how its
/// reasoning levels may be overridden, how to make the backend, and what makes two backends
/// of the kind answer alike (the response cache's identity). Nothing else matches on the name.
///
/// Adding a kind is adding a type that conforms and listing it in
/// `BackendKindRegistry.builtIn`; an app adds its own with `BackendKindRegistry.registering(_:)`.
public protocol BackendKind: Sendable, Codable, Equatable {
    /// The config's `kind` value, e.g. `openai`.
    static var name: String { get }
    /// Every key the kind's config object accepts besides `name` and `kind`, in the order
    /// messages list them. The loader reads and checks each by its type.
    static var keys: [ConfigKey] { get }
    /// Whether requests cost money. A kind that does not is charged at `Pricing.free` unless
    /// the config prices it; one that does has unknown cost without prices, never 0.
    static var costsMoney: Bool { get }
    /// Where the model runs; the recommendation asks for the on-device model and PCC.
    static var placement: BackendPlacement { get }
    /// Which fields a `reasoning.<level>` override may use on this kind.
    static var reasoningRules: ReasoningOverrideRules { get }
    /// Whether `--cache` may answer its requests from evalbench's response cache (default true).
    static var answersAreCacheable: Bool { get }
    /// One backend of this kind as a config object (JSON text), for the examples file
    /// `evalbench init` writes; nil (the default) leaves the kind out of it.
    static var example: String? { get }

    /// The kind's options, decoded from the values the loader read for `keys`; nil only when a
    /// required value is missing, which the loader has reported.
    init?(_ values: ConfigValues)

    /// Makes the backend `config` describes (its options are `self`). Throws a `Diagnostic`
    /// for a configuration it cannot use.
    func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend

    /// What shapes a request or picks the model besides `model` and `reasoning`: two backends
    /// with equal identities answer alike, so the response cache may share their answers.
    var cacheIdentity: [String: JSONValue] { get }

    /// The environment variable the config names for the API key, checked before a run.
    var apiKeyEnv: String? { get }

    /// The headers sent from environment variables (header → variable), checked before a run
    /// like `apiKeyEnv`.
    var headersFromEnv: [String: String]? { get }

    /// The headers written in plain sight and the base URL, for the checks a config built in
    /// Swift gets as a file does (no secret among them: `ConfigChecks`).
    var plainSight: (headers: [String: String], baseURL: String?) { get }

    /// Problems that show only beside the other backends (a fallback that names one).
    func problems(of config: BackendConfig, among backends: [BackendConfig]) -> [ConfigProblem]
}

extension BackendKind {
    /// Default: `remote`.
    public static var placement: BackendPlacement { .remote }
    /// Default: every override field accepted, and any `effort` text.
    public static var reasoningRules: ReasoningOverrideRules { ReasoningOverrideRules() }
    /// Default: true.
    public static var answersAreCacheable: Bool { true }
    /// No example.
    public static var example: String? { nil }
    /// Default: nil, no key to check.
    public var apiKeyEnv: String? { nil }
    /// Default: nil, no headers from the environment.
    public var headersFromEnv: [String: String]? { nil }
    /// Default: no headers and no URL.
    public var plainSight: (headers: [String: String], baseURL: String?) { ([:], nil) }
    /// Default: none.
    public func problems(of config: BackendConfig, among backends: [BackendConfig]) -> [ConfigProblem] { [] }

    /// Whether `other` is the same kind with equal options.
    func isEqual(to other: any BackendKind) -> Bool {
        (other as? Self) == self
    }
}

/// Where a backend's model runs.
public enum BackendPlacement: String, Sendable, Codable, Equatable {
    /// A server reached over the network (a cloud API, or a server someone else runs).
    case remote
    /// A server evalbench starts on this machine.
    case thisMachine
    /// Apple's on-device system model.
    case onDevice
    /// Apple's Private Cloud Compute.
    case privateCloudCompute
}

/// Which fields of a `reasoning.<level>` override a kind takes, and what the loader says
/// about one it does not.
public struct ReasoningOverrideRules: Sendable {
    /// A refused field (`effort`, `thinkingBudget`, `extraBody`) and the message and fix its
    /// error carries.
    public var refused: [String: (message: String, fix: String)]
    /// The only efforts the kind accepts, with what they are ("a ContextOptions reasoning
    /// level"); nil accepts any text.
    public var efforts: (values: [String], what: String)?

    /// Rules refusing the `refused` fields and, with `efforts`, any other effort; by default
    /// nothing is refused.
    public init(refused: [String: (message: String, fix: String)] = [:], efforts: (values: [String], what: String)? = nil) {
        self.refused = refused
        self.efforts = efforts
    }
}
