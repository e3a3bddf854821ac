import Foundation
import Testing
@testable import EvalBench

/// Feeds an OpenAI-compatible stream to the reader piece by piece, each piece stamped as
/// arriving `ms` after the request started.
private func read(_ pieces: [(ms: Double, text: String)], status: Int = 200) -> Result<ModelResponse, BackendFailure> {
    let stopwatch = Stopwatch()
    let base = DispatchTime.now().uptimeNanoseconds
    var reader = OpenAIStreamReader(backend: "fake", stopwatch: stopwatch)
    if let failure = reader.consume(.response(status: status, headers: [:])) { return .failure(failure) }
    for piece in pieces {
        let nanos = base + UInt64(piece.ms * 1_000_000)
        if let failure = reader.consume(.bytes(Data(piece.text.utf8), receivedAtNanos: nanos)) { return .failure(failure) }
    }
    return reader.finish()
}

private func chunk(_ delta: String, finish: String? = nil) -> String {
    let reason = finish.map { "\"\($0)\"" } ?? "null"
    return "data: {\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":\(delta),\"finish_reason\":\(reason)}]}\n\n"
}

@Suite("OpenAI-compatible stream reading")
struct OpenAIStreamReaderTests {
    @Test("an empty role-only first chunk is not a token")
    func roleOnlyChunk() throws {
        let response = try read([
            (5, chunk(#"{"role":"assistant","content":""}"#)),
            (40, chunk(#"{"content":" Paris"}"#)),
            (60, chunk("{}", finish: "stop") + "data: [DONE]\n\n"),
        ]).get()
        #expect(response.text == " Paris")
        let ttft = try #require(response.timing.ttftMs)
        #expect(abs(ttft - 40) < 0.5)
        let latency = try #require(response.timing.latencyMs)
        #expect(abs(latency - 60) < 0.5)
        #expect(response.finishReason == "stop")
    }

    @Test("reasoning deltas count for TTFT but not TTFA")
    func reasoningFirst() throws {
        let response = try read([
            (10, chunk(#"{"reasoning_content":"Let me think"}"#)),
            (30, chunk(#"{"reasoning":" more"}"#)),
            (90, chunk(#"{"content":"Tokyo"}"#)),
            (95, chunk("{}", finish: "stop") + "data: [DONE]\n\n"),
        ]).get()
        let ttft = try #require(response.timing.ttftMs)
        let ttfa = try #require(response.timing.ttfaMs)
        #expect(abs(ttft - 10) < 0.5)
        #expect(abs(ttfa - 90) < 0.5)
        #expect(response.reasoningText == "Let me think more")
        #expect(response.text == "Tokyo")
    }

    @Test("usage: prompt_tokens includes cached_tokens; reasoning tokens are kept")
    func usage() throws {
        let usage = #"data: {"choices":[],"usage":{"prompt_tokens":109,"completion_tokens":12,"total_tokens":121,"prompt_tokens_details":{"cached_tokens":104},"completion_tokens_details":{"reasoning_tokens":7}}}"#
        let response = try read([(1, chunk(#"{"content":"x"}"#, finish: "stop")), (2, usage + "\n\ndata: [DONE]\n\n")]).get()
        #expect(response.usage == Usage(inputTokens: 109, cachedInputTokens: 104, outputTokens: 12, reasoningTokens: 7, source: .reported))
        #expect(response.usage.cacheHitRatio == 104.0 / 109.0)
    }

    @Test("llama.cpp timings.cache_n stands in when cached_tokens is absent")
    func llamaTimings() throws {
        let usage = #"data: {"choices":[],"usage":{"prompt_tokens":68,"completion_tokens":2},"timings":{"cache_n":60,"prompt_n":8,"predicted_n":2}}"#
        let response = try read([(1, chunk(#"{"content":"x"}"#, finish: "stop")), (2, usage + "\n\ndata: [DONE]\n\n")]).get()
        #expect(response.usage.cachedInputTokens == 60)
        #expect(response.usage.inputTokens == 68)
    }

    @Test("a stream without usage leaves every token figure null, never 0")
    func noUsage() throws {
        let response = try read([(1, chunk(#"{"content":"x"}"#, finish: "stop") + "data: [DONE]\n\n")]).get()
        #expect(response.usage == Usage())
        #expect(response.usage.source == nil)
        #expect(response.usage.cacheHitRatio == nil)
    }

    @Test("a usage that is not an object keeps the answer and its finish reason, with every figure unknown and a note on what came")
    func usageNotAnObject() throws {
        for (usage, shown) in [("[1,2,3]", "an array"), (#""n/a""#, #"the string "n/a""#), ("true", "true"), ("[]", "an empty array")] {
            let last = #"data: {"choices":[],"usage":\#(usage)}"# + "\n\ndata: [DONE]\n\n"
            let response = try read([(1, chunk(#"{"content":"Paris"}"#)), (2, chunk("{}", finish: "stop")), (3, last)]).get()
            #expect(response.text == "Paris" && response.finishReason == "stop")
            #expect(response.usage == .noneKnown("usage is \(shown), not an object; left unknown"))
        }
        let null = try read([(1, chunk(#"{"content":"Paris"}"#, finish: "stop")), (2, #"data: {"choices":[],"usage":null}"# + "\n\ndata: [DONE]\n\n")]).get()
        #expect(null.usage == Usage(), "a null usage is not reported: no figures and no note")
    }

    @Test("a usage detail or llama.cpp timings that are not objects leave their figures unknown, with a note, and the rest stand")
    func partsNotObjects() throws {
        let details = #"data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":5,"completion_tokens_details":{"reasoning_tokens":1}}}"#
        let detailed = try read([(1, chunk(#"{"content":"x"}"#, finish: "stop")), (2, details + "\n\ndata: [DONE]\n\n")]).get()
        #expect(detailed.usage.inputTokens == 9 && detailed.usage.outputTokens == 2 && detailed.usage.reasoningTokens == 1)
        #expect(detailed.usage.cachedInputTokens == nil)
        #expect(detailed.usage.suspect == "usage.prompt_tokens_details is 5, not an object; left unknown")
        let timings = #"data: {"choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2},"timings":[60]}"#
        let timed = try read([(1, timings + "\n\ndata: [DONE]\n\n")]).get()
        #expect(timed.text == "Paris" && timed.finishReason == "stop")
        #expect(timed.usage.inputTokens == 9 && timed.usage.outputTokens == 2 && timed.usage.cachedInputTokens == nil)
        #expect(timed.usage.suspect == "timings is an array, not an object; left unknown")
    }

    @Test("events split across reads, comments and CRLF line ends")
    func splitEvents() throws {
        let text = ": keep-alive\r\n\r\n" + chunk(#"{"content":"Hel"}"#).replacingOccurrences(of: "\n", with: "\r\n")
            + chunk(#"{"content":"lo"}"#, finish: "stop") + "data: [DONE]\n\n"
        let bytes = Array(text)
        var pieces: [(ms: Double, text: String)] = []
        for (index, character) in bytes.enumerated() { pieces.append((Double(index) * 0.01, String(character))) }
        let response = try read(pieces).get()
        #expect(response.text == "Hello")
    }

    @Test("an error event after HTTP 200 fails the request with its kind")
    func errorEvent() {
        let result = read([(1, chunk(#"{"content":"x"}"#)), (2, #"data: {"error":{"message":"the request exceeds the available context size","type":"exceed_context_size_error","code":400}}"# + "\n\n")])
        guard case let .failure(failure) = result else { Issue.record("expected a failure"); return }
        #expect(failure.kind == .contextOverflow)
        #expect(failure.message.contains("error event"))
    }

    @Test("a data line that is not JSON is a decoding failure")
    func malformed() {
        let result = read([(1, "data: {not json\n\n")])
        guard case let .failure(failure) = result else { Issue.record("expected a failure"); return }
        #expect(failure.kind == .decoding)
    }

    @Test("a stream cut before a finish reason or [DONE] is a network failure")
    func truncated() {
        let result = read([(1, chunk(#"{"content":"x"}"#))])
        guard case let .failure(failure) = result else { Issue.record("expected a failure"); return }
        #expect(failure.kind == .network)
    }

    @Test("a last chunk with no blank line after it is incomplete and discarded: its finish reason never arrived, so the stream is truncated")
    func unterminatedLastChunk() {
        let last = chunk(#"{"content":"is"}"#, finish: "stop").dropLast(2)
        let result = read([(1, chunk(#"{"content":"Par"}"#)), (2, String(last))])
        guard case let .failure(failure) = result else { Issue.record("expected a failure, not the half answer"); return }
        #expect(failure.kind == .network)
    }

    @Test("an unterminated [DONE] after the finish reason loses nothing")
    func unterminatedDone() throws {
        let response = try read([(1, chunk(#"{"content":"Paris"}"#, finish: "stop") + "data: [DONE]")]).get()
        #expect(response.text == "Paris")
        #expect(response.finishReason == "stop")
    }

    @Test("an HTTP error status is classified from its body")
    func httpError() {
        let result = read([(1, #"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}"#)], status: 429)
        guard case let .failure(failure) = result else { Issue.record("expected a failure"); return }
        #expect(failure.kind == .quotaExhausted)
        #expect(failure.httpStatus == 429)
    }

    @Test("a refusal delta with no answer is a refusal; content_filter is a guardrail")
    func refusalAndGuardrail() {
        let refused = read([(1, chunk(#"{"refusal":"I can't help with that"}"#, finish: "stop") + "data: [DONE]\n\n")])
        guard case let .failure(refusal) = refused else { Issue.record("expected a refusal"); return }
        #expect(refusal.kind == .refusal)
        let filtered = read([(1, chunk(#"{"content":"x"}"#, finish: "content_filter") + "data: [DONE]\n\n")])
        guard case let .failure(guardrail) = filtered else { Issue.record("expected a guardrail"); return }
        #expect(guardrail.kind == .guardrail)
    }

    @Test("with several choices (n > 1) only choice 0 is recorded, never interleaved; usage is the whole request's")
    func choiceZeroOnly() throws {
        func choice(_ index: Int, _ content: String, finish: String? = nil) -> String {
            let reason = finish.map { "\"\($0)\"" } ?? "null"
            return #"{"index":\#(index),"delta":{"content":"\#(content)"},"finish_reason":\#(reason)}"#
        }
        func chunk(_ choices: String...) -> String {
            "data: {\"model\":\"m\",\"choices\":[\(choices.joined(separator: ","))]}\n\n"
        }
        let response = try read([
            (1, chunk(choice(0, "Par")) + chunk(choice(1, "Lyo")) + chunk(choice(2, "Nic"))),
            (2, chunk(choice(1, "n", finish: "stop"), choice(0, "is"))),
            (3, chunk(choice(2, "e", finish: "length")) + chunk(choice(0, "", finish: "stop"))),
            (4, #"data: {"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":6}}"# + "\n\ndata: [DONE]\n\n"),
        ]).get()
        #expect(response.text == "Paris")
        #expect(response.finishReason == "stop")
        #expect(response.usage.outputTokens == 6)
    }

    @Test("a chunk whose choices carry no index is choice 0 (servers that send one choice may omit it)")
    func missingIndexIsZero() throws {
        let response = try read([
            (1, #"data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"# + "\n\ndata: [DONE]\n\n"),
        ]).get()
        #expect(response.text == "ok")
    }

    @Test("the request body carries options, history, stream_options and the reasoning effort")
    func requestBody() throws {
        let backend = OpenAIBackend(name: "b", model: "m", baseURL: URL(string: "http://127.0.0.1:1/v1")!, apiKey: "secret",
                                    concurrency: 1, transport: NoTransport())
        let request = ModelRequest(instructions: "Be brief.",
                                   messages: [ChatMessage(role: .user, content: "Hi"), ChatMessage(role: .assistant, content: "Hello"),
                                              ChatMessage(role: .user, content: "Bye")],
                                   options: GenerationOptions(temperature: 0, maxOutputTokens: 5, topP: 0.9, seed: 7, stop: ["\n"]),
                                   reasoning: .moderate)
        let http = try backend.httpRequest(for: request)
        #expect(http.url.absoluteString == "http://127.0.0.1:1/v1/chat/completions")
        #expect(http.headers["Authorization"] == "Bearer secret")
        let bodyData = try #require(http.body)
        let body = try #require(try JSONSerialization.jsonObject(with: bodyData) as? [String: Any])
        #expect(body["stream"] as? Bool == true)
        #expect((body["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(body["max_tokens"] as? Int == 5)
        #expect(body["seed"] as? Int == 7)
        #expect(body["reasoning_effort"] as? String == "medium")
        let messages = try #require(body["messages"] as? [[String: String]])
        #expect(messages.map { $0["role"]! } == ["system", "user", "assistant", "user"])
        let none = try backend.httpRequest(for: ModelRequest(instructions: nil, messages: [], options: .init(), reasoning: .none))
        let noneData = try #require(none.body)
        let noneBody = try #require(try JSONSerialization.jsonObject(with: noneData) as? [String: Any])
        #expect(noneBody["reasoning_effort"] == nil)
    }
}

private struct NoTransport: HTTPStreaming {
    func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
}
