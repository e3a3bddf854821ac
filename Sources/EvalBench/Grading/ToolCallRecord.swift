import Foundation

/// One tool call of a turn as results.jsonl records it: what the model asked for and what
/// evalbench sent back.
public struct ToolCallRecord: Sendable, Codable, Equatable {
    /// Which round of the turn's tool loop made the call, from 1.
    public var round: Int
    /// The provider's id for the call (or the one evalbench made up).
    public var id: String
    /// The tool the model called.
    public var name: String
    /// The arguments as JSON; nil when the model's text did not parse (see `argumentsText`).
    public var arguments: JSONValue?
    /// The arguments exactly as the model wrote them, kept only when they did not parse.
    public var argumentsText: String?
    /// What was sent back; nil when the call was not answered (`maxToolRounds` was reached).
    public var result: String?
    /// Whether what was sent back was a tool error.
    public var isError: Bool
    /// Whether a canned result matched the call; false for an unknown tool, malformed or
    /// unmatched arguments, and unanswered calls.
    public var matched: Bool

    /// A record of one call.
    public init(round: Int, id: String, name: String, arguments: JSONValue?, argumentsText: String?,
                result: String?, isError: Bool, matched: Bool) {
        self.round = round
        self.id = id
        self.name = name
        self.arguments = arguments
        self.argumentsText = argumentsText
        self.result = result
        self.isError = isError
        self.matched = matched
    }

    enum CodingKeys: String, CodingKey {
        case round, id, name, arguments
        case argumentsText = "arguments_text"
        case result
        case isError = "is_error"
        case matched
    }

    /// `get_weather({"city":"Paris"})`, for explanations.
    public var summary: String {
        let text = writtenArguments
        return "\(name)(\(text.count > 80 ? String(text.prefix(80)) + "…" : text))"
    }

    /// The record of `call`, made in `round` and answered with `answer` (nil: not answered).
    package init(_ call: ToolCall, round: Int, answer: ToolAnswering.Answer?) {
        let arguments = call.arguments
        self.init(round: round, id: call.id, name: call.name, arguments: arguments,
                  argumentsText: arguments == nil ? call.argumentsText : nil, result: answer?.output.content,
                  isError: answer?.output.isError ?? false, matched: answer?.matched ?? false)
    }

    /// The arguments as JSON text, or as the model wrote them when they did not parse.
    package var writtenArguments: String {
        arguments.map { JSONWriter.string($0.foundationObject) } ?? argumentsText ?? ""
    }

    /// The call again, as a backend would return it, to be answered anew.
    package var call: ToolCall {
        ToolCall(id: id, name: name, argumentsText: writtenArguments)
    }
}

/// What the tool assertions look at: the turn's calls, how many rounds called a tool, and
/// the tools in force (for their argument schemas).
package struct ToolUse: Sendable {
    package var calls: [ToolCallRecord]
    package var rounds: Int
    package var tools: [CannedTool]

    package init(calls: [ToolCallRecord] = [], rounds: Int = 0, tools: [CannedTool] = []) {
        self.calls = calls
        self.rounds = rounds
        self.tools = tools
    }
}
