import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
}

private func fakeConfig(_ server: FakeOpenAIServer, extra: String = "") -> String {
    """
    { "backends": [ { "name": "fake", "kind": "openai", "baseURL": "\(server.baseURL.absoluteString)/v1", "model": "fake-model"\(extra) } ],
      "defaults": { "concurrency": 2, "timeoutSeconds": 30, "retries": 0 } }
    """
}

/// Starts `evalbench run` on a 40-case suite against `server` and returns once `results.jsonl`
/// holds at least `lines` results (or 30 s passed), with the process, the run's directory and
/// the results file. The directory is `out` in `directory`, or with `namedByRun` (no `--out`)
/// the one the run makes under `reports/`.
private func startForty(in directory: URL, against server: FakeOpenAIServer, suite: String, expect: String,
                        waitingFor lines: Int, stderr: URL? = nil, namedByRun: Bool = false) async throws -> (Process, URL, URL) {
    try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
    let cases = (1...40).map { #"{"id": "c\#($0)", "prompt": "q\#($0)"\#(expect)}"# }
    try write(#"{"format": "evalbench.suite/1", "suite": "\#(suite)", "cases": [\#(cases.joined(separator: ","))]}"#,
              to: directory.appendingPathComponent("s.json"))
    var out = directory.appendingPathComponent("out")
    let process = evalbenchProcess(["run", "s.json", "--no-progress"] + (namedByRun ? [] : ["--out", out.path]), in: directory)
    process.standardOutput = FileHandle.nullDevice
    if let stderr {
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderr)
    } else {
        process.standardError = FileHandle.nullDevice
    }
    try process.run()
    let reports = directory.appendingPathComponent("reports")
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        if namedByRun, let made = try? FileManager.default.contentsOfDirectory(atPath: reports.path).first {
            out = reports.appendingPathComponent(made)
        }
        let results = out.appendingPathComponent("results.jsonl")
        if ((try? String(contentsOf: results, encoding: .utf8)) ?? "").split(separator: "\n").count >= lines { break }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    return (process, out, out.appendingPathComponent("results.jsonl"))
}

@Suite("The evalbench command line", .serialized)
struct CommandLineTests {
    @Test("a malformed suite exits 2 with file:line:column, and nothing is sent")
    func malformedSuite() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-malformed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write("""
        {
          "format": "evalbench.suite/1",
          "cases": [
            { "id": "a", "prompt": "x" },
            { "id": "b", "promt": "y" }
          ]
        }
        """, to: directory.appendingPathComponent("bad.json"))
        try write("{\n  \"format\": \"evalbench.suite/1\",\n  \"cases\": [ { \"id\": \"a\" \"prompt\": \"x\" } ]\n}\n",
                  to: directory.appendingPathComponent("broken.json"))

        let unknownKey = try await runEvalbench(["run", "bad.json", "--no-progress"], in: directory)
        #expect(unknownKey.status == 2)
        #expect(unknownKey.stderr.contains("bad.json:5:"), "got: \(unknownKey.stderr)")
        #expect(unknownKey.stderr.contains("prompt"))

