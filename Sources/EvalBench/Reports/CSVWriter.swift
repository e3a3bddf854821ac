/// One cell of a CSV record: text is quoted as needed, numbers are written as plain numbers,
/// and nil is an empty cell.
package enum CSVCell: Sendable, Equatable {
    /// Text, quoted and protected as needed.
    case text(String?)
    /// A whole number.
    case integer(Int?)
    /// A number with exactly `places` decimals.
    case fixed(Double?, places: Int)
    /// A number with at most `maxPlaces` decimals, trailing zeros dropped.
    case trimmed(Double?, maxPlaces: Int)

    /// The value as written before any CSV quoting (so other reports can show the same
    /// figures); nil for an empty cell.
    package var plainText: String? {
        switch self {
        case .text(let value): value
        case .integer(let value): value.map(String.init)
        case .fixed(let value, let places): value.flatMap { DecimalText.fixed($0, places: places) }
        case .trimmed(let value, let places): value.flatMap { DecimalText.trimmed($0, maxPlaces: places) }
        }
    }
}

/// Builds RFC 4180 CSV text: records end in CRLF; a field containing a comma, a double quote,
/// CR or LF is quoted with its quotes doubled. A text field starting with `=`, `+`, `-`, `@`,
/// tab or CR is prefixed with `'` and quoted, so spreadsheets show it rather than run it.
package struct CSVWriter: Sendable {
    /// The CSV so far, header included.
    package private(set) var text = ""

    /// Starts a document whose first record is `header`.
    package init(header: [String]) {
        append(header.map { .text($0) })
    }

    /// Appends one record.
    package mutating func append(_ record: [CSVCell]) {
        for (index, cell) in record.enumerated() {
            if index > 0 { text.append(",") }
            append(cell)
        }
        text.append("\r\n")
    }

    /// Hands over the text so far and starts empty, so a long document can be written to a
    /// file in pieces instead of held whole.
    package mutating func takeText() -> String {
        defer { text = "" }
        return text
    }

    /// Reserves room for about `bytes` bytes of text, so large documents are not re-copied.
    package mutating func reserveCapacity(_ bytes: Int) {
        text.reserveCapacity(bytes)
    }

    private mutating func append(_ cell: CSVCell) {
        guard let value = cell.plainText else { return }
        if case .text = cell { appendText(value) } else { text.append(value) }
    }

    private mutating func appendText(_ value: String) {
        let startsLikeFormula = value.utf8.first.map(Self.formulaStarts.contains) ?? false
        var needsQuotes = startsLikeFormula
        var hasQuote = false
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): hasQuote = true; needsQuotes = true
            case UInt8(ascii: ","), UInt8(ascii: "\r"), UInt8(ascii: "\n"): needsQuotes = true
            default: continue
            }
        }
        guard needsQuotes else {
            text.append(value)
            return
        }
        text.append("\"")
        if startsLikeFormula { text.append("'") }
        if hasQuote {
            text.append(value.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\""))
        } else {
            text.append(value)
        }
        text.append("\"")
    }

    private static let formulaStarts: Set<UInt8> = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"),
        UInt8(ascii: "\t"), UInt8(ascii: "\r"),
    ]
}
