import Foundation

/// Reads one streamed Gemini response: status, SSE events, parts and usage, with timestamps
/// taken when each piece of bytes arrived.
///
/// Thought parts (`thought: true`) are reasoning: they set the first token but not the first
/// answer token. Text parts are the answer; function-call parts count as the first token.
struct GeminiStreamReader: StreamReading {
    let backend: String
    let model: String?
    let stopwatch: Stopwatch
    private var status: Int?
    private var headers: [String: String] = [:]
    private var errorBody = Data()
    private var parser = SSEParser()
    /// The body bytes since the last blank line: an error the server appends as bare JSON,
    /// outside any `data:` event, is found here when the stream ends.
    private var trailing: [UInt8] = []
    private var text = ""
    private var reasoning = ""
    private var firstTokenMs: Double?
    private var firstAnswerTokenMs: Double?
    private var lastByteMs: Double?
    private var finishReason: String?
    private var finishMessage: String?
    private var blockReason: String?
    private var blockMessage: String?
    private var modelVersion: String?
    private var usage: GeminiUsage?
    /// One decoder for every chunk of the stream.
    private let decoder = JSONDecoder()

    init(backend: String, model: String?, stopwatch: Stopwatch) {
        self.backend = backend
        self.model = model
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
            keepTrailing(data)
            for sse in parser.feed(data) {
                if let failure = handle(sse, at: at) { return failure }
            }
            return nil
        }
    }

    private mutating func keepTrailing(_ data: Data) {
        let searchFrom = max(1, trailing.count - 2)
        trailing.append(contentsOf: data)
        // Drop everything up to the last blank line (LF LF, or LF CR LF); only the new bytes
        // and the two before them can complete one.
        var index = trailing.count - 1
        while index >= searchFrom {
            if trailing[index] == 0x0A,
               trailing[index - 1] == 0x0A || (index > 1 && trailing[index - 1] == 0x0D && trailing[index - 2] == 0x0A) {
                trailing.removeFirst(index + 1)
                return
            }
            index -= 1
        }
        if trailing.count > Self.trailingLimit { trailing.removeFirst(trailing.count - Self.trailingLimit) }
    }

    /// More than any error object; a longer run without a blank line is not one.
    private static let trailingLimit = 64 * 1024

    private mutating func handle(_ event: SSEEvent, at ms: Double) -> BackendFailure? {
        let payload = event.data.trimmingCharacters(in: .whitespacesAndNewlines)
        if payload.isEmpty { return nil }
        guard let data = payload.data(using: .utf8),
              let chunk = try? decoder.decode(GeminiChunk.self, from: data) else {
            if let error = GeminiErrorBody.decode(Data(payload.utf8), decoder: decoder) { return streamed(error) }
            return failure(.decoding, "malformed stream event (not a GenerateContentResponse): \(payload.prefix(120))")
        }
        if let error = chunk.error { return streamed(error) }
        if let modelVersion = chunk.modelVersion { self.modelVersion = modelVersion }
        if let usage = chunk.usageMetadata { self.usage = usage }
        if let feedback = chunk.promptFeedback, let reason = feedback.blockReason {
            blockReason = reason
            blockMessage = feedback.blockReasonMessage
        }
        guard let candidate = chunk.candidates?.first(where: { ($0.index ?? 0) == 0 }) else { return nil }
        if let reason = candidate.finishReason {
            finishReason = reason
            finishMessage = candidate.finishMessage
        }
        for part in candidate.content?.parts ?? [] {
            if let piece = part.text, !piece.isEmpty {
                if firstTokenMs == nil { firstTokenMs = ms }
                if part.thought == true {
                    reasoning += piece
                } else {
                    text += piece
                    if firstAnswerTokenMs == nil { firstAnswerTokenMs = ms }
                }
            }
            if part.functionCall != nil, firstTokenMs == nil { firstTokenMs = ms }
        }
        return nil
    }

    private func streamed(_ error: GeminiErrorBody) -> BackendFailure {
        var failure = GeminiFailureClassifier.streamed(error, headers: headers, backend: backend, model: model)
        failure.timing = timing()
        return failure
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
        if failure.kind == .network, status != nil, finishReason == nil {
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
            return .failure(GeminiFailureClassifier.http(status: status, headers: headers, body: errorBody,
                                                         backend: backend, model: model))
        }
        let left = String(decoding: trailing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if left.hasPrefix("{") || left.hasPrefix("["), let error = GeminiErrorBody.decode(Data(left.utf8), decoder: decoder) {
            return .failure(streamed(error))
        }
        for sse in parser.finish() {
            if let failure = handle(sse, at: lastByteMs ?? stopwatch.ms()) { return .failure(failure) }
        }
        if let blockReason {
            let said = blockMessage.map { ": \($0.prefix(200))" } ?? ""
            return .failure(failure(.guardrail, "the prompt was blocked (promptFeedback.blockReason \(blockReason))\(said)"))
        }
        guard let finishReason else {
            return .failure(failure(.network, "the stream ended mid-stream: no candidate finishReason arrived"))
        }
        if let (kind, message) = GeminiFailureClassifier.finishFailure(finishReason, message: finishMessage,
                                                                        hasAnswer: !text.isEmpty) {
            return .failure(failure(kind, message))
        }
        return .success(ModelResponse(
            text: text, reasoningText: reasoning.isEmpty ? nil : reasoning, timing: timing(),
            usage: GeminiUsageNormaliser.usage(usage), finishReason: finishReason, model: modelVersion))
    }
}
