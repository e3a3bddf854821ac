import Foundation

/// A model backend: one configured server, provider or on-device model.
///
/// A backend kind (`BackendKind`) makes its backends; an app may also pass backends of its own.
public protocol Backend: Sendable {
    /// The backend's name, unique in a run: the config's `name`, or the caller's own for a
    /// backend passed in. Results, reports and `--backend` name it so.
    var name: String { get }
    /// The kind's name for run.json and reports (`openai`, `apple-pcc`, …).
    var kind: String { get }
    /// The model name for reports, when known before the first request.
    var model: String? { get }
    /// The largest number of this backend's requests in flight at once.
    var concurrency: Int { get }

    /// Makes the backend ready (starts a managed server, checks the device). Returns the
    /// reason when it cannot be used: results of an `unavailable` backend are `unavailable`
    /// errors; those of one `unavailableHere` are skipped with the reason.
    func prepare() async -> Availability

    /// How the backend sends each reasoning level, or why it cannot; for plans and reports.
    func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport

    /// How the backend sends a case's `output` schema, for reports: `native (…)` or `in the prompt`.
    var structuredOutputSupport: String { get }

    /// Starts a conversation; turns of one case are sent on one conversation, in order.
    func startConversation() async -> any Conversation

    /// Releases everything `prepare` acquired (stops a managed server). Safe to call twice.
    func shutdown() async

    /// Stops at once, synchronously, what `prepare` started, for a signal handler about to
    /// exit (kills a managed server). Kinds that start nothing keep the default, which does nothing.
    func terminateImmediately()
}

/// What a backend that says nothing more is: a kind named `custom`, no model name before the
/// first answer, one request at a time, always available, reasoning level `none` only, the
/// `output` schema not sent natively, and nothing to prepare or stop. A backend of one's own
/// needs only `name` and `startConversation()`.
extension Backend {
    /// Default: `custom`.
    public var kind: String { "custom" }
    /// Default: nil; the model a response reports is recorded instead.
    public var model: String? { nil }
    /// Default: 1, one request at a time.
    public var concurrency: Int { 1 }
    /// Default: always `available`, with nothing to prepare.
    public func prepare() async -> Availability { .available }
    /// Default: level `none` is supported, every other level unsupported (its results skipped).
    public func reasoningSupport(_ level: ReasoningLevel) -> ReasoningSupport {
        level == .none ? .supported("no reasoning requested") : .unsupported("backend '\(name)' does not say how it reasons")
    }
    /// Default: the schema is not sent natively, as far as evalbench knows.
    public var structuredOutputSupport: String { "not sent natively (the backend does not say)" }
    /// Default: nothing to release.
    public func shutdown() async {}
    /// Nothing to stop.
    public func terminateImmediately() {}
}

/// One session with a backend; HTTP backends keep no state, on-device ones reuse a session.
public protocol Conversation: Sendable {
    /// Sends one request (the whole history so far plus the new prompt) and waits for the
    /// streamed answer. Failures are returned as `BackendFailure`, never thrown.
    func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure>
}

/// Whether a backend can be used, and why not.
public enum Availability: Sendable, Equatable {
    case available
    /// It should work here but does not (a server that will not start, a model not ready):
    /// an infrastructure failure, exit code 3.
    case unavailable(String)
    /// This platform or device cannot run it at all (FoundationModels on Linux, PCC before
    /// OS 27): its case runs are skipped with the reason, and the other backends' gate holds.
    case unavailableHere(String)
}

/// How a backend honours a reasoning level.
public enum ReasoningSupport: Sendable, Equatable {
    /// Sent as described, e.g. `reasoning_effort: "low"`.
    case supported(String)
    /// Not possible here; results at this level are `skipped` with this reason.
    case unsupported(String)
}

/// A role in a chat history.
public enum ChatRole: String, Sendable, Codable {
    /// Instructions within the history.
    case system
    /// A user prompt.
    case user
    /// A model's answer, with the tool calls it made (`ChatMessage.toolCalls`).
    case assistant
    /// The results evalbench sent back for one round of tool calls (`ChatMessage.toolOutputs`).
    case tool
}

/// One message of a chat history.
public struct ChatMessage: Sendable, Codable, Equatable {
    /// Who wrote the message.
    public var role: ChatRole
    /// The message text; for a `tool` message, the results in words, for backends that read only text.
    public var content: String
    /// An `assistant` message's tool calls, in the order the model made them; empty otherwise.
    public var toolCalls: [ToolCall]
    /// A `tool` message's results, one per call of the round before it; empty otherwise.
    public var toolOutputs: [ToolOutput]

