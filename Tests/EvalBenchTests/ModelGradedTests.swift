import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

extension LoopbackNetworkTests {
    @Test("judge and similar through fakes: reason-first verdicts with the judge's own figures, cosine similarity from /embeddings, explanations on failure")
    func modelGraded() async throws {
        // The graded backend answers "Lyon" to the capital question, "Paris" otherwise.
        let graded = FakeOpenAIServer { request in
            let question = request.messages.last?.content ?? ""
            return FakeOpenAIServer.Script(model: "answerer", steps: [.content(question.contains("France") ? "Paris" : "Lyon")],
                                           usage: .init(promptTokens: 10, completionTokens: 1))
        }
        // The judge passes an answer that names Paris.
        let judge = FakeOpenAIServer { request in
            let text = request.messages.last?.content ?? ""
            let pass = text.hasSuffix("Answer:\nParis")
            let verdict = #"{"reason": "\#(pass ? "It names Paris." : "It names another city.")", "pass": \#(pass), "score": \#(pass ? 0.9 : 0.1)}"#
            return FakeOpenAIServer.Script(model: "judge-model", steps: [.content(verdict, afterMs: 5)],
                                           usage: .init(promptTokens: 300, completionTokens: 20))
        }
        // Embeddings: "Paris" and "The capital is Paris." point the same way; "Lyon" does not.
        let embeddings = FakeHTTPServer { request in
            let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
            let inputs = object?["input"] as? [String] ?? []
            let data = inputs.enumerated().map { index, text in
                ["index": index, "embedding": text.contains("Paris") ? [1.0, 0.1] : [0.1, 1.0]] as [String: Any]
            }
            let body = try! JSONSerialization.data(withJSONObject: ["data": data, "model": "embed"])
            return request.path.hasSuffix("/embeddings") ? .full(status: 200, headers: ["Content-Type": "application/json"], body: body)
                : .full(status: 404)
        }
        try graded.start()
        try judge.start()
        try embeddings.start()
        defer {
            graded.stop()
            judge.stop()
            embeddings.stop()
        }
        let fixture = try RunFixture("model-graded",
                                     suite: """
        { "format": "evalbench.suite/1", "suite": "mg",
          "cases": [
            { "id": "france", "prompt": "Capital of France?", "expect": [
                { "type": "judge", "backend": "grader", "rubric": "Names Paris.", "minScore": 0.8, "name": "judged" },
                { "type": "similar", "backend": "embedder", "value": "The capital is Paris.", "threshold": 0.9 } ] },
            { "id": "other", "prompt": "Capital of Italy?", "expect": [
                { "type": "judge", "backend": "grader", "rubric": "Names Paris.", "name": "judged" },
                { "type": "similar", "backend": "embedder", "value": "The capital is Paris.", "threshold": 0.9 } ] } ] }
        """,
                                     config: """
        { "backends": [
            { "name": "main", "kind": "openai", "model": "answerer", "baseURL": "\(graded.baseURL.absoluteString)/v1" },
            { "name": "grader", "kind": "openai", "model": "judge-model", "baseURL": "\(judge.baseURL.absoluteString)/v1" },
            { "name": "embedder", "kind": "openai", "model": "embed", "baseURL": "\(embeddings.baseURL.absoluteString)/v1" } ],
          "defaults": { "backends": ["main"] } }
        """)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out")
        let request = fixture.request()
        let loaded = try EvalRun.load(request)
        #expect(Set(loaded.switchBackendNames) == ["grader", "embedder"], "grading backends start without being planned")
        #expect(loaded.plan.caseRuns.count == 2)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())

        let france = try #require(outcome.results.first { $0.caseID == "france" })
        #expect(france.status == .pass, "\(france.assertions.compactMap(\.message))")
        let verdict = try #require(france.assertions.first { $0.type == "judge" })
        #expect(verdict.judge?.verdict == JudgeVerdict(reason: "It names Paris.", pass: true, score: 0.9))
        #expect(verdict.judge?.usage.inputTokens == 300, "the judge's tokens are recorded on its call")
        #expect(verdict.judge?.model == "judge-model")
        #expect(verdict.judge?.attempts == 1)
        #expect((verdict.judge?.latencyMs ?? 0) > 0)
        #expect(france.usage.inputTokens == 10, "and never added to the graded request's")
        #expect(france.assertions.first { $0.type == "similar" }?.note?.hasPrefix("similarity 1.0000") == true)

        let other = try #require(outcome.results.first { $0.caseID == "other" })
        #expect(other.status == .fail)
        let failedJudge = try #require(other.assertions.first { $0.type == "judge" })
        #expect(failedJudge.message?.contains("got fail, score 0.10: \"It names another city.\"") == true, "\(failedJudge.message ?? "")")
        let failedSimilar = try #require(other.assertions.first { $0.type == "similar" })
        #expect(failedSimilar.passed == false)
        #expect(failedSimilar.message?.contains("an embedding similarity of at least 0.90") == true, "\(failedSimilar.message ?? "")")

        let sentToJudge = try #require(judge.requests.first)
        let body = String(decoding: sentToJudge.http.body, as: UTF8.self)
        #expect(body.contains(#""schema":{"type":"object","properties":{"reason":"#), "the verdict schema goes out reason first: \(body)")
        #expect(sentToJudge.messages.last?.content.hasPrefix("Rubric:\nNames Paris.\n\nQuestion:\nCapital of ") == true)

        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Grading calls"))
        #expect(summary.contains("| grader | judge | 2 | 0 | 0 | 1/2 |"), "\(summary)")
        #expect(summary.contains("| embedder | similar | 2 | 0 | 0 | n/a |"))
    }

