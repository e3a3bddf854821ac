import Foundation

/// A model judge's verdict on one answer, reason first: the judge writes its reason before
/// it commits to `pass` and `score`.
public struct JudgeVerdict: Sendable, Codable, Hashable {
    /// The judge's explanation, written before its verdict.
    public var reason: String
    /// Whether the answer meets the rubric.
    public var pass: Bool
    /// From 0 to 1.
    public var score: Double

    /// A verdict; `score` must be from 0 to 1.
    public init(reason: String, pass: Bool, score: Double) {
        self.reason = reason
        self.pass = pass
        self.score = score
    }
}

/// One call to a judge backend, recorded with its own measurements: they belong to the judge,
/// never to the backend whose answer was graded.
public struct JudgeCall: Sendable, Codable, Hashable {
    /// The judge's (or embedding model's) configured backend name.
    public var backend: String
    /// The model that graded, as reported or configured; nil when unknown (an embedding call).
    public var model: String?
    /// The call's latency in ms; nil when not measured.
    public var latencyMs: Double?
    /// The call's time to first token in ms; nil when not measured (embedding calls do not stream).
    public var ttftMs: Double?
    /// The call's own tokens; figures not reported are nil, never 0.
    public var usage: Usage
    /// The judge's verdict; nil for an embedding call, or when `error` says why there is none.
    public var verdict: JudgeVerdict?
    /// Why there is no verdict: the call failed or its answer did not parse.
    public var error: String?
    /// Attempts made, retries included (the run's `defaults.retries`, for retryable failures);
    /// the measurements are the last attempt's. Nil when not recorded.
    public var attempts: Int?

    /// A call to `backend`; every measurement unknown until given.
    public init(backend: String, model: String? = nil, latencyMs: Double? = nil, ttftMs: Double? = nil,
                usage: Usage = Usage(), verdict: JudgeVerdict? = nil, error: String? = nil, attempts: Int? = nil) {
        self.backend = backend
        self.model = model
        self.latencyMs = latencyMs
        self.ttftMs = ttftMs
        self.usage = usage
        self.verdict = verdict
        self.error = error
        self.attempts = attempts
    }

    enum CodingKeys: String, CodingKey {
        case backend, model, usage, verdict, error, attempts
        case latencyMs = "latency_ms"
        case ttftMs = "ttft_ms"
    }
}

/// The request a judge gets and the reading of its answer.
package enum JudgePrompt {
    /// The verdict schema, properties in the order the judge must fill them: reason first.
    package static let output = StructuredOutput(
        schema: .object([
            "type": .string("object"),
            "properties": .object([
                "reason": .object(["type": .string("string")]),
                "pass": .object(["type": .string("boolean")]),
                "score": .object(["type": .string("number"), "minimum": .number(0), "maximum": .number(1)]),
            ]),
            "required": .array([.string("reason"), .string("pass"), .string("score")]),
            "additionalProperties": .bool(false),
        ]),
        name: "verdict",
        schemaText: #"{"type":"object","properties":{"reason":{"type":"string"},"pass":{"type":"boolean"},"score":{"type":"number","minimum":0,"maximum":1}},"required":["reason","pass","score"],"additionalProperties":false}"#)

    package static let instructions = """
        You grade an assistant's answer against a rubric. First explain your judgement in \
        "reason", then give "pass" (true when the answer meets the rubric) and "score" (0 to 1, \
        how well it meets it). Reply with only a JSON object: {"reason": "...", "pass": true, "score": 0.9}.
        """

    /// The judge's request for `answer` to `question`, graded against `rubric`.
    package static func request(question: String, answer: String, rubric: String,
                               timeoutSeconds: Double) -> ModelRequest {
        let prompt = """
            Rubric:
            \(rubric)

            Question:
            \(question)

            Answer:
            \(answer)
            """
        return ModelRequest(instructions: instructions, messages: [ChatMessage(role: .user, content: prompt)],
                            options: GenerationOptions(temperature: 0, maxOutputTokens: 512),
                            timeoutSeconds: timeoutSeconds, output: output)
    }

    /// The verdict in a judge's answer; a Markdown code fence around the JSON is tolerated. The
    /// types are the schema's, strictly: JSONSerialization read `"pass": 1` as true and
    /// `"score": true` as 1 on Linux, so a sloppy judge's verdict passed.
    package static func parse(_ text: String) -> Result<JudgeVerdict, JudgeParseError> {
        let json = JSONText.unfenced(text).text
        guard let document = try? JSONDocument(data: Data(json.utf8), file: "judge"),
              case let .object(object) = JSONValue(document.root) else {
            return .failure(JudgeParseError(message: "the judge's answer is not a JSON object: \(Grader.quote(text, limit: 200))"))
        }
        guard case let .string(reason)? = object["reason"] else {
            return .failure(JudgeParseError(message: "the judge's verdict has no string \"reason\": \(Grader.quote(json, limit: 200))"))
        }
        guard case let .bool(pass)? = object["pass"] else {
            return .failure(JudgeParseError(message: "the judge's verdict has no boolean \"pass\": \(Grader.quote(json, limit: 200))"))
        }
        guard case let .number(score)? = object["score"], (0...1).contains(score) else {
            return .failure(JudgeParseError(message: "the judge's verdict has no \"score\" from 0 to 1: \(Grader.quote(json, limit: 200))"))
        }
        return .success(JudgeVerdict(reason: reason, pass: pass, score: score))
    }
}

/// Why a judge's answer could not be read as a verdict.
package struct JudgeParseError: Error, Sendable, Equatable {
    package var message: String
}

/// JSON inside an answer that may wrap it in a Markdown code fence.
enum JSONText {
    /// The text with a surrounding ``` or ```json fence removed, and whether there was one.
    static func unfenced(_ answer: String) -> (text: String, fenced: Bool) {
        let trimmed = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("```"), trimmed.hasSuffix("```"), trimmed.count >= 6 else { return (trimmed, false) }
        var inner = trimmed.dropFirst(3).dropLast(3)
        if let newline = inner.firstIndex(of: "\n") {
            let tag = inner[..<newline].trimmingCharacters(in: .whitespaces)
            if tag.isEmpty || tag.allSatisfy({ $0.isLetter }) { inner = inner[inner.index(after: newline)...] }
        }
        return (inner.trimmingCharacters(in: .whitespacesAndNewlines), true)
    }
}
