import Foundation

/// A loaded, validated and fully templated eval suite (`"format": "evalbench.suite/1"`).
public struct Suite: Sendable, Codable, Equatable {
    /// The suite's name, used in result keys and report titles.
    public var name: String
    /// The file the suite was loaded from, as given on the command line.
    public var file: String
    /// The cases in the order written (a dataset's rows, in row order).
    public var cases: [EvalCase]
    /// How many independent times each case runs unless the command line says otherwise.
    public var repeatCount: Int?
    /// What the suite checks, for reports.
    public var description: String?
    /// The reasoning levels the suite runs at unless the command line says otherwise.
    public var reasoning: [ReasoningLevel]?
    /// Prompt variants: each is an axis value of the matrix; none means one variant, `default`.
    public var variants: [PromptVariant] = []
    /// The dataset file its cases came from, if any (watched by `run --watch`).
    public var datasetFile: String?
    /// Latency targets that goodput counts against; nil when the suite declares none.
    public var slo: ServiceLevel?
    /// The suite's own pass-rate and error-rate gates; nil when it declares none.
    public var gates: SuiteGates?
    /// The pass rate a recommended backend's 95% lower bound must reach; nil when not declared.
    public var target: Double?

    /// A suite; `file` is where it was read from, empty for a suite built in Swift.
    public init(name: String, file: String = "", cases: [EvalCase], repeatCount: Int? = nil,
                description: String? = nil, reasoning: [ReasoningLevel]? = nil,
                slo: ServiceLevel? = nil, gates: SuiteGates? = nil, target: Double? = nil) {
        self.target = target
        self.slo = slo
        self.gates = gates
        self.name = name
        self.file = file
        self.cases = cases
        self.repeatCount = repeatCount
        self.description = description
        self.reasoning = reasoning
    }
}

/// One case of a suite: a single prompt, or a conversation of turns run in order on one session.
public struct EvalCase: Sendable, Codable, Equatable {
    /// The case's id, unique in its suite: part of every result key, and `--case`'s value.
    public var id: String
    /// Labels for `--tag` selection and reports.
    public var tags: [String]
    /// Instructions (the system prompt) after templating; the case's own, else the suite's.
    public var instructions: String?
    /// Generation options: the case's merged over the suite's.
    public var options: GenerationOptions
    /// The turns in order; a `prompt` case has exactly one. Each turn's `expect` already
    /// includes the case-level assertions when it is the last turn.
    public var turns: [Turn]
    /// What the case checks, for reports.
    public var description: String?
    /// Structured output the case asks every turn's answer to follow, if any.
    public var output: StructuredOutput?
    /// The weighted score (0…1) the case needs to pass; without one, every assertion must pass.
    public var threshold: Double?
    /// The tools the model may call, with their canned results: the case's own, else the
    /// suite's. A turn's `tools` switch replaces them from that turn on.
    public var tools: [CannedTool]

    /// A case of `turns`; by default untagged, with no instructions, options, schema, threshold or tools.
    public init(id: String, tags: [String] = [], instructions: String? = nil,
                options: GenerationOptions = GenerationOptions(), turns: [Turn],
                description: String? = nil, output: StructuredOutput? = nil, threshold: Double? = nil,
                tools: [CannedTool] = []) {
        self.tools = tools
        self.id = id
        self.tags = tags
        self.instructions = instructions
        self.options = options
        self.turns = turns
        self.description = description
        self.output = output
        self.threshold = threshold
    }

    /// A single-prompt case, as a suite file's `"prompt"` and `"expect"` write it.
    public init(id: String, prompt: String, expect: [Assertion], tags: [String] = [], instructions: String? = nil) {
        self.init(id: id, tags: tags, instructions: instructions, turns: [Turn(prompt: prompt, expect: expect)])
    }

    /// Whether the case is a conversation of more than one turn.
    public var isMultiTurn: Bool { turns.count > 1 }
}

/// One prompt variant of a suite: a name and what it overrides in every case.
public struct PromptVariant: Sendable, Codable, Equatable {
    /// The variant's name, unique in its suite: its results' `variant` and `--variant`'s value.
    public var name: String
    /// Replaces each case's instructions.
    public var instructions: String?
    /// Wraps each turn's prompt: `{{prompt}}` stands for the prompt as written. A suite file's
    /// other `{{name}}`s are filled in from its vars with the prompt, in one pass.
    public var promptTemplate: String?
    /// The values of `promptTemplate`'s other placeholders: the suite file's vars it uses. Kept
    /// apart, not filled in at load, so that a value holding `{{prompt}}` is never taken for
    /// the placeholder.
    package var promptTemplateVars: [String: String]?
    /// Merged over each case's options.
    public var options: GenerationOptions?
    /// Replaces each case's structured output.
    public var output: StructuredOutput?

