import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

@Suite("Replay backend")
struct ReplayTests {
    @Test("'from' must name a directory holding results.jsonl, with the line and column of the key")
    func fromIsChecked() throws {
        let directory = PackagePaths.temporaryDirectory("replay-config")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("empty"), withIntermediateDirectories: true)
        func diagnostics(_ from: String) -> [Diagnostic] {
            do {
                _ = try ConfigLoader.load(data: Data("""
                {"backends": [
                  {"name": "r", "kind": "replay", "from": "\(from)"}]}
                """.utf8), file: "c.json", baseDirectory: directory.path)
                return []
            } catch {
                return error.diagnostics
            }
        }
        let missing = diagnostics("nowhere")
        #expect(missing.count == 1)
        #expect(missing.first?.message.contains("\(directory.path)/nowhere, which is not a directory") == true)
        #expect(missing.first?.description.contains("c.json:2:") == true, "\(missing)")
        #expect(diagnostics("empty").first?.message.contains("which has no results.jsonl") == true)
        let noFrom = (try? ConfigLoader.load(data: Data(#"{"backends": [{"name": "r", "kind": "replay"}]}"#.utf8),
                                             file: "c.json", baseDirectory: directory.path)) == nil
        #expect(noFrom, "a replay backend without 'from' is refused")
    }

    @Test("a recording of two backends: without 'backend' a load error lists them; with it, that backend's answers only")
    func ambiguousRecording() async throws {
        let directory = PackagePaths.temporaryDirectory("replay-two")
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("recorded")
        try FileManager.default.createDirectory(at: recording, withIntermediateDirectories: true)
        let store = try ResultStore(url: RunDirectory(recording).results)
        for (backend, answer) in [("small", "Rome"), ("large", "Paris")] {
            var result = fixtureResult(caseID: "a", backend: backend, status: .pass)
            result.output = answer
            try store.append(result)
        }
        try store.close()
        func load(_ extra: String) -> Result<Config, LoadError> {
            Result { () throws(LoadError) in
                try ConfigLoader.load(data: Data("""
                {"backends": [
                  {"name": "r", "kind": "replay", "from": "recorded"\(extra)}]}
                """.utf8), file: "c.json", baseDirectory: directory.path)
            }
        }
        guard case let .failure(ambiguous) = load("") else { Issue.record("an ambiguous recording loaded"); return }
        #expect(ambiguous.diagnostics.map(\.message) == ["the recording in \(recording.path) has answers from 2 backends, so which one answers is ambiguous"])
        #expect(ambiguous.diagnostics.first?.fix == #"add "backend": one of "small", "large""#)
        guard case let .failure(typo) = load(#", "backend": "larg""#) else { Issue.record("an unknown backend loaded"); return }
        #expect(typo.diagnostics.first?.message.contains("no answers from backend 'larg'; did you mean 'large'?") == true, "\(typo)")
        #expect(typo.diagnostics.first?.description.contains("c.json:2:") == true, "\(typo)")
        let config = try load(#", "backend": "large""#).get()
        let backend = try #require(config.backends.first).makeBackend(context: BackendContext(environment: [:], logDirectory: directory,
                                                                                              defaultConcurrency: 1))
        let answer = await backend.startConversation().respond(to: ModelRequest(
            instructions: nil, messages: [ChatMessage(role: .user, content: "x")], options: GenerationOptions(),
            origin: RequestOrigin(suite: "geo", caseID: "a", variant: "default", reasoning: .none, repeatIndex: 1, turn: 1)))
        #expect((try? answer.get())?.text == "Paris")
    }

