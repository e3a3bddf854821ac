import Foundation

/// One turn's tool loop, the same for every backend: each response's tool calls are answered
/// from the canned results and sent back, until the model answers without a call. It keeps
/// every round's figures and the calls made, and combines them into the turn's response.
struct ToolLoop {
    let tools: [CannedTool]
    let maxRounds: Int
    /// The turn's monotonic clock: each round's start is placed on it from when its response
    /// came back minus the round's own latency, so waits between rounds are not counted twice.
    private let clock = Stopwatch()
    private(set) var responses: [(response: ModelResponse, startMs: Double)] = []
    private(set) var calls: [ToolCallRecord] = []
    private(set) var attempts = 0
    private(set) var anyFromCache = false

    init(tools: [CannedTool], maxRounds: Int?) {
        self.tools = tools
        self.maxRounds = maxRounds ?? GenerationOptions.defaultMaxToolRounds
    }

    /// Rounds the backend ran itself (`ModelResponse.handledToolCalls`), counted once.
    private var handledRounds = 0

    /// The rounds so far that called a tool, the backend's own included.
    var callRounds: Int { responses.filter { !$0.response.toolCalls.isEmpty }.count + handledRounds }

    /// Records a response that has just come back, with the calls its backend answered itself.
    mutating func add(_ response: ModelResponse, attempts: Int, fromCache: Bool) {
        let now = clock.ms()
        addHandled(response.handledToolCalls)
        responses.append((response, now - (response.timing.endMs ?? 0)))
        self.attempts += attempts
        anyFromCache = anyFromCache || fromCache
    }

    /// Keeps calls a backend answered itself, their rounds placed after the rounds so far.
    mutating func addHandled(_ handled: [ToolCallRecord]) {
        guard !handled.isEmpty else { return }
        let before = callRounds
        calls += handled.map { record in
            var placed = record
            placed.round = before + max(1, record.round)
            return placed
        }
        handledRounds += Set(handled.map(\.round)).count
    }

    /// Answers the last response's calls: the assistant message that carries them and the
    /// tool message with their results, to append to the history.
    mutating func answerLastCalls() -> [ChatMessage] {
        guard let last = responses.last?.response else { return [] }
        let round = callRounds
        var outputs: [ToolOutput] = []
        for call in last.toolCalls {
            let answer = ToolAnswering.answer(call, tools: tools)
            outputs.append(answer.output)
            calls.append(ToolCallRecord(call, round: round, answer: answer))
        }
        let words = outputs.map { "\($0.name) → \($0.content)" }.joined(separator: "\n")
        return [ChatMessage(role: .assistant, content: last.text, toolCalls: last.toolCalls),
                ChatMessage(role: .tool, content: words, toolOutputs: outputs)]
    }

    /// Records the last response's calls as not answered: the loop stopped at `maxRounds`.
    mutating func recordUnansweredCalls() {
        guard let last = responses.last?.response, !last.toolCalls.isEmpty else { return }
        let round = callRounds
        calls += last.toolCalls.map { ToolCallRecord($0, round: round, answer: nil) }
    }

    /// Each round's own figures.
    var rounds: [ToolRound] {
        responses.enumerated().map { index, entry in
            ToolRound(round: index + 1, latencyMs: entry.response.timing.latencyMs, ttftMs: entry.response.timing.ttftMs,
                      usage: entry.response.usage,
                      toolCalls: entry.response.toolCalls.count + entry.response.handledToolCalls.count,
                      answeredByBackend: entry.response.handledToolCalls.isEmpty ? nil : true)
        }
    }

    /// The failure that ends a turn whose model called a tool after `maxRounds` rounds.
    var roundsExceeded: BackendFailure {
        let names = responses.last?.response.toolCalls.map(\.name).joined(separator: ", ") ?? ""
        return BackendFailure(kind: .toolRoundsExceeded,
                              message: "the model called tools in \(maxRounds) rounds and then called again (\(names)); "
                                  + "maxToolRounds is \(maxRounds)",
                              attempts: attempts, timing: combinedTiming)
    }

    /// The turn's response: the last round's answer, the turn's timing, the rounds' usage summed.
    var combined: ModelResponse? {
        guard var response = responses.last?.response, let timing = combinedTiming else { return nil }
        response.timing = timing
        response.usage = Self.sum(responses.map(\.response.usage))
        response.toolCalls = []
        response.handledToolCalls = []
        return response
    }

    /// From the first round's start: its first token, the first answer text of any round, the last round's end.
    private var combinedTiming: RequestTiming? {
        guard let first = responses.first else { return nil }
        func offset(_ entry: (response: ModelResponse, startMs: Double), _ ms: Double?) -> Double? {
            ms.map { max(0, entry.startMs - first.startMs) + $0 }
        }
        let firstToken = responses.lazy.compactMap { offset($0, $0.response.timing.firstTokenMs) }.first
        let firstAnswer = responses.lazy.compactMap { offset($0, $0.response.timing.firstAnswerTokenMs) }.first
        let end = responses.last.flatMap { offset($0, $0.response.timing.endMs) }
        return RequestTiming(startedAt: first.response.timing.startedAt, firstTokenMs: firstToken,
                             firstAnswerTokenMs: firstAnswer, endMs: end)
    }

    /// Usage summed over rounds: a figure is known only when every round reported it; the
    /// source is the least exact of the rounds' (reported, then counted, then estimated). A
    /// round whose figures cannot all be true leaves every sum unknown, with that round named in
    /// `suspect` (its own figures stay in `rounds` as reported): one round's -5 input tokens
    /// and another's 10 are not 5.
    static func sum(_ usages: [Usage]) -> Usage {
        guard usages.count > 1 else { return usages.first ?? Usage() }
        let sources = usages.map(\.source)
        let source: TokenSource? = sources.contains { $0 == nil } ? nil
            : sources.contains(.estimated) ? .estimated : sources.contains(.counted) ? .counted : .reported
        if let index = usages.firstIndex(where: { $0.implausibility != nil }), let why = usages[index].implausibility {
            var unknown = Usage(source: source)
            unknown.suspect = "round \(index + 1): \(why)"
            return unknown
        }
        func total(_ figure: (Usage) -> Int?) -> Int? {
            let figures = usages.map(figure)
            var sum = 0
            for figure in figures {
                // Unknown, and a sum past Int.max (absurd figures a server sent) is unknown too.
                guard let figure else { return nil }
                let (added, overflow) = sum.addingReportingOverflow(figure)
                if overflow { return nil }
                sum = added
            }
            return sum
        }
        return Usage(inputTokens: total(\.inputTokens), cachedInputTokens: total(\.cachedInputTokens),
                     cacheWriteInputTokens: total(\.cacheWriteInputTokens), outputTokens: total(\.outputTokens),
                     reasoningTokens: total(\.reasoningTokens), source: source)
    }
}
