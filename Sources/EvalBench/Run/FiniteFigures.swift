/// JSON has no infinity or NaN, and a result holding one cannot be written: a cost of
/// 1e308 × tokens or a score over weights of 1e308 would lose the whole result. Before a
/// result is stored, every figure that is not a finite number becomes empty, with a note.
extension RequestResult {
    /// This result with each non-finite figure emptied and named in `unknownFigures`.
    package func withFiniteFigures() -> RequestResult {
        var result = self
        var notes: [String] = []
        func clear(_ value: inout Double?, _ name: String) {
            guard let number = value, !number.isFinite else { return }
            value = nil
            notes.append("\(name) unknown: \(number) is not a finite number")
        }
        clear(&result.costUSD, "cost_usd")
        clear(&result.score, "score")
        clear(&result.caseScore, "case_score")
        clear(&result.threshold, "threshold")
        if var timing = result.timing {
            clear(&timing.firstTokenMs, "timing.first_token_ms")
            clear(&timing.firstAnswerTokenMs, "timing.first_answer_token_ms")
            clear(&timing.endMs, "timing.end_ms")
            result.timing = timing
        }
        for index in result.assertions.indices where !result.assertions[index].weight.isFinite {
            notes.append("assertion '\(result.assertions[index].name)' weight \(result.assertions[index].weight) is not a finite number; recorded as 1")
            result.assertions[index].weight = 1
        }
        for index in result.assertions.indices {
            guard var judge = result.assertions[index].judge else { continue }
            clear(&judge.latencyMs, "judge.latency_ms")
            clear(&judge.ttftMs, "judge.ttft_ms")
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
