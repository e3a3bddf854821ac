#if canImport(FoundationModels)
import Foundation
import FoundationModels

// The only file that touches Apple's framework. It converts between the framework and the
// plain values of AppleModelDriving and nothing else; every decision is made in plain Swift
// that the Linux tests cover. Symbols and guards follow shared/reference/foundation-models.md:
// 26.x symbols behind @available(26.0), tokenCount(for:) behind #available(26.4), OS 27
// symbols (PCC, ContextOptions, usage, LanguageModelError) behind #if compiler(>=6.4) and
// #available(27.0). evalbench declares its own GenerationOptions and ReasoningLevel, so the
// framework's GenerationOptions is always written qualified and its ReasoningLevel never named.
// PCC is reached only through EntitledPCCDriver (AppleEntitlements.swift), which checks the
// entitlement before anything here creates a PrivateCloudComputeLanguageModel.

enum FoundationModelsDriver {
    static func make(_ model: AppleModel) -> any AppleModelDriving {
        switch model {
        case .onDevice:
            if #available(macOS 26.0, iOS 26.0, visionOS 26.0, *) { return SystemModelDriver() }
            return UnavailableAppleDriver(model: model, reason: .operatingSystemTooOld(needs: "\(osName) 26"))
        case .privateCloudCompute:
            #if compiler(>=6.4)
            if #available(macOS 27.0, iOS 27.0, visionOS 27.0, *) { return PrivateCloudComputeDriver() }
            return UnavailableAppleDriver(model: model, reason: .operatingSystemTooOld(needs: "\(osName) 27"))
            #else
            return UnavailableAppleDriver(model: model, reason: .compilerTooOld)
            #endif
        }
    }

    static var osName: String {
        #if os(iOS)
        "iOS"
        #elseif os(visionOS)
        "visionOS"
        #else
        "macOS"
        #endif
    }
}

@available(macOS 26.0, iOS 26.0, visionOS 26.0, *)
struct SystemModelDriver: AppleModelDriving {
    let model = AppleModel.onDevice

    func availability() async -> AppleAvailability {
        switch SystemLanguageModel.default.availability {
        case .available:
            return .available
        case let .unavailable(reason):
            switch reason {
            case .deviceNotEligible: return .unavailable(.deviceNotEligible)
            case .appleIntelligenceNotEnabled: return .unavailable(.appleIntelligenceNotEnabled)
            case .modelNotReady: return .unavailable(.modelNotReady)
            @unknown default: return .unavailable(.other(String(describing: reason)))
            }
        }
    }

    func contextSize() async -> Int? {
        // `contextSize` is back-deployed but first declared in the 26.4 SDK (Swift 6.3); it has
        // been seen to read 0 when the model's assets are broken.
        #if compiler(>=6.3)
        let size = SystemLanguageModel.default.contextSize
        return size > 0 ? size : nil
        #else
        return nil
        #endif
    }

    func tokenCount(of input: AppleTokenInput) async -> Int? {
        // tokenCount(for:) first shipped in the 26.4 SDK (Swift 6.3); older compilers lack it.
        // Its overloads (26.5 interface): some PromptRepresentable, Instructions, [any Tool],
        // GenerationSchema, transcript entries; a tool set through [any Tool] (the dynamic tools).
        #if compiler(>=6.3)
        if #available(macOS 26.4, iOS 26.4, visionOS 26.4, *) {
            let model = SystemLanguageModel.default
            switch input {
            case let .prompt(text):
                return try? await model.tokenCount(for: text)
            case let .instructions(text):
                return try? await model.tokenCount(for: Instructions { text })
            case let .schema(schema):
                guard let root = try? GenerationSchema(root: FrameworkSession.dynamicSchema(schema, name: "Output"), dependencies: [])
                else { return nil }
                return try? await model.tokenCount(for: root)
            case let .tools(specs):
                let tools: [any Tool] = specs.compactMap { try? CannedDynamicTool($0, answerer: AppleToolAnswerer(tools: [], maxRounds: nil)) }
                guard tools.count == specs.count else { return nil }
                return try? await model.tokenCount(for: tools)
            }
        }
        #endif
        return nil
    }

    func quota() async -> AppleQuotaReading? { nil }

    func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving {
        FrameworkSession(LanguageModelSession(model: SystemLanguageModel.default, tools: FrameworkSession.dynamicTools(tools),
                                              instructions: instructions))
    }
}

