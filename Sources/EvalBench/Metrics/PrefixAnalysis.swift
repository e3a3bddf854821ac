import Foundation

/// A request rendered canonically for prefix comparison: the parts a prompt cache sees, in
/// the order servers put them (instructions, tool definitions, output schema, history, the new prompt).
package struct CanonicalPrompt: Sendable, Equatable {
    /// One named part and its text.
    package struct Segment: Sendable, Equatable {
        /// `instructions`, `tools`, `schema`, `history[3]` (0-based message index) or `prompt`.
        package var name: String
        /// What the rendering puts before the text, so a role change is a change: `user:`.
        package var marker: String
        package var text: String

        package init(name: String, marker: String, text: String) {
            self.name = name
            self.marker = marker
            self.text = text
        }

        var rendered: String { marker + text }
    }

    package var segments: [Segment]

    package init(segments: [Segment]) {
        self.segments = segments
    }

    /// The canonical rendering of `request`.
    package init(_ request: ModelRequest) {
        var segments: [Segment] = []
        if let instructions = request.instructions { segments.append(Segment(name: "instructions", marker: "system:", text: instructions)) }
        if !request.tools.isEmpty {
            let tools = request.tools.map { "\($0.name): \($0.description) \($0.parametersText)" }.joined(separator: "\n")
            segments.append(Segment(name: "tools", marker: "tools:", text: tools))
        }
        if let output = request.output { segments.append(Segment(name: "schema", marker: "schema:", text: output.schemaText)) }
        for (index, message) in request.messages.enumerated() {
            let name = index == request.messages.count - 1 ? "prompt" : "history[\(index)]"
            let calls = message.toolCalls.map { "\n\($0.name)(\($0.argumentsText))" }.joined()
            segments.append(Segment(name: name, marker: message.role.rawValue + ":", text: message.content + calls))
        }
        self.segments = segments
    }

    /// The segments' texts joined by newlines: what the comparison reads.
    package var rendered: String {
        segments.map(\.rendered).joined(separator: "\n")
    }
}

/// How much of a request a prompt cache could have served: the share of its canonical
/// rendering that repeats the previous request to the same session exactly, from the start.
/// Counted in characters, so the ideal ratio is a proxy for the token ratio, not a token count.
public struct PrefixComparison: Sendable, Codable, Equatable {
    /// Characters (Unicode scalars) of this request's rendering that are an exact prefix of the previous one.
    public var sharedCharacters: Int
    /// Characters of this request's rendering.
    public var totalCharacters: Int
    /// The first segment that differs from the previous request, when the prefix broke
    /// before the previous request's end; nil when the previous request is a prefix of this one.
    public var brokenSegment: String?
    /// The character, within that segment, at which it first differs (0-based).
    public var brokenAt: Int?

    enum CodingKeys: String, CodingKey {
        case sharedCharacters = "shared_characters"
        case totalCharacters = "total_characters"
        case brokenSegment = "broken_segment"
        case brokenAt = "broken_at"
    }

    /// sharedCharacters / totalCharacters: the best cache-hit ratio this request could have.
    public var idealRatio: Double? {
        totalCharacters > 0 ? Double(sharedCharacters) / Double(totalCharacters) : nil
    }

    /// "instructions changed at character 212", for reports.
    public var explanation: String? {
        guard let brokenSegment, let brokenAt else { return nil }
        return "\(brokenSegment) changed at character \(brokenAt)"
    }

    /// Compares `current` with the `previous` request of the same session.
    package init(previous: CanonicalPrompt, current: CanonicalPrompt) {
        let before = Array(previous.rendered.unicodeScalars)
        let after = Array(current.rendered.unicodeScalars)
        var common = 0
        while common < before.count, common < after.count, before[common] == after[common] { common += 1 }
        sharedCharacters = common
        totalCharacters = after.count
        guard common < before.count else { return }
        // The previous request is not a prefix of this one: name where this one departs.
        var offset = 0
        for (index, segment) in current.segments.enumerated() {
            let marker = segment.marker.unicodeScalars.count
            let length = marker + segment.text.unicodeScalars.count
            if common < offset + length || index == current.segments.count - 1 {
                brokenSegment = segment.name
                brokenAt = max(0, min(common - offset - marker, segment.text.unicodeScalars.count))
                return
            }
            offset += length + 1
        }
    }
}
