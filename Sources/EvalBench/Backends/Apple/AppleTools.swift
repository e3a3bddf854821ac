import Foundation

/// The platform-free half of the Apple kinds' tool path. With Foundation Models the framework
/// runs the tool loop inside one `respond` call: it calls each dynamic `Tool`'s `call(arguments:)`
/// and asks the model again. So evalbench (1) converts each tool's JSON Schema to the
/// `DynamicGenerationSchema` its `parameters` are built from, (2) maps `toolChoice` (the
/// framework has no equivalent of `required` or a named tool), (3) answers each call from the
/// canned results with the same `ToolAnswering` the runner's tool loop uses, stopping after
/// `maxToolRounds`, and (4) records each call as a `ToolCallRecord` with its round, which the
/// response carries as `handledToolCalls`: the runner records and grades them and answers none.
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

/// Answers the framework's calls of a session's dynamic tools from the request's canned
/// results, and keeps the record of every call. The framework calls `call(arguments:)` itself,
/// so the round of a call comes from the session's transcript (its `toolCalls` entries since the
/// last prompt), read when the call comes. Where the transcript cannot be read, a round is a
/// batch of calls that overlap in time: a call that starts when none is in flight opens one. After
/// `maxRounds` rounds the next call throws, which ends the `respond` with that error (the turn
/// fails with `tool_rounds_exceeded`). One answerer serves every session of a conversation, one
/// request at a time: `begin` starts each request.
package final class AppleToolAnswerer: @unchecked Sendable {
    // @unchecked: every mutable field is only touched under `lock`.
    private let lock = NSLock()
    private var tools: [CannedTool]
    private var limit: Int
    private var inFlight = 0
    private var rounds = 0
    private var log: [ToolCallRecord] = []
    private var exceeded: [String] = []
    private var transcriptRounds: (@Sendable () -> [[String]]?)?

    package init(tools: [CannedTool] = [], maxRounds: Int? = nil) {
        self.tools = tools
        limit = maxRounds ?? GenerationOptions.defaultMaxToolRounds
    }

    /// Starts a request: its canned tools and round limit, and the session's `toolCallEntries`
    /// that give each call its round; the last request's calls are forgotten.
    package func begin(tools: [CannedTool], maxRounds: Int?, transcript: (@Sendable () -> [[String]]?)? = nil) {
        lock.withLock {
            transcriptRounds = transcript
            self.tools = tools
            limit = maxRounds ?? GenerationOptions.defaultMaxToolRounds
            inFlight = 0
            rounds = 0
            log = []
            exceeded = []
        }
    }

    /// The round limit of the current request.
    package var maxRounds: Int { lock.withLock { limit } }

    /// The rounds begun so far.
    package var roundsBegun: Int { lock.withLock { rounds } }

    /// The calls refused for exceeding `maxRounds`, by tool name.
    package var refusedCalls: [String] { lock.withLock { exceeded } }

    /// Every call of the current request in the order it came, answered or refused.
    package var records: [ToolCallRecord] { lock.withLock { log } }

    /// The text sent back for a call of `name` with `argumentsJSON` (`GeneratedContent.jsonString`),
    /// or `AppleToolRoundsExceeded` once `maxRounds` rounds have been made. A canned `error` is
    /// returned as text (the model sees the failure), as the other backends send it.
    package func answer(name: String, argumentsJSON: String) throws(AppleToolRoundsExceeded) -> String {
        // Read outside the lock: the transcript is the framework's. The entry of the call's own
        // round may or may not be there yet when the call comes: it is when the last entry names
        // the tool and has calls of that name not answered yet.
        let entries = lock.withLock { transcriptRounds }?()
        let (round, index, refused): (Int, Int, Bool) = lock.withLock {
            if let entries {
                let answered = log.filter { $0.round == entries.count && $0.name == name }.count
                let inLast = entries.last?.filter { $0 == name }.count ?? 0
                let fromTranscript = answered < inLast ? entries.count : entries.count + 1
                rounds = max(rounds, fromTranscript)
                if fromTranscript > limit {
                    exceeded.append(name)
                    return (fromTranscript, log.count, true)
                }
                inFlight += 1
                return (fromTranscript, log.count, false)
            }
            if inFlight == 0 {
                if rounds >= limit {
                    exceeded.append(name)
                    return (rounds + 1, log.count, true)
                }
                rounds += 1
            }
            inFlight += 1
            return (rounds, log.count, false)
        }
        let call = ToolCall(id: "apple-\(round)-\(index + 1)", name: name, argumentsText: argumentsJSON)
        if refused {
            lock.withLock { log.append(ToolCallRecord(call, round: round, answer: nil)) }
            throw AppleToolRoundsExceeded(maxRounds: limit, name: name)
        }
        let answer = ToolAnswering.answer(call, tools: lock.withLock { tools })
        lock.withLock {
            log.append(ToolCallRecord(call, round: round, answer: answer))
            inFlight -= 1
        }
        return answer.output.content
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

extension AppleBackend: ToolTokenCounting {
    /// The model's `tokenCount(for:)` of the dynamic tools (26.4+, `[any Tool]` overload); nil
    /// where the OS has no counter or a tool's schema is outside the subset.
    package func countToolTokens(_ tools: [ToolDefinition]) async -> ToolTokenCount? {
        guard !tools.isEmpty, let specs = try? AppleToolSpec.make(tools, choice: nil),
              let tokens = await driver.tokenCount(of: .tools(specs)) else { return nil }
        return ToolTokenCount(tokens: tokens, method: "counted by the model's tokenCount(for:)")
    }
}