#if compiler(>=6.4)
/// Private Cloud Compute through one `PrivateCloudComputeLanguageModel`, made on first use
/// (only ever behind EntitledPCCDriver's entitlement check) and shared by availability, the
/// context size, every quota read and every session.
@available(macOS 27.0, iOS 27.0, visionOS 27.0, *)
final class PrivateCloudComputeDriver: AppleModelDriving, @unchecked Sendable {
    // @unchecked: `made` is only touched under `lock`; the framework's model is used read-only.
    let model = AppleModel.privateCloudCompute
    private let lock = NSLock()
    private var made: PrivateCloudComputeLanguageModel?

    private var pcc: PrivateCloudComputeLanguageModel {
        lock.withLock {
            if let made { return made }
            let created = PrivateCloudComputeLanguageModel()
            made = created
            return created
        }
    }

    func availability() async -> AppleAvailability {
        switch pcc.availability {
        case .available:
            return .available
        case let .unavailable(reason):
            // The reference says PCC's reasons have the system model's shape; the shipped SDK
            // reportedly has its own (`deviceNotEligible`, `systemNotReady`). Only the one both
            // share is named, so this compiles either way.
            switch reason {
            case .deviceNotEligible: return .unavailable(.deviceNotEligible)
            default: return .unavailable(.other(String(describing: reason)))
            }
        }
    }

    func contextSize() async -> Int? {
        guard let size = try? await pcc.contextSize, size > 0 else { return nil }
        return size
    }

    /// The reference lists no token counter for PCC; OS 27 reports usage instead.
    func tokenCount(of input: AppleTokenInput) async -> Int? { nil }

    /// `isLimitReached` wins over a status that still reads below the limit.
    func quota() async -> AppleQuotaReading? {
        let usage = pcc.quotaUsage
        var state: AppleQuotaState
        switch usage.status {
        case let .belowLimit(info): state = info.isApproachingLimit ? .approachingLimit : .belowLimit
        case .limitReached: state = .limitReached
        @unknown default: state = .belowLimit
        }
        if usage.isLimitReached { state = .limitReached }
        return AppleQuotaReading(state: state, resetDate: Self.date(usage.resetDate))
    }

    /// Takes `Date` or `Date?` alike.
    private static func date(_ value: Date?) -> Date? { value }

    func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving {
        FrameworkSession(LanguageModelSession(model: pcc, tools: FrameworkSession.dynamicTools(tools), instructions: instructions))
    }
}
#endif

/// One `LanguageModelSession`.
@available(macOS 26.0, iOS 26.0, visionOS 26.0, *)
final class FrameworkSession: AppleSessionDriving, @unchecked Sendable {
    // @unchecked: the session is only used by one AppleConversation, an actor that sends one
    // request at a time; the framework itself refuses concurrent requests on a session.
    private let session: LanguageModelSession

    init(_ session: LanguageModelSession) {
        self.session = session
    }

    /// The tool names of each `toolCalls` entry after the transcript's last prompt (`Transcript`
    /// is a collection of `Transcript.Entry`; `Transcript.ToolCall` has `toolName`).
    func toolCallEntries() -> [[String]]? {
        let entries = Array(session.transcript)
        let lastPrompt = entries.lastIndex { if case .prompt = $0 { true } else { false } }
        let turn = lastPrompt.map { entries[($0 + 1)...] } ?? entries[...]
        return turn.compactMap { entry -> [String]? in
            if case let .toolCalls(calls) = entry { return calls.map(\.toolName) }
            return nil
        }
    }

    /// The session's dynamic tools; a spec whose schema the framework refuses is left out (the
    /// backend converted every spec before, so this does not happen with the supported subset).
    static func dynamicTools(_ tools: AppleSessionTools?) -> [any Tool] {
        guard let tools else { return [] }
        return tools.specs.compactMap { try? CannedDynamicTool($0, answerer: tools.answerer) }
    }

    func prewarm() {
        session.prewarm(promptPrefix: nil)
    }

