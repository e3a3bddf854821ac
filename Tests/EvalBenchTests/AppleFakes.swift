import Foundation
@testable import EvalBench

/// A test double of the Foundation Models framework behind `AppleModelDriving`: scripted
/// snapshots or errors per request, and a record of every session and request. Each fake
/// session keeps a transcript as OS 27 does: a request that finishes is kept, one whose stream
/// is cancelled before it finishes is reverted.
final class FakeAppleDriver: AppleModelDriving, @unchecked Sendable {
    // @unchecked: every mutable field is only touched under `lock`.
    /// One request's answer: snapshots with a delay before each, then an optional error.
    struct Reply: Sendable {
        var snapshots: [(content: String, afterMs: Double)]
        /// The request's usage: on its last snapshot, and added to the session's usage.
        var usage: AppleUsage?
        /// Thrown after the snapshots: a framework error already read…
        var error: AppleModelError?
        /// …or anything else (an NSError chain, a fake of a framework enum), which the backend maps.
        var thrown: (any Error & Sendable)?
        /// Never finishes (for timeouts).
        var hangs = false
        /// Every snapshot but the last carries an all-zero usage, as OS 27 reports early on.
        var zeroUsageEarly = false
        /// Tool rounds the fake model makes before its snapshots, each a list of (tool, arguments
        /// JSON): the session calls its tools as the framework does, its transcript gaining a
        /// `toolCalls` entry per round. A tool's error ends the request with it.
        var toolRounds: [[(name: String, arguments: String)]] = []

        init(_ snapshots: [(String, Double)] = [], usage: AppleUsage? = nil, error: AppleModelError? = nil,
             thrown: (any Error & Sendable)? = nil, hangs: Bool = false, zeroUsageEarly: Bool = false) {
            self.snapshots = snapshots.map { (content: $0.0, afterMs: $0.1) }
            self.usage = usage
            self.error = error
            self.thrown = thrown
            self.hangs = hangs
            self.zeroUsageEarly = zeroUsageEarly
        }

        static func text(_ text: String) -> Reply { Reply([(text, 1)]) }
    }

    /// A request as the fake session received it.
    struct Received: Sendable, Equatable {
        var session: Int
        var instructions: String?
        var prompt: String
        var options: AppleGenerationRequest
        /// The prompts of the turns the session's transcript held when this request came.
        var transcript: [String] = []
        /// The names of the tools the session was made with.
        var tools: [String] = []
    }

    let model: AppleModel
    var availabilityAnswer: AppleAvailability
    var reportedContextSize: Int?
    /// Tokens per character for `tokenCount(of:)`; nil means the OS has no counter.
    var tokensPerCharacter: Double?
    var quotaReading: AppleQuotaReading?
    /// Whether sessions report `session.usage` (OS 27).
    var sessionUsage: Bool
    private let lock = NSLock()
    private var script: (Received) -> Reply
    private var received: [Received] = []
    private var counted: [AppleTokenInput] = []
    private var sessionCount = 0
    private var prewarmCount = 0
    private var calls: [String: Int] = [:]

    init(_ model: AppleModel, availability: AppleAvailability = .available, contextSize: Int? = nil,
         tokensPerCharacter: Double? = nil, quota: AppleQuotaReading? = nil, sessionUsage: Bool = false,
         script: @escaping (Received) -> Reply = { .text("answer to \($0.prompt)") }) {
        self.model = model
        availabilityAnswer = availability
        reportedContextSize = contextSize
        self.tokensPerCharacter = tokensPerCharacter
        quotaReading = quota
        self.sessionUsage = sessionUsage
        self.script = script
    }

    var requests: [Received] { lock.withLock { received } }
    var sessions: Int { lock.withLock { sessionCount } }
    var prewarms: Int { lock.withLock { prewarmCount } }
    var countedInputs: [AppleTokenInput] { lock.withLock { counted } }
    /// How often each driver call was made, by name.
    var callCounts: [String: Int] { lock.withLock { calls } }

    private func called(_ name: String) { lock.withLock { calls[name, default: 0] += 1 } }

    func availability() async -> AppleAvailability { called("availability"); return availabilityAnswer }
    func contextSize() async -> Int? { called("contextSize"); return reportedContextSize }
    func quota() async -> AppleQuotaReading? { called("quota"); return quotaReading }

    func tokenCount(of input: AppleTokenInput) async -> Int? {
        guard let tokensPerCharacter else { return nil }
        lock.withLock { counted.append(input) }
        let text: String
        switch input {
        case let .prompt(value), let .instructions(value): text = value
        case let .schema(schema): text = String(describing: schema)
        case let .tools(specs): text = String(describing: specs)
        }
        return Int((Double(text.count) * tokensPerCharacter).rounded(.up))
    }

    func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving {
        let index = lock.withLock { sessionCount += 1; return sessionCount }
        return Session(driver: self, index: index, instructions: instructions, tools: tools, state: SessionState())
    }

    fileprivate func reply(to request: Received) -> Reply {
        lock.withLock {
            received.append(request)
            return script(request)
        }
    }

    fileprivate func prewarmed() { lock.withLock { prewarmCount += 1 } }

    /// One session's transcript and usage so far.
    fileprivate final class SessionState: @unchecked Sendable {
        // @unchecked: every field is only touched under `lock`.
        private let lock = NSLock()
        private var prompts: [String] = []
        private var calls: [[String]] = []
        private var total = AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0)

