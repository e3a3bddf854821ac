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
        var text = ""
        write(value, into: &text)
        return Data(text.utf8)
    }

    static func string(_ value: Any) -> String {
        var text = ""
        write(value, into: &text)
        return text
    }

    private static func write(_ value: Any, into text: inout String) {
        switch value {
        case let raw as RawJSON:
            text += raw.text
        case let string as String:
            writeString(string, into: &text)
        case let flag as Bool where type(of: value) == Bool.self:
            text += flag ? "true" : "false"
        case let number as Int:
            text += String(number)
        case let number as Double:
            text += number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)") : "null"
        case let object as [String: Any]:
            text += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                writeString(key, into: &text)
                text += ":"
                write(object[key]!, into: &text)
            }
            text += "}"
        case let array as [Any]:
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                write(element, into: &text)
            }
            text += "]"
        case let number as NSNumber:
            text += number.stringValue
        default:
            text += "null"
        }
    }

    private static func writeString(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20:
                text += String(format: "\\u%04x", control.value)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
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
