import Foundation

/// The on-device system model (`apple-system`) or Private Cloud Compute (`apple-pcc`), driven
/// through `AppleModelDriving`. One framework session per conversation: each turn sends only
/// its new prompt, and the session's transcript (and the on-device KV cache) carries the rest.
package struct AppleBackend: Backend {
    package let name: String
    package let kind: String
    package let model: String?
    package let concurrency: Int
    let driver: any AppleModelDriving
    /// Call `prewarm()` on each new session before its first request.
    let prewarm: Bool
    /// The config's `contextSize`, which wins over what the framework reports.
    let configuredContextSize: Int?
    let reasoningOverrides: [String: ReasoningOverride]
    /// PCC only: the on-device backend that answers when PCC cannot be reached.
    let fallback: (any Backend)?
    /// How long a prewarmed session gets before its first, timed request: Apple says
    /// prewarming helps only with lead time (about a second), so a session prewarmed an
    /// instant before its request would be labelled warm without being so.
    let prewarmLeadSeconds: Double
    /// PCC rate limits since a request was last served, shared by every conversation.
    let rateLimits = RateLimitStreak()

    package init(config: BackendConfig, driver: any AppleModelDriving, fallback: (any Backend)? = nil,
                defaultConcurrency: Int, prewarmLeadSeconds: Double = 1) {
        name = config.name
        kind = driver.model.rawValue
        model = config.model ?? driver.model.defaultModelName
        // The device answers one request at a time however many sessions wait: a default of 1
        // keeps the on-device timings honest. PCC is a service and takes the run's default.
        concurrency = config.concurrency ?? (driver.model == .onDevice ? 1 : defaultConcurrency)
        self.driver = driver
        prewarm = config.prewarm ?? false
        configuredContextSize = config.contextSize
        reasoningOverrides = config.reasoning ?? [:]
        self.fallback = fallback
        self.prewarmLeadSeconds = prewarmLeadSeconds
    }

    /// The framework's availability; for PCC also the quota, as a spent quota (`isLimitReached`)
    /// fails every request: it is unavailable then, with the reset date.
    package func prepare() async -> Availability {
        let availability = await driver.availability().availability(for: driver.model, backend: name)
        guard availability == .available, driver.model == .privateCloudCompute,
              let quota = await driver.quota(), quota.state == .limitReached else { return availability }
        let reset = quota.resetDate.map { "it resets at \(AppleModelError.iso8601($0))" } ?? "its reset date is unknown"
        return .unavailable("\(name): the Private Cloud Compute quota is used up (quotaUsage.isLimitReached); \(reset); "
            + "run again after the reset, or raise the limit (iCloud+)")
    }

    /// Structured output goes to the framework as a `DynamicGenerationSchema` built from the
    /// supported JSON Schema subset, which the model's guided generation enforces.
    package var structuredOutputSupport: String { "native (DynamicGenerationSchema, guided generation)" }

    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        if let why = reasoningOverrides[level.rawValue]?.unsupported { return .unsupported(why) }
        switch driver.model {
        case .onDevice:
            return level == .none ? .supported("no reasoning level")
                : .unsupported("the on-device system model has no reasoning levels")
        case .privateCloudCompute:
            return .supported(contextReasoningLevel(level).map { "ContextOptions reasoning level .\($0.rawValue)" }
                              ?? "no reasoning level")
        }
    }

    /// The `ContextOptions` reasoning level PCC is sent at `level` (DESIGN.md's table, or the
    /// config's `effort`); nil sends none.
    func contextReasoningLevel(_ level: ReasoningLevel) -> ReasoningLevel? {
        guard driver.model == .privateCloudCompute else { return nil }
        if let effort = reasoningOverrides[level.rawValue]?.effort { return ReasoningLevel(rawValue: effort) }
        return level == .none ? nil : level
    }

    package func startConversation() async -> any Conversation {
        AppleConversation(backend: self)
    }

    package func shutdown() async {}
}

