import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// A one-backend run against FakeOpenAIServer over real loopback sockets.
private func run(_ server: FakeOpenAIServer, cases: [EvalCase], retries: Int = 0, concurrency: Int = 1,
                 timeoutSeconds: Double = 10, pricing: Pricing? = nil) async throws -> [RequestResult] {
    let out = PackagePaths.temporaryDirectory("fake")
    defer { try? FileManager.default.removeItem(at: out) }
    let backend = OpenAIBackend(name: "fake", model: "fake-model", baseURL: server.baseURL.appendingPathComponent("v1"),
                                apiKey: "sk-test-secret-value", concurrency: concurrency, transport: URLSessionStreamTransport())
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: ["fake": backend], store: store, concurrency: concurrency, timeoutSeconds: timeoutSeconds,
                        retryPolicy: RetryPolicy(maxRetries: retries, baseDelaySeconds: 0.01, maxDelaySeconds: 0.05),
                        pricing: pricing.map { ["fake": $0] } ?? [:])
    let suite = Suite(name: "s", file: "s.json", cases: cases)
    await runner.run(Planner.plan([suite], PlanSelection(backends: ["fake"])), availability: ["fake": .available])
    try store.close()
    let lines = try String(contentsOf: out.appendingPathComponent("results.jsonl"), encoding: .utf8)
    #expect(!lines.contains("sk-test-secret-value"), "the API key must never reach results")
    return store.all().sorted { ($0.caseID, $0.turn) < ($1.caseID, $1.turn) }
}

private func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

@Suite("Runs against a scripted OpenAI-compatible server", .serialized)
struct FakeServerRunTests {
    @Test("multi-turn cases send the growing history, in order, on one conversation")
    func history() async throws {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content("answer \(request.messages.filter { $0.role == "user" }.count)")])
        }
        try server.start()
        defer { server.stop() }
        let evalCase = EvalCase(id: "chat", instructions: "Be brief.", turns: [Turn(prompt: "one"), Turn(prompt: "two"), Turn(prompt: "three")])
        let results = try await run(server, cases: [evalCase])
        #expect(results.map(\.output) == ["answer 1", "answer 2", "answer 3"])
        #expect(results.allSatisfy { $0.costUSD == nil }, "no pricing: cost is unknown, not 0")
        let last = try #require(server.requests.last)
        #expect(last.messages.map(\.role) == ["system", "user", "assistant", "user", "assistant", "user"])
        #expect(last.messages.map(\.content) == ["Be brief.", "one", "answer 1", "two", "answer 2", "three"])
        #expect(last.includeUsage)
        #expect(last.stream)
    }

    @Test("a run records each turn's score, the case threshold and, on the last turn, the case's score")
    func scores() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content(#"{"label": "cat"}"#)]) }
        try server.start()
        defer { server.stop() }
        let evalCase = EvalCase(id: "pets", turns: [
            Turn(prompt: "one", expect: [Assertion(.json), Assertion(.contains("dog", ignoreCase: false))]),
            Turn(prompt: "two", expect: [Assertion(.jsonPointer(JSONPointer(tokens: ["label"]), .equals(.string("cat"), ignoreCase: false)),
                                                   name: "is-cat", weight: 2)]),
        ], threshold: 0.7)
        let results = try await run(server, cases: [evalCase])
        #expect(results.map(\.score) == [0.5, 1])
        #expect(results.map(\.status) == [.fail, .pass])
        #expect(results.map(\.threshold) == [0.7, 0.7])
        #expect(results.map(\.caseScore) == [nil, 0.75])
        #expect(results[1].assertions.first?.metric == "is-cat")
        #expect(RunAggregate(results).caseRuns.first?.status == .pass)
    }

    @Test("a 429 with Retry-After is retried and then succeeds; attempts are recorded")
    func retryOnRateLimit() async throws {
        let server = FakeOpenAIServer(replies: [
            FakeOpenAIServer.Script(fault: .rateLimited(retryAfterSeconds: 0)),
            FakeOpenAIServer.Script(steps: [.content("ok")]),
        ])
        try server.start()
        defer { server.stop() }
        let results = try await run(server, cases: [EvalCase(id: "a", turns: [Turn(prompt: "x")])], retries: 2,
                                    pricing: Pricing(perRequest: 0.002))
        #expect(results.first?.status == .pass)
        #expect(results.first?.costUSD == 0.002)
        #expect(results.first?.attempts == 2)
        #expect(server.requests.count == 2)
    }

    @Test("quota, context overflow, a reset mid-stream, malformed SSE and a stall are classified, and not-retryable ones are sent once")
    func faults() async throws {
        let faults: [(String, FakeOpenAIServer.Fault, ErrorKind)] = [
            ("quota", .insufficientQuota, .quotaExhausted),
            ("context", .llamaContextExceeded(promptTokens: 5000, contextSize: 4096), .contextOverflow),
            ("reset", .resetAfter(steps: 1), .network),
            ("malformed", .malformedAfter(steps: 1), .decoding),
            ("stall", .stall, .timeout),
        ]
        for (name, fault, kind) in faults {
            let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("partial")], fault: fault) }
            try server.start()
            defer { server.stop() }
            let evalCase = EvalCase(id: name, turns: [Turn(prompt: "x"), Turn(prompt: "y")])
            let results = try await run(server, cases: [evalCase], retries: 0, timeoutSeconds: 0.5)
            #expect(results.count == 2)
            #expect(results.first?.status == .error)
            #expect(results.first?.errorKind == kind, "\(name): got \(String(describing: results.first?.errorKind))")
            #expect(results.last?.status == .skipped, "\(name): the turn after an error is skipped")
            #expect(server.requests.count == 1)
        }
    }

    @Test("a fake server told not to record answers as usual and keeps no log (the benchmark's stub for 100,000 requests)")
    func unrecorded() async throws {
        let server = FakeOpenAIServer(recordsRequests: false) { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let results = try await run(server, cases: (0..<3).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "x")]) })
        #expect(results.count == 3)
        #expect(results.allSatisfy { $0.status == .pass && $0.output == "ok" })
        #expect(server.requests.isEmpty)
    }

    @Test("conversations run in parallel up to the concurrency limit")
    func concurrency() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 200)]) }
        try server.start()
        defer { server.stop() }
        let cases = (0..<8).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "x")]) }
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await run(server, cases: cases, concurrency: 4)
        let elapsed = clock.now - started
        #expect(results.allSatisfy { $0.status == .pass })
        #expect(elapsed >= .milliseconds(400), "8 requests of 200 ms at concurrency 4 take at least 2 rounds")
        // How many requests were in flight at once, from each request's own start and end
        // (not from the wall time, which a busy machine stretches): each of the 200 ms answers
        // overlaps the others of its round, and never more than 4 at a time. The ends are
        // trimmed by a millisecond, so a slot's next request does not overlap its last.
        let intervals = results.compactMap { result -> (start: Double, end: Double)? in
            guard let timing = result.timing, let end = timing.endMs else { return nil }
            let start = timing.startedAt.timeIntervalSinceReferenceDate * 1000
            return (start + 1, start + end - 1)
        }
        #expect(intervals.count == cases.count)
        let peak = intervals.map { moment in intervals.filter { $0.start <= moment.start && moment.start < $0.end }.count }.max() ?? 0
        #expect(peak > 1, "they must not run one at a time")
        #expect(peak <= 4, "at most 4 at once at concurrency 4, saw \(peak)")
    }
}

