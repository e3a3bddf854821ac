import Foundation

/// One case run from its first turn to its last, on one session: the turns' switches, the
/// history each turn sends, the response cache, retries, grading, and a result recorded for
/// every turn (skipped or errored ones too).
struct CaseRunExecution {
    private let caseRun: PlannedCaseRun
    private let runner: Runner
    private let global: AsyncSemaphore
    private let grader: Grader
    private var current: BackendSlot
    private var conversation: any Conversation
    private var level: ReasoningLevel
    private var instructions: String?
    private var options: GenerationOptions
    /// The tools in force: the case's, until a turn's `tools` switch replaces them.
    private var tools: [CannedTool]
    private var history: [ChatMessage] = []
    /// The last request sent on this session, which the next one's prefix is compared with
    /// (its canonical rendering is made then: a case run of one turn never needs it).
    private var previousRequest: ModelRequest?
    /// How the planned backend's session started, for backends that tag it.
    private var sessionStart: RequestDetails.SessionStart?
    private var caseScore = WeightedScore()

    private var evalCase: EvalCase { caseRun.evalCase }

    /// Runs `caseRun` on `slot`, or records why it cannot run there.
    /// `grader` is the run's, shared by its case runs (`Runner.makeGrader`).
    static func perform(_ caseRun: PlannedCaseRun, on slot: BackendSlot, runner: Runner, global: AsyncSemaphore,
                        grader: Grader) async {
        guard await startable(caseRun, on: slot, runner: runner) else { return }
        var execution = await CaseRunExecution(caseRun, on: slot, runner: runner, global: global, grader: grader)
        await execution.run()
    }

    /// False, with every turn recorded, when `slot` cannot run `caseRun` at all.
    private static func startable(_ caseRun: PlannedCaseRun, on slot: BackendSlot, runner: Runner) async -> Bool {
        let turns = caseRun.evalCase.turns.indices
        let model = slot.backend.model
        if case let .unsupported(reason) = slot.backend.reasoningSupport(caseRun.reasoning) {
            for index in turns { await runner.record(.skipped(caseRun, turn: index, model: model, reason: reason)) }
            return false
        }
        switch slot.availability {
        case .available:
            return true
        case let .unavailableHere(reason):
            for index in turns {
                var result = RequestResult.skipped(caseRun, turn: index, model: model, reason: "unavailable here: \(reason)")
                result.errorKind = .unavailable
                await runner.record(result)
            }
        case let .unavailable(reason):
            await runner.fail(caseRun, from: 0, model: model, BackendFailure(kind: .unavailable, message: reason, attempts: 0))
        }
        return false
    }

    private init(_ caseRun: PlannedCaseRun, on slot: BackendSlot, runner: Runner, global: AsyncSemaphore,
                 grader: Grader) async {
        self.caseRun = caseRun
        self.runner = runner
        self.global = global
        self.grader = grader
        current = slot
        level = caseRun.reasoning
        instructions = caseRun.evalCase.instructions
        options = caseRun.evalCase.options
        tools = caseRun.evalCase.tools
        conversation = await slot.backend.startConversation()
        sessionStart = await prewarm(slot)
    }

    /// How the session on `slot` starts: prewarmed when its config asks and the prewarm worked.
    private func prewarm(_ slot: BackendSlot) async -> RequestDetails.SessionStart? {
        guard let warm = slot.prewarm else { return nil }
        guard warm, let prewarming = slot.backend as? any Prewarming else { return .cold }
        let ready = await prewarming.prewarm(instructions: evalCase.turns.first?.switchTo?.instructions ?? evalCase.instructions,
                                             options: evalCase.options,
                                             timeoutSeconds: slot.timeoutSeconds ?? runner.timeoutSeconds)
        return ready ? .prewarmed : .cold
    }

    private mutating func run() async {
        for (index, turn) in evalCase.turns.enumerated() {
            if Task.isCancelled { return }
            if runner.store.failure != nil { return }
            if let change = turn.switchTo {
                guard await apply(change, at: index) else { return }
            }
            guard await send(turn, at: index) else { return }
        }
    }

