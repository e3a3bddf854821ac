import Foundation

/// What the runner tells its observer as the run goes.
package enum RunEvent: Sendable {
    /// A request (one turn) finished and was recorded.
    case recorded(RequestResult)
}

/// Runs a plan: conversations in parallel under a global and a per-backend limit, the turns
/// of one conversation in order on one session, each result recorded the moment it finishes.
package struct Runner: Sendable {
    /// Every backend the run started, by name, with what the runner knows about each.
    package var slots: [String: BackendSlot]
    package var store: ResultStore
    package var concurrency: Int
    /// The request timeout of backends whose slot sets none, and of grading calls.
    package var timeoutSeconds: Double
    package var retryPolicy: RetryPolicy
    /// evalbench's response cache, when `--cache` is on.
    package var cache: ResponseCache?
    /// The size cap of each response body (`defaults.maxResponseBytes`).
    package var maxResponseBytes = ResponseSizeLimit.defaultBytes
    /// How long one assertion may take to grade (`defaults.gradingTimeoutSeconds`).
    package var gradingTimeLimitSeconds = GradingTimeLimit.defaultSeconds
    package var onEvent: @Sendable (RunEvent) -> Void
    /// One fail-fast streak per backend (config `defaults.failFastAfter`).
    let failFast: [String: FailFast]

    /// A runner over `slots`, one per backend the run started; `failFastAfter` consecutive
    /// identical non-retryable failures stop a backend (0 never does).
    package init(slots: [BackendSlot], store: ResultStore, concurrency: Int, timeoutSeconds: Double,
                retryPolicy: RetryPolicy, cache: ResponseCache? = nil, failFastAfter: Int = 0,
                onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        self.slots = Dictionary(slots.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        failFast = Dictionary(slots.map { ($0.name, FailFast(limit: failFastAfter)) }, uniquingKeysWith: { _, last in last })
        self.store = store
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
        self.retryPolicy = retryPolicy
        self.cache = cache
        self.onEvent = onEvent
    }

    /// A runner over `backends` by name, with prices, timeouts, context windows and prewarming
    /// by backend name.
    package init(backends: [String: any Backend], store: ResultStore, concurrency: Int,
                timeoutSeconds: Double, retryPolicy: RetryPolicy, pricing: [String: Pricing] = [:],
                timeouts: [String: Double] = [:], contextSizes: [String: Int] = [:], prewarm: [String: Bool] = [:],
                onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        let slots = backends.map { name, backend in
            BackendSlot(name: name, backend: backend, pricing: pricing[name], timeoutSeconds: timeouts[name],
                        contextSize: contextSizes[name], prewarm: prewarm[name])
        }
        self.init(slots: slots, store: store, concurrency: concurrency, timeoutSeconds: timeoutSeconds,
                  retryPolicy: retryPolicy, onEvent: onEvent)
    }

    /// Runs every case run of `plan` that is not among `finished` (a resumed run's).
    /// `availability` holds each backend's answer to `prepare()`.
    package func run(_ plan: RunPlan, availability: [String: Availability], finished: FinishedCaseRuns = FinishedCaseRuns()) async {
        var prepared = self
        for (name, answer) in availability { prepared.slots[name]?.availability = answer }
        // Every request's task runs on the run's own threads (see RunExecutor).
        await onRunExecutor { await prepared.run(plan, skipping: finished) }
    }

    private func run(_ plan: RunPlan, skipping finished: FinishedCaseRuns) async {
        let global = AsyncSemaphore(limit: concurrency)
        // Each backend's queue holds indices into the plan, not copies of its case runs.
        var queues: [String: [Int]] = [:]
        var order: [String] = []
        for index in plan.caseRuns.indices where !finished.contains(index) {
            let backend = plan.caseRuns.backend(at: index)
            if queues[backend] == nil { order.append(backend) }
            queues[backend, default: []].append(index)
        }
        let grader = makeGrader()
        await withDiscardingTaskGroup { group in
            for name in order {
                let queue = WorkQueue(plan.caseRuns, indices: queues[name] ?? [])
                guard let slot = slots[name] else { continue }
                let workers = max(1, min(slot.backend.concurrency, concurrency, queues[name]?.count ?? 1))
                for _ in 0..<workers {
                    group.addTask {
                        while let caseRun = queue.next() {
                            if Task.isCancelled { break }
                            if store.failure != nil { break }
                            if let reason = failFast[name]?.reason {
                                await skip(caseRun, from: 0, model: slot.backend.model, reason: reason)
                                continue
                            }
                            await CaseRunExecution.perform(caseRun, on: slot, runner: self, global: global, grader: grader)
                        }
                    }
                }
            }
        }
    }

    /// A grader with every backend the run started, for judges and embeddings: `run` makes one
    /// for all its case runs (each case run made its own, copying the backends each time).
    func makeGrader() -> Grader {
        Grader(models: slots.mapValues(\.backend), timeoutSeconds: timeoutSeconds, timeLimitSeconds: gradingTimeLimitSeconds,
               retryPolicy: retryPolicy)
    }

    /// Records turn `index` as failed with `failure` and the later turns as skipped.
    func fail(_ caseRun: PlannedCaseRun, from index: Int, model: String?, _ failure: BackendFailure) async {
        await record(.errored(caseRun, turn: index, model: model, failure: failure))
        await skip(caseRun, from: index + 1, model: model, reason: "turn \(index + 1) errored")
    }

    /// Records turn `index` and the later turns as skipped for `reason`.
    func skip(_ caseRun: PlannedCaseRun, from index: Int, model: String?, reason: String) async {
        for later in caseRun.evalCase.turns.indices where later >= index {
            await record(.skipped(caseRun, turn: later, model: model, reason: reason))
        }
    }

    func record(_ result: RequestResult) async {
        do {
            // Encoded here, on this task's thread, so results are not encoded one at a time by the store.
            try store.append(ResultStore.encoded(result))
        } catch {
            // The first failure stops the run (see ResultStore); it is said once, by the caller.
        }
        onEvent(.recorded(result))
        if let reason = failFast[result.backend]?.note(result) {
            // The reason quotes the server's error message: printed with its control characters escaped.
            FileHandle.standardError.write(Data("evalbench: \(TerminalText.safe(reason))\n".utf8))
        }
    }
}

/// The case runs one backend still has to do, handed out to its workers in order (under a
/// lock: an actor cost every case run two task switches).
private final class WorkQueue: @unchecked Sendable {
    // @unchecked: `position` is touched only under `lock`.
    /// The whole plan's case runs, shared by every backend's queue.
    private let caseRuns: PlannedCaseRuns
    /// This backend's, in order.
    private let indices: [Int]
    private let lock = NSLock()
    private var position = 0

    init(_ caseRuns: PlannedCaseRuns, indices: [Int]) {
        self.caseRuns = caseRuns
        self.indices = indices
    }

    func next() -> PlannedCaseRun? {
        guard let index = lock.withLock({ () -> Int? in
            guard position < indices.count else { return nil }
            defer { position += 1 }
            return indices[position]
        }) else { return nil }
        return caseRuns.keyed(index)
    }
}
