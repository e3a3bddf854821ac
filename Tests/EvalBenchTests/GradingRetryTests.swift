import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let transport = URLSessionStreamTransport()
private let verdict = #"{"reason": "It names Paris.", "pass": true, "score": 0.9}"#
private let input = GradingInput(output: "Paris", latencyMs: 1, ttftMs: 1, usage: Usage(), prompt: "Capital of France?")
private let judged = Assertion(.judge(ModelGrader(backend: "judge"), rubric: "Names Paris.", minScore: nil))
/// Retries after a millisecond, so the tests wait for the faults, not the backoff.
private func quickRetries(_ count: Int) -> RetryPolicy {
    RetryPolicy(maxRetries: count, baseDelaySeconds: 0.001, maxDelaySeconds: 0.001, maxRetryAfterSeconds: 0.001)
}

private func judgeBackend(_ server: FakeOpenAIServer) -> OpenAIBackend {
    OpenAIBackend(name: "judge", model: "judge-model", baseURL: server.baseURL.appendingPathComponent("v1"),
                  apiKey: nil, concurrency: 1, transport: transport)
}

extension LoopbackNetworkTests {
    @Test("a judge call retries a 503 and a stall past its timeout like an answer, gives its verdict, and records 3 attempts")
    func judgeRetried() async throws {
        let server = FakeOpenAIServer(replies: [
            .init(fault: .openAIError(status: 503, message: "The server is overloaded", type: "server_error", code: nil)),
            .init(fault: .stall),
            .init(model: "judge-model", steps: [.content(verdict)], usage: .init(promptTokens: 300, completionTokens: 20)),
        ])
        try server.start()
        defer { server.stop() }
        let grader = Grader(models: ["judge": judgeBackend(server)], timeoutSeconds: 0.5, retryPolicy: quickRetries(3))
        let result = await grader.grade(judged, input)
        #expect(result.passed, "\(result.message ?? "")")
        #expect(result.judge?.attempts == 3)
        #expect(result.judge?.verdict?.score == 0.9)
        #expect(result.judge?.usage.inputTokens == 300, "the figures are the answering attempt's")
        #expect(server.requests.count == 3)
        let encoded = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        #expect(encoded.contains(#""attempts":3"#), "\(encoded)")
        #expect(try JSONDecoder().decode(AssertionResult.self, from: Data(encoded.utf8)) == result)
    }

    @Test("a judge call is not retried after a non-retryable failure, nor with retries 0; when retries run out the assertion fails and says why")
    func judgeNotRetried() async throws {
        let quota = FakeOpenAIServer(replies: [.init(fault: .insufficientQuota), .init(steps: [.content(verdict)])])
        try quota.start()
        defer { quota.stop() }
        let refused = await Grader(models: ["judge": judgeBackend(quota)], retryPolicy: quickRetries(3)).grade(judged, input)
        #expect(!refused.passed && refused.judge?.attempts == 1 && quota.requests.count == 1)

        let overloaded = FakeOpenAIServer(replies: Array(repeating: .init(fault: .openAIError(
            status: 503, message: "The server is overloaded", type: "server_error", code: nil)), count: 4))
        try overloaded.start()
        defer { overloaded.stop() }
        let once = await Grader(models: ["judge": judgeBackend(overloaded)]).grade(judged, input)
        #expect(once.judge?.attempts == 1 && overloaded.requests.count == 1, "a grader made without a policy does not retry")
        let exhausted = await Grader(models: ["judge": judgeBackend(overloaded)], retryPolicy: quickRetries(2)).grade(judged, input)
        #expect(!exhausted.passed && exhausted.judge?.attempts == 3 && overloaded.requests.count == 4)
        #expect(exhausted.judge?.error?.contains("503") == true, "\(exhausted.judge?.error ?? "")")
        #expect(exhausted.message?.contains("the judge call failed: ") == true, "\(exhausted.message ?? "")")
    }

    @Test("a judge's retries fit in its grading time limit: two stalls past the timeout, then a verdict, is no grading_timeout")
    func retriesWithinTheLimit() async throws {
        let server = FakeOpenAIServer(replies: [.init(fault: .stall), .init(fault: .stall), .init(steps: [.content(verdict)])])
        try server.start()
        defer { server.stop() }
        // The limit was 0.1 s plus one timeout, 0.4 s, which the two stalls alone pass; with 4
        // retries allowed it is 0.1 + 5 × 0.3 s and the waits, a second more than they take.
        let grader = Grader(models: ["judge": judgeBackend(server)], timeoutSeconds: 0.3, timeLimitSeconds: 0.1,
                            retryPolicy: quickRetries(4))
        let result = await grader.grade(judged, input)
        #expect(result.error == nil && result.passed, "\(result.message ?? "")")
        #expect(result.judge?.attempts == 3)
    }

