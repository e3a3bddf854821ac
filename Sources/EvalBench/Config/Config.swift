import Foundation

/// The backend configuration (`evalbench.json`): which backends exist and run defaults.
public struct Config: Sendable, Codable, Equatable {
    /// The file the config was loaded from, or nil for the built-in default.
    public var file: String?
    /// The configured backends, in the order the config lists them; names are unique.
    public var backends: [BackendConfig]
    /// The config's `defaults`: run settings when the command line sets none.
    public var defaults: RunDefaults

    /// A config of `backends` with `defaults`; `file` is nil for one built in Swift.
    public init(file: String? = nil, backends: [BackendConfig], defaults: RunDefaults = RunDefaults()) {
        self.file = file
        self.backends = backends
        self.defaults = defaults
    }

    /// The backend of this name, if configured.
    public func backend(named name: String) -> BackendConfig? {
        backends.first { $0.name == name }
    }
}

/// Run settings that apply unless the command line overrides them.
public struct RunDefaults: Sendable, Codable, Equatable {
    /// Requests in flight at once across all backends.
    public var concurrency: Int
    /// Per-request timeout, from handing the request to the transport to the end of the stream.
    public var timeoutSeconds: Double
    /// Retries after the first attempt, for retryable error kinds only.
    public var retries: Int
    /// Backends a run uses when no `--backend` is given; nil means every configured backend.
    public var backends: [String]?
    /// Reasoning levels a run uses when neither `--reasoning` nor the suite names any; nil means `none`.
    public var reasoning: [ReasoningLevel]?
    /// `failFastAfter`: after this many consecutive identical non-retryable failures on one
    /// backend (the same error kind and message, such as a 400 for a wrong parameter), its
    /// remaining case runs are skipped with the reason; 0 never stops. Nil means 5.
    public var failFastAfter: Int?
    /// The most bytes one response body may have before it is cut off and recorded as
    /// `response_too_large`; nil means 16 MiB.
    public var maxResponseBytes: Int?
    /// How long one assertion may take to grade before it is recorded as failed with the error
    /// `grading_timeout`; nil means 10 s.
    public var gradingTimeoutSeconds: Double?

    /// The fail-fast limit in effect: `failFastAfter`, else 5.
    package var failFastLimit: Int { failFastAfter ?? 5 }

    /// Defaults: 4 requests in flight, a 120 s timeout, 3 retries, every configured backend and
    /// level `none`.
    public init(concurrency: Int = 4, timeoutSeconds: Double = 120, retries: Int = 3,
                backends: [String]? = nil, reasoning: [ReasoningLevel]? = nil) {
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.retries = retries
        self.backends = backends
        self.reasoning = reasoning
    }
}

/// One configured backend: the fields every kind shares, and its kind's own options.
public struct BackendConfig: Sendable, Equatable, Codable {
    /// The backend's name, unique in the config: results, reports and `--backend` use it.
    public var name: String
    /// The kind's name (`openai`, `llama-server`, …), as the config wrote it.
    public let kind: String
    /// The model name sent to the server and shown in reports.
    public var model: String?
    /// Requests in flight at once on this backend.
    public var concurrency: Int?
    /// Overrides `defaults.timeoutSeconds` for this backend.
    public var timeoutSeconds: Double?
    /// The model's context window in tokens (llama-server: `-c` is this × `concurrency`, so
    /// that each parallel slot has the whole window).
    public var contextSize: Int?
    /// Prices in US dollars; absent means cost is unknown (empty), not zero, except for the
    /// kinds that cost no money (see `chargedPricing`).
    public var pricing: Pricing?
    /// Per-level overrides of the kind's reasoning mapping, keyed by level name.
    public var reasoning: [String: ReasoningOverride]?
    /// Warm each new session before its first, timed request (recorded as warm or cold).
    public var prewarm: Bool?
    /// The kind, with this backend's options of it.
    public var options: any BackendKind
    /// Where each of its keys was written in the config file, for diagnostics made after
    /// loading (an unset `apiKeyEnv` variable); empty for a config built in Swift or read
    /// from run.json. Not part of equality or of the encoding.
    package var keyLocations: [String: SourceLocation] = [:]

    /// A backend named `name` of the kind and options `options`. Nil fields are unset: concurrency
    /// and timeout then come from the run's defaults, and without `pricing` the cost is unknown
    /// unless the kind costs no money.
    public init(name: String, model: String? = nil, concurrency: Int? = nil, timeoutSeconds: Double? = nil,
                contextSize: Int? = nil, pricing: Pricing? = nil, reasoning: [String: ReasoningOverride]? = nil,
                prewarm: Bool? = nil, options: any BackendKind) {
        self.name = name
        self.kind = type(of: options).name
        self.model = model
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.contextSize = contextSize
        self.pricing = pricing
        self.reasoning = reasoning
        self.prewarm = prewarm
        self.options = options
    }

    /// The fields every kind shares from `values`, with the kind's options decoded from them;
    /// nil when the kind finds a required value missing.
    init?(name: String, kind: any BackendKind.Type, values: ConfigValues) {
        guard let options = kind.init(values) else { return nil }
        self.init(name: name, model: values.string("model"), concurrency: values.integer("concurrency"),
                  timeoutSeconds: values.number("timeoutSeconds"), contextSize: values.integer("contextSize"),
                  pricing: values.pricing("pricing"), reasoning: values.reasoning("reasoning"),
                  prewarm: values.bool("prewarm"), options: options)
    }

