import Foundation

/// A recursive-descent RFC 8259 parser over UTF-8 bytes that records the location of every
/// value and key. Columns count characters; they are computed incrementally because
/// locations are asked for in increasing order, so long single-line files stay linear.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let file: String
    private var position = 0
    private var line = 1
    private var lineStart = 0
    /// The last position whose column is known, on the current line, and that column.
    private var columnMark = 0
    private var columnAtMark = 1
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
        self.bytes = bytes
        self.file = file
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            lineStart = 3
            columnMark = 3
        }
    }

    mutating func parseDocument() throws(Diagnostic) -> JSONNode {
        if let problem = TextEncoding.problem(in: bytes.prefix(4)), problem.message.hasPrefix("the file is") {
            throw Diagnostic(file: file, location: problem.location, message: problem.message, fix: "save the file as UTF-8")
        }
        let root = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw failure("unexpected \(describeFound()) after the JSON value",
                          fix: "a JSON file holds one value: remove the extra text, or put the values in an array")
        }
        return root
    }

    // MARK: Values

    private mutating func parseValue() throws(Diagnostic) -> JSONNode {
        skipWhitespace()
        let start = location(at: position)
        guard position < bytes.count else {
            throw failure("expected a JSON value, found the end of the file",
                          fix: "the text ends early: check for a missing value or closing bracket")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(start: start)
        case UInt8(ascii: "["): return try parseArray(start: start)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString(start: start)), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(start: start)
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return try parseLiteral(start: start)
        default:
            throw unexpected("expected a JSON value")
        }
    }

    private mutating func parseObject(start: SourceLocation) throws(Diagnostic) -> JSONNode {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var members: [JSONNode.Member] = []
        // Keys are the same only when their code points are: "ä" and "a\u{308}" are two keys.
        var keyLocations: [[UInt8]: SourceLocation] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            position += 1
            return JSONNode(.object([]), at: start)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                throw unexpected(members.isEmpty ? "expected a key in double quotes or '}'"
                                                 : "expected a key in double quotes after ','")
            }
            let keyLocation = location(at: position)
            let key = try parseString(start: keyLocation)
            if let first = keyLocations[Array(key.utf8)] {
                throw Diagnostic(file: file, location: keyLocation,
                                 message: "duplicate key '\(key)' in one object; it is first at line \(first.line), column \(first.column)",
                                 fix: "keep one of the two members")
            }
            keyLocations[Array(key.utf8)] = keyLocation
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw unexpected("expected ':' after the key '\(key)'") }
            position += 1
            members.append(JSONNode.Member(key: key, keyLocation: keyLocation, value: try parseValue()))
            if try closesAfterElement("}", element: "object member") {
                return JSONNode(.object(members), at: start)
            }
        }
    }

    private mutating func parseArray(start: SourceLocation) throws(Diagnostic) -> JSONNode {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            position += 1
            return JSONNode(.array([]), at: start)
        }
        while true {
            elements.append(try parseValue())
            if try closesAfterElement("]", element: "array element") {
                return JSONNode(.array(elements), at: start)
            }
        }
    }

    /// After an object member or array element: consumes a ',' (refusing a trailing one) and
    /// returns false, or consumes the closing bracket and returns true.
    private mutating func closesAfterElement(_ closing: Unicode.Scalar, element: String) throws(Diagnostic) -> Bool {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","):
            let comma = location(at: position)
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: closing) {
                throw Diagnostic(file: file, location: comma,
                                 message: "trailing comma after the last \(element)",
                                 fix: "remove this comma; JSON does not allow one before '\(closing)'")
            }
            return false
        case UInt8(ascii: closing):
            position += 1
            return true
        default:
            throw unexpected("expected ',' or '\(closing)' after an \(element)")
        }
    }

    private mutating func parseNumber(start: SourceLocation) throws(Diagnostic) -> JSONNode {
        let first = position
        if peek == UInt8(ascii: "-") { position += 1 }
        if peek == UInt8(ascii: "0") {
            position += 1
            if isDigit(peek) {
                throw failure("a number must not start with '0' followed by more digits",
                              fix: "remove the leading zeros, or quote the text if it is not a number")
            }
        } else if isDigit(peek) {
            skipDigits()
        } else {
            throw unexpected("expected a digit after '-'")
        }
        if peek == UInt8(ascii: ".") {
            position += 1
            guard isDigit(peek) else { throw unexpected("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek) else { throw unexpected("expected a digit in the exponent") }
            skipDigits()
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<position]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw Diagnostic(file: file, location: start, message: "the number \(literal) is too large",
                             fix: "write a number within the range of a 64-bit floating-point value")
        }
        return JSONNode(.number(value, literal: literal), at: start)
    }

    private mutating func parseLiteral(start: SourceLocation) throws(Diagnostic) -> JSONNode {
        let word = readWord()
        switch word {
        case "true": return JSONNode(.bool(true), at: start)
        case "false": return JSONNode(.bool(false), at: start)
        case "null": return JSONNode(.null, at: start)
        default:
            let lower = word.lowercased()
            let fix = ["true", "false", "null"].contains(lower)
                ? "JSON literals are lower case: write \(lower)"
                : "put text in double quotes: \"\(word)\""
            throw Diagnostic(file: file, location: start,
                             message: "expected a JSON value, found '\(word)'", fix: fix)
        }
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote; `start` is that quote's location.
    private mutating func parseString(start: SourceLocation) throws(Diagnostic) -> String {
        position += 1
        let contentStart = position
        var hasNonASCII = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(UnsafeBufferPointer(rebasing: bytes[contentStart..<position]),
                                          validate: hasNonASCII, start: start)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            hasNonASCII = hasNonASCII || byte >= 0x80
            position += 1
        }
        var buffer = Array(bytes[contentStart..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try buffer.withUnsafeBufferPointer { text throws(Diagnostic) in
                    try makeString(text, validate: hasNonASCII, start: start)
                }
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0x0A, 0x0D:
                throw unterminatedString(start)
            case 0..<0x20:
                let code = String(byte, radix: 16, uppercase: true)
                throw failure("control character U+\(String(repeating: "0", count: 4 - code.count))\(code) inside a string",
                              fix: "escape it, e.g. write \\t for a tab")
            default:
                hasNonASCII = hasNonASCII || byte >= 0x80
                buffer.append(byte)
                position += 1
            }
        }
        throw unterminatedString(start)
    }

    private func makeString(_ text: UnsafeBufferPointer<UInt8>, validate: Bool,
                            start: SourceLocation) throws(Diagnostic) -> String {
        if validate {
            let invalid = transcode(text.makeIterator(), from: UTF8.self, to: UTF32.self,
                                    stoppingOnError: true, into: { _ in })
            if invalid {
                throw Diagnostic(file: file, location: start, message: "the string is not valid UTF-8",
                                 fix: "save the file as UTF-8")
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(Diagnostic) {
        let backslash = position
        position += 1
        guard position < bytes.count else { return }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var code = try parseHex4(escapeStart: backslash)
            if (0xDC00...0xDFFF).contains(code) { throw unpairedSurrogate(code, at: backslash) }
            if (0xD800...0xDBFF).contains(code) {
                let second = position
                guard peek == UInt8(ascii: "\\"), position + 1 < bytes.count,
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw unpairedSurrogate(code, at: backslash)
                }
                position += 2
                let low = try parseHex4(escapeStart: second)
                guard (0xDC00...0xDFFF).contains(low) else { throw unpairedSurrogate(code, at: backslash) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            buffer.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
        default:
            position = backslash
            throw failure("invalid escape '\\\(String(decoding: [escaped], as: UTF8.self))' in a string",
                          fix: "write \\\\ for a backslash; JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(Diagnostic) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek.flatMap({ hexValue($0) }) else {
                position = escapeStart
                throw failure("a \\u escape needs four hexadecimal digits", fix: "write it as \\u00E9, for example")
            }
            code = code << 4 | digit
            position += 1
        }
        return code
    }

    private mutating func unpairedSurrogate(_ code: UInt32, at offset: Int) -> Diagnostic {
        position = offset
        return failure("unpaired UTF-16 surrogate \\u\(String(code, radix: 16, uppercase: true)) in a string",
                       fix: "write the character itself, or both halves of the surrogate pair")
    }

    private func unterminatedString(_ start: SourceLocation) -> Diagnostic {
        Diagnostic(file: file, location: start, message: "unterminated string",
                   fix: "close the string with '\"' on the same line; write \\n for a line break inside it")
    }

    // MARK: Scanning

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0D:
                position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = position
                columnMark = position
                columnAtMark = 1
            default:
                return
            }
        }
    }

    private mutating func skipDigits() {
        while isDigit(peek) { position += 1 }
    }

    private mutating func readWord() -> String {
        let first = position
        while let byte = peek, isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") { position += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<position]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func enterContainer() throws(Diagnostic) {
        depth += 1
        if depth > JSONDocument.maximumDepth {
            throw failure("objects and arrays are nested more than \(JSONDocument.maximumDepth) levels deep",
                          fix: "flatten the structure")
        }
    }

    // MARK: Locations and errors

    /// The location of `offset`, which must be on the current line.
    private mutating func location(at offset: Int) -> SourceLocation {
        if offset < columnMark {
            columnMark = lineStart
            columnAtMark = 1
        }
        let span = UnsafeBufferPointer(rebasing: bytes[columnMark..<offset])
        columnAtMark += span.allSatisfy { $0 < 0x80 } ? span.count : String(decoding: span, as: UTF8.self).count
        columnMark = offset
        return SourceLocation(line: line, column: columnAtMark)
    }

    private mutating func failure(_ message: String, fix: String?) -> Diagnostic {
        Diagnostic(file: file, location: location(at: position), message: message, fix: fix)
    }

    /// "`expectation`, found X", with a hint for the usual non-JSON habits.
    private mutating func unexpected(_ expectation: String) -> Diagnostic {
        let fix: String? = switch peek {
        case nil: "the text ends early: check for a missing closing bracket, brace or quote"
        case UInt8(ascii: "'"): "JSON strings and keys use double quotes"
        case UInt8(ascii: "/"): "JSON does not allow comments: remove it"
        case UInt8(ascii: "\""): expectation.contains("','") ? "add a ',' before this" : nil
        case let byte? where isLetter(byte): "put keys and text in double quotes"
        default: nil
        }
        return failure("\(expectation), found \(describeFound())", fix: fix)
    }

    /// What is at the current position, for messages: a word, a character or the end of the file.
    private func describeFound() -> String {
        guard let byte = peek else { return "the end of the file" }
        if isLetter(byte) {
            var end = position
            while end < bytes.count, end - position < 24, isLetter(bytes[end]) || isDigit(bytes[end]) { end += 1 }
            return "'\(String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self))'"
        }
        if byte < 0x20 { return "a control character" }
        let end = min(bytes.count, position + 4)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
        return "'\(text.first.map(String.init) ?? "")'"
    }
}