    /// Applies turn `index`'s switches; false, with the rest recorded, when the case run cannot go on.
    private mutating func apply(_ change: TurnSwitch, at index: Int) async -> Bool {
        if let text = change.instructions { instructions = text }
        if let changed = change.options { options = changed.merged(over: options) }
        if let changed = change.reasoning { level = changed }
        if let changed = change.tools { tools = changed }
        if let name = change.backend, name != current.name {
            guard let next = runner.slots[name] else {
                let message = "turn \(index + 1) switches to backend '\(name)', which this run did not start"
                await runner.fail(caseRun, from: index, model: current.backend.model,
                                  BackendFailure(kind: .badRequest, message: message, attempts: 0))
                return false
            }
            switch next.availability {
            case .available: break
            case let .unavailable(reason):
                await runner.fail(caseRun, from: index, model: next.backend.model,
                                  BackendFailure(kind: .unavailable, message: reason, attempts: 0))
                return false
            case let .unavailableHere(reason):
                await runner.skip(caseRun, from: index, model: next.backend.model,
                                  reason: "turn \(index + 1) switches to \(name), unavailable here: \(reason)")
                return false
            }
            current = next
            conversation = await next.backend.startConversation()
            // A new session shares nothing with the old one's cache.
            previousRequest = nil
        }
        if case let .unsupported(reason) = current.backend.reasoningSupport(level) {
            await runner.skip(caseRun, from: index, model: current.backend.model, reason: "turn \(index + 1): \(reason)")
            return false
        }
        return true
    }

    /// Sends turn `index` (with its tool loop), grades and records it; false when the case run stops there.
    private mutating func send(_ turn: Turn, at index: Int) async -> Bool {
        var request = makeRequest(turn, at: index)
        let prefix = previousRequest.map { PrefixComparison(previous: CanonicalPrompt($0), current: CanonicalPrompt(request)) }
        let sent = SentTurn(backend: current.name, model: current.backend.model, reasoning: level,
                            instructions: instructions, switched: turn.switchTo?.summary,
                            historyNote: historyNote(turn, sent: request), prefix: prefix)
        var loop = ToolLoop(tools: tools, maxRounds: options.maxToolRounds)
        while true {
            // The next turn's cache sees the last request of this one's tool loop.
            previousRequest = request
            let (result, attempts, fromCache) = await respond(to: request)
            switch result {
            case let .success(response):
                loop.add(response, attempts: attempts, fromCache: fromCache)
                // Without tools of the turn's own, a call is the server's (Gemini's server-side MCP) or
                // one nothing can answer: the answer stands as it is.
                if response.toolCalls.isEmpty || request.tools.isEmpty {
                    loop.recordUnansweredCalls()
                    await recordAnswer(loop, to: turn, at: index, sent: sent)
                    history.append(ChatMessage(role: .assistant, content: response.text))
                    return true
                }
                if loop.callRounds > loop.maxRounds {
                    loop.recordUnansweredCalls()
                    return await recordFailure(loop.roundsExceeded, loop: loop, at: index, sent: sent)
                }
                let round = loop.answerLastCalls()
                history += round
                request.messages += round
                request.round += 1
                // `required` or a named tool would force a call in every round and never let the model answer.
                if request.options.toolChoice != ToolChoice.none { request.options.toolChoice = nil }
            case let .failure(failure):
                loop.addHandled(failure.handledToolCalls)
                return await recordFailure(failure, loop: loop, at: index, sent: sent)
            }
        }
    }

    /// Records turn `index` as failed with the tool calls made so far; false: the case run stops.
    /// The sum of the requests' costs; nil when any one is unknown (no pricing, or a figure
    /// its prices need was not reported).
    private static func total(_ costs: [(usd: Double?, unknownBecause: String?)?]) -> Double? {
        var sum = 0.0
        for cost in costs {
            guard let usd = cost?.usd else { return nil }
            sum += usd
        }
        return sum
    }

    private func recordFailure(_ failure: BackendFailure, loop: ToolLoop, at index: Int, sent: SentTurn) async -> Bool {
        if failure.kind == .cancelled || Task.isCancelled { return false }
        var errored = RequestResult.errored(caseRun, turn: index, model: current.backend.model, failure: failure)
        // Billed tokens a failure reported (a refusal, a cut-off stream) are charged too, as are
        // the earlier rounds of its tool loop; per-request prices and free backends price it even
        // without usage.
        let failed = current.pricing?.pricedCost(for: (failure.usage ?? Usage()).checked())
        let earlier = loop.rounds.map { current.pricing?.pricedCost(for: $0.usage.checked()) }
        let costs = [failed] + earlier
        errored.costUSD = Self.total(costs)
        errored.backend = sent.backend
        errored.reasoning = sent.reasoning
        errored.switched = sent.switched
        if !loop.responses.isEmpty || !loop.calls.isEmpty {
            errored.toolCalls = loop.calls
            errored.rounds = loop.rounds
        }
        await runner.record(errored)
        await runner.skip(caseRun, from: index + 1, model: current.backend.model, reason: "turn \(index + 1) errored")
        return false
    }