        let syntax = try await runEvalbench(["validate", "broken.json"], in: directory)
        #expect(syntax.status == 2)
        #expect(syntax.stderr.contains("broken.json:3:"), "got: \(syntax.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test("only the backends a command uses need their API keys; validate checks keys only with --check-secrets; each problem once")
    func secretsOfTheSelectionOnly() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-secrets")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write("""
        { "backends": [
          { "name": "srv", "kind": "openai", "model": "m", "baseURL": "\(server.baseURL.absoluteString)/v1", "apiKeyEnv": "EVALBENCH_TEST_SRV_KEY" },
          { "name": "claude", "kind": "anthropic", "model": "c", "apiKeyEnv": "EVALBENCH_TEST_CLAUDE_KEY" } ] }
        """, to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "x"}]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let lint = try await runEvalbench(["validate", "s.json"], in: directory)
        #expect(lint.status == 0, "a lint job without secrets validates: \(lint.stderr)")
        let strict = try await runEvalbench(["validate", "s.json", "--check-secrets"], in: directory)
        #expect(strict.status == 2)
        #expect(strict.stderr.components(separatedBy: "EVALBENCH_TEST_CLAUDE_KEY, which is not set").count == 2, "once: \(strict.stderr)")
        #expect(strict.stderr.contains("2 problems found"), "\(strict.stderr)")
        let plan = try await runEvalbench(["plan", "s.json"], in: directory)
        #expect(plan.status == 0, "\(plan.stderr)")
        let one = try await runEvalbench(["run", "s.json", "--backend", "srv", "--no-progress", "--out", "out"], in: directory,
                                   environment: ["EVALBENCH_TEST_SRV_KEY": "k"])
        #expect(one.status == 0, "claude's key is not needed to run srv: \(one.stderr)")
        #expect(server.requests.count == 1)
    }

    @Test("--reasoning with an unknown level exits 2 with a suggestion; plan prints each level's mapping")
    func reasoningArguments() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-reasoning")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server, extra: #", "reasoning": {"moderate": {"unsupported": "no medium here"}}"#),
                  to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "x"}]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let bad = try await runEvalbench(["run", "s.json", "--reasoning", "none,deeep", "--no-progress"], in: directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown reasoning level 'deeep' (did you mean 'deep'?)"), "\(bad.stderr)")
        #expect(server.requests.isEmpty)
        let plan = try await runEvalbench(["plan", "s.json", "--reasoning", "none,moderate,deep"], in: directory)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("s/a/default/fake/deep/1\t1"))
        #expect(plan.stdout.contains("3 case runs, 3 requests"))
        #expect(plan.stdout.contains("reasoning fake/none: reasoning_effort omitted"))
        #expect(plan.stdout.contains("reasoning fake/moderate: skipped: no medium here"))
        #expect(plan.stdout.contains(#"reasoning fake/deep: reasoning_effort: "high""#))
    }

    @Test("run --cache answers a repeated run from the cache, and cache clear empties it")
    func cacheCommand() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "x"}]}"#, to: directory.appendingPathComponent("s.json"))
        let environment = ["EVALBENCH_CACHE": directory.appendingPathComponent("cache").path]
        let first = try await runEvalbench(["run", "s.json", "--cache", "--out", "one", "--no-progress"], in: directory, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await runEvalbench(["run", "s.json", "--cache", "--out", "two", "--no-progress"], in: directory, environment: environment)
        #expect(second.status == 0)
        #expect(server.requests.count == 1, "the second run was answered from the cache")
        let summary = try String(contentsOf: directory.appendingPathComponent("two/summary.md"), encoding: .utf8)
        #expect(summary.contains("1 of 1 answers came from evalbench's response cache"))
        let both = try await runEvalbench(["run", "s.json", "--cache", "--no-cache"], in: directory, environment: environment)
        #expect(both.status == 2)
        let clear = try await runEvalbench(["cache", "clear"], in: directory, environment: environment)
        #expect(clear.status == 0)
        #expect(clear.stdout.contains("removed 1 cached responses"))
        _ = try await runEvalbench(["run", "s.json", "--cache", "--out", "three", "--no-progress"], in: directory, environment: environment)
        #expect(server.requests.count == 2, "after clear, the request goes out again")
    }

    @Test("an unset API key variable and an unknown backend exit 2 without naming any secret")
    func configErrors() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-config")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server, extra: #", "apiKeyEnv": "EVALBENCH_TEST_UNSET_KEY""#), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x"}]}"#, to: directory.appendingPathComponent("s.json"))
        let unset = try await runEvalbench(["run", "s.json", "--no-progress"], in: directory)
        #expect(unset.status == 2)
        #expect(unset.stderr.contains("EVALBENCH_TEST_UNSET_KEY"))
        let unknown = try await runEvalbench(["run", "s.json", "--backend", "fak", "--no-progress"], in: directory,
                                   environment: ["EVALBENCH_TEST_UNSET_KEY": "sk-hidden-value-123"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("fake"), "a suggestion names the configured backend: \(unknown.stderr)")
        #expect(!unknown.stderr.contains("sk-hidden-value-123"))
    }

    @Test("run, compare and merge given an --out that is a file, or run a --resume that is no run, exit 2 naming the path; nothing is sent or made")
    func unusableDirectories() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-directories")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x"}]}"#, to: directory.appendingPathComponent("s.json"))
        try write("x", to: directory.appendingPathComponent("afile"))
        for (arguments, message) in [
            (["--out", "afile"], "afile: error: --out afile is a file, not a directory"),
            (["--out", "afile/sub"], "afile/sub: error: --out afile/sub cannot be made: \(directory.path)/afile is a file, not a directory"),
            (["--resume", "nothere"], "nothere: error: the resumed run directory does not exist"),
            (["--resume", "afile"], "afile: error: the resumed run directory is a file"),
        ] {
            let run = try await runEvalbench(["run", "s.json", "--no-progress"] + arguments, in: directory)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message) && run.stderr.contains("nothing was sent"), "\(arguments): \(run.stderr)")
        }
        #expect(server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("nothere").path), "no directory made")

        let one = try await runEvalbench(["run", "s.json", "--no-progress", "--out", "one"], in: directory)
        #expect(one.status == 0, "\(one.stderr)")
        let compare = try await runEvalbench(["compare", "one", "one", "--out", "afile"], in: directory)
        #expect(compare.status == 2 && compare.stderr.contains("afile: error: --out afile is a file, not a directory"), "\(compare.stderr)")
        let merge = try await runEvalbench(["merge", "one", "--out", "afile"], in: directory)
        #expect(merge.status == 2 && merge.stderr.contains("afile: error: --out afile is a file, not a directory"), "\(merge.stderr)")
        #expect(try String(contentsOf: directory.appendingPathComponent("afile"), encoding: .utf8) == "x")
    }

    @Test("an --out that holds an earlier run is replaced with a warning; runs with no case run in common are not compared")
    func earlierRunsAndUnrelatedRuns() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-earlier")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "geo", "cases": [{"id": "a", "prompt": "x"}]}"#, to: directory.appendingPathComponent("s.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "other", "cases": [{"id": "z", "prompt": "x"}]}"#, to: directory.appendingPathComponent("t.json"))
        let first = try await runEvalbench(["run", "s.json", "--no-progress", "--out", "one"], in: directory)
        #expect(first.status == 0 && !first.stderr.contains("earlier run"), "\(first.stderr)")
        let again = try await runEvalbench(["run", "s.json", "--no-progress", "--out", "one"], in: directory)
        #expect(again.status == 0)
        #expect(again.stderr.contains("one holds an earlier run") && again.stderr.contains("--resume one would keep"), "\(again.stderr)")
        let other = try await runEvalbench(["run", "t.json", "--no-progress", "--out", "two"], in: directory)
        #expect(other.status == 0, "\(other.stderr)")
        let compare = try await runEvalbench(["compare", "one", "two"], in: directory)
        #expect(compare.status == 2 && compare.stderr.contains("the two runs share no case run"), "\(compare.stderr)")
        // The same case runs, all skipped in one run: nothing to compare either.
        let skippedRun = directory.appendingPathComponent("skipped")
        try FileManager.default.copyItem(at: directory.appendingPathComponent("one"), to: skippedRun)
        let results = RunDirectory(skippedRun).results
        let skippedLines = try String(contentsOf: results, encoding: .utf8).replacingOccurrences(of: "\"status\":\"pass\"", with: "\"status\":\"skipped\"")
        try Data(skippedLines.utf8).write(to: results)
        let allSkipped = try await runEvalbench(["compare", "one", "skipped"], in: directory)
        #expect(allSkipped.status == 2 && allSkipped.stderr.contains("every case run the two runs share was skipped"), "\(allSkipped.stderr)")
        let empty = try await runEvalbench(["run", "s.json", "--no-progress", "--out="], in: directory)
        #expect(empty.status == 2 && empty.stderr.contains("--out needs a value, got an empty one"), "\(empty.stderr)")
    }

    @Test("kill -9 in the middle of a run keeps every finished result in results.jsonl, and --resume finishes the rest")
    func killNine() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 150)], usage: .init(promptTokens: 5, completionTokens: 1)) }
        try server.start()
        defer { server.stop() }
        let (process, out, results) = try await startForty(in: directory, against: server, suite: "k",
                                                      expect: #", "expect": [{"type": "equals", "value": "ok"}]"#, waitingFor: 6)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let kept = try ResultStore.read(results)
        #expect(kept.count >= 6)
        #expect(kept.count < 40, "the run was still going when it was killed")
        #expect(kept.allSatisfy { $0.status == .pass && $0.output == "ok" })

        let resumed = try await runEvalbench(["run", "s.json", "--resume", out.path, "--no-progress"], in: directory)
        #expect(resumed.status == 0, "stderr: \(resumed.stderr)")
        let all = try ResultStore.read(results)
        #expect(all.count == 40)
        #expect(Set(all.map(\.caseID)).count == 40)
        #expect(server.requests.count <= 40 + 2, "finished cases are not sent again")
    }

    @Test("Ctrl-C stops the run, keeps finished results, writes the reports and exits 130")
    func interrupt() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-interrupt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 150)]) }
        try server.start()
        defer { server.stop() }
        let (process, out, results) = try await startForty(in: directory, against: server, suite: "i", expect: "", waitingFor: 4)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let kept = try ResultStore.read(results)
        #expect(kept.count >= 4 && kept.count < 40)
        #expect(kept.allSatisfy { $0.status == .pass }, "an interrupted request is not recorded as a failure")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("i/c1"))
    }

    @Test("a second Ctrl-C quits at once, exit 130, saying how to write the run's reports, with no temporary file left in the run's directory")
    func secondInterrupt() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-interrupt-twice")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 150)]) }
        try server.start()
        defer { server.stop() }
        // The second at several moments, so that some land while the reports are being written.
        // The first run has no --out: the directory it names is the one it made under reports/.
        for pause in [0, 5_000, 15_000] as [UInt32] {
            let attempt = directory.appendingPathComponent("pause-\(pause)")
            try FileManager.default.createDirectory(at: attempt, withIntermediateDirectories: true)
            let (process, out, results) = try await startForty(in: attempt, against: server, suite: "i", expect: "", waitingFor: 4,
                                                               stderr: attempt.appendingPathComponent("stderr.txt"),
                                                               namedByRun: pause == 0)
            let stderrFile = attempt.appendingPathComponent("stderr.txt")
            kill(process.processIdentifier, SIGINT)
            // Two SIGINTs pending at once are one to the kernel: the second is sent once the first was taken.
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !((try? String(contentsOf: stderrFile, encoding: .utf8))?.contains("interrupted; stopping") ?? false) {
                usleep(200)
            }
            if pause > 0 { usleep(pause) }
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 130)
            #expect(try ResultStore.read(results).count >= 4)
            let stderr = try String(contentsOf: attempt.appendingPathComponent("stderr.txt"), encoding: .utf8)
            // Later, the run may have written its reports and ended before the second came.
            if pause == 0 {
                #expect(stderr.contains("quit at once; every finished result is in results.jsonl"), "\(stderr)")
                #expect(stderr.contains("`evalbench report \(out.path)` writes them again"), "\(stderr)")
            }
            let hidden = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
            #expect(hidden.isEmpty, "\(pause) µs: \(hidden)")
        }
    }

    @Test("--max-error-rate exits 3 when errors exceed it and 2 when it is not a fraction; the binary appends to GITHUB_STEP_SUMMARY and writes junit.xml")
    func errorBudget() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-error-budget")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { request in
            request.messages.last?.content == "down"
                ? FakeOpenAIServer.Script(fault: .httpError(status: 500, body: "{}"))
                : FakeOpenAIServer.Script(steps: [.content("ok")])
        }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "e", "cases": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y"}, {"id": "c", "prompt": "down"}]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let bad = try await runEvalbench(["run", "s.json", "--max-error-rate", "1.5", "--no-progress"], in: directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--max-error-rate must be a fraction in 0...1"), "\(bad.stderr)")
        #expect(server.requests.isEmpty)

        let stepSummary = directory.appendingPathComponent("step.md")
        let over = try await runEvalbench(["run", "s.json", "--out", "over", "--min-pass-rate", "0", "--max-error-rate", "0.25", "--no-progress"],
                                in: directory, environment: ["GITHUB_STEP_SUMMARY": stepSummary.path])
        #expect(over.status == 3, "\(over.stdout)\(over.stderr)")
        #expect(over.stdout.contains("the run: error rate 33.3% (1 of 3 requests) is over --max-error-rate 25.0%"), "\(over.stdout)")
        let summary = try String(contentsOf: directory.appendingPathComponent("over/summary.md"), encoding: .utf8)
        #expect(try String(contentsOf: stepSummary, encoding: .utf8) == summary + "\n")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("over/junit.xml").path))

        let within = try await runEvalbench(["run", "s.json", "--out", "within", "--min-pass-rate", "0", "--max-error-rate", "40%", "--no-progress"],
                                  in: directory)
        #expect(within.status == 0, "\(within.stdout)\(within.stderr)")
    }

    @Test("--target on run and on report sets the recommendation's target; the suite's target applies without it; a bad one exits 2")
    func recommendationTarget() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server, extra: #", "pricing": {"perRequest": 0.002}"#), to: directory.appendingPathComponent("evalbench.json"))
        let cases = (1...4).map { #"{"id": "c\#($0)", "prompt": "q", "tags": ["qa"], "expect": [{"type": "contains", "value": "ok"}]}"# }
        try write(#"{"format": "evalbench.suite/1", "suite": "t", "target": 0.4, "cases": [\#(cases.joined(separator: ","))]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let bad = try await runEvalbench(["run", "s.json", "--target", "0", "--no-progress"], in: directory)
        #expect(bad.status == 2 && bad.stderr.contains("--target must be above 0"), "\(bad.stderr)")
        #expect(server.requests.isEmpty)

        // 4 of 4: Wilson lower bound 51.0%, above the suite's 40% but under --target 90%.
        let run = try await runEvalbench(["run", "s.json", "--out", "out", "--no-progress"], in: directory)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        func qaRow() throws -> [String: String] {
            let rows = try parseCSV(String(contentsOf: directory.appendingPathComponent("out/recommendation.csv"), encoding: .utf8))
            let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
            return try #require(records.first { $0["tag"] == "qa" })
        }
        var row = try qaRow()
        #expect(row["target"] == "0.4" && row["target_source"] == "suite" && row["recommended"] == "true", "\(row)")
        // $0.002 a request × 1,000 cases.
        #expect(row["cost_per_1000_cases_usd"] == "2")

        let report = try await runEvalbench(["report", "out", "--target", "90%"], in: directory)
        #expect(report.status == 0, "\(report.stderr)")
        row = try qaRow()
        #expect(row["target"] == "0.9" && row["target_source"] == "command line" && row["recommended"] == "false", "\(row)")
        let summary = try String(contentsOf: directory.appendingPathComponent("out/summary.md"), encoding: .utf8)
        #expect(summary.contains("Only one backend × reasoning × variant ran (fake · none · default)"), "\(summary)")
        #expect(summary.contains("qa (4 of the 35 cases a 90.0% target needs)"), "\(summary)")
    }

    @Test("report writes the recorded verdict again and says so; a results.jsonl with no results is refused (exit 2), the reports left as they were")
    func reportKeepsVerdict() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-report-verdict")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content(request.messages.last?.content == "q1" ? "ok" : "no")])
        }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        let cases = (1...2).map { #"{"id": "c\#($0)", "prompt": "q\#($0)", "expect": [{"type": "contains", "value": "ok"}]}"# }
        try write(#"{"format": "evalbench.suite/1", "suite": "v", "cases": [\#(cases.joined(separator: ","))]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let run = try await runEvalbench(["run", "s.json", "--out", "out", "--min-pass-rate", "75%", "--no-progress"], in: directory)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let summaryURL = directory.appendingPathComponent("out/summary.md")
        #expect(try String(contentsOf: summaryURL, encoding: .utf8).contains("## Verdict\n\n**FAIL**: exit 1"))

        let report = try await runEvalbench(["report", "out"], in: directory)
        #expect(report.status == 0, "\(report.stderr)")
        let rewritten = try String(contentsOf: summaryURL, encoding: .utf8)
        #expect(rewritten.contains("## Verdict\n\n**FAIL**: exit 1"), "\(rewritten)")
        #expect(rewritten.contains("fake · none · default: pass rate 50.0% is below --min-pass-rate 75.0%"))
        #expect(rewritten.contains(RecordedVerdict.rewrittenNote))

        // A line edited mid-file: refused at its line, the reports left as they were.
        let resultsURL = directory.appendingPathComponent("out/results.jsonl")
        var lines = try String(contentsOf: resultsURL, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] = String(lines[1].prefix(40)) + "GARBAGE"
        try Data(lines.joined(separator: "\n").utf8).write(to: resultsURL)
        let damaged = try await runEvalbench(["report", "out"], in: directory)
        #expect(damaged.status == 2, "\(damaged.stdout)\(damaged.stderr)")
        #expect(damaged.stderr.contains("results.jsonl:2:1: error: not a result line") && damaged.stderr.contains("1 problem found; no report was written"),
                "\(damaged.stderr)")
        #expect(try String(contentsOf: summaryURL, encoding: .utf8) == rewritten, "the reports are left as they were")

        try Data().write(to: directory.appendingPathComponent("out/results.jsonl"))
        let empty = try await runEvalbench(["report", "out"], in: directory)
        #expect(empty.status == 2, "\(empty.stdout)\(empty.stderr)")
        #expect(empty.stderr.contains("results.jsonl: error: holds no results, so there is nothing to report"), "\(empty.stderr)")
        #expect(try String(contentsOf: summaryURL, encoding: .utf8) == rewritten, "the reports are left as they were")
    }

    @Test("compare exits 1 on a significant regression and names the flipped cases, 0 with no change or within the threshold, 2 on bad arguments; run --baseline checks the baseline before sending")
    func compareCommand() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-compare")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two fake models behind the same backend name: one answers right, the other wrong.
        let good = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        let bad = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("nope")]) }
        try good.start()
        defer { good.stop() }
        try bad.start()
        defer { bad.stop() }
        try write(fakeConfig(good), to: directory.appendingPathComponent("good.json"))
        try write(fakeConfig(bad), to: directory.appendingPathComponent("bad.json"))
        let cases = (1...20).map { #"{"id": "c\#($0)", "prompt": "q\#($0)", "expect": [{"type": "contains", "value": "ok"}]}"# }
        try write(#"{"format": "evalbench.suite/1", "suite": "cmp", "cases": [\#(cases.joined(separator: ","))]}"#,
                  to: directory.appendingPathComponent("s.json"))

        let base = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "base", "--no-progress"], in: directory)
        #expect(base.status == 0, "\(base.stdout)\(base.stderr)")
        let again = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "again", "--no-progress"], in: directory)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")

        let same = try await runEvalbench(["compare", "base", "again"], in: directory)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("evalbench: No significant change"), "\(same.stdout)")
        let sameReport = try String(contentsOf: directory.appendingPathComponent("again/compare.md"), encoding: .utf8)
        #expect(sameReport.contains("**No significant change.**"), "\(sameReport)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("again/compare.csv").path))

        // The wrong model, gated on the baseline within the run: every case flips pass → fail.
        let requestsBefore = bad.requests.count
        let stepSummary = directory.appendingPathComponent("step.md")
        let worse = try await runEvalbench(["run", "s.json", "--config", "bad.json", "--out", "worse", "--baseline", "base", "--no-progress"],
                                 in: directory, environment: ["GITHUB_STEP_SUMMARY": stepSummary.path])
        #expect(worse.status == 1, "\(worse.stdout)\(worse.stderr)")
        #expect(bad.requests.count == requestsBefore + 20)
        #expect(worse.stdout.contains("compared with base: Regression: "), "\(worse.stdout)")
        #expect(worse.stdout.contains("regression against the baseline base: see compare.md"), "\(worse.stdout)")
        let worseReport = try String(contentsOf: directory.appendingPathComponent("worse/compare.md"), encoding: .utf8)
        #expect(worseReport.contains("**Regression: "), "\(worseReport)")
        for flipped in ["c1", "c7", "c20"] { #expect(worseReport.contains("| cmp/\(flipped) | fake · none · default | 1 | pass → fail | current run: "), "\(flipped): \(worseReport)") }
        let step = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(step.contains("# evalbench compare") && step.contains("# evalbench: cmp"), "the step summary has summary.md and compare.md")

        // A run that replaces it without --baseline leaves no comparison of other results behind.
        let replaced = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "replaced", "--baseline", "base", "--no-progress"], in: directory)
        #expect(replaced.status == 0 && FileManager.default.fileExists(atPath: directory.appendingPathComponent("replaced/compare.md").path))
        let plain = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "replaced", "--no-progress"], in: directory)
        #expect(plain.status == 0, "\(plain.stdout)\(plain.stderr)")
        for name in ["compare.md", "compare.csv"] {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("replaced/\(name)").path), "\(name) left from the run replaced")
        }

        // The same pair through `compare`, into --out; a threshold of a 100-point drop lets it through.
        let compared = try await runEvalbench(["compare", "base", "worse", "--out", "cmp"], in: directory)
        #expect(compared.status == 1, "\(compared.stdout)\(compared.stderr)")
        #expect(compared.stdout.contains("evalbench: Regression: "), "\(compared.stdout)")
        let csv = try parseCSV(String(contentsOf: directory.appendingPathComponent("cmp/compare.csv"), encoding: .utf8))
        #expect(csv.count > 1, "compare.csv has a header and rows")
        let allowed = try await runEvalbench(["compare", "base", "worse", "--out", "cmp2", "--max-pass-rate-drop", "100%"], in: directory)
        #expect(allowed.status == 0, "\(allowed.stdout)\(allowed.stderr)")

        // Bad arguments: exit 2, and a run with a bad baseline sends nothing.
        let one = try await runEvalbench(["compare", "base"], in: directory)
        #expect(one.status == 2 && one.stderr.contains("compare needs BASELINE_DIR CURRENT_DIR; missing CURRENT_DIR"), "\(one.stderr)")
        let missing = try await runEvalbench(["compare", "base", "nowhere"], in: directory)
        #expect(missing.status == 2 && missing.stderr.contains("nowhere") && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        let alpha = try await runEvalbench(["compare", "base", "again", "--alpha", "2"], in: directory)
        #expect(alpha.status == 2 && alpha.stderr.contains("--alpha must be"), "\(alpha.stderr)")
        let orphan = try await runEvalbench(["run", "s.json", "--config", "good.json", "--max-pass-rate-drop", "0.1", "--no-progress"], in: directory)
        #expect(orphan.status == 2 && orphan.stderr.contains("give --baseline too"), "\(orphan.stderr)")
        let goodRequests = good.requests.count
        let noBaseline = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "x", "--baseline", "nowhere", "--no-progress"],
                                      in: directory)
        #expect(noBaseline.status == 2 && noBaseline.stderr.contains("nowhere"), "\(noBaseline.stderr)")
        try write("{not json\n", to: directory.appendingPathComponent("again/results.jsonl"))
        let malformed = try await runEvalbench(["run", "s.json", "--config", "good.json", "--out", "y", "--baseline", "again", "--no-progress"],
                                     in: directory)
        #expect(malformed.status == 2 && malformed.stderr.contains("results.jsonl:1"), "\(malformed.stderr)")
        #expect(good.requests.count == goodRequests, "nothing is sent when the baseline cannot be read")
    }
}

/// The OPTIONS section of a help page: each option's name and its description, wrapped
/// lines joined.
private func optionEntries(_ page: String) -> [String: String] {
    guard let start = page.range(of: "\nOPTIONS:\n") else { return [:] }
    var entries: [String: String] = [:]
    var current: String?
    for line in page[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("  -") {
            let name = String(text.prefix { $0 != " " && $0 != "," })
            let description = text.range(of: "  ").map { text[$0.upperBound...].trimmingCharacters(in: .whitespaces) } ?? ""
            entries[name] = description
            current = name
        } else if let name = current, line.hasPrefix("        "), !text.isEmpty {
            entries[name] = [entries[name] ?? "", text].filter { !$0.isEmpty }.joined(separator: " ")
        } else {
            break
        }
    }
    return entries
}

@Suite("evalbench's help pages and argument errors")
struct CommandLineHelpTests {
    static let runOptions = ["--config", "--backend", "--reasoning", "--repeat", "--concurrency", "--out", "--resume", "--resume-changed", "--case",
                             "--tag", "--variant", "--min-pass-rate", "--max-error-rate", "--target", "--cache", "--no-cache",
                             "--watch", "--no-progress", "--quiet", "--allow-empty", "--max-requests", "--baseline", "--max-pass-rate-drop",
                             "--max-latency-increase", "--alpha", "--shard", "--shards"]
    static let runFlags: Set = ["--cache", "--no-cache", "--watch", "--no-progress", "--quiet", "--allow-empty", "--resume-changed"]
    static let compareOptions = ["--out", "--max-pass-rate-drop", "--max-latency-increase", "--alpha", "--quiet"]

    @Test("help run, run --help and run -h exit 0 with one page on stdout that describes every option, each with its default")
    func runHelp() async throws {
        var pages: [(status: Int32, stdout: String, stderr: String)] = []
        for arguments in [["help", "run"], ["run", "--help"], ["run", "-h"], ["run", "s.json", "--out", "--help"]] {
            pages.append(try await runEvalbench(arguments))
        }
        for page in pages {
            #expect(page.status == 0 && page.stderr.isEmpty, "\(page.stderr)")
            #expect(page.stdout == pages[0].stdout)
        }
        let page = pages[0].stdout
        #expect(page.hasPrefix("OVERVIEW: "))
        #expect(page.contains("USAGE: evalbench run SUITE... [--config FILE] [--backend NAME]..."), "\(page)")
        let entries = optionEntries(page)
        #expect(Set(entries.keys) == Set(Self.runOptions + ["-h"]), "\(entries.keys.sorted())")
        for option in Self.runOptions {
            #expect(page.contains("[\(option) ") || page.contains("[\(option)]") || page.contains("| \(option)]"), "the synopsis names \(option)")
            #expect(!(entries[option] ?? "").isEmpty, "\(option) is described")
            if !Self.runFlags.contains(option) { #expect(entries[option]?.contains("(default: ") == true, "\(option): \(entries[option] ?? "")") }
        }
        #expect(entries["--concurrency"]?.contains("(default: the config's defaults.concurrency, else 4)") == true)
        #expect(entries["--alpha"]?.contains("Only with --baseline. (default: 0.05)") == true)
    }

    @Test("compare --help exits 0 and describes every option with its default; every command has a page")
    func compareHelp() async throws {
        let help = try await runEvalbench(["compare", "--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        let entries = optionEntries(help.stdout)
        #expect(Set(entries.keys) == Set(Self.compareOptions + ["-h"]), "\(entries.keys.sorted())")
        for option in Self.compareOptions where option != "--quiet" { #expect(entries[option]?.contains("(default: ") == true, "\(option): \(entries[option] ?? "")") }
        #expect(entries["--out"]?.contains("(default: CURRENT_DIR)") == true)
        #expect(help.stdout.contains("  BASELINE_DIR") && help.stdout.contains("  CURRENT_DIR"))
        for command in ["validate", "plan", "backends", "report", "cache", "help"] {
            let page = try await runEvalbench(["help", command])
            #expect(page.status == 0 && page.stdout.hasPrefix("OVERVIEW: "), "\(command): \(page.stderr)")
        }
    }

    @Test("evalbench help and --help list every command with one line, the options and the exit codes; the README shows that page")
    func toolHelp() async throws {
        let help = try await runEvalbench(["help"])
        #expect(help.status == 0)
        #expect(try await runEvalbench(["--help"]).stdout == help.stdout)
        #expect(try await runEvalbench(["-h"]).stdout == help.stdout)
        for command in ["run", "validate", "plan", "backends", "report", "compare", "merge", "cache", "help"] {
            #expect(help.stdout.contains("\n  \(command)  "), "\(command) is listed")
        }
        #expect(help.stdout.contains("--version") && help.stdout.contains("EXIT CODES:"))
        for code in ["0", "1", "2", "3", "130"] { #expect(help.stdout.contains("\n  \(code) "), "exit code \(code)") }
        let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```\n$ evalbench help\n" + help.stdout + "```"), "README's usage block is `evalbench help` as printed")
        let runPage = try await runEvalbench(["help", "run"]).stdout
        let runUsage = try #require(runPage.range(of: "USAGE: ").map { runPage[$0.lowerBound...] }?.components(separatedBy: "\n\n").first)
        #expect(readme.contains("```\n" + runUsage + "\n```"), "README shows run's synopsis as printed")
        let version = try await runEvalbench(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("evalbench "))
    }

    @Test("run --out --no-progress x.json exits 2: --out needs a value, then one usage line and where the help is")
    func optionAsValue() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-option-value")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await runEvalbench(["run", "--out", "--no-progress", "x.json"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            error: --out needs a value (DIR), but the next argument '--no-progress' is an option; give the value after --out, or write --out=DIR for one that starts with '-'
            usage: evalbench run SUITE... [options]
            see 'evalbench help run'

            """, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("--no-progress").path))
    }

    @Test("unexpected arguments, unknown commands and options, and no command at all exit 2 with a one-line usage")
    func argumentErrors() async throws {
        let cases: [([String], String, String)] = [
            (["report", "a", "b"], "error: unexpected argument 'b': report takes DIR", "see 'evalbench help report'"),
            (["backends", "extra"], "error: unexpected argument 'extra': backends takes no arguments", "see 'evalbench help backends'"),
            (["compare", "a", "b", "c"], "error: unexpected argument 'c': compare takes BASELINE_DIR CURRENT_DIR", "see 'evalbench help compare'"),
            (["rn", "s.json"], "error: unknown command 'rn'; did you mean 'run'?", "see 'evalbench help'"),
            (["help", "compre"], "error: unknown command 'compre'; did you mean 'compare'?", "see 'evalbench help'"),
            (["run", "s.json", "--concurency", "2"], "error: unknown option '--concurency' for 'run'; did you mean '--concurrency'?", "see 'evalbench help run'"),
            (["validate", "s.json", "--repeat", "2"], "error: unknown option '--repeat' for 'validate'", "see 'evalbench help validate'"),
            (["run"], "error: run needs SUITE...; missing SUITE", "see 'evalbench help run'"),
            (["cache"], "error: cache needs ACTION; missing ACTION", "see 'evalbench help cache'"),
            (["cache", "clean"], "error: unknown ACTION 'clean' for 'cache'; did you mean 'clear'? (cache takes clear)", "see 'evalbench help cache'"),
            (["run", "s.json", "--no-progress=yes"], "error: --no-progress takes no value; give --no-progress alone", "see 'evalbench help run'"),
            ([], "error: no command given; the commands are run, validate, plan, backends, report, compare, merge, init, cache, help", "see 'evalbench help'"),
        ]
        for (arguments, first, last) in cases {
            let result = try await runEvalbench(arguments)
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(result.status == 2, "\(arguments)")
            #expect(lines.count == 3 && lines.first == first && lines.last == last, "\(arguments): \(result.stderr)")
            #expect(lines.count == 3 && lines[1].hasPrefix("usage: evalbench "), "\(arguments): \(result.stderr)")
        }
    }

    @Test("a report or comparison that cannot be written exits 3 and names the file and the cause")
    func failedWrites() async throws {
        let directory = PackagePaths.temporaryDirectory("cli-failed-write")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        try write(fakeConfig(server), to: directory.appendingPathComponent("evalbench.json"))
        try write(#"{"format": "evalbench.suite/1", "suite": "w", "cases": [{"id": "a", "prompt": "x"}]}"#,
                  to: directory.appendingPathComponent("s.json"))
        let run = try await runEvalbench(["run", "s.json", "--out", "one", "--no-progress"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        // A directory where a report file goes: the write fails whatever the user's rights.
        let summary = directory.appendingPathComponent("one/summary.md")
        try FileManager.default.removeItem(at: summary)
        try FileManager.default.createDirectory(at: summary.appendingPathComponent("in-the-way"), withIntermediateDirectories: true)
        let report = try await runEvalbench(["report", "one"], in: directory)
        #expect(report.status == 3, "\(report.stdout)\(report.stderr)")
        #expect(report.stderr.contains("one/summary.md: error: could not write the report: "), "\(report.stderr)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("cmp/compare.md/in-the-way"),
                                                withIntermediateDirectories: true)
        let compare = try await runEvalbench(["compare", "one", "one", "--out", "cmp"], in: directory)
        #expect(compare.status == 3, "\(compare.stdout)\(compare.stderr)")
        #expect(compare.stderr.contains("cmp/compare.md: error: could not write the report: "), "\(compare.stderr)")
    }
}
