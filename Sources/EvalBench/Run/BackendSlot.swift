import Foundation

/// One backend of a run with everything the runner knows about it: its prices, request
/// timeout, context window, prewarming, identity in the response cache and its answer to
/// `prepare()`, kept together instead of in tables keyed by backend name.
public struct BackendSlot: Sendable {
    /// The name the plan and the suites use for it.
    public var name: String
    public var backend: any Backend
    /// Its prices; nil leaves its results without a cost.
    public var pricing: Pricing?
    /// Its request timeout (config `timeoutSeconds`); nil uses the run's.
    public var timeoutSeconds: Double?
    /// Its context window (config `contextSize`), for `history.truncateToFit`.
    public var contextSize: Int?
    /// For HTTP backends, whether their config sets `prewarm`: true prewarms each conversation
    /// before its first turn; either way their results say how the session started. Nil for
    /// backends that do not tag sessions.
    public var prewarm: Bool?
    /// What stands for it in the response cache's keys; nil uses `name`.
    public var cacheIdentity: String?
    /// Its answer to `prepare()`.
    public var availability: Availability = .available

    public init(name: String, backend: any Backend, pricing: Pricing? = nil, timeoutSeconds: Double? = nil,
                contextSize: Int? = nil, prewarm: Bool? = nil, cacheIdentity: String? = nil) {
        self.name = name
        self.backend = backend
        self.pricing = pricing
        self.timeoutSeconds = timeoutSeconds
        self.contextSize = contextSize
        self.prewarm = prewarm
        self.cacheIdentity = cacheIdentity
    }
}