        var transcript: [String] { lock.withLock { prompts } }
        /// The current request's `toolCalls` entries.
        var toolCalls: [[String]] { lock.withLock { calls } }
        func startRequest() { lock.withLock { calls = [] } }
        func called(_ names: [String]) { lock.withLock { calls.append(names) } }
        var usage: AppleUsage { lock.withLock { total } }

        func keep(_ prompt: String, usage: AppleUsage?) {
            lock.withLock {
                prompts.append(prompt)
                guard let usage else { return }
                total = AppleUsage(inputTokens: (total.inputTokens ?? 0) + (usage.inputTokens ?? 0),
                                   cachedInputTokens: (total.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0),
                                   outputTokens: (total.outputTokens ?? 0) + (usage.outputTokens ?? 0),
                                   reasoningTokens: (total.reasoningTokens ?? 0) + (usage.reasoningTokens ?? 0))
            }
        }
    }

    private struct Session: AppleSessionDriving {
        let driver: FakeAppleDriver
        let index: Int
        let instructions: String?
        let tools: AppleSessionTools?
        let state: SessionState

        func prewarm() { driver.prewarmed() }

        func toolCallEntries() -> [[String]]? { state.toolCalls }

        func usage() async -> AppleUsage? { driver.sessionUsage ? state.usage : nil }

        func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error> {
            let reply = driver.reply(to: Received(session: index, instructions: instructions, prompt: prompt, options: options,
                                                  transcript: state.transcript, tools: tools?.specs.map(\.name) ?? []))
            let state = state
            let tools = tools
            state.startRequest()
            return AsyncThrowingStream { continuation in
                let task = Task {
                    for round in reply.toolRounds {
                        // Like the framework: a tool the session was not made with is never called.
                        guard let tools, round.allSatisfy({ call in tools.specs.contains { $0.name == call.name } }) else { break }
                        state.called(round.map(\.name))
                        do {
                            for call in round { _ = try tools.answerer.answer(name: call.name, argumentsJSON: call.arguments) }
                        } catch {
                            continuation.finish(throwing: FakeToolCallError(underlying: error))
                            return
                        }
                    }
                    for (offset, snapshot) in reply.snapshots.enumerated() {
                        try? await Task.sleep(nanoseconds: UInt64(snapshot.afterMs * 1_000_000))
                        if Task.isCancelled { return }
                        let last = offset == reply.snapshots.count - 1
                        let early = reply.zeroUsageEarly ? AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0) : nil
                        continuation.yield(AppleSnapshot(content: snapshot.content, usage: last ? reply.usage : early))
                    }
                    if reply.hangs {
                        while !Task.isCancelled { try? await Task.sleep(nanoseconds: 5_000_000) }
                    }
                    // A cancelled request is reverted from the transcript (OS 27's default).
                    if Task.isCancelled { return }
                    if let error = reply.error { continuation.finish(throwing: error); return }
                    if let thrown = reply.thrown { continuation.finish(throwing: thrown); return }
                    state.keep(prompt, usage: reply.usage)
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}

/// What the framework throws when a tool's `call` throws (`LanguageModelSession.ToolCallError`).
struct FakeToolCallError: Error, Sendable {
    var underlying: any Error & Sendable
}

/// An entitlement checker that answers as told and counts its calls.
final class FakeEntitlements: EntitlementChecking, @unchecked Sendable {
    // @unchecked: `asked` is only touched under `lock`.
    let answer: Bool?
    private let lock = NSLock()
    private var asked: [String] = []

    init(_ answer: Bool?) { self.answer = answer }

    var questions: [String] { lock.withLock { asked } }

    func hasEntitlement(_ entitlement: String) -> Bool? {
        lock.withLock { asked.append(entitlement) }
        return answer
    }
}

/// Runs `cases` on Apple backends made from fake drivers, through the real Runner.
/// `timeoutSeconds` is long: no test here measures the time limit, and on a loaded 2-core CI
/// machine the test process's threads were once all busy for over 10 s (three of these tests
/// then saw a fake's immediate answer time out, and retried it).
func runApple(_ backends: [String: any Backend], cases: [EvalCase], reasoning: [ReasoningLevel] = [.none],
              retries: Int = 0, timeoutSeconds: Double = 120) async throws -> [RequestResult] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ResultStore(url: directory.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: backends, store: store, concurrency: 4, timeoutSeconds: timeoutSeconds,
                        retryPolicy: RetryPolicy(maxRetries: retries, baseDelaySeconds: 0.01, maxDelaySeconds: 0.02))
    var availability: [String: Availability] = [:]
    for (name, backend) in backends { availability[name] = await backend.prepare() }
    let names = backends.keys.sorted()
    let plan = Planner.plan([Suite(name: "s", file: "s.json", cases: cases)], PlanSelection(backends: names, reasoning: reasoning))
    await runner.run(plan, availability: availability)
    try store.close()
    return store.all().sorted { ($0.backend, $0.caseID, $0.reasoning, $0.turn) < ($1.backend, $1.caseID, $1.reasoning, $1.turn) }
}

func appleBackend(_ name: String, _ driver: any AppleModelDriving, fallback: (any Backend)? = nil,
                  configure: (inout BackendConfig) -> Void = { _ in }) -> AppleBackend {
    var config = BackendConfig(name: name, options: driver.model == .onDevice ? AppleSystemKind() as any BackendKind : ApplePCCKind())
    configure(&config)
    return AppleBackend(config: config, driver: driver, fallback: fallback, defaultConcurrency: 2, prewarmLeadSeconds: 0)
}
