import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// A weather tool whose canned results answer Paris and, by default, any other city.
let weatherSuite = """
{ "format": "evalbench.suite/1", "suite": "tools",
  "tools": [
    { "name": "get_weather", "description": "Current weather in a city.",
      "parameters": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"],
                      "additionalProperties": false },
      "results": [ { "when": { "city": "Paris" }, "result": { "celsius": 18, "sky": "clear" } },
                   { "error": "unknown city" } ] },
    { "name": "get_time", "description": "Current time in a city.",
      "parameters": { "type": "object", "properties": { "city": { "type": "string" } } },
      "results": [ { "result": "12:00" } ] } ],
  "options": { "maxToolRounds": 2 },
  "cases": [ { "id": "weather", "prompt": "Weather in Paris?",
               "expect": [ { "type": "toolCalled", "tool": "get_weather", "arguments": { "city": "Paris" }, "times": 1 },
                           { "type": "toolSequence", "names": ["get_weather"] },
                           { "type": "toolArgumentsValid" },
                           { "type": "contains", "value": "18" } ] } ] }
"""

/// Runs `weatherSuite` on one backend of `kind` at `baseURL`; the results and the out directory.
func runWeatherSuite(kind: String, baseURL: String, name: String) async throws -> (results: [RequestResult], out: URL, fixture: RunFixture) {
    let keyField = kind == "openai" ? "" : #", "apiKeyEnv": "EVALBENCH_TEST_TOOL_KEY""#
    let fixture = try RunFixture(name, suite: weatherSuite, config: """
    { "backends": [ { "name": "b", "kind": "\(kind)", "model": "m", "baseURL": "\(baseURL)"\(keyField) } ] }
    """)
    let out = fixture.directory.appendingPathComponent("out")
    let request = RunRequest(suitePaths: [fixture.suitePath], configPath: fixture.configPath, outputDirectory: out.path,
                             environment: ["EVALBENCH_TEST_TOOL_KEY": "sk-tool-secret-0000"])
    let loaded = try EvalRun.load(request)
    let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
    return (Array(outcome.results), out, fixture)
}

/// What every provider's two-round run must record: the call with parsed arguments, the final text, passing tool assertions.
func expectTwoRoundWeather(_ results: [RequestResult], id: String) throws {
    let result = try #require(results.first)
    #expect(result.status == .pass, "\(result.errorMessage ?? "") \(result.failedAssertions.map { $0.message ?? "" })")
    let calls = try #require(result.toolCalls)
    #expect(calls.count == 1)
    #expect(calls.first?.id == id)
    #expect(calls.first?.name == "get_weather")
    #expect(calls.first?.arguments == .object(["city": .string("Paris")]))
    #expect(calls.first?.argumentsText == nil, "kept only when the arguments do not parse")
    #expect(calls.first?.result == #"{"celsius":18,"sky":"clear"}"#)
    #expect(calls.first?.matched == true)
    #expect(result.output == "It is 18 °C and clear.")
    #expect(result.rounds?.count == 2)
    #expect(result.toolRoundCount == 1)
}

extension LoopbackNetworkTests {
    @Test("a turn that switches the tool set breaks the prefix at the tools: the cache section says tools changed")
    func toolsChanged() async throws {
        // The first request caches nothing; the second reads its prefix up to the tools, which changed.
        let server = FakeOpenAIServer(replies: [
            .init(steps: [.content("Hello.")], usage: .init(promptTokens: 200, completionTokens: 2, cachedTokens: 0)),
            .init(steps: [.content("Done.")], usage: .init(promptTokens: 210, completionTokens: 2, cachedTokens: 10)),
        ])
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("tools-changed", suite: """
        { "format": "evalbench.suite/1", "suite": "switch", "instructions": "Be brief.",
          "tools": [ { "name": "a", "description": "A.", "results": [ { "result": 1 } ] } ],
          "cases": [ { "id": "swap", "turns": [
            { "prompt": "Hi." },
            { "prompt": "Again.", "tools": [ { "name": "b", "description": "B.", "results": [ { "result": 2 } ] } ] } ] } ] }
        """, config: """
        { "backends": [ { "name": "b", "kind": "openai", "model": "m", "baseURL": "\(server.baseURL.absoluteString)/v1" } ] }
        """)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out")
        let request = RunRequest(suitePaths: [fixture.suitePath], configPath: fixture.configPath, outputDirectory: out.path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        let second = try #require(outcome.results.first { $0.turn == 2 })
        #expect(second.switched == "tools")
        #expect(second.prefix?.brokenSegment == "tools", "\(String(describing: second.prefix))")
        #expect(second.prefix?.explanation?.hasPrefix("tools changed at character 0") == true)
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("tools changed"), "\(summary)")
    }

