import Foundation

/// A tool of a suite: what the model is told about it, the JSON Schema its arguments must
/// follow, and the canned results evalbench answers its calls with (nothing is executed).
public struct CannedTool: Sendable, Codable, Equatable {
    /// The name, description and argument schema sent to the model.
    public var definition: ToolDefinition
    /// The argument schema, compiled when the suite loaded; `toolArgumentsValid` checks calls against it.
    public var parameters: JSONSchema
    /// The canned results, tried in order; the first that matches a call answers it.
    public var results: [CannedResult]

    /// A tool; `definition.parametersText` should be `parameters` as written.
    public init(definition: ToolDefinition, parameters: JSONSchema, results: [CannedResult]) {
        self.definition = definition
        self.parameters = parameters
        self.results = results
    }

    /// The tool's name.
    public var name: String { definition.name }
}

/// One canned result of a tool: the arguments it answers (`when`, a subset; nil answers any
/// call) and what is sent back.
public struct CannedResult: Sendable, Codable, Equatable {
    /// The arguments a call must have for this result: every member must be in the call's
    /// arguments with an equal value (objects compare as subsets, numbers by value). Nil: the default.
    public var when: JSONValue?
    /// What is sent back: a JSON result as compact JSON text, a string result as it is, or
    /// the error message when `isError`.
    public var content: String
    /// Whether this simulates a failing tool (`{"error": "..."}`).
    public var isError: Bool

    /// A result sending `content`, for calls whose arguments contain `when`.
    public init(when: JSONValue? = nil, content: String, isError: Bool = false) {
        self.when = when
        self.content = content
        self.isError = isError
    }
}

/// Answers tool calls from canned results.
package enum ToolAnswering {
    /// How one call was answered.
    package struct Answer: Sendable, Equatable {
        package var output: ToolOutput
        /// Whether a canned result matched; false for an unknown tool or arguments no result takes.
        package var matched: Bool
    }

    /// The answer to `call` from `tools`: the first canned result whose `when` the arguments
    /// contain, else a tool error that says why none did.
    package static func answer(_ call: ToolCall, tools: [CannedTool]) -> Answer {
        func failing(_ message: String) -> Answer {
            Answer(output: ToolOutput(callID: call.id, name: call.name, content: message, isError: true), matched: false)
        }
        guard let tool = tools.first(where: { $0.name == call.name }) else {
            let known = tools.map(\.name).joined(separator: ", ")
            return failing("error: there is no tool named '\(call.name)'" + (known.isEmpty ? "" : "; the tools are \(known)"))
        }
        guard let arguments = call.arguments else {
            return failing("error: the arguments are not valid JSON: \(call.argumentsText.prefix(200))")
        }
        for result in tool.results where result.when.map({ contains(arguments, $0) }) ?? true {
            return Answer(output: ToolOutput(callID: call.id, name: call.name, content: result.content, isError: result.isError),
                          matched: true)
        }
        return failing("error: no canned result of '\(call.name)' matches the arguments \(call.argumentsText.prefix(200))")
    }

    /// Whether `value` contains `subset`: every member of an object subset is in the object
    /// with a value that contains it; other values are equal (numbers by value).
    package static func contains(_ value: JSONValue, _ subset: JSONValue) -> Bool {
        switch (value, subset) {
        case let (.object(members), .object(wanted)):
            return wanted.allSatisfy { key, expected in members[key].map { contains($0, expected) } ?? false }
        case let (.array(elements), .array(wanted)):
            return elements.count == wanted.count && zip(elements, wanted).allSatisfy { contains($0, $1) }
        default:
            return value == subset
        }
    }
}