    /// A variant named `name` that overrides what is given.
    public init(name: String, instructions: String? = nil, promptTemplate: String? = nil,
                options: GenerationOptions? = nil, output: StructuredOutput? = nil) {
        self.name = name
        self.instructions = instructions
        self.promptTemplate = promptTemplate
        self.options = options
        self.output = output
    }

    /// `evalCase` as this variant sends it.
    public func applied(to evalCase: EvalCase) -> EvalCase {
        var result = evalCase
        if let instructions { result.instructions = instructions }
        if let options { result.options = options.merged(over: evalCase.options) }
        if let output { result.output = output }
        if let promptTemplate {
            let template = Template(promptTemplate)
            result.turns = evalCase.turns.map { turn in
                var turn = turn
                turn.prompt = template.filling((promptTemplateVars ?? [:]).merging(["prompt": turn.prompt]) { _, prompt in prompt })
                return turn
            }
        }
        return result
    }
}

/// A case's `output`: the JSON Schema its answers must follow. Each backend kind sends it in
/// its own native form (constrained decoding where the server has it), or in the prompt.
public struct StructuredOutput: Sendable, Codable, Equatable {
    /// The JSON Schema, as written.
    public var schema: JSONValue
    /// A short name for the schema (OpenAI's `json_schema.name`); default `"answer"`.
    public var name: String
    /// The schema as compact JSON text with its keys in the order written: what is sent, so
    /// that a constrained model fills properties in that order (a `reason` before a verdict).
    public var schemaText: String

    /// `schemaText` defaults to the schema with sorted keys; give it to keep another order.
    public init(schema: JSONValue, name: String = "answer", schemaText: String? = nil) {
        self.schema = schema
        self.name = name
        self.schemaText = schemaText ?? JSONWriter.string(schema.foundationObject)
    }
}

/// One user message of a case and the assertions that grade the answer to it.
public struct Turn: Sendable, Codable, Equatable {
    /// The prompt after `{{name}}` templating.
    public var prompt: String
    /// The assertions that grade the answer to this turn; empty when nothing is checked.
    public var expect: [Assertion]
    /// A profile switch from this turn on: other instructions, options, level or backend.
    public var switchTo: TurnSwitch?
    /// How this turn trims the history it sends; later turns still see all of it.
    public var history: HistoryTransform?

    /// A turn sending `prompt`; by default it checks nothing and switches and trims nothing.
    public init(prompt: String, expect: [Assertion] = [], switchTo: TurnSwitch? = nil, history: HistoryTransform? = nil) {
        self.prompt = prompt
        self.expect = expect
        self.switchTo = switchTo
        self.history = history
    }
}

/// What a turn changes for itself and the turns after it (a turn's `instructions`, `options`,
/// `reasoning` and `backend` keys).
public struct TurnSwitch: Sendable, Codable, Equatable {
    /// Replaces the instructions from this turn on.
    public var instructions: String?
    /// Merged over the options in force.
    public var options: GenerationOptions?
    /// The reasoning level from this turn on.
    public var reasoning: ReasoningLevel?
    /// Another configured backend; the conversation continues there with its history.
    public var backend: String?
    /// Where `backend` was written, for the error when no such backend is configured.
    public var backendLocation: SourceLocation?
    /// Replaces the tool set from this turn on (an empty list removes every tool); the
    /// cache section then names "tools changed".
    public var tools: [CannedTool]?

    /// A switch of what is given; nil keeps what is in force.
    public init(instructions: String? = nil, options: GenerationOptions? = nil, reasoning: ReasoningLevel? = nil,
                backend: String? = nil, backendLocation: SourceLocation? = nil, tools: [CannedTool]? = nil) {
        self.tools = tools
        self.instructions = instructions
        self.options = options
        self.reasoning = reasoning
        self.backend = backend
        self.backendLocation = backendLocation
    }

    /// `instructions, backend → review`, for reports.
    public var summary: String {
        var parts: [String] = []
        if instructions != nil { parts.append("instructions") }
        if options != nil { parts.append("options") }
        if tools != nil { parts.append("tools") }
        if let reasoning { parts.append("reasoning → \(reasoning.rawValue)") }
        if let backend { parts.append("backend → \(backend)") }
        return parts.joined(separator: ", ")
    }
}

