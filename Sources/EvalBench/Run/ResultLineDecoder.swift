import Foundation

/// Decodes one `results.jsonl` line straight from its bytes, several times faster than
/// `JSONDecoder` (which spends most of a million-result `report` building containers per
/// key). It reads the fields every result has itself and hands the rare nested values
/// (`details`, `prefix`, `slo`, `tool_calls`, `rounds`, a judge's call) to `JSONDecoder`.
/// Anything it does not accept exactly as `JSONDecoder` would (a number or date in another
/// form, a missing required key, bad UTF-8, a lone surrogate) makes it return nil, and the
/// caller decodes the line with `JSONDecoder`: a line decodes to the same value either way
/// (`ResultLineDecoderTests` compares the two on every kind of field).
struct ResultLineDecoder {
    private let nested: JSONDecoder

    init() {
        nested = JSONDecoder()
        nested.dateDecodingStrategy = .iso8601
    }

    /// The result on `line`, or nil when `JSONDecoder` must decide.
    func decode(_ line: Data) -> RequestResult? {
        line.withUnsafeBytes { bytes in
            var reader = JSONByteReader(bytes: bytes)
            guard let result = try? readResult(&reader), reader.atEnd() else { return nil }
            return result
        }
    }

    private func readResult(_ reader: inout JSONByteReader) throws -> RequestResult {
        var fields = ResultFields()
        try reader.object { reader, key in try fields.read(key, from: &reader, nested: nested) }
        return try fields.takeResult()
    }
}

/// The members of one result line as they are read; `result()` checks the required ones.
private struct ResultFields {
    var key: String?, suite: String?, caseID: String?, variant: String?, backend: String?, prompt: String?
    var turn: Int?, turns: Int?, repeatIndex: Int?, attempts: Int?
    var reasoning: ReasoningLevel?, status: RequestResult.Status?
    var tags: [String]?, usage: Usage?, assertions: [AssertionResult]?
    var optional = RequestResult(key: "", suite: "", caseID: "", turn: 0, turns: 0, variant: "", backend: "", model: nil,
                                 reasoning: .none, repeatIndex: 0, tags: [], status: .pass, instructions: nil, prompt: "")
    /// What `optional` holds once its result is taken: one shared value, never changed.
    private static let taken = RequestResult(key: "", suite: "", caseID: "", turn: 0, turns: 0, variant: "", backend: "",
                                             model: nil, reasoning: .none, repeatIndex: 0, tags: [], status: .pass,
                                             instructions: nil, prompt: "")

    mutating func read(_ name: String, from reader: inout JSONByteReader, nested: JSONDecoder) throws {
        if try readRequired(name, from: &reader) { return }
        if reader.null() { return } // decodeIfPresent reads null as absent
        switch name {
        case "model": optional.model = try reader.string()
        case "error_kind": optional.errorKind = try reader.enumeration(ErrorKind.self)
        case "error_message": optional.errorMessage = try reader.string()
        case "skip_reason": optional.skipReason = try reader.string()
        case "instructions": optional.instructions = try reader.string()
        case "output": optional.output = try reader.string()
        case "reasoning_text": optional.reasoningText = try reader.string()
        case "finish_reason": optional.finishReason = try reader.string()
        case "timing": optional.timing = try reader.timing()
        case "cost_usd": optional.costUSD = try reader.double()
        case "switched": optional.switched = try reader.string()
        case "cached": optional.cached = try reader.bool()
        case "history_note": optional.historyNote = try reader.string()
        case "score": optional.score = try reader.double()
        case "threshold": optional.threshold = try reader.double()
        case "case_score": optional.caseScore = try reader.double()
        case "replayed": optional.replayed = try reader.bool()
        case "replayed_from": optional.replayedFrom = try reader.string()
        case "plan_index": optional.planIndex = try reader.int()
        case "unknown_figures": optional.unknownFigures = try reader.array { try $0.string() }
        case "tool_definition_tokens_estimated": optional.toolDefinitionTokens = try reader.int()
        case "tool_definition_tokens_counted": optional.toolDefinitionTokensCounted = try reader.int()
        case "tool_definition_tokens_method": optional.toolDefinitionTokensMethod = try reader.string()
        case "details": optional.details = try reader.nested(RequestDetails.self, with: nested)
        case "prefix": optional.prefix = try reader.nested(PrefixComparison.self, with: nested)
        case "slo": optional.slo = try reader.nested(ServiceLevel.self, with: nested)
        case "tool_calls": optional.toolCalls = try reader.nested([ToolCallRecord].self, with: nested)
        case "rounds": optional.rounds = try reader.nested([ToolRound].self, with: nested)
        default: try reader.skipValue() // keys a newer evalbench wrote, as JSONDecoder ignores them
        }
    }

