import Foundation

/// Reads one streamed Anthropic Messages response: status, SSE events, content blocks and
/// usage, with timestamps taken when each piece of bytes arrived.
///
/// `firstToken` is the first streamed output of any kind: text, thinking, a redacted
/// thinking block or a tool call. `firstAnswerToken` is the first non-empty `text_delta`.
struct AnthropicStreamReader: StreamReading {
    let backend: String
    let stopwatch: Stopwatch
    private var status: Int?
    private var headers: [String: String] = [:]
    private var errorBody = Data()
    private var parser = SSEParser()
    private var text = ""
    private var reasoning = ""
    private var firstTokenMs: Double?
    private var firstAnswerTokenMs: Double?
    private var lastByteMs: Double?
    private var stopReason: String?
    private var model: String?
    private var usage: AnthropicUsage?
    private var sawMessageStop = false
    /// One decoder for every event of the stream: making one per event costs more than decoding.
    private let decoder = JSONDecoder()

    init(backend: String, stopwatch: Stopwatch) {
        self.backend = backend
        self.stopwatch = stopwatch
    }

    /// Takes one transport event; returns a failure when the response has failed for good.
    mutating func consume(_ event: HTTPStreamEvent) -> BackendFailure? {
        switch event {
        case let .response(status, headers):
            self.status = status
            self.headers = headers
            return nil
        case let .bytes(data, receivedAtNanos):
            let at = stopwatch.ms(atNanos: receivedAtNanos)
            lastByteMs = at
            guard let status, (200..<300).contains(status) else {
                errorBody.append(data)
                return nil
            }
            for sse in parser.feed(data) {
                if let failure = handle(sse, at: at) { return failure }
            }
            return nil
        }
    }

    private mutating func handle(_ sse: SSEEvent, at ms: Double) -> BackendFailure? {
        let payload = sse.data.trimmingCharacters(in: .whitespaces)
        // `event: ping` may come with no data at all.
        if payload.isEmpty, sse.event == "ping" { return nil }
        guard let data = payload.data(using: .utf8),
              let event = try? decoder.decode(AnthropicEvent.self, from: data) else {
            return failure(.decoding, "malformed stream event (not a JSON object): \(payload.prefix(120))")
        }
        switch event.type ?? sse.event {
        case "message_start":
            if let model = event.message?.model { self.model = model }
            if let reported = event.message?.usage { record(reported) }
        case "content_block_start":
            startBlock(event.contentBlock, at: ms)
        case "content_block_delta":
            apply(event.delta, at: ms)
        case "message_delta":
            if let reason = event.delta?.stopReason { stopReason = reason }
            if let reported = event.usage { record(reported) }
        case "message_stop":
            sawMessageStop = true
        case "error":
            let type = event.error?.type
            let message = event.error?.message ?? type ?? "unknown"
            let (kind, what) = HTTPFailureClassifier.anthropicKind(status: nil, type: type, message: message)
            return failure(kind, "error event in the stream (\(what)): \(message.prefix(300))")
        default:
            // content_block_stop, ping, and event types added after this was written.
            break
        }
        return nil
    }

    private mutating func record(_ reported: AnthropicUsage) {
        usage = usage?.updated(by: reported) ?? reported
    }

    private mutating func startBlock(_ block: AnthropicEvent.ContentBlock?, at ms: Double) {
        switch block?.type {
        case "text":
            appendText(block?.text ?? "", at: ms)
        case "thinking":
            appendReasoning(block?.thinking ?? "", at: ms)
        case "redacted_thinking", "tool_use", "server_tool_use":
            // Generated output that arrives whole (redacted) or names the tool being called.
            markFirstToken(at: ms)
        default:
            break
        }
    }

    private mutating func apply(_ delta: AnthropicEvent.Delta?, at ms: Double) {
        switch delta?.type {
        case "text_delta":
            appendText(delta?.text ?? "", at: ms)
        case "thinking_delta":
            appendReasoning(delta?.thinking ?? "", at: ms)
        case "input_json_delta":
            if delta?.partialJSON?.isEmpty == false { markFirstToken(at: ms) }
        default:
            // signature_delta carries no output.
            break
        }
    }

    private mutating func appendText(_ piece: String, at ms: Double) {
        guard !piece.isEmpty else { return }
        text += piece
        markFirstToken(at: ms)
        if firstAnswerTokenMs == nil { firstAnswerTokenMs = ms }
    }

    private mutating func appendReasoning(_ piece: String, at ms: Double) {
        guard !piece.isEmpty else { return }
        reasoning += piece
        markFirstToken(at: ms)
    }

    private mutating func markFirstToken(at ms: Double) {
        if firstTokenMs == nil { firstTokenMs = ms }
    }

    private func timing() -> RequestTiming {
        RequestTiming(startedAt: stopwatch.startedAt, firstTokenMs: firstTokenMs,
                      firstAnswerTokenMs: firstAnswerTokenMs, endMs: lastByteMs ?? stopwatch.ms())
    }

    private func failure(_ kind: ErrorKind, _ message: String) -> BackendFailure {
        BackendFailure(kind: kind, message: "\(backend): \(message)", httpStatus: status, timing: timing())
    }

    /// A transport failure, with the measurements so far attached.
    func failing(_ failure: BackendFailure) -> BackendFailure {
        var failure = failure
        if failure.timing == nil, status != nil { failure.timing = timing() }
        if failure.kind == .network, status != nil, !sawMessageStop {
            failure.message += " (the connection ended mid-stream)"
        }
        return failure
    }

    /// The response once the stream has ended normally.
    mutating func finish() -> Result<ModelResponse, BackendFailure> {
        guard let status else {
            return .failure(failure(.network, "the server closed the connection without a response"))
        }
        guard (200..<300).contains(status) else {
            return .failure(HTTPFailureClassifier.anthropic(status: status, headers: headers, body: errorBody, backend: backend))
        }
        for sse in parser.finish() {
            if let failure = handle(sse, at: lastByteMs ?? stopwatch.ms()) { return .failure(failure) }
        }
        switch stopReason {
        case "refusal":
            let said = text.isEmpty ? "" : " after \"\(text.prefix(200))\""
            return .failure(failure(.refusal, "the model refused (stop_reason refusal)\(said)"))
        case "model_context_window_exceeded":
            return .failure(failure(.contextOverflow, "the model's context window filled up while generating (stop_reason model_context_window_exceeded)"))
        default:
            break
        }
        guard sawMessageStop else {
            return .failure(failure(.network, "the stream ended mid-stream, before message_stop"))
        }
        return .success(ModelResponse(
            text: text, reasoningText: reasoning.isEmpty ? nil : reasoning, timing: timing(),
            usage: AnthropicUsageNormaliser.usage(usage), finishReason: stopReason, model: model))
    }
}
