import Foundation

/// The kinds of failure every report counts (DESIGN.md, "Error kinds").
public enum ErrorKind: String, Sendable, Codable, CaseIterable {
    case contextOverflow = "context_overflow"
    case rateLimited = "rate_limited"
    case quotaExhausted = "quota_exhausted"
    case overloaded
    case refusal
    case guardrail
    case timeout
    case network
    case unavailable
    case auth
    case badRequest = "bad_request"
    case decoding
    case server
    case cancelled
    /// The response body passed the size cap (`defaults.maxResponseBytes`, 16 MiB unless set).
    case responseTooLarge = "response_too_large"
    /// The model still called a tool after `maxToolRounds` rounds of tool calls in one turn.
    case toolRoundsExceeded = "tool_rounds_exceeded"

    /// Whether a retry with backoff may succeed: rate limits, overload and transient faults.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .overloaded, .timeout, .network, .server: true
        default: false
        }
    }
}

/// A failed request: its kind, a message for people, and what the server said about retrying.
public struct BackendFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, which decides whether it is retried and how reports count it.
    public var kind: ErrorKind
    /// What happened, with no secrets in it.
    public var message: String
    /// HTTP status, when the failure came from one.
    public var httpStatus: Int?
    /// Seconds the server asked to wait (`Retry-After`), if it did.
    public var retryAfterSeconds: Double?
    /// How many attempts were made; set by the retry loop.
    public var attempts: Int
    /// Measurements up to the failure, when the stream had started.
    public var timing: RequestTiming?
    /// What the backend observed besides the error (the PCC quota), if anything.
    public var details: RequestDetails?
    /// The usage the stream reported before it failed (a refusal, a content filter, an error
    /// event, a stream cut short): billed tokens that the result and its cost keep. Nil when
    /// nothing was reported.
    public var usage: Usage?
    /// Calls the backend answered itself before the failure (see `ModelResponse.handledToolCalls`),
    /// kept in the result like the runner's own loop's calls.
    public var handledToolCalls: [ToolCallRecord] = []

    /// A failure of `kind`; by default one attempt, with no status, retry hint, timing or details.
    public init(kind: ErrorKind, message: String, httpStatus: Int? = nil,
                retryAfterSeconds: Double? = nil, attempts: Int = 1, timing: RequestTiming? = nil,
                details: RequestDetails? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfterSeconds = retryAfterSeconds
        self.attempts = attempts
        self.timing = timing
        self.details = details
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
