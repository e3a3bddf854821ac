import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let key = "sk-hostile-7f3a9c1e5b2d4086XYZ"

private func ask(_ server: FakeHTTPServer, transport: any HTTPStreaming = URLSessionStreamTransport()) async -> Result<ModelResponse, BackendFailure> {
    let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"),
                                apiKey: key, concurrency: 1, transport: transport)
    let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "hi")],
                               options: GenerationOptions(), timeoutSeconds: 10)
    return await backend.startConversation().respond(to: request)
}

private func events(_ chunks: [String]) -> FakeHTTPResponse {
    .stream(headers: ["Content-Type": "text/event-stream"], pieces: (chunks.map { "data: \($0)\n\n" } + ["data: [DONE]\n\n"]).map { .init($0) })
}

private let both: [any HTTPStreaming & Sendable] = [URLSessionStreamTransport(), DefaultStreamTransport()]

/// What a server sends that it should not: each is kept apart from the figures, named, and
/// never costs an answer that came (found by probing the built tool with hostile servers).
@Suite("Hostile responses: redirects, pages that are not the API, unreadable counts", .serialized)
struct HostileResponseTests {
    @Test("a redirect is not followed by either client: the key never goes where it points")
    func redirectNotFollowed() async throws {
        let elsewhere = FakeHTTPServer { _ in events([#"{"choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":"stop"}]}"#]) }
        try elsewhere.start()
        defer { elsewhere.stop() }
        let target = elsewhere.baseURL.absoluteString + "/v1/chat/completions"
        let redirecting = FakeHTTPServer { _ in .full(status: 307, headers: ["Location": target]) }
        try redirecting.start()
        defer { redirecting.stop() }
        for transport in both {
            guard case let .failure(failure) = await ask(redirecting, transport: transport) else {
                Issue.record("\(transport): the redirect was followed")
                continue
            }
            #expect(failure.kind == .badRequest && failure.httpStatus == 307)
            #expect(failure.message.contains("redirect to \(target)") && failure.message.contains("does not follow redirects"), "\(failure.message)")
        }
        #expect(elsewhere.requests.isEmpty, "the other server saw \(elsewhere.requests.count) requests")
    }

    @Test("a page that is not an event stream says so, naming its Content-Type and first bytes")
    func notAnEventStream() async throws {
        let page = FakeHTTPServer { _ in .full(status: 200, headers: ["Content-Type": "text/html"], body: Data("<h1>Welcome to nginx!</h1>".utf8)) }
        try page.start()
        defer { page.stop() }
        for transport in both {
            guard case let .failure(failure) = await ask(page, transport: transport) else {
                Issue.record("\(transport): an HTML page was taken as an answer")
                continue
            }
            #expect(failure.kind == .badRequest)
            #expect(failure.message.contains("Content-Type text/html") && failure.message.contains("Welcome to nginx"), "\(failure.message)")
        }
    }

    @Test("a provider's own reading of a body that is not a stream stands: a Gemini JSON error stays overloaded")
    func providerReadingStands() async throws {
        let body = #"[{"error": {"code": 503, "status": "UNAVAILABLE", "message": "The model is overloaded."}}]"#
        let server = FakeHTTPServer { _ in .full(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)) }
        try server.start()
        defer { server.stop() }
        let backend = GeminiBackend(name: "g", model: "gemini-2.5-flash", baseURL: server.baseURL, apiKey: key,
                                    concurrency: 1, transport: URLSessionStreamTransport())
        let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "hi")],
                                   options: GenerationOptions(), timeoutSeconds: 10)
        guard case let .failure(failure) = await backend.startConversation().respond(to: request) else {
            Issue.record("an error body was taken as an answer")
            return
        }
        #expect(failure.kind == .overloaded, "\(failure)")
        #expect(FailureMeaning.of(status: 307).what.hasPrefix("redirect, not followed"), "embeddings and other direct classifiers name a redirect too")
    }

    @Test("a key the server echoes just past a clip leaves none of itself in the message")
    func keyAcrossTheClip() async throws {
        // The clip keeps 300 characters: 20, 10 and 5 of the key's before it, then none.
        for padding in [280, 290, 295, 300] {
            let message = String(repeating: "x", count: padding) + key
            let body = #"{"error": {"message": "\#(message)", "type": "invalid_request_error"}}"#
            let server = FakeHTTPServer { _ in .full(status: 400, headers: ["Content-Type": "application/json"], body: Data(body.utf8)) }
            try server.start()
            defer { server.stop() }
            guard case let .failure(failure) = await ask(server) else { Issue.record("a 400 must fail"); continue }
            #expect(!failure.message.contains(key.prefix(4)), "\(padding): \(failure.message)")
            #expect(padding == 300 || failure.message.hasSuffix("[redacted]…"), "\(padding): \(failure.message)")
        }
    }

    @Test("a count that is not a whole number leaves that figure unknown and keeps the answer", arguments: [
        "1e30", "10.5", "18446744073709551616", #""10""#, "true",
    ])
    func unreadableCount(_ count: String) async throws {
        let server = FakeHTTPServer { _ in
            events([#"{"choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":"stop"}]}"#,
                    #"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":\#(count)}}"#])
        }
        try server.start()
        defer { server.stop() }
        for transport in both {
            let response = try await ask(server, transport: transport).get()
            #expect(response.text == "Paris")
            #expect(response.usage.inputTokens == 10 && response.usage.outputTokens == nil)
            #expect(response.usage.suspect?.hasPrefix("completion_tokens is ") == true, "\(response.usage)")
            #expect(response.usage.implausibility != nil, "a flagged usage is kept out of sums and ratios")
        }
    }

    @Test("a usage that is not an object keeps the answer on both clients: every figure unknown, and a note", arguments: [
        "[1,2,3]", #""n/a""#,
    ])
    func usageNotAnObject(_ usage: String) async throws {
        let server = FakeHTTPServer { _ in
            events([#"{"choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":null}]}"#,
                    #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
                    #"{"choices":[],"usage":\#(usage)}"#])
        }
        try server.start()
        defer { server.stop() }
        for transport in both {
            let response = try await ask(server, transport: transport).get()
            #expect(response.text == "Paris" && response.finishReason == "stop")
            #expect(response.usage.inputTokens == nil && response.usage.outputTokens == nil, "\(response.usage)")
            #expect(response.usage.suspect?.hasPrefix("usage is ") == true, "\(response.usage)")
            #expect(response.usage.implausibility != nil, "a flagged usage is kept out of sums and ratios")
        }
    }

    @Test("the Anthropic and Gemini readers leave unreadable counts unknown too, and name a part out of range")
    func otherProviders() throws {
        let anthropic = try JSONDecoder().decode(AnthropicUsage.self, from: Data(#"{"input_tokens": 5, "output_tokens": 1e30}"#.utf8))
        let normalised = AnthropicUsageNormaliser.usage(anthropic)
        #expect(normalised.inputTokens == 5 && normalised.outputTokens == nil)
        #expect(normalised.suspect?.hasPrefix("output_tokens is 1e+30") == true, "\(normalised)")
        let negative = AnthropicUsageNormaliser.usage(AnthropicUsage(inputTokens: -60, outputTokens: 1, cacheReadInputTokens: 100))
        #expect(negative.suspect == "input_tokens -60 is negative")
        let gemini = try JSONDecoder().decode(GeminiUsage.self, from: Data(#"{"promptTokenCount": 100, "toolUsePromptTokenCount": -60, "cachedContentTokenCount": 30, "candidatesTokenCount": "2"}"#.utf8))
        let geminiUsage = GeminiUsageNormaliser.usage(gemini)
        #expect(geminiUsage.suspect?.hasPrefix("candidatesTokenCount is the string") == true, "\(geminiUsage)")
        let hidden = GeminiUsageNormaliser.usage(GeminiUsage(promptTokenCount: 100, cachedContentTokenCount: 30, candidatesTokenCount: 2,
                                                             toolUsePromptTokenCount: -60))
        #expect(hidden.inputTokens == nil, "not 40, a sum that looks possible")
        #expect(hidden.suspect == "toolUsePromptTokenCount -60 is negative" && hidden.cacheHitRatio == nil)
        let decoded = try JSONDecoder().decode(OpenAIUsage.self, from: Data(#"{"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": -0.5}}"#.utf8))
        #expect(decoded.promptTokens == 3 && decoded.promptTokensDetails?.cachedTokens == nil)
        #expect(decoded.unreadable.first?.hasPrefix("cached_tokens is -0.5") == true, "\(decoded)")
        let timings = try JSONDecoder().decode(LlamaTimings.self, from: Data(#"{"cache_n": 1.5, "prompt_n": 9}"#.utf8))
        #expect(timings.cacheN == nil && timings.promptN == 9 && timings.unreadable.keys == ["cache_n"])
    }

    @Test("a figure summed from an unreadable count is unknown, not the sum of the rest; a later readable count clears it")
    func sumsWithAnUnreadablePart() throws {
        let gemini = try JSONDecoder().decode(GeminiUsage.self, from: Data(#"{"promptTokenCount": "100", "candidatesTokenCount": 7}"#.utf8))
        let geminiUsage = GeminiUsageNormaliser.usage(gemini)
        #expect(geminiUsage.inputTokens == nil && geminiUsage.outputTokens == 7, "\(geminiUsage)")
        let start = try JSONDecoder().decode(AnthropicUsage.self, from: Data(#"{"input_tokens": 5, "cache_read_input_tokens": 1e40}"#.utf8))
        let started = AnthropicUsageNormaliser.usage(start)
        #expect(started.inputTokens == nil && started.cachedInputTokens == nil && started.suspect != nil, "\(started)")
        let delta = AnthropicUsage(inputTokens: 5, outputTokens: 3, cacheReadInputTokens: 40)
        let finished = AnthropicUsageNormaliser.usage(start.updated(by: delta))
        #expect(finished.inputTokens == 45 && finished.cachedInputTokens == 40 && finished.suspect == nil, "\(finished)")
        // The note names a count still unreadable, not one a later event gave.
        let two = try JSONDecoder().decode(AnthropicUsage.self, from: Data(#"{"input_tokens": "5", "output_tokens": 1.5}"#.utf8))
        #expect(AnthropicUsageNormaliser.usage(two).suspect?.hasPrefix("input_tokens is ") == true)
        let cleared = AnthropicUsageNormaliser.usage(two.updated(by: AnthropicUsage(inputTokens: 5)))
        #expect(cleared.inputTokens == 5 && cleared.suspect?.hasPrefix("output_tokens is 1.5") == true, "\(cleared)")
        let timings = try JSONDecoder().decode(LlamaTimings.self, from: Data(#"{"prompt_n": -0.5, "cache_n": 1.5}"#.utf8))
        #expect(timings.unreadable.note(for: "cache_n")?.hasPrefix("cache_n is 1.5") == true)
    }

    @Test("an Anthropic input total with an impossible part is unknown; the cache figures stay as reported")
    func anthropicTotalWithAnImpossiblePart() throws {
        let written = try JSONDecoder().decode(AnthropicUsage.self, from: Data(
            #"{"input_tokens": 5, "cache_read_input_tokens": 10, "cache_creation_input_tokens": -20, "output_tokens": 3}"#.utf8))
        var expected = Usage(inputTokens: nil, cachedInputTokens: 10, cacheWriteInputTokens: -20, outputTokens: 3, source: .reported)
        expected.suspect = "cache_creation_input_tokens -20 is negative"
        #expect(AnthropicUsageNormaliser.usage(written) == expected, "not 5 + 10 + -20 = -5 input")
        let read = AnthropicUsageNormaliser.usage(AnthropicUsage(inputTokens: 5, outputTokens: 3, cacheCreationInputTokens: 10,
                                                                 cacheReadInputTokens: 2_000_000_000))
        #expect(read.inputTokens == nil && read.cachedInputTokens == 2_000_000_000)
        #expect(read.suspect == "cache_read_input_tokens 2000000000 is above 1000000000, more than any model takes")
        let uncached = AnthropicUsageNormaliser.usage(AnthropicUsage(inputTokens: -60, outputTokens: 1, cacheReadInputTokens: 100))
        #expect(uncached.inputTokens == nil, "not 40 input with 100 cached")
        let plausible = AnthropicUsageNormaliser.usage(AnthropicUsage(inputTokens: 5, outputTokens: 3, cacheCreationInputTokens: 20,
                                                                      cacheReadInputTokens: 10))
        #expect(plausible.inputTokens == 35 && plausible.suspect == nil)
    }

    @Test("a tool loop's usage is unknown when one round's cannot be true, and names the round")
    func toolLoopSumWithAnImpossibleRound() {
        let first = Usage(inputTokens: -5, cachedInputTokens: 0, outputTokens: 2, source: .reported)
        let second = Usage(inputTokens: 10, cachedInputTokens: 4, outputTokens: 3, source: .reported)
        var expected = Usage(source: .reported)
        expected.suspect = "round 1: input_tokens -5 is negative"
        #expect(ToolLoop.sum([first, second]) == expected, "not 5 input tokens with the note lost")
        var flagged = Usage(inputTokens: 8, outputTokens: 1, source: .reported)
        flagged.suspect = "toolUsePromptTokenCount -3 is negative"
        #expect(ToolLoop.sum([second, flagged]).suspect == "round 2: toolUsePromptTokenCount -3 is negative")
        #expect(ToolLoop.sum([second, second]) == Usage(inputTokens: 20, cachedInputTokens: 8, outputTokens: 6, source: .reported))
    }

    @Test("a stream cut short is timed to when it broke, not to its last bytes, on both clients", arguments: [0, 1])
    func brokenStreamTimedToTheBreak(_ client: Int) async throws {
        let server = FakeHTTPServer { _ in
            .stream(headers: ["Content-Type": "text/event-stream"],
                    pieces: [.init(#"data: {"choices":[{"index":0,"delta":{"content":"Par"}}]}"# + "\n\n"), .init(afterMs: 300, Data())])
        }
        try server.start()
        defer { server.stop() }
        guard case let .failure(failure) = await ask(server, transport: both[client]) else {
            Issue.record("a stream with no end was taken")
            return
        }
        #expect(failure.kind == .network, "\(failure)")
        let timing = try #require(failure.timing)
        let first = try #require(timing.firstTokenMs), end = try #require(timing.endMs)
        #expect(end >= 295 && end > first, "first token \(first) ms, end \(end) ms: the latency is to the break")
    }

    @Test("a llama.cpp chunk whose timings hold a fraction keeps its answer")
    func unreadableTimings() async throws {
        let server = FakeHTTPServer { _ in
            events([#"{"choices":[{"index":0,"delta":{"content":"Paris"},"finish_reason":"stop"}],"timings":{"cache_n":1.5,"prompt_n":4}}"#])
        }
        try server.start()
        defer { server.stop() }
        let response = try await ask(server).get()
        #expect(response.text == "Paris" && response.usage.cachedInputTokens == nil)
        #expect(response.usage.suspect?.hasPrefix("cache_n is 1.5") == true, "\(response.usage)")
    }

    @Test("checks and rates on impossible usage use none of it, and say why")
    func impossibleUsage() {
        let usage = Usage(inputTokens: 10, cachedInputTokens: 5, outputTokens: -2, source: .reported).checked()
        let check = MeasurementChecks.outputTokens(usage, 8)
        #expect(!check.holds && check.actual.contains("impossible usage (output_tokens -2 is negative)"), "\(check.actual)")
        #expect(MeasurementChecks.cacheHitRatio(usage, 0.1).actual.contains("impossible usage"))
        #expect(MeasurementChecks.cacheHitRatio(Usage(inputTokens: 0, cachedInputTokens: 0), 0.1).actual == "nothing: the backend reported 0 input tokens")
        #expect(MeasurementChecks.cacheHitRatio(Usage(inputTokens: 4), 0.1).actual.contains("did not report"))
        let result = fixtureResult(caseID: "a", status: .pass, latencyMs: 250, ttftMs: 50, usage: usage)
        let row = ResultsCSV.render([result]).components(separatedBy: "\r\n")[1].components(separatedBy: ",")
        #expect(row[13] == "" && row[14] == "", "tpot and output_tps are empty: \(row)")
        let tokens = Array(row[15...18])
        #expect(tokens == ["", "", "", ""], "no figure of an impossible usage is shown as a number: \(row)")
        #expect(row.last == "output_tokens -2 is negative", "usage_suspect says why: \(row)")
    }

    @Test("a backend none of whose requests was answered exits 3, whatever the error; the model's own failures do not")
    func nothingAnswered() {
        for kind in [ErrorKind.rateLimited, .quotaExhausted, .overloaded, .server, .badRequest] {
            let results = (1...3).map { fixtureResult(caseID: "c\($0)", status: .error, errorKind: kind, errorMessage: "x") }
            let verdict = Gate(minPassRate: 0).evaluate(results, unavailableBackends: [])
            #expect(verdict.exitStatus == .infrastructure, "\(kind): \(verdict)")
        }
        for kind in [ErrorKind.refusal, .guardrail, .contextOverflow, .decoding] {
            let results = (1...3).map { fixtureResult(caseID: "c\($0)", status: .error, errorKind: kind, errorMessage: "x") }
            #expect(Gate(maxErrorRate: 1).evaluate(results, unavailableBackends: []).exitStatus == .gateFailed, "\(kind)")
        }
    }

    @Test("a Retry-After longer than evalbench waits is not retried, and the failure says so")
    func retryAfterTooLong() async {
        let policy = RetryPolicy(maxRetries: 3)
        let (result, attempts) = await policy.run { () async -> Result<Int, BackendFailure> in
            .failure(BackendFailure(kind: .rateLimited, message: "slow down", httpStatus: 429, retryAfterSeconds: 1e12))
        }
        #expect(attempts == 1)
        guard case let .failure(failure) = result else { Issue.record("succeeded"); return }
        #expect(failure.message == "slow down (not retried: the server asked to wait 1e+12 s, more than the 120 s evalbench waits at most)")
        let (ordinary, _) = await RetryPolicy(maxRetries: 0).run { () async -> Result<Int, BackendFailure> in
            .failure(BackendFailure(kind: .rateLimited, message: "slow down", retryAfterSeconds: 1e12))
        }
        #expect((try? ordinary.get()) == nil && { if case let .failure(f) = ordinary { f.message == "slow down" } else { false } }(),
                "with no retries allowed there is nothing to explain")
    }
}

@Suite("Text from servers and files cannot drive the terminal")
struct TerminalTextTests {
    @Test("control characters in an error, a verdict or a diagnostic are printed as escapes")
    func controlsEscaped() {
        #expect(TerminalText.safe("ok\tfine é") == "ok\tfine é")
        #expect(TerminalText.safe("a\u{1B}]0;pwned\u{07}\u{1B}[2J\r\nb\u{9B}") == #"a\u{1B}]0;pwned\u{7}\u{1B}[2J\u{D}\u{A}b\u{9B}"#)
        let result = fixtureResult(caseID: "a", status: .error, errorKind: .server, errorMessage: "boom \u{1B}[31mred\n# forged")
        let lines = TerminalSummary(color: false).run([result], verdict: Gate().evaluate([result], unavailableBackends: []),
                                                      directory: URL(fileURLWithPath: "/tmp/x"))
        #expect(!lines.joined().unicodeScalars.contains { $0.value == 0x1B }, "\(lines)")
        #expect(lines.contains { $0.contains(#"boom \u{1B}[31mred\u{A}# forged"#) }, "\(lines)")
        let diagnostic = Diagnostic(file: "s.json", path: "$.cases[0].id", message: "the id 'a\u{1B}[2J' may contain only letters")
        #expect(!diagnostic.description.unicodeScalars.contains { $0.value == 0x1B } && diagnostic.description.contains(#"a\u{1B}[2J"#))
    }
}

@Suite("Figures read back from a file are checked as a server's are")
struct ReadBackFigureTests {
    @Test("a results.jsonl line edited to a negative or absurd time reads as unknown, with a note")
    func negativeTimesReadAsUnknown() throws {
        let directory = PackagePaths.temporaryDirectory("read-back")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        var result = fixtureResult(caseID: "a", status: .pass, latencyMs: 120, ttftMs: 40)
        result.timing?.endMs = -10
        result.timing?.firstTokenMs = 1e300
        let store = try ResultStore(url: url)
        try store.append(result)
        try store.close()
        let read = try #require(try ResultStore.read(url).first)
        #expect(read.timing?.endMs == nil && read.timing?.firstTokenMs == nil, "\(String(describing: read.timing))")
        #expect(read.unknownFigures?.contains("timing.end_ms unknown: -10.0 ms is negative") == true, "\(read.unknownFigures ?? [])")
        // Written by hand, past the store's own check.
        let line = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(!line.contains("\"end_ms\":-10"), "the store wrote no negative time either")
        let edited = line.replacingOccurrences(of: "\"timing\":{", with: "\"timing\":{\"end_ms\":-5,")
        try Data(edited.utf8).write(to: url)
        let reread = try #require(try ResultStore.read(url).first)
        #expect(reread.timing?.endMs == nil, "\(edited)")
    }
}

@Suite("OpenAI tool calls as servers stream them")
struct ToolCallAccumulationTests {
    private func piece(_ index: Int?, _ id: String?, _ name: String?, _ arguments: String?) -> OpenAIChunk.ToolCallDelta {
        OpenAIChunk.ToolCallDelta(index: index, id: id, function: .init(name: name, arguments: arguments))
    }

    @Test("whole calls streamed without index are separate calls; fragments without one continue the last")
    func withoutIndex() {
        var calls = OpenAIToolCallAccumulator()
        calls.add([piece(nil, "z1", "get_weather", #"{"city":"Paris"}"#)])
        calls.add([piece(nil, "z2", "get_weather", #"{"city":"#)])
        calls.add([piece(nil, nil, nil, #""Tokyo"}"#)])
        #expect(calls.toolCalls.map(\.id) == ["z1", "z2"])
        #expect(calls.toolCalls.map(\.name) == ["get_weather", "get_weather"])
        #expect(calls.toolCalls.map(\.argumentsText) == [#"{"city":"Paris"}"#, #"{"city":"Tokyo"}"#])
        var oneChunk = OpenAIToolCallAccumulator()
        oneChunk.add([piece(nil, nil, "a", "{}"), piece(nil, nil, "b", "{}")])
        #expect(oneChunk.toolCalls.map(\.name) == ["a", "b"], "two pieces of one chunk are two calls")
    }

    @Test("a repeated id, or a made-up one that a server's id already has, is made unique")
    func uniqueIDs() {
        var calls = OpenAIToolCallAccumulator()
        calls.add([piece(0, "same", "a", "{}"), piece(1, "same", "b", "{}"), piece(2, "call_3", "c", "{}"), piece(3, nil, "d", "{}")])
        #expect(calls.toolCalls.map(\.id) == ["same", "same_2", "call_3", "call_3_2"])
    }
}

extension ToolCallAccumulationTests {
    @Test("arguments sent as an object, not a string of JSON, are read as that object's JSON")
    func objectArguments() throws {
        let chunk = #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"finish_reason":null}]}"#
        let decoded = try #require(try? JSONDecoder().decode(OpenAIChunk.self, from: Data(chunk.utf8)))
        let call = try #require(decoded.choices?.first?.delta?.toolCalls?.first)
        #expect(call.function?.arguments == #"{"city":"Paris"}"#)
    }
}

extension ReadBackFigureTests {
    @Test("a result line that is valid JSON but does not decode is not called invalid JSON")
    func undecodableFieldNamed() throws {
        let directory = PackagePaths.temporaryDirectory("read-back-field")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        let store = try ResultStore(url: url)
        try store.append(fixtureResult(caseID: "a", status: .pass, usage: Usage(inputTokens: 3)))
        try store.close()
        let line = String(decoding: try Data(contentsOf: url), as: UTF8.self).replacingOccurrences(of: "\"input_tokens\":3", with: "\"input_tokens\":1.5")
        try Data(line.utf8).write(to: url)
        var warnings: [Diagnostic] = []
        _ = try ResultStore.read(url) { warnings.append($0) }
        let message = warnings.first?.message ?? ""
        #expect(message.contains("usage.input_tokens") || message.contains("the line is valid JSON, but a value in it is not of the type"), "\(warnings)")
    }
}

extension ReadBackFigureTests {
    @Test("a line repeated in results.jsonl is read once, with a warning at the repeat")
    func repeatedLine() throws {
        let directory = PackagePaths.temporaryDirectory("read-back-twice")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        let store = try ResultStore(url: url)
        try store.append(fixtureResult(caseID: "a", status: .pass))
        try store.append(fixtureResult(caseID: "a", turn: 2, turns: 2, status: .pass))
        try store.close()
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        try Data((text + text.split(separator: "\n")[0] + "\n").utf8).write(to: url)
        var warnings: [Diagnostic] = []
        let results = try ResultStore.read(url) { warnings.append($0) }
        #expect(results.count == 2, "both turns once")
        #expect(warnings.count == 1 && warnings[0].location?.line == 3 && warnings[0].message.hasPrefix("a second result for"), "\(warnings)")
    }
}

extension ReadBackFigureTests {
    @Test("the read-only check finds exactly the results the clearing changes")
    func unfitCheckAgrees() {
        var samples: [RequestResult] = [fixtureResult(caseID: "a", status: .pass, latencyMs: 10, ttftMs: 2)]
        for change in 0..<7 {
            var result = fixtureResult(caseID: "a", status: .pass, latencyMs: 10, ttftMs: 2, costUSD: 0.1)
            switch change {
            case 0: result.timing?.endMs = -1
            case 1: result.timing?.firstTokenMs = .infinity
            case 2: result.timing?.firstAnswerTokenMs = 2e9
            case 3: result.costUSD = .nan
            case 4: result.score = -.infinity
            case 5: result.assertions = [AssertionResult(type: "contains", name: "x", passed: true, weight: .infinity)]
            default: result.timing?.endMs = 0
            }
            samples.append(result)
        }
        for (index, result) in samples.enumerated() {
            #expect(result.hasUnfitFigures == (result.withFiniteFigures() != result), "sample \(index)")
        }
        #expect(samples.filter(\.hasUnfitFigures).count == 6)
    }
}

extension ToolCallAccumulationTests {
    @Test("every provider's calls get usable, distinct ids: an empty one is made up, a repeated one numbered")
    func sharedUniqueIDs() {
        let calls = [ToolCall(id: "", name: "a", argumentsText: "{}"), ToolCall(id: "toolu_X", name: "b", argumentsText: "{}"),
                     ToolCall(id: "toolu_X", name: "c", argumentsText: "{}"), ToolCall(id: "toolu_1", name: "d", argumentsText: "{}")]
        #expect(ToolCall.withUniqueIDs(calls) { "toolu_\($0 + 1)" }.map(\.id) == ["toolu_1", "toolu_X", "toolu_X_2", "toolu_1_2"])
    }
}

extension Usage {
    /// A usage that was reported but gave no figure that could be read, flagged with `note`.
    static func noneKnown(_ note: String) -> Usage {
        var usage = Usage(source: .reported)
        usage.suspect = note
        return usage
    }
}
