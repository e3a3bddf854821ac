import Foundation

/// What evalbench may do on the platform it was built for. Starting processes (a managed
/// llama-server, `git rev-parse`) and the user's home directory exist on macOS and Linux only;
/// on iOS and visionOS, where an app's test host runs the Apple evals, the library compiles
/// without them.
///
/// Every use of `Process` or `homeDirectoryForCurrentUser` sits in a file fenced with
/// `#if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS`, and `PlatformFenceTests` checks
/// that no other file uses them. Building with `-DEVALBENCH_NO_PROCESS` compiles what iOS
/// compiles of those files; `scripts/test` builds the library so on every CI run.
package enum Platform {
    /// Whether this build can start child processes.
    package static var canStartProcesses: Bool {
        #if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
        true
        #else
        false
        #endif
    }

    /// `$EVALBENCH_CACHE`, else `~/.cache/evalbench` where there is a home directory, else the
    /// app's caches directory.
    package static func cacheDirectory(environment: [String: String]) -> URL {
        if let explicit = environment["EVALBENCH_CACHE"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        #if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/evalbench")
        #else
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("evalbench")
        #endif
    }
}
