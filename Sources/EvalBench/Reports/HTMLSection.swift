/// A section of report.html that other parts of evalbench add (a recommendation, a
/// comparison): a heading, paragraphs and an optional table, all plain text that the report
/// escapes.
public struct HTMLSection: Sendable, Equatable {
    public var title: String
    /// Paragraphs before the table.
    public var paragraphs: [String]
    public var table: HTMLTable?
    /// Items of a list after the table.
    public var items: [String]

    public init(title: String, paragraphs: [String] = [], table: HTMLTable? = nil, items: [String] = []) {
        self.title = title
        self.paragraphs = paragraphs
        self.table = table
        self.items = items
    }
}

/// A plain-text table for report.html: a header row and rows of cells.
public struct HTMLTable: Sendable, Equatable {
    public var header: [String]
    public var rows: [[String]]

    public init(header: [String], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }
}
