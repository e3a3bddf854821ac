import Foundation

/// A configured backend that cannot run; every request it gets is an `unavailable` error
/// carrying the reason. One that cannot run on this platform at all reports `unavailableHere`,
/// so its case runs are skipped.
package struct UnavailableBackend: Backend {
    package let name: String
    package let kind: String
    package let model: String?
    package let concurrency = 1
    package let reason: String
    /// Whether this platform cannot run it at all, rather than it failing here.
    package let isUnavailableHere: Bool
    /// How the kind would send each level, so plans and reports still show its mapping.
    let reasoning: @Sendable (ReasoningLevel) -> ReasoningSupport

    package init(config: BackendConfig, here: Bool = false, reason: String,
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

    package var structuredOutputSupport: String { "n/a" }
    package func prepare() async -> Availability { isUnavailableHere ? .unavailableHere(reason) : .unavailable(reason) }
    package func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport { reasoning(level) }
    package func startConversation() async -> any Conversation { Refusing(reason: reason) }
    package func shutdown() async {}

    private struct Refusing: Conversation {
        let reason: String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            .failure(BackendFailure(kind: .unavailable, message: reason))
        }
    }
}
