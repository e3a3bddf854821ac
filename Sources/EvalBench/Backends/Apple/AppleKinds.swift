import Foundation

/// Kind `apple-system`: Apple's on-device system model, which has no options of its own.
public struct AppleSystemKind: BackendKind {
    /// The config's `kind` value, `apple-system`.
    public static let name = AppleModel.onDevice.rawValue
    /// The keys an `apple-system` backend accepts: shared ones only, and no `pricing` (it is free);
    /// `model` only names it in reports.
    public static let keys: [ConfigKey] = [.model, .concurrency, .timeoutSeconds, .contextSize, .prewarm, .reasoning]
    /// The on-device model costs no money.
    public static let costsMoney = false
    /// The model runs on this device.
    public static let placement = BackendPlacement.onDevice
    /// Refuses every override field but `unsupported`: the on-device model has no reasoning levels.
    public static let reasoningRules = ReasoningOverrideRules(refused: [
        "thinkingBudget": (message: "kind '\(name)' takes no \"thinkingBudget\"", fix: noLevels),
        "extraBody": (message: "kind '\(name)' takes no \"extraBody\"", fix: noLevels),
        "effort": (message: "the on-device model has no reasoning levels to send",
                   fix: "remove \"effort\"; levels above none are skipped on \(name)"),
    ])
    private static let noLevels = "the on-device model has no reasoning levels; only \"unsupported\" applies"

    /// The options of an `apple-system` backend: there are none.
    public init() {}
    /// The options from the loader's values; never nil.
    public init?(_ values: ConfigValues) {}

    /// The real driver where FoundationModels exists, else one that says why not.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        AppleBackend(config: config, driver: AppleBackend.platformDriver(.onDevice), defaultConcurrency: context.defaultConcurrency)
    }

    /// Empty: there are no options, and the model is the device's.
    public var cacheIdentity: [String: JSONValue] { [:] }
}

/// Kind `apple-pcc`: Apple's Private Cloud Compute, with an optional on-device fallback.
public struct ApplePCCKind: BackendKind {
    /// The config's `kind` value, `apple-pcc`.
    public static let name = AppleModel.privateCloudCompute.rawValue
    /// The keys an `apple-pcc` backend accepts: shared ones (no `pricing`) and `fallback`.
    public static let keys: [ConfigKey] = [.model, .concurrency, .timeoutSeconds, .contextSize, .prewarm, .reasoning,
                                           ConfigKey("fallback", .string)]
    /// Free in dollars; it spends the user's daily request quota instead.
    public static let costsMoney = false
    /// The model runs on Apple's Private Cloud Compute.
    public static let placement = BackendPlacement.privateCloudCompute
    /// Takes `effort` as a ContextOptions reasoning level (`light`, `moderate`, `deep`) and refuses
    /// `thinkingBudget` and `extraBody`.
    public static let reasoningRules = ReasoningOverrideRules(
        refused: [
            "thinkingBudget": (message: "kind '\(name)' takes no \"thinkingBudget\"", fix: useLevels),
            "extraBody": (message: "kind '\(name)' takes no \"extraBody\"", fix: useLevels),
        ],
        efforts: (values: ["light", "moderate", "deep"], what: "a ContextOptions reasoning level"))
    private static let useLevels = "use \"effort\": \"light\", \"moderate\" or \"deep\" (a ContextOptions reasoning level), or \"unsupported\""

    /// The apple-system backend that answers a request PCC could not reach; each such answer
    /// is recorded as a fallback.
    public var fallback: String?

    /// The options of an `apple-pcc` backend; no fallback by default.
    public init(fallback: String? = nil) {
        self.fallback = fallback
    }

    /// The options from the loader's values; never nil.
    public init?(_ values: ConfigValues) {
        fallback = values.string("fallback")
    }

