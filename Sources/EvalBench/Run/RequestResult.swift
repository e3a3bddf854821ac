import Foundation

/// The outcome of one request (one turn of one case run), as recorded in `results.jsonl`.
///
/// Its fields (`RequestResultFields`, each read and written through its property) live in one
/// copy-on-write box: a case run, an aggregate and a report that hold the same result share
/// its storage instead of copying several hundred bytes each time, which halves the memory a
/// million-result report needs. A copy is made only when a shared result is changed.
public struct RequestResult: Sendable, Codable, Equatable {
    private var box: FieldsBox

    /// `suite/case/variant/backend/reasoning/repeat`; with `turn` it identifies the request.
    public var key: String {
        get { box.fields.key }
        _modify { makeUnique(); yield &box.fields.key }
    }
    /// The suite's name.
    public var suite: String {
        get { box.fields.suite }
        _modify { makeUnique(); yield &box.fields.suite }
    }
    /// The case's `id` within its suite.
    public var caseID: String {
        get { box.fields.caseID }
        _modify { makeUnique(); yield &box.fields.caseID }
    }
    /// Counts from 1.
    public var turn: Int {
        get { box.fields.turn }
        _modify { makeUnique(); yield &box.fields.turn }
    }
    /// How many turns the case has; a case run is complete when turn == turns.
    public var turns: Int {
        get { box.fields.turns }
        _modify { makeUnique(); yield &box.fields.turns }
    }
    /// The prompt variant's name; `default` when the suite declares none.
    public var variant: String {
        get { box.fields.variant }
        _modify { makeUnique(); yield &box.fields.variant }
    }
    /// The backend the request was sent to: the planned one, or the one a turn's `backend`
    /// switch moved the conversation to.
    public var backend: String {
        get { box.fields.backend }
        _modify { makeUnique(); yield &box.fields.backend }
    }
    /// The model the backend reported, else the configured one; nil when neither is known.
    public var model: String? {
        get { box.fields.model }
        _modify { makeUnique(); yield &box.fields.model }
    }
    /// The reasoning level the request was sent at, after any turn's switch.
    public var reasoning: ReasoningLevel {
        get { box.fields.reasoning }
        _modify { makeUnique(); yield &box.fields.reasoning }
    }
    /// Counts from 1.
    public var repeatIndex: Int {
        get { box.fields.repeatIndex }
        _modify { makeUnique(); yield &box.fields.repeatIndex }
    }
    /// The case's tags, for `--tag` and reports.
    public var tags: [String] {
        get { box.fields.tags }
        _modify { makeUnique(); yield &box.fields.tags }
    }
    /// Whether the request passed, failed, errored or was skipped (see `Status`).
    public var status: Status {
        get { box.fields.status }
        _modify { makeUnique(); yield &box.fields.status }
    }
    /// What kind of error, when `status` is `error`.
    public var errorKind: ErrorKind? {
        get { box.fields.errorKind }
        _modify { makeUnique(); yield &box.fields.errorKind }
    }
    /// The error's message (no secrets in it), when `status` is `error`.
    public var errorMessage: String? {
        get { box.fields.errorMessage }
        _modify { makeUnique(); yield &box.fields.errorMessage }
    }
    /// Why the request was skipped, when it was.
    public var skipReason: String? {
        get { box.fields.skipReason }
        _modify { makeUnique(); yield &box.fields.skipReason }
    }
    /// The inputs: instructions and the prompt of this turn (the history is the earlier turns).
    public var instructions: String? {
        get { box.fields.instructions }
        _modify { makeUnique(); yield &box.fields.instructions }
    }
    /// This turn's prompt as sent, after templating and the variant's prompt template.
    public var prompt: String {
        get { box.fields.prompt }
        _modify { makeUnique(); yield &box.fields.prompt }
    }
    /// The visible answer text; nil when there was no answer (error or skipped).
    public var output: String? {
        get { box.fields.output }
        _modify { makeUnique(); yield &box.fields.output }
    }
    /// Reasoning text the backend streamed separately; nil when it streamed none.
    public var reasoningText: String? {
        get { box.fields.reasoningText }
        _modify { makeUnique(); yield &box.fields.reasoningText }
    }
    /// The backend's stop reason as it reported it (`stop`, `length`, …); nil when not reported.
    public var finishReason: String? {
        get { box.fields.finishReason }
        _modify { makeUnique(); yield &box.fields.finishReason }
    }
    /// The request's timing; nil when it was skipped, or errored before the stream started.
    public var timing: RequestTiming? {
        get { box.fields.timing }
        _modify { makeUnique(); yield &box.fields.timing }
    }
    /// Its token usage; figures not reported are nil, never 0 (all nil when there was no answer).
    public var usage: Usage {
        get { box.fields.usage }
        _modify { makeUnique(); yield &box.fields.usage }
    }
    /// Attempts made, retries included; 0 when it was skipped or answered from the response cache.
    public var attempts: Int {
        get { box.fields.attempts }
        _modify { makeUnique(); yield &box.fields.attempts }
    }
    /// Each assertion's verdict on the answer, in the order written; empty when there was no answer.
    public var assertions: [AssertionResult] {
        get { box.fields.assertions }
        _modify { makeUnique(); yield &box.fields.assertions }
    }
    /// Cost in US dollars at the backend's charged pricing; nil when unknown: no pricing, a
    /// token figure the prices need was not reported, or there was no answer (error or skipped).
    public var costUSD: Double? {
        get { box.fields.costUSD }
        _modify { makeUnique(); yield &box.fields.costUSD }
    }
    /// Quota, fallback and session state, when the backend observed them.
    public var details: RequestDetails? {
        get { box.fields.details }
        _modify { makeUnique(); yield &box.fields.details }
    }
    /// Turns after the first: how much of this request repeats the previous one of the same
    /// conversation exactly (the ideal cache-hit ratio) and, when the prefix broke, where.
    public var prefix: PrefixComparison? {
        get { box.fields.prefix }
        _modify { makeUnique(); yield &box.fields.prefix }
    }
    /// True when the answer came from evalbench's response cache (`--cache`): graded again,
    /// its timing is the original request's, and it is left out of latency statistics.
    public var cached: Bool? {
        get { box.fields.cached }
        _modify { makeUnique(); yield &box.fields.cached }
    }
    /// What this turn switched (`instructions, backend → review`), if it switched anything.
    public var switched: String? {
        get { box.fields.switched }
        _modify { makeUnique(); yield &box.fields.switched }
    }
    /// How this turn's `history` transform trimmed what it sent, if it did.
    public var historyNote: String? {
        get { box.fields.historyNote }
        _modify { makeUnique(); yield &box.fields.historyNote }
    }
    /// This turn's weighted score: Σ weight · passed / Σ weight over its assertions; nil when it has none.
    public var score: Double? {
        get { box.fields.score }
        _modify { makeUnique(); yield &box.fields.score }
    }
    /// The case's `threshold`, when it has one: the weighted score a case needs to pass.
    public var threshold: Double? {
        get { box.fields.threshold }
        _modify { makeUnique(); yield &box.fields.threshold }
    }
    /// On the last turn, the case's weighted score over the assertions of all its turns.
    public var caseScore: Double? {
        get { box.fields.caseScore }
        _modify { makeUnique(); yield &box.fields.caseScore }
    }
    /// The suite's latency targets, when it declares them: goodput counts against them.
    public var slo: ServiceLevel? {
        get { box.fields.slo }
        _modify { makeUnique(); yield &box.fields.slo }
    }
    /// True when the answer came from an earlier run's results (a `replay` backend): graded as
    /// usual, but its timing is the earlier run's and stays out of latency statistics.
    public var replayed: Bool? {
        get { box.fields.replayed }
        _modify { makeUnique(); yield &box.fields.replayed }
    }
    /// For a replayed result: the results.jsonl its answer, usage and timing were copied from,
    /// and the key it was recorded under.
    public var replayedFrom: String? {
        get { box.fields.replayedFrom }
        _modify { makeUnique(); yield &box.fields.replayedFrom }
    }
    /// The position of its case run in the run's plan: reports list case runs in this order
    /// whatever order they finished in. Nil in results recorded before evalbench kept it.
    public var planIndex: Int? {
        get { box.fields.planIndex }
        _modify { makeUnique(); yield &box.fields.planIndex }
    }
    /// Figures left empty because they could not be true or were not finite numbers, each
    /// with why (`cost unknown: …`); nil when every figure is as measured.
    public var unknownFigures: [String]? {
        get { box.fields.unknownFigures }
        _modify { makeUnique(); yield &box.fields.unknownFigures }
    }
    /// Every tool call of the turn, in order, with what was sent back; nil when the turn had no tools.
    public var toolCalls: [ToolCallRecord]? {
        get { box.fields.toolCalls }
        _modify { makeUnique(); yield &box.fields.toolCalls }
    }
    /// Each request of the turn's tool loop with its own latency, TTFT and usage (the turn's
    /// figures are their combination); nil when the turn had no tools.
    public var rounds: [ToolRound]? {
        get { box.fields.rounds }
        _modify { makeUnique(); yield &box.fields.rounds }
    }
    /// The tool definitions this turn sent, in tokens estimated at about 4 characters a token
    /// (no tokenizer is asked); nil when it sent none.
    public var toolDefinitionTokens: Int? {
        get { box.fields.toolDefinitionTokens }
        _modify { makeUnique(); yield &box.fields.toolDefinitionTokens }
    }
    /// The same tool definitions counted by the backend's own tokenizer where it can count
    /// (llama-server's `/tokenize`, Apple's `tokenCount(for:)`); nil where it cannot.
    public var toolDefinitionTokensCounted: Int? {
        get { box.fields.toolDefinitionTokensCounted }
        _modify { makeUnique(); yield &box.fields.toolDefinitionTokensCounted }
    }
    /// How `toolDefinitionTokensCounted` was counted; nil when it was not.
    public var toolDefinitionTokensMethod: String? {
        get { box.fields.toolDefinitionTokensMethod }
        _modify { makeUnique(); yield &box.fields.toolDefinitionTokensMethod }
    }

