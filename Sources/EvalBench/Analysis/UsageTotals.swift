/// Token sums over many requests. Each sum is nil until some request reported that figure,
/// so "not reported" never reads as 0; the cache-hit ratio is token-weighted. A request whose
/// figures cannot all be true (`Usage.implausibility`) is counted apart and left out of every sum.
public struct UsageTotals: Sendable, Equatable {
    /// Σ input tokens over the requests that reported them.
    public private(set) var inputTokens: Int?
    /// Σ cached input tokens over the requests that reported them.
    public private(set) var cachedInputTokens: Int?
    /// Σ input tokens written to the prompt cache over the requests that reported them.
    public private(set) var cacheWriteInputTokens: Int?
    /// Σ output tokens over the requests that reported them.
    public private(set) var outputTokens: Int?
    /// Σ reasoning tokens over the requests that reported them.
    public private(set) var reasoningTokens: Int?
    /// Requests whose reported figures cannot all be true, left out of the sums above.
    public private(set) var suspectRequests = 0
    /// Σ cached and Σ input over the requests that reported both: the cache-hit ratio's terms.
    private var cachedTokensReportedWithInput = 0
    private var inputTokensReportedWithCached = 0

    public init() {}

    /// Adds one request's usage.
    public mutating func add(_ usage: Usage) {
        guard usage.implausibility == nil else {
            suspectRequests += 1
            return
        }
        Self.add(usage.inputTokens, to: &inputTokens)
        Self.add(usage.cachedInputTokens, to: &cachedInputTokens)
        Self.add(usage.cacheWriteInputTokens, to: &cacheWriteInputTokens)
        Self.add(usage.outputTokens, to: &outputTokens)
        Self.add(usage.reasoningTokens, to: &reasoningTokens)
        if let cached = usage.cachedInputTokens, let input = usage.inputTokens {
            cachedTokensReportedWithInput = TokenArithmetic.sum(cachedTokensReportedWithInput, cached)
            inputTokensReportedWithCached = TokenArithmetic.sum(inputTokensReportedWithCached, input)
        }
    }

    /// Σ cached / Σ input over the requests that reported both (the ratio of sums, not the
    /// mean of ratios); nil when none did or their input sums to 0.
    public var cacheHitRatio: Double? {
        guard inputTokensReportedWithCached > 0 else { return nil }
        return Double(cachedTokensReportedWithInput) / Double(inputTokensReportedWithCached)
    }

    private static func add(_ value: Int?, to sum: inout Int?) {
        guard let value else { return }
        sum = TokenArithmetic.sum(sum ?? 0, value)
    }
}
