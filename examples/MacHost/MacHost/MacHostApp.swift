import SwiftUI

/// The host app of the evalbench test bundle. It does nothing itself: it exists so that the
/// tests run inside a signed app that carries the com.apple.developer.private-cloud-compute
/// entitlement (MacHost.entitlements), which a SwiftPM executable or `swift test` never has.
@main
struct MacHostApp: App {
    var body: some Scene {
        WindowGroup {
            Text("evalbench MacHost: run the suites with scripts/mac-evals (xcodebuild test).")
                .padding()
        }
    }
}