/// One conversation: its framework session, made on the first turn, and, after a PCC
/// network failure, the fallback backend's conversation for the turns that remain.
actor AppleConversation: Conversation {
    let backend: AppleBackend
    private var session: (any AppleSessionDriving)?
    /// The tools `session` was made with: the framework fixes them when a session is made.
    private var sessionTools: [AppleToolSpec] = []
    /// Answers every session's tool calls, one request at a time.
    private let answerer = AppleToolAnswerer()
    private var fallback: (conversation: any Conversation, backend: String, reason: String)?

    init(backend: AppleBackend) {
        self.backend = backend
    }

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        if let fallback { return await answer(request, on: fallback) }
        let (result, error) = await respondOnSession(request)
        guard error?.fallsBack == true, let other = backend.fallback, case let .failure(failure) = result else {
            return result
        }
        switch await other.prepare() {
        case .available:
            let started = (conversation: await other.startConversation(), backend: other.name, reason: failure.message)
            fallback = started
            return await answer(request, on: started)
        case let .unavailable(why), let .unavailableHere(why):
            var failure = failure
            failure.message += "; the fallback '\(other.name)' is unavailable too: \(why)"
            return .failure(failure)
        }
    }

    /// A request answered by the fallback backend, recorded as such.
    private func answer(_ request: ModelRequest,
                        on fallback: (conversation: any Conversation, backend: String, reason: String)) async -> Result<ModelResponse, BackendFailure> {
        let record = RequestDetails.Fallback(backend: fallback.backend, reason: fallback.reason)
        switch await fallback.conversation.respond(to: request) {
        case var .success(response):
            response.details = RequestDetails(quota: response.details?.quota, fallback: record,
                                              session: response.details?.session)
            return .success(response)
        case var .failure(failure):
            failure.message = "fallback '\(fallback.backend)' after \(fallback.reason): \(failure.message)"
            failure.details = RequestDetails(quota: failure.details?.quota, fallback: record, session: failure.details?.session)
            return .failure(failure)
        }
    }

    /// The request on this conversation's own session, and the framework error if one ended it.
    private func respondOnSession(_ request: ModelRequest) async -> (Result<ModelResponse, BackendFailure>, AppleModelError?) {
        let name = backend.name
        var schema: AppleSchema?
        if let json = request.output?.schema {
            do {
                schema = try AppleSchema(jsonSchema: json)
            } catch {
                return (.failure(BackendFailure(kind: .badRequest, message: "\(name): \(error)", attempts: 1)), nil)
            }
        }
        let tools: [AppleToolSpec]
        do {
            tools = try AppleToolSpec.make(request.tools, choice: request.options.toolChoice)
        } catch {
            return (.failure(BackendFailure(kind: .badRequest, message: "\(name): \(error.message)", attempts: 1)), nil)
        }
        let (current, start) = await currentSession(for: request, tools: tools)
        answerer.begin(tools: request.cannedTools, maxRounds: request.options.maxToolRounds,
                       transcript: { current.toolCallEntries() })
        let options = AppleGenerationRequest(request.options, reasoningLevel: backend.contextReasoningLevel(request.reasoning),
                                             schema: schema)
        let usageBefore = await current.usage()
        let stopwatch = Stopwatch()
        let outcome = await Self.read(current.streamResponse(to: request.messages.last?.content ?? "", options: options),
                                      stopwatch: stopwatch, stopSequences: request.options.stop ?? [],
                                      timeoutSeconds: request.timeoutSeconds)
        let quota = backend.driver.model == .privateCloudCompute ? await backend.driver.quota() : nil
        let calls = answerer.records
        switch outcome {
        case let .finished(reader):
            backend.rateLimits.served()
            let reported = AppleTokenAccounting.Reported(sessionBefore: usageBefore, sessionAfter: await current.usage(),
                                                         snapshot: reader.usage)
            let usage = await AppleTokenAccounting.usage(reported, request: request, schema: schema, tools: tools,
                                                         calls: calls, output: reader.text, counter: backend.driver)
            return (.success(ModelResponse(text: reader.text, timing: reader.timing(), usage: usage,
                                           finishReason: reader.stopped ? "stop" : nil, model: backend.model,
                                           details: RequestDetails(quota: quota, session: start), handledToolCalls: calls)), nil)
        case let .failed(error, reader):
            let streak = backend.rateLimits.record(error)
            var failure = error.failure(backend: name, model: backend.driver.model, quota: quota, rateLimitsInARow: streak)
            if let refused = answerer.refusedCalls.first {
                // The framework wraps the tool's error (ToolCallError); the answerer knows what it was.
                failure = BackendFailure(kind: .toolRoundsExceeded,
                                         message: "\(name): " + AppleToolRoundsExceeded(maxRounds: answerer.maxRounds, name: refused).description)
            }
            failure.timing = reader.timing()
            failure.details = RequestDetails(quota: failure.details?.quota, session: start)
            failure.handledToolCalls = calls
            return (.failure(failure), error)
        case let .timedOut(elapsedMs):
            let timing = RequestTiming(startedAt: stopwatch.startedAt, endMs: elapsedMs)
            var failure = BackendFailure(kind: .timeout, message: "\(name): no complete answer within \(request.timeoutSeconds) s",
                                         timing: timing, details: RequestDetails(quota: quota, session: start))
            failure.handledToolCalls = calls
            return (.failure(failure), nil)
        case .cancelled:
            return (.failure(BackendFailure(kind: .cancelled, message: "\(name): cancelled")), nil)
        }
    }

    /// This conversation's session, made (and prewarmed) on the first turn, and made again when
    /// a turn switches the tool set: the framework fixes a session's tools when it is made, so
    /// the new session gets the conversation so far in its instructions (and starts cold).
    private func currentSession(for request: ModelRequest, tools: [AppleToolSpec]) async -> (any AppleSessionDriving, RequestDetails.SessionStart) {
        if let session, tools == sessionTools { return (session, .reused) }
        let made = await backend.driver.makeSession(instructions: Self.sessionInstructions(for: request),
                                                    tools: tools.isEmpty ? nil : AppleSessionTools(specs: tools, answerer: answerer))
        session = made
        sessionTools = tools
        guard backend.prewarm else { return (made, .cold) }
        made.prewarm()
        // Not timed: the request's stopwatch starts after the lead time.
        try? await Task.sleep(nanoseconds: UInt64(max(0, backend.prewarmLeadSeconds) * 1_000_000_000))
        return (made, .prewarmed)
    }

    /// A new session's instructions. A session made after earlier turns (the fallback's, after
    /// PCC failed mid-conversation) gets them written into its instructions, as the framework
    /// takes no history from evalbench otherwise.
    static func sessionInstructions(for request: ModelRequest) -> String? {
        let earlier = request.messages.dropLast()
        guard !earlier.isEmpty else { return request.instructions }
        let transcript = earlier.map { "\($0.role == .assistant ? "Assistant" : "User"): \($0.content)" }
            .joined(separator: "\n")
        return ([request.instructions].compactMap { $0 } + ["The conversation so far:\n" + transcript])
            .joined(separator: "\n\n")
    }

    enum StreamOutcome: Sendable {
        case finished(SnapshotStreamReader)
        case failed(AppleModelError, SnapshotStreamReader)
        case timedOut(elapsedMs: Double)
        case cancelled
    }

    /// Reads the stream to its end, the framework's error or the timeout. At a stop sequence the
    /// answer is cut there, and the rest of the stream is drained rather than cancelled: OS 27
    /// reverts a cancelled request's transcript, so the next turn would lose this one. The
    /// request ends (and its usage is measured) when the stream does; a timeout during the
    /// drain still returns the answer that was cut.
    static func read(_ stream: AsyncThrowingStream<AppleSnapshot, any Error>, stopwatch: Stopwatch,
                     stopSequences: [String], timeoutSeconds: Double) async -> StreamOutcome {
        let cut = CutAnswer()
        return await withTaskGroup(of: StreamOutcome?.self) { group in
            group.addTask {
                var reader = SnapshotStreamReader(stopwatch: stopwatch, stopSequences: stopSequences)
                do {
                    for try await snapshot in stream {
                        reader.consume(snapshot, atNanos: DispatchTime.now().uptimeNanoseconds)
                        if reader.stopped { cut.keep(reader) }
                    }
                    return Task.isCancelled && !reader.stopped ? .cancelled : .finished(reader)
                } catch {
                    if reader.stopped { return .finished(reader) }
                    if error is CancellationError { return .cancelled }
                    return .failed(AppleErrorMapping.modelError(for: error), reader)
                }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(min(max(timeoutSeconds, 0), 1e9) * 1_000_000_000))
                if Task.isCancelled { return nil }
                return cut.reader.map { .finished($0) } ?? .timedOut(elapsedMs: stopwatch.ms())
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .cancelled
        }
    }
}

