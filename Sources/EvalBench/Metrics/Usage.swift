import Foundation

/// Where a token figure came from.
public enum TokenSource: String, Sendable, Codable {
    /// The backend reported it.
    case reported
    /// A tokenizer was asked.
    case counted
    /// Estimated from characters.
    case estimated
}

/// Token usage of one request, normalised (DESIGN.md, "Metrics"). A figure the backend did
/// not report is nil, never 0.
public struct Usage: Sendable, Codable, Hashable {
    /// All input tokens, cached ones included.
    public var inputTokens: Int?
    /// Input tokens served from the provider's prompt or KV cache.
    public var cachedInputTokens: Int?
    /// Input tokens written to the provider's prompt cache by this request (Anthropic's
    /// `cache_creation_input_tokens`): part of input, not of cached input.
    public var cacheWriteInputTokens: Int?
    /// All generated tokens, reasoning included.
    public var outputTokens: Int?
    /// Generated reasoning tokens (a subset of output).
    public var reasoningTokens: Int?
    /// The source of the figures above; nil when there are none.
    public var source: TokenSource?
    /// Why these figures cannot all be true (a negative count, cached above input, a count
    /// beyond any model's), when they cannot: recorded as reported, left out of aggregates.
    public var suspect: String?

    /// Usage with the figures given; those not given are nil (not reported), never 0.
    public init(inputTokens: Int? = nil, cachedInputTokens: Int? = nil, cacheWriteInputTokens: Int? = nil,
                outputTokens: Int? = nil, reasoningTokens: Int? = nil, source: TokenSource? = nil) {
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.cacheWriteInputTokens = cacheWriteInputTokens
        self.outputTokens = outputTokens
        self.reasoningTokens = reasoningTokens
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case cachedInputTokens = "cached_input_tokens"
        case cacheWriteInputTokens = "cache_write_input_tokens"
        case outputTokens = "output_tokens"
        case reasoningTokens = "reasoning_tokens"
        case source, suspect
    }

    /// cached / input, when both are known, input is positive and the figures are plausible.
    public var cacheHitRatio: Double? {
        guard let cachedInputTokens, let inputTokens, inputTokens > 0, implausibility == nil else { return nil }
        return Double(cachedInputTokens) / Double(inputTokens)
    }
}