    /// The options, when the backend is of kind `Kind`.
    public func options<Kind: BackendKind>(as kind: Kind.Type) -> Kind? {
        options as? Kind
    }

    /// Makes the backend, as its kind does.
    public func makeBackend(context: BackendContext) throws -> any Backend {
        try options.makeBackend(self, context: context)
    }

    /// Whether requests cost money (see `BackendKind.costsMoney`).
    public var costsMoney: Bool { type(of: options).costsMoney }

    /// Where the model runs (see `BackendKind.placement`).
    public var placement: BackendPlacement { type(of: options).placement }

    /// The prices its requests are charged at: the configured `pricing`; else `Pricing.free`
    /// for a kind that costs no money; else nil, so the cost of a cloud backend without
    /// prices stays unknown (empty), never 0.
    public var chargedPricing: Pricing? {
        pricing ?? (costsMoney ? nil : .free)
    }

    public static func == (lhs: BackendConfig, rhs: BackendConfig) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.model == rhs.model && lhs.concurrency == rhs.concurrency
            && lhs.timeoutSeconds == rhs.timeoutSeconds && lhs.contextSize == rhs.contextSize
            && lhs.pricing == rhs.pricing && lhs.reasoning == rhs.reasoning && lhs.prewarm == rhs.prewarm
            && lhs.options.isEqual(to: rhs.options)
    }

    private enum CodingKeys: String, CodingKey {
        case name, kind, model, concurrency, timeoutSeconds, contextSize, pricing, reasoning, prewarm
    }

    /// One flat object, as the config file writes it: the shared fields and the kind's options.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(model, forKey: .model)
        try container.encodeIfPresent(concurrency, forKey: .concurrency)
        try container.encodeIfPresent(timeoutSeconds, forKey: .timeoutSeconds)
        try container.encodeIfPresent(contextSize, forKey: .contextSize)
        try container.encodeIfPresent(pricing, forKey: .pricing)
        try container.encodeIfPresent(reasoning, forKey: .reasoning)
        try container.encodeIfPresent(prewarm, forKey: .prewarm)
        try options.encode(to: encoder)
    }

    /// Reads what `encode(to:)` wrote (a run's `run.json`); the options are decoded by the
    /// kind of that name in `BackendKindRegistry.userInfoKey`'s registry (default the built-in
    /// kinds), and kept as recorded for a kind it does not know.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        kind = try container.decode(String.self, forKey: .kind)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        concurrency = try container.decodeIfPresent(Int.self, forKey: .concurrency)
        timeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
        contextSize = try container.decodeIfPresent(Int.self, forKey: .contextSize)
        pricing = try container.decodeIfPresent(Pricing.self, forKey: .pricing)
        reasoning = try container.decodeIfPresent([String: ReasoningOverride].self, forKey: .reasoning)
        prewarm = try container.decodeIfPresent(Bool.self, forKey: .prewarm)
        let registry = decoder.userInfo[BackendKindRegistry.userInfoKey] as? BackendKindRegistry ?? .builtIn
        if let kindType = registry.kind(named: kind) {
            options = try kindType.init(from: decoder)
        } else {
            options = try RecordedKind(from: decoder)
        }
    }
}

/// The options of a kind this build does not know, as a run recorded them: reports still
/// show the backend, and making it says why it cannot run.
struct RecordedKind: BackendKind {
    static let name = "recorded"
    static let keys: [ConfigKey] = []
    static let costsMoney = true
    var fields: [String: JSONValue]

    init?(_ values: ConfigValues) { nil }

    init(from decoder: any Decoder) throws {
        var fields = try JSONValue(from: decoder).objectMembers ?? [:]
        for key in ["name", "kind", "model", "concurrency", "timeoutSeconds", "contextSize", "pricing", "reasoning", "prewarm"] {
            fields.removeValue(forKey: key)
        }
        self.fields = fields
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in fields { try container.encode(value, forKey: AnyKey(key)) }
    }

    func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        UnavailableBackend(config: config, reason: "backend kind '\(config.kind)' is not implemented in this version of evalbench")
    }

    var cacheIdentity: [String: JSONValue] { fields }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension JSONValue {
    /// The members of an object; nil for any other value.
    var objectMembers: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }
}

/// A backend's prices per million tokens, and optionally per request, in US dollars.
public struct Pricing: Sendable, Codable, Equatable {
    /// Uncached input tokens.
    public var inputPerMTok: Double?
    /// Input tokens read from the prompt cache; the input price when absent.
    public var cachedInputPerMTok: Double?
    /// Input tokens written to the prompt cache; the input price when absent.
    public var cacheWritePerMTok: Double?
    /// Output tokens, reasoning included; absent, output is not charged (but with no price at all
    /// the cost is unknown).
    public var outputPerMTok: Double?
    /// A flat price per request, added to the token prices.
    public var perRequest: Double?

    /// No charge for anything: what the free kinds cost.
    public static let free = Pricing(perRequest: 0)

    /// Prices per million tokens and per request in US dollars. A nil price is not charged; with
    /// none at all the cost is unknown.
    public init(inputPerMTok: Double? = nil, cachedInputPerMTok: Double? = nil,
                cacheWritePerMTok: Double? = nil, outputPerMTok: Double? = nil, perRequest: Double? = nil) {
        self.inputPerMTok = inputPerMTok
        self.cachedInputPerMTok = cachedInputPerMTok
        self.cacheWritePerMTok = cacheWritePerMTok
        self.outputPerMTok = outputPerMTok
        self.perRequest = perRequest
    }
}
