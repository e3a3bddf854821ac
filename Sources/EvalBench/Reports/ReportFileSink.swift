import Foundation

/// A report file written in pieces: text goes to a `TemporaryFiles.Replacement` beside `file`,
/// which replaces `file` only when `finish` is called, so a reader never sees half a report and
/// a large report is never held whole in memory. Dropped unfinished (its writer threw), it
/// leaves no file behind.
package final class ReportFileSink {
    private let file: URL
    private let replacement: TemporaryFiles.Replacement

    /// Starts writing `file`; failures name the file as `ReportWriteFailure`.
    package init(_ file: URL) throws {
        self.file = file
        do {
            replacement = try TemporaryFiles.Replacement(file)
        } catch {
            throw ReportWriteFailure(path: file.path, reason: "could not create its temporary file: \(error.localizedDescription)")
        }
    }

    /// Appends `text`.
    package func write(_ text: String) throws {
        do {
            try replacement.write(Data(TerminalText.forReport(text, file: file).utf8))
        } catch {
            throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
        }
    }

    /// Moves what was written over `file`.
    package func finish() throws {
        do {
            try replacement.commit()
        } catch {
            throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
        }
    }
}