    @Test("through a run: defaults.retries reaches the judge and the embeddings calls, and summary.md counts their retries")
    func retriedInARun() async throws {
        let judge = FakeOpenAIServer(replies: [.init(fault: .rateLimited(retryAfterSeconds: 0)), .init(steps: [.content(verdict)])])
        let embeddingCalls = CallCounter()
        let embeddings = FakeHTTPServer { request in
            guard request.path.hasSuffix("/embeddings") else { return .full(status: 404) }
            if embeddingCalls.next() == 1 {
                return .full(status: 429, headers: ["Retry-After": "0", "Content-Type": "application/json"],
                             body: Data(#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#.utf8))
            }
            let body = #"{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [1, 0.1]}], "model": "embed"}"#
            return .full(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let graded = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("Paris")]) }
        for server in [judge, graded] { try server.start() }
        try embeddings.start()
        defer {
            judge.stop()
            graded.stop()
            embeddings.stop()
        }
        let fixture = try RunFixture("grading-retries", suite: """
        { "format": "evalbench.suite/1", "suite": "gr",
          "cases": [ { "id": "france", "prompt": "Capital of France?", "expect": [
            { "type": "judge", "backend": "grader", "rubric": "Names Paris." },
            { "type": "similar", "backend": "embedder", "value": "Paris", "threshold": 0.9 } ] } ] }
        """, config: """
        { "backends": [
            { "name": "main", "kind": "openai", "model": "answerer", "baseURL": "\(graded.baseURL.absoluteString)/v1" },
            { "name": "grader", "kind": "openai", "model": "judge-model", "baseURL": "\(judge.baseURL.absoluteString)/v1" },
            { "name": "embedder", "kind": "openai", "model": "embed", "baseURL": "\(embeddings.baseURL.absoluteString)/v1" } ],
          "defaults": { "backends": ["main"], "retries": 1 } }
        """)
        defer { fixture.remove() }
        let request = fixture.request()
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: transport)
        let result = try #require(outcome.results.first)
        #expect(result.status == .pass, "\(result.assertions.compactMap(\.message))")
        #expect(result.assertions.map { $0.judge?.attempts } == [2, 2])
        #expect(judge.requests.count == 2 && embeddingCalls.count == 2)
        let summary = try String(contentsOf: fixture.directory.appendingPathComponent("out/summary.md"), encoding: .utf8)
        #expect(summary.contains("| Grading backend | Kind of call | Calls | Failed calls | Retries |"), "\(summary)")
        #expect(summary.contains("| grader | judge | 1 | 0 | 1 | 1/1 |"), "\(summary)")
        #expect(summary.contains("| embedder | similar | 1 | 0 | 1 | n/a |"), "\(summary)")
    }
}

@Test("the summary's retry count: none recorded is a dash, one attempt no retry, and a file's absurd counts never trap")
func gradingRetryCount() {
    #expect(SummaryMarkdown.retries([]) == "—")
    #expect(SummaryMarkdown.retries([1, 3, 1, 2]) == "3")
    #expect(SummaryMarkdown.retries([0, -5, Int.min]) == "0")
    #expect(SummaryMarkdown.retries([Int.max, Int.max]) == String(Int.max))
}

@Test("the worst case of a call with retries: every attempt and the longest wait before each retry")
func retryWorstCase() {
    let policy = RetryPolicy(maxRetries: 3, baseDelaySeconds: 0.5, maxDelaySeconds: 30, maxRetryAfterSeconds: 120)
    #expect(policy.worstCaseSeconds(attemptSeconds: 10) == 4 * 10 + 3 * 120)
    #expect(RetryPolicy(maxRetries: 0).worstCaseSeconds(attemptSeconds: 7) == 7)
}

private final class CallCounter: @unchecked Sendable {
    // @unchecked: `calls` is only touched under `lock`.
    private let lock = NSLock()
    private var calls = 0
    /// Counts a call and returns its number, from 1.
    func next() -> Int { lock.withLock { calls += 1; return calls } }
    var count: Int { lock.withLock { calls } }
}
