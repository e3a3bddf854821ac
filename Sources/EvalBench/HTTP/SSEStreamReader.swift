import Foundation

/// What one provider adds to the shared reading of a streamed (server-sent events) response:
/// how it reads an event, classifies an HTTP error, and finishes.
/// One decoder for every provider's events in every stream: making one per event costs more
/// than decoding, and one per stream was 1% of a request's CPU (decoding never changes its settings).
private let sharedEventDecoder = JSONDecoder()

extension SSEProvider {
    /// The decoder for a stream's JSON events, shared by every stream.
    var decoder: JSONDecoder { sharedEventDecoder }
}

protocol SSEProvider {
    /// Reads one event of a successful response into `stream`; a failure ends the response.
    mutating func handle(_ event: SSEEvent, at ms: Double, stream: inout StreamProgress) -> BackendFailure?
    /// The failure of an HTTP error response.
    func httpFailure(status: Int, headers: [String: String], body: Data, backend: String) -> BackendFailure
    /// Whether the stream said it was complete; a connection lost before is "mid-stream".
    var sawEnd: Bool { get }
    /// Sees the bytes of a successful response before they are parsed into events.
    mutating func received(_ data: Data)
    /// At the end of the stream, before the response is made: a failure found in what is left.
    mutating func ending(stream: StreamProgress) -> BackendFailure?
    /// The response once every event has been read.
    func finish(_ stream: StreamProgress) -> Result<ModelResponse, BackendFailure>
    /// The usage the events so far reported, normalised; nil when none did. A failure keeps it:
    /// refused and cut-off requests are billed too.
    var reportedUsage: Usage? { get }
}

extension SSEProvider {
    mutating func received(_ data: Data) {}
    mutating func ending(stream: StreamProgress) -> BackendFailure? { nil }
    var reportedUsage: Usage? { nil }
}

/// A response so far: status, headers, the answer and reasoning text, and when each first
/// arrived. `firstToken` is the first streamed output of any kind; `firstAnswerToken` the
/// first answer text.
struct StreamProgress {
    let backend: String
    let stopwatch: Stopwatch
    var status: Int?
    var headers: [String: String] = [:]
    var text = ""
    var reasoning = ""
    var firstTokenMs: Double?
    var firstAnswerTokenMs: Double?
    var lastByteMs: Double?
    /// When the client saw the stream end without its proper end (the connection closed, the
    /// transport failed): a failure's end, later than its last bytes.
    var brokenAtMs: Double?

    mutating func appendAnswer(_ piece: String, at ms: Double) {
        guard !piece.isEmpty else { return }
        text += piece
        markFirstToken(at: ms)
        if firstAnswerTokenMs == nil { firstAnswerTokenMs = ms }
    }

    mutating func appendReasoning(_ piece: String, at ms: Double) {
        guard !piece.isEmpty else { return }
        reasoning += piece
        markFirstToken(at: ms)
    }

    /// Output that is neither answer nor reasoning text (a tool call, a redacted block).
    mutating func markFirstToken(at ms: Double) {
        if firstTokenMs == nil { firstTokenMs = ms }
    }

    func timing() -> RequestTiming {
        RequestTiming(startedAt: stopwatch.startedAt, firstTokenMs: firstTokenMs,
                      firstAnswerTokenMs: firstAnswerTokenMs, endMs: lastByteMs ?? stopwatch.ms())
    }

    /// A failure, timed to when the stream broke if it did (a stream cut short at 400 ms whose
    /// last bytes came at 100 ms took 400 ms), else to its last bytes (an error event, a refusal).
    func failure(_ kind: ErrorKind, _ message: String) -> BackendFailure {
        var timing = timing()
        if let brokenAtMs, kind == .network || kind == .timeout { timing.endMs = max(timing.endMs ?? brokenAtMs, brokenAtMs) }
        return BackendFailure(kind: kind, message: "\(backend): \(message)", httpStatus: status, timing: timing)
    }

    /// The successful response, with the provider's usage and finish reason.
    func response(usage: Usage, finishReason: String?, model: String?) -> ModelResponse {
        ModelResponse(text: text, reasoningText: reasoning.isEmpty ? nil : reasoning, timing: timing(),
                      usage: usage, finishReason: finishReason, model: model)
    }
}

/// Reads one streamed response for any `SSEProvider`: the status, the error body of a failed
/// response, the events of a successful one, with timestamps taken when each piece of bytes
/// arrived.
struct SSEStreamReader<Provider: SSEProvider>: StreamReading {
    private(set) var provider: Provider
    private(set) var progress: StreamProgress
    private var errorBody = Data()
    /// A successful response's first bytes, while no event has come: what the server sent
    /// instead of an event stream, for the message when it sent no events.
    private var firstBytes = Data()
    private var sawEvent = false
    private var parser = SSEParser()