/// How many rate limits PCC gave since it last served a request. Its daily quota has been seen
/// to end as `rateLimited` with no reset date while `quotaUsage` still read healthy: a second
/// rate limit with nothing served in between is taken as the quota.
final class RateLimitStreak: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Counts `error` if it is a rate limit; the count so far.
    func record(_ error: AppleModelError) -> Int {
        lock.withLock {
            if case .rateLimited = error { count += 1 }
            return count
        }
    }

    func served() { lock.withLock { count = 0 } }
}

/// The answer as it was when a stop sequence cut it, for a timeout during the drain.
private final class CutAnswer: @unchecked Sendable {
    // @unchecked: `kept` is only touched under `lock`.
    private let lock = NSLock()
    private var kept: SnapshotStreamReader?

    func keep(_ reader: SnapshotStreamReader) {
        lock.withLock { if kept == nil { kept = reader } }
    }

    var reader: SnapshotStreamReader? { lock.withLock { kept } }
}

extension AppleBackend: ContextMeasuring {
    /// The on-device window on OS 26, per the reference; OS 27 has 8192 on newer devices.
    static let onDeviceDefaultContextSize = 4096
    static let onDeviceLargerContextSize = 8192
    /// PCC's documented window.
    static let privateCloudComputeContextSize = 32768

