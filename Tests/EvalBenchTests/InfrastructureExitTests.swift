import Foundation
import Testing
@testable import EvalBench
import EvalBenchTestSupport

/// Exit 3 means infrastructure, and a backend that fails the same way every time is stopped
/// (issue 16, item 5).
@Suite("Infrastructure failures and fail fast")
struct InfrastructureExitTests {
    private let suite = Suite(name: "geo", cases: (1...12).map {
        EvalCase(id: "c\($0)", prompt: "Capital number \($0)?", expect: [Assertion(.contains("Paris", ignoreCase: false))])
    })

    /// The run's outcome, and its summary.md as written.
    private func outcome(_ config: Config) async throws -> RunOutcome {
        try await run(config).outcome
    }

    private func run(_ config: Config) async throws -> (outcome: RunOutcome, summary: String) {
        var request = Evaluation(suites: [.suite(suite)], config: .config(config)).runRequest()
        request.environment = [:]
        defer { try? FileManager.default.removeItem(atPath: request.outputDirectory!) }
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        return (outcome, try String(contentsOf: outcome.outputDirectory.appendingPathComponent("summary.md"), encoding: .utf8))
    }

    @Test("a backend whose every request failed to connect: exit 3, naming the backend and its first error, not a 0% pass rate")
    func closedPortExitsThree() async throws {
        let port = try FreePort.loopback()
        let config = Config(backends: [BackendConfig(name: "down", model: "m", options: OpenAIKind(baseURL: "http://127.0.0.1:\(port)/v1"))],
                            defaults: RunDefaults(concurrency: 4, retries: 0))
        let outcome = try await outcome(config)
        #expect(outcome.results.allSatisfy { $0.status == .error && $0.errorKind == .network })
        #expect(outcome.verdict.exitStatus == .infrastructure)
        let reason = try #require(outcome.verdict.reasons.first)
        #expect(reason.hasPrefix("backend 'down' could not be used: all 12 of its requests failed (first: network"), "\(reason)")
    }

    @Test("the first error an unreachable backend's reason quotes is the first in plan order, whatever order they finished in")
    func firstErrorInPlanOrder() {
        let results = [(2, "refused 2"), (0, "refused 0"), (1, "refused 1")].map { index, message in
            var result = fixtureResult(caseID: "c\(index)", status: .error, errorKind: .network, errorMessage: message)
            result.planIndex = index
            return result
        }
        let reason = Gate().evaluate(results, unavailableBackends: []).reasons.first
        #expect(reason == "backend 'local' could not be used: all 3 of its requests failed (first: network: refused 0)", "\(String(describing: reason))")
    }

    @Test("a backend that answered once is judged by its answers: the gate, not infrastructure")
    func oneAnswerIsNotInfrastructure() {
        var results = (1...5).map { fixtureResult(caseID: "c\($0)", status: .error, errorKind: .network, errorMessage: "refused") }
        #expect(Gate().evaluate(results, unavailableBackends: []).exitStatus == .infrastructure)
        results.append(fixtureResult(caseID: "c6", status: .fail, failedAssertion: "contains"))
        let verdict = Gate(maxErrorRate: 1).evaluate(results, unavailableBackends: [])
        #expect(verdict.exitStatus == .gateFailed, "\(verdict)")
        let auth = (1...3).map { fixtureResult(caseID: "c\($0)", status: .error, errorKind: .auth, errorMessage: "401") }
        #expect(Gate().evaluate(auth, unavailableBackends: []).exitStatus == .infrastructure)
        let badAnswers = (1...3).map { fixtureResult(caseID: "c\($0)", status: .error, errorKind: .decoding, errorMessage: "x") }
        #expect(Gate(maxErrorRate: 1).evaluate(badAnswers, unavailableBackends: []).exitStatus == .gateFailed, "decoding errors are the model's, not infrastructure")
    }

    @Test("5 identical 400s in a row stop the backend: the rest are skipped with the reason, and the verdict says so")
    func failFastStopsABackend() async throws {
        let server = FakeOpenAIServer { _ in
            FakeOpenAIServer.Script(fault: .openAIError(status: 400, message: "Unsupported parameter: 'max_tokens'",
                                                        type: "invalid_request_error", code: "unsupported_parameter"))
        }
        try server.start()
        defer { server.stop() }
        let config = Config(backends: [BackendConfig(name: "srv", model: "m", concurrency: 1,
                                                     options: OpenAIKind(baseURL: server.baseURL.absoluteString + "/v1"))],
                            defaults: RunDefaults(concurrency: 1, retries: 0))
        let (outcome, summary) = try await run(config)
        #expect(server.requests.count == 5, "no request after the fifth identical failure")
        #expect(outcome.results.filter { $0.status == .error }.count == 5)
        let skipped = outcome.results.filter { $0.status == .skipped }
        #expect(skipped.count == 7)
        #expect(skipped.allSatisfy { $0.skipReason?.hasPrefix("fail fast: 5 consecutive identical failures on backend 'srv' (bad_request") == true })
        #expect(outcome.verdict.notes.contains { $0.hasPrefix("fail fast:") })
        #expect(summary.contains("7 case runs skipped by fail fast: 5 consecutive identical failures on backend 'srv'"), "\(summary)")
        #expect(summary.contains("| 0/5 | 5 | 7 |"), "Passed counts the case runs its rate is over, as the terminal does")
    }

