import Foundation

/// An RFC 6901 JSON pointer such as `/items/0/name` (`~0` is `~`, `~1` is `/`); the empty
/// pointer is the whole document.
public struct JSONPointer: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The reference tokens, unescaped.
    package let tokens: [String]

    /// The pointer made of `tokens`.
    package init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses pointer text; the error says what is wrong and how to write it.
    package init(parsing text: String) throws(JSONPointerSyntaxError) {
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw JSONPointerSyntaxError(
                message: "a JSON pointer starts with '/', or is empty for the whole answer",
                fix: text.hasPrefix("$") ? "that looks like a JSONPath: use type 'jsonPath', or write it as \"/\(text.drop { $0 == "$" || $0 == "." }.replacingOccurrences(of: ".", with: "/"))\""
                                         : "write \"/\(text)\"")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let character = iterator.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default:
                    throw JSONPointerSyntaxError(message: "'~' in a JSON pointer must be followed by 0 or 1",
                                                 fix: "write '~0' for '~' and '~1' for '/' inside a key")
                }
            }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The pointer as text, escaped; the empty string for the whole document.
    public var description: String {
        tokens.map { "/" + Self.escape($0) }.joined()
    }

    /// The pointer for messages: `/a/0`, or "the root".
    package var readable: String {
        tokens.isEmpty ? "the root" : description
    }

    package func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    package func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The value at this pointer in `root`, or where and why it could not be followed.
    package func resolve(in root: JSONValue) -> Resolution {
        var current = root
        var reached = JSONPointer(tokens: [])
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else {
                    return .missing(at: reached, reason: "\(reached.readable) has no member '\(token)'")
                }
                current = next
            case .array(let elements):
                guard let index = Self.arrayIndex(token) else {
                    return .missing(at: reached, reason: "\(reached.readable) is an array, and '\(token)' is not an index")
                }
                guard index < elements.count else {
                    return .missing(at: reached, reason: "\(reached.readable) has \(elements.count) element(s), so index \(index) is out of range")
                }
                current = elements[index]
            default:
                return .missing(at: reached, reason: "\(reached.readable) is \(current.kindDescription), which has no member '\(token)'")
            }
            reached = reached.appending(token)
        }
        return .found(current)
    }

    /// What following a pointer gave.
    package enum Resolution: Sendable, Equatable {
        case found(JSONValue)
        /// The pointer stopped at `at`, the deepest part that exists.
        case missing(at: JSONPointer, reason: String)
    }

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

    /// An RFC 6901 array index: digits without a leading zero.
    static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy(\.isASCII), token.allSatisfy(\.isNumber),
              token == "0" || !token.hasPrefix("0") else { return nil }
        return Int(token)
    }

    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

/// Pointer text that is not RFC 6901: what is wrong and how to write it.
package struct JSONPointerSyntaxError: Error, Sendable, Equatable {
    package var message: String
    package var fix: String
}
