import Foundation

/// Reads one streamed Anthropic Messages response.
typealias AnthropicStreamReader = SSEStreamReader<AnthropicStream>

extension SSEStreamReader where Provider == AnthropicStream {
    init(backend: String, stopwatch: Stopwatch) {
        self.init(AnthropicStream(), backend: backend, stopwatch: stopwatch)
    }
}

/// The Messages API's events, in the order Anthropic documents: `message_start`, content
/// blocks, `message_delta` with the `stop_reason` and final usage, `message_stop`; `ping` and
/// `error` may come at any point.
///
/// A stream that breaks that order (content before `message_start` or after the stop reason,
/// `message_stop` with no stop reason) is a `decoding` failure; one that ends before a stop
/// reason is a truncated (`network`) failure, never an empty answer. Once the stop reason and
/// the final usage have arrived the message is complete, so a missing `message_stop` (a last
/// event discarded because no blank line ended it) loses nothing.
///
/// `firstToken` is the first streamed output of any kind: text, thinking, a redacted
/// thinking block or a tool call. `firstAnswerToken` is the first non-empty `text_delta`.
struct AnthropicStream: SSEProvider {
    /// Where the stream is in the documented order.
    enum Phase: Equatable {
        case awaitingStart, inMessage, stopReasonReceived, stopped
    }

    private var phase = Phase.awaitingStart
    private var stopReason: String?
    private var model: String?
    private var usage: AnthropicUsage?
    /// The `tool_use` blocks so far, by block index, with their `input_json_delta` fragments joined.
    private var toolUses: [(index: Int?, call: ToolCall)] = []
    /// The thinking and redacted-thinking blocks, which must go back before the tool calls
    /// they led to when thinking is on.
    private var thinkingBlocks: [(index: Int?, block: [String: String])] = []

    var sawEnd: Bool { phase == .stopped }

    mutating func handle(_ sse: SSEEvent, at ms: Double, stream: inout StreamProgress) -> BackendFailure? {
        let payload = sse.data.trimmingWhitespace()
        // `event: ping` may come with no data at all.
        if payload.isEmpty, sse.event == "ping" { return nil }
        let data = Data(payload.utf8)
        guard let event = try? decoder.decode(AnthropicEvent.self, from: data) else {
            return malformed(payload, data, named: sse.event, stream: stream)
        }
        let type = event.type ?? sse.event ?? ""
        if let misplaced = outOfOrder(type) {
            return stream.failure(.decoding, "the stream broke the Messages event order: \(misplaced)")
        }
        switch type {
        case "message_start":
            phase = .inMessage
            if let model = event.message?.model { self.model = model }
            if let reported = event.message?.usage { record(reported) }
        case "content_block_start":
            startBlock(event.contentBlock, at: ms, stream: &stream)
            if event.contentBlock?.type == "thinking" {
                thinkingBlocks.append((event.index, ["type": "thinking", "thinking": event.contentBlock?.thinking ?? "", "signature": ""]))
            } else if event.contentBlock?.type == "redacted_thinking" {
                thinkingBlocks.append((event.index, ["type": "redacted_thinking", "data": event.contentBlock?.data ?? ""]))
            }
            if event.contentBlock?.type == "tool_use" {
                toolUses.append((event.index, ToolCall(id: event.contentBlock?.id ?? "toolu_\(toolUses.count + 1)",
                                                      name: event.contentBlock?.name ?? "", argumentsText: "")))
            }
        case "content_block_delta":
            apply(event.delta, at: ms, stream: &stream)
            if event.delta?.type == "input_json_delta", let fragment = event.delta?.partialJSON,
               let position = toolUses.lastIndex(where: { $0.index == event.index }) {
                toolUses[position].call.argumentsText += fragment
            }
            if let position = thinkingBlocks.lastIndex(where: { $0.index == event.index }) {
                if let piece = event.delta?.thinking { thinkingBlocks[position].block["thinking", default: ""] += piece }
                if let piece = event.delta?.signature { thinkingBlocks[position].block["signature", default: ""] += piece }
            }
        case "message_delta":
            if let reason = event.delta?.stopReason {
                stopReason = reason
                phase = .stopReasonReceived
            }
            if let reported = event.usage { record(reported) }
        case "message_stop":
            phase = .stopped
        case "error":
            let type = event.error?.type
            let message = event.error?.message ?? type ?? "unknown"
            let (kind, what) = HTTPFailureClassifier.anthropicKind(status: nil, type: type, message: message)
            return stream.failure(kind, "error event in the stream (\(what)): \(ServerText.clip(message, 300))")
        default:
            // content_block_stop, ping, and event types added after this was written.
            break
        }
        return nil
    }