    @Test("a backend stopped by fail fast cannot pass a pass-rate gate on the case runs it sent before")
    func failFastFailsTheGate() {
        let reason = "fail fast: 2 consecutive identical failures on backend 'local' (bad_request: 400); its remaining case runs were not sent (config defaults.failFastAfter)"
        func skipped(_ id: String) -> RequestResult {
            var result = fixtureResult(caseID: id, status: .skipped)
            result.skipReason = reason
            return result
        }
        let passes = (1...4).map { fixtureResult(caseID: "p\($0)", status: .pass) }
        let errors = (1...2).map { fixtureResult(caseID: "e\($0)", status: .error, errorKind: .badRequest, errorMessage: "400") }
        let results = passes + errors + ["s1", "s2", "s3"].map(skipped)
        let verdict = Gate(minPassRate: 0.6).evaluate(results, unavailableBackends: [])
        #expect(verdict.exitStatus == .infrastructure, "4 of 9 planned passed, not 4 of 6: \(verdict)")
        #expect(verdict.reasons == ["backend 'local' was stopped by fail fast: 3 of its case runs were not sent, so its pass rate would cover only the part of the plan sent before (see the note)"])
        #expect(verdict.notes == [reason])
        let refusals = (1...2).map { fixtureResult(caseID: "r\($0)", status: .error, errorKind: .refusal, errorMessage: "no") }
        let refusalReason = reason.replacingOccurrences(of: "bad_request: 400", with: "refusal: no")
        func stoppedByRefusals(_ id: String) -> RequestResult {
            var result = skipped(id)
            result.skipReason = refusalReason
            return result
        }
        #expect(Gate(minPassRate: 0.6).evaluate(passes + refusals + ["s1"].map(stoppedByRefusals), unavailableBackends: []).exitStatus == .gateFailed,
                "stopped on the model's own failures: a failed gate, not infrastructure")
        // The kind is the one that stopped the backend, not whichever request finished last.
        let lateTimeout = fixtureResult(caseID: "late", status: .error, errorKind: .timeout, errorMessage: "slow")
        #expect(Gate(minPassRate: 0.6).evaluate(passes + refusals + [lateTimeout] + ["s1"].map(stoppedByRefusals), unavailableBackends: []).exitStatus == .gateFailed)
        // --min-pass-rate 0 asks for no gate (a shard leaving the gates to its merge): fail fast is a note there.
        let ungated = Gate(minPassRate: 0).evaluate(passes + ["s1"].map(skipped), unavailableBackends: [])
        #expect(ungated.exitStatus == .success && ungated.notes == [reason], "\(ungated)")
        // Case runs, not turns: a two-turn case run not sent is one.
        let twoTurns = [1, 2].map { turn in
            var result = fixtureResult(caseID: "t", turn: turn, turns: 2, status: .skipped)
            result.skipReason = reason
            return result
        }
        #expect(Gate(minPassRate: 0.6).evaluate(passes + twoTurns, unavailableBackends: []).reasons.first?
            .contains("1 of its case runs were not sent") == true)
    }

    @Test("failFastAfter: 0 never stops; different failures and any success reset the streak")
    func failFastStreak() async {
        let never = FailFast(limit: 0)
        for index in 1...10 {
            #expect(never.note(fixtureResult(caseID: "c\(index)", status: .error, errorKind: .badRequest, errorMessage: "x")) == nil)
        }
        let five = FailFast(limit: 3)
        let bad = fixtureResult(caseID: "a", status: .error, errorKind: .badRequest, errorMessage: "x")
        let other = fixtureResult(caseID: "b", status: .error, errorKind: .badRequest, errorMessage: "y")
        let retryable = fixtureResult(caseID: "c", status: .error, errorKind: .rateLimited, errorMessage: "x")
        let pass = fixtureResult(caseID: "d", status: .pass)
        for result in [bad, bad, other, bad, bad, pass, bad, bad, retryable] {
            #expect(five.note(result) == nil)
        }
        #expect(five.note(bad) == nil, "the retryable failure reset the streak")
        #expect(five.note(bad) == nil)
        #expect(five.note(bad) != nil)
    }
}
