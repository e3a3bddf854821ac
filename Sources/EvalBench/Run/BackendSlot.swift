import Foundation

/// One backend of a run with everything the runner knows about it: its prices, request
/// timeout, context window, prewarming, identity in the response cache and its answer to
/// `prepare()`, kept together instead of in tables keyed by backend name.
package struct BackendSlot: Sendable {
    /// The name the plan and the suites use for it.
    package var name: String
    package var backend: any Backend
    /// Its prices; nil leaves its results without a cost.
    package var pricing: Pricing?
    /// Its request timeout (config `timeoutSeconds`); nil uses the run's.
    package var timeoutSeconds: Double?
    /// Its context window (config `contextSize`), for `history.truncateToFit`.
    package var contextSize: Int?
    /// For HTTP backends, whether their config sets `prewarm`: true prewarms each conversation
    /// before its first turn; either way their results say how the session started. Nil for
    /// backends that do not tag sessions.
    package var prewarm: Bool?
    /// What stands for it in the response cache's keys; nil uses `name`.
    package var cacheIdentity: String?
    /// Whether `--cache` may answer its requests (false for the caller's own backends).
    package var cacheable: Bool
    /// Its answer to `prepare()`.
    package var availability: Availability = .available

    package init(name: String, backend: any Backend, pricing: Pricing? = nil, timeoutSeconds: Double? = nil,
                contextSize: Int? = nil, prewarm: Bool? = nil, cacheIdentity: String? = nil,
                cacheable: Bool = true) {
        self.name = name
        self.backend = backend
        self.pricing = pricing
        self.timeoutSeconds = timeoutSeconds
        self.contextSize = contextSize
        self.prewarm = prewarm
        self.cacheIdentity = cacheIdentity
        self.cacheable = cacheable
    }
}
