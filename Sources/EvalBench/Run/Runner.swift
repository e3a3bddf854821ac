import Foundation

/// What the runner tells its observer as the run goes.
public enum RunEvent: Sendable {
    /// A request (one turn) finished and was recorded.
    case recorded(RequestResult)
}

/// Runs a plan: conversations in parallel under a global and a per-backend limit, the turns
/// of one conversation in order on one session, each result recorded the moment it finishes.
public struct Runner: Sendable {
    public var backends: [String: any Backend]
    public var store: ResultStore
    public var concurrency: Int
    public var timeoutSeconds: Double
    public var retryPolicy: RetryPolicy
    /// Prices by backend name; a backend without one has an empty cost.
    public var pricing: [String: Pricing]
    /// Per-backend request timeouts (config `timeoutSeconds`), replacing `timeoutSeconds`.
    public var timeouts: [String: Double]
    /// Per-backend context windows (config `contextSize`), for `history.truncateToFit`.
    public var contextSizes: [String: Int]
    /// HTTP backends whose config sets `prewarm`: true prewarms each conversation before its
    /// first turn; either way their results say how the session started (cold, prewarmed, reused).
    public var prewarm: [String: Bool]
    /// evalbench's response cache, when `--cache` is on, and each backend's identity for its keys.
    public var cache: ResponseCache?
    public var cacheIdentities: [String: String] = [:]
    public var onEvent: @Sendable (RunEvent) -> Void

    public init(backends: [String: any Backend], store: ResultStore, concurrency: Int,
                timeoutSeconds: Double, retryPolicy: RetryPolicy, pricing: [String: Pricing] = [:],
                timeouts: [String: Double] = [:], contextSizes: [String: Int] = [:], prewarm: [String: Bool] = [:], onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        self.backends = backends
        self.store = store
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.retryPolicy = retryPolicy
        self.pricing = pricing
        self.timeouts = timeouts
        self.contextSizes = contextSizes
        self.prewarm = prewarm
        self.onEvent = onEvent
    }

    /// Runs every case run of `plan` whose key is not in `finishedKeys`.
    /// `availability` holds each backend's answer to `prepare()`.
    public func run(_ plan: RunPlan, availability: [String: Availability], finishedKeys: Set<String> = []) async {
        let global = AsyncSemaphore(limit: concurrency)
        var queues: [String: [PlannedCaseRun]] = [:]
        var order: [String] = []
        for caseRun in plan.caseRuns where !finishedKeys.contains(caseRun.key) {
            if queues[caseRun.backend] == nil { order.append(caseRun.backend) }
            queues[caseRun.backend, default: []].append(caseRun)
        }
        await withTaskGroup(of: Void.self) { group in
            for name in order {
                let queue = WorkQueue(queues[name] ?? [])
                guard let backend = backends[name] else { continue }
                let workers = max(1, min(backend.concurrency, concurrency, queues[name]?.count ?? 1))
                for _ in 0..<workers {
                    group.addTask {
                        while let caseRun = await queue.next() {
                            if Task.isCancelled { break }
                            await perform(caseRun, on: backend, availability: availability, global: global)
                        }
                    }
                }
            }
        }
    }

