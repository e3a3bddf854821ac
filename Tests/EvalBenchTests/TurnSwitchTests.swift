import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

@Suite("Turn switches and history transforms")
struct TurnSwitchTests {
    @Test("a turn's instructions, options, reasoning, backend and history load; a list of levels on a turn is refused")
    func loads() throws {
        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s", "instructions": "Brainstorm.",
          "cases": [ { "id": "c", "turns": [
            { "prompt": "ideas" },
            { "prompt": "review them", "instructions": "Review strictly.", "options": { "temperature": 0.2 },
              "reasoning": "deep", "backend": "reviewer", "history": { "keepLast": 2, "truncateToFit": true, "dropReasoning": true } } ] } ] }
        """.utf8), file: "s.json")
        let turn = try #require(suite.cases.first?.turns.last)
        #expect(turn.switchTo?.instructions == "Review strictly.")
        #expect(turn.switchTo?.options?.temperature == 0.2)
        #expect(turn.switchTo?.reasoning == .deep)
        #expect(turn.switchTo?.backend == "reviewer")
        #expect(turn.switchTo?.summary == "instructions, options, reasoning → deep, backend → reviewer")
        #expect(turn.history == HistoryTransform(keepLast: 2, truncateToFit: true, dropReasoning: true))
        #expect(suite.cases.first?.turns.first?.switchTo == nil)
        do {
            _ = try SuiteLoader.load(data: Data(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "turns": [{"prompt": "p", "reasoning": ["none", "deep"], "history": {"keepFirst": 1}}]}]}"#.utf8), file: "s.json")
            Issue.record("must not load")
        } catch {
            #expect(error.diagnostics.map(\.message).contains("'reasoning' must be one level (a turn runs at one level), found an array"))
            #expect(error.diagnostics.map(\.message).contains { $0.hasPrefix("unknown key 'keepFirst'") })
        }
    }

    @Test("keepLast and truncateToFit trim what a turn sends")
    func transforms() {
        let earlier = (1...6).map { ChatMessage(role: $0 % 2 == 1 ? .user : .assistant, content: String(repeating: "x", count: 40)) }
        let prompt = ChatMessage(role: .user, content: "q")
        #expect(HistoryTransform(keepLast: 2).apply(to: earlier, prompt: prompt, instructions: nil, maxOutputTokens: nil, contextSize: nil).count == 2)
        // Each message is about 10 tokens; 8 of output and ~1 for the prompt: 30 tokens fit two messages.
        let fitted = HistoryTransform(truncateToFit: true).apply(to: earlier, prompt: prompt, instructions: nil, maxOutputTokens: 8, contextSize: 30)
        #expect(fitted.count == 2)
        #expect(fitted.first?.role == .user, "a trimmed history starts with a user prompt")
        #expect(HistoryTransform(truncateToFit: true).apply(to: earlier, prompt: prompt, instructions: nil, maxOutputTokens: 8, contextSize: nil) == earlier,
                "no context size: nothing to fit")
        let thought = [ChatMessage(role: .user, content: "<think>user text stays</think> q"),
                       ChatMessage(role: .assistant, content: "<think>\nstep 1\n</think>\n\nParis <thinking>aside</thinking>"),
                       ChatMessage(role: .assistant, content: "Lyon <think>unclosed")]
        let dropped = HistoryTransform(dropReasoning: true).apply(to: thought, prompt: prompt, instructions: nil, maxOutputTokens: nil, contextSize: nil)
        #expect(dropped.map(\.content) == ["<think>user text stays</think> q", "Paris", "Lyon"])
    }
}

extension LoopbackNetworkTests {
    @Test("a conversation switches instructions at turn 2 and backend at turn 3: the prefix break is named, the new backend gets the history, the report shows the switches")
    func switchesMidConversation() async throws {
        let first = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(model: "first", steps: [.content("a\(request.messages.count)")],
                                    usage: .init(promptTokens: 100, completionTokens: 2, cachedTokens: 80))
        }
        let second = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(model: "second", steps: [.content("b\(request.messages.count)")],
                                    usage: .init(promptTokens: 100, completionTokens: 2, cachedTokens: 0))
        }
        try first.start()
        try second.start()
        defer {
            first.stop()
            second.stop()
        }
        let fixture = try RunFixture("switch",
                                     suite: """
        { "format": "evalbench.suite/1", "suite": "sw", "instructions": "Session 1. Brainstorm.",
          "cases": [ { "id": "c", "turns": [
            { "prompt": "one" },
            { "prompt": "two", "instructions": "Session 2. Brainstorm." },
            { "prompt": "three", "backend": "other", "history": { "keepLast": 2 } } ] } ] }
        """,
                                     config: """
        { "backends": [ { "name": "main", "kind": "openai", "baseURL": "\(first.baseURL.absoluteString)/v1" },
                        { "name": "other", "kind": "openai", "baseURL": "\(second.baseURL.absoluteString)/v1" } ],
          "defaults": { "backends": ["main"] } }
        """)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out")
        let request = fixture.request()
        let loaded = try EvalRun.load(request)
        #expect(loaded.switchBackendNames == ["other"])
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        let turns = outcome.results.sorted { $0.turn < $1.turn }
        #expect(turns.map(\.status) == [.pass, .pass, .pass])
        #expect(turns.map(\.backend) == ["main", "main", "other"])
        #expect(turns[1].prefix?.brokenSegment == "instructions")
        #expect(turns[1].prefix?.brokenAt == 8, "\"Session \" is shared")
        #expect(turns[1].switched == "instructions")
        #expect(turns[2].prefix == nil, "a new backend's session shares no cache with the old one")
        #expect(turns[2].historyNote == "sent 2 of 4 earlier messages")
        let sentToOther = try #require(second.requests.first)
        #expect(sentToOther.messages.map(\.content) == ["Session 2. Brainstorm.", "two", "a4", "three"],
                "instructions stay switched; keepLast 2 sends the last prompt and answer")
        #expect(first.requests.count == 2)

        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| sw/c/default/main/none/1 | 2 | 80.0% | "), "the broken prefix is listed: \(summary)")
        #expect(summary.contains("instructions changed at character 8"))
        #expect(summary.contains("| sw/c/default/main/none/1 | 3 | backend → other | other | 0.0% | 80.0% |"))
    }

    @Test("a turn that switches to an unconfigured backend is a load error at its line")
    func unknownSwitchBackend() throws {
        let fixture = try RunFixture("switch-bad",
                                     suite: "{\"format\": \"evalbench.suite/1\", \"suite\": \"s\", \"cases\": [{\"id\": \"c\", \"turns\": [\n{\"prompt\": \"a\"},\n{\"prompt\": \"b\", \"backend\": \"revewer\"}]}]}",
                                     config: #"{"backends": [{"name": "main", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}, {"name": "reviewer", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let diagnostic = try #require(fixture.loadDiagnostics(backends: ["main"]).first, "must not load")
        #expect(diagnostic.message == "turn 2 of case 'c' switches to backend 'revewer', which the config does not define; did you mean 'reviewer'?")
        #expect(diagnostic.location?.line == 3)
        #expect(diagnostic.path == "$.cases[0].turns[1].backend")
    }
}

extension LoopbackNetworkTests {
    @Test("prewarm: true sends the instructions ahead of the first, timed turn and tags the session; prewarm: false tags it cold")
    func prewarmHTTP() async throws {
        let server = FakeOpenAIServer { request in FakeOpenAIServer.Script(model: request.model ?? "m", steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("prewarm",
                                     suite: #"{"format": "evalbench.suite/1", "suite": "w", "instructions": "Shared prefix.", "options": {"maxOutputTokens": 16}, "cases": [{"id": "c", "turns": [{"prompt": "one"}, {"prompt": "two"}]}]}"#,
                                     config: """
        { "backends": [ { "name": "warm", "kind": "openai", "model": "warm-model", "baseURL": "\(server.baseURL.absoluteString)/v1", "prewarm": true },
                        { "name": "cold", "kind": "openai", "model": "cold-model", "baseURL": "\(server.baseURL.absoluteString)/v1", "prewarm": false } ] }
        """)
        defer { fixture.remove() }
        let request = fixture.request()
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        func sessions(_ backend: String) -> [RequestDetails.SessionStart?] {
            outcome.results.filter { $0.backend == backend }.sorted { $0.turn < $1.turn }.map { $0.details?.session }
        }
        #expect(sessions("warm") == [.prewarmed, .reused])
        #expect(sessions("cold") == [.cold, .reused])
        let warmRequests = server.requests.filter { $0.model == "warm-model" }
        #expect(warmRequests.count == 3, "one prewarm request and two turns")
        let prewarm = try #require(warmRequests.first)
        #expect(prewarm.maxTokens == 1)
        #expect(prewarm.messages.map(\.content) == ["Shared prefix.", ""])
        #expect(server.requests.filter { $0.model == "cold-model" }.count == 2)
        #expect(outcome.results.count == 4, "the prewarm request is not a result")
    }
}
