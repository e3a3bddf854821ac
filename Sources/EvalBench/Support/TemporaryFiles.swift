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
    private static func create(beside file: URL) throws -> (url: URL, descriptor: Int32) {
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
    private static func unregister(_ temporary: URL) {
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

    /// Writes `data` to `file` whole or not at all: into a `Replacement`, then moved over it
    /// (what `Data.write(options: .atomic)` does, with a name that `removeAll` knows).
    package static func writeAtomically(_ data: Data, to file: URL) throws {
        let replacement = try Replacement(file)
        try replacement.write(data)
        try replacement.commit()
    }

    /// A file written whole beside `file`, in as many pieces as its writer likes, then moved
    /// over it by `commit`, so that a reader never sees half of it; a replacement that failed,
    /// or was dropped before `commit`, is removed. Its errors name no file: callers do.
    package final class Replacement {
        private let file: URL
        private let temporary: URL
        /// Open until `commit` or `abandon`, then -1.
        private var descriptor: Int32

        package init(_ file: URL) throws {
            self.file = file
            (temporary, descriptor) = try TemporaryFiles.create(beside: file)
        }

        deinit { abandon() }

        /// Appends `data`; on a failure the replacement is removed.
        package func write(_ data: Data) throws {
            let failed = data.withUnsafeBytes { buffer in
                transferAll(buffer.count) { done in systemWrite(descriptor, buffer.baseAddress! + done, buffer.count - done) }
            }
            if let code = failed {
                abandon()
                throw TemporaryFiles.failure(code)
            }
        }

        /// Closes the file and moves it over `file`; on a failure it is removed.
        package func commit() throws {
            close(descriptor)
            descriptor = -1
            defer { TemporaryFiles.unregister(temporary) }
            guard rename(temporary.path, file.path) == 0 else {
                let code = errno
                unlink(temporary.path)
                throw TemporaryFiles.failure(code)
            }
        }

        /// Closes and removes the file, unless it was moved into place or removed already.
        package func abandon() {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
            unlink(temporary.path)
            TemporaryFiles.unregister(temporary)
        }
    }

    private static func failure(_ code: Int32) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(code))])
    }
}

/// write(2), named apart from `Replacement.write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
