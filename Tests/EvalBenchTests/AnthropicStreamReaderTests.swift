import Foundation
import Testing
@testable import EvalBench

/// Feeds an Anthropic Messages stream to the reader piece by piece, each piece stamped as
/// arriving `ms` after the request started.
private func read(_ pieces: [(ms: Double, text: String)], status: Int = 200,
                  headers: [String: String] = [:]) -> Result<ModelResponse, BackendFailure> {
    let stopwatch = Stopwatch()
    let base = DispatchTime.now().uptimeNanoseconds
    var reader = AnthropicStreamReader(backend: "claude", stopwatch: stopwatch)
    if let failure = reader.consume(.response(status: status, headers: headers)) { return .failure(failure) }
    for piece in pieces {
        let nanos = base + UInt64(piece.ms * 1_000_000)
        if let failure = reader.consume(.bytes(Data(piece.text.utf8), receivedAtNanos: nanos)) { return .failure(failure) }
    }
    return reader.finish()
}

private func event(_ name: String, _ data: String) -> String {
    "event: \(name)\ndata: \(data)\n\n"
}

private func messageStart(usage: String = #"{"input_tokens":10,"output_tokens":1}"#) -> String {
    event("message_start", #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":\#(usage)}}"#)
        + event("ping", #"{"type": "ping"}"#)
}

private func blockStart(_ index: Int, _ type: String) -> String {
    let body = type == "thinking" ? #""thinking":"""# : #""text":"""#
    return event("content_block_start", #"{"type":"content_block_start","index":\#(index),"content_block":{"type":"\#(type)",\#(body)}}"#)
}

private func textDelta(_ index: Int, _ text: String) -> String {
    event("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"text_delta","text":"\#(text)"}}"#)
}

private func thinkingDelta(_ index: Int, _ text: String) -> String {
    event("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"thinking_delta","thinking":"\#(text)"}}"#)
}

private func blockStop(_ index: Int) -> String {
    event("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#)
}

private func messageEnd(_ stopReason: String = "end_turn", usage: String = #"{"output_tokens":12}"#) -> String {
    event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(stopReason)","stop_sequence":null},"usage":\#(usage)}"#)
        + event("message_stop", #"{"type":"message_stop"}"#)
}

/// A complete one-block answer with the given usage and stop reason.
private func answer(_ text: String = "Paris", start: String = #"{"input_tokens":10,"output_tokens":1}"#,
                    stopReason: String = "end_turn", end: String = #"{"output_tokens":12}"#) -> Result<ModelResponse, BackendFailure> {
    read([(1, messageStart(usage: start)), (5, blockStart(0, "text") + textDelta(0, text)),
          (9, blockStop(0) + messageEnd(stopReason, usage: end))])
}

/// Streams whose last event has a member of the wrong kind, each with what the failure says.
private let mistypedMembers: [(stream: String, said: String)] = {
    let opened: String = messageStart() + blockStart(0, "text")
    let delta: String = "malformed content_block_delta event in the stream: its "
    var cases: [(stream: String, said: String)] = []
    cases.append((event("message_start", #"{"type":"message_start","message":"hidden-value"}"#),
                  "malformed message_start event in the stream: its message is a string where the Messages API sends an object"))
    cases.append((event("message_start", #"{"type":"message_start","message":5}"#),
                  "malformed message_start event in the stream: its message is an integer where the Messages API sends an object"))
    cases.append((opened + event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":"hidden-value"}"#),
                  delta + "delta is a string where the Messages API sends an object"))
    cases.append((opened + event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}"#),
                  delta + "delta.text is an integer where the Messages API sends a string"))
    cases.append((opened + event("content_block_delta", #"{"type":"content_block_delta","index":0.5,"delta":{"type":"text_delta","text":"x"}}"#),
                  delta + "index is a number that could not be read as the Messages API sends it"))
    cases.append((opened + textDelta(0, "Paris") + event("message_delta", #"{"type":"message_delta","delta":["hidden-value"]}"#),
                  "malformed message_delta event in the stream: its delta is an array where the Messages API sends an object"))
    cases.append((messageStart() + event("content_block_start", #"{"index":0,"content_block":true}"#),
                  "malformed content_block_start event in the stream: its content_block is a boolean where the Messages API sends an object"))
    return cases
}()

private func failure(_ result: Result<ModelResponse, BackendFailure>) -> BackendFailure? {
    guard case let .failure(failure) = result else { return nil }
    return failure
}

@Suite("Anthropic stream reading")
struct AnthropicStreamReaderTests {
    @Test("thinking first: TTFT is the first thinking delta, TTFA the first text delta")
    func thinkingFirst() throws {
        let response = try read([
            (2, messageStart()),
            (10, blockStart(0, "thinking") + thinkingDelta(0, "Let me think")),
            (30, thinkingDelta(0, " more")),
            (40, event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#) + blockStop(0)),
            (90, blockStart(1, "text") + textDelta(1, "Tokyo")),
            (95, blockStop(1) + messageEnd()),
        ]).get()
        let ttft = try #require(response.timing.ttftMs)
        let ttfa = try #require(response.timing.ttfaMs)
        let latency = try #require(response.timing.latencyMs)
        #expect(abs(ttft - 10) < 0.5)
        #expect(abs(ttfa - 90) < 0.5)
        #expect(abs(latency - 95) < 0.5)
        #expect(response.reasoningText == "Let me think more")
        #expect(response.text == "Tokyo")
        #expect(response.finishReason == "end_turn")
        #expect(response.model == "claude-sonnet-4-5")
    }

    @Test("message_start and empty block starts are not tokens; the first text delta is both TTFT and TTFA")
    func emptyStartsAreNotTokens() throws {
        let response = try read([(3, messageStart()), (8, blockStart(0, "text")), (25, textDelta(0, "Hi")),
                                 (30, blockStop(0) + messageEnd())]).get()
        let ttft = try #require(response.timing.ttftMs)
        #expect(abs(ttft - 25) < 0.5)
        #expect(response.timing.ttfaMs == response.timing.ttftMs)
        #expect(response.reasoningText == nil)
    }

    @Test("a tool call's input_json_delta counts for TTFT but not TTFA; tool_use is a success")
    func toolUse() throws {
        let response = try read([
            (1, messageStart()),
            (20, event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#)
                + event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}"#)),
            (30, blockStop(0) + messageEnd("tool_use")),
        ]).get()
        let ttft = try #require(response.timing.ttftMs)
        #expect(abs(ttft - 20) < 0.5)
        #expect(response.timing.ttfaMs == nil)
        #expect(response.finishReason == "tool_use")
        #expect(response.text.isEmpty)
    }

    @Test("a redacted thinking block counts for TTFT")
    func redactedThinking() throws {
        let response = try read([
            (1, messageStart()),
            (15, event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#) + blockStop(0)),
            (50, blockStart(1, "text") + textDelta(1, "ok")),
            (55, blockStop(1) + messageEnd()),
        ]).get()
        let ttft = try #require(response.timing.ttftMs)
        let ttfa = try #require(response.timing.ttfaMs)
        #expect(abs(ttft - 15) < 0.5)
        #expect(abs(ttfa - 50) < 0.5)
    }

    @Test("Anthropic usage counts cache reads as input: 100 uncached + 900 read = 1,000 input, hit ratio 0.9")
    func cacheReadsAreInput() throws {
        let response = try answer(start: #"{"input_tokens":100,"cache_read_input_tokens":900,"cache_creation_input_tokens":0,"output_tokens":1}"#).get()
        #expect(response.usage == Usage(inputTokens: 1000, cachedInputTokens: 900, cacheWriteInputTokens: 0,
                                        outputTokens: 12, reasoningTokens: nil, source: .reported))
        #expect(response.usage.cacheHitRatio == 0.9)
    }

    @Test("cache creation counts as input and as a cache write, not as cached input")
    func cacheCreation() throws {
        let response = try answer(start: #"{"input_tokens":7,"cache_creation_input_tokens":1200,"cache_read_input_tokens":0,"output_tokens":1}"#).get()
        #expect(response.usage.inputTokens == 1207)
        #expect(response.usage.cacheWriteInputTokens == 1200)
        #expect(response.usage.cachedInputTokens == 0)
        #expect(response.usage.cacheHitRatio == 0)
    }

    @Test("figures not reported stay null: no cache fields means no cached or cache-write count")
    func missingFiguresStayNull() throws {
        let noCache = try answer(start: #"{"input_tokens":40,"output_tokens":1}"#).get()
        #expect(noCache.usage == Usage(inputTokens: 40, cachedInputTokens: nil, cacheWriteInputTokens: nil,
                                       outputTokens: 12, source: .reported))
        #expect(noCache.usage.cacheHitRatio == nil)

        let noUsage = try read([
            (1, event("message_start", #"{"type":"message_start","message":{"model":"m"}}"#)),
            (2, blockStart(0, "text") + textDelta(0, "x")),
            (3, blockStop(0) + event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#)
                + event("message_stop", #"{"type":"message_stop"}"#)),
        ]).get()
        #expect(noUsage.usage == Usage())
        #expect(noUsage.usage.source == nil)
    }

    @Test("thinking with no thinking-token count leaves reasoning tokens null, never 0; output includes the thinking")
    func reasoningTokensStayNull() throws {
        let response = try read([
            (1, messageStart(usage: #"{"input_tokens":10,"output_tokens":1}"#)),
            (2, blockStart(0, "thinking") + thinkingDelta(0, "hmm") + blockStop(0)),
            (3, blockStart(1, "text") + textDelta(1, "4") + blockStop(1) + messageEnd(usage: #"{"output_tokens":57}"#)),
        ]).get()
        #expect(response.reasoningText == "hmm")
        #expect(response.usage.reasoningTokens == nil)
        #expect(response.usage.outputTokens == 57)
    }

    @Test("usage.output_tokens_details.thinking_tokens is the reasoning-token count, within the output tokens")
    func thinkingTokens() throws {
        let response = try read([
            (1, messageStart(usage: #"{"input_tokens":28,"output_tokens":5}"#)),
            (2, blockStart(0, "thinking") + thinkingDelta(0, "hmm") + blockStop(0)),
            (3, blockStart(1, "text") + textDelta(1, "Hi") + blockStop(1)
                + messageEnd(usage: #"{"input_tokens":28,"output_tokens":106,"output_tokens_details":{"thinking_tokens":67}}"#)),
        ]).get()
        #expect(response.usage.reasoningTokens == 67)
        #expect(response.usage.outputTokens == 106)
        #expect(response.usage.source == .reported)
    }

    @Test("a thinking-token count of 0 is reported as 0, not unknown")
    func zeroThinkingTokens() throws {
        let response = try answer(end: #"{"output_tokens":12,"output_tokens_details":{"thinking_tokens":0}}"#).get()
        #expect(response.usage.reasoningTokens == 0)
    }

    @Test("message_delta's cumulative figures replace message_start's; figures it leaves out are kept")
    func latestFiguresWin() throws {
        let response = try answer(
            start: #"{"input_tokens":5,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}"#,
            end: #"{"input_tokens":50,"cache_read_input_tokens":950,"output_tokens":30}"#).get()
        #expect(response.usage.inputTokens == 1000)
        #expect(response.usage.cachedInputTokens == 950)
        #expect(response.usage.cacheWriteInputTokens == 0)
        #expect(response.usage.outputTokens == 30)
    }

    @Test("a count message_delta sends unreadably is unknown, not message_start's stale figure; the note names it", arguments: [
        (#"{"cache_read_input_tokens":"y","output_tokens":"5"}"#, cached: nil, output: nil, input: nil,
         note: #"output_tokens is the string "5", not a whole number of tokens within range; left unknown"#),
        (#"{"output_tokens":5.5}"#, cached: 5, output: nil, input: 15,
         note: "output_tokens is 5.5, not a whole number of tokens within range; left unknown"),
        (#"{"input_tokens":10,"cache_read_input_tokens":"y","output_tokens":7}"#, cached: nil, output: 7, input: nil,
         note: #"cache_read_input_tokens is the string "y", not a whole number of tokens within range; left unknown"#),
    ] as [(String, cached: Int?, output: Int?, input: Int?, note: String)])
    func unreadableDeltaCount(_ example: (end: String, cached: Int?, output: Int?, input: Int?, note: String)) throws {
        let response = try answer(start: #"{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}"#, end: example.end).get()
        #expect(response.text == "Paris" && response.finishReason == "end_turn")
        #expect(response.usage.cachedInputTokens == example.cached, "\(response.usage)")
        #expect(response.usage.outputTokens == example.output, "\(response.usage)")
        #expect(response.usage.inputTokens == example.input, "a total with an unknown part is unknown: \(response.usage)")
        #expect(response.usage.suspect == example.note)
    }

    @Test("a usage that is not an object keeps the answer, leaves every figure it would have given unknown, and says what it was")
    func usageNotAnObject() throws {
        let start = #"{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}"#
        for (end, shown) in [("[5]", "an array"), (#""n/a""#, #"the string "n/a""#), ("7", "7")] {
            let response = try answer(start: start, end: end).get()
            #expect(response.text == "Paris" && response.finishReason == "end_turn")
            #expect(response.usage == .noneKnown("usage is \(shown), not an object; left unknown"),
                    "the delta may have revised every figure, so none of message_start's stands: \(response.usage)")
        }
        let unreadableStart = try answer(start: "[10]", end: #"{"output_tokens":12}"#).get()
        #expect(unreadableStart.usage.outputTokens == 12 && unreadableStart.usage.inputTokens == nil, "\(unreadableStart.usage)")
        #expect(unreadableStart.usage.suspect == "message.usage is an array, not an object; left unknown")
        let details = try answer(end: #"{"output_tokens":12,"output_tokens_details":[3]}"#).get()
        #expect(details.usage.outputTokens == 12 && details.usage.reasoningTokens == nil)
        #expect(details.usage.suspect == "usage.output_tokens_details is an array, not an object; left unknown")
        let null = try answer(start: start, end: "null").get()
        #expect(null.usage == Usage(inputTokens: 15, cachedInputTokens: 5, outputTokens: 1, source: .reported),
                "a null usage reports nothing: message_start's figures stand, with no note")
    }

    @Test("llama-server's figures: input_tokens excludes the cache reads it reports")
    func llamaServerUsage() throws {
        let response = try answer(start: #"{"cache_read_input_tokens":64,"input_tokens":6,"output_tokens":0}"#,
                                  end: #"{"output_tokens":2}"#).get()
        #expect(response.usage == Usage(inputTokens: 70, cachedInputTokens: 64, outputTokens: 2, source: .reported))
    }

    @Test("stop reasons max_tokens, end_turn, stop_sequence and pause_turn are successes with the reason kept",
          arguments: ["max_tokens", "end_turn", "stop_sequence", "pause_turn"])
    func successfulStopReasons(reason: String) throws {
        let response = try answer(stopReason: reason).get()
        #expect(response.finishReason == reason)
        #expect(response.text == "Paris")
    }

    @Test("stop_reason tool_use with no tool_use block is a broken stream, not the text before it as the answer")
    func toolUseWithoutABlock() throws {
        let broken = try #require(failure(answer(stopReason: "tool_use")))
        #expect(broken.kind == .decoding)
        #expect(broken.message.contains("stop_reason is tool_use, but it held no tool_use block"), "\(broken.message)")
    }

    @Test("stop_reason refusal is a refusal; model_context_window_exceeded a context overflow")
    func failingStopReasons() throws {
        let refusal = try #require(failure(answer("I can't", stopReason: "refusal")))
        #expect(refusal.kind == .refusal)
        #expect(refusal.timing?.ttftMs != nil)
        let overflow = try #require(failure(answer(stopReason: "model_context_window_exceeded")))
        #expect(overflow.kind == .contextOverflow)
    }

    @Test("an overloaded_error event after HTTP 200 is .overloaded, and retryable")
    func errorEventMidStream() throws {
        let result = read([(1, messageStart()), (2, blockStart(0, "text") + textDelta(0, "Par")),
                           (3, event("error", #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#))])
        let failed = try #require(failure(result))
        #expect(failed.kind == .overloaded)
        #expect(failed.kind.isRetryable)
        #expect(failed.message.contains("error event"))
        #expect(failed.timing?.ttftMs != nil)
    }

    @Test("other error events take the kind of their type", arguments: [
        ("api_error", ErrorKind.server), ("rate_limit_error", .rateLimited), ("invalid_request_error", .badRequest),
        ("mystery_error", .server),
    ])
    func errorEventKinds(type: String, kind: ErrorKind) throws {
        let result = read([(1, messageStart()), (2, event("error", #"{"type":"error","error":{"type":"\#(type)","message":"x"}}"#))])
        #expect(try #require(failure(result)).kind == kind)
    }

    @Test("a stream that ends without message_stop is a network failure that says it ended mid-stream")
    func endedMidStream() throws {
        let failed = try #require(failure(read([(1, messageStart()), (2, blockStart(0, "text") + textDelta(0, "Par"))])))
        #expect(failed.kind == .network)
        #expect(failed.message.contains("ended mid-stream"))
    }

    @Test("a stream that ends after message_stop without any message_delta is a protocol (decoding) failure, not an empty pass")
    func stopWithoutStopReason() throws {
        let failed = try #require(failure(read([(1, messageStart()), (2, event("message_stop", #"{"type":"message_stop"}"#))])))
        #expect(failed.kind == .decoding)
        #expect(failed.message.contains("message_stop before a message_delta"))
    }

    @Test("a stream with nothing after message_start is truncated: a network failure, never an empty answer")
    func onlyMessageStart() throws {
        let failed = try #require(failure(read([(1, messageStart())])))
        #expect(failed.kind == .network)
        #expect(failed.message.contains("before a message_delta"))
    }

    @Test("an empty 200 stream is truncated before message_start")
    func emptyStream() throws {
        let failed = try #require(failure(read([])))
        #expect(failed.kind == .network)
        #expect(failed.message.contains("before message_start"))
    }

    @Test("events out of the documented order are decoding failures", arguments: [
        (blockStart(0, "text") + textDelta(0, "x"), "content_block_start before message_start"),
        (messageStart() + messageStart(), "a second message_start"),
        (messageStart() + blockStart(0, "text") + messageEnd() + textDelta(0, "late"), "content_block_delta after message_stop"),
        (messageStart() + blockStart(0, "text")
            + event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#)
            + textDelta(0, "late"), "content_block_delta after the stop_reason"),
    ])
    func outOfOrder(_ stream: String, _ what: String) throws {
        let failed = try #require(failure(read([(1, stream)])))
        #expect(failed.kind == .decoding)
        #expect(failed.message.contains(what), "\(failed.message)")
    }

    @Test("a stream complete but for message_stop (its last event unterminated, so discarded) keeps its answer and usage")
    func missingMessageStopAfterStopReason() throws {
        let text = messageStart() + blockStart(0, "text") + textDelta(0, "Hello") + blockStop(0) + messageEnd()
        let unterminated = String(text.dropLast(1))
        let response = try read([(1, unterminated)]).get()
        #expect(response.text == "Hello")
        #expect(response.finishReason == "end_turn")
        #expect(response.usage.outputTokens == 12)
    }

    @Test("events split byte by byte, with CRLF line ends, are read the same")
    func splitEvents() throws {
        let text = (messageStart() + blockStart(0, "text") + textDelta(0, "Hel") + textDelta(0, "lo")
            + blockStop(0) + messageEnd()).replacingOccurrences(of: "\n", with: "\r\n")
        let pieces = Array(text).enumerated().map { (ms: Double($0.offset) * 0.01, text: String($0.element)) }
        let response = try read(pieces).get()
        #expect(response.text == "Hello")
        #expect(response.usage.outputTokens == 12)
    }

    @Test("a data line that is not JSON is a decoding failure")
    func malformed() throws {
        let failed = try #require(failure(read([(1, "event: message_start\ndata: {not json\n\n")])))
        #expect(failed.kind == .decoding)
    }

    @Test("an event with a member of the wrong kind is a malformed response from the server: bad_request, naming the event and the member, never the value",
          arguments: mistypedMembers)
    func mistypedMember(_ stream: String, _ said: String) throws {
        let failed = try #require(failure(read([(1, stream)])))
        #expect(failed.kind == .badRequest, "the server's doing, as a response it framed wrongly is")
        #expect(!failed.kind.isRetryable, "sent again at once, it would come back the same")
        #expect(Gate.infrastructureKinds.contains(failed.kind), "--resume sends it again, as it does other malformed responses")
        #expect(failed.message.hasPrefix("claude: " + said + "; check that baseURL is a Messages API server"), "\(failed.message)")
        #expect(!failed.message.contains("hidden-value"))
    }

    @Test("an HTTP error status is classified from its Anthropic error body, with Retry-After")
    func httpError() throws {
        let failed = try #require(failure(read(
            [(1, #"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#)],
            status: 429, headers: ["retry-after": "7"])))
        #expect(failed.kind == .rateLimited)
        #expect(failed.httpStatus == 429)
        #expect(failed.retryAfterSeconds == 7)
        #expect(failed.message.contains("per-minute rate limit"))
    }
}
