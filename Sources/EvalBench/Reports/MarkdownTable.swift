/// A GitHub-flavoured Markdown table whose cells are escaped, so a `|` or a line break in a
/// case name, assertion or error message cannot break the table.
struct MarkdownTable {
    enum Alignment {
        case left, right
    }

    private(set) var text: String

    init(_ columns: [(heading: String, alignment: Alignment)]) {
        text = ""
        appendRow(columns.map(\.heading))
        text += "|" + columns.map { $0.alignment == .right ? " ---: |" : " --- |" }.joined() + "\n"
    }

    mutating func appendRow(_ cells: [String]) {
        text += "|"
        for cell in cells {
            text += " "
            text += Self.escape(cell)
            text += " |"
        }
        text += "\n"
    }

    /// `|` becomes `\|` and each line break a space.
    static func escape(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "|" || $0.isNewline }) else { return cell }
        var escaped = ""
        for character in cell {
            if character == "|" {
                escaped += "\\|"
            } else if character.isNewline {
                escaped += " "
            } else {
                escaped.append(character)
            }
        }
        return escaped
    }

    /// At most `limit` characters, ending in `…` when cut.
    static func truncate(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
