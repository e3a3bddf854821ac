import Foundation

/// The outcome of one request (one turn of one case run), as recorded in `results.jsonl`.
public struct RequestResult: Sendable, Codable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`; with `turn` it identifies the request.
    public var key: String
    public var suite: String
    public var caseID: String
    /// Counts from 1.
    public var turn: Int
    /// How many turns the case has; a case run is complete when turn == turns.
    public var turns: Int
    public var variant: String
    public var backend: String
    public var model: String?
    public var reasoning: ReasoningLevel
    /// Counts from 1.
    public var repeatIndex: Int
    public var tags: [String]
    public var status: Status
    public var errorKind: ErrorKind?
    public var errorMessage: String?
    /// Why the request was skipped, when it was.
    public var skipReason: String?

    /// The inputs: instructions and the prompt of this turn (the history is the earlier turns).
    public var instructions: String?
    public var prompt: String
    public var output: String?
    public var reasoningText: String?
    public var finishReason: String?

    public var timing: RequestTiming?
    public var usage: Usage
    public var attempts: Int
    public var assertions: [AssertionResult]
    /// Cost in US dollars; nil when the backend has no pricing.
    public var costUSD: Double?
    /// Quota, fallback and session state, when the backend observed them.
    public var details: RequestDetails?
    /// Turns after the first: how much of this request repeats the previous one of the same
    /// conversation exactly (the ideal cache-hit ratio) and, when the prefix broke, where.
    public var prefix: PrefixComparison?
    /// What this turn switched (`instructions, backend → review`), if it switched anything.
    public var switched: String?
    /// How this turn's `history` transform trimmed what it sent, if it did.
    public var historyNote: String?

    public enum Status: String, Sendable, Codable {
        case pass, fail, error, skipped
    }

    public init(key: String, suite: String, caseID: String, turn: Int, turns: Int, variant: String,
                backend: String, model: String?, reasoning: ReasoningLevel, repeatIndex: Int,
                tags: [String], status: Status, errorKind: ErrorKind? = nil, errorMessage: String? = nil,
                skipReason: String? = nil, instructions: String?, prompt: String, output: String? = nil,
                reasoningText: String? = nil, finishReason: String? = nil, timing: RequestTiming? = nil,
                usage: Usage = Usage(), attempts: Int = 0, assertions: [AssertionResult] = [],
                costUSD: Double? = nil, details: RequestDetails? = nil) {
        self.key = key
        self.suite = suite
        self.caseID = caseID
        self.turn = turn
        self.turns = turns
        self.variant = variant
        self.backend = backend
        self.model = model
        self.reasoning = reasoning
        self.repeatIndex = repeatIndex
        self.tags = tags
        self.status = status
        self.errorKind = errorKind
        self.errorMessage = errorMessage
        self.skipReason = skipReason
        self.instructions = instructions
        self.prompt = prompt
        self.output = output
        self.reasoningText = reasoningText
        self.finishReason = finishReason
        self.timing = timing
        self.usage = usage
        self.attempts = attempts
        self.assertions = assertions
        self.costUSD = costUSD
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case key, suite, turn, turns, variant, backend, model, reasoning, tags, status
        case caseID = "case"
        case repeatIndex = "repeat"
        case errorKind = "error_kind"
        case errorMessage = "error_message"
        case skipReason = "skip_reason"
        case instructions, prompt, output
        case reasoningText = "reasoning_text"
        case finishReason = "finish_reason"
        case timing, usage, attempts, assertions
        case costUSD = "cost_usd"
        case details
        case prefix, switched
        case historyNote = "history_note"
    }

    /// The assertions that failed, by name.
    public var failedAssertions: [AssertionResult] { assertions.filter { !$0.passed } }

    /// Identifies the case run this request belongs to (all its turns share it).
    public var caseRunKey: String { key }
}

/// The verdict of one assertion on one turn.
public struct AssertionResult: Sendable, Codable, Equatable {
    public var type: String
    /// The assertion's name, or a description of it.
    public var name: String
    public var passed: Bool
    /// Why it failed: expected versus actual; nil when it passed.
    public var message: String?

    public init(type: String, name: String, passed: Bool, message: String? = nil) {
        self.type = type
        self.name = name
        self.passed = passed
        self.message = message
    }
}
