import Foundation

/// JSON text that goes into a request body as written, keeping its key order (a schema whose
/// `reason` property comes before `pass` makes a constrained model reason first).
package struct RawJSON: Sendable, Equatable {
    package var text: String

    package init(_ text: String) {
        self.text = text
    }
}

/// Writes request bodies: Foundation values with sorted keys, and `RawJSON` verbatim.
/// `JSONSerialization` cannot take a fragment of text as it is, and a dictionary has no order.
enum JSONWriter {
    static func data(_ value: Any) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(value, into: &bytes)
        return Data(bytes)
    }

    static func string(_ value: Any) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ value: Any, into bytes: inout [UInt8]) {
        // The types request bodies are made of, told by their exact type first: a failed cast
        // from `Any` costs more than the write, and casting `[[String: Any]]` to `[Any]` copies
        // it. Each branch writes what the cast below would.
        let kind = type(of: value)
        if kind == String.self { return writeString(value as! String, into: &bytes) }
        if kind == [String: Any].self { return writeObject(value as! [String: Any], into: &bytes) }
        if kind == [[String: Any]].self { return writeArray(value as! [[String: Any]], into: &bytes) }
        if kind == [Any].self { return writeArray(value as! [Any], into: &bytes) }
        if kind == Int.self { return bytes.append(contentsOf: String(value as! Int).utf8) }
        if kind == Bool.self { return bytes.append(contentsOf: (value as! Bool) ? "true".utf8 : "false".utf8) }
        if kind == RawJSON.self { return bytes.append(contentsOf: (value as! RawJSON).text.utf8) }
        // Homogeneous literals (`["include_usage": true]`, `["name": name]`): their cast to
        // `[String: Any]` below converts every element, a third of writing a chat body.
        if kind == [String: Bool].self { return writeObject(value as! [String: Bool], into: &bytes) }
        if kind == [String: String].self { return writeObject(value as! [String: String], into: &bytes) }
        if kind == [String].self { return writeArray(value as! [String], into: &bytes) }
        switch value {
        case let string as String:
            writeString(string, into: &bytes)
        case let raw as RawJSON:
            bytes.append(contentsOf: raw.text.utf8)
        case let flag as Bool where kind == Bool.self:
            bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case let number as Int:
            bytes.append(contentsOf: String(number).utf8)
        case let number as Double:
            let text = number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)") : "null"
            bytes.append(contentsOf: text.utf8)
        case let object as [String: Any]:
            writeObject(object, into: &bytes)
        case let array as [Any]:
            writeArray(array, into: &bytes)
        case let number as NSNumber:
            bytes.append(contentsOf: number.stringValue.utf8)
        default:
            bytes.append(contentsOf: "null".utf8)
        }
    }

    private static func writeObject<Value>(_ object: [String: Value], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, entry) in object.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(entry.key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            write(entry.value, into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func writeArray<Element>(_ array: [Element], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(element, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func writeString(_ string: String, into bytes: inout [UInt8]) {
        JSONStringBytes.append(string, to: &bytes, shortBackspaceAndFormFeed: false)
    }
}

extension JSONNode {
    /// Compact JSON text of the node with its object members in the order they were written.
    package var compactJSON: String {
        JSONWriter.string(orderedValue)
    }

    private var orderedValue: Any {
        switch content {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let value, let literal):
            // The literal as written, when it is valid JSON (it always is, coming from the parser).
            return RawJSON(literal.isEmpty ? String(value) : literal)
        case .string(let text): return text
        case .array(let elements): return elements.map(\.orderedValue)
        case .object(let members):
            return RawJSON("{" + members.map { JSONWriter.string($0.key) + ":" + $0.value.compactJSON }.joined(separator: ",") + "}")
        }
    }
}
