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

    /// `|` becomes `\|`, each line break a space, and a `<` that could open an HTML tag or
    /// comment (`<script>`, `</a>`, `<!--`) the entity `&lt;`: an answer that holds HTML is
    /// shown as text, never passed through. `0.5 < 0.7` stays as written.
    static func escape(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "|" || $0 == "<" || $0.isNewline }) else { return cell }
        var escaped = ""
        var characters = cell.makeIterator()
        var next = characters.next()
        while let character = next {
            next = characters.next()
            if character == "|" {
                escaped += "\\|"
            } else if character == "<", let following = next, following.isLetter || "/!?".contains(following) {
                escaped += "&lt;"
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
