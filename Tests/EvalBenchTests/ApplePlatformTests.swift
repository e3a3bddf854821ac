import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func write(_ text: String, to directory: URL, _ name: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

private let capitalSuite = """
{ "format": "evalbench.suite/1", "suite": "geo",
  "cases": [ { "id": "capital", "prompt": "Capital of France?", "expect": [ { "type": "contains", "value": "Paris" } ] } ] }
"""

@Suite("Apple kinds on Linux, the context-fit pre-flight and the Apple config keys")
struct ApplePlatformTests {
    #if !canImport(FoundationModels)
    @Test("On Linux both Apple kinds load and are unavailable here, each with its reason")
    func unavailableOnLinux() async throws {
        let context = BackendContext(environment: [:], transport: URLSessionStreamTransport(),
                                     logDirectory: FileManager.default.temporaryDirectory, defaultConcurrency: 2)
        let system = try BackendConfig(name: "device", options: AppleSystemKind()).makeBackend(context: context)
        let pcc = try BackendConfig(name: "pcc", options: ApplePCCKind()).makeBackend(context: context)
        #expect(await system.prepare() == .unavailableHere("device: FoundationModels is not available on Linux; the on-device model needs macOS, iOS or visionOS 26 with Apple Intelligence"))
        guard case let .unavailableHere(reason) = await pcc.prepare() else { Issue.record("PCC is not unavailable here"); return }
        #expect(reason.contains("FoundationModels is not available on Linux") && reason.contains("Private Cloud Compute needs macOS 27"))
    }
    #endif

    @Test("The context-fit pre-flight lists the cases over the on-device 4K window, counted by the model where it can")
    func contextFit() async throws {
        let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 400)
        let suite = Suite(name: "fit", file: "fit.json", cases: [
            EvalCase(id: "short", turns: [Turn(prompt: "Capital of France?")]),
            EvalCase(id: "long-doc", options: GenerationOptions(maxOutputTokens: 100), turns: [Turn(prompt: "Summarise: " + long)]),
            EvalCase(id: "growing", options: GenerationOptions(maxOutputTokens: 1000),
                     turns: [Turn(prompt: String(repeating: "x", count: 8000)), Turn(prompt: "and more"), Turn(prompt: "again")]),
        ])
        let plan = Planner.plan([suite], PlanSelection(backends: ["device", "counted", "pcc", "other"]))
        let reports = await ContextFit.check(plan, backends: [
            ("device", appleBackend("device", FakeAppleDriver(.onDevice)), nil),
            ("counted", appleBackend("counted", FakeAppleDriver(.onDevice, contextSize: 8192, tokensPerCharacter: 0.5)), nil),
            ("pcc", appleBackend("pcc", FakeAppleDriver(.privateCloudCompute)), nil),
            ("other", UnavailableBackend(config: BackendConfig(name: "other", options: OpenAIKind(baseURL: "http://127.0.0.1:9/v1")), reason: "x"), nil),
        ])
        let device = reports[0]
        #expect(device.window?.tokens == 4096 && device.window?.larger == 8192)
        #expect(device.source == .estimated)
        #expect(device.casesChecked == 3)
        #expect(device.overflows.map(\.caseID) == ["long-doc", "growing"])
        let growing = device.overflows[1]
        #expect(growing.turn == 3 && growing.outputHeadroom == 3000, "earlier answers and this one at maxOutputTokens each")
        #expect(device.overflows[0].inputTokens == TokenEstimate.tokens(in: "Summarise: " + long))

        let counted = reports[1]
        #expect(counted.window == ContextWindow(tokens: 8192, origin: "reported by the framework"))
        #expect(counted.source == .counted)
        #expect(counted.overflows.map(\.caseID) == ["long-doc"], "by the model's own count long-doc needs 9106 of 8192, growing 7011")
        #expect(counted.overflows.first?.totalTokens == 9106)
        #expect(reports[2].window?.tokens == 32768 && reports[2].overflows.isEmpty)
        #expect(reports[3].window == nil, "no contextSize: nothing to check against, and it says so")
    }

    @Test("fallback, prewarm and Apple reasoning mappings load; bad ones are reported where they are")
    func configKeys() throws {
        let good = """
        { "backends": [ { "name": "device", "kind": "apple-system", "prewarm": true },
                        { "name": "pcc", "kind": "apple-pcc", "fallback": "device", "reasoning": { "deep": { "effort": "moderate" } } } ] }
        """
        let config = try ConfigLoader.load(data: Data(good.utf8), file: "c.json", baseDirectory: "/")
        #expect(config.backends[0].prewarm == true)
        #expect(config.backends[1].options(as: ApplePCCKind.self)?.fallback == "device")
        let context = BackendContext(environment: [:], transport: URLSessionStreamTransport(),
                                     logDirectory: FileManager.default.temporaryDirectory, defaultConcurrency: 2,
                                     backendConfigs: config.backends)
        let pcc = try #require(try config.backends[1].makeBackend(context: context) as? AppleBackend)
        #expect(pcc.fallback?.name == "device")
        #expect(pcc.reasoningSupport(.deep) == .supported("ContextOptions reasoning level .moderate"))

        let bad = """
        { "backends": [ { "name": "device", "kind": "apple-system", "fallback": "pcc",
                          "reasoning": { "light": { "effort": "low" } } },
                        { "name": "pcc", "kind": "apple-pcc", "fallback": "devise", "reasoning": { "deep": { "thinkingBudget": 100 } } },
                        { "name": "pcc2", "kind": "apple-pcc", "fallback": "local" },
                        { "name": "local", "kind": "openai", "baseURL": "http://127.0.0.1:1/v1" } ] }
        """
        let problems: [Diagnostic]
        do {
            _ = try ConfigLoader.load(data: Data(bad.utf8), file: "c.json", baseDirectory: "/")
            problems = []
        } catch {
            problems = error.diagnostics
        }
        let text = problems.map(\.description).joined(separator: "\n")
        #expect(problems.count == 5, "\(text)")
        #expect(text.contains("$.backends[0].fallback"), "fallback is a key of apple-pcc only")
        #expect(text.contains("the on-device model has no reasoning levels to send"))
        #expect(text.contains("no backend named 'devise'; did you mean 'device'?") && text.contains("c.json:3:"))
        #expect(text.contains("kind 'apple-pcc' takes no \"thinkingBudget\""))
        #expect(text.contains("falls back to 'local', whose kind is openai"))
    }
}