    /// The failure of an event that could not be read. One that is a JSON object with a member
    /// of the wrong kind (`"message": "hi"`, `"delta": 5`, `"delta": {"text": 5}`) is the
    /// server's doing, every time: `bad_request`, as the transports class a response the server
    /// shaped wrongly (its HTTP framing, a page instead of an event stream). So it is not
    /// retried, and `--resume` sends it again. The message names the event and the member but
    /// not the value, which could be anything the server echoed.
    private func malformed(_ payload: String, _ data: Data, named name: String?, stream: StreamProgress) -> BackendFailure {
        guard let member = MistypedMember.first(in: data, as: AnthropicEvent.self, decoder: decoder) else {
            return stream.failure(.decoding, "malformed stream event (not a JSON object): \(ServerText.clip(payload, 120))")
        }
        struct Named: Decodable { var type: String? }
        let type = (try? decoder.decode(Named.self, from: data))?.type ?? name
        let event = type.map { "\(ServerText.clip($0, 40)) event" } ?? "event"
        let what = member.expected.map { "is \(member.found) where the Messages API sends \($0)" }
            ?? "is \(member.found) that could not be read as the Messages API sends it"
        return stream.failure(.badRequest, "malformed \(event) in the stream: its \(member.path) \(what); "
                              + "check that baseURL is a Messages API server and that nothing between rewrites its events")
    }

    /// What is wrong with an event of `type` arriving now, or nil when it may.
    private func outOfOrder(_ type: String) -> String? {
        switch (type, phase) {
        case ("ping", _), ("error", _):
            return nil
        case ("message_start", .awaitingStart):
            return nil
        case ("message_start", _):
            return "a second message_start"
        case (_, .stopped) where Self.messageEvents.contains(type):
            return "\(type) after message_stop"
        case (_, .awaitingStart) where Self.messageEvents.contains(type):
            return "\(type) before message_start"
        case ("message_stop", .inMessage):
            return "message_stop before a message_delta with a stop_reason"
        case (_, .stopReasonReceived) where type.hasPrefix("content_block"):
            return "\(type) after the stop_reason"
        default:
            return nil
        }
    }

    private static let messageEvents: Set = ["content_block_start", "content_block_delta", "content_block_stop",
                                             "message_delta", "message_stop"]

    private mutating func record(_ reported: AnthropicUsage) {
        usage = usage?.updated(by: reported) ?? reported
    }

    private func startBlock(_ block: AnthropicEvent.ContentBlock?, at ms: Double, stream: inout StreamProgress) {
        switch block?.type {
        case "text":
            stream.appendAnswer(block?.text ?? "", at: ms)
        case "thinking":
            stream.appendReasoning(block?.thinking ?? "", at: ms)
        case "redacted_thinking", "tool_use", "server_tool_use":
            // Generated output that arrives whole (redacted) or names the tool being called.
            stream.markFirstToken(at: ms)
        default:
            break
        }
    }

    private func apply(_ delta: AnthropicEvent.Delta?, at ms: Double, stream: inout StreamProgress) {
        switch delta?.type {
        case "text_delta":
            stream.appendAnswer(delta?.text ?? "", at: ms)
        case "thinking_delta":
            stream.appendReasoning(delta?.thinking ?? "", at: ms)
        case "input_json_delta":
            if delta?.partialJSON?.isEmpty == false { stream.markFirstToken(at: ms) }
        default:
            // signature_delta carries no output.
            break
        }
    }

    func httpFailure(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        HTTPFailureClassifier.anthropic(status: status, headers: headers, body: body, backend: backend)
    }

    func finish(_ stream: StreamProgress) -> Result<ModelResponse, BackendFailure> {
        switch stopReason {
        case "refusal":
            let said = stream.text.isEmpty ? "" : " after \"\(ServerText.clip(stream.text, 200))\""
            return .failure(stream.failure(.refusal, "the model refused (stop_reason refusal)\(said)"))
        case "model_context_window_exceeded":
            return .failure(stream.failure(.contextOverflow, "the model's context window filled up while generating (stop_reason model_context_window_exceeded)"))
        default:
            break
        }
        guard phase == .stopReasonReceived || phase == .stopped else {
            let before = phase == .awaitingStart ? "before message_start" : "before a message_delta with a stop_reason"
            return .failure(stream.failure(.network, "the stream ended mid-stream (truncated), \(before)"))
        }
        // The model said it called a tool, and no call came: a broken stream, not an answer.
        if stopReason == "tool_use" && toolUses.isEmpty {
            return .failure(stream.failure(.decoding, "the stream's stop_reason is tool_use, but it held no tool_use block"))
        }
        var response = stream.response(usage: AnthropicUsageNormaliser.usage(usage), finishReason: stopReason, model: model)
        response.toolCalls = ToolCall.withUniqueIDs(toolUses.map(\.call)) { "toolu_\($0 + 1)" }
        if !response.toolCalls.isEmpty, !thinkingBlocks.isEmpty {
            // Carried on the first call, as the opaque data the API wants back with it.
            response.toolCalls[0].signature = JSONWriter.string(thinkingBlocks.map(\.block))
        }
        return .success(response)
    }
}

extension AnthropicStream {
    /// The usage of `message_start` and any `message_delta` so far, for a failure to keep: a
    /// refused request is billed for its input and what it generated.
    var reportedUsage: Usage? { usage.map { AnthropicUsageNormaliser.usage($0) } }
}
