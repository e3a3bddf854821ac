import Foundation

/// Reads one streamed Anthropic Messages response.
typealias AnthropicStreamReader = SSEStreamReader<AnthropicStream>

extension SSEStreamReader where Provider == AnthropicStream {
    init(backend: String, stopwatch: Stopwatch) {
        self.init(AnthropicStream(), backend: backend, stopwatch: stopwatch)
    }
}

/// The Messages API's events: content blocks and usage, ended by `message_stop`.
///
/// `firstToken` is the first streamed output of any kind: text, thinking, a redacted
/// thinking block or a tool call. `firstAnswerToken` is the first non-empty `text_delta`.
struct AnthropicStream: SSEProvider {
    private var stopReason: String?
    private var model: String?
    private var usage: AnthropicUsage?
    private var sawMessageStop = false
    /// One decoder for every event of the stream: making one per event costs more than decoding.
    private let decoder = JSONDecoder()

    var sawEnd: Bool { sawMessageStop }

    mutating func handle(_ sse: SSEEvent, at ms: Double, stream: inout StreamProgress) -> BackendFailure? {
        let payload = sse.data.trimmingCharacters(in: .whitespaces)
        // `event: ping` may come with no data at all.
        if payload.isEmpty, sse.event == "ping" { return nil }
        guard let data = payload.data(using: .utf8),
              let event = try? decoder.decode(AnthropicEvent.self, from: data) else {
            return stream.failure(.decoding, "malformed stream event (not a JSON object): \(payload.prefix(120))")
        }
        switch event.type ?? sse.event {
        case "message_start":
            if let model = event.message?.model { self.model = model }
            if let reported = event.message?.usage { record(reported) }
        case "content_block_start":
            startBlock(event.contentBlock, at: ms, stream: &stream)
        case "content_block_delta":
            apply(event.delta, at: ms, stream: &stream)
        case "message_delta":
            if let reason = event.delta?.stopReason { stopReason = reason }
            if let reported = event.usage { record(reported) }
        case "message_stop":
            sawMessageStop = true
        case "error":
            let type = event.error?.type
            let message = event.error?.message ?? type ?? "unknown"
            let (kind, what) = HTTPFailureClassifier.anthropicKind(status: nil, type: type, message: message)
            return stream.failure(kind, "error event in the stream (\(what)): \(message.prefix(300))")
        default:
            // content_block_stop, ping, and event types added after this was written.
            break
        }
        return nil
    }

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
            let said = stream.text.isEmpty ? "" : " after \"\(stream.text.prefix(200))\""
            return .failure(stream.failure(.refusal, "the model refused (stop_reason refusal)\(said)"))
        case "model_context_window_exceeded":
            return .failure(stream.failure(.contextOverflow, "the model's context window filled up while generating (stop_reason model_context_window_exceeded)"))
        default:
            break
        }
        guard sawMessageStop else {
            return .failure(stream.failure(.network, "the stream ended mid-stream, before message_stop"))
        }
        return .success(stream.response(usage: AnthropicUsageNormaliser.usage(usage), finishReason: stopReason, model: model))
    }
}
