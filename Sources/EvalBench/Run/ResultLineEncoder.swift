import Foundation

/// Writes one `results.jsonl` line by hand, byte for byte as the store's `JSONEncoder` writes
/// it (keys sorted by their UTF-8 bytes, slashes not escaped, ISO 8601 dates, a `Double` as its
/// `description` without a trailing `.0`), several times faster: `JSONEncoder` builds a
/// dictionary of boxed values per object and sorts its keys, about a tenth of a c=256 run's
/// CPU. The rare nested values (`details`, `prefix`, `slo`, `tool_calls`, `rounds`, a judge's
/// call) are still written by `JSONEncoder`, and a result it cannot write exactly (a figure
/// that is not finite, a date outside years 1970–9999) gives nil, so the caller uses
/// `JSONEncoder` for the whole line. `ResultLineEncoderTests` compares the two on every field.
struct ResultLineEncoder {
    private var bytes: [UInt8] = []
    /// Why the fast path gave up; the line is then `JSONEncoder`'s.
    private struct GiveUp: Error {}

    /// The line of `result` (without its newline), or nil when `JSONEncoder` must write it.
    static func encode(_ result: RequestResult, nested: JSONEncoder) -> Data? {
        var encoder = ResultLineEncoder()
        encoder.bytes.reserveCapacity(512 + result.prompt.utf8.count + (result.output?.utf8.count ?? 0)
            + (result.instructions?.utf8.count ?? 0))
        do {
            try encoder.write(result, nested: nested)
        } catch {
            return nil
        }
        return Data(encoder.bytes)
    }

