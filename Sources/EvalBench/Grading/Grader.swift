import Foundation

/// What an assertion can look at: the answer and the request's measurements.
package struct GradingInput: Sendable {
    package var output: String
    package var latencyMs: Double?
    package var ttftMs: Double?
    package var usage: Usage
    /// The prompt the answer replies to, for a judge.
    package var prompt: String?
    /// The turn's tool calls, for the tool assertions; none when the turn had no tools.
    package var tools = ToolUse()

    package init(output: String, latencyMs: Double?, ttftMs: Double?, usage: Usage, prompt: String? = nil) {
        self.output = output
        self.latencyMs = latencyMs
        self.ttftMs = ttftMs
        self.usage = usage
        self.prompt = prompt
    }
}

/// The verdicts on one turn and their weighted score.
package struct TurnGrade: Sendable, Equatable {
    /// Every assertion's verdict, in order.
    package var results: [AssertionResult]
    package var score: WeightedScore

    package init(results: [AssertionResult]) {
        self.results = results
        self.score = WeightedScore(results)
    }

    /// Whether the turn passes: every assertion without a threshold, else the score reaches it.
    package func passes(threshold: Double?) -> Bool {
        score.passes(threshold: threshold)
    }
}

/// What a check found, before `not` and naming: whether it holds, what it looked for, what
/// came back, and for JSON checks where.
package struct CheckOutcome: Sendable, Equatable {
    package var holds: Bool
    /// What the check looks for: `the answer to contain "Paris"`.
    package var expected: String
    /// What came back, cut to about 200 characters.
    package var actual: String
    /// The JSON pointer into the answer's JSON the verdict is about.
    package var pointer: JSONPointer?
    package var note: String?
    /// The grading call a model-graded check made.
    package var judge: JudgeCall?

    package init(holds: Bool, expected: String, actual: String, pointer: JSONPointer? = nil, note: String? = nil,
                judge: JudgeCall? = nil) {
        self.holds = holds
        self.expected = expected
        self.actual = actual
        self.pointer = pointer
        self.note = note
        self.judge = judge
    }
}

