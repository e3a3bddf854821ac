import Foundation

/// The platform-free half of the Apple kinds' tool path. With Foundation Models the framework
/// runs the tool loop inside one `respond` call: it calls each dynamic `Tool`'s `call(arguments:)`
/// and asks the model again. So evalbench (1) converts each tool's JSON Schema to the
/// `DynamicGenerationSchema` its `parameters` are built from, (2) maps `toolChoice` (the
/// framework has no equivalent of `required` or a named tool), (3) answers each call from the
/// canned results with the same `ToolAnswering` the runner's tool loop uses, stopping after
/// `maxToolRounds`, and (4) reads the calls back from the session's transcript
/// (`Transcript.Entry.toolCalls` / `.toolOutput`) as `ToolCallRecord`s with their rounds.
package struct AppleToolSpec: Sendable, Equatable {
    package var name: String
    package var description: String
    /// The arguments' schema as `DynamicGenerationSchema` builds it; the root is named after the tool.
    package var parameters: AppleSchema

    /// The specs for `tools` under `choice`: none for `none`; an error for `required` or a
    /// named tool (no Foundation Models equivalent) and for a schema outside the supported subset.
    package static func make(_ tools: [ToolDefinition], choice: ToolChoice?) throws(AppleToolRefusal) -> [AppleToolSpec] {
        switch choice {
        case .none?: return []
        case .required?, .tool?:
            throw AppleToolRefusal(message: "toolChoice \"\(choice!.text)\" has no Foundation Models equivalent "
                + "(the framework always lets the model decide); use auto or none for the Apple kinds")
        case .auto?, nil: break
        }
        return try tools.map { tool throws(AppleToolRefusal) in
            guard let root = try? JSONDocument(data: Data(tool.parametersText.utf8), file: "parameters").root else {
                throw AppleToolRefusal(message: "tool '\(tool.name)': parameters are not JSON")
            }
            do {
                let schema = try AppleSchema(jsonSchema: JSONValue(root), name: tool.name)
                guard case .object = schema else {
                    throw AppleToolRefusal(message: "tool '\(tool.name)': parameters must be an object schema")
                }
                return AppleToolSpec(name: tool.name, description: tool.description, parameters: schema)
            } catch let error as AppleSchema.ConversionError {
                throw AppleToolRefusal(message: "tool '\(tool.name)' \(error.description)")
            } catch let error as AppleToolRefusal {
                throw error
            } catch {
                throw AppleToolRefusal(message: "tool '\(tool.name)': \(error)")
            }
        }
    }
}

/// Why a request's tools cannot go to Foundation Models; the turn fails with `bad_request`.
package struct AppleToolRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// Answers the framework's calls of the dynamic tools from the canned results. The framework
/// calls `call(arguments:)` itself, possibly several at once for parallel calls of one round, so
/// a round here is a batch of calls that overlap in time: a call that starts when none is in
/// flight opens a new round. After `maxRounds` rounds the next call throws, which ends the
/// `respond` with that error (mapped to `tool_rounds_exceeded`). The transcript stays the record.
package final class AppleToolAnswerer: @unchecked Sendable {
    private let tools: [CannedTool]
    package let maxRounds: Int
    private let lock = NSLock()
    private var inFlight = 0
    private var rounds = 0
    private var exceeded: [String] = []

    package init(tools: [CannedTool], maxRounds: Int?) {
        self.tools = tools
        self.maxRounds = maxRounds ?? GenerationOptions.defaultMaxToolRounds
    }

    /// The rounds begun so far.
    package var roundsBegun: Int { lock.withLock { rounds } }

    /// The calls refused for exceeding `maxRounds`, by tool name.
    package var refusedCalls: [String] { lock.withLock { exceeded } }

    /// The text sent back for a call of `name` with `argumentsJSON` (`GeneratedContent.jsonString`),
    /// or `AppleToolRoundsExceeded` once `maxRounds` rounds have been made. A canned `error` is
    /// returned as text (the model sees the failure), as the other backends send it.
    package func answer(name: String, argumentsJSON: String) throws(AppleToolRoundsExceeded) -> String {
        let refused: Bool = lock.withLock {
            if inFlight == 0 {
                if rounds >= maxRounds { exceeded.append(name); return true }
                rounds += 1
            }
            inFlight += 1
            return false
        }
        if refused { throw AppleToolRoundsExceeded(maxRounds: maxRounds, name: name) }
        defer { lock.withLock { inFlight -= 1 } }
        let call = ToolCall(id: "apple-\(name)", name: name, argumentsText: argumentsJSON)
        return ToolAnswering.answer(call, tools: tools).output.content
    }
}

