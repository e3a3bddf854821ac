import Foundation

/// One request of a turn's tool loop: its own latency, TTFT and usage. The turn's figures are
/// the loop's: latency from the first request's start to the last one's end, usage summed.
public struct ToolRound: Sendable, Codable, Equatable {
    /// From 1.
    public var round: Int
    /// This request's latency in ms; nil when it did not finish.
    public var latencyMs: Double?
    /// This request's time to first token in ms; nil when nothing streamed.
    public var ttftMs: Double?
    /// This request's usage, as the backend reported it.
    public var usage: Usage
    /// How many tools the model called in this request; 0 for the final answer.
    public var toolCalls: Int
    /// True when the backend answered this request's calls itself, in rounds of its own inside
    /// the one request (Foundation Models); nil otherwise.
    public var answeredByBackend: Bool?

    /// One request's figures.
    public init(round: Int, latencyMs: Double?, ttftMs: Double?, usage: Usage, toolCalls: Int, answeredByBackend: Bool? = nil) {
        self.answeredByBackend = answeredByBackend
        self.round = round
        self.latencyMs = latencyMs
        self.ttftMs = ttftMs
        self.usage = usage
        self.toolCalls = toolCalls
    }

    enum CodingKeys: String, CodingKey {
        case round
        case latencyMs = "latency_ms"
        case ttftMs = "ttft_ms"
        case usage
        case toolCalls = "tool_calls"
        case answeredByBackend = "answered_by_backend"
    }
}