    @Test("a judge naming an unknown backend is a load error at its line, before any request")
    func unknownJudge() throws {
        let fixture = try RunFixture("judge-bad",
                                     suite: "{\"format\": \"evalbench.suite/1\", \"suite\": \"s\", \"cases\": [{\"id\": \"c\", \"prompt\": \"q\",\n \"expect\": [{\"type\": \"judge\", \"backend\": \"grade\", \"rubric\": \"r\"}]}]}",
                                     config: #"{"backends": [{"name": "main", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}, {"name": "grader", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]}"#)
        defer { fixture.remove() }
        let diagnostic = try #require(fixture.loadDiagnostics(backends: ["main"]).first, "must not load")
        #expect(diagnostic.message == "the judge assertion names backend 'grade', which the config does not define; did you mean 'grader'?")
        #expect(diagnostic.location?.line == 2)
        #expect(diagnostic.path == "$.cases[0].expect[0].backend")
    }
}

@Test("named metrics also appear in summary.csv, as metric:<name> columns after the fixed ones")
func namedMetricColumns() throws {
    var first = fixtureResult(caseID: "a", status: .pass, latencyMs: 10, ttftMs: 5)
    first.assertions = [AssertionResult(type: "json", name: "valid-json", passed: true, metric: "valid-json"),
                        AssertionResult(type: "judge", name: "judged", passed: false, metric: "judged")]
    var second = fixtureResult(caseID: "b", status: .pass, latencyMs: 10, ttftMs: 5)
    second.assertions = [AssertionResult(type: "json", name: "valid-json", passed: false, metric: "valid-json")]
    let csv = SummaryCSV.render(RunAggregate([first, second]).groups)
    let lines = csv.split(whereSeparator: \.isNewline)
    #expect(lines.first?.hasSuffix(",cost_usd,latency_p90_ms,latency_p99_ms,ttft_p90_ms,ttft_p99_ms,goodput,requests_sent,requests_reporting_input,requests_reporting_cached,requests_reporting_output,requests_reporting_reasoning,requests_with_cost,token_source,tool_calls,tool_rounds,distinct_models,model_requests,metric:valid-json,metric:judged") == true, "\(csv)")
    #expect(lines.last?.hasSuffix(",0.5000,0.0000") == true, "valid-json 1/2, judged 0/1: \(csv)")
}