    /// A message from `role` with `content`, and for a tool round its calls or their results.
    public init(role: ChatRole, content: String, toolCalls: [ToolCall] = [], toolOutputs: [ToolOutput] = []) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolOutputs = toolOutputs
    }

    enum CodingKeys: String, CodingKey {
        case role, content
        case toolCalls = "tool_calls"
        case toolOutputs = "tool_outputs"
    }

    /// Messages recorded before tool calls existed read with none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(ChatRole.self, forKey: .role)
        content = try container.decode(String.self, forKey: .content)
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolOutputs = try container.decodeIfPresent([ToolOutput].self, forKey: .toolOutputs) ?? []
    }

    /// Writes `tool_calls` and `tool_outputs` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        if !toolOutputs.isEmpty { try container.encode(toolOutputs, forKey: .toolOutputs) }
    }
}

/// Everything one request to a backend carries.
public struct ModelRequest: Sendable, Equatable {
    /// The instructions (system prompt); nil when there are none.
    public var instructions: String?
    /// The history so far and, last, the new user prompt.
    public var messages: [ChatMessage]
    /// Sampling and length options; a nil field leaves the backend's default.
    public var options: GenerationOptions
    /// The reasoning level to send; the backend maps it to its own fields (`reasoningSupport`).
    public var reasoning: ReasoningLevel
    /// From handing the request to the transport to the end of the stream.
    public var timeoutSeconds: Double
    /// The JSON Schema the answer must follow, if the case has one.
    public var output: StructuredOutput?
    /// Which request of the run this is (suite, case, variant, level, repeat, turn); a replay
    /// backend answers by it, others ignore it.
    public var origin: RequestOrigin?
    /// The tools the model may call, in the order declared; `options.toolChoice` says whether
    /// it must. Empty when the case declares none.
    public var tools: [ToolDefinition]
    /// Counts from 1: which request of the turn's tool loop this is (round 2 carries round 1's
    /// calls and their results at the end of `messages`).
    public var round: Int
    /// The tools of `tools` with their canned results, for a backend that runs the tool loop
    /// itself (Foundation Models calls a session's tools inside one `respond`): it answers the
    /// calls from these (`CannedTool`) and reports them in `ModelResponse.handledToolCalls`.
    /// Every other backend returns the calls and leaves the loop to the runner.
    public var cannedTools: [CannedTool]

    /// A request; by default at level `none`, with a 120 s timeout, no output schema, no origin
    /// and no tools.
    public init(instructions: String?, messages: [ChatMessage], options: GenerationOptions,
                reasoning: ReasoningLevel = .none, timeoutSeconds: Double = 120, output: StructuredOutput? = nil,
                origin: RequestOrigin? = nil, tools: [ToolDefinition] = [], round: Int = 1, cannedTools: [CannedTool] = []) {
        self.origin = origin
        self.tools = tools
        self.round = round
        self.cannedTools = cannedTools
        self.instructions = instructions
        self.messages = messages
        self.options = options
        self.reasoning = reasoning
        self.timeoutSeconds = timeoutSeconds
        self.output = output
    }
}

/// A finished, streamed answer with its measurements.
public struct ModelResponse: Sendable, Equatable {
    /// The visible answer text.
    public var text: String
    /// Reasoning text the backend streamed, if any.
    public var reasoningText: String?
    /// When the request started, and its first-token, first-answer-token and end offsets in ms.
    public var timing: RequestTiming
    /// Tokens as the backend reported, counted or estimated them (see `source`); a figure not
    /// reported is nil, never 0.
    public var usage: Usage
    /// The backend's stop reason as it reported it (`stop`, `length`, …).
    public var finishReason: String?
    /// The model name the backend reported.
    public var model: String?
    /// Quota, fallback and session state, for backends that observe them.
    public var details: RequestDetails?
    /// Where a replayed answer came from (`results.jsonl` path and the recorded key); nil when
    /// the answer was generated now.
    public var replayedFrom: String?
    /// The tools the model called, in the order it called them; empty when it answered without
    /// one. The runner answers them and asks again (the tool loop).
    public var toolCalls: [ToolCall]
    /// Calls the backend answered itself within this one request, with their rounds from 1 and
    /// what was sent back (a backend that runs the tool loop itself, as Foundation Models does).
    /// The runner records and grades them as its own loop's calls and answers none of them.
    public var handledToolCalls: [ToolCallRecord]

    /// A response; only the text, timing and usage are required.
    public init(text: String, reasoningText: String? = nil, timing: RequestTiming, usage: Usage,
                finishReason: String? = nil, model: String? = nil, details: RequestDetails? = nil,
                replayedFrom: String? = nil, toolCalls: [ToolCall] = [], handledToolCalls: [ToolCallRecord] = []) {
        self.toolCalls = toolCalls
        self.handledToolCalls = handledToolCalls
        self.replayedFrom = replayedFrom
        self.text = text
        self.reasoningText = reasoningText
        self.timing = timing
        self.usage = usage
        self.finishReason = finishReason
        self.model = model
        self.details = details
    }
}
