import Foundation

/// Which request of a run a `ModelRequest` is: what a replay backend matches recorded
/// answers on. The backend name is not part of it, so a run on one backend can be replayed
/// under another name.
public struct RequestOrigin: Sendable, Equatable, Hashable {
    /// The suite's name.
    public var suite: String
    /// The case's `id`.
    public var caseID: String
    /// The prompt variant's name; `default` when the suite declares none.
    public var variant: String
    /// The reasoning level of the planned request.
    public var reasoning: ReasoningLevel
    /// Counts from 1.
    public var repeatIndex: Int
    /// Counts from 1.
    public var turn: Int

    /// The origin of one request of a run.
    public init(suite: String, caseID: String, variant: String, reasoning: ReasoningLevel, repeatIndex: Int, turn: Int) {
        self.suite = suite
        self.caseID = caseID
        self.variant = variant
        self.reasoning = reasoning
        self.repeatIndex = repeatIndex
        self.turn = turn
    }

    /// `suite/case/variant/reasoning/repeat turn N`, as messages name it.
    public var description: String {
        "\(suite)/\(caseID)/\(variant)/\(reasoning.rawValue)/\(repeatIndex) turn \(turn)"
    }
}

/// Kind `replay`: answers each request with the output an earlier run recorded for the same
/// suite, case, variant, reasoning level, repeat and turn, whatever backend that run used.
/// Its usage is copied from the recording; its timing too, but the result is flagged
/// `replayed` and left out of latency statistics. A request the earlier run has no answer for
/// (never ran, errored or was skipped there) fails as `unavailable`, naming the key.
package struct ReplayBackend: Backend {
    package let name: String
    package let kind = ReplayKind.name
    package let model: String?
    package let concurrency: Int
    /// The earlier run's directory.
    package let directory: URL
    /// The recorded requests by origin, read once when the backend is made.
    private let answers: [RequestOrigin: RequestResult]
    /// Why results.jsonl could not be read, when it could not.
    private let readFailure: String?

    /// A replay of `directory`'s results; with `recordedBackend`, only that backend's answers.
    package init(name: String, model: String?, directory: URL, concurrency: Int, recordedBackend: String? = nil) {
        self.name = name
        self.model = model
        self.directory = directory
        self.concurrency = concurrency
        let url = RunDirectory(directory).results
        do {
            var answers: [RequestOrigin: RequestResult] = [:]
            for result in try RunDirectory(directory).readResults(role: "replayed")
            where recordedBackend == nil || result.backend == recordedBackend {
                let origin = RequestOrigin(suite: result.suite, caseID: result.caseID, variant: result.variant,
                                           reasoning: result.reasoning, repeatIndex: result.repeatIndex, turn: result.turn)
                // Each key and turn is read once (a repeated line is skipped where it is read).
                answers[origin] = result
            }
            self.answers = answers
            readFailure = nil
        } catch {
            answers = [:]
            readFailure = "cannot read \(url.path): \(error)"
        }
    }

    package func prepare() async -> Availability {
        readFailure.map { .unavailable($0) } ?? .available
    }

    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        .supported("as recorded")
    }

    package var structuredOutputSupport: String { "as recorded" }

    package func startConversation() async -> any Conversation {
        Replaying(answers: answers, source: RunDirectory(directory).results.path)
    }

    package func shutdown() async {}

    private struct Replaying: Conversation {
        let answers: [RequestOrigin: RequestResult]
        let source: String

        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            guard let origin = request.origin else {
                return .failure(BackendFailure(kind: .unavailable, message: "a replay backend needs to know which request it answers"))
            }
            guard let recorded = answers[origin] else {
                return .failure(BackendFailure(kind: .unavailable, message: "no recorded answer for \(origin.description) in \(source)"))
            }
            guard let output = recorded.output, recorded.status == .pass || recorded.status == .fail else {
                let why = recorded.status == .error
                    ? "it errored there (\(recorded.errorKind?.rawValue ?? "error"): \(recorded.errorMessage ?? "no message"))"
                    : "it was \(recorded.status.rawValue) there"
                return .failure(BackendFailure(kind: .unavailable,
                                               message: "no recorded answer for \(origin.description) in \(source): \(why)"))
            }
            let timing = recorded.timing ?? RequestTiming(startedAt: Date())
            var response = ModelResponse(text: output, reasoningText: recorded.reasoningText, timing: timing,
                                         usage: recorded.usage, finishReason: recorded.finishReason,
                                         model: recorded.model, details: recorded.details,
                                         replayedFrom: "\(source) (\(recorded.key) turn \(recorded.turn))")
            if let rounds = recorded.rounds, rounds.count > 1 || rounds.first?.toolCalls ?? 0 > 0 {
                if let problem = Self.replayRound(request.round, of: recorded, rounds: rounds, cannedTools: request.cannedTools, into: &response) {
                    return .failure(BackendFailure(kind: .unavailable, message: "the recording of \(origin.description) in \(source) \(problem)"))
                }
            }
            return .success(response)
        }

        /// A turn recorded with a tool loop replays round by round: the calls of round `round`
        /// (as recorded, so the tool loop answers them again from the current suite's canned
        /// results), then the recorded answer; each with its own round's usage and timing.
        /// Returns what is wrong when the recording does not hold together (a round that lists
        /// calls none of the recorded calls belongs to, as a hand edit leaves it): replaying it
        /// would lose the calls and the answer without a word.
        private static func replayRound(_ round: Int, of recorded: RequestResult, rounds: [ToolRound], cannedTools: [CannedTool],
                                        into response: inout ModelResponse) -> String? {
            let index = min(max(round, 1), rounds.count) - 1
            let figures = rounds[index]
            response.usage = figures.usage
            response.timing = RequestTiming(startedAt: response.timing.startedAt, firstTokenMs: figures.ttftMs,
                                            firstAnswerTokenMs: figures.toolCalls > 0 ? nil : figures.ttftMs, endMs: figures.latencyMs)
            guard figures.toolCalls > 0 else { return nil }
            if figures.answeredByBackend == true {
                // Recorded from a backend that ran the rounds inside one request: replayed as
                // such, each call answered again from the current suite's canned results.
                response.handledToolCalls = (recorded.toolCalls ?? []).map { record in
                    // A call the limit refused was not answered then and is not now.
                    let answer = record.result == nil ? nil : ToolAnswering.answer(record.call, tools: cannedTools)
                    return ToolCallRecord(record.call, round: record.round, answer: answer)
                }
                return nil
            }
            let calls = (recorded.toolCalls ?? []).filter { $0.round == index + 1 }.map(\.call)
            // Rounds a backend ran itself shift the calls' round numbers against the responses'
            // (`ToolLoop`): the counts are compared only where no round was the backend's.
            let numberedAlike = !rounds.contains { $0.answeredByBackend == true }
            guard !numberedAlike || calls.count == figures.toolCalls else {
                return "does not hold together: its round \(index + 1) made \(figures.toolCalls) tool calls, but \(calls.count) are recorded for it"
            }
            response.text = ""
            response.toolCalls = calls
            return nil
        }
    }
}
