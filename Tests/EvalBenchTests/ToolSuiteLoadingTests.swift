import Foundation
import Testing
@testable import EvalBench

@Suite("Tool suites")
struct ToolSuiteLoadingTests {
    private func load(_ text: String) throws(LoadError) -> Suite {
        try SuiteLoader.load(data: Data(text.utf8), file: "t.json")
    }

    private func problems(_ text: String) -> [Diagnostic] {
        loadDiagnostics { () throws(LoadError) in _ = try load(text) }
    }

    @Test("suite tools reach every case; a case's tools replace them; a turn's tools switch them; options carry toolChoice and maxToolRounds")
    func toolsLoad() throws {
        let suite = try load("""
        { "format": "evalbench.suite/1",
          "tools": [ { "name": "a", "description": "A.", "results": [ { "result": 1 } ] } ],
          "options": { "toolChoice": "required", "maxToolRounds": 3 },
          "cases": [
            { "id": "one", "prompt": "p" },
            { "id": "two", "tools": [ { "name": "b", "description": "B.", "parameters": { "type": "object", "properties": { "x": { "type": "integer" } } },
                                        "results": [ { "when": { "x": 1 }, "result": { "y": [1, 2] } }, { "error": "boom" } ] } ],
              "options": { "toolChoice": "b" },
              "turns": [ { "prompt": "p" }, { "prompt": "q", "tools": [] } ] } ] }
        """)
        #expect(suite.cases[0].tools.map(\.name) == ["a"])
        #expect(suite.cases[0].tools[0].definition.parametersText == #"{"type":"object","properties":{}}"#)
        #expect(suite.cases[0].options.toolChoice == .required)
        #expect(suite.cases[0].options.maxToolRounds == 3)
        let two = suite.cases[1]
        #expect(two.tools.map(\.name) == ["b"])
        #expect(two.options.toolChoice == .tool("b"))
        #expect(two.tools[0].results == [CannedResult(when: .object(["x": .number(1)]), content: #"{"y":[1,2]}"#),
                                         CannedResult(content: "boom", isError: true)])
        #expect(two.turns[1].switchTo?.tools == [])
        #expect(two.turns[1].switchTo?.summary == "tools")
    }

    @Test("tool problems are reported at their line and column: a bad schema, a duplicate name, a default that is not last, an unknown toolChoice")
    func toolProblems() {
        let found = problems("""
        { "format": "evalbench.suite/1",
          "tools": [
            { "name": "a", "description": "A.", "parameters": { "type": "object", "properties": { "x": { "type": "integr" } } },
              "results": [ { "result": 1 } ] },
            { "name": "b", "description": "B.", "results": [ { "result": 1 }, { "when": { "x": 1 }, "result": 2 } ] },
            { "name": "b", "description": "B again.", "results": [ { "result": 1 } ] },
            { "name": "bad name", "description": "C.", "results": [ { "result": 1, "error": "x" } ] } ],
          "options": { "toolChoice": "nope" },
          "cases": [ { "id": "one", "prompt": "p" } ] }
        """)
        let lines = found.map { "\($0.location?.line ?? 0): \($0.message)" }
        #expect(found.contains { $0.location?.line == 3 && $0.message.contains("integr") }, "\(lines)")
        #expect(found.contains { $0.location?.line == 5 && $0.message.contains("can never be used") }, "\(lines)")
        #expect(found.contains { $0.location?.line == 6 && $0.message.contains("duplicate tool name 'b'") }, "\(lines)")
        #expect(found.contains { $0.location?.line == 7 && $0.message.contains("'bad name'") }, "\(lines)")
        #expect(found.contains { $0.location?.line == 7 && $0.message.contains("either 'result' or 'error'") }, "\(lines)")
        #expect(found.contains { $0.message.contains("toolChoice names the tool 'nope'") }, "\(lines)")
    }

    @Test("tool assertions load with their fields checked")
    func toolAssertions() throws {
        let suite = try load("""
        { "format": "evalbench.suite/1",
          "cases": [ { "id": "one", "prompt": "p", "expect": [
            { "type": "toolCalled", "tool": "a", "arguments": { "x": 1 }, "min": 1, "max": 2 },
            { "type": "toolNotCalled" }, { "type": "toolSequence", "names": ["a", "b"], "strict": true },
            { "type": "toolArgumentsValid" }, { "type": "maxToolCalls", "value": 3 }, { "type": "maxToolRounds", "value": 1 } ] } ] }
        """)
        #expect(suite.cases[0].turns[0].expect.map(\.check) == [
            .toolCalled(name: "a", arguments: .object(["x": .number(1)]), times: nil, min: 1, max: 2),
            .toolNotCalled(name: nil), .toolSequence(names: ["a", "b"], strict: true), .toolArgumentsValid,
            .maxToolCalls(3), .maxToolRounds(1),
        ])
        let found = problems("""
        { "format": "evalbench.suite/1",
          "cases": [ { "id": "one", "prompt": "p", "expect": [
            { "type": "toolCalled", "tool": "a", "times": 1, "min": 1 },
            { "type": "toolSequence", "names": [] } ] } ] }
        """)
        #expect(found.contains { $0.location?.line == 3 && $0.message.contains("'times' cannot be combined") })
        #expect(found.contains { $0.location?.line == 4 && $0.message.contains("'names'") })
    }
}

