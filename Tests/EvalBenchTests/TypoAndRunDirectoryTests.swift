import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func suite(_ name: String, _ ids: [String], value: String = "ok") -> String {
    let cases = ids.map { #"{"id": "\#($0)", "prompt": "q", "expect": [{"type": "contains", "value": "\#(value)"}]}"# }
    return #"{"format": "evalbench.suite/1", "suite": "\#(name)", "cases": [\#(cases.joined(separator: ", "))]}"#
}

private func config(_ server: FakeOpenAIServer) -> String {
    #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"concurrency": 2, "retries": 0}}"#
}

/// The diagnostics loading `request` reports; empty when it loads.
private func loadProblems(_ request: RunRequest) -> [Diagnostic] {
    do {
        _ = try EvalRun.load(request)
        return []
    } catch let error as LoadError {
        return error.diagnostics
    } catch {
        return [Diagnostic(file: "?", message: "not a load error: \(error)")]
    }
}

/// A finished run of `fixture` into its `out` directory.
private func finishedRun(_ fixture: RunFixture) async throws -> RunOutcome {
    let request = fixture.request()
    return try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
}

/// Typos and wrong directories found by probing the built tool: each is refused at load with
/// where and how to fix it, and nothing recorded is kept where it would mislead.
@Suite("Typos in configs, suites and run directories", .serialized)
struct TypoAndRunDirectoryTests {
    @Test("resuming a run of another suite refuses, naming the old suite's cases as deleted; with --resume-changed none is kept")
    func resumeAnotherSuite() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let first = try RunFixture("resume-other", suite: suite("geo", ["a", "b"]), config: config(server))
        defer { first.remove() }
        let earlier = try await finishedRun(first)
        let second = try RunFixture("resume-other-2", suite: suite("other", ["z"]), config: config(server))
        defer { second.remove() }
        var request = second.request()
        request.resumeDirectory = earlier.outputDirectory.path
        let problems = loadProblems(request)
        #expect(problems.first?.message.contains("deleted: geo/a, geo/b") == true, "\(problems)")
        request.resumeChanged = true
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.results.map(\.suite) == ["other"], "the old suite's results are dropped, not mixed in")
    }

    @Test("a run.json that is not a run's metadata is refused where it is wrong, for --resume as for report")
    func corruptMetadata() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("bad-run-json", suite: suite("geo", ["a"]), config: config(server))
        defer { fixture.remove() }
        let run = RunDirectory(try await finishedRun(fixture).outputDirectory)
        var request = fixture.request()
        request.resumeDirectory = run.url.path
        request.outputDirectory = run.url.path
        for (text, expected) in [("[]", "run.json is not a run's metadata"), (#"{"toolVersion": "#, "expected a JSON value")] {
            try Data(text.utf8).write(to: run.metadata)
            let problems = loadProblems(request)
            let problem = try #require(problems.first)
            #expect(problem.file == run.metadata.path && problem.message.contains(expected), "\(problem)")
            #expect(!problem.description.contains("DecodingError"), "\(problem)")
            #expect(problem.fix?.contains("restore it") == true)
            #expect(text == "[]" || problem.location != nil, "a syntax error has its line and column: \(problem)")
        }
    }

    @Test("a baseline that shares no case run with the plan is refused at load")
    func unrelatedBaseline() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let first = try RunFixture("baseline-other", suite: suite("geo", ["a"]), config: config(server))
        defer { first.remove() }
        let baseline = try await finishedRun(first)
        let second = try RunFixture("baseline-other-2", suite: suite("other", ["z"]), config: config(server))
        defer { second.remove() }
        var request = second.request()
        request.baselineDirectory = baseline.outputDirectory.path
        let problems = loadProblems(request)
        #expect(problems.first?.message == "the baseline shares no case run with this run (its suites: geo; this run's: other)", "\(problems)")
        #expect(server.requests.count == 1, "nothing of the second run was sent")
    }

    @Test("a baseURL port out of range, a header name with a space and a header value with a line break are refused at load")
    func configTypos() throws {
        let cases: [(String, String)] = [
            (#""baseURL": "http://127.0.0.1:99999/v1""#, "has the port 99999, and a port is 1 to 65535"),
            (#""baseURL": "http://127.0.0.1:0/v1""#, "has the port 0"),
            (#""baseURL": "http://127.0.0.1:8080/v1", "headers": {"X A": "a"}"#, "'X A' is not a header name"),
            (#""baseURL": "http://127.0.0.1:8080/v1", "headers": {"X-A": "a\r\nX-Injected: yes"}"#, "the control character U+000D"),
            (#""baseURL": "http://127.0.0.1:8080/v1", "headers": {"X-Team": "a", "x-team": "b"}"#, "the header 'x-team' is also given as 'X-Team'"),
            (#""baseURL": "http://127.0.0.1:8080/v1", "headersFromEnv": {"X-Gw": "A", "x-gw": "B"}"#, "the header 'x-gw' is also given as 'X-Gw'"),
        ]
        for (backend, expected) in cases {
            let fixture = try RunFixture("config-typo", suite: suite("geo", ["a"]),
                                         config: #"{"backends": [{"name": "f", "kind": "openai", \#(backend)}]}"#)
            defer { fixture.remove() }
            let problems = fixture.loadDiagnostics()
            #expect(problems.contains { $0.message.contains(expected) && $0.location != nil }, "\(backend): \(problems)")
        }
    }

    @Test("a key or header variable holding a line break is refused before anything is sent, never quoting it")
    func secretWithLineBreak() throws {
        let fixture = try RunFixture("env-newline", suite: suite("geo", ["a"]),
                                     config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1", "apiKeyEnv": "EB_KEY", "headersFromEnv": {"X-Gateway": "EB_GATEWAY"}}]}"#)
        defer { fixture.remove() }
        var request = fixture.request()
        request.environment = ["EB_KEY": "sk-secret-value\n", "EB_GATEWAY": "gw-secret\r\nX-Evil: 1"]
        let problems = loadProblems(request)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.message.contains("holds a line break") && !$0.description.contains("sk-secret-value") && !$0.description.contains("gw-secret") }, "\(problems)")
    }

    @Test("an empty contains, notContains or startsWith value is refused; an empty equals asks for an empty answer")
    func emptyTextChecks() throws {
        for type in ["contains", "notContains", "startsWith"] {
            let fixture = try RunFixture("empty-check", suite: suite("geo", ["a"], value: "").replacingOccurrences(of: "contains", with: type),
                                         config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1"}]}"#)
            defer { fixture.remove() }
            let problems = fixture.loadDiagnostics()
            #expect(problems.first?.message == "'value' of \(type) is empty: the check would give every answer the same verdict", "\(problems)")
            #expect(problems.first?.path == "$.cases[0].expect[0].value")
        }
        let equals = try RunFixture("empty-equals", suite: suite("geo", ["a"], value: "").replacingOccurrences(of: "contains", with: "equals"),
                                    config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1"}]}"#)
        defer { equals.remove() }
        #expect(equals.loadDiagnostics().isEmpty)
    }

    @Test("limits given on the command line are reported as the command line's, not the suite file's")
    func commandLineLimits() throws {
        let fixture = try RunFixture("cli-limits", suite: suite("geo", ["a"]),
                                     config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1"}]}"#)
        defer { fixture.remove() }
        var request = fixture.request()
        request.concurrency = RunLimits.maxConcurrency + 1
        let problems = loadProblems(request)
        #expect(problems.first?.file == "command line", "\(problems)")
    }
}

extension TypoAndRunDirectoryTests {
    @Test("a timeout below a millisecond is refused at load, in the config file and in a config built in Swift")
    func tinyTimeouts() throws {
        for (json, path) in [(#""defaults": {"timeoutSeconds": 1e-300}"#, "timeoutSeconds"),
                             (#""defaults": {"gradingTimeoutSeconds": 0.0001}"#, "gradingTimeoutSeconds")] {
            let fixture = try RunFixture("tiny-timeout", suite: suite("geo", ["a"]),
                                         config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1", "timeoutSeconds": 0.0005}], \#(json)}"#)
            defer { fixture.remove() }
            let problems = fixture.loadDiagnostics()
            #expect(problems.contains { $0.message.contains("'\(path)' must be a number of at least 0.001") }, "\(problems)")
            #expect(problems.contains { $0.path == "$.backends[0].timeoutSeconds" }, "\(problems)")
        }
        let built = Config(backends: [BackendConfig(name: "f", model: "m", timeoutSeconds: 1e-9, options: OpenAIKind(baseURL: "http://127.0.0.1:8080/v1"))])
        let found = loadDiagnostics { () throws(LoadError) in try ConfigChecks.check(built) }
        #expect(found.contains { $0.message.contains("below the shortest timeout evalbench accepts, 0.001") }, "\(found)")
    }
}

extension TypoAndRunDirectoryTests {
    @Test("an empty tag, stop sequence or judge rubric is refused at its place in the suite")
    func emptyStrings() throws {
        let cases: [(String, String, String)] = [
            (#""tags": ["geo", ""]"#, "'tags' holds an empty string", "$.cases[0].tags[1]"),
            (#""options": {"stop": ""}"#, "'stop' holds an empty string", "$.cases[0].options.stop"),
            (#""expect": [{"type": "judge", "backend": "f", "rubric": "  "}]"#, "'rubric' is empty", "$.cases[0].expect[0].rubric"),
        ]
        for (extra, message, path) in cases {
            let fixture = try RunFixture("empty-strings", suite: #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "q", \#(extra)}]}"#,
                                         config: #"{"backends": [{"name": "f", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1"}]}"#)
            defer { fixture.remove() }
            let problems = fixture.loadDiagnostics()
            #expect(problems.contains { $0.message.hasPrefix(message) && $0.path == path && $0.location != nil }, "\(extra): \(problems)")
        }
    }
}