    /// A PCC backend, with the `fallback` backend made from the context's configs. Throws a
    /// `Diagnostic` when `fallback` names no configured `apple-system` backend.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        var fallbackBackend: (any Backend)?
        if let fallback {
            guard let fallbackConfig = context.backendConfigs.first(where: { $0.name == fallback }),
                  fallbackConfig.options is AppleSystemKind else {
                throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' falls back to '\(fallback)', which is not a configured \(AppleSystemKind.name) backend",
                                 fix: "name an \(AppleSystemKind.name) backend in \"fallback\", or remove it")
            }
            fallbackBackend = try fallbackConfig.makeBackend(context: context)
        }
        return AppleBackend(config: config, driver: AppleBackend.platformDriver(.privateCloudCompute), fallback: fallbackBackend,
                            defaultConcurrency: context.defaultConcurrency)
    }

    /// Empty: the fallback does not shape PCC's answers, and the model is Apple's.
    public var cacheIdentity: [String: JSONValue] { [:] }

    /// A `fallback` must name another configured backend, of kind `apple-system`.
    public func problems(of config: BackendConfig, among backends: [BackendConfig]) -> [ConfigProblem] {
        guard let fallback else { return [] }
        let fix = "name an \(AppleSystemKind.name) backend"
        guard fallback != config.name else {
            return [ConfigProblem(key: "fallback", message: "backend '\(fallback)' cannot fall back to itself", fix: fix)]
        }
        guard let target = backends.first(where: { $0.name == fallback }) else {
            let others = backends.map(\.name).filter { $0 != config.name }
            let hint = suggestion(for: fallback, among: others).map { "; did you mean '\($0)'?" } ?? ""
            return [ConfigProblem(key: "fallback", message: "no backend named '\(fallback)'\(hint)",
                                  fix: "name an \(AppleSystemKind.name) backend from this config, e.g. { \"name\": \"on-device\", \"kind\": \"\(AppleSystemKind.name)\" }")]
        }
        guard target.options is AppleSystemKind else {
            return [ConfigProblem(key: "fallback",
                                  message: "backend '\(config.name)' falls back to '\(fallback)', whose kind is \(target.kind); a PCC network failure is retried on the on-device model",
                                  fix: fix)]
        }
        return []
    }
}

extension AppleBackend {
    static func platformDriver(_ model: AppleModel) -> any AppleModelDriving {
        #if canImport(FoundationModels)
        switch model {
        case .onDevice: return FoundationModelsDriver.make(model)
        case .privateCloudCompute: return EntitledPCCDriver(checker: ProcessEntitlements()) { FoundationModelsDriver.make(model) }
        }
        #else
        return UnavailableAppleDriver(model: model, reason: .frameworkMissing(platform: hostPlatformName))
        #endif
    }

    static var hostPlatformName: String {
        #if os(Linux)
        "Linux"
        #elseif os(Windows)
        "Windows"
        #else
        "this platform"
        #endif
    }
}

/// The driver of a model that cannot run here: it reports why, and a session made anyway
/// fails every request with that reason.
struct UnavailableAppleDriver: AppleModelDriving {
    let model: AppleModel
    let reason: AppleUnavailableReason

    func availability() async -> AppleAvailability { .unavailable(reason) }
    func contextSize() async -> Int? { nil }
    func tokenCount(of input: AppleTokenInput) async -> Int? { nil }
    func quota() async -> AppleQuotaReading? { nil }
    func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving {
        unavailableSession
    }

    /// A session that fails every request with the reason, as `unavailable`.
    var unavailableSession: any AppleSessionDriving {
        Session(message: reason.message(for: model))
    }

    private struct Session: AppleSessionDriving {
        let message: String
        func prewarm() {}
        func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error> {
            AsyncThrowingStream { $0.finish(throwing: AppleModelError.unavailable(message)) }
        }
    }
}

extension AppleSystemKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? { #"{ "name": "device", "kind": "apple-system", "contextSize": 4096 }"# }
}

extension ApplePCCKind {
    /// The example `evalbench init` writes into evalbench.examples.json.
    public static var example: String? { #"{ "name": "pcc", "kind": "apple-pcc", "fallback": "device" }"# }
}