    @Test("openai: a streamed tool call in argument fragments is answered with a role tool message carrying its tool_call_id, and the final answer is graded")
    func toolLoopOpenAI() async throws {
        let server = FakeOpenAIServer(replies: [
            .init(steps: [.toolCall(id: "call_abc", name: "get_weather", argumentFragments: [#"{"ci"#, #"ty": "Par"#, #"is"}"#])],
                  finishReason: "tool_calls", usage: .init(promptTokens: 100, completionTokens: 10)),
            .init(steps: [.content("It is 18 °C "), .content("and clear.")], usage: .init(promptTokens: 130, completionTokens: 8)),
        ])
        try server.start()
        defer { server.stop() }
        let (results, out, fixture) = try await runWeatherSuite(kind: "openai", baseURL: "\(server.baseURL.absoluteString)/v1", name: "tools-openai")
        defer { fixture.remove() }
        try expectTwoRoundWeather(results, id: "call_abc")
        let result = try #require(results.first)
        #expect(result.usage.inputTokens == 230, "usage sums the rounds")
        #expect(result.usage.outputTokens == 18)
        #expect(result.rounds?.map(\.usage.inputTokens) == [100, 130], "each round keeps its own usage")

        let requests = server.requests
        #expect(requests.count == 2)
        let tools = try #require(requests[0].body["tools"] as? [[String: Any]])
        #expect(tools.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } == ["get_weather", "get_time"])
        #expect(tools.first?["type"] as? String == "function")
        let second = requests[1].messages
        #expect(second.map(\.role) == ["user", "assistant", "tool"])
        #expect(second[1].toolCalls == [#"get_weather({"city": "Paris"})"#], "the arguments go back exactly as streamed")
        #expect(second[2].toolCallID == "call_abc")
        #expect(second[2].content == #"{"celsius":18,"sky":"clear"}"#)

        let csv = try String(contentsOf: out.appendingPathComponent("results.csv"), encoding: .utf8)
        let lines = csv.split(whereSeparator: \.isNewline)
        #expect(lines.first?.hasSuffix("failed_assertions,tool_calls,tool_rounds,usage_suspect") == true)
        #expect(lines.dropFirst().first?.hasSuffix(",1,1,") == true, "\(lines)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.csv"), encoding: .utf8)
        let header = summary.split(whereSeparator: \.isNewline).first.map { $0.split(separator: ",").map(String.init) } ?? []
        #expect(Array(header.suffix(5)) == ["token_source", "tool_calls", "tool_rounds", "distinct_models", "model_requests"])
        let tokens = try #require(result.toolDefinitionTokens)
        #expect(tokens > 40 && tokens < 120, "two small tools: \(tokens)")
        let markdown = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("## Tools"))
        #expect(markdown.contains("| b · none · default | 1 | 100.0% (1/1) | 1.00 | 1.00 | 100.0% (1/1) | \(tokens) estimated (\(ReportFormat.percentNumber(Double(tokens) / 4096))%) | — |"), "\(markdown)")
        let jsonl = try String(contentsOf: out.appendingPathComponent("results.jsonl"), encoding: .utf8)
        #expect(jsonl.contains(#""tool_calls":[{"#))
        #expect(jsonl.contains(#""matched":true"#))
    }

    @Test("replay: a recorded tool loop replays round by round, the calls answered again and graded as before")
    func replayToolLoop() async throws {
        let server = FakeOpenAIServer(replies: [
            .init(steps: [.toolCall(id: "call_abc", name: "get_weather", argumentFragments: [#"{"city":"Paris"}"#])],
                  finishReason: "tool_calls", usage: .init(promptTokens: 100, completionTokens: 10)),
            .init(steps: [.content("It is 18 °C and clear.")], usage: .init(promptTokens: 130, completionTokens: 8)),
        ])
        try server.start()
        defer { server.stop() }
        let (_, out, fixture) = try await runWeatherSuite(kind: "openai", baseURL: "\(server.baseURL.absoluteString)/v1", name: "tools-replay")
        defer { fixture.remove() }
        try Data(#"{"backends": [{"name": "again", "kind": "replay", "from": "\#(out.path)"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: fixture.configPath))
        let replayOut = fixture.directory.appendingPathComponent("replayed")
        let request = RunRequest(suitePaths: [fixture.suitePath], configPath: fixture.configPath, outputDirectory: replayOut.path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(server.requests.count == 2, "the replay sends nothing")
        try expectTwoRoundWeather(Array(outcome.results), id: "call_abc")
        let result = try #require(outcome.results.first)
        #expect(result.replayed == true)
        #expect(result.usage.inputTokens == 230, "each round's recorded usage, summed once")
    }

    @Test("anthropic: a tool_use block streamed as input_json_delta fragments is answered with a tool_result block in a user message")
    func toolLoopAnthropic() async throws {
        let server = FakeAnthropicServer(replies: [
            .init(steps: [.text("Let me check."), .toolUseFragments(id: "toolu_01", name: "get_weather", fragments: [#"{"city""#, #": "Paris"}"#])],
                  stopReason: "tool_use", usage: .init(inputTokens: 100, outputTokens: 10)),
            .init(steps: [.text("It is 18 °C and clear.")], usage: .init(inputTokens: 140, outputTokens: 8)),
        ])
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "anthropic", baseURL: server.baseURL.absoluteString, name: "tools-anthropic")
        defer { fixture.remove() }
        try expectTwoRoundWeather(results, id: "toolu_01")
        let requests = server.requests
        #expect(requests.count == 2)
        let tools = try #require(requests[0].body["tools"] as? [[String: Any]])
        #expect(tools.first?["name"] as? String == "get_weather")
        #expect((tools.first?["input_schema"] as? [String: Any])?["type"] as? String == "object")
        let messages = try #require(requests[1].body["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String ?? "" } == ["user", "assistant", "user"])
        let assistant = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(assistant.map { $0["type"] as? String ?? "" } == ["text", "tool_use"])
        #expect(assistant[0]["text"] as? String == "Let me check.")
        #expect(assistant[1]["id"] as? String == "toolu_01")
        #expect(assistant[1]["input"] as? [String: String] == ["city": "Paris"])
        let results2 = try #require(messages[2]["content"] as? [[String: Any]])
        #expect(results2.first?["type"] as? String == "tool_result")
        #expect(results2.first?["tool_use_id"] as? String == "toolu_01")
        #expect(results2.first?["content"] as? String == #"{"celsius":18,"sky":"clear"}"#)
        #expect(results2.first?["is_error"] == nil)
    }

    @Test("anthropic with thinking: the thinking block and its signature go back before the tool_use, as the API requires")
    func anthropicThinkingBeforeToolUse() async throws {
        let server = FakeAnthropicServer(replies: [
            .init(steps: [.thinking("Need the weather."), .toolUseFragments(id: "toolu_02", name: "get_weather", fragments: [#"{"city": "Paris"}"#])],
                  stopReason: "tool_use"),
            .init(steps: [.text("It is 18 °C and clear.")]),
        ])
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "anthropic", baseURL: server.baseURL.absoluteString, name: "tools-thinking")
        defer { fixture.remove() }
        try expectTwoRoundWeather(results, id: "toolu_02")
        let messages = try #require(server.requests.last?.body["messages"] as? [[String: Any]])
        let assistant = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(assistant.map { $0["type"] as? String ?? "" } == ["thinking", "tool_use"])
        #expect(assistant[0]["thinking"] as? String == "Need the weather.")
        #expect(assistant[0]["signature"] as? String == "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk")
    }

    @Test("gemini: a functionCall part is answered with a functionResponse part, and its thoughtSignature goes back with the call")
    func toolLoopGemini() async throws {
        let server = FakeGeminiServer(replies: [
            .init(steps: [.functionCallWithArguments(name: "get_weather", argumentsJSON: #"{"city": "Paris"}"#, signature: "sig-1")],
                  finishReason: "STOP", usage: .init(promptTokenCount: 100, candidatesTokenCount: 10)),
            .init(steps: [.text("It is 18 °C and clear.")], finishReason: "STOP", usage: .init(promptTokenCount: 130, candidatesTokenCount: 8)),
        ])
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "gemini", baseURL: server.baseURL.absoluteString, name: "tools-gemini")
        defer { fixture.remove() }
        try expectTwoRoundWeather(results, id: "evalbench-call-1")
        let requests = server.requests
        #expect(requests.count == 2)
        let tools = try #require(requests[0].body["tools"] as? [[String: Any]])
        let declarations = try #require(tools.first?["functionDeclarations"] as? [[String: Any]])
        #expect(declarations.compactMap { $0["name"] as? String } == ["get_weather", "get_time"])
        #expect(declarations.first?["parametersJsonSchema"] != nil)
        let contents = try #require(requests[1].body["contents"] as? [[String: Any]])
        #expect(contents.map { $0["role"] as? String ?? "" } == ["user", "model", "user"])
        let callPart = try #require((contents[1]["parts"] as? [[String: Any]])?.first)
        #expect((callPart["functionCall"] as? [String: Any])?["name"] as? String == "get_weather")
        #expect(callPart["thoughtSignature"] as? String == "sig-1")
        let responsePart = try #require((contents[2]["parts"] as? [[String: Any]])?.first?["functionResponse"] as? [String: Any])
        #expect(responsePart["name"] as? String == "get_weather")
        #expect((responsePart["response"] as? [String: Any])?["celsius"] as? Int == 18)
        #expect(responsePart["id"] == nil, "an id evalbench made up is not sent")
    }

    @Test("a wrong tool fails toolCalled and toolSequence with an explanation that lists the calls made")
    func wrongTool() async throws {
        let server = FakeOpenAIServer(replies: [
            .init(steps: [.toolCall(id: "call_1", name: "get_time", argumentFragments: [#"{"city":"Paris"}"#])], finishReason: "tool_calls"),
            .init(steps: [.content("It is noon.")]),
        ])
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "openai", baseURL: "\(server.baseURL.absoluteString)/v1", name: "tools-wrong")
        defer { fixture.remove() }
        let result = try #require(results.first)
        #expect(result.status == .fail)
        let failed = result.failedAssertions.map(\.type)
        #expect(failed.contains("toolCalled"))
        #expect(failed.contains("toolSequence"))
        let tools = try #require(RunAggregate(results).groups.first?.tools)
        #expect(tools.accuracy == 0)
        #expect(tools.wrongCalls.isEmpty, "get_time's default result matched: the call was wrong for the case, not unanswerable")
        let message = try #require(result.failedAssertions.first { $0.type == "toolCalled" }?.message)
        #expect(message.contains(#"get_time({"city":"Paris"}) (round 1)"#), "\(message)")
    }

    @Test("a model that calls tools forever stops at maxToolRounds with tool_rounds_exceeded, every call recorded")
    func toolsForever() async throws {
        let server = FakeOpenAIServer { _ in
            .init(steps: [.toolCall(id: "call_x", name: "get_weather", argumentFragments: [#"{"city":"Rome"}"#])], finishReason: "tool_calls")
        }
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "openai", baseURL: "\(server.baseURL.absoluteString)/v1", name: "tools-forever")
        defer { fixture.remove() }
        let result = try #require(results.first)
        #expect(result.status == .error)
        #expect(result.errorKind == .toolRoundsExceeded)
        #expect(server.requests.count == 3, "2 rounds answered, then the third call stops the turn")
        #expect(result.toolCalls?.count == 3)
        #expect(result.toolCalls?.first?.result == "unknown city")
        #expect(result.toolCalls?.first?.isError == true)
        #expect(result.toolCalls?.first?.matched == true, "the canned error is a match")
        #expect(result.toolCalls?.last?.result == nil, "the call after the last round is not answered")
    }

    @Test("malformed argument JSON is recorded as its raw text, answered with a tool error and fails toolArgumentsValid")
    func malformedArguments() async throws {
        let server = FakeOpenAIServer(replies: [
            .init(steps: [.toolCall(id: "call_1", name: "get_weather", argumentFragments: [#"{"city": "Par"#]),
                          .toolCall(index: 1, id: "call_2", name: "get_weather", argumentFragments: [#"{"city":"Paris"}"#])],
                  finishReason: "tool_calls"),
            .init(steps: [.content("It is 18 °C and clear.")]),
        ])
        try server.start()
        defer { server.stop() }
        let (results, _, fixture) = try await runWeatherSuite(kind: "openai", baseURL: "\(server.baseURL.absoluteString)/v1", name: "tools-malformed")
        defer { fixture.remove() }
        let result = try #require(results.first)
        let calls = try #require(result.toolCalls)
        #expect(calls.count == 2, "two parallel calls in one round")
        #expect(calls.allSatisfy { $0.round == 1 })
        #expect(calls[0].arguments == nil)
        #expect(calls[0].argumentsText == #"{"city": "Par"#)
        #expect(calls[0].isError && !calls[0].matched)
        #expect(calls[1].matched)
        #expect(server.requests[1].messages.filter { $0.role == "tool" }.map { $0.toolCallID ?? "" } == ["call_1", "call_2"])
        #expect(result.failedAssertions.map(\.type).contains("toolArgumentsValid"))
        let tools = try #require(RunAggregate(results).groups.first?.tools)
        #expect(tools.parsedCalls == 1 && tools.calls == 2)
        #expect(tools.mostFrequentWrongCalls().map(\.call) == [#"get_weather({"city": "Par)"#])
        #expect(!result.failedAssertions.map(\.type).contains("toolCalled"), "only the call that parsed has city Paris: exactly 1")
    }
}

@Suite("JSON tool format (llama-server without a template tool format)")
struct JSONToolFormatTests {
    private let tools = [ToolDefinition(name: "get_weather", description: "Weather.",
                                        parametersText: #"{"type":"object","properties":{"city":{"type":"string"}}}"#)]

    @Test("tools go into the instructions, the answer is constrained to tool_calls or response, and a tool round is written as JSON")
    func request() throws {
        let backend = OpenAIBackend(name: "local", model: "m", baseURL: URL(string: "http://127.0.0.1:1/v1")!, apiKey: nil,
                                    concurrency: 1, toolFormat: .json, transport: URLSessionStreamTransport())
        let call = ToolCall(id: "call_1", name: "get_weather", argumentsText: #"{"city":"Paris"}"#)
        let request = ModelRequest(instructions: "Be brief.", messages: [
            ChatMessage(role: .user, content: "Weather?"),
            ChatMessage(role: .assistant, content: "", toolCalls: [call]),
            ChatMessage(role: .tool, content: "", toolOutputs: [ToolOutput(callID: "call_1", name: "get_weather", content: #"{"celsius":18}"#)]),
        ], options: GenerationOptions(), tools: tools)
        let body = backend.body(for: request)
        #expect(body["tools"] == nil, "the server's template cannot render tools")
        let messages = try #require(body["messages"] as? [[String: Any]])
        let system = try #require(messages.first?["content"] as? String)
        #expect(system.hasPrefix("Be brief.\n\nYou can call these tools:\n- get_weather: Weather."))
        #expect(messages[2]["content"] as? String == #"{"tool_calls":[{"name":"get_weather","arguments":{"city":"Paris"}}]}"#)
        #expect(messages[3]["role"] as? String == "user")
        #expect(messages[3]["content"] as? String == #"{"tool_results":[{"name":"get_weather","result":{"celsius":18}}]}"#)
        let format = try #require(body["response_format"] as? [String: Any])
        let schemaText = try #require(((format["json_schema"] as? [String: Any])?["schema"] as? RawJSON)?.text)
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(schemaText.utf8)) as? [String: Any])
        #expect((schema["anyOf"] as? [Any])?.count == 2, "a call or an answer")
        #expect(schemaText.contains(#""name":{"const":"get_weather"}"#))
    }

    @Test("an answer in the format becomes tool calls or the response text; one that is not stays as it is")
    func reading() {
        let timing = RequestTiming(startedAt: Date(), endMs: 1)
        let calls = JSONToolFormat.reading(ModelResponse(text: #"{"tool_calls":[{"name":"get_weather","arguments":{"city":"Paris"}}]}"#,
                                                          timing: timing, usage: Usage()))
        #expect(calls.toolCalls == [ToolCall(id: "call_1", name: "get_weather", argumentsText: #"{"city":"Paris"}"#)])
        #expect(calls.text == "")
        let answer = JSONToolFormat.reading(ModelResponse(text: #"{"response":"18 degrees"}"#, timing: timing, usage: Usage()))
        #expect(answer.text == "18 degrees" && answer.toolCalls.isEmpty)
        let other = JSONToolFormat.reading(ModelResponse(text: "It is 18 degrees.", timing: timing, usage: Usage()))
        #expect(other.text == "It is 18 degrees.")
    }
}
