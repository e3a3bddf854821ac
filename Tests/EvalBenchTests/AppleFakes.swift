import Foundation
@testable import EvalBench

/// A test double of the Foundation Models framework behind `AppleModelDriving`: scripted
/// snapshots or errors per request, and a record of every session and request.
final class FakeAppleDriver: AppleModelDriving, @unchecked Sendable {
    // @unchecked: every mutable field is only touched under `lock`.
    /// One request's answer: snapshots with a delay before each, then an optional error.
    struct Reply: Sendable {
        var snapshots: [(content: String, afterMs: Double)]
        var usage: AppleUsage?
        var error: AppleModelError?
        /// Never finishes (for timeouts).
        var hangs = false

        init(_ snapshots: [(String, Double)] = [], usage: AppleUsage? = nil, error: AppleModelError? = nil, hangs: Bool = false) {
            self.snapshots = snapshots.map { (content: $0.0, afterMs: $0.1) }
            self.usage = usage
            self.error = error
            self.hangs = hangs
        }

        static func text(_ text: String) -> Reply { Reply([(text, 1)]) }
    }

    /// A request as the fake session received it.
    struct Received: Sendable, Equatable {
        var session: Int
        var instructions: String?
        var prompt: String
        var options: AppleGenerationRequest
    }

    let model: AppleModel
    var availabilityAnswer: AppleAvailability
    var reportedContextSize: Int?
    /// Tokens per character for `tokenCount(of:)`; nil means the OS has no counter.
    var tokensPerCharacter: Double?
    var quotaReading: AppleQuotaReading?
    private let lock = NSLock()
    private var script: (Received) -> Reply
    private var received: [Received] = []
    private var sessionCount = 0
    private var prewarmCount = 0

    init(_ model: AppleModel, availability: AppleAvailability = .available, contextSize: Int? = nil,
         tokensPerCharacter: Double? = nil, quota: AppleQuotaReading? = nil,
         script: @escaping (Received) -> Reply = { .text("answer to \($0.prompt)") }) {
        self.model = model
        availabilityAnswer = availability
        reportedContextSize = contextSize
        self.tokensPerCharacter = tokensPerCharacter
        quotaReading = quota
        self.script = script
    }

    var requests: [Received] { lock.withLock { received } }
    var sessions: Int { lock.withLock { sessionCount } }
    var prewarms: Int { lock.withLock { prewarmCount } }

    func availability() async -> AppleAvailability { availabilityAnswer }
    func contextSize() async -> Int? { reportedContextSize }
    func tokenCount(of text: String) async -> Int? { tokensPerCharacter.map { Int((Double(text.count) * $0).rounded(.up)) } }
    func quota() async -> AppleQuotaReading? { quotaReading }

    func makeSession(instructions: String?) async -> any AppleSessionDriving {
        let index = lock.withLock { sessionCount += 1; return sessionCount }
        return Session(driver: self, index: index, instructions: instructions)
    }

    fileprivate func reply(to request: Received) -> Reply {
        lock.withLock {
            received.append(request)
            return script(request)
        }
    }

    fileprivate func prewarmed() { lock.withLock { prewarmCount += 1 } }

    private struct Session: AppleSessionDriving {
        let driver: FakeAppleDriver
        let index: Int
        let instructions: String?

        func prewarm() { driver.prewarmed() }

        func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error> {
            let reply = driver.reply(to: Received(session: index, instructions: instructions, prompt: prompt, options: options))
            return AsyncThrowingStream { continuation in
                let task = Task {
                    for (offset, snapshot) in reply.snapshots.enumerated() {
                        try? await Task.sleep(nanoseconds: UInt64(snapshot.afterMs * 1_000_000))
                        let last = offset == reply.snapshots.count - 1
                        continuation.yield(AppleSnapshot(content: snapshot.content, usage: last ? reply.usage : nil))
                    }
                    if reply.hangs {
                        while !Task.isCancelled { try? await Task.sleep(nanoseconds: 5_000_000) }
                    }
                    if let error = reply.error { continuation.finish(throwing: error) } else { continuation.finish() }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}

/// Runs `cases` on Apple backends made from fake drivers, through the real Runner.
func runApple(_ backends: [String: any Backend], cases: [EvalCase], reasoning: [ReasoningLevel] = [.none],
              retries: Int = 0, timeoutSeconds: Double = 10) async throws -> [RequestResult] {
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
    try await store.close()
    return await store.all().sorted { ($0.backend, $0.caseID, $0.reasoning, $0.turn) < ($1.backend, $1.caseID, $1.reasoning, $1.turn) }
}

func appleBackend(_ name: String, _ driver: FakeAppleDriver, fallback: (any Backend)? = nil,
                  configure: (inout BackendConfig) -> Void = { _ in }) -> AppleBackend {
    var config = BackendConfig(name: name, options: driver.model == .onDevice ? AppleSystemKind() as any BackendKind : ApplePCCKind())
    configure(&config)
    return AppleBackend(config: config, driver: driver, fallback: fallback, defaultConcurrency: 2, prewarmLeadSeconds: 0)
}
