/// A section of report.html that other parts of evalbench add (a recommendation, a
/// comparison): a heading, paragraphs and an optional table, all plain text that the report
/// escapes.
package struct HTMLSection: Sendable, Equatable {
    package var title: String
    /// Paragraphs before the table.
    package var paragraphs: [String]
    package var table: HTMLTable?
    /// Items of a list after the table.
    package var items: [String]

    package init(title: String, paragraphs: [String] = [], table: HTMLTable? = nil, items: [String] = []) {
        self.title = title
        self.paragraphs = paragraphs
        self.table = table
        self.items = items
    }
}

/// A plain-text table for report.html: a header row and rows of cells.
package struct HTMLTable: Sendable, Equatable {
    package var header: [String]
    package var rows: [[String]]

    package init(header: [String], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }
}
