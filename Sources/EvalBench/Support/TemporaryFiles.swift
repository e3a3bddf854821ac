#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The temporary files being written beside the report files they replace (`.summary.md.<uuid>.tmp`),
/// so that a process that must quit at once (a second Ctrl-C) removes them instead of leaving
/// them in the run's directory. Every report and run.json is written through `writeAtomically`
/// or `ReportFileSink`, which register theirs here.
package enum TemporaryFiles {
    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        // @unchecked: `paths` is only touched under `lock`.
        let lock = NSLock()
        var paths: Set<String> = []
    }

    /// A temporary name beside `file`, registered until `unregister`: hidden, and unique to this write.
    package static func register(beside file: URL) -> URL {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        registry.lock.withLock { _ = registry.paths.insert(temporary.path) }
        return temporary
    }

    /// `temporary` was moved into place or removed.
    package static func unregister(_ temporary: URL) {
        registry.lock.withLock { _ = registry.paths.remove(temporary.path) }
    }

    /// The temporary files being written now.
    package static var inFlight: Set<String> { registry.lock.withLock { registry.paths } }

    /// Removes every temporary file being written (in `directory` only, when given), before
    /// the process quits at once; returns how many there were. The writers' renames then fail,
    /// which no longer matters.
    @discardableResult
    package static func removeAll(in directory: URL? = nil) -> Int {
        let prefix = directory.map { $0.standardizedFileURL.path + "/" }
        let paths = registry.lock.withLock { () -> Set<String> in
            let chosen = registry.paths.filter { path in prefix.map { path.hasPrefix($0) } ?? true }
            registry.paths.subtract(chosen)
            return chosen
        }
        for path in paths { unlink(path) }
        return paths.count
    }

    /// Writes `data` to `file` whole or not at all: into a registered temporary file beside it,
    /// then renamed over it (what `Data.write(options: .atomic)` does, with a name that
    /// `removeAll` knows).
    package static func writeAtomically(_ data: Data, to file: URL) throws {
        let temporary = register(beside: file)
        defer { unregister(temporary) }
        do {
            try data.write(to: temporary)
            guard rename(temporary.path, file.path) == 0 else {
                let code = errno
                throw NSError(domain: NSPOSIXErrorDomain, code: Int(code),
                              userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(code))])
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }
}