    func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.send(prompt, options, to: continuation)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: FrameworkErrors.mirror(error))
                }
            }
            // Only a consumer that stops early (a timeout) cancels: evalbench drains the stream
            // at a stop sequence, as a cancelled request's transcript is reverted.
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func usage() async -> AppleUsage? {
        #if compiler(>=6.4)
        if #available(macOS 27.0, iOS 27.0, visionOS 27.0, *) { return Self.usage(session.usage) }
        #endif
        return nil
    }

    private func send(_ prompt: String, _ options: AppleGenerationRequest,
                      to continuation: AsyncThrowingStream<AppleSnapshot, any Error>.Continuation) async throws {
        // A session still winding down from an earlier request (a timeout) would throw
        // `concurrentRequests`. Up to 1 s.
        var waited = 0
        while session.isResponding && waited < 50 {
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        let generation = Self.generationOptions(options)
        if let schema = options.schema {
            let root: GenerationSchema
            do {
                root = try GenerationSchema(root: Self.dynamicSchema(schema, name: "Output"), dependencies: [])
            } catch {
                // A schema the framework cannot build (duplicate names, empty choices) is the
                // suite's problem, not the model's.
                throw AppleModelError.unsupportedGuide
            }
            try await sendStructured(prompt, root, generation, options.reasoningLevel, to: continuation)
            return
        }
        #if compiler(>=6.4)
        if #available(macOS 27.0, iOS 27.0, visionOS 27.0, *) {
            let stream = session.streamResponse(to: prompt, options: generation,
                                                contextOptions: Self.contextOptions(options.reasoningLevel))
            for try await snapshot in stream {
                continuation.yield(AppleSnapshot(content: snapshot.content, usage: Self.usage(snapshot.usage)))
            }
            return
        }
        #endif
        for try await snapshot in session.streamResponse(to: prompt, options: generation) {
            continuation.yield(AppleSnapshot(content: snapshot.content))
        }
    }

    /// Structured output streamed like text: each snapshot's partial `GeneratedContent` as JSON.
    /// OS 27 sends the reasoning level (and includeSchemaInPrompt) in `ContextOptions`.
    private func sendStructured(_ prompt: String, _ root: GenerationSchema, _ generation: FoundationModels.GenerationOptions,
                                _ level: AppleGenerationRequest.ReasoningLevelValue?,
                                to continuation: AsyncThrowingStream<AppleSnapshot, any Error>.Continuation) async throws {
        #if compiler(>=6.4)
        if #available(macOS 27.0, iOS 27.0, visionOS 27.0, *) {
            let stream = session.streamResponse(schema: root, options: generation,
                                                contextOptions: Self.contextOptions(level, includeSchemaInPrompt: true)) { prompt }
            for try await snapshot in stream {
                continuation.yield(AppleSnapshot(content: snapshot.rawContent.jsonString, usage: Self.usage(snapshot.usage)))
            }
            return
        }
        #endif
        let stream = session.streamResponse(to: prompt, schema: root, includeSchemaInPrompt: true, options: generation)
        for try await snapshot in stream {
            continuation.yield(AppleSnapshot(content: snapshot.rawContent.jsonString))
        }
    }

    static func generationOptions(_ options: AppleGenerationRequest) -> FoundationModels.GenerationOptions {
        var sampling: FoundationModels.GenerationOptions.SamplingMode?
        switch options.sampling {
        case .greedy?: sampling = .greedy
        case let .random(threshold, seed)?: sampling = .random(probabilityThreshold: threshold, seed: seed)
        case nil: sampling = nil
        }
        #if compiler(>=6.4)
        return FoundationModels.GenerationOptions(samplingMode: sampling, temperature: options.temperature,
                                                  maximumResponseTokens: options.maximumResponseTokens)
        #else
        return FoundationModels.GenerationOptions(sampling: sampling, temperature: options.temperature,
                                                  maximumResponseTokens: options.maximumResponseTokens)
        #endif
    }

    /// Property and choice names are derived from the parent's, so each is unique.
    static func dynamicSchema(_ schema: AppleSchema, name: String) -> DynamicGenerationSchema {
        switch schema {
        case let .object(objectName, description, properties):
            return DynamicGenerationSchema(name: objectName, description: description, properties: properties.map { property in
                DynamicGenerationSchema.Property(name: property.name, description: property.description,
                                                 schema: dynamicSchema(property.schema, name: name + "_" + property.name),
                                                 isOptional: property.isOptional)
            })
        case let .string(description, choices?):
            return DynamicGenerationSchema(name: name, description: description, anyOf: choices)
        case .string(_, nil):
            return DynamicGenerationSchema(type: String.self)
        case .integer:
            return DynamicGenerationSchema(type: Int.self)
        case .number:
            return DynamicGenerationSchema(type: Double.self)
        case .boolean:
            return DynamicGenerationSchema(type: Bool.self)
        case let .array(element, minimum, maximum):
            return DynamicGenerationSchema(arrayOf: dynamicSchema(element, name: name + "_item"),
                                           minimumElements: minimum, maximumElements: maximum)
        }
    }

    #if compiler(>=6.4)
    @available(macOS 27.0, iOS 27.0, visionOS 27.0, *)
    static func contextOptions(_ level: AppleGenerationRequest.ReasoningLevelValue?,
                               includeSchemaInPrompt: Bool? = nil) -> ContextOptions {
        switch level {
        case .light?: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: .light)
        case .moderate?: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: .moderate)
        case .deep?: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: .deep)
        case .none?, nil: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: nil)
        }
    }

    /// Takes the usage whether the SDK declares it optional or not.
    @available(macOS 27.0, iOS 27.0, visionOS 27.0, *)
    static func usage(_ usage: LanguageModelSession.Usage?) -> AppleUsage? {
        guard let usage else { return nil }
        return AppleUsage(inputTokens: usage.input.totalTokenCount, cachedInputTokens: usage.input.cachedTokenCount,
                          outputTokens: usage.output.totalTokenCount, reasoningTokens: usage.output.reasoningTokenCount)
    }
    #endif
}

