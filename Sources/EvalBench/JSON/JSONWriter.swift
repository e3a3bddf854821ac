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
        switch value {
        case let string as String:
            writeString(string, into: &bytes)
        case let raw as RawJSON:
            bytes.append(contentsOf: raw.text.utf8)
        case let flag as Bool where type(of: value) == Bool.self:
            bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case let number as Int:
            bytes.append(contentsOf: String(number).utf8)
        case let number as Double:
            let text = number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)") : "null"
            bytes.append(contentsOf: text.utf8)
        case let object as [String: Any]:
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(object[key]!, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case let array as [Any]:
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case let number as NSNumber:
            bytes.append(contentsOf: number.stringValue.utf8)
        default:
            bytes.append(contentsOf: "null".utf8)
        }
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
