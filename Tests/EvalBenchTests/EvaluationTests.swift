import Foundation
import Testing
import EvalBench
import EvalBenchTestSupport

/// A backend of the caller's own, as an app test writes one: only a name and an answer.
private struct Answerer: Backend {
    let name: String
    let calls = CallCount()
    let answer: @Sendable (String) -> String

    func startConversation() async -> any Conversation { Reply(calls: calls, answer: answer) }

    struct Reply: Conversation {
        let calls: CallCount
        let answer: @Sendable (String) -> String
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            calls.increment()
            let watch = Stopwatch()
            let text = answer(request.messages.last?.content ?? "")
            let end = watch.ms()
            return .success(ModelResponse(text: text, timing: RequestTiming(startedAt: watch.startedAt, firstTokenMs: end,
                                                                            firstAnswerTokenMs: end, endMs: end),
                                          usage: Usage()))
        }
    }
}

private final class CallCount: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Evaluation: the library's one entry point, with suites and config as values and backends of the caller's own")
struct EvaluationTests {
    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-evaluation-\(UUID())").path
    }

    private let suite = Suite(name: "echo", cases: [
        EvalCase(id: "hello", prompt: "say hello", expect: [Assertion(.contains("hello", ignoreCase: false))]),
        EvalCase(id: "bye", prompt: "say bye", expect: [Assertion(.contains("bye", ignoreCase: false))]),
    ])

    @Test("a suite built in Swift on a backend of one's own: results, verdict, headline and the report files; cost and tokens unknown, not 0")
    func suiteValueOnProvidedBackend() async throws {
        let backend = Answerer(name: "mine") { $0.contains("hello") ? "hello there" : "see you" }
        var evaluation = Evaluation(suites: [.suite(suite)], backends: [backend])
        evaluation.outputDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: evaluation.outputDirectory!) }
        let report = try await evaluation.run()
        #expect(report.passRate == 0.5)
        #expect(report.failures.map(\.caseID) == ["bye"])
        #expect(report.exitStatus == .gateFailed, "the default gate: every case passes")
        #expect(report.results.allSatisfy { $0.costUSD == nil && $0.usage.inputTokens == nil })
        #expect(report.results.allSatisfy { $0.backend == "mine" })
        #expect(report.headline.contains("| mine |"))
        let summary = try String(contentsOf: report.outputDirectory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("# evalbench: echo"))
        let metadata = try Data(contentsOf: report.outputDirectory.appendingPathComponent("run.json"))
        #expect(String(decoding: metadata, as: UTF8.self).contains("\"provided\""), "run.json records the kind of a provided backend")
    }

    @Test("a config built in Swift runs its backend beside the caller's; the selection picks among both")
    func configValueBesideProvided() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("hello from the server")]) }
        try server.start()
        defer { server.stop() }
        let config = Config(backends: [BackendConfig(name: "srv", model: "m",
                                                     options: OpenAIKind(baseURL: server.baseURL.absoluteString + "/v1"))])
        var evaluation = Evaluation(suites: [.suite(suite)], config: .config(config),
                                    backends: [Answerer(name: "mine") { _ in "hello, bye" }])
        evaluation.outputDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: evaluation.outputDirectory!) }
        let both = try await evaluation.run()
        #expect(both.summary(backend: "srv")?.passed == 1)
        #expect(both.summary(backend: "mine")?.passed == 2)
        #expect(both.groups.count == 2)

        evaluation.backendNames = ["mine"]
        evaluation.outputDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: evaluation.outputDirectory!) }
        let one = try await evaluation.run()
        #expect(one.groups.map(\.group.backend) == ["mine"])
        #expect(one.exitStatus == .success)
    }

    @Test("a suite value with a repeated id, an empty case and a pattern that takes exponential time is a LoadError naming each, and nothing is sent")
    func badSuiteValue() async throws {
        let backend = Answerer(name: "mine") { _ in "x" }
        let bad = Suite(name: "bad", cases: [
            EvalCase(id: "a", prompt: "p", expect: [Assertion(.regex("(a+)+$", ignoreCase: false))]),
            EvalCase(id: "a", prompt: "p", expect: []),
            EvalCase(id: "c", turns: []),
        ], repeatCount: 0)
        var evaluation = Evaluation(suites: [.suite(bad)], backends: [backend])
        evaluation.outputDirectory = temporaryDirectory()
        do {
            _ = try await evaluation.run()
            Issue.record("the suite ran")
        } catch let error as LoadError {
            let found = error.diagnostics.map { "\($0.path ?? "-") \($0.message)" }
            #expect(found.contains { $0.hasPrefix("$.cases[1].id") && $0.contains("used twice") }, "\(found)")
            #expect(found.contains { $0.hasPrefix("$.cases[2].turns") }, "\(found)")
            #expect(found.contains { $0.hasPrefix("$.cases[0].turns[0].expect[0]") && $0.contains("exponential") }, "\(found)")
            #expect(found.contains { $0.hasPrefix("$.repeat") }, "\(found)")
            #expect(error.diagnostics.allSatisfy { $0.file == "suite 'bad' (built in Swift)" })
        }
        #expect(backend.calls.value == 0)
        #expect(!FileManager.default.fileExists(atPath: evaluation.outputDirectory!))
    }

    @Test("a backend passed under a configured backend's name, or a config value with a name twice, is a LoadError")
    func nameClashes() async throws {
        let config = Config(backends: [BackendConfig(name: "srv", options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1")),
                                       BackendConfig(name: "srv", options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1"))])
        let evaluation = Evaluation(suites: [.suite(suite)], config: .config(config),
                                    backends: [Answerer(name: "srv") { _ in "x" }])
        do {
            _ = try await evaluation.run()
            Issue.record("the run started")
        } catch let error as LoadError {
            #expect(error.diagnostics.contains { $0.message.contains("'srv' is used twice") })
        }
        let clash = Evaluation(suites: [.suite(suite)], config: .config(Config(backends: [config.backends[0]])),
                               backends: [Answerer(name: "srv") { _ in "x" }])
        do {
            _ = try await clash.run()
            Issue.record("the run started")
        } catch let error as LoadError {
            #expect(error.diagnostics.contains { $0.message.contains("has the name of a configured backend") })
        }
    }

    @Test("with --cache, a backend of the caller's own is asked every time: evalbench cannot know what shapes its answers")
    func providedBackendsAreNotCached() async throws {
        let backend = Answerer(name: "mine") { _ in "hello, bye" }
        let cache = URL(fileURLWithPath: temporaryDirectory())
        defer { try? FileManager.default.removeItem(at: cache) }
        var request = Evaluation(suites: [.suite(suite)], backends: [backend]).runRequest()
        request.cacheDirectory = cache
        for _ in 0..<2 {
            request.outputDirectory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: request.outputDirectory!) }
            let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
            #expect(outcome.results.allSatisfy { $0.cached != true })
        }
        #expect(backend.calls.value == 4)
    }
}