/// A turn's `history`: which earlier messages it sends.
public struct HistoryTransform: Sendable, Codable, Equatable {
    /// Send only the last N earlier messages (a user prompt and an answer are two).
    public var keepLast: Int?
    /// Drop the oldest earlier messages until the request's estimated input plus its output
    /// limit fits the backend's `contextSize` (`TokenEstimate`'s rule by script).
    public var truncateToFit: Bool
    /// Remove `<think>…</think>` (and `<thinking>…</thinking>`) spans from earlier answers:
    /// reasoning a server left in the answer text (no reasoning parser). Reasoning a server
    /// streamed separately is never sent back.
    public var dropReasoning: Bool

    /// A transform; by default it sends the whole history unchanged.
    public init(keepLast: Int? = nil, truncateToFit: Bool = false, dropReasoning: Bool = false) {
        self.keepLast = keepLast
        self.truncateToFit = truncateToFit
        self.dropReasoning = dropReasoning
    }

    /// `text` without its `<think>` and `<thinking>` spans (an unclosed one runs to the end).
    static func withoutReasoning(_ text: String) -> String {
        var result = text
        for tag in ["think", "thinking"] {
            while let open = result.range(of: "<\(tag)>") {
                let close = result.range(of: "</\(tag)>", range: open.upperBound..<result.endIndex)
                result.removeSubrange(open.lowerBound..<(close?.upperBound ?? result.endIndex))
            }
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `earlier` (the history before the new prompt) as this turn sends it.
    public func apply(to earlier: [ChatMessage], prompt: ChatMessage, instructions: String?,
                      maxOutputTokens: Int?, contextSize: Int?) -> [ChatMessage] {
        var kept = earlier
        if dropReasoning {
            kept = kept.map { message in
                guard message.role == .assistant else { return message }
                var trimmed = message
                trimmed.content = Self.withoutReasoning(message.content)
                return trimmed
            }
        }
        if let keepLast { kept = Array(kept.suffix(max(0, keepLast))) }
        if truncateToFit, let contextSize {
            func estimate(_ messages: [ChatMessage]) -> Int {
                let characters = (instructions?.count ?? 0) + messages.reduce(prompt.content.count) { $0 + $1.content.count }
                return (characters + 3) / 4 + (maxOutputTokens ?? 0)
            }
            while !kept.isEmpty, estimate(kept) > contextSize { kept.removeFirst() }
            // A history that starts with an answer reads oddly to most chat templates.
            if kept.first?.role == .assistant { kept.removeFirst() }
        }
        // Tool results whose calls were cut off are an error to every provider.
        while kept.first?.role == .tool { kept.removeFirst() }
        return kept
    }
}

/// Sampling and length options a case asks for; `nil` leaves the backend's default.
public struct GenerationOptions: Sendable, Codable, Equatable, Hashable {
    /// Sampling temperature, 0 to 2.
    public var temperature: Double?
    /// The most tokens the answer may have, at least 1; Anthropic, which requires a limit, gets
    /// 4096 when nil.
    public var maxOutputTokens: Int?
    /// Nucleus sampling: the probability mass to sample from, above 0 and at most 1.
    public var topP: Double?
    /// A sampling seed, for backends that take one (not Anthropic).
    public var seed: Int?
    /// Sequences that end the answer; a suite may write a single string.
    public var stop: [String]?
    /// Whether and which tool the model must call; nil: `auto`. `required` and a tool's name
    /// hold for a turn's first request; the tool loop's later requests send `auto`.
    public var toolChoice: ToolChoice?
    /// The most rounds of tool calls one turn may make (default 8); a model that calls a tool
    /// again after that many ends the turn with `tool_rounds_exceeded`.
    public var maxToolRounds: Int?

    /// The rounds of tool calls a turn may make when `maxToolRounds` is not given.
    public static let defaultMaxToolRounds = 8

    /// Options; every nil field leaves the backend's default.
    public init(temperature: Double? = nil, maxOutputTokens: Int? = nil, topP: Double? = nil,
                seed: Int? = nil, stop: [String]? = nil, toolChoice: ToolChoice? = nil, maxToolRounds: Int? = nil) {
        self.temperature = temperature
        self.maxOutputTokens = maxOutputTokens
        self.topP = topP
        self.seed = seed
        self.stop = stop
        self.toolChoice = toolChoice
        self.maxToolRounds = maxToolRounds
    }

    /// These options with every unset field taken from `base`.
    public func merged(over base: GenerationOptions) -> GenerationOptions {
        GenerationOptions(
            temperature: temperature ?? base.temperature,
            maxOutputTokens: maxOutputTokens ?? base.maxOutputTokens,
            topP: topP ?? base.topP,
            seed: seed ?? base.seed,
            stop: stop ?? base.stop,
            toolChoice: toolChoice ?? base.toolChoice,
            maxToolRounds: maxToolRounds ?? base.maxToolRounds
        )
    }
}