    /// The config's `contextSize`, else what the framework reports, else the documented size.
    package func contextWindow() async -> ContextWindow? {
        if let configuredContextSize { return ContextWindow(tokens: configuredContextSize, origin: "config contextSize") }
        if let size = await driver.contextSize() { return ContextWindow(tokens: size, origin: "reported by the framework") }
        switch driver.model {
        case .onDevice:
            return ContextWindow(tokens: Self.onDeviceDefaultContextSize,
                                 origin: "the on-device model's window on OS 26, not queryable here; 8192 on OS 27 on newer devices",
                                 larger: Self.onDeviceLargerContextSize)
        case .privateCloudCompute:
            return ContextWindow(tokens: Self.privateCloudComputeContextSize, origin: "Private Cloud Compute's documented window, not queryable here")
        }
    }

    /// `tokenCount(for:)` where the OS has it (26.4).
    package func countTokens(_ text: String) async -> Int? {
        await driver.tokenCount(of: .prompt(text))
    }

    /// Instructions through the `Instructions` overload, a schema (JSON Schema text) through the
    /// `GenerationSchema` one, as the model reads them.
    package func countTokens(_ text: String, as part: ContextPart) async -> Int? {
        switch part {
        case .prompt: return await driver.tokenCount(of: .prompt(text))
        case .instructions: return await driver.tokenCount(of: .instructions(text))
        case .schema:
            guard let document = try? JSONDocument(data: Data(text.utf8), file: "schema"),
                  let schema = try? AppleSchema(jsonSchema: JSONValue(document.root)) else { return nil }
            return await driver.tokenCount(of: .schema(schema))
        }
    }
}