    /// Copies the storage before a change when another value shares it.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = FieldsBox(box.fields) }
    }

    /// Every field at once.
    package var fields: RequestResultFields {
        get { box.fields }
        set {
            if isKnownUniquelyReferenced(&box) { box.fields = newValue } else { box = FieldsBox(newValue) }
        }
    }

    /// A result with these fields.
    package init(fields: consuming RequestResultFields) {
        box = FieldsBox(fields)
    }

    /// A result with the fields every result has; the rest are set by whoever records it.
    public init(key: String, suite: String, caseID: String, turn: Int, turns: Int, variant: String,
                backend: String, model: String?, reasoning: ReasoningLevel, repeatIndex: Int,
                tags: [String], status: Status, errorKind: ErrorKind? = nil, errorMessage: String? = nil,
                skipReason: String? = nil, instructions: String?, prompt: String, output: String? = nil,
                reasoningText: String? = nil, finishReason: String? = nil, timing: RequestTiming? = nil,
                usage: Usage = Usage(), attempts: Int = 0, assertions: [AssertionResult] = [],
                costUSD: Double? = nil, details: RequestDetails? = nil) {
        box = FieldsBox(RequestResultFields(key: key, suite: suite, caseID: caseID, turn: turn, turns: turns, variant: variant,
                               backend: backend, model: model, reasoning: reasoning, repeatIndex: repeatIndex, tags: tags,
                               status: status, errorKind: errorKind, errorMessage: errorMessage, skipReason: skipReason,
                               instructions: instructions, prompt: prompt, output: output, reasoningText: reasoningText,
                               finishReason: finishReason, timing: timing, usage: usage, attempts: attempts,
                               assertions: assertions, costUSD: costUSD, details: details))
    }

    /// Reads the fields as results.jsonl spells them.
    public init(from decoder: any Decoder) throws {
        box = FieldsBox(try RequestResultFields(from: decoder))
    }

    /// Writes the fields as results.jsonl spells them.
    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
    }

    public static func == (lhs: RequestResult, rhs: RequestResult) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// `pass`: answered and graded passing; `fail`: answered, but its assertions (or threshold)
    /// failed; `error`: no answer, see `errorKind`; `skipped`: not sent, see `skipReason`.
    public enum Status: String, Sendable, Codable {
        case pass, fail, error, skipped
    }

    /// How many rounds of the turn called a tool; nil when the turn had no tools. Rounds a
    /// backend ran inside one request (Foundation Models) count by the calls' rounds.
    public var toolRoundCount: Int? {
        guard let rounds else { return nil }
        return max(rounds.filter { $0.toolCalls > 0 }.count, Set((toolCalls ?? []).map(\.round)).count)
    }

    /// Whether its timing was measured in this run: not replayed and not a fallback's.
    public var hasOwnTiming: Bool { replayed != true && details?.fallback == nil }

    /// Whether its latency and TTFT are among those the percentiles and the latency tests are
    /// taken over: passed or failed grading, timed by this run, not from the response cache.
    package var isTimedSample: Bool {
        (status == .pass || status == .fail) && hasOwnTiming && cached != true
    }

    /// The assertions that failed, by name.
    public var failedAssertions: [AssertionResult] { assertions.filter { !$0.passed } }

    /// Identifies the case run this request belongs to (all its turns share it).
    public var caseRunKey: String { key }
}