    /// Turn `index`'s request: the history its `history` transform keeps, then its prompt.
    private mutating func makeRequest(_ turn: Turn, at index: Int) -> ModelRequest {
        let prompt = ChatMessage(role: .user, content: turn.prompt)
        let earlier = turn.history?.apply(to: history, prompt: prompt, instructions: instructions,
                                          maxOutputTokens: options.maxOutputTokens,
                                          contextSize: current.contextSize) ?? history
        history.append(prompt)
        return ModelRequest(instructions: instructions, messages: earlier + [prompt], options: options, reasoning: level,
                            timeoutSeconds: current.timeoutSeconds ?? runner.timeoutSeconds, output: evalCase.output,
                            origin: RequestOrigin(suite: caseRun.suite, caseID: evalCase.id, variant: caseRun.variant,
                                                  reasoning: level, repeatIndex: caseRun.repeatIndex, turn: index + 1),
                            tools: tools.map(\.definition), cannedTools: tools)
    }

    /// `sent 2 of 4 earlier messages` when the turn's `history` transform left some out.
    private func historyNote(_ turn: Turn, sent request: ModelRequest) -> String? {
        guard let kept = turn.history, request.messages.count - 1 < history.count - 1 else { return nil }
        return "sent \(request.messages.count - 1) of \(history.count - 1) earlier messages"
            + (kept.truncateToFit ? " (truncated to fit)" : "")
    }

    /// The answer from the response cache, else from the backend under the global limit and the retry policy.
    private func respond(to request: ModelRequest) async -> (Result<ModelResponse, BackendFailure>, attempts: Int, fromCache: Bool) {
        let responseCache = current.cacheable ? runner.cache : nil
        let cacheKey = responseCache.map { _ in
            ResponseCache.key(backend: current.cacheIdentity ?? current.name, request: request, repeatIndex: caseRun.repeatIndex)
        }
        if let cache = responseCache, let cacheKey, let hit = await cache.lookup(cacheKey) {
            return (.success(hit), 0, true)
        }
        await global.acquire()
        if let failure = runner.store.failure {
            global.release()
            return (.failure(BackendFailure(kind: .cancelled, message: failure.description)), 0, false)
        }
        let (result, attempts) = await ResponseSizeLimit.$bytes.withValue(runner.maxResponseBytes) {
            await runner.retryPolicy.run { await conversation.respond(to: request) }
        }
        global.release()
        if let cache = responseCache, let cacheKey, case let .success(response) = result {
            await cache.store(response, key: cacheKey)
        }
        return (result, attempts, false)
    }

    private mutating func recordAnswer(_ loop: ToolLoop, to turn: Turn, at index: Int, sent: SentTurn) async {
        guard let response = loop.combined else { return }
        let fromCache = loop.anyFromCache
        let usesTools = !tools.isEmpty || !loop.calls.isEmpty
        var input = GradingInput(output: response.text, latencyMs: response.timing.latencyMs,
                                 ttftMs: response.timing.ttftMs, usage: response.usage, prompt: turn.prompt)
        input.tools = ToolUse(calls: loop.calls, rounds: loop.callRounds, tools: tools)
        // Judge and embeddings calls are capped like the graded request's own response.
        let grade = await ResponseSizeLimit.$bytes.withValue(runner.maxResponseBytes) { await grader.grade(turn.expect, input) }
        caseScore.add(grade.score)
        var recorded = RequestResult.answered(caseRun, turn: index, sent: sent, response: response, attempts: loop.attempts, grade: grade)
        if usesTools {
            recorded.toolCalls = loop.calls
            recorded.rounds = loop.rounds
            if !tools.isEmpty {
                recorded.toolDefinitionTokens = ToolCost.estimatedTokens(tools.map(\.definition))
                if let count = await (current.backend as? any ToolTokenCounting)?.countToolTokens(tools.map(\.definition)) {
                    recorded.toolDefinitionTokensCounted = count.tokens
                    recorded.toolDefinitionTokensMethod = count.method
                }
            }
        }
        if index == evalCase.turns.count - 1 { recorded.caseScore = caseScore.value }
        recorded.usage = response.usage.checked()
        // Each round is a request: a per-request price is charged per round. An unknown round's
        // cost leaves the turn's unknown, with why when the prices could not apply.
        let priced = loop.rounds.map { current.pricing?.pricedCost(for: $0.usage.checked()) }
        recorded.costUSD = Self.total(priced)
        let reasons = priced.compactMap { $0?.unknownBecause }
        if !reasons.isEmpty { recorded.unknownFigures = Array(Set(reasons)).sorted() }
        if let start = sessionStart, current.name == caseRun.backend {
            recorded.tagSession(index == 0 ? start : .reused)
        }
        recorded.cached = fromCache ? true : nil
        await runner.record(recorded)
    }
}
