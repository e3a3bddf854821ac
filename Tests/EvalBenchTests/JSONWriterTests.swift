import Foundation
import Testing
@testable import EvalBench

/// The request-body writer as it was written first, scalar by scalar: what its byte-level
/// replacement must still write (a request body is part of the response cache's key).
private func reference(_ value: Any) -> String {
    var text = ""
    func writeString(_ string: String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20: text += String(format: "\\u%04x", control.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
    func write(_ value: Any) {
        switch value {
        case let raw as RawJSON: text += raw.text
        case let string as String: writeString(string)
        case let flag as Bool where type(of: value) == Bool.self: text += flag ? "true" : "false"
        case let number as Int: text += String(number)
        case let number as Double:
            text += number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)") : "null"
        case let object as [String: Any]:
            text += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                writeString(key)
                text += ":"
                write(object[key]!)
            }
            text += "}"
        case let array as [Any]:
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                write(element)
            }
            text += "]"
        case let number as NSNumber: text += number.stringValue
        default: text += "null"
        }
    }
    write(value)
    return text
}

@Suite("Request bodies")
struct JSONWriterTests {
    @Test("bodies of random strings, numbers, objects and arrays are written byte for byte as the scalar-by-scalar writer wrote them")
    func sameAsReference() {
        var generator = SplitMix64(seed: 7)
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é",
                      "\u{2028}", "😀", "e\u{301}", "\u{10FFFF}"]
        func text() -> String {
            (0..<Int(generator.next() % 10)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
        }
        func value(_ depth: Int) -> Any {
            switch generator.next() % (depth > 2 ? 6 : 13) {
            case 0: return text()
            case 1: return Int(bitPattern: UInt(generator.next())) >> Int(generator.next() % 64)
            case 2: return [0.5, -0.0, 1e15, 3.0, 1e300, .infinity, 0.1 + 0.2][Int(generator.next() % 7)]
            case 3: return generator.next() % 2 == 0
            case 4: return RawJSON(#"{"b":1,"a":[2]}"#)
            case 5: return NSNull()
            case 6: return Dictionary((0..<Int(generator.next() % 4)).map { _ in (text(), value(depth + 1)) }, uniquingKeysWith: { first, _ in first })
            case 7: return (0..<Int(generator.next() % 4)).map { _ in value(depth + 1) }
            // Typed arrays, as request bodies are built: messages, tools, stop sequences.
            case 8: return (0..<Int(generator.next() % 3)).map { _ -> [String: Any] in [text(): value(depth + 1), "role": "user"] }
            case 9: return (0..<Int(generator.next() % 3)).map { _ in text() }
            // Homogeneous objects, as literals such as `["include_usage": true]` are typed.
            case 10: return Dictionary((0..<Int(generator.next() % 3)).map { _ in (text(), generator.next() % 2 == 0) }, uniquingKeysWith: { first, _ in first })
            case 11: return Dictionary((0..<Int(generator.next() % 3)).map { _ in (text(), text()) }, uniquingKeysWith: { first, _ in first })
            default: return (0..<Int(generator.next() % 3)).map { _ in Int(generator.next() % 1000) - 500 }
            }
        }
        for _ in 0..<2_000 {
            let body: [String: Any] = ["messages": [["role": "user", "content": text()]], "other": value(0), "k" + text(): value(0)]
            #expect(JSONWriter.string(body) == reference(body))
            #expect(JSONWriter.data(body) == Data(reference(body).utf8))
        }
    }
}
