import Foundation

/// The few ways a run makes a `RequestResult`: skipped, errored or answered, each starting
/// from what every result of a planned case run's turn shares.
extension RequestResult {
    /// Turn `index` of `caseRun` as planned, before it ran: skipped until a builder says otherwise.
    init(planned caseRun: PlannedCaseRun, turn index: Int, model: String?) {
        let evalCase = caseRun.evalCase
        self.init(key: caseRun.key, suite: caseRun.suite, caseID: evalCase.id, turn: index + 1,
                  turns: evalCase.turns.count, variant: caseRun.variant, backend: caseRun.backend, model: model,
                  reasoning: caseRun.reasoning, repeatIndex: caseRun.repeatIndex, tags: evalCase.tags,
                  status: .skipped, instructions: evalCase.instructions, prompt: evalCase.turns[index].prompt)
        slo = caseRun.slo
        planIndex = caseRun.index
    }

    /// Turn `index` of `caseRun`, not sent for `reason`.
    static func skipped(_ caseRun: PlannedCaseRun, turn index: Int, model: String?, reason: String) -> RequestResult {
        var result = RequestResult(planned: caseRun, turn: index, model: model)
        result.skipReason = reason
        return result
    }

    /// Turn `index` of `caseRun`, which failed with `failure`.
    static func errored(_ caseRun: PlannedCaseRun, turn index: Int, model: String?, failure: BackendFailure) -> RequestResult {
        var result = RequestResult(planned: caseRun, turn: index, model: model)
        result.status = .error
        result.errorKind = failure.kind
        result.errorMessage = failure.message
        result.timing = failure.timing
        result.attempts = failure.attempts
        result.details = failure.details
        if let usage = failure.usage { result.usage = usage }
        return result
    }

    /// Turn `index` of `caseRun` as sent by `backend` at `reasoning` (after the turn's switches),
    /// answered with `response` after `attempts` and graded with `grade`.
    static func answered(_ caseRun: PlannedCaseRun, turn index: Int, sent: SentTurn, response: ModelResponse,
                         attempts: Int, grade: TurnGrade) -> RequestResult {
        var result = RequestResult(planned: caseRun, turn: index, model: response.model ?? sent.model)
        result.backend = sent.backend
        result.reasoning = sent.reasoning
        result.instructions = sent.instructions
        result.switched = sent.switched
        result.historyNote = sent.historyNote
        result.status = grade.passes(threshold: caseRun.evalCase.threshold) ? .pass : .fail
        result.score = grade.score.value
        result.threshold = caseRun.evalCase.threshold
        result.output = response.text
        result.reasoningText = response.reasoningText
        result.finishReason = response.finishReason
        result.timing = response.timing
        result.usage = response.usage
        result.attempts = attempts
        result.assertions = grade.results
        result.details = response.details
        if let source = response.replayedFrom {
            result.replayed = true
            result.replayedFrom = source
        }
        result.prefix = sent.prefix
        return result
    }

    /// Records how the session of this request started, unless the backend said so itself.
    mutating func tagSession(_ start: RequestDetails.SessionStart) {
        guard details?.session == nil else { return }
        var tagged = details ?? RequestDetails()
        tagged.session = start
        details = tagged
    }
}

/// What a turn sent and to whom, after its switches: what its result records beside the answer.
struct SentTurn {
    /// The backend that answered, and its configured model.
    var backend: String
    var model: String?
    var reasoning: ReasoningLevel
    var instructions: String?
    /// What the turn switched, if anything.
    var switched: String?
    /// How the turn's `history` transform trimmed what it sent, if it did.
    var historyNote: String?
    /// How much of the request repeats the previous one of the conversation.
    var prefix: PrefixComparison?
}
