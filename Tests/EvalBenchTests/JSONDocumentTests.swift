import Foundation
import Testing
@testable import EvalBench

/// Parses `text`, returning the diagnostic it throws, or nil when it parses.
private func syntaxError(_ text: String) -> Diagnostic? {
    do {
        _ = try JSONDocument(data: Data(text.utf8), file: "s.json")
        return nil
    } catch {
        return error
    }
}

private func parse(_ text: String) throws -> JSONNode {
    try JSONDocument(data: Data(text.utf8), file: "s.json").root
}

@Suite("JSON documents")
struct JSONDocumentTests {
    @Test("Every value and key records its line and column, counted in characters from 1")
    func locations() throws {
        let root = try parse("{\n  \"name\": \"café\", \"n\": 3,\n  \"list\": [true, null]\n}")
        #expect(root.location == SourceLocation(line: 1, column: 1))
        let members = try #require(root.members)
        #expect(members.map(\.key) == ["name", "n", "list"])
        #expect(members[0].keyLocation == SourceLocation(line: 2, column: 3))
        #expect(members[0].value.location == SourceLocation(line: 2, column: 11))
        // "café" is five bytes but four characters, so "n" starts at column 19, not 20.
        #expect(members[1].keyLocation == SourceLocation(line: 2, column: 19))
        let list = try #require(members[2].value.arrayValue)
        #expect(list[1].location == SourceLocation(line: 3, column: 18))
    }

    @Test("A missing comma between members names the exact line and column and what was expected")
    func missingComma() throws {
        let error = try #require(syntaxError("{\n  \"a\": 1\n  \"b\": 2\n}"))
        #expect(error.location == SourceLocation(line: 3, column: 3))
        #expect(error.message == "expected ',' or '}' after an object member, found '\"'")
        #expect(error.description.hasPrefix("s.json:3:3: error:"))
    }

    @Test("A trailing comma is called out as such, at the comma")
    func trailingComma() throws {
        let object = try #require(syntaxError("{\"a\": [1, 2,\n], \"b\": 1}"))
        #expect(object.message == "trailing comma after the last array element")
        #expect(object.location == SourceLocation(line: 1, column: 12))
        let array = try #require(syntaxError("{\"a\": 1,}"))
        #expect(array.message == "trailing comma after the last object member")
        #expect(array.location == SourceLocation(line: 1, column: 8))
    }

    @Test("An unterminated string points at its opening quote")
    func unterminatedString() throws {
        let error = try #require(syntaxError("{\"a\": \"Paris\n}"))
        #expect(error.message == "unterminated string")
        #expect(error.location == SourceLocation(line: 1, column: 7))
    }

    @Test("A key repeated in one object is flagged at the second, naming the first")
    func duplicateKey() throws {
        let error = try #require(syntaxError("{\"id\": 1,\n \"id\": 2}"))
        #expect(error.location == SourceLocation(line: 2, column: 2))
        #expect(error.message.contains("duplicate key 'id'"))
        #expect(error.message.contains("line 1, column 2"))
    }

    @Test("Non-JSON habits get a hint: single quotes, comments, capitalised literals, bare words")
    func habits() throws {
        #expect(syntaxError("{'a': 1}")?.fix?.contains("double quotes") == true)
        #expect(syntaxError("[1, // one\n 2]")?.fix?.contains("comments") == true)
        #expect(syntaxError("[True]")?.fix == "JSON literals are lower case: write true")
        #expect(syntaxError("{\"city\": Paris}")?.message == "expected a JSON value, found 'Paris'")
        #expect(syntaxError("[01]")?.message.contains("must not start with '0'") == true)
        #expect(syntaxError("{} {}")?.message == "unexpected '{' after the JSON value")
        #expect(syntaxError("")?.message == "expected a JSON value, found the end of the file")
    }

    @Test("Escapes decode, surrogate pairs combine, and a lone surrogate is refused")
    func escapes() throws {
        let root = try parse(#"["a\"b\\c\/\n\t", "\u00e9\uD83D\uDE00"]"#)
        let strings = try #require(root.arrayValue).map(\.stringValue)
        #expect(strings == ["a\"b\\c/\n\t", "é😀"])
        #expect(syntaxError(#"["\uD83D x"]"#)?.message.contains("unpaired UTF-16 surrogate") == true)
        #expect(syntaxError(#"["\q"]"#)?.message == "invalid escape '\\q' in a string")
        #expect(syntaxError("[\"\u{07}\"]")?.message.contains("control character U+0007") == true)
    }

    @Test("Invalid UTF-8 inside a string is an error, not a silent replacement character")
    func invalidUTF8() throws {
        var bytes = Array("[\"ab".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"]".utf8)
        #expect(throws: Diagnostic.self) { try JSONDocument(data: Data(bytes), file: "s.json") }
    }

    @Test("Numbers keep their literal, so integers convert exactly and fractions do not")
    func numbers() throws {
        let root = try parse("[9007199254740993, 3.0, 3.5, -1e2]")
        let numbers = try #require(root.arrayValue)
        #expect(numbers[0].intValue == 9_007_199_254_740_993)
        #expect(numbers[1].intValue == 3)
        #expect(numbers[2].intValue == nil)
        #expect(numbers[3].doubleValue == -100)
    }

    @Test("JSONValue drops locations and round-trips through Codable")
    func jsonValue() throws {
        let value = JSONValue(try parse(#"{"a": [1, true, null, "x"], "b": {"c": 2.5}}"#))
        #expect(value == .object(["a": .array([.number(1), .bool(true), .null, .string("x")]),
                                  "b": .object(["c": .number(2.5)])]))
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
    }

    @Test("Deep nesting is refused instead of overflowing the stack")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(syntaxError(deep)?.message.contains("nested more than 512") == true)
    }

    @Test("A multi-megabyte single-line file parses with locations intact")
    func largeFile() throws {
        let element = #"{"id": "case-é", "prompt": "What is the capital of France?", "n": 12.5}"#
        let text = "[" + Array(repeating: element, count: 40_000).joined(separator: ",") + "]"
        let root = try parse(text)
        let elements = try #require(root.arrayValue)
        #expect(elements.count == 40_000)
        // Each element is followed by a comma, and "é" is one character though two bytes.
        #expect(elements[39_999].location == SourceLocation(line: 1, column: 2 + 39_999 * (element.count + 1)))
    }
}
