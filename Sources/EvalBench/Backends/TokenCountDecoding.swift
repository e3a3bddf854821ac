import Foundation

/// Token counts as a server sends them, which may be anything: a count that is not a whole
/// number within `Int` (`1e30`, `10.5`, `"10"`, `true`) is left unknown and named in `problem`,
/// which the backend turns into `Usage.suspect`, instead of failing the chunk it came in and
/// so losing the answer with it. (`OpenAIChunk`'s byte reader refuses such a count, and the
/// chunk is read again with `JSONDecoder`, which comes here.)
extension KeyedDecodingContainer {
    func tokenCount(_ key: Key, problem: inout UnreadableCounts) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        let shown = if let number = try? decode(Double.self, forKey: key) {
            "\(number)"
        } else if let text = try? decode(String.self, forKey: key) {
            "the string \"\(ServerText.clip(text, 40))\""
        } else {
            "a value that is not a number"
        }
        problem.add(key.stringValue, note: "\(key.stringValue) is \(shown), not a whole number of tokens within range; left unknown")
        return nil
    }
}

extension Decoder {
    /// The usage object being decoded, or nil when the server sent another kind of value in its
    /// place (`[1, 2]`, `"n/a"`, `5`): then each of `counts` is unreadable, noted by the
    /// object's path, so every figure read from it is unknown and the chunk it came in, with
    /// its answer, is kept. (A null object never gets here: it is absent, not reported.)
    func usageObject<Key: CodingKey>(keyedBy type: Key.Type, problem: inout UnreadableCounts,
                                     counts: [String]) -> KeyedDecodingContainer<Key>? {
        if let container = try? container(keyedBy: type) { return container }
        let name = codingPath.isEmpty ? "usage" : codingPath.map(\.stringValue).joined(separator: ".")
        let shown = switch try? JSONValue(from: self) {
        case .string(let text)?: "the string \"\(ServerText.clip(text, 40))\""
        case .array(let elements)?: elements.isEmpty ? "an empty array" : "an array"
        case let value?: ServerText.clip(value.jsonText, 40)
        case nil: "a value that could not be read"
        }
        let note = "\(name) is \(shown), not an object; left unknown"
        for key in counts { problem.add(key, note: note) }
        return nil
    }
}

/// The counts of one usage object that could not be read: which keys, each with a note on
/// what it was, in the order met (the first note is `Usage.suspect`). A figure summed from
/// one of them is unknown too.
struct UnreadableCounts: Sendable, Equatable {
    private struct Entry: Sendable, Equatable {
        var key: String
        var note: String
    }
    private var entries: [Entry] = []

    var keys: Set<String> { Set(entries.map(\.key)) }
    /// The note on the first key met that is still unreadable.
    var first: String? { entries.first?.note }

    /// `key`'s note, if it could not be read.
    func note(for key: String) -> String? { entries.first { $0.key == key }?.note }

    /// Records `key` as unreadable; a key met again keeps its first note.
    mutating func add(_ key: String, note: String) {
        if !entries.contains(where: { $0.key == key }) { entries.append(Entry(key: key, note: note)) }
    }

    /// Whether any of `keys` could not be read.
    func any(_ names: String...) -> Bool { names.contains { note(for: $0) != nil } }

    /// These, and `other`'s, these first.
    func merged(_ other: UnreadableCounts?) -> UnreadableCounts {
        var merged = self
        for entry in other?.entries ?? [] { merged.add(entry.key, note: entry.note) }
        return merged
    }

    /// These less the keys `isReadableNow` says a later report gave readably.
    func removing(where isReadableNow: (String) -> Bool) -> UnreadableCounts {
        var kept = self
        kept.entries.removeAll { isReadableNow($0.key) }
        return kept
    }
}
