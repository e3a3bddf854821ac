import Foundation

extension AppleBackend {
    /// `apple-system`: the real driver where FoundationModels exists, else one that says why not.
    static let makeOnDevice: BackendFactory = { config, context in
        AppleBackend(config: config, driver: platformDriver(.onDevice), defaultConcurrency: context.defaultConcurrency)
    }

    /// `apple-pcc`, with its `fallback` backend (an `apple-system` one, checked at load time).
    static let makePrivateCloudCompute: BackendFactory = { config, context in
        var fallback: (any Backend)?
        if let name = config.fallback {
            guard let fallbackConfig = context.backendConfigs.first(where: { $0.name == name }), fallbackConfig.kind == "apple-system" else {
                throw Diagnostic(file: "evalbench.json", message: "backend '\(config.name)' falls back to '\(name)', which is not a configured apple-system backend",
                                 fix: "name an apple-system backend in \"fallback\", or remove it")
            }
            fallback = try makeOnDevice(fallbackConfig, context)
        }
        return AppleBackend(config: config, driver: platformDriver(.privateCloudCompute), fallback: fallback,
                            defaultConcurrency: context.defaultConcurrency)
    }

    static func platformDriver(_ model: AppleModel) -> any AppleModelDriving {
        #if canImport(FoundationModels)
        return FoundationModelsDriver.make(model)
        #else
        return UnavailableAppleDriver(model: model, reason: .frameworkMissing(platform: hostPlatformName))
        #endif
    }

    static var hostPlatformName: String {
        #if os(Linux)
        "Linux"
        #elseif os(Windows)
        "Windows"
        #else
        "this platform"
        #endif
    }
}

/// The driver of a model that cannot run here: it reports why, and a session made anyway
/// fails every request with that reason.
struct UnavailableAppleDriver: AppleModelDriving {
    let model: AppleModel
    let reason: AppleUnavailableReason

    func availability() async -> AppleAvailability { .unavailable(reason) }
    func contextSize() async -> Int? { nil }
    func tokenCount(of text: String) async -> Int? { nil }
    func quota() async -> AppleQuotaReading? { nil }
    func makeSession(instructions: String?) async -> any AppleSessionDriving {
        Session(message: reason.message(for: model))
    }

    private struct Session: AppleSessionDriving {
        let message: String
        func prewarm() {}
        func streamResponse(to prompt: String, options: AppleGenerationRequest) -> AsyncThrowingStream<AppleSnapshot, any Error> {
            AsyncThrowingStream { $0.finish(throwing: AppleModelError.unavailable(message)) }
        }
    }
}
