/// A JSONPath query (RFC 9535 subset): `$`, `.name`, `['name']`, `[index]` (negative counts
/// from the end) and the wildcards `.*` and `[*]`. It selects values with their JSON pointers.
public struct JSONPathQuery: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The query as written.
    public let description: String
    let segments: [Segment]

    enum Segment: Sendable, Equatable {
        case name(String)
        case index(Int)
        case wildcard
    }

    /// Parses `text`; the error names the character where it went wrong.
    package init(parsing text: String) throws(JSONPathSyntaxError) {
        var parser = Parser(characters: Array(text))
        segments = try parser.parse()
        description = text
    }

    /// Every value the query selects in `root`, in document order (object members by key),
    /// each with its JSON pointer.
    package func select(in root: JSONValue) -> [(pointer: JSONPointer, value: JSONValue)] {
        var selected: [(pointer: JSONPointer, value: JSONValue)] = [(JSONPointer(tokens: []), root)]
        for segment in segments {
            var next: [(pointer: JSONPointer, value: JSONValue)] = []
            for (pointer, value) in selected {
                switch (segment, value) {
                case let (.name(name), .object(members)):
                    if let member = members[name] { next.append((pointer.appending(name), member)) }
                case let (.index(index), .array(elements)):
                    let position = index < 0 ? elements.count + index : index
                    if elements.indices.contains(position) { next.append((pointer.appending(position), elements[position])) }
                case let (.wildcard, .object(members)):
                    for key in members.keys.sorted() { next.append((pointer.appending(key), members[key]!)) }
                case let (.wildcard, .array(elements)):
                    for (position, element) in elements.enumerated() { next.append((pointer.appending(position), element)) }
                default:
                    break
                }
            }
            selected = next
        }
        return selected
    }

    /// Whether the query can select more than one value.
    package var hasWildcard: Bool { segments.contains(.wildcard) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private struct Parser {
        let characters: [Character]
        var position = 0

        mutating func parse() throws(JSONPathSyntaxError) -> [Segment] {
            guard characters.first == "$" else {
                throw failure("a JSONPath starts with '$'",
                              fix: characters.first == "/" ? "that looks like a JSON pointer: use type 'jsonPointer', or start with '$'"
                                                           : "write \"$.\(String(characters))\"")
            }
            position = 1
            var segments: [Segment] = []
            while position < characters.count {
                switch characters[position] {
                case ".":
                    position += 1
                    guard position < characters.count else { throw failure("expected a member name or '*' after '.'", fix: "remove the trailing '.'") }
                    if characters[position] == "." {
                        throw failure("recursive descent '..' is not supported", fix: "spell out the path, using '[*]' for any element")
                    }
                    if characters[position] == "*" {
                        position += 1
                        segments.append(.wildcard)
                    } else {
                        segments.append(.name(try memberName()))
                    }
                case "[":
                    position += 1
                    segments.append(try bracket())
                default:
                    throw failure("expected '.' or '[' but found '\(characters[position])'",
                                  fix: "write members as .name or ['name'] and elements as [0]")
                }
            }
            return segments
        }

        private mutating func memberName() throws(JSONPathSyntaxError) -> String {
            let start = position
            while position < characters.count, Self.isNameCharacter(characters[position], first: position == start) {
                position += 1
            }
            guard position > start else {
                throw failure("'\(characters[position])' cannot start a member name after '.'",
                              fix: "write a name with other characters in brackets: ['\(String(characters[position...].prefix { $0 != "." && $0 != "[" }))']")
            }
            return String(characters[start..<position])
        }

        private mutating func bracket() throws(JSONPathSyntaxError) -> Segment {
            guard position < characters.count else { throw failure("expected an index, '*' or a quoted name after '['", fix: "close it, e.g. [0]") }
            let segment: Segment
            switch characters[position] {
            case "*":
                position += 1
                segment = .wildcard
            case "'", "\"":
                segment = .name(try quotedName())
            case "?":
                throw failure("filter expressions '[?...]' are not supported", fix: "select by index or name, or use a jsonSchema assertion")
            case "-", "0"..."9":
                let start = position
                position += 1
                while position < characters.count, characters[position].isASCII, characters[position].isNumber { position += 1 }
                let digits = String(characters[start..<position])
                if position < characters.count, characters[position] == ":" || characters[position] == "," {
                    throw failure("slices and unions are not supported", fix: "select one index, or every element with [*]")
                }
                guard let index = Int(digits), digits != "-" else {
                    throw failure("'\(digits)' is not an index", fix: "write a whole number such as [0] or [-1]")
                }
                segment = .index(index)
            default:
                throw failure("expected an index, '*' or a quoted name after '[' but found '\(characters[position])'",
                              fix: "write [0], [*] or ['name']")
            }
            guard position < characters.count, characters[position] == "]" else {
                throw failure("expected ']'", fix: "close the bracket")
            }
            position += 1
            return segment
        }

        private mutating func quotedName() throws(JSONPathSyntaxError) -> String {
            let quote = characters[position]
            position += 1
            var name = ""
            while position < characters.count {
                let character = characters[position]
                position += 1
                if character == quote { return name }
                if character == "\\" {
                    guard position < characters.count else { break }
                    name.append(characters[position])
                    position += 1
                } else {
                    name.append(character)
                }
            }
            throw failure("the quoted name is not closed", fix: "end it with \(quote)]")
        }

        private static func isNameCharacter(_ character: Character, first: Bool) -> Bool {
            if character == "_" || !character.isASCII { return true }
            return character.isLetter || (!first && character.isNumber)
        }

        private func failure(_ message: String, fix: String) -> JSONPathSyntaxError {
            JSONPathSyntaxError(message: message, offset: min(position, characters.count) + 1, fix: fix)
        }
    }
}

/// A JSONPath that does not parse: what is wrong, at which character (from 1), and how to write it.
package struct JSONPathSyntaxError: Error, Sendable, Equatable {
    package var message: String
    /// The character of the path where the problem is, counting from 1.
    package var offset: Int
    package var fix: String
}
