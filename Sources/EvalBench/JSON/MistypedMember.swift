import Foundation

/// A member of a JSON object whose value is of the wrong kind for the type the object was
/// decoded as (`"delta": "Paris"` where an object belongs), by where it is and what kinds it
/// had and should have had: never by its value, which is whatever a server sent.
struct MistypedMember: Equatable {
    /// The member's path by its names on the wire: `delta`, `delta.text`, `list[0].text`.
    var path: String
    /// The kind of value that came: "a string", "an integer", "an array".
    var found: String
    /// The kind of value that belongs there, when the decoder said: "an object", "a string".
    var expected: String?

    /// The first member, in the order written, that keeps the JSON object `data` from decoding
    /// as `type`; nil when `data` is not a JSON object, or when no one member fails alone.
    ///
    /// Each member is decoded alone, because the decoder's error does not always say where it
    /// is: a number that is not a whole one, read as an integer, fails the whole text with no
    /// path at all. Inside a member the error's path leads to the value (`delta.text`).
    static func first<T: Decodable>(in data: Data, as type: T.Type, decoder: JSONDecoder) -> MistypedMember? {
        guard let document = try? JSONDocument(data: data, file: "event"),
              case let .object(members) = document.root.content else { return nil }
        for member in members {
            let alone = Data(JSONValue.object([member.key: JSONValue(member.value)]).jsonText.utf8)
            do {
                _ = try decoder.decode(type, from: alone)
            } catch {
                return MistypedMember(error, in: member)
            }
        }
        return nil
    }

    private init(_ error: any Error, in member: JSONNode.Member) {
        var path: [any CodingKey] = []
        switch error as? DecodingError {
        case let .typeMismatch(type, context)?:
            path = context.codingPath
            expected = Self.kind(of: type)
        case let .valueNotFound(type, context)?:
            path = context.codingPath
            expected = Self.kind(of: type)
        case let .dataCorrupted(context)?:
            path = context.codingPath
        default:
            break
        }
        // A path that does not start at this member (or none) is the member's own.
        if path.first?.stringValue != member.key { path = [] }
        var value = member.value
        var shown = member.key
        for key in path.dropFirst() {
            guard let next = Self.child(of: value, at: key) else { break }
            value = next
            shown += key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
        }
        self.path = shown
        found = JSONValue(value).kindDescription
    }

    private static func child(of node: JSONNode, at key: any CodingKey) -> JSONNode? {
        switch node.content {
        case let .object(members): members.first { $0.key == key.stringValue }?.value
        case let .array(elements): key.intValue.flatMap { elements.indices.contains($0) ? elements[$0] : nil }
        default: nil
        }
    }

    /// The kind of JSON value a decoder wanted for `type`.
    private static func kind(of type: Any.Type) -> String? {
        if type == String.self { return "a string" }
        if type == Bool.self { return "a boolean" }
        if type == Int.self || type == Int64.self || type == Int32.self { return "an integer" }
        if type == Double.self || type == Float.self { return "a number" }
        if type is [String: Any].Type { return "an object" }
        if type is [Any].Type { return "an array" }
        return nil
    }
}
