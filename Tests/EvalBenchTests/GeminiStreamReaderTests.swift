import Foundation
import Testing
@testable import EvalBench

/// Feeds a Gemini stream to the reader piece by piece, each piece stamped as arriving `ms`
/// after the request started.
private func read(_ pieces: [(ms: Double, text: String)], status: Int = 200,
                  headers: [String: String] = [:]) -> Result<ModelResponse, BackendFailure> {
    let stopwatch = Stopwatch()
    let base = DispatchTime.now().uptimeNanoseconds
    var reader = GeminiStreamReader(backend: "gem", model: "gemini-2.5-flash", stopwatch: stopwatch)
    if let failure = reader.consume(.response(status: status, headers: headers)) { return .failure(failure) }
    for piece in pieces {
        let nanos = base + UInt64(piece.ms * 1_000_000)
        if let failure = reader.consume(.bytes(Data(piece.text.utf8), receivedAtNanos: nanos)) { return .failure(failure) }
    }
    return reader.finish()
}

/// One `data:` event of a GenerateContentResponse with these parts.
private func chunk(_ parts: String, finish: String? = nil, usage: String? = nil, model: String = "gemini-2.5-flash-001") -> String {
    var candidate = #"{"content":{"parts":\#(parts),"role":"model"},"index":0"#
    if let finish { candidate += #","finishReason":"\#(finish)""# }
    candidate += "}"
    var object = #"{"candidates":[\#(candidate)],"modelVersion":"\#(model)""#
    if let usage { object += #","usageMetadata":\#(usage)"# }
    return "data: " + object + "}\r\n\r\n"
}

private func failureOf(_ result: Result<ModelResponse, BackendFailure>) -> BackendFailure? {
    if case let .failure(failure) = result { return failure }
    Issue.record("expected a failure, got \(result)")
    return nil
}

@Suite("Gemini stream reading")
struct GeminiStreamReaderTests {
    @Test("a last chunk with no blank line after it is incomplete and discarded (WHATWG), so its finishReason never arrived")
    func unterminatedLastChunk() {
        let last = chunk(#"[{"text":" Paris"}]"#, finish: "STOP").dropLast(4)
        let result = read([(1, chunk(#"[{"text":"It is"}]"#)), (2, String(last))])
        #expect(failureOf(result)?.kind == .network)
    }

    @Test("a thought part sets TTFT but not TTFA; the answer part sets TTFA")
    func thoughtFirst() throws {
        let response = try read([
            (12, chunk(#"[{"text":"**Thinking** about capitals","thought":true}]"#)),
            (30, chunk(#"[{"text":" more","thought":true}]"#)),
            (85, chunk(#"[{"text":"Par"}]"#)),
            (90, chunk(#"[{"text":"is"}]"#)),
            (95, chunk(#"[{"text":""}]"#, finish: "STOP")),
        ]).get()
        let ttft = try #require(response.timing.ttftMs)
        let ttfa = try #require(response.timing.ttfaMs)
        #expect(abs(ttft - 12) < 0.5)
        #expect(abs(ttfa - 85) < 0.5)
        let latency = try #require(response.timing.latencyMs)
        #expect(abs(latency - 95) < 0.5)
        #expect(response.text == "Paris")
        #expect(response.reasoningText == "**Thinking** about capitals more")
        #expect(response.finishReason == "STOP")
        #expect(response.model == "gemini-2.5-flash-001", "modelVersion is the reported model")
    }

    @Test("an empty first part is not a token, and a function call part is")
    func emptyAndFunctionCall() throws {
        let response = try read([
            (5, chunk(#"[{"text":""}]"#)),
            (20, chunk(#"[{"functionCall":{"name":"lookup","args":{}}}]"#)),
            (50, chunk(#"[{"text":"done"}]"#, finish: "STOP")),
        ]).get()
        #expect(abs((response.timing.ttftMs ?? 0) - 20) < 0.5)
        #expect(abs((response.timing.ttfaMs ?? 0) - 50) < 0.5)
    }

    @Test("900 of 1,000 prompt tokens from the cache is a cache-hit ratio of 0.9; output is candidates + thoughts")
    func usageNormalisation() throws {
        let usage = #"{"promptTokenCount":1000,"cachedContentTokenCount":900,"candidatesTokenCount":40,"thoughtsTokenCount":160,"totalTokenCount":1200}"#
        let response = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: usage))]).get()
        #expect(response.usage == Usage(inputTokens: 1000, cachedInputTokens: 900, outputTokens: 200, reasoningTokens: 160, source: .reported))
        #expect(response.usage.cacheHitRatio == 0.9)
    }

    @Test("the last usageMetadata wins; tool-use prompt tokens count as input")
    func lastUsageAndToolUse() throws {
        let response = try read([
            (1, chunk(#"[{"text":"a"}]"#, usage: #"{"promptTokenCount":50,"totalTokenCount":50}"#)),
            (2, chunk(#"[{"text":"b"}]"#, finish: "MAX_TOKENS",
                      usage: #"{"promptTokenCount":50,"toolUsePromptTokenCount":30,"candidatesTokenCount":2,"totalTokenCount":82}"#)),
        ]).get()
        #expect(response.usage.inputTokens == 80)
        #expect(response.usage.outputTokens == 2)
        #expect(response.finishReason == "MAX_TOKENS", "MAX_TOKENS is an answer cut at the limit, not an error")
    }

    @Test("counts left out of a reported usageMetadata are 0 (proto3 omits zeros); no usageMetadata leaves every figure nil")
    func missingFigures() throws {
        let partial = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                          usage: #"{"promptTokenCount":12,"candidatesTokenCount":3,"totalTokenCount":15}"#))]).get()
        #expect(partial.usage == Usage(inputTokens: 12, cachedInputTokens: 0, outputTokens: 3, reasoningTokens: 0, source: .reported))
        #expect(partial.usage.cacheHitRatio == 0)
        let none = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP"))]).get()
        #expect(none.usage == Usage())
        #expect(none.usage.source == nil)
        #expect(none.usage.cacheHitRatio == nil)
        let empty = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: "{}"))]).get()
        #expect(empty.usage == Usage(), "an empty usageMetadata reports nothing")
    }

    @Test("a usageMetadata that is not an object keeps the answer in its chunk, with every figure unknown, not 0, and a note")
    func usageNotAnObject() throws {
        let earlier = #"{"promptTokenCount":50,"candidatesTokenCount":1,"totalTokenCount":51}"#
        for (usage, shown) in [("[1,2]", "an array"), (#""x""#, #"the string "x""#), ("3", "3")] {
            let response = try read([(1, chunk(#"[{"text":"Par"}]"#, usage: earlier)),
                                     (2, chunk(#"[{"text":"is"}]"#, finish: "STOP", usage: usage))]).get()
            #expect(response.text == "Paris" && response.finishReason == "STOP")
            #expect(response.usage == .noneKnown("usageMetadata is \(shown), not an object; left unknown"),
                    "the last usageMetadata wins, and it could not be read: \(response.usage)")
        }
        let null = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: "null"))]).get()
        #expect(null.usage == Usage(), "a null usageMetadata is not reported: no figures and no note")
    }

    @Test("a sum with a negative part is unknown, not a plausible-looking 5 or 2; the parts are kept and the first named")
    func sumWithAnImpossiblePart() throws {
        let usage = #"{"promptTokenCount":10,"cachedContentTokenCount":4,"toolUsePromptTokenCount":-5,"candidatesTokenCount":5,"thoughtsTokenCount":-3}"#
        let response = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: usage))]).get()
        var expected = Usage(inputTokens: nil, cachedInputTokens: 4, outputTokens: nil, reasoningTokens: -3, source: .reported)
        expected.suspect = "toolUsePromptTokenCount -5 is negative"
        #expect(response.usage == expected, "input is not 10 + -5, output not 5 + -3; thoughts stay as reported")
        #expect(response.usage.checked() == expected, "the backend's note is the one kept")
        let aboveLimit = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                             usage: #"{"promptTokenCount":10,"candidatesTokenCount":2000000000,"thoughtsTokenCount":3}"#))]).get()
        #expect(aboveLimit.usage.inputTokens == 10 && aboveLimit.usage.outputTokens == nil && aboveLimit.usage.reasoningTokens == 3)
        #expect(aboveLimit.usage.suspect == "candidatesTokenCount 2000000000 is above 1000000000, more than any model takes")
    }

    @Test("a cached count above the prompt count that includes it leaves input unknown, though tool-use tokens would hide it")
    func cachedAbovePrompt() throws {
        let usage = #"{"promptTokenCount":10,"cachedContentTokenCount":50,"toolUsePromptTokenCount":100,"candidatesTokenCount":2}"#
        let response = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: usage))]).get()
        var expected = Usage(inputTokens: nil, cachedInputTokens: 50, outputTokens: 2, reasoningTokens: 0, source: .reported)
        expected.suspect = "cachedContentTokenCount 50 exceeds promptTokenCount 10, which includes it"
        #expect(response.usage == expected, "not 110 input with 50 cached, a plausible 45%")
        let fine = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                       usage: #"{"promptTokenCount":50,"cachedContentTokenCount":50,"toolUsePromptTokenCount":10}"#))]).get()
        #expect(fine.usage.inputTokens == 60 && fine.usage.suspect == nil, "a prompt served wholly from the cache is possible")
    }

    @Test("a totalTokenCount below the counts it totals cannot be true: input and output are unknown and the usage is flagged")
    func totalBelowItsParts() throws {
        let usage = #"{"promptTokenCount":100,"cachedContentTokenCount":40,"candidatesTokenCount":20,"thoughtsTokenCount":30,"totalTokenCount":120}"#
        let response = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: usage))]).get()
        var expected = Usage(inputTokens: nil, cachedInputTokens: 40, outputTokens: nil, reasoningTokens: 30, source: .reported)
        expected.suspect = "totalTokenCount 120 is below promptTokenCount 100 + candidatesTokenCount 20 + thoughtsTokenCount 30 = 150, the counts it totals"
        #expect(response.usage == expected, "not 100 input and 50 output, figures a total of 120 says cannot all be true")
        #expect(response.usage.checked() == expected, "the backend's note is the one kept")
        let toolUse = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                          usage: #"{"promptTokenCount":50,"toolUsePromptTokenCount":30,"candidatesTokenCount":2,"totalTokenCount":52}"#))]).get()
        #expect(toolUse.usage.inputTokens == nil && toolUse.usage.outputTokens == nil)
        #expect(toolUse.usage.suspect?.hasPrefix("totalTokenCount 52 is below promptTokenCount 50 + candidatesTokenCount 2 + toolUsePromptTokenCount 30 = 82") == true,
                "the total includes the tool-use prompt tokens: \(toolUse.usage)")
        let failed = try #require(failureOf(read([(1, chunk(#"[{"text":"x"}]"#, usage: #"{"promptTokenCount":9,"totalTokenCount":8}"#)),
                                                  (2, chunk(#"[{"text":""}]"#, finish: "SAFETY"))])))
        #expect(failed.usage?.inputTokens == nil && failed.usage?.suspect?.hasPrefix("totalTokenCount 8 is below") == true,
                "a failure keeps the same reading of its usage")
    }

    @Test("a totalTokenCount equal to its parts, or above the parts reported (one left out, or one newer than evalbench), is not flagged")
    func totalAtOrAboveItsParts() throws {
        let recorded = #"{"promptTokenCount":21,"candidatesTokenCount":445,"thoughtsTokenCount":213,"toolUsePromptTokenCount":234,"totalTokenCount":913}"#
        let equal = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP", usage: recorded))]).get()
        #expect(equal.usage == Usage(inputTokens: 255, cachedInputTokens: 0, outputTokens: 658, reasoningTokens: 213, source: .reported))
        #expect(equal.usage.implausibility == nil)
        let above = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                        usage: #"{"promptTokenCount":100,"candidatesTokenCount":20,"totalTokenCount":150}"#))]).get()
        #expect(above.usage == Usage(inputTokens: 100, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0, source: .reported))
        #expect(above.usage.implausibility == nil, "the 30 more may be thoughts a server did not break out: not evidence of a lie")
        let cached = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                         usage: #"{"promptTokenCount":100,"cachedContentTokenCount":90,"candidatesTokenCount":10,"totalTokenCount":110}"#))]).get()
        #expect(cached.usage.suspect == nil && cached.usage.inputTokens == 100, "the cached count is inside the prompt count, not added to the total")
    }

    @Test("a totalTokenCount out of range is flagged on its own, and the sums, which do not include it, are kept")
    func totalOutOfRange() throws {
        for (total, why) in [("2000000000", "totalTokenCount 2000000000 is above 1000000000, more than any model takes"),
                             ("-1", "totalTokenCount -1 is negative")] {
            let response = try read([(1, chunk(#"[{"text":"x"}]"#, finish: "STOP",
                                               usage: #"{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":\#(total)}"#))]).get()
            #expect(response.usage.inputTokens == 10 && response.usage.outputTokens == 2)
            #expect(response.usage.suspect == why, "\(response.usage)")
        }
    }

    @Test("events split byte by byte with CRLF line ends are read whole")
    func splitEvents() throws {
        let text = chunk(#"[{"text":"Hel"}]"#) + chunk(#"[{"text":"lo"}]"#, finish: "STOP")
        let pieces = Array(text).enumerated().map { (ms: Double($0.offset) * 0.01, text: String($0.element)) }
        #expect(try read(pieces).get().text == "Hello")
    }

    @Test("safety-type finish reasons are guardrail failures", arguments: [
        "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "RECITATION",
    ])
    func guardrailFinish(reason: String) throws {
        let result = read([(1, chunk(#"[{"text":"partial"}]"#)), (2, chunk(#"[{"text":""}]"#, finish: reason))])
        let failure = try #require(failureOf(result))
        #expect(failure.kind == .guardrail)
        #expect(failure.message.contains(reason))
        #expect(failure.timing?.ttftMs != nil, "measurements up to the block are kept")
    }

    @Test("finish reasons that are not guardrails map to their kinds", arguments: [
        ("MALFORMED_FUNCTION_CALL", ErrorKind.decoding), ("UNEXPECTED_TOOL_CALL", .decoding),
        ("LANGUAGE", .badRequest), ("OTHER", .server),
    ])
    func otherFinish(reason: String, kind: ErrorKind) throws {
        let failure = try #require(failureOf(read([(1, chunk(#"[{"text":""}]"#, finish: reason))])))
        #expect(failure.kind == kind)
    }

    @Test("an unknown finish reason after an answer keeps the answer and records the reason")
    func unknownFinishWithAnswer() throws {
        let response = try read([(1, chunk(#"[{"text":"ok"}]"#, finish: "OTHER"))]).get()
        #expect(response.text == "ok")
        #expect(response.finishReason == "OTHER")
    }

    @Test("a blocked prompt is a guardrail failure naming the block reason", arguments: [
        "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "OTHER",
    ])
    func promptBlocked(reason: String) throws {
        let event = #"data: {"promptFeedback":{"blockReason":"\#(reason)"},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8},"modelVersion":"m"}"# + "\r\n\r\n"
        let failure = try #require(failureOf(read([(1, event)])))
        #expect(failure.kind == .guardrail)
        #expect(failure.message.contains("blockReason \(reason)"))
    }

    @Test("an error event after HTTP 200 is classified like the HTTP error", arguments: [
        (503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ErrorKind.overloaded),
        (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", .rateLimited),
        (500, "INTERNAL", "An internal error has occurred.", .server),
        (400, "INVALID_ARGUMENT", "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).", .contextOverflow),
    ])
    func errorEvent(code: Int, status: String, message: String, kind: ErrorKind) throws {
        let event = #"data: {"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)"}}"# + "\r\n\r\n"
        let failure = try #require(failureOf(read([(1, chunk(#"[{"text":"par"}]"#)), (2, event)])))
        #expect(failure.kind == kind)
        #expect(failure.message.contains("error event in the stream"))
        #expect(failure.timing?.ttftMs != nil)
    }

    @Test("a bare JSON error appended after the last event is found when the stream ends")
    func bareErrorTail() throws {
        let tail = "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"This model is currently experiencing high demand.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n"
        let failure = try #require(failureOf(read([(1, chunk(#"[{"text":"Ok"}]"#)), (2, tail)])))
        #expect(failure.kind == .overloaded)
    }

    @Test("a stream that ends with no candidate finishReason is a network failure, ended mid-stream")
    func truncated() throws {
        let failure = try #require(failureOf(read([(1, chunk(#"[{"text":"half an ans"}]"#))])))
        #expect(failure.kind == .network)
        #expect(failure.message.contains("ended mid-stream"))
    }

    @Test("a data event that is not JSON is a decoding failure")
    func malformed() throws {
        let failure = try #require(failureOf(read([(1, "data: {not json\r\n\r\n")])))
        #expect(failure.kind == .decoding)
    }

    @Test("an HTTP error status is classified from its Google error body")
    func httpError() throws {
        let body = #"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#
        let failure = try #require(failureOf(read([(1, body)], status: 503)))
        #expect(failure.kind == .overloaded)
        #expect(failure.httpStatus == 503)
        #expect(failure.message.contains("UNAVAILABLE"))
    }
}
