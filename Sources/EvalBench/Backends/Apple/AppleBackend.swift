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

    package func prepare() async -> Availability {
        await driver.availability().availability(for: driver.model, backend: name)
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
    private var fallback: (conversation: any Conversation, backend: String, reason: String)?

    init(backend: AppleBackend) {
        self.backend = backend
    }

    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
        if let fallback { return await answer(request, on: fallback) }
        let (result, error) = await respondOnSession(request)
        guard error == .networkFailure, let other = backend.fallback, case let .failure(failure) = result else {
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
        let prompt = request.messages.last?.content ?? ""
        let start: RequestDetails.SessionStart
        let current: any AppleSessionDriving
        if let session {
            current = session
            start = .reused
        } else {
            current = await backend.driver.makeSession(instructions: Self.sessionInstructions(for: request))
            session = current
            start = backend.prewarm ? .prewarmed : .cold
            if backend.prewarm {
                current.prewarm()
                // Not timed: the request's stopwatch starts after the lead time.
                try? await Task.sleep(nanoseconds: UInt64(max(0, backend.prewarmLeadSeconds) * 1_000_000_000))
            }
        }
        let options = AppleGenerationRequest(request.options, reasoningLevel: backend.contextReasoningLevel(request.reasoning),
                                             schema: schema)
        let stopwatch = Stopwatch()
        let outcome = await Self.read(current.streamResponse(to: prompt, options: options), stopwatch: stopwatch,
                                      stopSequences: request.options.stop ?? [], timeoutSeconds: request.timeoutSeconds)
        let quota = backend.driver.model == .privateCloudCompute ? await backend.driver.quota() : nil
        switch outcome {
        case let .finished(reader):
            let usage = await AppleTokenAccounting.usage(
                reported: reader.usage,
                input: AppleTokenAccounting.inputText(instructions: request.instructions, messages: request.messages),
                output: reader.text, counter: backend.driver)
            return (.success(ModelResponse(text: reader.text, timing: reader.timing(), usage: usage,
                                           finishReason: reader.stopped ? "stop" : nil, model: backend.model,
                                           details: RequestDetails(quota: quota, session: start))), nil)
        case let .failed(error, reader):
            var failure = error.failure(backend: name, quota: quota)
            failure.timing = reader.timing()
            failure.details = RequestDetails(quota: failure.details?.quota, session: start)
            return (.failure(failure), error)
        case let .timedOut(elapsedMs):
            let timing = RequestTiming(startedAt: stopwatch.startedAt, endMs: elapsedMs)
            return (.failure(BackendFailure(kind: .timeout, message: "\(name): no complete answer within \(request.timeoutSeconds) s",
                                            timing: timing, details: RequestDetails(quota: quota, session: start))), nil)
        case .cancelled:
            return (.failure(BackendFailure(kind: .cancelled, message: "\(name): cancelled")), nil)
        }
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

    /// Reads the stream to its end, a stop sequence, the framework's error or the timeout.
    static func read(_ stream: AsyncThrowingStream<AppleSnapshot, any Error>, stopwatch: Stopwatch,
                     stopSequences: [String], timeoutSeconds: Double) async -> StreamOutcome {
        await withTaskGroup(of: StreamOutcome?.self) { group in
            group.addTask {
                var reader = SnapshotStreamReader(stopwatch: stopwatch, stopSequences: stopSequences)
                do {
                    for try await snapshot in stream {
                        reader.consume(snapshot, atNanos: DispatchTime.now().uptimeNanoseconds)
                        if reader.stopped { break }
                    }
                    return Task.isCancelled ? .cancelled : .finished(reader)
                } catch let error as AppleModelError {
                    return .failed(error, reader)
                } catch is CancellationError {
                    return .cancelled
                } catch {
                    return .failed(.unknown(String(describing: error)), reader)
                }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(min(max(timeoutSeconds, 0), 1e9) * 1_000_000_000))
                return Task.isCancelled ? nil : .timedOut(elapsedMs: stopwatch.ms())
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .cancelled
        }
    }
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
        await driver.tokenCount(of: text)
    }
}
