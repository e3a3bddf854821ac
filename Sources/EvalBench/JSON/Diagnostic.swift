import Foundation

/// A position in a source file; line and column count from 1, column in characters.
public struct SourceLocation: Sendable, Codable, Equatable, Hashable {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in characters.
    public var column: Int

    /// The position at `line` and `column`, both from 1.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// One problem found while loading a suite, config or dataset: where, what, and how to fix it.
public struct Diagnostic: Sendable, Codable, Equatable, Error, CustomStringConvertible {
    /// The file the problem is in, as it was named (`evalbench.json`, a suite's path).
    public var file: String
    /// Where in the file; nil when the problem is not at one place (a missing key, a value built
    /// in Swift).
    public var location: SourceLocation?
    /// A JSON path such as `$.cases[3].expect[0].pattern`, or nil where none applies.
    public var path: String?
    /// What is wrong, in one sentence (never repeating a secret).
    public var message: String
    /// What to do about it, in one sentence.
    public var fix: String?

    /// A problem in `file`, with where and how to fix it when known.
    public init(file: String, location: SourceLocation? = nil, path: String? = nil,
                message: String, fix: String? = nil) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
        self.fix = fix
    }

    /// `file:line:column: error: message (at path)` and the fix on a line of its own; what
    /// came from a file (a case id, a key) is printed with its control characters escaped.
    public var description: String {
        var text = TerminalText.safe(file)
        if let location { text += ":\(location.line):\(location.column)" }
        text += ": error: \(TerminalText.safe(message))"
        if let path { text += " (at \(TerminalText.safe(path)))" }
        if let fix { text += "\n  fix: \(TerminalText.safe(fix))" }
        return text
    }
}

extension Diagnostic {
    /// `text` as a message may quote it: whole up to `limit` characters, else its start, an
    /// ellipsis and its length, so that a 50 MB value never makes a 50 MB error line.
    package static func excerpt(_ text: String, limit: Int = 80) -> String {
        guard text.utf8.count > limit else { return text }
        let start = text.prefix(limit)
        guard start.count == limit else { return text }
        return start + "… (\(text.utf8.count) bytes)"
    }
}

/// Every problem a load found; thrown only when there is at least one.
public struct LoadError: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order they were found; never empty when thrown.
    public var diagnostics: [Diagnostic]

    /// An error carrying `diagnostics`.
    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