/// A tool called after `maxToolRounds` rounds on an Apple kind.
package struct AppleToolRoundsExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    package var maxRounds: Int
    package var name: String
    package var description: String {
        "the model called tools in \(maxRounds) rounds and then called again (\(name)); maxToolRounds is \(maxRounds)"
    }
}

/// A session transcript entry as evalbench reads it (`Transcript.Entry`): the framework's
/// `toolCalls` entry (one round: `Transcript.ToolCall` has `id`, `toolName`, `arguments`)
/// and `toolOutput` entry (`id`, `toolName`, text segments); other entries only separate turns.
package enum AppleTranscriptEntry: Sendable, Equatable {
    case prompt
    case toolCalls([AppleTranscriptCall])
    case toolOutput(id: String, name: String, text: String)
    case response
}

/// One `Transcript.ToolCall`: its `id`, `toolName` and `arguments.jsonString`.
package struct AppleTranscriptCall: Sendable, Equatable {
    package var id: String
    package var name: String
    package var argumentsJSON: String

    package init(_ id: String, _ name: String, _ argumentsJSON: String) {
        self.id = id
        self.name = name
        self.argumentsJSON = argumentsJSON
    }
}

/// The last turn's tool calls read back from a transcript.
package enum AppleToolTranscript {
    /// The calls after the last prompt, each `toolCalls` entry a round from 1, with the output
    /// the framework sent back (nil when none followed: the round limit stopped it) and
    /// whether a canned result matched, decided by the same `ToolAnswering` that answered it.
    package static func records(_ entries: [AppleTranscriptEntry], tools: [CannedTool]) -> [ToolCallRecord] {
        let turn = entries.lastIndex(of: .prompt).map { Array(entries[($0 + 1)...]) } ?? entries
        var outputs: [String: String] = [:]
        for case let .toolOutput(id, _, text) in turn { outputs[id] = text }
        var records: [ToolCallRecord] = []
        var round = 0
        for case let .toolCalls(calls) in turn {
            round += 1
            for call in calls {
                let toolCall = ToolCall(id: call.id, name: call.name, argumentsText: call.argumentsJSON)
                let answer = ToolAnswering.answer(toolCall, tools: tools)
                let result = outputs[call.id]
                records.append(ToolCallRecord(round: round, id: call.id, name: call.name, arguments: toolCall.arguments,
                                              argumentsText: toolCall.arguments == nil ? call.argumentsJSON : nil,
                                              result: result, isError: result == nil ? false : answer.output.isError,
                                              matched: result == nil ? false : answer.matched))
            }
        }
        return records
    }

    /// The rounds that called a tool in the last turn.
    package static func rounds(_ entries: [AppleTranscriptEntry]) -> Int {
        let turn = entries.lastIndex(of: .prompt).map { Array(entries[($0 + 1)...]) } ?? entries
        return turn.filter { if case .toolCalls = $0 { true } else { false } }.count
    }
}

extension AppleBackend: ToolTokenCounting {
    /// The model's `tokenCount(for:)` of the dynamic tools (26.4+, `[any Tool]` overload); nil
    /// where the OS has no counter or a tool's schema is outside the subset.
    package func countToolTokens(_ tools: [ToolDefinition]) async -> ToolTokenCount? {
        guard !tools.isEmpty, let specs = try? AppleToolSpec.make(tools, choice: nil),
              let tokens = await driver.tokenCount(of: .tools(specs)) else { return nil }
        return ToolTokenCount(tokens: tokens, method: "counted by the model's tokenCount(for:)")
    }
}