/// The storage of one result; changed only through `RequestResult`, which copies it first
/// when it is shared, so it is never changed while another thread reads it. Its accesses are
/// not checked for exclusivity at run time (each would cost a thread-local lookup): like an
/// array's buffer, it is only ever reached through one value's `_modify` at a time.
private final class FieldsBox: @unchecked Sendable {
    @exclusivity(unchecked) var fields: RequestResultFields

    init(_ fields: consuming RequestResultFields) {
        self.fields = fields
    }
}

/// Every field of a result: what `results.jsonl` records for one request.
package struct RequestResultFields: Sendable, Codable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`; with `turn` it identifies the request.
    package var key: String
    /// The suite's name.
    package var suite: String
    /// The case's `id` within its suite.
    package var caseID: String
    /// Counts from 1.
    package var turn: Int
    /// How many turns the case has; a case run is complete when turn == turns.
    package var turns: Int
    /// The prompt variant's name; `default` when the suite declares none.
    package var variant: String
    /// The backend the request was sent to: the planned one, or the one a turn's `backend`
    /// switch moved the conversation to.
    package var backend: String
    /// The model the backend reported, else the configured one; nil when neither is known.
    package var model: String?
    /// The reasoning level the request was sent at, after any turn's switch.
    package var reasoning: ReasoningLevel
    /// Counts from 1.
    package var repeatIndex: Int
    /// The case's tags, for `--tag` and reports.
    package var tags: [String]
    /// Whether the request passed, failed, errored or was skipped (see `Status`).
    package var status: RequestResult.Status
    /// What kind of error, when `status` is `error`.
    package var errorKind: ErrorKind?
    /// The error's message (no secrets in it), when `status` is `error`.
    package var errorMessage: String?
    /// Why the request was skipped, when it was.
    package var skipReason: String?

    /// The inputs: instructions and the prompt of this turn (the history is the earlier turns).
    package var instructions: String?
    /// This turn's prompt as sent, after templating and the variant's prompt template.
    package var prompt: String
    /// The visible answer text; nil when there was no answer (error or skipped).
    package var output: String?
    /// Reasoning text the backend streamed separately; nil when it streamed none.
    package var reasoningText: String?
    /// The backend's stop reason as it reported it (`stop`, `length`, …); nil when not reported.
    package var finishReason: String?

    /// The request's timing; nil when it was skipped, or errored before the stream started.
    package var timing: RequestTiming?
    /// Its token usage; figures not reported are nil, never 0 (all nil when there was no answer).
    package var usage: Usage
    /// Attempts made, retries included; 0 when it was skipped or answered from the response cache.
    package var attempts: Int
    /// Each assertion's verdict on the answer, in the order written; empty when there was no answer.
    package var assertions: [AssertionResult]
    /// Cost in US dollars at the backend's charged pricing; nil when unknown: no pricing, a
    /// token figure the prices need was not reported, or there was no answer (error or skipped).
    package var costUSD: Double?
    /// Quota, fallback and session state, when the backend observed them.
    package var details: RequestDetails?
    /// Turns after the first: how much of this request repeats the previous one of the same
    /// conversation exactly (the ideal cache-hit ratio) and, when the prefix broke, where.
    package var prefix: PrefixComparison?
    /// True when the answer came from evalbench's response cache (`--cache`): graded again,
    /// its timing is the original request's, and it is left out of latency statistics.
    package var cached: Bool?
    /// What this turn switched (`instructions, backend → review`), if it switched anything.
    package var switched: String?
    /// How this turn's `history` transform trimmed what it sent, if it did.
    package var historyNote: String?
    /// This turn's weighted score: Σ weight · passed / Σ weight over its assertions; nil when it has none.
    package var score: Double?
    /// The case's `threshold`, when it has one: the weighted score a case needs to pass.
    package var threshold: Double?
    /// On the last turn, the case's weighted score over the assertions of all its turns.
    package var caseScore: Double?
    /// The suite's latency targets, when it declares them: goodput counts against them.
    package var slo: ServiceLevel?
    /// True when the answer came from an earlier run's results (a `replay` backend): graded as
    /// usual, but its timing is the earlier run's and stays out of latency statistics.
    package var replayed: Bool?
    /// For a replayed result: the results.jsonl its answer, usage and timing were copied from,
    /// and the key it was recorded under.
    package var replayedFrom: String?
    /// The position of its case run in the run's plan: reports list case runs in this order
    /// whatever order they finished in. Nil in results recorded before evalbench kept it.
    package var planIndex: Int?
    /// Figures left empty because they could not be true or were not finite numbers, each
    /// with why (`cost unknown: …`); nil when every figure is as measured.
    package var unknownFigures: [String]?
    /// Every tool call of the turn, in order, with what was sent back; nil when the turn had no tools.
    package var toolCalls: [ToolCallRecord]?
    /// Each request of the turn's tool loop with its own latency, TTFT and usage (the turn's
    /// figures are their combination); nil when the turn had no tools.
    package var rounds: [ToolRound]?
    /// The tool definitions this turn sent, in tokens estimated at about 4 characters a token
    /// (no tokenizer is asked); nil when it sent none.
    package var toolDefinitionTokens: Int?
    /// The same tool definitions counted by the backend's own tokenizer where it can count
    /// (llama-server's `/tokenize`, Apple's `tokenCount(for:)`); nil where it cannot.
    package var toolDefinitionTokensCounted: Int?
    /// How `toolDefinitionTokensCounted` was counted; nil when it was not.
    package var toolDefinitionTokensMethod: String?

    /// The fields every result has; the rest are set by whoever records it.
    package init(key: String, suite: String, caseID: String, turn: Int, turns: Int, variant: String,
                backend: String, model: String?, reasoning: ReasoningLevel, repeatIndex: Int,
                tags: [String], status: RequestResult.Status, errorKind: ErrorKind? = nil, errorMessage: String? = nil,
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
        case prefix, switched, cached
        case historyNote = "history_note"
        case score, threshold
        case caseScore = "case_score"
        case slo, replayed
        case replayedFrom = "replayed_from"
        case planIndex = "plan_index"
        case unknownFigures = "unknown_figures"
        case toolCalls = "tool_calls"
        case rounds
        case toolDefinitionTokens = "tool_definition_tokens_estimated"
        case toolDefinitionTokensCounted = "tool_definition_tokens_counted"
        case toolDefinitionTokensMethod = "tool_definition_tokens_method"
    }

}

/// The verdict of one assertion on one turn, with what it expected, what came back and where.
public struct AssertionResult: Sendable, Codable, Hashable {
    /// The assertion's `type` as written in suites (`contains`, `jsonPath`, `judge`, …).
    public var type: String
    /// The assertion's name, or a description of it.
    public var name: String
    /// Whether it passed, after `not: true` is applied.
    public var passed: Bool
    /// Why it failed, in one sentence: where, what was expected and what came back (cut to
    /// about 200 characters); nil when it passed.
    public var message: String?
    /// The assertion's own `name`, which makes it a named metric; nil when it has none.
    public var metric: String?
    /// Its weight in the case's weighted score.
    public var weight: Double
    /// Whether it was written with `not: true`, so that it passes when its check fails.
    public var inverted: Bool
    /// What the check looked for, in words: `the answer to contain "Paris"`.
    public var expected: String?
    /// What it found, cut to about 200 characters.
    public var actual: String?
    /// For JSON checks, the JSON pointer into the answer's JSON that the verdict is about.
    public var pointer: String?
    /// Something worth knowing even when it passed, such as JSON found inside a code fence.
    public var note: String?

    /// A model-graded assertion's call (judge or embeddings), with its own timing and tokens:
    /// they are the grader's, never added to the graded request's figures.
    public var judge: JudgeCall?
    /// Why grading itself failed: `grading_timeout` when the assertion passed
    /// `defaults.gradingTimeoutSeconds` (it then counts as failed, whatever `not` says); nil
    /// when it was graded.
    public var error: String?

    /// A verdict; weight 1 and not inverted by default.
    public init(type: String, name: String, passed: Bool, message: String? = nil, metric: String? = nil,
                weight: Double = 1, inverted: Bool = false, expected: String? = nil, actual: String? = nil,
                pointer: String? = nil, note: String? = nil, judge: JudgeCall? = nil) {
        self.judge = judge
        self.type = type
        self.name = name
        self.passed = passed
        self.message = message
        self.metric = metric
        self.weight = weight
        self.inverted = inverted
        self.expected = expected
        self.actual = actual
        self.pointer = pointer
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case type, name, passed, message, metric, weight
        case inverted = "not"
        case expected, actual, pointer, note, judge, error
    }

    /// Results written before weights and explanations were recorded read as weight 1.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        name = try container.decode(String.self, forKey: .name)
        passed = try container.decode(Bool.self, forKey: .passed)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        metric = try container.decodeIfPresent(String.self, forKey: .metric)
        weight = try container.decodeIfPresent(Double.self, forKey: .weight) ?? 1
        inverted = try container.decodeIfPresent(Bool.self, forKey: .inverted) ?? false
        expected = try container.decodeIfPresent(String.self, forKey: .expected)
        actual = try container.decodeIfPresent(String.self, forKey: .actual)
        pointer = try container.decodeIfPresent(String.self, forKey: .pointer)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        judge = try container.decodeIfPresent(JudgeCall.self, forKey: .judge)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }
}