/// The framework's errors as an `AppleThrownError`: the typed cases of the reference
/// recognised here, everything else (27's added cases, plain NSErrors and what they wrap) read by
/// reflection and mapped in plain Swift (AppleThrownError.swift), which the Linux tests cover.
@available(macOS 26.0, iOS 26.0, visionOS 26.0, *)
enum FrameworkErrors {
    static func mirror(_ error: any Error) -> any Error {
        if error is CancellationError || error is AppleModelError { return error }
        return AppleThrownErrorBox(AppleThrownError(error, recognise: recognise))
    }

    /// The reference's typed cases; nil for anything else.
    static func recognise(_ error: any Error) -> AppleModelError? {
        #if compiler(>=6.4)
        if #available(macOS 27.0, iOS 27.0, visionOS 27.0, *), let known = recognise27(error) { return known }
        #endif
        guard let generation = error as? LanguageModelSession.GenerationError else { return nil }
        switch generation {
        case .exceededContextWindowSize: return .contextSizeExceeded(contextSize: nil, tokenCount: nil)
        case .assetsUnavailable: return .assetsUnavailable
        case .guardrailViolation: return .guardrailViolation
        case .unsupportedGuide: return .unsupportedGuide
        case .unsupportedLanguageOrLocale: return .unsupportedLanguageOrLocale
        case .decodingFailure: return .decodingFailure
        case .rateLimited: return .rateLimited(resetDate: nil)
        case .concurrentRequests: return .concurrentRequests
        case .refusal: return .refusal(explanation: nil)
        @unknown default: return nil
        }
    }

    #if compiler(>=6.4)
    @available(macOS 27.0, iOS 27.0, visionOS 27.0, *)
    static func recognise27(_ error: any Error) -> AppleModelError? {
        if let error = error as? LanguageModelError {
            switch error {
            // One payload holding `contextSize` and `tokenCount` (a struct in the shipped SDK;
            // a labelled pair binds the same way).
            case let .contextSizeExceeded(info):
                return .contextSizeExceeded(contextSize: number(info.contextSize), tokenCount: number(info.tokenCount))
            // Its payload's resetDate is read by reflection (AppleThrownError), as the reference
            // lists no payload.
            case .rateLimited: return .rateLimited(resetDate: nil)
            case .refusal: return .refusal(explanation: nil)
            case .guardrailViolation: return .guardrailViolation
            case .unsupportedLanguageOrLocale: return .unsupportedLanguageOrLocale
            case .unsupportedGenerationGuide: return .unsupportedGuide
            case .timeout: return .timeout
            @unknown default: return nil
            }
        }
        if let error = error as? PrivateCloudComputeLanguageModel.Error {
            switch error {
            // The shipped SDK's payload is a struct with `resetDate: Date?`.
            case let .quotaLimitReached(info): return .quotaLimitReached(resetDate: date(info.resetDate))
            case .networkFailure: return .networkFailure
            @unknown default: return nil
            }
        }
        if let error = error as? SystemLanguageModel.Error {
            switch error {
            case .assetsUnavailable: return .assetsUnavailable
            @unknown default: return nil
            }
        }
        if let error = error as? LanguageModelSession.Error {
            switch error {
            case .concurrentRequests: return .concurrentRequests
            @unknown default: return nil
            }
        }
        return nil
    }

    /// Take `Int`/`Date` or their optionals alike.
    private static func number(_ value: Int?) -> Int? { value }
    private static func date(_ value: Date?) -> Date? { value }
    #endif
}
#endif
