import Foundation

/// A report file written in pieces: text goes to a temporary file beside `file`, which
/// replaces `file` only when `finish` is called, so a reader never sees half a report and a
/// large report is never held whole in memory.
package final class ReportFileSink {
    private let file: URL
    private let temporary: URL
    private let handle: FileHandle

    /// Starts writing `file`; failures name the file as `ReportWriteFailure`.
    package init(_ file: URL) throws {
        self.file = file
        let created: (url: URL, descriptor: Int32)
        do {
            created = try TemporaryFiles.create(beside: file)
        } catch {
            throw ReportWriteFailure(path: file.path, reason: "could not create its temporary file: \(error.localizedDescription)")
        }
        temporary = created.url
        handle = FileHandle(fileDescriptor: created.descriptor, closeOnDealloc: true)
    }

    /// Whether the temporary file was moved into place or removed.
    private var ended = false

    /// A sink dropped before `finish` (its writer threw) leaves no temporary file behind.
    deinit {
        if !ended { abandon() }
    }

    /// Appends `text`.
    package func write(_ text: String) throws {
        do {
            try handle.write(contentsOf: Data(TerminalText.forReport(text, file: file).utf8))
        } catch {
            abandon()
            throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
        }
    }

    /// Closes the temporary file and moves it over `file`.
    package func finish() throws {
        ended = true
        defer { TemporaryFiles.unregister(temporary) }
        do {
            try handle.close()
            if rename(temporary.path, file.path) != 0 {
                throw ReportWriteFailure(path: file.path, reason: String(cString: strerror(errno)))
            }
        } catch let failure as ReportWriteFailure {
            try? FileManager.default.removeItem(at: temporary)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
        }
    }

    private func abandon() {
        ended = true
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
        TemporaryFiles.unregister(temporary)
    }
}