    private func perform(_ caseRun: PlannedCaseRun, on backend: any Backend, availability all: [String: Availability],
                         global: AsyncSemaphore) async {
        let evalCase = caseRun.evalCase
        let availability = all[caseRun.backend] ?? .available
        if case let .unsupported(reason) = backend.reasoningSupport(caseRun.reasoning) {
            for index in evalCase.turns.indices {
                await record(skipped(caseRun, turn: index, model: backend.model, reason: reason))
            }
            return
        }
        if case let .unavailableHere(reason) = availability {
            for index in evalCase.turns.indices {
                var result = skipped(caseRun, turn: index, model: backend.model, reason: "unavailable here: \(reason)")
                result.errorKind = .unavailable
                await record(result)
            }
            return
        }
        if case let .unavailable(reason) = availability {
            let failure = BackendFailure(kind: .unavailable, message: reason, attempts: 0)
            await record(errored(caseRun, turn: 0, model: backend.model, failure: failure))
            for index in evalCase.turns.indices.dropFirst() {
                await record(skipped(caseRun, turn: index, model: backend.model, reason: "turn 1 errored"))
            }
            return
        }
        var current = (name: caseRun.backend, backend: backend)
        var conversation = await backend.startConversation()
        var level = caseRun.reasoning
        var instructions = evalCase.instructions
        var options = evalCase.options
        var history: [ChatMessage] = []
        var previousPrompt: CanonicalPrompt?
        var sessionStart: RequestDetails.SessionStart? = nil
        if let warm = prewarm[caseRun.backend] {
            sessionStart = .cold
            if warm, let prewarming = backend as? any Prewarming,
               await prewarming.prewarm(instructions: evalCase.turns.first?.switchTo?.instructions ?? evalCase.instructions,
                                        options: evalCase.options, timeoutSeconds: timeouts[caseRun.backend] ?? timeoutSeconds) {
                sessionStart = .prewarmed
            }
        }
        let grader = Grader(models: backends, timeoutSeconds: timeoutSeconds)
        var caseScore = WeightedScore()
        for (index, turn) in evalCase.turns.enumerated() {
            if Task.isCancelled { return }
            if let change = turn.switchTo {
                if let text = change.instructions { instructions = text }
                if let changed = change.options { options = changed.merged(over: options) }
                if let changed = change.reasoning { level = changed }
                if let name = change.backend, name != current.name {
                    guard let next = backends[name] else {
                        await fail(caseRun, from: index, model: current.backend.model,
                                   BackendFailure(kind: .badRequest, message: "turn \(index + 1) switches to backend '\(name)', which this run did not start", attempts: 0))
                        return
                    }
                    if case let .unavailable(reason) = all[name] ?? .available {
                        await fail(caseRun, from: index, model: next.model, BackendFailure(kind: .unavailable, message: reason, attempts: 0))
                        return
                    }
                    if case let .unavailableHere(reason) = all[name] ?? .available {
                        await skip(caseRun, from: index, model: next.model, reason: "turn \(index + 1) switches to \(name), unavailable here: \(reason)")
                        return
                    }
                    current = (name, next)
                    conversation = await next.startConversation()
                    // A new session shares nothing with the old one's cache.
                    previousPrompt = nil
                }
                if case let .unsupported(reason) = current.backend.reasoningSupport(level) {
                    await skip(caseRun, from: index, model: current.backend.model, reason: "turn \(index + 1): \(reason)")
                    return
                }
            }
            let prompt = ChatMessage(role: .user, content: turn.prompt)
            let earlier = turn.history?.apply(to: history, prompt: prompt, instructions: instructions,
                                              maxOutputTokens: options.maxOutputTokens,
                                              contextSize: contextSizes[current.name]) ?? history
            history.append(prompt)
            let request = ModelRequest(instructions: instructions, messages: earlier + [prompt],
                                       options: options, reasoning: level,
                                       timeoutSeconds: timeouts[current.name] ?? timeoutSeconds, output: evalCase.output,
                                       origin: RequestOrigin(suite: caseRun.suite, caseID: evalCase.id, variant: caseRun.variant,
                                                             reasoning: level, repeatIndex: caseRun.repeatIndex, turn: index + 1))
            let canonical = CanonicalPrompt(request)
            let prefix = previousPrompt.map { PrefixComparison(previous: $0, current: canonical) }
            previousPrompt = canonical
            let cacheKey = cache.map { _ in
                ResponseCache.key(backend: cacheIdentities[current.name] ?? current.name, request: request, repeatIndex: caseRun.repeatIndex)
            }
            var fromCache = false
            let result: Result<ModelResponse, BackendFailure>
            let attempts: Int
            if let cache, let cacheKey, let hit = await cache.lookup(cacheKey) {
                (result, attempts, fromCache) = (.success(hit), 0, true)
            } else {
                await global.acquire()
                (result, attempts) = await retryPolicy.run { await conversation.respond(to: request) }
                await global.release()
                if let cache, let cacheKey, case let .success(response) = result { await cache.store(response, key: cacheKey) }
            }
            switch result {
            case let .success(response):
                let input = GradingInput(output: response.text, latencyMs: response.timing.latencyMs,
                                         ttftMs: response.timing.ttftMs, usage: response.usage, prompt: turn.prompt)
                let grade = await grader.grade(turn.expect, input)
                caseScore.add(grade.score)
                var recorded = base(caseRun, turn: index, model: response.model ?? current.backend.model)
                recorded.backend = current.name
                recorded.reasoning = level
                recorded.instructions = instructions
                recorded.switched = turn.switchTo?.summary
                if let kept = turn.history, request.messages.count - 1 < history.count - 1 {
                    recorded.historyNote = "sent \(request.messages.count - 1) of \(history.count - 1) earlier messages"
                        + (kept.truncateToFit ? " (truncated to fit)" : "")
                }
                recorded.status = grade.passes(threshold: evalCase.threshold) ? .pass : .fail
                recorded.score = grade.score.value
                recorded.threshold = evalCase.threshold
                if index == evalCase.turns.count - 1 { recorded.caseScore = caseScore.value }
                recorded.output = response.text
                recorded.reasoningText = response.reasoningText
                recorded.finishReason = response.finishReason
                recorded.timing = response.timing
                recorded.usage = response.usage
                recorded.attempts = attempts
                recorded.assertions = grade.results
                recorded.costUSD = pricing[current.name]?.costUSD(for: response.usage)
                recorded.details = response.details
                if let source = response.replayedFrom {
                    recorded.replayed = true
                    recorded.replayedFrom = source
                }
                if let start = sessionStart, recorded.details?.session == nil, current.name == caseRun.backend {
                    var details = recorded.details ?? RequestDetails()
                    details.session = index == 0 ? start : .reused
                    recorded.details = details
                }
                recorded.prefix = prefix
                recorded.cached = fromCache ? true : nil
                await record(recorded)
                history.append(ChatMessage(role: .assistant, content: response.text))
            case let .failure(failure):
                if failure.kind == .cancelled || Task.isCancelled { return }
                var errored = errored(caseRun, turn: index, model: current.backend.model, failure: failure)
                errored.backend = current.name
                errored.reasoning = level
                errored.switched = turn.switchTo?.summary
                await record(errored)
                for later in evalCase.turns.indices where later > index {
                    await record(skipped(caseRun, turn: later, model: current.backend.model, reason: "turn \(index + 1) errored"))
                }
                return
            }
        }
    }