    init(_ provider: Provider, backend: String, stopwatch: Stopwatch) {
        self.provider = provider
        progress = StreamProgress(backend: backend, stopwatch: stopwatch)
    }

    private var isSuccess: Bool { progress.status.map { (200..<300).contains($0) } ?? false }

    mutating func consume(_ event: HTTPStreamEvent) -> BackendFailure? {
        switch event {
        case let .response(status, headers):
            progress.status = status
            progress.headers = headers
            return nil
        case let .bytes(data, receivedAtNanos):
            let at = progress.stopwatch.ms(atNanos: receivedAtNanos)
            progress.lastByteMs = at
            guard isSuccess else {
                errorBody.append(data)
                return nil
            }
            provider.received(data)
            if !sawEvent, firstBytes.count < 300 { firstBytes.append(data.prefix(300 - firstBytes.count)) }
            for sse in parser.feed(data) {
                sawEvent = true
                if let failure = provider.handle(sse, at: at, stream: &progress) { return withUsage(failure) }
            }
            return nil
        }
    }

    /// `failure` with the usage the stream reported before it, unless it carries its own.
    private func withUsage(_ failure: BackendFailure) -> BackendFailure {
        var failure = failure
        if failure.usage == nil, isSuccess { failure.usage = provider.reportedUsage }
        return failure
    }

    func failing(_ failure: BackendFailure) -> BackendFailure {
        var failure = withUsage(failure)
        if failure.timing == nil, progress.status != nil {
            var broken = progress
            broken.brokenAtMs = progress.stopwatch.ms()
            failure.timing = broken.failure(failure.kind, "").timing
        }
        if failure.kind == .network, progress.status != nil, !provider.sawEnd {
            failure.message += " (the connection ended mid-stream)"
        }
        return failure
    }

    mutating func finish() -> Result<ModelResponse, BackendFailure> {
        // Failures from here on are the stream ending as it should not have: timed to now.
        progress.brokenAtMs = progress.stopwatch.ms()
        guard let status = progress.status else {
            return .failure(progress.failure(.network, "the server closed the connection without a response"))
        }
        if (300..<400).contains(status) { return .failure(redirect(status)) }
        guard isSuccess else {
            return .failure(provider.httpFailure(status: status, headers: progress.headers, body: errorBody,
                                                 backend: progress.backend))
        }
        // The provider's own reading of what came stands (a Gemini JSON error is `overloaded`);
        // only a stream it found cut short may have been no stream at all.
        if let failure = provider.ending(stream: progress) {
            return .failure((failure.kind == .network ? notAnEventStream(status) : nil) ?? withUsage(failure))
        }
        // An incomplete last event (no blank line after it) is discarded, as the SSE standard says.
        parser.finish()
        return provider.finish(progress).mapError { failure in
            (failure.kind == .network ? notAnEventStream(status) : nil) ?? withUsage(failure)
        }
    }

    /// A redirect is not followed: it could take the request's credentials to another host
    /// (neither client follows one; URLSession is told not to). The message says where it points.
    private func redirect(_ status: Int) -> BackendFailure {
        let location = progress.headers["location"].flatMap { URL(string: $0) }.map(HTTPTarget.describe)
        let to = location.map { " to \($0)" } ?? ""
        return progress.failure(.badRequest, "HTTP \(status) redirect\(to): evalbench does not follow redirects, which could carry "
                             + "the API key to another host; set baseURL to the address it points to")
    }

    /// When a successful response held no event at all and does not say it is an event stream
    /// (an HTML page, a JSON answer from a server that ignored `stream`), the failure says so.
    private func notAnEventStream(_ status: Int) -> BackendFailure? {
        let type = progress.headers["content-type"] ?? ""
        // Nothing at all, not even a Content-Type, is a stream cut short: the provider says so.
        guard !sawEvent, !type.lowercased().contains("event-stream"), !(type.isEmpty && firstBytes.isEmpty) else { return nil }
        let said = type.isEmpty ? "no Content-Type" : "Content-Type \(ServerText.clip(type, 80))"
        let body = firstBytes.isEmpty ? "an empty body" : "\"\(ServerText.clip(bytes: firstBytes, 120))\""
        return progress.failure(.badRequest, "HTTP \(status) with \(said) and no server-sent events, not the event stream "
                                    + "asked for: \(body); check that baseURL is the API's address and that the server streams")
    }
}
