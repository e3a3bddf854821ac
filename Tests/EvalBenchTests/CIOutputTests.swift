import EvalBenchTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import EvalBench

/// Reads junit.xml back: each element's name and attributes in document order, and the text
/// inside each `<failure>` / `<error>`.
private final class JUnitReader: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
    }

    var elements: [Element] = []
    private var open: [Int] = []

    static func read(_ text: String) throws -> [Element] {
        let parser = XMLParser(data: Data(text.utf8))
        let reader = JUnitReader()
        parser.delegate = reader
        guard parser.parse() else {
            throw JUnitParseError(description: parser.parserError.map { "\($0)" } ?? "unknown")
        }
        return reader.elements
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        open.append(elements.count)
        elements.append(Element(name: elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }
}

private struct JUnitParseError: Error, CustomStringConvertible {
    var description: String
}

private func writeSuite(_ directory: URL, name: String, body: String) throws -> String {
    let path = directory.appendingPathComponent("\(name).json").path
    try Data(body.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

private func writeConfig(_ directory: URL, baseURL: URL) throws -> String {
    let path = directory.appendingPathComponent("evalbench.json").path
    try Data("""
    { "backends": [ { "name": "fake", "kind": "openai", "baseURL": "\(baseURL.absoluteString)/v1" } ] }
    """.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite("CI outputs, repeats, goodput and gates")
struct CIOutputTests {
    @Test("the XML escaper turns markup characters into entities and forbidden control characters into U+FFFD")
    func escaper() throws {
        #expect(JUnitXML.escape(#"a "b" & 'c' <d>"#) == "a &quot;b&quot; &amp; &apos;c&apos; &lt;d&gt;")
        #expect(JUnitXML.escape("x\u{01}y\u{1B}z\tw\nv") == "x\u{FFFD}y\u{FFFD}z&#9;w&#10;v")
        // Plain ASCII comes back as it was; DEL, C1 controls and bidirectional overrides, which
        // XML allows but a screen acts on, are replaced like U+FFFE and U+FFFF.
        #expect(JUnitXML.escape("case-7 [local, none, default]") == "case-7 [local, none, default]")
        #expect(JUnitXML.escape("a\u{7F}b\u{9B}c\u{202E}d\u{2066}e") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e")
        #expect(JUnitXML.escape("") == "")
        #expect(JUnitXML.escape("café \u{FFFE}\u{FFFF} 東京") == "café \u{FFFD}\u{FFFD} 東京")
        let document = "<a b=\"\(JUnitXML.escape("q\"&\u{07}<\n"))\">\(JUnitXML.escape("t&<\u{0}"))</a>"
        let elements = try JUnitReader.read(document)
        #expect(elements.first?.attributes["b"] == "q\"&\u{FFFD}<\n")
        #expect(elements.first?.text == "t&<\u{FFFD}")
    }

    @Test("junit.xml has a testsuite per suite and a testcase per case × backend × level × variant, with failures, errors and skips explained")
    func junit() throws {
        var failing = fixtureResult(caseID: "cap&\"tal\"", repeatIndex: 1, status: .fail, latencyMs: 500)
        failing.assertions = [AssertionResult(type: "contains", name: "says <Paris>", passed: false,
                                              message: "expected \"Paris\" & got \u{01}Lyon")]
        let results = [
            failing,
            fixtureResult(caseID: "cap&\"tal\"", repeatIndex: 2, status: .pass, latencyMs: 1500),
            fixtureResult(caseID: "ok", status: .pass, latencyMs: 250),
            fixtureResult(caseID: "down", status: .error, errorKind: .server, errorMessage: "HTTP 500 <oops>"),
            {
                var skipped = fixtureResult(caseID: "deep", reasoning: .deep, status: .skipped)
                skipped.skipReason = "no reasoning on this model"
                return skipped
            }(),
            fixtureResult(suite: "math", caseID: "sum", status: .pass, latencyMs: 100),
        ]
        let elements = try JUnitReader.read(JUnitXML.render(RunAggregate(results)))
        let root = try #require(elements.first)
        #expect(root.name == "testsuites")
        #expect(root.attributes["tests"] == "5")
        #expect(root.attributes["failures"] == "1")
        #expect(root.attributes["errors"] == "1")
        #expect(root.attributes["skipped"] == "1")
        let suites = elements.filter { $0.name == "testsuite" }
        #expect(suites.map { $0.attributes["name"] } == ["geo", "math"])
        #expect(suites[0].attributes["tests"] == "4")
        #expect(suites[0].attributes["time"] == "2.250")
        let testcases = elements.filter { $0.name == "testcase" }
        #expect(testcases.map { $0.attributes["name"] ?? "" } == [
            "cap&\"tal\" [local, none, default]", "ok [local, none, default]", "down [local, none, default]",
            "deep [local, deep, default]", "sum [local, none, default]",
        ])
        #expect(testcases[0].attributes["classname"] == "geo.cap&\"tal\"")
        let failure = try #require(elements.first { $0.name == "failure" })
        #expect(failure.attributes["type"] == "contains")
        #expect(failure.attributes["message"] == "repeat 1, turn 1: says <Paris>: expected \"Paris\" & got \u{FFFD}Lyon (1/2 repeats passed)")
        #expect(failure.text.contains("says <Paris>"))
        let error = try #require(elements.first { $0.name == "error" })
        #expect(error.attributes["type"] == "server")
        #expect(error.attributes["message"] == "HTTP 500 <oops>")
        let skipped = try #require(elements.first { $0.name == "skipped" })
        #expect(skipped.attributes["message"] == "no reasoning on this model")
    }

    @Test("junit.xml, cases.csv and the case grid of a table, which read statuses and times without building case runs, equal those of the same case runs held as values")
    func reportsOfTableAndOfCaseRuns() throws {
        var replayed = fixtureResult(caseID: "again", status: .pass, latencyMs: 900)
        replayed.replayed = true
        var skipped = fixtureResult(caseID: "deep", reasoning: .deep, status: .skipped)
        skipped.skipReason = "no reasoning on this model"
        let results = [
            fixtureResult(caseID: "cap", repeatIndex: 1, status: .fail, latencyMs: 500, failedAssertion: "says Paris"),
            fixtureResult(caseID: "cap", repeatIndex: 2, status: .pass, latencyMs: 1500),
            fixtureResult(caseID: "talk", turn: 2, turns: 2, status: .error, errorKind: .server, errorMessage: "HTTP 500"),
            fixtureResult(caseID: "talk", turn: 1, turns: 2, status: .pass, latencyMs: 40),
            replayed, skipped,
            fixtureResult(caseID: "offline", backend: "apple", status: .skipped, errorKind: .unavailable),
            fixtureResult(suite: "math", caseID: "sum", status: .pass, latencyMs: 100),
            fixtureResult(suite: "math", caseID: "product", status: .fail, latencyMs: 7, failedAssertion: "equals 12"),
        ]
        let ofTable = RunAggregate(results)
        let ofValues = RunAggregate(caseRuns: Array(ofTable.caseRuns), statuses: ofTable.statuses)
        #expect(JUnitXML.render(ofTable) == JUnitXML.render(ofValues))
        #expect(CasesCSV.render(ofTable) == CasesCSV.render(ofValues))
        #expect(CaseGridHTML.render(CaseGridCollector.grid(ofTable, baseline: nil))
            == CaseGridHTML.render(CaseGridCollector.grid(ofValues, baseline: nil)))
        let testcases = try JUnitReader.read(JUnitXML.render(ofTable)).filter { $0.name == "testcase" }
        // The replayed answer was timed by the run it came from; the errored turn's first turn counts.
        #expect(testcases.map { $0.attributes["time"] ?? "" } == ["2.000", "0.040", "0.000", "0.000", "0.000", "0.100", "0.007"])
        let cases = CasesCSV.render(ofTable)
        #expect(cases.contains("unavailable"))
        #expect(cases.contains("geo/cap,1/2 pass,"))
        #expect(cases.contains("math/product,fail: equals 12,"))
        #expect(cases.contains("error: server"))
    }

    @Test("a testcase's repeats apart in the results, and suites interleaved, still make one testcase each, grouped by suite in first-seen order")
    func junitInterleaved() throws {
        let results = [
            fixtureResult(caseID: "a", repeatIndex: 1, status: .pass),
            fixtureResult(suite: "math", caseID: "b", repeatIndex: 1, status: .fail, failedAssertion: "sum"),
            fixtureResult(caseID: "a", repeatIndex: 2, status: .fail, failedAssertion: "capital"),
            fixtureResult(caseID: "c", status: .pass),
            fixtureResult(suite: "math", caseID: "b", repeatIndex: 2, status: .pass),
            fixtureResult(caseID: "a", backend: "cloud", status: .pass),
        ]
        let elements = try JUnitReader.read(JUnitXML.render(RunAggregate(results)))
        #expect(elements.filter { $0.name == "testsuite" }.map { $0.attributes["name"] } == ["geo", "math"])
        #expect(elements.filter { $0.name == "testcase" }.map { $0.attributes["name"] ?? "" } == [
            "a [local, none, default]", "c [local, none, default]", "a [cloud, none, default]", "b [local, none, default]",
        ])
        let messages = elements.filter { $0.name == "failure" }.compactMap { $0.attributes["message"] }
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { $0.hasSuffix("(1/2 repeats passed)") })
        #expect(messages[0].hasPrefix("repeat 2, turn 1: capital") && messages[1].hasPrefix("repeat 1, turn 1: sum"))
    }

    @Test("pass^N counts cases whose every repeat passed, and the flaky listing shows cases with 0 < k < N as k/N")
    func flaky() {
        let results = [
            fixtureResult(caseID: "steady", repeatIndex: 1, status: .pass),
            fixtureResult(caseID: "steady", repeatIndex: 2, status: .pass),
            fixtureResult(caseID: "steady", repeatIndex: 3, status: .pass),
            fixtureResult(caseID: "wobbly", repeatIndex: 1, status: .pass),
            fixtureResult(caseID: "wobbly", repeatIndex: 2, status: .fail, failedAssertion: "a"),
            fixtureResult(caseID: "wobbly", repeatIndex: 3, status: .error, errorKind: .timeout),
            fixtureResult(caseID: "broken", repeatIndex: 1, status: .fail, failedAssertion: "a"),
            fixtureResult(caseID: "broken", repeatIndex: 2, status: .fail, failedAssertion: "a"),
            fixtureResult(caseID: "broken", repeatIndex: 3, status: .fail, failedAssertion: "a"),
        ]
        let aggregate = RunAggregate(results)
        #expect(aggregate.repeats.map { "\($0.caseID) \($0.passed)/\($0.ran)" } == ["steady 3/3", "wobbly 1/3", "broken 0/3"])
        #expect(aggregate.repeats.map(\.isFlaky) == [false, true, false])
        #expect(aggregate.repeats.map(\.passedEveryRepeat) == [true, false, false])
        let group = aggregate.groups[0]
        #expect(group.distinctCases == 3)
        #expect(group.casesPassingEveryRepeat == 1)
        let markdown = SummaryMarkdown.render(ReportInput(results: results, startedAt: Date(), endedAt: Date()), aggregate: aggregate)
        #expect(markdown.contains("| local | none | default | 3 | 1/3 | 1 |"))
        let flakySection = try? #require(markdown.components(separatedBy: "## Flaky cases").last?.components(separatedBy: "\n## ").first)
        #expect(flakySection?.contains("| geo | wobbly | local | none | default | 1/3 |") == true)
        #expect(flakySection?.contains("broken") == false)
        #expect(flakySection?.contains("steady") == false)
    }

    @Test("the flaky listing stops at its limit and says how many more there are and where they are")
    func flakyCapped() {
        let count = SummaryMarkdown.flakyLimit + 7
        let results = (0..<count).flatMap { index in
            [fixtureResult(caseID: "c\(index)", repeatIndex: 1, status: .pass),
             fixtureResult(caseID: "c\(index)", repeatIndex: 2, status: .fail, failedAssertion: "a")]
        }
        let aggregate = RunAggregate(results)
        let markdown = SummaryMarkdown.render(ReportInput(results: results, startedAt: Date(), endedAt: Date()), aggregate: aggregate)
        let section = markdown.components(separatedBy: "## Flaky cases").last?.components(separatedBy: "\n## ").first ?? ""
        #expect(section.contains("| geo | c0 | local | none | default | 1/2 |"))
        #expect(section.contains("| c\(SummaryMarkdown.flakyLimit - 1) |"))
        #expect(!section.contains("| c\(SummaryMarkdown.flakyLimit) |"))
        #expect(section.contains("7 more flaky cases (case × backend × reasoning × variant) are not listed; every case's k/N is in cases.csv."))
        #expect(markdown.contains("| local | none | default | \(count) | 0/\(count) | \(count) |"))
    }

    @Test("goodput is the share of requests under the slo that succeeded within every target; p90 and p99 are nearest-rank")
    func goodput() {
        let slo = ServiceLevel(ttftMs: 300, latencyMs: 2000)
        var results = [
            fixtureResult(caseID: "a", status: .pass, latencyMs: 1000, ttftMs: 200),
            fixtureResult(caseID: "b", status: .fail, latencyMs: 1900, ttftMs: 300, failedAssertion: "x"),
            fixtureResult(caseID: "c", status: .pass, latencyMs: 2500, ttftMs: 100),
            fixtureResult(caseID: "d", status: .pass, latencyMs: 500, ttftMs: 400),
            fixtureResult(caseID: "e", status: .error, errorKind: .server),
            fixtureResult(caseID: "f", status: .skipped),
        ]
        for index in results.indices { results[index].slo = slo }
        let group = RunAggregate(results).groups[0]
        // a and b meet both targets (b failed its assertion but the request succeeded); c is too
        // slow, d's first token too late, e errored; f was skipped and is not counted.
        #expect(group.sloRequests == 5)
        #expect(group.goodRequests == 2)
        #expect(group.goodput == 0.4)
        #expect(group.latencyP90Ms == 2500)
        #expect(group.latencyP50Ms == 1000)
        #expect(group.ttftP99Ms == 400)
        let csv = SummaryCSV.render([group])
        let header = csv.split(separator: "\r\n").first.map(String.init) ?? csv.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasSuffix("cost_usd,latency_p90_ms,latency_p99_ms,ttft_p90_ms,ttft_p99_ms,goodput,requests_sent,requests_reporting_input,requests_reporting_cached,requests_reporting_output,requests_reporting_reasoning,requests_with_cost,token_source,tool_calls,tool_rounds,distinct_models,model_requests"))
        #expect(csv.contains(",2500.00,2500.00,400.00,400.00,0.4000"))
        let markdown = SummaryMarkdown.render(ReportInput(results: results, startedAt: Date(), endedAt: Date()),
                                              aggregate: RunAggregate(results))
        #expect(markdown.contains("| 1000.0 / 2500.0 / 2500.0 / 2500.0 | 200.0 / 400.0 / 400.0 / 400.0 | 40.0% (2/5) |"))
    }

    @Test("a suite's slo and gates load; bad values are errors at their line and column")
    func loading() throws {
        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s", "slo": { "ttftMs": 300, "latencyMs": 2000 },
          "gates": { "minPassRate": 0.8, "maxErrorRate": 0.1 }, "cases": [ { "id": "c", "prompt": "p" } ] }
        """.utf8), file: "s.json")
        #expect(suite.slo == ServiceLevel(ttftMs: 300, latencyMs: 2000))
        #expect(suite.gates == SuiteGates(minPassRate: 0.8, maxErrorRate: 0.1))
        #expect(Planner.plan([suite], PlanSelection(backends: ["b"])).caseRuns.first?.slo == suite.slo)
        do {
            _ = try SuiteLoader.load(data: Data("""
            { "format": "evalbench.suite/1", "suite": "s",
              "slo": { "ttftMs": -1, "p99": 3 },
              "gates": { "minPassRate": 1.5 }, "cases": [ { "id": "c", "prompt": "p" } ] }
            """.utf8), file: "s.json")
            Issue.record("bad slo and gates loaded")
        } catch {
            let text = error.diagnostics.map(\.description).joined(separator: "\n")
            #expect(text.contains("s.json:2:"), "\(text)")
            #expect(text.contains("ttftMs"))
            #expect(text.contains("p99"))
            #expect(text.contains("s.json:3:"))
            #expect(text.contains("minPassRate"))
        }
    }

    @Test("--max-error-rate exits 3 when errors over requests exceed it; suite gates apply per suite unless a flag overrides")
    func gates() {
        let results = [
            fixtureResult(suite: "a", caseID: "1", status: .pass),
            fixtureResult(suite: "a", caseID: "2", status: .error, errorKind: .timeout),
            fixtureResult(suite: "a", caseID: "3", status: .pass),
            fixtureResult(suite: "a", caseID: "4", status: .pass),
            fixtureResult(suite: "b", caseID: "1", status: .pass),
            fixtureResult(suite: "b", caseID: "2", status: .fail, failedAssertion: "x"),
        ]
        #expect(Gate(maxErrorRate: 0.1).evaluate(results, unavailableBackends: []).exitStatus == .infrastructure)
        #expect(Gate(minPassRate: 0, maxErrorRate: 0.2).evaluate(results, unavailableBackends: []).exitStatus == .success,
                "1 error in 6 requests is 16.7%")
        let suiteGates = ["a": SuiteGates(minPassRate: 0.7, maxErrorRate: 0.3), "b": SuiteGates(minPassRate: 0.5)]
        let held = Gate().evaluate(results, unavailableBackends: [], suiteGates: suiteGates)
        #expect(held.exitStatus == .success, "\(held.reasons)")
        let strict = Gate().evaluate(results, unavailableBackends: [],
                                     suiteGates: ["a": SuiteGates(maxErrorRate: 0.2), "b": SuiteGates(minPassRate: 0.5)])
        #expect(strict.exitStatus == .infrastructure)
        #expect(strict.reasons == ["suite 'a': error rate 25.0% (1 of 4 requests) is over its gates.maxErrorRate 20.0%"])
        let passRate = Gate().evaluate(results, unavailableBackends: [], suiteGates: ["b": SuiteGates(minPassRate: 0.6)])
        #expect(passRate.exitStatus == .gateFailed)
        #expect(passRate.reasons.count == 2, "suite a has no gates: the default gate applies to it; b is below 60%")
        #expect(passRate.reasons.contains { $0.hasPrefix("b: local · none · default: pass rate 50.0%") })
        let overridden = Gate(minPassRate: 0.4).evaluate(results, unavailableBackends: [], suiteGates: ["b": SuiteGates(minPassRate: 0.9)])
        #expect(overridden.exitStatus == .success, "--min-pass-rate overrides the suite's gate")
    }

    @Test("a run writes junit.xml and appends summary.md to GITHUB_STEP_SUMMARY; --max-error-rate fails it with exit 3")
    func runWritesCIOutputs() async throws {
        let server = FakeOpenAIServer { request in
            if request.messages.last?.content == "boom" {
                return FakeOpenAIServer.Script(fault: .httpError(status: 500, body: "{\"error\":{\"message\":\"down\"}}"))
            }
            return FakeOpenAIServer.Script(steps: [.content("Paris")], usage: .init(promptTokens: 5, completionTokens: 1))
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("ciout")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suitePath = try writeSuite(directory, name: "s", body: """
        { "format": "evalbench.suite/1", "suite": "ci", "cases": [
          { "id": "capital", "prompt": "capital?", "expect": [ { "type": "contains", "value": "Paris" } ] },
          { "id": "wrong", "prompt": "other?", "expect": [ { "type": "contains", "value": "Rome" } ] },
          { "id": "boom", "prompt": "boom" } ] }
        """)
        let configPath = try writeConfig(directory, baseURL: server.baseURL)
        let stepSummary = directory.appendingPathComponent("step-summary.md")
        try Data("earlier step\n".utf8).write(to: stepSummary)
        let out = directory.appendingPathComponent("out")
        let request = RunRequest(suitePaths: [suitePath], configPath: configPath, outputDirectory: out.path,
                                 gate: Gate(minPassRate: 0.3, maxErrorRate: 0.2),
                                 environment: ["GITHUB_STEP_SUMMARY": stepSummary.path])
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.verdict.exitStatus == .infrastructure, "1 error in 3 requests is over 20%: \(outcome.verdict.reasons)")
        let junit = try String(contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
        let elements = try JUnitReader.read(junit)
        #expect(elements.filter { $0.name == "testcase" }.count == 3)
        #expect(elements.filter { $0.name == "failure" }.count == 1)
        #expect(elements.filter { $0.name == "error" }.count == 1)
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        let appended = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(appended == "earlier step\n" + summary + "\n")

        // The same suite with its own gates and no flags: 1 of 3 passes and 1 of 3 errors.
        func gated(_ gates: String) async throws -> Gate.Verdict {
            let path = try writeSuite(directory, name: "gated", body: """
            { "format": "evalbench.suite/1", "suite": "ci", "gates": \(gates), "cases": [
              { "id": "capital", "prompt": "capital?", "expect": [ { "type": "contains", "value": "Paris" } ] },
              { "id": "wrong", "prompt": "other?", "expect": [ { "type": "contains", "value": "Rome" } ] },
              { "id": "boom", "prompt": "boom" } ] }
            """)
            let gatedRequest = RunRequest(suitePaths: [path], configPath: configPath,
                                          outputDirectory: directory.appendingPathComponent("gated-\(UUID().uuidString)").path,
                                          environment: [:])
            return try await EvalRun.execute(try EvalRun.load(gatedRequest), gatedRequest, transport: URLSessionStreamTransport()).verdict
        }
        #expect(try await gated(#"{"minPassRate": 0.3, "maxErrorRate": 0.4}"#).exitStatus == .success)
        #expect(try await gated(#"{"minPassRate": 0.5, "maxErrorRate": 0.4}"#).exitStatus == .gateFailed)
        #expect(try await gated(#"{"minPassRate": 0.3, "maxErrorRate": 0.3}"#).exitStatus == .infrastructure)
    }
}
