import Foundation
import Testing
@testable import EvalBench

@Suite("Apple kinds' tools: schema conversion, toolChoice, canned answers, transcript records")
struct AppleToolTests {
    static let weatherParameters = #"{"type":"object","properties":{"city":{"type":"string","description":"The city."},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}"#

    static func weather() throws -> CannedTool {
        let schema = try JSONSchema(validating: .object(["type": .string("object")]))
        return CannedTool(definition: ToolDefinition(name: "get_weather", description: "Weather.", parametersText: weatherParameters),
                          parameters: schema,
                          results: [CannedResult(when: .object(["city": .string("Paris")]), content: #"{"celsius":18}"#),
                                    CannedResult(when: .object(["city": .string("Atlantis")]), content: "no such city", isError: true)])
    }

    @Test("A tool's JSON Schema becomes the dynamic schema its parameters are built from, root named after the tool")
    func schemaConversion() throws {
        let specs = try AppleToolSpec.make([try Self.weather().definition], choice: nil)
        let expected = AppleSchema.object(name: "get_weather", description: nil, properties: [
            .init(name: "city", description: "The city.", schema: .string(description: "The city.", choices: nil), isOptional: false),
            .init(name: "unit", description: nil, schema: .string(description: nil, choices: ["c", "f"]), isOptional: true),
        ])
        #expect(specs.map(\.name) == ["get_weather"])
        #expect(specs.first?.parameters == expected)
    }

    @Test("toolChoice: none sends no tools; required and a named tool have no Foundation Models equivalent and are refused")
    func toolChoiceMapping() throws {
        let tools = [try Self.weather().definition]
        #expect(try AppleToolSpec.make(tools, choice: ToolChoice.none).isEmpty)
        #expect(try AppleToolSpec.make(tools, choice: .auto).count == 1)
        for choice in [ToolChoice.required, .tool("get_weather")] {
            #expect(throws: AppleToolRefusal.self) { try AppleToolSpec.make(tools, choice: choice) }
        }
        let bad = ToolDefinition(name: "x", description: "X.", parametersText: #"{"type":"object","properties":{"a":{"type":"null"}}}"#)
        do {
            _ = try AppleToolSpec.make([bad], choice: nil)
            Issue.record("a schema outside the subset was accepted")
        } catch {
            #expect(error.message.contains("tool 'x'") && error.message.contains("$.properties.a"), "\(error.message)")
        }
    }

    @Test("Calls are answered from the canned results as the tool loop answers them; after maxToolRounds a call throws")
    func answeringAndRounds() throws {
        let answerer = AppleToolAnswerer(tools: [try Self.weather()], maxRounds: 2)
        #expect(try answerer.answer(name: "get_weather", argumentsJSON: #"{"city":"Paris"}"#) == #"{"celsius":18}"#)
        #expect(try answerer.answer(name: "get_weather", argumentsJSON: #"{"city":"Atlantis"}"#) == "no such city")
        #expect(answerer.roundsBegun == 2)
        #expect(throws: AppleToolRoundsExceeded.self) { try answerer.answer(name: "get_weather", argumentsJSON: "{}") }
        #expect(answerer.refusedCalls == ["get_weather"])
        let unknown = try AppleToolAnswerer(tools: [], maxRounds: nil).answer(name: "nope", argumentsJSON: "{}")
        #expect(unknown.contains("there is no tool named 'nope'"))
    }

    @Test("The last turn's transcript entries become records: each toolCalls entry a round, outputs by id, unmatched and malformed flagged")
    func transcriptRecords() throws {
        let entries: [AppleTranscriptEntry] = [
            .prompt, .toolCalls([AppleTranscriptCall("old", "get_weather", #"{"city":"Paris"}"#)]), .toolOutput(id: "old", name: "get_weather", text: "x"), .response,
            .prompt,
            .toolCalls([AppleTranscriptCall("a", "get_weather", #"{"city":"Paris"}"#), AppleTranscriptCall("b", "get_weather", #"{"city":"Rome"}"#)]),
            .toolOutput(id: "a", name: "get_weather", text: #"{"celsius":18}"#),
            .toolOutput(id: "b", name: "get_weather", text: "error: no canned result"),
            .toolCalls([AppleTranscriptCall("c", "get_weather", "{not json")]),
            .response,
        ]
        let records = AppleToolTranscript.records(entries, tools: [try Self.weather()])
        #expect(records.map(\.id) == ["a", "b", "c"])
        #expect(records.map(\.round) == [1, 1, 2])
        #expect(records.map(\.matched) == [true, false, false])
        #expect(records[0].arguments == .object(["city": .string("Paris")]) && records[0].result == #"{"celsius":18}"#)
        #expect(records[1].isError)
        #expect(records[2].arguments == nil && records[2].argumentsText == "{not json" && records[2].result == nil)
        #expect(AppleToolTranscript.rounds(entries) == 2)
    }

    @Test("The on-device model counts a tool set with tokenCount(for:) on the dynamic tools; plan shows it beside the estimate")
    func countedToolTokens() async throws {
        let driver = FakeAppleDriver(.onDevice, tokensPerCharacter: 0.5)
        let backend = appleBackend("device", driver)
        let tools = [try Self.weather().definition]
        let count = try #require(await backend.countToolTokens(tools))
        let specs = try AppleToolSpec.make(tools, choice: nil)
        #expect(driver.countedInputs == [.tools(specs)])
        #expect(count.tokens == Int((Double(String(describing: specs).count) * 0.5).rounded(.up)))
        #expect(count.method == "counted by the model's tokenCount(for:)")
        #expect(await appleBackend("none", FakeAppleDriver(.onDevice)).countToolTokens(tools) == nil, "no counter: nil, not 0")

        let fixture = try RunFixture("apple-tool-cost", suite: """
        { "format": "evalbench.suite/1", "suite": "s",
          "tools": [ { "name": "get_weather", "description": "Weather.", "parameters": \(Self.weatherParameters), "results": [ { "result": 1 } ] } ],
          "cases": [ { "id": "one", "prompt": "p" } ] }
        """, config: #"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let loaded = try EvalRun.load(fixture.request())
        let lines = await ToolCost.lines(loaded.plan, counters: [("device", backend)])
        let share = DecimalText.fixed(Double(count.tokens) / 4096 * 100, places: 1)!
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix("; device: \(count.tokens) tokens counted by the model's tokenCount(for:), \(share)%") == true, "\(lines)")
        #expect(lines.first?.contains("(estimated, about 4 characters a token)") == true)
    }
}