/// Run on their own by scripts/test: a 2 ms bound needs a machine not busy with other suites.
@Suite("Timing precision against a scripted server", .serialized)
struct TimingPrecisionTests {
    @Test("TTFT, TTFA and latency come back within 2 ms of the script (medians), token counts exactly")
    func timingAndUsage() async throws {
        // Prompts "instant-N" get every piece at once: their medians are the fixed cost of the
        // loopback transport and the fake itself, which is subtracted from the scripted ones.
        let server = FakeOpenAIServer { request in
            let instant = request.messages.last?.content.hasPrefix("instant") == true
            return FakeOpenAIServer.Script(
                steps: [.reasoning("hmm", afterMs: instant ? 0 : 40), .content(" Paris", afterMs: instant ? 0 : 60),
                        .content(".", afterMs: instant ? 0 : 30)],
                usage: .init(promptTokens: 120, completionTokens: 9, totalTokens: 129, cachedTokens: 100, reasoningTokens: 4))
        }
        try server.start()
        defer { server.stop() }
        let cases = (0..<30).map { index in
            EvalCase(id: "c\(index)", turns: [Turn(prompt: (index % 2 == 0 ? "instant-" : "timed-") + "\(index)",
                                                  expect: [Assertion(.contains("Paris", ignoreCase: false))])])
        }
        let results = try await run(server, cases: cases)
        #expect(results.count == 30)
        let measured = results.filter { $0.caseID != "c0" && $0.caseID != "c1" } // the first ones also open connections
        let instant = measured.filter { $0.prompt.hasPrefix("instant") }
        let timed = measured.filter { $0.prompt.hasPrefix("timed") }
        func medianOf(_ results: [RequestResult], _ metric: (RequestTiming) -> Double?) -> Double {
            median(results.compactMap { $0.timing.flatMap(metric) })
        }
        let ttft = medianOf(timed, \.ttftMs) - medianOf(instant, \.ttftMs)
        let ttfa = medianOf(timed, \.ttfaMs) - medianOf(instant, \.ttfaMs)
        let latency = medianOf(timed, \.latencyMs) - medianOf(instant, \.latencyMs)
        #expect(abs(ttft - 40) < 2, "TTFT \(ttft) ms beyond the fixed cost; the first (reasoning) token was scripted at 40 ms")
        #expect(abs(ttfa - 100) < 2, "TTFA \(ttfa) ms beyond the fixed cost; the answer was scripted at 100 ms")
        #expect(abs(latency - 130) < 2, "latency \(latency) ms beyond the fixed cost; the stream was scripted to end at 130 ms")
        #expect(medianOf(instant, \.ttftMs) < 20, "the fixed cost of loopback plus the fake stays small")
        for result in results {
            #expect(result.status == .pass)
            #expect(result.output == " Paris.")
            #expect(result.usage == Usage(inputTokens: 120, cachedInputTokens: 100, outputTokens: 9, reasoningTokens: 4, source: .reported))
            #expect(result.timing?.tpotMs(outputTokens: 9) != nil)
        }
    }
}
