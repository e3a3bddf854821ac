#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The temporary files being written beside the report files they replace (`.summary.md.<uuid>.tmp`),
/// so that a process that must quit at once (a second Ctrl-C) removes them instead of leaving
/// them in the run's directory. Every report and run.json is written through `writeAtomically`
/// or `ReportFileSink`, which make theirs with `create`.
package enum TemporaryFiles {
    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        // @unchecked: `paths` and `quitting` are only touched under `lock`.
        let lock = NSLock()
        var paths: Set<String> = []
        var quitting = false
    }

    /// The process is quitting: no temporary file is made any more.
    package struct Quitting: Error, CustomStringConvertible {
        package var description: String { "evalbench is quitting" }
    }

    /// Makes and opens (for writing) a temporary file beside `file`, hidden and unique to this
    /// write, registered until `unregister`. Made under the registry's lock, so that `removeAll`
    /// either finds it or comes first, and then none is made.
    package static func create(beside file: URL) throws -> (url: URL, descriptor: Int32) {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        return try registry.lock.withLock {
            if registry.quitting { throw Quitting() }
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw failure(errno) }
            registry.paths.insert(temporary.path)
            return (temporary, descriptor)
        }
    }

    /// `temporary` was moved into place or removed.
    package static func unregister(_ temporary: URL) {
        registry.lock.withLock { _ = registry.paths.remove(temporary.path) }
    }

    /// Whether the process is quitting at once (`removeAll()` was called): a failure to write
    /// that follows is its doing, and the exit is the interruption's.
    package static var isQuitting: Bool { registry.lock.withLock { registry.quitting } }

    /// The temporary files being written now.
    package static var inFlight: Set<String> { registry.lock.withLock { registry.paths } }

    /// Removes every temporary file being written, before the process quits at once, and makes
    /// no more; returns how many there were. The writers' renames then fail, which no longer
    /// matters. With `directory`, only those in it, and later ones are still made (for tests,
    /// which write reports side by side).
    @discardableResult
    package static func removeAll(in directory: URL? = nil) -> Int {
        let prefix = directory.map { $0.standardizedFileURL.path + "/" }
        return registry.lock.withLock {
            if prefix == nil { registry.quitting = true }
            let chosen = registry.paths.filter { path in prefix.map { path.hasPrefix($0) } ?? true }
            registry.paths.subtract(chosen)
            for path in chosen { unlink(path) }
            return chosen.count
        }
    }

    /// Writes `data` to `file` whole or not at all: into a temporary file beside it, then
    /// renamed over it (what `Data.write(options: .atomic)` does, with a name that `removeAll` knows).
    package static func writeAtomically(_ data: Data, to file: URL) throws {
        let (temporary, descriptor) = try create(beside: file)
        defer { unregister(temporary) }
        let written = data.withUnsafeBytes { buffer in
            transferAll(buffer.count) { done in write(descriptor, buffer.baseAddress! + done, buffer.count - done) }
        }
        close(descriptor)
        if let code = written {
            unlink(temporary.path)
            throw failure(code)
        }
        guard rename(temporary.path, file.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw failure(code)
        }
    }

    private static func failure(_ code: Int32) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(code))])
    }
}
