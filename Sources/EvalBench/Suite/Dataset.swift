import Foundation

/// One row of a dataset file: its values as template variables, and where it was written.
package struct DatasetRow: Equatable {
    /// The line the row starts on, counting from 1.
    package var line: Int
    package var values: [String: String]
}

/// Reads a suite's `dataset` file: JSON Lines (one object per line) or CSV (RFC 4180, a
/// header row naming the columns). Every problem names the file and line.
package enum DatasetReader {
    package static func rows(_ data: Data, file: String) -> (rows: [DatasetRow], problems: [Diagnostic]) {
        if let problem = TextEncoding.problem(in: data) {
            return ([], [Diagnostic(file: file, location: problem.location, message: problem.message, fix: "save the file as UTF-8")])
        }
        let text = String(decoding: data, as: UTF8.self)
        if file.lowercased().hasSuffix(".csv") { return csv(text, file: file) }
        return jsonLines(text, file: file)
    }

    private static func jsonLines(_ text: String, file: String) -> ([DatasetRow], [Diagnostic]) {
        var rows: [DatasetRow] = []
        var problems: [Diagnostic] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            let location = SourceLocation(line: index + 1, column: 1)
            let node: JSONNode
            do {
                node = try JSONDocument(data: Data(trimmed.utf8), file: file).root
            } catch {
                // The parser's own reason and column, on the row's line (leading blanks were trimmed).
                let indent = line.prefix { $0.isWhitespace }.count
                let column = (error.location?.column ?? 1) + indent
                problems.append(Diagnostic(file: file, location: SourceLocation(line: index + 1, column: column),
                                           message: "row is not valid JSON: \(error.message)",
                                           fix: "write one JSON object per line, e.g. {\"id\": \"q1\", \"question\": \"...\"}"))
                continue
            }
            guard case let .object(members) = JSONValue(node) else {
                problems.append(Diagnostic(file: file, location: location, message: "row is \(node.kindDescription), not a JSON object",
                                           fix: "write one JSON object per line; its keys become {{variables}}"))
                continue
            }
            rows.append(DatasetRow(line: index + 1, values: members.mapValues(text(of:))))
        }
        return (rows, problems)
    }

    /// A JSON value as a template variable: strings as they are, anything else as JSON.
    private static func text(of value: JSONValue) -> String {
        if case let .string(string) = value { return string }
        return JSONWriter.string(value.foundationObject)
    }

    private static func csv(_ text: String, file: String) -> ([DatasetRow], [Diagnostic]) {
        let (records, problems) = parseCSV(text, file: file)
        guard let header = records.first else {
            return ([], problems + [Diagnostic(file: file, location: SourceLocation(line: 1, column: 1),
                                               message: "the CSV file has no header row", fix: "start the file with the column names")])
        }
        var all = problems
        var seen: Set<String> = []
        for name in header.fields where !seen.insert(name).inserted {
            all.append(Diagnostic(file: file, location: SourceLocation(line: header.line, column: 1),
                                  message: "column '\(name)' appears twice in the header", fix: "give each column a distinct name"))
        }
        var rows: [DatasetRow] = []
        for record in records.dropFirst() {
            if record.fields == [""] { continue }
            guard record.fields.count == header.fields.count else {
                all.append(Diagnostic(file: file, location: SourceLocation(line: record.line, column: 1),
                                      message: "row has \(record.fields.count) fields, the header has \(header.fields.count)",
                                      fix: "quote fields that contain commas: \"a, b\""))
                continue
            }
            rows.append(DatasetRow(line: record.line, values: Dictionary(zip(header.fields, record.fields), uniquingKeysWith: { first, _ in first })))
        }
        return (rows, all)
    }

    /// RFC 4180 records with the line each starts on: quoted fields may hold commas, quotes
    /// (doubled) and line breaks; CRLF and LF both end a record.
    static func parseCSV(_ text: String, file: String) -> ([(line: Int, fields: [String])], [Diagnostic]) {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1
        var recordLine = 1
        var characters = Array(text.unicodeScalars)
        if characters.first == "\u{FEFF}" { characters.removeFirst() }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if inQuotes {
                if character == "\"" {
                    if index + 1 < characters.count, characters[index + 1] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" { line += 1 }
                    field.unicodeScalars.append(character)
                }
            } else {
                switch character {
                case "\"" where field.isEmpty: inQuotes = true
                case ",":
                    fields.append(field)
                    field = ""
                case "\r" where index + 1 < characters.count && characters[index + 1] == "\n":
                    break
                case "\n":
                    fields.append(field)
                    records.append((recordLine, fields))
                    fields = []
                    field = ""
                    line += 1
                    recordLine = line
                default:
                    field.unicodeScalars.append(character)
                }
            }
            index += 1
        }
        var problems: [Diagnostic] = []
        if inQuotes {
            problems.append(Diagnostic(file: file, location: SourceLocation(line: recordLine, column: 1),
                                       message: "a quoted field is not closed", fix: "end the field with a double quote"))
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append((recordLine, fields))
        }
        return (records, problems)
    }
}
