import Foundation

/// The four timestamps of one request, as offsets from `start` on a monotonic clock.
public struct RequestTiming: Sendable, Codable, Equatable {
    /// Wall-clock time the request was handed to the transport (for the record only).
    public var startedAt: Date
    /// First streamed output of any kind (reasoning, text or tool call), ms after start.
    public var firstTokenMs: Double?
    /// First visible answer text, ms after start.
    public var firstAnswerTokenMs: Double?
    /// Stream finished, ms after start.
    public var endMs: Double?

    /// The timing of a request started at `startedAt`; offsets not reached are nil.
    public init(startedAt: Date, firstTokenMs: Double? = nil, firstAnswerTokenMs: Double? = nil,
                endMs: Double? = nil) {
        self.startedAt = startedAt
        self.firstTokenMs = firstTokenMs
        self.firstAnswerTokenMs = firstAnswerTokenMs
        self.endMs = endMs
    }

    enum CodingKeys: String, CodingKey {
        case startedAt = "started_at"
        case firstTokenMs = "first_token_ms"
        case firstAnswerTokenMs = "first_answer_token_ms"
        case endMs = "end_ms"
    }

    /// End-to-end latency in ms: `endMs`; nil when the stream did not finish.
    public var latencyMs: Double? { endMs }
    /// Time to first token of any kind in ms: `firstTokenMs`; nil when nothing streamed.
    public var ttftMs: Double? { firstTokenMs }
    /// Time to first answer token in ms: `firstAnswerTokenMs`; nil when no answer text streamed.
    public var ttfaMs: Double? { firstAnswerTokenMs }

    /// (end − firstToken) / (outputTokens − 1), only when outputTokens > 1 and the answer did
    /// not arrive all at once (end after the first token): one snapshot or chunk measures no
    /// time per token.
    public func tpotMs(outputTokens: Int?) -> Double? {
        guard let outputTokens, outputTokens > 1, let endMs, let firstTokenMs, endMs > firstTokenMs else { return nil }
        return (endMs - firstTokenMs) / Double(outputTokens - 1)
    }

    /// outputTokens / (latency in seconds).
    public func outputTokensPerSecond(outputTokens: Int?) -> Double? {
        guard let outputTokens, let endMs, endMs > 0 else { return nil }
        return Double(outputTokens) / (endMs / 1000)
    }
}

/// A monotonic stopwatch for one request: `ms()` is milliseconds since it was started.
public struct Stopwatch: Sendable {
    private let startNanos: UInt64
    /// The wall-clock time it was started, for `RequestTiming.startedAt`.
    public let startedAt: Date

    /// Starts it now.
    public init() {
        startedAt = Date()
        startNanos = DispatchTime.now().uptimeNanoseconds
    }

    /// Started at `startNanos` on `DispatchTime`'s clock (tests give their own readings).
    package init(startNanos: UInt64, startedAt: Date = Date()) {
        self.startNanos = startNanos
        self.startedAt = startedAt
    }

    /// Milliseconds since start, on the monotonic clock.
    public func ms() -> Double {
        ms(atNanos: DispatchTime.now().uptimeNanoseconds)
    }

    /// Milliseconds from start to a `DispatchTime.uptimeNanoseconds` reading taken later,
    /// rounded to the microsecond: finer digits are below what a request's timing can resolve
    /// (a scheduler's wake-up alone is tens of microseconds), and a whole number of
    /// microseconds is held in 4 bytes by the reports (`TimedSamples`), not 8.
    package func ms(atNanos nanos: UInt64) -> Double {
        guard nanos >= startNanos else { return 0 }
        let elapsed = nanos - startNanos
        return Double(elapsed / 1000 + (elapsed % 1000 >= 500 ? 1 : 0)) / 1000
    }
}
