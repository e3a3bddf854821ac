import Foundation

/// Reads one streamed Gemini response.
typealias GeminiStreamReader = SSEStreamReader<GeminiStream>

extension SSEStreamReader where Provider == GeminiStream {
    init(backend: String, model: String?, stopwatch: Stopwatch) {
        self.init(GeminiStream(backend: backend, model: model), backend: backend, stopwatch: stopwatch)
    }
}

/// Gemini's `streamGenerateContent` events: parts and usage; a candidate's `finishReason`
/// ends the answer.
///
/// Thought parts (`thought: true`) are reasoning: they set the first token but not the first
/// answer token. Text parts are the answer; function-call parts count as the first token.
struct GeminiStream: SSEProvider {
    let backend: String
    let model: String?
    /// The body bytes since the last blank line: an error the server appends as bare JSON,
    /// outside any `data:` event, is found here when the stream ends.
    private var trailing: [UInt8] = []
    private var finishReason: String?
    private var finishMessage: String?
    private var blockReason: String?
    private var blockMessage: String?
    private var modelVersion: String?
    private var usage: GeminiUsage?
    private var toolCalls: [ToolCall] = []

    init(backend: String, model: String?) {
        self.backend = backend
        self.model = model
    }

    var sawEnd: Bool { finishReason != nil }

    mutating func received(_ data: Data) {
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

    mutating func handle(_ event: SSEEvent, at ms: Double, stream: inout StreamProgress) -> BackendFailure? {
        let payload = event.data.trimmingCharacters(in: .whitespacesAndNewlines)
        if payload.isEmpty { return nil }
        guard let data = payload.data(using: .utf8),
              let chunk = try? decoder.decode(GeminiChunk.self, from: data) else {
            if let error = GeminiErrorBody.decode(Data(payload.utf8), decoder: decoder) { return streamed(error, stream) }
            return stream.failure(.decoding, "malformed stream event (not a GenerateContentResponse): \(ServerText.clip(payload, 120))")
        }
        if let error = chunk.error { return streamed(error, stream) }
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
                if part.thought == true {
                    stream.appendReasoning(piece, at: ms)
                } else {
                    stream.appendAnswer(piece, at: ms)
                }
            }
            if let call = part.functionCall {
                stream.markFirstToken(at: ms)
                let arguments = call.args.map { JSONWriter.string($0.foundationObject) } ?? "{}"
                toolCalls.append(ToolCall(id: call.id ?? "\(GeminiTools.madeUpIDPrefix)\(toolCalls.count + 1)",
                                          name: call.name ?? "", argumentsText: arguments, signature: part.thoughtSignature))
            }
        }
        return nil
    }

    private func streamed(_ error: GeminiErrorBody, _ stream: StreamProgress) -> BackendFailure {
        var failure = GeminiFailureClassifier.streamed(error, headers: stream.headers, backend: backend, model: model)
        failure.timing = stream.timing()
        return failure
    }

    func httpFailure(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure {
        GeminiFailureClassifier.http(status: status, headers: headers, body: body, backend: backend, model: model)
    }

    /// A bare JSON error left after the last event.
    mutating func ending(stream: StreamProgress) -> BackendFailure? {
        let left = String(decoding: trailing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard left.hasPrefix("{") || left.hasPrefix("["),
              let error = GeminiErrorBody.decode(Data(left.utf8), decoder: decoder) else { return nil }
        return streamed(error, stream)
    }

    func finish(_ stream: StreamProgress) -> Result<ModelResponse, BackendFailure> {
        if let blockReason {
            let said = blockMessage.map { ": \(ServerText.clip($0, 200))" } ?? ""
            return .failure(stream.failure(.guardrail, "the prompt was blocked (promptFeedback.blockReason \(blockReason))\(said)"))
        }
        guard let finishReason else {
            return .failure(stream.failure(.network, "the stream ended mid-stream: no candidate finishReason arrived"))
        }
        if let (kind, message) = GeminiFailureClassifier.finishFailure(finishReason, message: finishMessage,
                                                                        hasAnswer: !stream.text.isEmpty) {
            return .failure(stream.failure(kind, message))
        }
        var response = stream.response(usage: GeminiUsageNormaliser.usage(usage), finishReason: finishReason,
                                       model: modelVersion)
        response.toolCalls = ToolCall.withUniqueIDs(toolCalls) { "\(GeminiTools.madeUpIDPrefix)\($0 + 1)" }
        return .success(response)
    }
}

extension GeminiStream {
    /// The latest `usageMetadata` seen, for a failure to keep.
    var reportedUsage: Usage? { usage.map { GeminiUsageNormaliser.usage($0) } }
}
