import Foundation
#if canImport(Security) && os(macOS)
import Security
#endif

/// Reads this process's own entitlements. PCC's is checked before any
/// `PrivateCloudComputeLanguageModel` exists: without it the framework crashes the process
/// ("missing required entitlement") or fails each request with ModelManagerError 1046.
package protocol EntitlementChecking: Sendable {
    /// Whether the process has `entitlement` set to true; nil when this platform cannot tell.
    func hasEntitlement(_ entitlement: String) -> Bool?
}

/// The entitlement Private Cloud Compute needs.
package let privateCloudComputeEntitlement = "com.apple.developer.private-cloud-compute"

/// The process's code signature, read with `SecTaskCopyValueForEntitlement` on macOS. iOS and
/// visionOS have no public call that reads it: there the app's embedded provisioning profile
/// tells when the entitlement cannot be there (a development or ad hoc build), and otherwise
/// nothing can tell (nil), and a request without the entitlement fails with ModelManagerError
/// 1046, which maps to `unavailable` (not retried). Linux: nil.
package struct ProcessEntitlements: EntitlementChecking {
    package init() {}

    package func hasEntitlement(_ entitlement: String) -> Bool? {
        #if canImport(Security) && os(macOS)
        guard let task = SecTaskCreateFromSelf(nil) else { return nil }
        var error: Unmanaged<CFError>?
        let value = SecTaskCopyValueForEntitlement(task, entitlement as CFString, &error)
        if let error {
            error.release()
            return nil
        }
        guard let value else { return false }
        return (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
        #else
        let profile = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision")
        return ProvisioningProfileEntitlements(profile: profile).hasEntitlement(entitlement)
        #endif
    }
}

/// What a provisioning profile (`embedded.mobileprovision`: an XML property list inside a CMS
/// envelope) says of an entitlement: false when the profile grants it not, so the app's
/// signature cannot have it; nil when it grants it (the app's own entitlements file may still
/// leave it out) or there is no readable profile (an App Store build has none).
package struct ProvisioningProfileEntitlements: EntitlementChecking {
    let profile: URL?

    package init(profile: URL?) {
        self.profile = profile
    }

    package func hasEntitlement(_ entitlement: String) -> Bool? {
        guard let profile, let data = try? Data(contentsOf: profile),
              let start = data.range(of: Data("<?xml".utf8)),
              let end = data.range(of: Data("</plist>".utf8), in: start.lowerBound..<data.endIndex),
              let plist = try? PropertyListSerialization.propertyList(from: data[start.lowerBound..<end.upperBound], format: nil),
              let entitlements = (plist as? [String: Any])?["Entitlements"] as? [String: Any] else { return nil }
        guard let value = entitlements[entitlement] else { return false }
        return (value as? Bool) == false ? false : nil
    }
}

/// A PCC driver that exists only once the entitlement is known to be there: without it the
/// model is unavailable with how to get it, and neither `availability()` (`backends`,
/// `prepare()`), `contextSize()` (`plan`) nor `quota()` creates a PCC instance. With it (or when
/// the platform cannot tell) the real driver is made on first use, once: one PCC instance.
package final class EntitledPCCDriver: AppleModelDriving, @unchecked Sendable {
    // @unchecked: `made` is only touched under `lock`; the rest is immutable.
    package let model = AppleModel.privateCloudCompute
    private let checker: any EntitlementChecking
    private let make: @Sendable () -> any AppleModelDriving
    private let lock = NSLock()
    private var made: (any AppleModelDriving)?

    package init(checker: any EntitlementChecking, make: @escaping @Sendable () -> any AppleModelDriving) {
        self.checker = checker
        self.make = make
    }

    /// The real driver; nil without the entitlement.
    private var driver: (any AppleModelDriving)? {
        guard checker.hasEntitlement(privateCloudComputeEntitlement) != false else { return nil }
        return lock.withLock {
            if let made { return made }
            let driver = make()
            made = driver
            return driver
        }
    }

    package func availability() async -> AppleAvailability {
        guard let driver else { return .unavailable(.missingEntitlement) }
        return await driver.availability()
    }

    package func contextSize() async -> Int? { await driver?.contextSize() }
    package func tokenCount(of input: AppleTokenInput) async -> Int? { await driver?.tokenCount(of: input) }
    package func quota() async -> AppleQuotaReading? { await driver?.quota() }

    package func makeSession(instructions: String?, tools: AppleSessionTools?) async -> any AppleSessionDriving {
        if let driver { return await driver.makeSession(instructions: instructions, tools: tools) }
        return UnavailableAppleDriver(model: model, reason: .missingEntitlement).unavailableSession
    }
}
