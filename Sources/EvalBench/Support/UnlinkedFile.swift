#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An append-only temporary file, unlinked as soon as it is made: the system removes it when
/// the last descriptor closes, a crash included. Bytes once written never change, so anything
/// that holds an offset can read there while others append. What a `ResultTable` keeps out of
/// memory (its rows, its long answers) lives in files like this.
final class UnlinkedFile: @unchecked Sendable {
    // @unchecked: `end` is read and written under `lock`; the descriptor never changes.
    private let fd: Int32
    private let lock = NSLock()
    private var end: Int64 = 0
    /// For tests: the most bytes the file takes; an append past it fails as on a full disk.
    private let writableBytes: Int64?

    /// A new file in the temporary directory; nil when none can be made. `writableBytes`, for
    /// tests, makes appends past that size fail, as they would on a full disk.
    init?(prefix: String, writableBytes: Int64? = nil) {
        self.writableBytes = writableBytes
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        // Not inherited by a process the run starts (a managed llama-server outlives a table).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        fd = descriptor
    }

    deinit { close(fd) }

    /// How many bytes have been written.
    var size: Int64 { lock.withLock { end } }

    /// Writes `bytes` at the end and returns where they start; nil when they could not all be written.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        lock.withLock {
            let start = end
            if let writableBytes, start + Int64(bytes.count) > writableBytes { return nil }
            let failure = transferAll(bytes.count) { done in
                pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(start) + off_t(done))
            }
            guard failure == nil else { return nil }
            end += Int64(bytes.count)
            return start
        }
    }

    /// Reads `buffer.count` bytes at `offset`, which were written before.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) {
        let failure = transferAll(buffer.count) { done in
            pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
        // The file is this process's own, unlinked, and was written whole: a read that fails
        // is an I/O error of the machine, not something to guess past.
        precondition(failure == nil, "evalbench: could not read back from a temporary file (errno \(failure ?? 0))")
    }
}
