import Foundation

/// A configured backend that cannot run; every request it gets is an `unavailable` error
/// carrying the reason. One that cannot run on this platform at all reports `unavailableHere`,
/// so its case runs are skipped.
public struct UnavailableBackend: Backend {
    public let name: String
    public let kind: String
    public let model: String?
    public let concurrency = 1
    public let reason: String
    /// Whether this platform cannot run it at all, rather than it failing here.
    public let isUnavailableHere: Bool
    /// How the kind would send each level, so plans and reports still show its mapping.
    let reasoning: @Sendable (ReasoningLevel) -> ReasoningSupport

    public init(config: BackendConfig, here: Bool = false, reason: String,
                reasoning: @escaping @Sendable (ReasoningLevel) -> ReasoningSupport = { _ in .supported("n/a") }) {
        name = config.name
        kind = config.kind
        model = config.model
        self.reason = reason
        isUnavailableHere = here
        let overrides = config.reasoning ?? [:]
        self.reasoning = { level in
            if let why = overrides[level.rawValue]?.unsupported { return .unsupported(why) }
            return reasoning(level)
        }
    }

    public var structuredOutputSupport: String { "n/a" }
    public func prepare() async -> Availability { isUnavailableHere ? .unavailableHere(reason) : .unavailable(reason) }
    public func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport { reasoning(level) }
    public func startConversation() async -> any Conversation { Refusing(reason: reason) }
    public func shutdown() async {}

    private struct Refusing: Conversation {
        let reason: String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            .failure(BackendFailure(kind: .unavailable, message: reason))
        }
    }
}
