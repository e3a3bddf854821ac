import Foundation

/// A configured backend that cannot run here; every request it gets is an `unavailable` error
/// carrying the reason.
public struct UnavailableBackend: Backend {
    public let name: String
    public let kind: String
    public let model: String?
    public let concurrency = 1
    public let reason: String

    public init(config: BackendConfig, reason: String) {
        name = config.name
        kind = config.kind
        model = config.model
        self.reason = reason
    }

    public func prepare() async -> Availability { .unavailable(reason) }
    public func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport { .supported("n/a") }
    public func startConversation() async -> any Conversation { Refusing(reason: reason) }
    public func shutdown() async {}

    private struct Refusing: Conversation {
        let reason: String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            .failure(BackendFailure(kind: .unavailable, message: reason))
        }
    }

    static let appleSystem: BackendFactory = { config, _ in
        UnavailableBackend(config: config, reason: "FoundationModels is not available on this platform (the on-device model needs macOS, iOS or visionOS 26 with Apple Intelligence)")
    }

    static let applePCC: BackendFactory = { config, _ in
        UnavailableBackend(config: config, reason: "FoundationModels is not available on this platform (Private Cloud Compute needs macOS, iOS or visionOS 27 and a signed app)")
    }
}