extension LoopbackNetworkTests {
    @Test("A config that names apple-system and apple-pcc runs the other backend; the Apple ones are reported unavailable with reasons, not errors, and the gate holds")
    func appleUnavailableBesideOthers() async throws {
        #if canImport(FoundationModels)
        return
        #else
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("Paris")]) }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("apple-linux")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try write(capitalSuite, to: directory, "suite.json")
        let config = try write("""
        { "backends": [ { "name": "device", "kind": "apple-system" }, { "name": "pcc", "kind": "apple-pcc", "fallback": "device" },
                        { "name": "srv", "kind": "openai", "model": "m", "baseURL": "\(server.baseURL.absoluteString)/v1" } ] }
        """, to: directory, "evalbench.json")
        let request = RunRequest(suitePaths: [suite], configPath: config, outputDirectory: directory.appendingPathComponent("out").path)
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.verdict.exitStatus == .success, "\(outcome.verdict)")
        #expect(outcome.verdict.notes.count == 2 && outcome.verdict.notes.allSatisfy { $0.contains("FoundationModels is not available on Linux") })
        let byBackend = Dictionary(uniqueKeysWithValues: outcome.results.map { ($0.backend, $0) })
        #expect(byBackend["srv"]?.status == .pass)
        for name in ["device", "pcc"] {
            #expect(byBackend[name]?.status == .skipped)
            #expect(byBackend[name]?.errorKind == .unavailable)
            #expect(byBackend[name]?.skipReason?.contains("FoundationModels is not available on Linux") == true)
        }
        let markdown = try String(contentsOf: outcome.outputDirectory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("No errors."), "unavailable here is not an error")
        #expect(markdown.contains("unavailable here (case runs skipped): pcc: FoundationModels is not available on Linux"))
        #expect(markdown.contains("| unavailable |"), "the case matrix says unavailable, not pass or error")
        let csv = try String(contentsOf: outcome.outputDirectory.appendingPathComponent("results.csv"), encoding: .utf8)
        #expect(csv.contains(",device,SystemLanguageModel.default,none,1,skipped,unavailable,"))

        var evaluation = Evaluation(suites: [.file(suite)], config: .file(config))
        evaluation.backendNames = ["srv", "device"]
        evaluation.outputDirectory = directory.appendingPathComponent("lib").path
        let report = try await evaluation.run()
        #expect(report.passRate == 1)
        #expect(report.summary(backend: "srv")?.passed == 1)
        #expect(report.summary(backend: "device")?.skipped == 1)
        evaluation.backendNames = ["device", "pcc"]
        evaluation.outputDirectory = directory.appendingPathComponent("none").path
        let nothingRuns = evaluation
        await #expect(throws: EvaluationError.self) {
            _ = try await nothingRuns.run()
        }
        let onlyApple = RunRequest(suitePaths: [suite], configPath: config, backends: ["device", "pcc"],
                                   outputDirectory: directory.appendingPathComponent("only").path)
        let nothing = try await EvalRun.execute(try EvalRun.load(onlyApple), onlyApple, transport: URLSessionStreamTransport())
        #expect(nothing.verdict.exitStatus == .infrastructure, "a run in which nothing could run is not a pass")
        #endif
    }

    @Test("Evaluation.run returns the report of a failing case with its pass rate and the failure")
    func libraryReport() async throws {
        let server = FakeOpenAIServer { request in
            FakeOpenAIServer.Script(steps: [.content(request.messages.last?.content.contains("France") == true ? "Paris" : "Rome")])
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("library")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try write("""
        { "format": "evalbench.suite/1", "suite": "geo", "cases": [
          { "id": "france", "prompt": "Capital of France?", "expect": [ { "type": "contains", "value": "Paris" } ] },
          { "id": "spain", "prompt": "Capital of Spain?", "expect": [ { "type": "contains", "value": "Madrid" } ] } ] }
        """, to: directory, "suite.json")
        let config = try write("""
        { "backends": [ { "name": "srv", "kind": "openai", "model": "m", "baseURL": "\(server.baseURL.absoluteString)/v1" } ] }
        """, to: directory, "evalbench.json")
        let seen = ResultCounter()
        var evaluation = Evaluation(suites: [.file(suite)], config: .file(config))
        evaluation.outputDirectory = directory.appendingPathComponent("out").path
        let report = try await evaluation.run(onResult: { _ in seen.increment() })
        #expect(report.passRate == 0.5)
        #expect(report.failures.map(\.caseID) == ["spain"])
        #expect(report.verdict.exitStatus == .gateFailed)
        #expect(seen.value == 2)
        #expect(FileManager.default.fileExists(atPath: report.outputDirectory.appendingPathComponent("summary.md").path))
    }
}

private final class ResultCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
