import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let suite = #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q"}]}"#

@Suite("A grading time limit per assertion, and the size cap on grading calls")
struct GradingTimeLimitTests {
    @Test("work that cannot finish before the deadline gives nil; work that finishes gives its outcome")
    func deadline() async {
        let release = DispatchSemaphore(value: 0)
        let blocked = await GradingTimeLimit.outcome(within: 0.05) { () -> CheckOutcome in
            release.wait()
            return CheckOutcome(holds: true, expected: "e", actual: "a")
        }
        release.signal()
        #expect(blocked == nil, "the work waits for a signal sent only after the deadline")
        let quick = await GradingTimeLimit.outcome(within: 60) { CheckOutcome(holds: true, expected: "e", actual: "a") }
        #expect(quick?.holds == true)
        let stalledCall = await GradingTimeLimit.outcome(within: 0.05) { () async -> CheckOutcome in
            try? await Task.sleep(nanoseconds: 600_000_000_000)
            return CheckOutcome(holds: true, expected: "e", actual: Task.isCancelled ? "cancelled" : "slept")
        }
        #expect(stalledCall == nil, "an awaited call (a judge) is given up on and cancelled")
    }

    @Test("only checks that cannot run long are graded in place: measurements, and text comparisons on answers up to 64 KiB")
    func quickChecks() async {
        let short = "Paris", long = String(repeating: "a", count: Grader.quickAnswerBytes + 1)
        let quick: [Assertion.Check] = [.contains("P", ignoreCase: true), .notContains("x", ignoreCase: false),
                                        .equals("Paris", ignoreCase: false), .containsAll(["a", "r"], ignoreCase: false),
                                        .maxLatencyMs(10), .maxTTFTMs(10)]
        for check in quick { #expect(Grader.isQuick(check, output: short), "\(check)") }
        for check in quick.prefix(4) { #expect(!Grader.isQuick(check, output: long), "\(check) on a long answer") }
        #expect(Grader.isQuick(.maxLatencyMs(10), output: long))
        let longValue = String(repeating: "b", count: 4_096)
        #expect(!Grader.isQuick(.contains(longValue, ignoreCase: false), output: String(repeating: "a", count: 60_000)),
                "a long value searched for in a long answer goes to a thread")
        #expect(Grader.isQuick(.contains(longValue, ignoreCase: false), output: short))
        for check: Assertion.Check in [.regex("a+", ignoreCase: false), .json, .similar(ModelGrader(backend: "emb"), value: "P", threshold: 0.5)] {
            #expect(!Grader.isQuick(check, output: short), "\(check)")
        }
        // In place or on a thread, the verdict is the same.
        let grader = Grader(models: [:], timeoutSeconds: 1, timeLimitSeconds: 10)
        let input = GradingInput(output: long + "Paris", latencyMs: 1, ttftMs: 1, usage: Usage())
        let inPlace = await grader.grade([Assertion(.contains("Paris", ignoreCase: false))], GradingInput(output: "Paris", latencyMs: 1, ttftMs: 1, usage: Usage()))
        let onThread = await grader.grade([Assertion(.contains("Paris", ignoreCase: false))], input)
        #expect(inPlace.results.map(\.passed) == [true] && onThread.results.map(\.passed) == [true])
    }

    @Test("the byte search of plain ASCII finds what Foundation's search finds, ignoring case or not, and declines anything else")
    func asciiSearch() {
        var generator = SplitMix64(seed: 11)
        let letters = Array("aAbB zZ\t\n.")
        func text(_ most: UInt64) -> String { String((0..<Int(generator.next() % most)).map { _ in letters[Int(generator.next() % UInt64(letters.count))] }) }
        for _ in 0..<3_000 {
            let haystack = text(24), needle = text(4)
            for ignoreCase in [false, true] {
                let foundation = haystack.range(of: needle, options: ignoreCase ? [.caseInsensitive] : []) != nil
                #expect(TextChecks.find(needle, in: haystack, ignoreCase) == foundation, "\(needle.debugDescription) in \(haystack.debugDescription)")
                if !needle.isEmpty { #expect(TextChecks.asciiFind(needle, in: haystack, ignoreCase) == foundation) }
            }
        }
        #expect(TextChecks.asciiFind("", in: "abc", false) == nil, "an empty value is left to Foundation")
        #expect(TextChecks.asciiFind("é", in: "café", false) == nil)
        #expect(TextChecks.asciiFind("a", in: "a\r\nb", false) == nil)
        #expect(TextChecks.find("E\u{301}", in: "caf\u{E9}", true) == ("caf\u{E9}".range(of: "E\u{301}", options: .caseInsensitive) != nil))
    }

    @Test("an assertion over its limit fails with grading_timeout, also under not: true, and the next one is graded")
    func timedOutAssertion() async throws {
        // An embeddings backend that answers only when cancelled: the similarity check cannot
        // finish before the deadline, however fast the machine.
        let stalled = Assertion.Check.similar(ModelGrader(backend: "emb"), value: "Paris", threshold: 0.5)
        // A model-graded check may take the limit plus its call's timeout: 0.2 + 0.1 s here.
        let grader = Grader(models: ["emb": StalledEmbeddings()], timeoutSeconds: 0.1, timeLimitSeconds: 0.2)
        let input = GradingInput(output: "Paris", latencyMs: 1, ttftMs: 1, usage: Usage())
        let grade = await grader.grade([Assertion(stalled), Assertion(stalled, inverted: true), Assertion(.maxLatencyMs(10))], input)
        #expect(grade.results.map(\.passed) == [false, false, true], "a timeout never turns into a pass by not: true")
        #expect(grade.results.map(\.error) == [GradingTimeLimit.error, GradingTimeLimit.error, nil])
        #expect(grade.results[0].message?.hasPrefix("grading stopped after 300 ms (defaults.gradingTimeoutSeconds)") == true)
        #expect(!grade.passes(threshold: nil))
        let data = try JSONEncoder().encode(grade.results[0])
        #expect(String(decoding: data, as: UTF8.self).contains(#""error":"grading_timeout""#))
        #expect(try JSONDecoder().decode(AssertionResult.self, from: data) == grade.results[0])
    }

    @Test("defaults.gradingTimeoutSeconds is read, and 0 or 1e300 is refused where it is written")
    func configured() throws {
        let good = try RunFixture("grading-limit", suite: suite, config: """
        { "backends": [ { "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1" } ],
          "defaults": { "gradingTimeoutSeconds": 2.5 } }
        """)
        defer { good.remove() }
        #expect(try EvalRun.load(good.request()).config.defaults.gradingTimeoutSeconds == 2.5)
        for value in ["0", "1e300", "\"10\""] {
            let bad = try RunFixture("grading-limit", suite: suite, config: """
            { "backends": [ { "name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1" } ],
              "defaults": { "gradingTimeoutSeconds": \(value) } }
            """)
            defer { bad.remove() }
            do {
                _ = try EvalRun.load(bad.request())
                Issue.record("gradingTimeoutSeconds \(value) must be refused")
            } catch let error as LoadError {
                #expect(error.diagnostics.count == 1)
                #expect(error.diagnostics.first?.location?.line == 2)
                #expect(error.diagnostics.first?.path == "$.defaults.gradingTimeoutSeconds")
            }
        }
    }

    @Test("an embeddings response beyond the size cap is cut off as response_too_large, not read into memory")
    func embeddingsCap() async throws {
        let huge = Data(#"{"data": [{"index": 0, "embedding": ["#.utf8) + Data(repeating: UInt8(ascii: "1"), count: 300_000)
        let server = FakeHTTPServer { _ in .stream(status: 200, pieces: [.init(huge), .init("]}]}")]) }
        try server.start()
        defer { server.stop() }
        let embeddings = OpenAIEmbeddings(backend: "e", baseURL: server.baseURL.appendingPathComponent("v1"), model: nil,
                                          apiKey: "sk-embed-secret", headers: [:], transport: URLSessionStreamTransport())
        let result = await ResponseSizeLimit.$bytes.withValue(100_000) { await embeddings.embed(["a", "b"], timeoutSeconds: 10) }
        guard case let .failure(failure) = result else {
            Issue.record("an embeddings response over the cap must fail")
            return
        }
        #expect(failure.kind == .responseTooLarge)
        #expect(failure.message.contains("embeddings: the response passed 100000 bytes"))
        #expect(!failure.description.contains("sk-embed-secret"))
    }
}

/// A fake embeddings backend that never answers: its call ends only when it is cancelled.
private struct StalledEmbeddings: Backend, EmbeddingBackend {
    let name = "emb"

    func startConversation() async -> any Conversation { StalledConversation() }

    func embed(_ texts: [String], timeoutSeconds: Double) async -> Result<[[Double]], BackendFailure> {
        while !Task.isCancelled { try? await Task.sleep(nanoseconds: 10_000_000) }
        return .failure(BackendFailure(kind: .cancelled, message: "emb: cancelled"))
    }

    private struct StalledConversation: Conversation {
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            .failure(BackendFailure(kind: .unavailable, message: "emb answers no prompts"))
        }
    }
}
