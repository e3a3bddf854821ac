import Foundation

/// Reads one streamed Chat Completions response.
typealias OpenAIStreamReader = SSEStreamReader<OpenAIStream>

extension SSEStreamReader where Provider == OpenAIStream {
    init(backend: String, stopwatch: Stopwatch) {
        self.init(OpenAIStream(backend: backend), backend: backend, stopwatch: stopwatch)
    }
}

/// The Chat Completions events: JSON chunks of deltas, usage (and llama.cpp's `timings`),
/// ended by `[DONE]`. The answer is choice 0's; the usage is the whole request's, every
/// choice included, as the API reports and bills it.
struct OpenAIStream: SSEProvider {
    let backend: String
    private var finishReason: String?
    private var refusal: String?
    private var model: String?
    private var usage: OpenAIUsage?
    private var timings: LlamaTimings?
    private var sawDone = false
    private var toolCalls = OpenAIToolCallAccumulator()

    init(backend: String) {
        self.backend = backend
    }

    var sawEnd: Bool { sawDone }

    mutating func handle(_ event: SSEEvent, at ms: Double, stream: inout StreamProgress) -> BackendFailure? {
        let payload = event.data.trimmingWhitespace()
        if payload == "[DONE]" {
            sawDone = true
            return nil
        }
        guard let chunk = OpenAIChunk.fromBytes(payload, nested: decoder)
                ?? (try? decoder.decode(OpenAIChunk.self, from: Data(payload.utf8))) else {
            return stream.failure(.decoding, "malformed stream event (not a JSON chunk): \(ServerText.clip(payload, 120))")
        }
        if let error = chunk.error {
            let body = (try? JSONSerialization.data(withJSONObject: ["error": ["message": error.message ?? "", "type": error.type ?? "", "code": error.code ?? ""]])) ?? Data()
            let status = Int(error.code ?? "") ?? 500
            var classified = HTTPFailureClassifier.openAI(status: status, headers: stream.headers, body: body, backend: backend)
            classified.message = "\(backend): error event in the stream: \(error.message ?? error.type ?? "unknown")"
            classified.timing = stream.timing()
            return classified
        }
        if let model = chunk.model { self.model = model }
        if let usage = chunk.usage { self.usage = usage }
        if let timings = chunk.timings { self.timings = timings }
        // Only choice 0 is recorded: with `n` > 1 (or a server that sends several anyway) the
        // other choices' deltas interleave with it and would garble the answer.
        for choice in chunk.choices ?? [] where (choice.index ?? 0) == 0 {
            if let reason = choice.finishReason { finishReason = reason }
            guard let delta = choice.delta else { continue }
            stream.appendReasoning((delta.reasoningContent ?? "") + (delta.reasoning ?? ""), at: ms)
            stream.appendAnswer(delta.content ?? "", at: ms)
            if let refusal = delta.refusal, !refusal.isEmpty {
                self.refusal = (self.refusal ?? "") + refusal
                stream.markFirstToken(at: ms)
            }
            if let pieces = delta.toolCalls, !pieces.isEmpty {
                stream.markFirstToken(at: ms)
                toolCalls.add(pieces)
            }
        }
        return nil
    }

    func httpFailure(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        HTTPFailureClassifier.openAI(status: status, headers: headers, body: body, backend: backend)
    }

    func finish(_ stream: StreamProgress) -> Result<ModelResponse, BackendFailure> {
        if let refusal, stream.text.isEmpty {
            return .failure(stream.failure(.refusal, "the model refused: \(ServerText.clip(refusal, 200))"))
        }
        if finishReason == "content_filter" {
            return .failure(stream.failure(.guardrail, "the answer was stopped by the content filter"))
        }
        if !sawDone && finishReason == nil {
            return .failure(stream.failure(.network, "the stream ended before a finish reason or [DONE]"))
        }
        var response = stream.response(usage: OpenAIUsageNormaliser.usage(usage, timings: timings),
                                       finishReason: finishReason, model: model)
        response.toolCalls = toolCalls.toolCalls
        return .success(response)
    }
}

extension OpenAIStream {
    /// The usage chunk (or llama.cpp's timings) seen so far, for a failure to keep.
    var reportedUsage: Usage? {
        usage == nil && timings == nil ? nil : OpenAIUsageNormaliser.usage(usage, timings: timings)
    }
}
