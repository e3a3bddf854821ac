import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
}

@Suite("What validate, plan and backends say before anything is sent")
struct PreflightTests {
    @Test("a context-fit report reads as its window, each case's budget by part, each overflow and the count")
    func contextFitLines() {
        let unknown = ContextFitReport(backend: "remote", window: nil, source: .estimated, casesChecked: 3, overflows: [])
        #expect(unknown.lines == ["context remote: window unknown; set contextSize to check that its cases fit"])
        let report = ContextFitReport(
            backend: "device", window: ContextWindow(tokens: 1000, origin: "config contextSize", larger: 2000),
            source: .estimated, casesChecked: 2,
            overflows: [.init(suite: "s", caseID: "chat", turn: 2, inputTokens: 900, outputHeadroom: 200),
                        .init(suite: "s", caseID: "huge", turn: 1, inputTokens: 2500, outputHeadroom: 0)],
            budgets: [.init(suite: "s", caseID: "a", turn: 1, instructions: 100, schema: 0, history: 0, prompt: 50, output: 100),
                      .init(suite: "s", caseID: "chat", turn: 2, instructions: 100, schema: 20, history: 700, prompt: 80, output: 200)])
        #expect(report.lines == [
            "context device: 1000 tokens (config contextSize); inputs estimated (\(TokenEstimate.rule)); earlier answers and this answer at maxOutputTokens each",
            "budget device: s/a turn 1: instructions 10.0% · history 0.0% · prompt 5.0% · output 10.0% = 25.0% of 1000",
            "budget device: s/chat turn 2: instructions 10.0% · schema 2.0% · history 70.0% · prompt 8.0% · output 20.0% = 110.0% of 1000",
            "context device: does not fit (the conversation outgrows the window at turn 2): s/chat turn 2 needs 1100 tokens (input 900 + output 200) > 1000; fits 2000",
            "context device: does not fit: s/huge turn 1 needs 2500 tokens (input 2500 + output 0) > 1000; over 2000 too",
            "context device: 2 of 2 cases do not fit (estimated)",
        ])
        var counted = report
        counted.source = .counted
        #expect(counted.lines[0].contains("; inputs counted by the model's tokenizer;"))
    }

    @Test("validate names each suite with its cases and turns and the backends; plan lists the matrix, each level's mapping and the context fit")
    func validationAndPlan() async throws {
        let directory = PackagePaths.temporaryDirectory("preflight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = directory.appendingPathComponent("s.json")
        let config = directory.appendingPathComponent("evalbench.json")
        try write(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "x"}, {"id": "b", "turns": [{"prompt": "1"}, {"prompt": "2"}]}]}"#,
                  to: suite)
        try write(#"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "contextSize": 4096, "reasoning": {"deep": {"unsupported": "no deep here"}}}]}"#,
                  to: config)
        let loaded = try EvalRun.load(RunRequest(suitePaths: [suite.path], configPath: config.path, reasoning: [.none, .deep]))
        #expect(Preflight.validation(loaded) == ["\(suite.path): ok: suite 's', 2 cases, 3 turns", "config: ok: backends srv"])
        let lines = await Preflight.plan(loaded, environment: [:], transport: URLSessionStreamTransport())
        #expect(Array(lines.prefix(6)) == ["key\tturns", "s/a/default/srv/none/1\t1", "s/a/default/srv/deep/1\t1",
                                           "s/b/default/srv/none/1\t2", "s/b/default/srv/deep/1\t2", "4 case runs, 6 requests"],
                "\(lines)")
        #expect(lines.contains("reasoning srv/none: reasoning_effort omitted"), "\(lines)")
        #expect(lines.contains("reasoning srv/deep: skipped: no deep here"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("reasoning srv/light") }, "only planned levels")
        #expect(lines.contains { $0.hasPrefix("context srv: 4096 tokens (config contextSize); inputs estimated") }, "\(lines)")
        #expect(lines.last == "context srv: 0 of 2 cases do not fit (estimated)", "\(lines)")
    }

    @Test("backends says each backend's availability, concurrency and reasoning, and fails as infrastructure when one is unavailable")
    func backends() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let available = try ConfigLoader.load(data: Data(#"{"backends": [{"name": "srv", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1", "concurrency": 3}]}"#.utf8),
                                              file: "evalbench.json", baseDirectory: FileManager.default.temporaryDirectory.path)
        var lines: [String] = []
        let status = await Preflight.checkBackends(available, environment: [:], transport: URLSessionStreamTransport(), start: true) { lines.append($0) }
        #expect(status == .success)
        #expect(lines.first == "srv  kind=openai  model=n/a")
        #expect(lines.contains("  availability: available") && lines.contains("  concurrency: 3"), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("  reasoning ") }.count == ReasoningLevel.allCases.count)
        #expect(server.requests.map { "\($0.http.method) \($0.http.path)" } == ["GET /v1"],
                "the probe is one GET of the base URL, no chat request")
        #expect(server.requests.first?.http.headers["authorization"] == nil, "and carries no key")

        let closed = try ConfigLoader.load(data: Data(#"{"backends": [{"name": "down", "kind": "openai", "baseURL": "http://127.0.0.1:\#(try FreePort.loopback())/v1"}]}"#.utf8),
                                           file: "evalbench.json", baseDirectory: FileManager.default.temporaryDirectory.path)
        lines = []
        #expect(await Preflight.checkBackends(closed, environment: [:], transport: URLSessionStreamTransport(), start: true) { lines.append($0) }
                == .infrastructure, "a closed port is not available")
        #expect(lines.contains { $0.hasPrefix("  availability: unavailable: the server does not answer: ") }, "\(lines)")

        let keyless = try ConfigLoader.load(data: Data(#"{"backends": [{"name": "paid", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1", "apiKeyEnv": "EVALBENCH_TEST_UNSET_KEY"}]}"#.utf8),
                                            file: "evalbench.json", baseDirectory: FileManager.default.temporaryDirectory.path)
        lines = []
        #expect(await Preflight.checkBackends(keyless, environment: [:], transport: URLSessionStreamTransport(), start: false) { lines.append($0) }
                == .infrastructure)
        #expect(lines.count == 2 && lines[1].hasPrefix("  availability: unavailable: ") && lines[1].contains("EVALBENCH_TEST_UNSET_KEY"), "\(lines)")
        lines = []
        _ = await Preflight.checkBackends(available, environment: [:], transport: URLSessionStreamTransport(), start: false) { lines.append($0) }
        #expect(lines.contains("  availability: not checked (--no-start)"))
    }

    @Test("a watch uses the response cache unless told not to, and writes into reports/<suites>-watch unless given a directory")
    func watchRequest() {
        let environment = ["EVALBENCH_CACHE": "/tmp/evalbench-cache"]
        let plain = RunRequest(suitePaths: ["evals/a.json", "b.json"], environment: environment)
        let cached = RunWatch(plain, useCache: true)
        #expect(cached.request.cacheDirectory == ResponseCache.defaultDirectory(environment: environment))
        #expect(cached.request.outputDirectory == "reports/a+b-watch")
        var placed = plain
        placed.outputDirectory = "out"
        let uncached = RunWatch(placed, useCache: false)
        #expect(uncached.request.cacheDirectory == nil)
        #expect(uncached.request.outputDirectory == "out")
    }

    @Test("every exit status has the code DESIGN.md gives it")
    func exitStatuses() {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 130])
        #expect(Set(ExitStatus.allCases.map(\.meaning)).count == ExitStatus.allCases.count)
    }
}

