/// JSON has no infinity or NaN, and a result holding one cannot be written: a cost of
/// 1e308 × tokens or a score over weights of 1e308 would lose the whole result. Before a
/// result is stored, every figure that is not a finite number becomes empty, with a note;
/// so does a time that no clock measured (negative, or above `plausibleMs`), which a cache
/// entry, a replayed recording or a results.jsonl edited by hand can hold. Results read back
/// from a file pass the same check, so no report shows a latency of -10 ms.
extension RequestResult {
    /// About 11.6 days: longer than any one request evalbench waits for (a timeout is at most a
    /// day, and a request's times are those of its last attempt): a time above it was not measured.
    package static let plausibleMs = 1e9

    /// Whether `withFiniteFigures` would change anything: read without copying the result, for
    /// the million results a report reads, nearly all of them fit.
    package var hasUnfitFigures: Bool {
        func unfit(_ value: Double?) -> Bool { value.map { !$0.isFinite } ?? false }
        func unfitTime(_ value: Double?) -> Bool { value.map { !($0 >= 0 && $0 <= Self.plausibleMs) } ?? false }
        if unfit(costUSD) || unfit(score) || unfit(caseScore) || unfit(threshold) { return true }
        if let timing, unfitTime(timing.firstTokenMs) || unfitTime(timing.firstAnswerTokenMs) || unfitTime(timing.endMs) { return true }
        return assertions.contains { assertion in
            !assertion.weight.isFinite || assertion.judge.map { judge in
                unfitTime(judge.latencyMs) || unfitTime(judge.ttftMs) || unfit(judge.verdict?.score)
            } ?? false
        }
    }

    /// This result with each non-finite figure emptied and named in `unknownFigures`.
    package func withFiniteFigures() -> RequestResult {
        var result = self
        var notes: [String] = []
        func clear(_ value: inout Double?, _ name: String) {
            guard let number = value, !number.isFinite else { return }
            value = nil
            notes.append("\(name) unknown: \(number) is not a finite number")
        }
        func clearTime(_ value: inout Double?, _ name: String) {
            clear(&value, name)
            guard let number = value, number < 0 || number > Self.plausibleMs else { return }
            value = nil
            notes.append("\(name) unknown: \(number) ms is \(number < 0 ? "negative" : "longer than any request")")
        }
        clear(&result.costUSD, "cost_usd")
        clear(&result.score, "score")
        clear(&result.caseScore, "case_score")
        clear(&result.threshold, "threshold")
        if var timing = result.timing {
            clearTime(&timing.firstTokenMs, "timing.first_token_ms")
            clearTime(&timing.firstAnswerTokenMs, "timing.first_answer_token_ms")
            clearTime(&timing.endMs, "timing.end_ms")
            result.timing = timing
        }
        for index in result.assertions.indices where !result.assertions[index].weight.isFinite {
            notes.append("assertion '\(result.assertions[index].name)' weight \(result.assertions[index].weight) is not a finite number; recorded as 1")
            result.assertions[index].weight = 1
        }
        for index in result.assertions.indices {
            guard var judge = result.assertions[index].judge else { continue }
            clearTime(&judge.latencyMs, "judge.latency_ms")
            clearTime(&judge.ttftMs, "judge.ttft_ms")
            if let score = judge.verdict?.score, !score.isFinite {
                judge.verdict?.score = 0
                notes.append("judge score \(score) is not a finite number; recorded as 0")
            }
            result.assertions[index].judge = judge
        }
        guard !notes.isEmpty else { return result }
        result.unknownFigures = (result.unknownFigures ?? []) + notes
        return result
    }
}