    /// Records turn `index` as failed with `failure` and the later turns as skipped.
    private func fail(_ caseRun: PlannedCaseRun, from index: Int, model: String?, _ failure: BackendFailure) async {
        await record(errored(caseRun, turn: index, model: model, failure: failure))
        for later in caseRun.evalCase.turns.indices where later > index {
            await record(skipped(caseRun, turn: later, model: model, reason: "turn \(index + 1) errored"))
        }
    }

    /// Records turn `index` and the later turns as skipped for `reason`.
    private func skip(_ caseRun: PlannedCaseRun, from index: Int, model: String?, reason: String) async {
        for later in caseRun.evalCase.turns.indices where later >= index {
            await record(skipped(caseRun, turn: later, model: model, reason: reason))
        }
    }

    private func record(_ result: RequestResult) async {
        do {
            try await store.append(result)
        } catch {
            FileHandle.standardError.write(Data("evalbench: could not record \(result.key) turn \(result.turn): \(error)\n".utf8))
        }
        onEvent(.recorded(result))
    }

    private func base(_ caseRun: PlannedCaseRun, turn index: Int, model: String?) -> RequestResult {
        let evalCase = caseRun.evalCase
        var result = RequestResult(
            key: caseRun.key, suite: caseRun.suite, caseID: evalCase.id, turn: index + 1,
            turns: evalCase.turns.count, variant: caseRun.variant, backend: caseRun.backend, model: model,
            reasoning: caseRun.reasoning, repeatIndex: caseRun.repeatIndex, tags: evalCase.tags,
            status: .skipped, instructions: evalCase.instructions, prompt: evalCase.turns[index].prompt)
        result.slo = caseRun.slo
        return result
    }

    private func skipped(_ caseRun: PlannedCaseRun, turn index: Int, model: String?, reason: String) -> RequestResult {
        var result = base(caseRun, turn: index, model: model)
        result.status = .skipped
        result.skipReason = reason
        return result
    }

    private func errored(_ caseRun: PlannedCaseRun, turn index: Int, model: String?, failure: BackendFailure) -> RequestResult {
        var result = base(caseRun, turn: index, model: model)
        result.status = .error
        result.errorKind = failure.kind
        result.errorMessage = failure.message
        result.timing = failure.timing
        result.attempts = failure.attempts
        result.details = failure.details
        return result
    }
}

/// The case runs one backend still has to do, handed out to its workers in order.
private actor WorkQueue {
    private var items: [PlannedCaseRun]
    private var position = 0

    init(_ items: [PlannedCaseRun]) {
        self.items = items
    }

    func next() -> PlannedCaseRun? {
        guard position < items.count else { return nil }
        defer { position += 1 }
        return items[position]
    }
}