/// Collects the lines a watch says, from whichever task says them.
private final class Lines: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
    func count(_ prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }
}

extension LoopbackNetworkTests {
    @Test("a watch runs, runs again when the suite changes, says what flipped, and stops when its task is cancelled")
    func watchLoop() async throws {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content((request.messages.last?.content ?? "").contains("France") ? "Paris" : "Rome")])
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("watch-loop")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("evalbench.json")
        let suite = directory.appendingPathComponent("s.json")
        try write(#"{"backends": [{"name": "fake", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}]}"#, to: config)
        func writeSuite(_ prompt: String) throws {
            try write(#"{"format": "evalbench.suite/1", "suite": "w", "cases": [{"id": "a", "prompt": "\#(prompt)", "expect": [{"type": "contains", "value": "Paris"}]}]}"#,
                      to: suite)
        }
        try writeSuite("France?")
        var request = RunRequest(suitePaths: [suite.path], configPath: config.path, outputDirectory: directory.appendingPathComponent("out").path,
                                 environment: ["EVALBENCH_CACHE": directory.appendingPathComponent("cache").path])
        request.arguments = ["run", "--watch"]
        let watch = RunWatch(request, useCache: true, pollInterval: 0.05)
        let lines = Lines()
        let task = Task { await watch.run(transport: URLSessionStreamTransport(), say: lines.append) }
        func waitFor(_ prefix: String, count: Int) async -> Bool {
            for _ in 0..<300 where lines.count(prefix) < count { try? await Task.sleep(nanoseconds: 20_000_000) }
            return lines.count(prefix) >= count
        }
        #expect(await waitFor("evalbench: watching", count: 1), "\(lines.all)")
        try writeSuite("Italy?")
        #expect(await waitFor("evalbench: watching", count: 2), "\(lines.all)")
        task.cancel()
        await task.value
        let said = lines.all
        #expect(said.first == "evalbench: watch iteration 1: 1 results; report \(directory.appendingPathComponent("out/summary.md").path)", "\(said)")
        #expect(said.contains("evalbench: changed: \(suite.path)"), "\(said)")
        #expect(said.contains("  flip  w/a/default/fake/none/1 turn 1: pass → fail"), "\(said)")
        #expect(said.contains { $0.hasPrefix("  requests sent: 1") }, "\(said)")
        #expect(server.requests.count == 2)
    }
}