    @Test("a recorded tool loop whose rounds and calls disagree (a hand edit) fails as unavailable, saying so, not as an empty answer")
    func inconsistentToolRounds() async throws {
        let directory = PackagePaths.temporaryDirectory("replay-rounds")
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("recorded")
        try FileManager.default.createDirectory(at: recording, withIntermediateDirectories: true)
        let store = try ResultStore(url: RunDirectory(recording).results)
        var result = fixtureResult(caseID: "a", status: .pass)
        result.output = "18 degrees"
        result.rounds = [ToolRound(round: 1, latencyMs: 5, ttftMs: 2, usage: Usage(), toolCalls: 2),
                         ToolRound(round: 2, latencyMs: 5, ttftMs: 2, usage: Usage(), toolCalls: 0)]
        // Both calls edited to round 2, where the recording says none were made.
        result.toolCalls = [ToolCallRecord(round: 2, id: "c1", name: "weather", arguments: nil, argumentsText: "{}", result: "18",
                                           isError: false, matched: true),
                            ToolCallRecord(round: 2, id: "c2", name: "weather", arguments: nil, argumentsText: "{}", result: "20",
                                           isError: false, matched: true)]
        try store.append(result)
        try store.close()
        let config = try ConfigLoader.load(data: Data(#"{"backends": [{"name": "r", "kind": "replay", "from": "recorded"}]}"#.utf8),
                                           file: "c.json", baseDirectory: directory.path)
        let backend = try #require(config.backends.first).makeBackend(context: BackendContext(environment: [:], logDirectory: directory,
                                                                                              defaultConcurrency: 1))
        let answer = await backend.startConversation().respond(to: ModelRequest(
            instructions: nil, messages: [ChatMessage(role: .user, content: "x")], options: GenerationOptions(),
            origin: RequestOrigin(suite: "geo", caseID: "a", variant: "default", reasoning: .none, repeatIndex: 1, turn: 1)))
        guard case let .failure(failure) = answer else { Issue.record("an inconsistent recording replayed: \(answer)"); return }
        #expect(failure.kind == .unavailable)
        #expect(failure.message.hasSuffix("does not hold together: its round 1 made 2 tool calls, but 0 are recorded for it"), "\(failure.message)")
    }

    @Test("a run replayed under another backend name is re-graded with new assertions; replayed timings stay out of latency statistics")
    func endToEnd() async throws {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content("Paris", afterMs: 20)],
                                    usage: .init(promptTokens: 12, completionTokens: 1, cachedTokens: 4))
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        func suite(_ name: String, expecting value: String, extraCase: Bool = false) throws -> String {
            let path = directory.appendingPathComponent("\(name).json").path
            let extra = extraCase ? #", { "id": "new", "prompt": "new?" }"# : ""
            try Data("""
            { "format": "evalbench.suite/1", "suite": "geo", "repeat": 2, "cases": [
              { "id": "capital", "turns": [ { "prompt": "capital?" },
                { "prompt": "sure?", "expect": [ { "type": "contains", "value": "\(value)" } ] } ] }\(extra) ] }
            """.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let first = directory.appendingPathComponent("run-1")
        let liveConfig = directory.appendingPathComponent("live.json").path
        try Data("""
        { "backends": [ { "name": "live", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1" } ] }
        """.utf8).write(to: URL(fileURLWithPath: liveConfig))
        let liveRequest = RunRequest(suitePaths: [try suite("paris", expecting: "Paris")], configPath: liveConfig,
                                     outputDirectory: first.path)
        let live = try await EvalRun.execute(try EvalRun.load(liveRequest), liveRequest, transport: URLSessionStreamTransport())
        #expect(live.verdict.exitStatus == .success, "\(live.verdict.reasons)")
        #expect(live.results.count == 4)
        let sent = server.requests.count

        // The config names the earlier run only now: 'from' is checked when the config loads.
        let replayConfig = directory.appendingPathComponent("replay.json").path
        try Data("""
        { "backends": [ { "name": "replayed", "kind": "replay", "from": "run-1" } ] }
        """.utf8).write(to: URL(fileURLWithPath: replayConfig))
        let second = directory.appendingPathComponent("run-2")
        let replayRequest = RunRequest(suitePaths: [try suite("rome", expecting: "Rome", extraCase: true)],
                                       configPath: replayConfig, outputDirectory: second.path, gate: Gate(minPassRate: 0))
        let replay = try await EvalRun.execute(try EvalRun.load(replayRequest), replayRequest, transport: URLSessionStreamTransport())
        #expect(server.requests.count == sent, "a replay sends nothing")
        let replayed = replay.results.filter { $0.caseID == "capital" }.sorted { ($0.repeatIndex, $0.turn) < ($1.repeatIndex, $1.turn) }
        #expect(replayed.count == 4)
        #expect(replayed.allSatisfy { $0.replayed == true && $0.backend == "replayed" && $0.output == "Paris" })
        #expect(replayed.map(\.status) == [.pass, .fail, .pass, .fail], "the new assertion wants Rome")
        #expect(replayed[1].failedAssertions.first?.type == "contains")
        #expect(replayed[1].replayedFrom == first.appendingPathComponent("results.jsonl").standardizedFileURL.path
                + " (geo/capital/default/live/none/1 turn 2)", "\(replayed[1].replayedFrom ?? "")")
        let original = live.results.sorted { ($0.repeatIndex, $0.turn) < ($1.repeatIndex, $1.turn) }
        #expect(replayed.map(\.usage) == original.map(\.usage), "usage is copied from the recording")
        #expect(replayed.map { $0.timing?.endMs } == original.map { $0.timing?.endMs }, "the recorded timing is kept for the record")

        // Each repeat names its own key (results are in the order they finished, not in repeat order).
        let missing = replay.results.filter { $0.caseID == "new" }.sorted { $0.repeatIndex < $1.repeatIndex }
        #expect(missing.map(\.repeatIndex) == [1, 2])
        for result in missing {
            #expect(result.status == .error)
            #expect(result.errorKind == .unavailable)
            #expect(result.errorMessage?.contains("no recorded answer for geo/new/default/none/\(result.repeatIndex) turn 1") == true,
                    "\(result.errorMessage ?? "")")
        }

        let group = try #require(RunAggregate(replay.results).groups.first)
        #expect(group.replayedRequests == 4)
        #expect(group.latencyP50Ms == nil, "replayed requests are not timed in this run")
        #expect(group.ttftP95Ms == nil)
        #expect(group.passed == 0 && group.failed == 2 && group.errors == 2)
        let liveGroup = try #require(RunAggregate(live.results).groups.first)
        #expect(liveGroup.latencyP50Ms != nil)
        let summary = try String(contentsOf: second.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("Replayed (not timed)"))
    }
}
