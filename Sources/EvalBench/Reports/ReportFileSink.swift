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
        temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            throw ReportWriteFailure(path: file.path, reason: "could not create \(temporary.lastPathComponent)")
        }
        self.handle = handle
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
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