/// Runs a turn's assertions. Patterns and schemas were checked at load time.
///
/// Every check so far is computed from the input alone; one that calls a model (a judge,
/// an embedding similarity) becomes a `Check` case with its own branch in `evaluate`, awaited,
/// with what it needs held by the grader.
package struct Grader: Sendable {
    /// The backends model-graded checks may call, by name.
    package var models: [String: any Backend]
    /// The timeout of each grading call.
    package var timeoutSeconds: Double
    /// How long one assertion may take to grade (see `GradingTimeLimit`).
    package var timeLimitSeconds: Double
    /// How a failed grading call is retried: the run's policy, as for the answers it grades.
    package var retryPolicy: RetryPolicy

    package init(models: [String: any Backend] = [:], timeoutSeconds: Double = 120,
                 timeLimitSeconds: Double = GradingTimeLimit.defaultSeconds,
                 retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 0)) {
        self.models = models
        self.timeoutSeconds = timeoutSeconds
        self.timeLimitSeconds = timeLimitSeconds
        self.retryPolicy = retryPolicy
    }

    /// Every assertion's verdict, in order, and the turn's weighted score.
    package func grade(_ assertions: [Assertion], _ input: GradingInput) async -> TurnGrade {
        var results: [AssertionResult] = []
        for assertion in assertions { results.append(await grade(assertion, input)) }
        return TurnGrade(results: results)
    }

    package func grade(_ assertion: Assertion, _ input: GradingInput) async -> AssertionResult {
        let name = assertion.name ?? ((assertion.inverted ? "not " : "") + Self.describe(assertion.check))
        guard let outcome = await evaluateWithinLimit(assertion.check, input) else {
            return GradingTimeLimit.timedOut(assertion, name: name, seconds: limit(for: assertion.check))
        }
        let passed = outcome.holds != assertion.inverted
        return AssertionResult(
            type: assertion.type,
            name: name,
            passed: passed,
            message: passed ? nil : Self.explain(outcome, inverted: assertion.inverted),
            metric: assertion.name,
            weight: assertion.effectiveWeight,
            inverted: assertion.inverted,
            expected: assertion.inverted ? "not: " + outcome.expected : outcome.expected,
            actual: outcome.actual,
            pointer: outcome.pointer?.description,
            note: outcome.note,
            judge: outcome.judge
        )
    }

    /// The check's outcome, or nil when it passed the time limit. The model-graded checks await
    /// a call, whose own timeouts and retries are added to the limit (a judge may think for a
    /// minute); every other check is computed on a thread of its own.
    private func evaluateWithinLimit(_ check: Assertion.Check, _ input: GradingInput) async -> CheckOutcome? {
        let seconds = limit(for: check)
        switch check {
        case let .judge(grader, rubric, minScore):
            return await GradingTimeLimit.outcome(within: seconds) { await judge(grader.backend, rubric, minScore, input) }
        case let .similar(grader, value, threshold):
            return await GradingTimeLimit.outcome(within: seconds) { await similar(grader.backend, value, threshold, input.output) }
        default:
            if Self.isQuick(check, output: input.output) { return Self.evaluate(check, input) }
            return await GradingTimeLimit.outcome(within: seconds) { Self.evaluate(check, input) }
        }
    }

    /// The longest answer (UTF-8 bytes) a quick check is graded in place on.
    static let quickAnswerBytes = 64 * 1024
    /// The most byte comparisons a search in a quick check may make (answer × values), a few
    /// milliseconds at worst: a long value searched for in a long answer goes to a thread.
    static let quickSearchBytes = 1 << 22

    /// Whether `check` finishes in microseconds whatever it is given: a measurement check, or a
    /// text comparison (no pattern, no parsing) on an answer of at most `quickAnswerBytes`, with
    /// searches bounded by `quickSearchBytes`. Those are graded in place: a thread and a timer
    /// for each would cost more than the check (at concurrency 256 they were a tenth of the
    /// client's CPU) and could never fire.
    static func isQuick(_ check: Assertion.Check, output: String) -> Bool {
        let answer = output.utf8.count
        func searchIsQuick(_ values: [String]) -> Bool {
            let total = values.reduce(0) { $0 + $1.utf8.count }
            return total <= quickSearchBytes / max(1, answer)
        }
        switch check {
        case .maxLatencyMs, .maxTTFTMs, .maxOutputTokens, .minCacheHitRatio:
            return true
        case .equals, .startsWith, .lengthBetween, .label:
            return answer <= quickAnswerBytes
        case let .contains(value, _), let .notContains(value, _):
            return answer <= quickAnswerBytes && searchIsQuick([value])
        case let .containsAll(values, _), let .containsAny(values, _), let .keywords(values, _, _):
            return answer <= quickAnswerBytes && searchIsQuick(values)
        default:
            return false
        }
    }

    /// The time `check` may take: `timeLimitSeconds`, plus for a model-graded check the longest its
    /// call may take with its retries.
    private func limit(for check: Assertion.Check) -> Double {
        switch check {
        case .judge, .similar: timeLimitSeconds + retryPolicy.worstCaseSeconds(attemptSeconds: timeoutSeconds)
        default: timeLimitSeconds
        }
    }

    /// The outcome of a check computed from the input alone (not `judge` or `similar`).
    private static func evaluate(_ check: Assertion.Check, _ input: GradingInput) -> CheckOutcome {
        let output = input.output
        switch check {
        case let .contains(value, ignoreCase): return TextChecks.contains(value, in: output, ignoreCase)
        case let .notContains(value, ignoreCase): return TextChecks.notContains(value, in: output, ignoreCase)
        case let .equals(value, ignoreCase): return TextChecks.equals(value, output, ignoreCase)
        case let .startsWith(value, ignoreCase): return TextChecks.startsWith(value, output, ignoreCase)
        case let .regex(pattern, ignoreCase): return TextChecks.regex(pattern, output, ignoreCase, negated: false)
        case let .notRegex(pattern, ignoreCase): return TextChecks.regex(pattern, output, ignoreCase, negated: true)
        case let .containsAll(values, ignoreCase): return TextChecks.containsAll(values, output, ignoreCase)
        case let .containsAny(values, ignoreCase): return TextChecks.containsAny(values, output, ignoreCase)
        case let .lengthBetween(minimum, maximum): return TextChecks.length(output, minimum, maximum)
        case let .label(expected, labels): return TextChecks.label(output, expected: expected, labels: labels)
        case let .keywords(values, minRatio, ignoreCase): return TextChecks.keywords(values, output, minRatio, ignoreCase)
        case let .maxLatencyMs(limit): return MeasurementChecks.latency(input.latencyMs, limit)
        case let .maxTTFTMs(limit): return MeasurementChecks.ttft(input.ttftMs, limit)
        case let .maxOutputTokens(limit): return MeasurementChecks.outputTokens(input.usage, limit)
        case let .minCacheHitRatio(minimum): return MeasurementChecks.cacheHitRatio(input.usage, minimum)
        case .json: return JSONChecks.json(output)
        case let .jsonSchema(schema): return JSONChecks.schema(schema, output)
        case let .jsonPath(query, expectation): return JSONChecks.path(query, expectation, output)
        case let .jsonPointer(pointer, expectation): return JSONChecks.pointer(pointer, expectation, output)
        case .judge, .similar:
            // Never reached: evaluateWithinLimit awaits these itself.
            return CheckOutcome(holds: false, expected: describe(check), actual: "a model-graded check was not awaited")
        case let .toolCalled(name, arguments, times, minimum, maximum):
            return ToolChecks.called(name, arguments, times: times, min: minimum, max: maximum, input.tools)
        case let .toolNotCalled(name): return ToolChecks.notCalled(name, input.tools)
        case let .toolSequence(names, strict): return ToolChecks.sequence(names, strict: strict, input.tools)
        case .toolArgumentsValid: return ToolChecks.argumentsValid(input.tools)
        case let .maxToolCalls(limit): return ToolChecks.maxCalls(limit, input.tools)
        case let .maxToolRounds(limit): return ToolChecks.maxRounds(limit, input.tools)
        }
    }

    /// Asks the judge backend for a reason-first verdict; its call is recorded on the result.
    private func judge(_ name: String, _ rubric: String, _ minScore: Double?, _ input: GradingInput) async -> CheckOutcome {
        let expected = "the judge \(name) to pass the answer" + (minScore.map { " with a score of at least \(Self.number($0))" } ?? "")
            + " against the rubric \(Self.quote(rubric, limit: 80))"
        guard let backend = models[name] else {
            return CheckOutcome(holds: false, expected: expected, actual: "no judge: backend '\(name)' is not running")
        }
        let request = JudgePrompt.request(question: input.prompt ?? "", answer: input.output, rubric: rubric,
                                          timeoutSeconds: timeoutSeconds)
        let conversation = await backend.startConversation()
        let (result, attempts) = await retryPolicy.run { await conversation.respond(to: request) }
        switch result {
        case let .failure(failure):
            let call = JudgeCall(backend: name, model: backend.model, latencyMs: failure.timing?.latencyMs,
                                 ttftMs: failure.timing?.ttftMs, error: failure.description, attempts: attempts)
            return CheckOutcome(holds: false, expected: expected, actual: "the judge call failed: \(failure.description)", judge: call)
        case let .success(response):
            var call = JudgeCall(backend: name, model: response.model ?? backend.model, latencyMs: response.timing.latencyMs,
                                 ttftMs: response.timing.ttftMs, usage: response.usage.checked(), attempts: attempts)
            switch JudgePrompt.parse(response.text) {
            case let .failure(problem):
                call.error = problem.message
                return CheckOutcome(holds: false, expected: expected, actual: problem.message, judge: call)
            case let .success(verdict):
                call.verdict = verdict
                let holds = verdict.pass && (minScore.map { verdict.score >= $0 } ?? true)
                return CheckOutcome(holds: holds, expected: expected,
                                    actual: "\(verdict.pass ? "pass" : "fail"), score \(Self.number(verdict.score)): \(Self.quote(verdict.reason, limit: Self.excerptLimit))",
                                    note: "judge \(name): \(verdict.reason)", judge: call)
            }
        }
    }

    /// Cosine similarity of the answer's and the reference's embeddings.
    private func similar(_ name: String, _ reference: String, _ threshold: Double, _ output: String) async -> CheckOutcome {
        let expected = "an embedding similarity of at least \(Self.number(threshold)) to \(Self.quote(reference, limit: 80))"
        guard let backend = models[name] as? any EmbeddingBackend else {
            return CheckOutcome(holds: false, expected: expected,
                                actual: "backend '\(name)' is not running or serves no embeddings")
        }
        var latencyMs = 0.0  // the last attempt's, as for a judge call
        let (result, attempts) = await retryPolicy.run {
            let stopwatch = Stopwatch()
            defer { latencyMs = stopwatch.ms() }
            return await backend.embed([output, reference], timeoutSeconds: timeoutSeconds)
        }
        switch result {
        case let .failure(failure):
            return CheckOutcome(holds: false, expected: expected, actual: "the embeddings call failed: \(failure.description)",
                                judge: JudgeCall(backend: name, latencyMs: latencyMs, error: failure.description, attempts: attempts))
        case let .success(vectors):
            let call = JudgeCall(backend: name, latencyMs: latencyMs, attempts: attempts)
            guard let similarity = cosineSimilarity(vectors[0], vectors[1]) else {
                return CheckOutcome(holds: false, expected: expected, actual: "an embedding with no direction (empty, all zeros, or not finite)", judge: call)
            }
            let text = String(format: "%.4f", similarity)
            return CheckOutcome(holds: similarity >= threshold, expected: expected,
                                actual: "cosine similarity \(text)", note: "similarity \(text)", judge: call)
        }
    }

    /// `at /age: expected …; got …`, or for `not: true`, `expected the opposite of: …`.
    static func explain(_ outcome: CheckOutcome, inverted: Bool) -> String {
        let location = outcome.pointer.map { "at \($0.readable): " } ?? ""
        let expected = inverted ? "the opposite of: \(outcome.expected) (not: true)" : outcome.expected
        return "\(location)expected \(expected); got \(outcome.actual)"
    }

    /// A short description of a check, used as its name in reports.
    package static func describe(_ check: Assertion.Check) -> String {
        func flag(_ ignoreCase: Bool) -> String { ignoreCase ? " (ignoring case)" : "" }
        func list(_ values: [String]) -> String { quote(values.joined(separator: ", "), limit: 40) }
        switch check {
        case let .contains(value, ignoreCase): return "contains \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .notContains(value, ignoreCase): return "notContains \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .equals(value, ignoreCase): return "equals \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .startsWith(value, ignoreCase): return "startsWith \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .regex(pattern, ignoreCase): return "regex /\(pattern.prefix(40))/\(ignoreCase ? "i" : "")"
        case let .notRegex(pattern, ignoreCase): return "notRegex /\(pattern.prefix(40))/\(ignoreCase ? "i" : "")"
        case let .maxLatencyMs(limit): return "maxLatencyMs \(number(limit))"
        case let .maxTTFTMs(limit): return "maxTTFTMs \(number(limit))"
        case let .maxOutputTokens(limit): return "maxOutputTokens \(limit)"
        case let .minCacheHitRatio(minimum): return "minCacheHitRatio \(number(minimum))"
        case .json: return "json"
        case .jsonSchema: return "jsonSchema"
        case let .jsonPath(query, expectation): return "jsonPath \(query.description.prefix(40))\(JSONChecks.describe(expectation))"
        case let .jsonPointer(pointer, expectation): return "jsonPointer \(pointer.description.prefix(40))\(JSONChecks.describe(expectation))"
        case let .containsAll(values, ignoreCase): return "containsAll \(list(values))\(flag(ignoreCase))"
        case let .containsAny(values, ignoreCase): return "containsAny \(list(values))\(flag(ignoreCase))"
        case let .lengthBetween(minimum, maximum):
            return "lengthBetween \(minimum.map(String.init) ?? "0") and \(maximum.map(String.init) ?? "∞")"
        case let .label(expected, _): return "label \(quote(expected, limit: 40))"
        case let .keywords(values, minRatio, _): return "keywords \(list(values)) ≥ \(number(minRatio * 100))%"
        case let .judge(grader, rubric, _): return "judge \(grader.backend): \(quote(rubric, limit: 40))"
        case let .similar(grader, value, threshold): return "similar \(quote(value, limit: 40)) ≥ \(number(threshold)) (\(grader.backend))"
        case let .toolCalled(name, arguments, _, _, _): return "toolCalled \(name)" + (arguments == nil ? "" : " with arguments")
        case let .toolNotCalled(name): return "toolNotCalled \(name ?? "any tool")"
        case let .toolSequence(names, strict): return "toolSequence \(names.joined(separator: " → "))\(strict ? " (strict)" : "")"
        case .toolArgumentsValid: return "toolArgumentsValid"
        case let .maxToolCalls(limit): return "maxToolCalls \(limit)"
        case let .maxToolRounds(limit): return "maxToolRounds \(limit)"
        }
    }

    /// Longest answer excerpt in an explanation.
    package static let excerptLimit = 200

    /// `text` in double quotes, cut at `limit` characters (with "…"), its backslashes, quotes
    /// and newlines escaped: how a verdict quotes an answer (`excerptLimit`) or a value.
    package static func quote(_ text: String, limit: Int = 80) -> String {
        if let quoted = quotedPlainASCII(text, limit) { return quoted }
        // No more characters than bytes when the bytes are within the limit.
        let clipped = text.utf8.count > limit && text.count > limit ? String(text.prefix(limit)) + "…" : text
        guard clipped.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return "\"\(clipped)\"" }
        let escaped = clipped
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    /// `quote(text, limit:)` made in one pass and one allocation when what is kept of `text`
    /// has nothing to escape and, when it is cut, its first `limit` + 1 bytes are ASCII without
    /// a carriage return (each of the first `limit` bytes is then a character: only CR LF joins
    /// ASCII bytes into one, and an ASCII byte after them starts a new one); nil otherwise. The
    /// result table makes each answer's excerpt again whenever a result is read, so this is on
    /// the reports' path.
    private static func quotedPlainASCII(_ text: String, _ limit: Int) -> String? {
        let quoted = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard limit >= 0 else { return nil }
            let clipped = bytes.count > limit
            let kept = clipped ? limit : bytes.count
            // One look-up a byte: an escape among the bytes kept rules this path out, and so,
            // when the text is cut, does a byte up to and just after the cut that may not be a
            // character of its own.
            var kinds: UInt8 = 0
            for byte in UnsafeBufferPointer(rebasing: bytes[..<kept]) { kinds |= plainByteKinds[Int(byte)] }
            if clipped { kinds |= plainByteKinds[Int(bytes[kept])] & Self.notACharacter }
            if kinds & Self.needsEscape != 0 || clipped && kinds & Self.notACharacter != 0 { return nil }
            // Quotes, the bytes kept, and "…" (3 bytes) when clipped.
            return String(unsafeUninitializedCapacity: kept + 2 + (clipped ? 3 : 0)) { buffer in
                buffer[0] = 0x22
                _ = UnsafeMutableBufferPointer(rebasing: buffer[1...]).initialize(from: UnsafeBufferPointer(rebasing: bytes[..<kept]))
                var end = kept + 1
                if clipped {
                    for byte in "…".utf8 {
                        buffer[end] = byte
                        end += 1
                    }
                }
                buffer[end] = 0x22
                return end + 1
            }
        }
        return quoted ?? nil
    }

    /// `plainByteKinds` bits: a byte to escape (`\\`, `"`, newline), and a byte that is not
    /// sure to be a character of its own (not ASCII, or CR, which joins a following LF).
    private static let needsEscape: UInt8 = 1
    private static let notACharacter: UInt8 = 2

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }
}

/// What each byte value rules out of `Grader.quote`'s one-pass path (its `needsEscape` and
/// `notACharacter` bits).
private let plainByteKinds: [UInt8] = (0...255).map { byte in
    (byte == 0x5C || byte == 0x22 || byte == 0x0A ? 1 : 0) | (byte >= 0x80 || byte == 0x0D ? 2 : 0)
}