@Suite("Tool checks")
struct ToolCheckTests {
    private func call(_ name: String, _ arguments: String, round: Int = 1) -> ToolCallRecord {
        let parsed = ToolArguments.parse(arguments)?.value
        return ToolCallRecord(round: round, id: "c", name: name, arguments: parsed, argumentsText: parsed == nil ? arguments : nil,
                              result: nil, isError: false, matched: true)
    }

    @Test("toolSequence: in order with others between, and strict as one run")
    func sequence() {
        #expect(ToolChecks.follows(["a", "b"], ["a", "c", "b"], strict: false))
        #expect(!ToolChecks.follows(["a", "b"], ["a", "c", "b"], strict: true))
        #expect(ToolChecks.follows(["a", "b"], ["c", "a", "b"], strict: true))
        #expect(!ToolChecks.follows(["b", "a"], ["a", "b"], strict: false))
    }

    @Test("toolCalled counts only calls whose arguments contain the subset; bounds default to at least once")
    func called() {
        let use = ToolUse(calls: [call("a", #"{"x":1,"y":2}"#), call("a", #"{"x":2}"#)], rounds: 1)
        #expect(ToolChecks.called("a", .object(["x": .number(1)]), times: 1, min: nil, max: nil, use).holds)
        #expect(ToolChecks.called("a", nil, times: nil, min: nil, max: nil, use).holds)
        #expect(!ToolChecks.called("a", nil, times: nil, min: nil, max: 1, use).holds)
        #expect(!ToolChecks.called("b", nil, times: nil, min: nil, max: nil, use).holds)
        #expect(ToolChecks.maxRounds(1, use).holds)
        #expect(!ToolChecks.maxCalls(1, use).holds)
    }

    @Test("toolArgumentsValid names the call and the schema rule it breaks")
    func argumentsValid() throws {
        let schema = try JSONSchema(validating: .object(["type": .string("object"), "required": .array([.string("city")])]))
        let tool = CannedTool(definition: ToolDefinition(name: "w", description: "W."), parameters: schema, results: [])
        let outcome = ToolChecks.argumentsValid(ToolUse(calls: [call("w", "{}"), call("w", "{oops")], rounds: 1, tools: [tool]))
        #expect(!outcome.holds)
        #expect(outcome.actual.contains("w({})"), "\(outcome.actual)")
        #expect(outcome.actual.contains("not valid JSON"), "\(outcome.actual)")
    }

    @Test("canned results: the first whose when the arguments contain, else a tool error that says no result matched")
    func answering() throws {
        let schema = try JSONSchema(validating: .object(["type": .string("object")]))
        let tool = CannedTool(definition: ToolDefinition(name: "w", description: "W."), parameters: schema,
                              results: [CannedResult(when: .object(["city": .string("Paris")]), content: "18")])
        let hit = ToolAnswering.answer(ToolCall(id: "1", name: "w", argumentsText: #"{"city":"Paris","unit":"C"}"#), tools: [tool])
        #expect(hit.matched && hit.output.content == "18" && !hit.output.isError)
        let miss = ToolAnswering.answer(ToolCall(id: "2", name: "w", argumentsText: #"{"city":"Rome"}"#), tools: [tool])
        #expect(!miss.matched && miss.output.isError && miss.output.content.contains("no canned result"))
        let unknown = ToolAnswering.answer(ToolCall(id: "3", name: "x", argumentsText: "{}"), tools: [tool])
        #expect(unknown.output.content.contains("no tool named 'x'"))
    }

    @Test("usage summed over rounds is unknown when any round did not report a figure")
    func usageSum() {
        let sum = ToolLoop.sum([Usage(inputTokens: 10, outputTokens: 1, source: .reported),
                                Usage(inputTokens: 20, source: .reported)])
        #expect(sum.inputTokens == 30)
        #expect(sum.outputTokens == nil)
    }
}

@Suite("Token cost of tools")
struct ToolCostTests {
    @Test("plan gives each distinct tool set's estimated tokens and its share of the on-device window, the switched set apart")
    func planLines() async throws {
        let fixture = try RunFixture("tool-cost", suite: """
        { "format": "evalbench.suite/1", "suite": "s",
          "tools": [ { "name": "a", "description": "Looks things up.", "results": [ { "result": 1 } ] } ],
          "cases": [ { "id": "one", "prompt": "p" },
                     { "id": "two", "turns": [ { "prompt": "p" },
                        { "prompt": "q", "tools": [ { "name": "b", "description": "B.", "results": [ { "result": 2 } ] } ] } ] } ] }
        """, config: #"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let loaded = try EvalRun.load(fixture.request())
        let lines = await Preflight.plan(loaded, environment: [:], transport: URLSessionStreamTransport())
        let a = ToolCost.estimatedTokens(loaded.suites[0].cases[0].tools.map(\.definition))
        // [{"type":"function","function":{"name":"a","description":"Looks things up.","parameters":{"type":"object","properties":{}}}}]: 125 characters.
        #expect(a == 32)
        #expect(lines.contains("tools a (2 cases): about 32 tokens per request (estimated, about 4 characters a token), 0.8% of the on-device model's 4096-token window"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("tools b (1 case): about ") }, "\(lines)")
    }
}

@Test("a key a model echoes into a tool call's arguments is redacted like answer text")
func toolArgumentsRedacted() {
    let key = "sk-tool-echo-secret-1234"
    let redactor = SecretRedactor(HTTPStreamRequest(url: URL(string: "https://example.test")!, headers: ["Authorization": "Bearer \(key)"]))
    let response = ModelResponse(text: "", timing: RequestTiming(startedAt: Date()), usage: Usage(),
                                 toolCalls: [ToolCall(id: "1", name: "a", argumentsText: #"{"key":"\#(key)"}"#)])
    #expect(redactor.redact(response).toolCalls.first?.argumentsText == #"{"key":"[redacted]"}"#)
}

@Test("a suite built in Swift gets its tool names and toolChoice checked")
func swiftSuiteToolChecks() throws {
    let schema = try JSONSchema(validating: .object(["type": .string("object")]))
    let tool = { (name: String) in CannedTool(definition: ToolDefinition(name: name, description: "D."), parameters: schema, results: []) }
    var evalCase = EvalCase(id: "c", options: GenerationOptions(toolChoice: .tool("missing")), turns: [Turn(prompt: "p")],
                            tools: [tool("a"), tool("a"), tool("bad name")])
    evalCase.turns[0].switchTo = TurnSwitch(tools: [tool("b")])
    let found = loadDiagnostics { () throws(LoadError) in try SuiteChecks.check(Suite(name: "s", cases: [evalCase])) }
    #expect(found.map(\.path) == ["$.cases[0].tools[1].name", "$.cases[0].tools[2].name", "$.cases[0].options.toolChoice"], "\(found)")
}

@Test("a history transform never starts the history with tool results whose calls it cut off, and keeps an answer's calls when it drops reasoning")
func historyKeepsToolRoundsWhole() {
    let call = ToolCall(id: "1", name: "a", argumentsText: "{}")
    let earlier = [ChatMessage(role: .user, content: "q"),
                   ChatMessage(role: .assistant, content: "<think>x</think>", toolCalls: [call]),
                   ChatMessage(role: .tool, content: "a → 1", toolOutputs: [ToolOutput(callID: "1", name: "a", content: "1")]),
                   ChatMessage(role: .assistant, content: "one")]
    let prompt = ChatMessage(role: .user, content: "next")
    let kept = HistoryTransform(keepLast: 2).apply(to: earlier, prompt: prompt, instructions: nil, maxOutputTokens: nil, contextSize: nil)
    #expect(kept.map(\.role) == [.assistant], "the tool message lost its call, so it goes too")
    let dropped = HistoryTransform(dropReasoning: true).apply(to: earlier, prompt: prompt, instructions: nil, maxOutputTokens: nil, contextSize: nil)
    #expect(dropped[1].toolCalls == [call])
    #expect(dropped[1].content == "")
}
