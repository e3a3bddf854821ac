import Foundation

/// A backend behind a server that can be asked whether it answers at all: `evalbench backends`
/// says "unavailable" for a closed port or an unknown host instead of "available" (HTTP
/// backends need no preparing, so `prepare()` alone cannot tell).
package protocol ReachabilityProbing: Sendable {
    /// Nil when the server answered (with any HTTP status); else why it could not be reached.
    func unreachableReason() async -> String?
}

/// One unauthenticated GET of a base URL: any HTTP response means the server is reachable,
/// and no model request is sent, so nothing is billed.
package enum Reachability {
    package static func probe(_ url: URL, on transport: any HTTPStreaming, timeoutSeconds: Double = 5) async -> String? {
        let request = HTTPStreamRequest(url: url, method: "GET", timeoutSeconds: timeoutSeconds)
        do {
            for try await event in transport.stream(request) {
                if case .response = event { return nil }
            }
            return "\(url.host ?? url.absoluteString) closed the connection without a response"
        } catch let failure as BackendFailure {
            return failure.message
        } catch {
            return "\(url.host ?? url.absoluteString): \(error.localizedDescription)"
        }
    }
}
