import Foundation
import Testing
@testable import EvalBench

@Suite("Apple kinds' tools: schema conversion, toolChoice, canned answers, rounds, through the runner")
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

    @Test("Each call gets its round from the transcript's toolCalls entries, whether or not its own entry is there yet; past maxToolRounds it is refused")
    func transcriptRounds() throws {
        let entries = LockedEntries()
        let answerer = AppleToolAnswerer()
        answerer.begin(tools: [try Self.weather()], maxRounds: 2, transcript: { entries.value })
        entries.value = [["get_weather", "get_weather"]]
        _ = try answerer.answer(name: "get_weather", argumentsJSON: #"{"city":"Paris"}"#)
        _ = try answerer.answer(name: "get_weather", argumentsJSON: #"{"city":"Atlantis"}"#)
        // Round 2's entry not written yet when its call comes: still round 2.
        _ = try answerer.answer(name: "get_weather", argumentsJSON: "{not json")
        entries.value = [["get_weather", "get_weather"], ["get_weather"], ["get_weather"]]
        #expect(throws: AppleToolRoundsExceeded.self) { try answerer.answer(name: "get_weather", argumentsJSON: "{}") }
        let records = answerer.records
        #expect(records.map(\.round) == [1, 1, 2, 3])
        #expect(records.map(\.matched) == [true, true, false, false])
        #expect(records.map(\.isError) == [false, true, true, false])
        #expect(records[0].arguments == .object(["city": .string("Paris")]) && records[0].result == #"{"celsius":18}"#)
        #expect(records[2].arguments == nil && records[2].argumentsText == "{not json")
        #expect(records[3].result == nil, "a refused call was not answered")
        #expect(answerer.refusedCalls == ["get_weather"])
        answerer.begin(tools: [], maxRounds: nil)
        #expect(answerer.records.isEmpty && answerer.refusedCalls.isEmpty, "each request starts afresh")
    }

    static let suite = """
    { "format": "evalbench.suite/1", "suite": "s",
      "tools": [ { "name": "get_weather", "description": "Weather.", "parameters": \(weatherParameters),
                   "results": [ { "when": { "city": "Paris" }, "result": { "celsius": 18 } }, { "error": "unknown city" } ] } ],
      "options": { "maxToolRounds": 2 },
      "cases": [
        { "id": "two-rounds", "prompt": "Weather in Paris?",
          "expect": [ { "type": "toolCalled", "tool": "get_weather", "arguments": { "city": "Paris" }, "times": 1 },
                      { "type": "toolSequence", "names": ["get_weather", "get_weather"] },
                      { "type": "maxToolRounds", "value": 2 }, { "type": "contains", "value": "18" } ] },
        { "id": "forever", "prompt": "Loop." },
        { "id": "switch", "turns": [ { "prompt": "First." },
                                     { "prompt": "Second.", "tools": [ { "name": "get_time", "description": "Time.", "results": [ { "result": "12:00" } ] } ] },
                                     { "prompt": "Third.", "options": { "toolChoice": "none" } } ] },
        { "id": "required", "prompt": "Must call.", "options": { "toolChoice": "required" } } ] }
    """

    @Test("Through the runner: the session is made with the tools, the framework's rounds are recorded and graded, a loop stops at maxToolRounds")
    func throughTheRunner() async throws {
        let fixture = try RunFixture("apple-tools-run", suite: Self.suite,
                                     config: #"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let cases = try EvalRun.load(fixture.request()).suites[0].cases
        let driver = FakeAppleDriver(.onDevice, tokensPerCharacter: 0.25) { request in
            switch request.prompt {
            case "Weather in Paris?":
                var reply = FakeAppleDriver.Reply.text("It is 18 °C.")
                reply.toolRounds = [[("get_weather", #"{"city":"Paris"}"#)], [("get_weather", #"{"city":"Atlantis"}"#)]]
                return reply
            case "Loop.":
                var reply = FakeAppleDriver.Reply.text("never")
                reply.toolRounds = Array(repeating: [("get_weather", #"{"city":"Paris"}"#)], count: 5)
                return reply
            default: return .text("ok")
            }
        }
        let results = try await runApple(["device": appleBackend("device", driver)], cases: cases)
        let byCase = Dictionary(grouping: results, by: \.caseID)

        let two = try #require(byCase["two-rounds"]?.first)
        #expect(two.status == .pass, "\(two.errorMessage ?? "") \(two.failedAssertions.map { $0.message ?? "" })")
        #expect(two.toolCalls?.map(\.round) == [1, 2])
        #expect(two.toolCalls?.map(\.matched) == [true, true])
        #expect(two.toolCalls?.last?.isError == true && two.toolCalls?.last?.result == "unknown city")
        #expect(two.toolRoundCount == 2)
        #expect(two.rounds?.count == 1, "one request: the framework ran the rounds inside it")
        #expect(two.usage.source == .counted)
        let weatherRequest = try #require(driver.requests.first { $0.prompt == "Weather in Paris?" })
        #expect(weatherRequest.tools == ["get_weather"])

        let forever = try #require(byCase["forever"]?.first)
        #expect(forever.status == .error)
        #expect(forever.errorKind == .toolRoundsExceeded, "\(String(describing: forever.errorKind))")
        #expect(forever.errorMessage?.contains("maxToolRounds is 2") == true)
        #expect(forever.toolCalls?.map(\.round) == [1, 2, 3])
        #expect(forever.toolCalls?.last?.result == nil)

        // Turn 2 switches the tools: a new session (the framework fixes tools at creation) holding
        // the conversation so far; toolChoice none on turn 3: one more, with no tools.
        let switched = driver.requests.filter { ["First.", "Second.", "Third."].contains($0.prompt) }
        #expect(switched.map(\.tools) == [["get_weather"], ["get_time"], []])
        #expect(Set(switched.map(\.session)).count == 3)
        #expect(switched[1].instructions?.contains("User: First.") == true)
        #expect(byCase["switch"]?.allSatisfy { $0.status != .error } == true)

        let required = try #require(byCase["required"]?.first)
        #expect(required.errorKind == .badRequest && required.errorMessage?.contains("no Foundation Models equivalent") == true)
    }

    @Test("replay: a turn whose rounds the framework ran inside one request replays as one, its calls answered again and graded as before")
    func replayHandledCalls() async throws {
        let fixture = try RunFixture("apple-tools-replay", suite: Self.suite,
                                     config: #"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let cases = try EvalRun.load(fixture.request()).suites[0].cases.filter { $0.id == "two-rounds" }
        let driver = FakeAppleDriver(.onDevice) { _ in
            var reply = FakeAppleDriver.Reply.text("It is 18 °C.")
            reply.toolRounds = [[("get_weather", #"{"city":"Paris"}"#)], [("get_weather", #"{"city":"Atlantis"}"#)]]
            return reply
        }
        let recorded = try await runApple(["device": appleBackend("device", driver)], cases: cases)
        #expect(recorded.first?.rounds?.first?.answeredByBackend == true)
        let store = try ResultStore(url: RunDirectory(fixture.directory).results)
        for result in recorded { try store.append(result) }
        try store.close()
        let replay = ReplayBackend(name: "again", model: nil, directory: fixture.directory, concurrency: 1)
        let replayed = try #require(try await runApple(["again": replay], cases: cases).first)
        #expect(replayed.status == .pass, "\(replayed.errorMessage ?? "") \(replayed.failedAssertions.map { $0.message ?? "" })")
        #expect(replayed.toolCalls == recorded.first?.toolCalls)
        #expect(replayed.toolRoundCount == 2)
        #expect(replayed.rounds?.count == 1, "one request, as recorded; not a loop the runner answers")
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

/// The transcript's toolCalls entries as a test sets them.
private final class LockedEntries: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [[String]] = []
    var value: [[String]] {
        get { lock.withLock { entries } }
        set { lock.withLock { entries = newValue } }
    }
}
