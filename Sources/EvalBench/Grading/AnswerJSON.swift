import Foundation

/// The JSON value in an answer: the whole answer, or the first Markdown code fence in it
/// (models often wrap JSON in ```json … ```), which is tolerated and reported.
struct AnswerJSON: Sendable {
    var value: JSONValue
    /// Whether the JSON was inside a code fence.
    var fenced: Bool

    /// A note for the verdict when the JSON was fenced.
    var note: String? {
        fenced ? "the JSON was inside a Markdown code fence, which was removed" : nil
    }

    /// The answer's JSON, or why there is none: the parser's message with the line and
    /// column in the answer.
    static func parse(_ output: String) -> Result<AnswerJSON, AnswerJSONFailure> {
        let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let whole = parseValue(trimmed)
        if case .success(let value) = whole { return .success(AnswerJSON(value: value, fenced: false)) }
        if let body = fencedBody(output) {
            switch parseValue(body) {
            case .success(let value): return .success(AnswerJSON(value: value, fenced: true))
            case .failure(let failure): return .failure(AnswerJSONFailure(reason: "the code fence holds no valid JSON: " + failure.reason))
            }
        }
        if case .failure(let failure) = whole { return .failure(failure) }
        return .failure(AnswerJSONFailure(reason: "the answer is empty"))
    }

    private static func parseValue(_ text: String) -> Result<JSONValue, AnswerJSONFailure> {
        guard !text.isEmpty else { return .failure(AnswerJSONFailure(reason: "the answer is empty")) }
        do {
            let document = try JSONDocument(data: Data(text.utf8), file: "answer")
            return .success(JSONValue(document.root))
        } catch {
            let place = error.location.map { " (line \($0.line), column \($0.column))" } ?? ""
            return .failure(AnswerJSONFailure(reason: error.message + place))
        }
    }

    /// The body of the first ``` fence, with or without a language tag; nil when there is none.
    private static func fencedBody(_ output: String) -> String? {
        guard let open = output.range(of: "```") else { return nil }
        guard let lineEnd = output[open.upperBound...].firstIndex(of: "\n") else { return nil }
        let rest = output[output.index(after: lineEnd)...]
        guard let close = rest.range(of: "```") else { return nil }
        return rest[..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why an answer holds no JSON.
struct AnswerJSONFailure: Error, Sendable {
    var reason: String
}