    /// Reads `name` when it is one of the members every result has.
    private mutating func readRequired(_ name: String, from reader: inout JSONByteReader) throws -> Bool {
        switch name {
        case "key": key = try reader.string()
        case "suite": suite = try reader.string()
        case "case": caseID = try reader.string()
        case "variant": variant = try reader.string()
        case "backend": backend = try reader.string()
        case "prompt": prompt = try reader.string()
        case "turn": turn = try reader.int()
        case "turns": turns = try reader.int()
        case "repeat": repeatIndex = try reader.int()
        case "attempts": attempts = try reader.int()
        case "reasoning": reasoning = try reader.enumeration(ReasoningLevel.self)
        case "status": status = try reader.enumeration(RequestResult.Status.self)
        case "tags": tags = try reader.array { try $0.string() }
        case "usage": usage = try reader.usage()
        case "assertions": assertions = try reader.array { try $0.assertion() }
        default: return false
        }
        return true
    }

    /// The result, its storage taken from `optional` (left empty), so that setting the
    /// required members does not copy it.
    mutating func takeResult() throws -> RequestResult {
        guard let key, let suite, let caseID, let variant, let backend, let prompt, let turn, let turns,
              let repeatIndex, let attempts, let reasoning, let status, let tags, let usage, let assertions
        else { throw JSONByteReader.Refused() }
        var result = optional
        optional = Self.taken
        result.key = key
        result.suite = suite
        result.caseID = caseID
        result.variant = variant
        result.backend = backend
        result.prompt = prompt
        result.turn = turn
        result.turns = turns
        result.repeatIndex = repeatIndex
        result.attempts = attempts
        result.reasoning = reasoning
        result.status = status
        result.tags = tags
        result.usage = usage
        result.assertions = assertions
        return result
    }
}

private extension JSONByteReader {
    mutating func timing() throws -> RequestTiming {
        var startedAt: Date?
        var timing = RequestTiming(startedAt: Date(timeIntervalSince1970: 0))
        try object { reader, key in
            if key == "started_at" { startedAt = try reader.iso8601Date(); return }
            if reader.null() { return }
            switch key {
            case "first_token_ms": timing.firstTokenMs = try reader.double()
            case "first_answer_token_ms": timing.firstAnswerTokenMs = try reader.double()
            case "end_ms": timing.endMs = try reader.double()
            default: try reader.skipValue()
            }
        }
        guard let startedAt else { throw Refused() }
        timing.startedAt = startedAt
        return timing
    }

    mutating func usage() throws -> Usage {
        var usage = Usage()
        try object { reader, key in
            if reader.null() { return }
            switch key {
            case "input_tokens": usage.inputTokens = try reader.int()
            case "cached_input_tokens": usage.cachedInputTokens = try reader.int()
            case "cache_write_input_tokens": usage.cacheWriteInputTokens = try reader.int()
            case "output_tokens": usage.outputTokens = try reader.int()
            case "reasoning_tokens": usage.reasoningTokens = try reader.int()
            case "source": usage.source = try reader.enumeration(TokenSource.self)
            case "suspect": usage.suspect = try reader.string()
            default: try reader.skipValue()
            }
        }
        return usage
    }

    mutating func assertion() throws -> AssertionResult {
        var type: String?, name: String?, passed: Bool?
        var assertion = AssertionResult(type: "", name: "", passed: false)
        try object { reader, key in
            if reader.null() { return } // every member is optional or refused below when missing
            switch key {
            case "type": type = try reader.string()
            case "name": name = try reader.string()
            case "passed": passed = try reader.bool()
            case "message": assertion.message = try reader.string()
            case "metric": assertion.metric = try reader.string()
            case "weight": assertion.weight = try reader.double()
            case "not": assertion.inverted = try reader.bool()
            case "expected": assertion.expected = try reader.string()
            case "actual": assertion.actual = try reader.string()
            case "pointer": assertion.pointer = try reader.string()
            case "note": assertion.note = try reader.string()
            case "error": assertion.error = try reader.string()
            case "judge": throw Refused() // rare: JSONDecoder reads the line
            default: try reader.skipValue()
            }
        }
        guard let type, let name, let passed else { throw Refused() }
        assertion.type = type
        assertion.name = name
        assertion.passed = passed
        return assertion
    }
}
