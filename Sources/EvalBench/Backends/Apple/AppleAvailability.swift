import Foundation

/// `SystemLanguageModel.Availability` and the reasons evalbench adds (no framework, an OS or
/// compiler too old for PCC), as plain values.
package enum AppleAvailability: Sendable, Equatable {
    case available
    case unavailable(AppleUnavailableReason)
}

/// Why an Apple model cannot be used.
package enum AppleUnavailableReason: Sendable, Equatable {
    /// This platform has no FoundationModels framework at all (Linux, Windows).
    case frameworkMissing(platform: String)
    /// The OS is older than the model needs, e.g. "macOS 27".
    case operatingSystemTooOld(needs: String)
    /// evalbench was compiled without the OS 27 SDK (a Swift compiler before 6.4).
    case compilerTooOld
    /// `.deviceNotEligible`.
    case deviceNotEligible
    /// `.appleIntelligenceNotEnabled`.
    case appleIntelligenceNotEnabled
    /// The process lacks `com.apple.developer.private-cloud-compute` (a SwiftPM executable, or an
    /// app whose profile does not grant it).
    case missingEntitlement
    /// `.modelNotReady`: the model is still downloading or being set up.
    case modelNotReady
    /// A reason the framework added after this version of evalbench.
    case other(String)

    /// Whether the limit is of this platform or device, which no setting changes: the backend's
    /// case runs are then skipped with the reason rather than counted as errors.
    package var isPlatformLimit: Bool {
        switch self {
        case .frameworkMissing, .operatingSystemTooOld, .compilerTooOld, .deviceNotEligible, .missingEntitlement: true
        case .appleIntelligenceNotEnabled, .modelNotReady, .other: false
        }
    }

    /// What a person reads in reports, with what to do about it.
    package func message(for model: AppleModel) -> String {
        let needs = model == .onDevice
            ? "the on-device model needs macOS, iOS or visionOS 26 with Apple Intelligence"
            : "Private Cloud Compute needs macOS 27 (or iOS or visionOS 27) in a signed app with the com.apple.developer.private-cloud-compute entitlement"
        switch self {
        case let .frameworkMissing(platform):
            return "FoundationModels is not available on \(platform); \(needs)"
        case let .operatingSystemTooOld(version):
            return model == .privateCloudCompute
                ? "Private Cloud Compute needs \(version); run on an OS 27 device, or use apple-system"
                : "the on-device model needs \(version)"
        case .compilerTooOld:
            return "this evalbench was built without the OS 27 SDK (Swift 6.4, Xcode 27), which has the Private Cloud Compute API; rebuild with Xcode 27"
        case .missingEntitlement:
            return "this process does not have the \(privateCloudComputeEntitlement) entitlement, so no Private Cloud Compute request is made. "
                + AppleModelError.entitlementAdvice
        case .deviceNotEligible:
            return "this device is not eligible for Apple Intelligence; \(needs)"
        case .appleIntelligenceNotEnabled:
            return "Apple Intelligence is turned off; turn it on in Settings > Apple Intelligence & Siri"
        case .modelNotReady:
            return "the model is not ready yet (it may still be downloading); wait and run again"
        case let .other(description):
            return "the model is unavailable: \(description)"
        }
    }

    /// The backend's answer to `prepare()`.
    package func availability(for model: AppleModel, backend: String) -> Availability {
        let text = "\(backend): \(message(for: model))"
        return isPlatformLimit ? .unavailableHere(text) : .unavailable(text)
    }
}

extension AppleAvailability {
    /// The backend's answer to `prepare()`.
    package func availability(for model: AppleModel, backend: String) -> Availability {
        switch self {
        case .available: .available
        case let .unavailable(reason): reason.availability(for: model, backend: backend)
        }
    }
}
