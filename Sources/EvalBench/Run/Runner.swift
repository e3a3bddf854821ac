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
    public var onEvent: @Sendable (RunEvent) -> Void

    public init(backends: [String: any Backend], store: ResultStore, concurrency: Int,
                timeoutSeconds: Double, retryPolicy: RetryPolicy, pricing: [String: Pricing] = [:],
                onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        self.backends = backends
        self.store = store
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.retryPolicy = retryPolicy
        self.pricing = pricing
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
                            await perform(caseRun, on: backend, availability: availability[name] ?? .available, global: global)
                        }
                    }
                }
            }
        }
    }

    private func perform(_ caseRun: PlannedCaseRun, on backend: any Backend, availability: Availability,
                         global: AsyncSemaphore) async {
        let evalCase = caseRun.evalCase
        if case let .unsupported(reason) = backend.reasoningSupport(caseRun.reasoning) {
            for index in evalCase.turns.indices {
                await record(skipped(caseRun, turn: index, model: backend.model, reason: reason))
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
        let conversation = await backend.startConversation()
        var history: [ChatMessage] = []
        let grader = Grader()
        var caseScore = WeightedScore()
        for (index, turn) in evalCase.turns.enumerated() {
            if Task.isCancelled { return }
            history.append(ChatMessage(role: .user, content: turn.prompt))
            let request = ModelRequest(instructions: evalCase.instructions, messages: history,
                                       options: evalCase.options, reasoning: caseRun.reasoning,
                                       timeoutSeconds: timeoutSeconds)
            await global.acquire()
            let (result, attempts) = await retryPolicy.run { await conversation.respond(to: request) }
            await global.release()
            switch result {
            case let .success(response):
                let input = GradingInput(output: response.text, latencyMs: response.timing.latencyMs,
                                         ttftMs: response.timing.ttftMs, usage: response.usage)
                let grade = await grader.grade(turn.expect, input)
                caseScore.add(grade.score)
                var recorded = base(caseRun, turn: index, model: response.model ?? backend.model)
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
                recorded.costUSD = pricing[caseRun.backend]?.costUSD(for: response.usage)
                await record(recorded)
                history.append(ChatMessage(role: .assistant, content: response.text))
            case let .failure(failure):
                if failure.kind == .cancelled || Task.isCancelled { return }
                await record(errored(caseRun, turn: index, model: backend.model, failure: failure))
                for later in evalCase.turns.indices where later > index {
                    await record(skipped(caseRun, turn: later, model: backend.model, reason: "turn \(index + 1) errored"))
                }
                return
            }
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
        return RequestResult(
            key: caseRun.key, suite: caseRun.suite, caseID: evalCase.id, turn: index + 1,
            turns: evalCase.turns.count, variant: caseRun.variant, backend: caseRun.backend, model: model,
            reasoning: caseRun.reasoning, repeatIndex: caseRun.repeatIndex, tags: evalCase.tags,
            status: .skipped, instructions: evalCase.instructions, prompt: evalCase.turns[index].prompt)
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
