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
        problem.keys.insert(key.stringValue)
        let shown = if let number = try? decode(Double.self, forKey: key) {
            "\(number)"
        } else if let text = try? decode(String.self, forKey: key) {
            "the string \"\(ServerText.clip(text, 40))\""
        } else {
            "a value that is not a number"
        }
        if problem.first == nil { problem.first = "\(key.stringValue) is \(shown), not a whole number of tokens within range; left unknown" }
        return nil
    }
}

/// The counts of one usage object that could not be read: which keys, and what the first one
/// was (for `Usage.suspect`). A figure summed from one of them is unknown too.
struct UnreadableCounts: Sendable, Equatable {
    var keys: Set<String> = []
    var first: String?

    /// Whether any of `keys` could not be read.
    func any(_ names: String...) -> Bool { names.contains(where: keys.contains) }

    /// These, and `other`'s, the first of these first.
    func merged(_ other: UnreadableCounts?) -> UnreadableCounts {
        UnreadableCounts(keys: keys.union(other?.keys ?? []), first: first ?? other?.first)
    }
}