    // The members in JSONEncoder's order: sorted by the bytes of their keys.
    private mutating func write(_ r: RequestResult, nested: JSONEncoder) throws {
        var object = ObjectWriter()
        object.member("assertions", &bytes)
        bytes.append(UInt8(ascii: "["))
        for (index, assertion) in r.assertions.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try write(assertion, nested: nested)
        }
        bytes.append(UInt8(ascii: "]"))
        object.member("attempts", &bytes); int(r.attempts)
        object.member("backend", &bytes); string(r.backend)
        if let value = r.cached { object.member("cached", &bytes); bool(value) }
        object.member("case", &bytes); string(r.caseID)
        if let value = r.caseScore { object.member("case_score", &bytes); try double(value) }
        if let value = r.costUSD { object.member("cost_usd", &bytes); try double(value) }
        if let value = r.details { object.member("details", &bytes); try encoded(value, nested) }
        if let value = r.errorKind { object.member("error_kind", &bytes); string(value.rawValue) }
        if let value = r.errorMessage { object.member("error_message", &bytes); string(value) }
        if let value = r.finishReason { object.member("finish_reason", &bytes); string(value) }
        if let value = r.historyNote { object.member("history_note", &bytes); string(value) }
        if let value = r.instructions { object.member("instructions", &bytes); string(value) }
        object.member("key", &bytes); string(r.key)
        if let value = r.model { object.member("model", &bytes); string(value) }
        if let value = r.output { object.member("output", &bytes); string(value) }
        if let value = r.planIndex { object.member("plan_index", &bytes); int(value) }
        if let value = r.prefix { object.member("prefix", &bytes); try encoded(value, nested) }
        object.member("prompt", &bytes); string(r.prompt)
        object.member("reasoning", &bytes); string(r.reasoning.rawValue)
        if let value = r.reasoningText { object.member("reasoning_text", &bytes); string(value) }
        object.member("repeat", &bytes); int(r.repeatIndex)
        if let value = r.replayed { object.member("replayed", &bytes); bool(value) }
        if let value = r.replayedFrom { object.member("replayed_from", &bytes); string(value) }
        if let value = r.rounds { object.member("rounds", &bytes); try encoded(value, nested) }
        if let value = r.score { object.member("score", &bytes); try double(value) }
        if let value = r.skipReason { object.member("skip_reason", &bytes); string(value) }
        if let value = r.slo { object.member("slo", &bytes); try encoded(value, nested) }
        object.member("status", &bytes); string(r.status.rawValue)
        object.member("suite", &bytes); string(r.suite)
        if let value = r.switched { object.member("switched", &bytes); string(value) }
        object.member("tags", &bytes); strings(r.tags)
        if let value = r.threshold { object.member("threshold", &bytes); try double(value) }
        if let value = r.timing { object.member("timing", &bytes); try write(value) }
        if let value = r.toolCalls { object.member("tool_calls", &bytes); try encoded(value, nested) }
        if let value = r.toolDefinitionTokensCounted { object.member("tool_definition_tokens_counted", &bytes); int(value) }
        if let value = r.toolDefinitionTokens { object.member("tool_definition_tokens_estimated", &bytes); int(value) }
        if let value = r.toolDefinitionTokensMethod { object.member("tool_definition_tokens_method", &bytes); string(value) }
        object.member("turn", &bytes); int(r.turn)
        object.member("turns", &bytes); int(r.turns)
        if let value = r.unknownFigures { object.member("unknown_figures", &bytes); strings(value) }
        object.member("usage", &bytes); write(r.usage)
        object.member("variant", &bytes); string(r.variant)
        object.end(&bytes)
    }

    private mutating func write(_ a: AssertionResult, nested: JSONEncoder) throws {
        // A judge's call is rare and nested deeply: the whole verdict is JSONEncoder's.
        if a.judge != nil { return try encoded(a, nested) }
        var object = ObjectWriter()
        if let value = a.actual { object.member("actual", &bytes); string(value) }
        if let value = a.error { object.member("error", &bytes); string(value) }
        if let value = a.expected { object.member("expected", &bytes); string(value) }
        if let value = a.message { object.member("message", &bytes); string(value) }
        if let value = a.metric { object.member("metric", &bytes); string(value) }
        object.member("name", &bytes); string(a.name)
        object.member("not", &bytes); bool(a.inverted)
        if let value = a.note { object.member("note", &bytes); string(value) }
        object.member("passed", &bytes); bool(a.passed)
        if let value = a.pointer { object.member("pointer", &bytes); string(value) }
        object.member("type", &bytes); string(a.type)
        object.member("weight", &bytes); try double(a.weight)
        object.end(&bytes)
    }

    private mutating func write(_ timing: RequestTiming) throws {
        var object = ObjectWriter()
        if let value = timing.endMs { object.member("end_ms", &bytes); try double(value) }
        if let value = timing.firstAnswerTokenMs { object.member("first_answer_token_ms", &bytes); try double(value) }
        if let value = timing.firstTokenMs { object.member("first_token_ms", &bytes); try double(value) }
        object.member("started_at", &bytes); try date(timing.startedAt)
        object.end(&bytes)
    }

    private mutating func write(_ usage: Usage) {
        var object = ObjectWriter()
        if let value = usage.cacheWriteInputTokens { object.member("cache_write_input_tokens", &bytes); int(value) }
        if let value = usage.cachedInputTokens { object.member("cached_input_tokens", &bytes); int(value) }
        if let value = usage.inputTokens { object.member("input_tokens", &bytes); int(value) }
        if let value = usage.outputTokens { object.member("output_tokens", &bytes); int(value) }
        if let value = usage.reasoningTokens { object.member("reasoning_tokens", &bytes); int(value) }
        if let value = usage.source { object.member("source", &bytes); string(value.rawValue) }
        if let value = usage.suspect { object.member("suspect", &bytes); string(value) }
        object.end(&bytes)
    }

    /// `value` as JSONEncoder writes it on its own, which is how it writes it nested.
    private mutating func encoded(_ value: some Encodable, _ nested: JSONEncoder) throws {
        bytes.append(contentsOf: try nested.encode(value))
    }

    // MARK: Values

    private mutating func int(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    private mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// As JSONEncoder writes a `Double`: its description, without a trailing `.0`.
    private mutating func double(_ value: Double) throws {
        guard value.isFinite else { throw GiveUp() }
        // JSONEncoder's spelling: the description without a trailing ".0", cut as bytes
        // (String.removeLast checks grapheme boundaries: most of this function's cost).
        var text = value.description
        text.withUTF8 { utf8 in
            let whole = utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<(whole ? utf8.count - 2 : utf8.count)]))
        }
    }

    /// `.iso8601` as JSONEncoder writes it: `YYYY-MM-DDTHH:MM:SSZ`, the seconds cut (1970–9999 only).
    private mutating func date(_ value: Date) throws {
        let interval = value.timeIntervalSince1970
        guard interval >= 0, interval < 253_402_300_800 else { throw GiveUp() }
        let seconds = Int(interval.rounded(.down))
        let days = seconds / 86_400, inDay = seconds % 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        bytes.append(UInt8(ascii: "\""))
        digits(year, 4); bytes.append(UInt8(ascii: "-"))
        digits(month, 2); bytes.append(UInt8(ascii: "-"))
        digits(day, 2); bytes.append(UInt8(ascii: "T"))
        digits(inDay / 3_600, 2); bytes.append(UInt8(ascii: ":"))
        digits(inDay / 60 % 60, 2); bytes.append(UInt8(ascii: ":"))
        digits(inDay % 60, 2)
        bytes.append(contentsOf: "Z\"".utf8)
    }

    private mutating func digits(_ value: Int, _ count: Int) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A string as JSONEncoder escapes it (`\b` and `\f` short, other control bytes `\u00xx`).
    private mutating func string(_ value: String) {
        JSONStringBytes.append(value, to: &bytes, shortBackspaceAndFormFeed: true)
    }
}

/// The punctuation of one object: `{` before the first member, `,` between, `}` at the end.
private struct ObjectWriter {
    private var first = true

    mutating func member(_ key: StaticString, _ bytes: inout [UInt8]) {
        bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func end(_ bytes: inout [UInt8]) {
        if first { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
    }
}
