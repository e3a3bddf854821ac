import Foundation

/// The two Apple models evalbench drives.
package enum AppleModel: String, Sendable, Codable {
    /// `SystemLanguageModel.default`, on the device.
    case onDevice = "apple-system"
    /// `PrivateCloudComputeLanguageModel` (OS 27).
    case privateCloudCompute = "apple-pcc"

    /// The name reports show when the config names no model.
    var defaultModelName: String {
        switch self {
        case .onDevice: "SystemLanguageModel.default"
        case .privateCloudCompute: "PrivateCloudComputeLanguageModel"
        }
    }
}

/// The seam between evalbench and Apple's Foundation Models framework: everything
/// `AppleBackend` needs, in plain Swift values. `FoundationModelsDriver` implements it where the
/// framework exists; tests implement it with a fake.
package protocol AppleModelDriving: Sendable {
    var model: AppleModel { get }
    /// Whether the framework says the model can be used here.
    func availability() async -> AppleAvailability
    /// The model's context window in tokens as the framework reports it; nil when it cannot.
    func contextSize() async -> Int?
    /// The model's own token count (`tokenCount(for:)`, 26.4) of instructions, a prompt or a
    /// schema; nil where the OS has no counter.
    func tokenCount(of input: AppleTokenInput) async -> Int?
    /// The PCC quota as the framework reports it now; nil for the on-device model.
    func quota() async -> AppleQuotaReading?
    /// A new session holding `instructions` and, when `tools` is given, the dynamic tools built
    /// from its specs, answered by its answerer (the framework fixes a session's tools when it is
    /// made); the turns of one conversation share it.
    func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving
}

/// The tools a session is made with: the specs its dynamic tools are built from, and the
/// answerer their `call(arguments:)` asks.
package struct AppleSessionTools: Sendable {
    package var specs: [AppleToolSpec]
    package var answerer: AppleToolAnswerer

    package init(specs: [AppleToolSpec], answerer: AppleToolAnswerer) {
        self.specs = specs
        self.answerer = answerer
    }
}

/// One `LanguageModelSession`: one request at a time, its transcript (and the on-device KV
/// cache) kept from turn to turn.
package protocol AppleSessionDriving: Sendable {
    /// `prewarm(promptPrefix:)` with no prefix: loads the model and the session's instructions
    /// ahead of the first request.
    func prewarm()
    /// Streams the answer to `prompt` as cumulative snapshots. The stream throws
    /// `AppleModelError` for the framework's errors.
    func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error>
    /// `session.usage` (OS 27): the session's usage so far, summed over its requests; nil
    /// before OS 27. A request's usage is the change across it.
    func usage() async -> AppleUsage?
    /// The tool names of each `toolCalls` entry the transcript holds after its last prompt, now
    /// (one entry a round); nil when the transcript cannot be read.
    func toolCallEntries() -> [[String]]?
}

extension AppleSessionDriving {
    package func usage() async -> AppleUsage? { nil }
    package func toolCallEntries() -> [[String]]? { nil }
}

/// What `tokenCount(for:)` is asked to count: each has its own overload, as the framework
/// counts instructions, prompts and schemas as the model reads them.
package enum AppleTokenInput: Sendable, Equatable {
    case instructions(String)
    case prompt(String)
    case schema(AppleSchema)
    /// A tool set, through the `[any Tool]` overload (the dynamic tools built from these specs).
    case tools([AppleToolSpec])
}

extension AppleModelDriving {
    /// The model's count of `text` as a prompt.
    func tokenCount(of text: String) async -> Int? {
        await tokenCount(of: .prompt(text))
    }
}

/// One cumulative snapshot: the whole answer so far, and the usage where the OS reports it.
package struct AppleSnapshot: Sendable, Equatable {
    package var content: String
    /// `snapshot.usage` (OS 27); nil before.
    package var usage: AppleUsage?

    package init(content: String, usage: AppleUsage? = nil) {
        self.content = content
        self.usage = usage
    }
}

/// `LanguageModelSession.Usage` (OS 27) as plain numbers; a figure not reported is nil.
package struct AppleUsage: Sendable, Equatable {
    package var inputTokens: Int?
    package var cachedInputTokens: Int?
    package var outputTokens: Int?
    package var reasoningTokens: Int?

    package init(inputTokens: Int? = nil, cachedInputTokens: Int? = nil, outputTokens: Int? = nil,
                reasoningTokens: Int? = nil) {
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
        self.reasoningTokens = reasoningTokens
    }

    /// Whether every figure is 0 or missing: OS 27 reports such a usage before any token was
    /// counted, so it says nothing.
    package var isEmpty: Bool {
        [inputTokens, cachedInputTokens, outputTokens, reasoningTokens].allSatisfy { ($0 ?? 0) == 0 }
    }

    /// This request's usage from the session's usage before and after it: each figure's
    /// change, nil where either reading lacks it or it went down (a reset session), or where the
    /// earlier reading is negative: a difference with an impossible part is unknown (and
    /// `Int.max` less a negative count would trap).
    package static func change(from before: AppleUsage?, to after: AppleUsage?) -> AppleUsage? {
        guard let after else { return nil }
        let before = before ?? AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0)
        func delta(_ key: KeyPath<AppleUsage, Int?>) -> Int? {
            guard let now = after[keyPath: key], let then = before[keyPath: key], then >= 0, now >= then else { return nil }
            return now - then
        }
        return AppleUsage(inputTokens: delta(\.inputTokens), cachedInputTokens: delta(\.cachedInputTokens),
                          outputTokens: delta(\.outputTokens), reasoningTokens: delta(\.reasoningTokens))
    }
}

/// What one request asks of the framework: `GenerationOptions`, the PCC `ContextOptions`
/// reasoning level and an optional structured-output schema.
package struct AppleGenerationRequest: Sendable, Equatable {
    /// evalbench's `ReasoningLevel`, named so for the framework file, where the framework
    /// declares a type of the same name.
    package typealias ReasoningLevelValue = ReasoningLevel

    package var sampling: AppleSampling?
    package var temperature: Double?
    package var maximumResponseTokens: Int?
    /// PCC only: `ContextOptions(reasoningLevel:)`; nil sends no reasoning level.
    package var reasoningLevel: ReasoningLevel?
    /// Structured output: the `DynamicGenerationSchema` to build, from the case's JSON Schema.
    package var schema: AppleSchema?

    package init(sampling: AppleSampling? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
                reasoningLevel: ReasoningLevel? = nil, schema: AppleSchema? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.reasoningLevel = reasoningLevel
        self.schema = schema
    }

    /// A case's options as the framework takes them: temperature 0 is greedy sampling; a
    /// `topP` or `seed` with a positive temperature is `.random(probabilityThreshold:seed:)`.
    /// `stop` has no framework field: `AppleBackend` cuts the answer itself.
    package init(_ options: GenerationOptions, reasoningLevel: ReasoningLevel?, schema: AppleSchema?) {
        self.init(maximumResponseTokens: options.maxOutputTokens, reasoningLevel: reasoningLevel, schema: schema)
        if options.temperature == 0 {
            sampling = .greedy
        } else {
            temperature = options.temperature
            if options.topP != nil || options.seed != nil {
                sampling = .random(probabilityThreshold: options.topP ?? 1, seed: options.seed.map { UInt64(bitPattern: Int64($0)) })
            }
        }
    }
}

/// `GenerationOptions.SamplingMode`.
package enum AppleSampling: Sendable, Equatable {
    case greedy
    case random(probabilityThreshold: Double, seed: UInt64?)
}
