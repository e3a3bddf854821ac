import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// The diagnostics loading config `text` reports; empty when it loads.
private func configProblems(_ text: String) -> [Diagnostic] {
    do {
        _ = try ConfigLoader.load(data: Data(text.utf8), file: "evalbench.json", baseDirectory: "/work/project")
        return []
    } catch {
        return error.diagnostics
    }
}

private func openAIConfig(_ extra: String) -> String {
    """
    { "backends": [ { "name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"\(extra) } ] }
    """
}

@Suite("Reasoning levels: config, plan and the OpenAI-compatible mapping")
struct ReasoningLevelTests {
    @Test("Per-level overrides, extraBody, maxTokensField and default levels load as written")
    func loadsOverrides() throws {
        let config = try ConfigLoader.load(data: Data("""
        { "backends": [ { "name": "srv", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1",
            "maxTokensField": "max_completion_tokens",
            "extraBody": { "chat_template_kwargs": { "enable_thinking": false }, "top_k": 40 },
            "reasoning": { "none": { "unsupported": "this server always reasons" },
                           "deep": { "effort": "xhigh", "extraBody": { "reasoning_budget_tokens": 2048 } } } } ],
          "defaults": { "reasoning": ["light", "deep"] } }
        """.utf8), file: "evalbench.json", baseDirectory: "/")
        let backend = try #require(config.backends.first)
        let options = try #require(backend.options(as: OpenAIKind.self))
        #expect(options.maxTokensField == "max_completion_tokens")
        #expect(options.extraBody?["top_k"] == .number(40))
        #expect(options.extraBody?["chat_template_kwargs"] == .object(["enable_thinking": .bool(false)]))
        #expect(backend.reasoningOverride(.none) == ReasoningOverride(unsupported: "this server always reasons"))
        #expect(backend.reasoningOverride(.deep) == ReasoningOverride(effort: "xhigh", extraBody: ["reasoning_budget_tokens": .number(2048)]))
        #expect(backend.reasoningOverride(.light) == nil)
        #expect(config.defaults.reasoning == [.light, .deep])
    }

    @Test("Bad reasoning config is reported where it is, with a fix")
    func badOverrides() {
        let typo = configProblems(openAIConfig(#", "reasoning": { "moderat": { "effort": "medium" } }"#))
        #expect(typo.count == 1)
        #expect(typo.first?.message == "unknown key 'moderat'; did you mean 'moderate'?")
        #expect(typo.first?.path == "$.backends[0].reasoning.moderat")

        let both = configProblems(openAIConfig(#", "reasoning": { "deep": { "effort": "high", "unsupported": "no" } }"#))
        #expect(both.map(\.message) == ["level 'deep' is marked unsupported and also says how to send it"])

        let budget = configProblems(openAIConfig(#", "reasoning": { "light": { "thinkingBudget": 512 } }"#))
        #expect(budget.count == 1)
        #expect(budget.first?.path == "$.backends[0].reasoning.light.thinkingBudget")
        #expect(budget.first?.fix?.contains("reasoning_budget_tokens") == true)

        let field = configProblems(openAIConfig(#", "maxTokensField": "max_output_tokens""#))
        #expect(field.first?.message.contains("must be one of \"max_tokens\", \"max_completion_tokens\"") == true)

        let body = configProblems(openAIConfig(#", "extraBody": [1, 2]"#))
        #expect(body.first?.path == "$.backends[0].extraBody")

        let levels = configProblems(openAIConfig("") .replacingOccurrences(of: "] }", with: #"], "defaults": { "reasoning": ["none", "hard", "none"] } }"#))
        #expect(levels.map(\.message) == ["unknown reasoning level 'hard'", "reasoning level 'none' is listed twice"])
        #expect(levels.map(\.path) == ["$.defaults.reasoning[1]", "$.defaults.reasoning[2]"])

        let cache = configProblems(openAIConfig(#", "promptCache": "auto""#))
        #expect(cache.first?.message == "'promptCache' is not used by kind 'openai'")
    }

    @Test("A suite's levels apply unless --reasoning is given; the config's default applies to suites that name none")
    func planLevels() throws {
        let evalCase = EvalCase(id: "c", turns: [Turn(prompt: "q")])
        let reasoned = Suite(name: "a", file: "a.json", cases: [evalCase], reasoning: [.none, .deep])
        let plain = Suite(name: "b", file: "b.json", cases: [evalCase])
        let byDefault = Planner.plan([reasoned, plain], PlanSelection(backends: ["x"], defaultReasoning: [.light]))
        #expect(byDefault.caseRuns.map(\.key) == ["a/c/default/x/none/1", "a/c/default/x/deep/1", "b/c/default/x/light/1"])
        let forced = Planner.plan([reasoned, plain], PlanSelection(backends: ["x"], reasoning: [.moderate], defaultReasoning: [.light]))
        #expect(forced.caseRuns.map(\.reasoning) == [.moderate, .moderate])

        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s", "reasoning": ["none", "moderate"],
          "cases": [ { "id": "c", "prompt": "q" } ] }
        """.utf8), file: "s.json")
        #expect(suite.reasoning == [.none, .moderate])
        do {
            _ = try SuiteLoader.load(data: Data("""
            { "format": "evalbench.suite/1", "suite": "s", "reasoning": "dep", "cases": [ { "id": "c", "prompt": "q" } ] }
            """.utf8), file: "s.json")
            Issue.record("an unknown level must not load")
        } catch {
            #expect(error.diagnostics.map(\.message) == ["unknown reasoning level 'dep'; did you mean 'deep'?"])
            #expect(error.diagnostics.first?.location?.line == 1)
        }
    }

    @Test("Each level's default mapping and each override is what the body carries")
    func openAIBody() throws {
        func body(_ level: ReasoningLevel, _ backend: OpenAIBackend) -> [String: Any] {
            backend.body(for: ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "q")],
                                           options: GenerationOptions(maxOutputTokens: 8), reasoning: level))
        }
        let plain = OpenAIBackend(name: "p", model: "m", baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: nil,
                                  concurrency: 1, transport: URLSessionStreamTransport())
        #expect(body(.none, plain)["reasoning_effort"] == nil)
        #expect(body(.light, plain)["reasoning_effort"] as? String == "low")
        #expect(body(.moderate, plain)["reasoning_effort"] as? String == "medium")
        #expect(body(.deep, plain)["reasoning_effort"] as? String == "high")
        #expect(body(.deep, plain)["max_tokens"] as? Int == 8)

        let custom = OpenAIBackend(
            name: "c", model: "m", baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: nil, concurrency: 1,
            sendReasoningNone: true,
            reasoningOverrides: ["deep": ReasoningOverride(effort: "xhigh", extraBody: ["chat_template_kwargs": .object(["budget": .number(4096)])]),
                                 "light": ReasoningOverride(unsupported: "not on this server")],
            extraBody: ["chat_template_kwargs": .object(["enable_thinking": .bool(true)]), "top_k": .number(40), "stream_options": .null],
            maxTokensField: "max_completion_tokens", transport: URLSessionStreamTransport())
        #expect(body(.none, custom)["reasoning_effort"] as? String == "none")
        let deep = body(.deep, custom)
        #expect(deep["reasoning_effort"] as? String == "xhigh")
        #expect(deep["max_completion_tokens"] as? Int == 8)
        #expect(deep["max_tokens"] == nil)
        #expect(deep["top_k"] as? Int == 40)
        #expect(deep["stream_options"] == nil, "null in extraBody removes a field")
        let kwargs = try #require(deep["chat_template_kwargs"] as? [String: Any])
        #expect(kwargs["enable_thinking"] as? Bool == true, "objects merge: the backend's field stays")
        #expect(kwargs["budget"] as? Int == 4096, "the level's field is added")
        #expect(custom.reasoningSupport(.light) == .unsupported("not on this server"))
        #expect(custom.reasoningSupport(.deep) == .supported(#"reasoning_effort: "xhigh", output limit as max_completion_tokens, {"chat_template_kwargs":{"budget":4096}}"#))
        #expect(plain.reasoningSupport(.none) == .supported("reasoning_effort omitted"))
    }

    @Test("The on-device model skips every level above none; PCC maps each level")
    func appleMappings() throws {
        let system = try BackendConfig(name: "d", options: AppleSystemKind()).makeBackend(context: context(nil))
        #expect(system.reasoningSupport(.none) == .supported("no reasoning level"))
        #expect(system.reasoningSupport(.deep) == .unsupported("the on-device system model has no reasoning levels"))
        let pcc = try BackendConfig(name: "p", options: ApplePCCKind()).makeBackend(context: context(nil))
        #expect(pcc.reasoningSupport(.moderate) == .supported("ContextOptions reasoning level .moderate"))
    }
}

private func context(_ out: URL?) -> BackendContext {
    BackendContext(environment: [:], transport: URLSessionStreamTransport(),
                   logDirectory: out ?? FileManager.default.temporaryDirectory, defaultConcurrency: 2)
}

extension LoopbackNetworkTests {
    @Test("--reasoning none,light,moderate,deep on a fake server: one result per level, the skipped one with its reason, bodies as mapped, and a reasoning section")
    func reasoningMatrix() async throws {
        let server = FakeOpenAIServer { request in
            let effort = request.reasoningEffort ?? "omitted"
            let thinks = request.reasoningEffort != nil
            return FakeOpenAIServer.Script(
                model: "fake-\(effort)",
                steps: (thinks ? [.reasoning("thinking…", afterMs: 30)] : []) + [.content("Paris", afterMs: thinks ? 20 : 5)],
                usage: FakeOpenAIServer.ReportedUsage(promptTokens: 20, completionTokens: thinks ? 12 : 2,
                                                      reasoningTokens: thinks ? 10 : nil))
        }
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("reasoning", suiteFile: "suite.json",
                                     suite: """
        { "format": "evalbench.suite/1", "suite": "levels",
          "cases": [ { "id": "capital", "prompt": "Capital of France?", "expect": [ { "type": "contains", "value": "Paris" } ] } ] }
        """,
                                     config: """
        { "backends": [ { "name": "srv", "kind": "openai", "model": "m", "baseURL": "\(server.baseURL.absoluteString)/v1",
            "reasoning": { "moderate": { "unsupported": "this deployment has no medium effort" },
                           "deep": { "effort": "high", "extraBody": { "reasoning_budget_tokens": 1024 } } } },
          { "name": "plain", "kind": "openai", "model": "plain-model", "baseURL": "\(server.baseURL.absoluteString)/v1",
            "sendReasoningNone": true } ] }
        """)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out").path
        let request = RunRequest(suitePaths: [fixture.suitePath], configPath: fixture.configPath,
                                 reasoning: [.none, .light, .moderate, .deep], outputDirectory: out)
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())

        let byLevel = Dictionary(uniqueKeysWithValues: outcome.results.filter { $0.backend == "srv" }.map { ($0.reasoning, $0) })
        #expect(byLevel.count == 4)
        #expect(outcome.results.filter { $0.backend == "plain" }.map(\.status) == [.pass, .pass, .pass, .pass])
        let plainEfforts = server.requests.filter { $0.model == "plain-model" }.map { $0.reasoningEffort ?? "omitted" }
        #expect(plainEfforts.sorted() == ["high", "low", "medium", "none"], "every level's default mapping, as received")
        #expect(byLevel[.none]?.status == .pass)
        #expect(byLevel[.light]?.status == .pass)
        #expect(byLevel[.deep]?.status == .pass)
        #expect(byLevel[.moderate]?.status == .skipped)
        #expect(byLevel[.moderate]?.skipReason?.contains("this deployment has no medium effort") == true)
        #expect(byLevel[.deep]?.usage.reasoningTokens == 10)
        #expect(byLevel[.none]?.usage.reasoningTokens == nil, "not reported stays nil")
        let ttfa = try #require(byLevel[.deep]?.timing?.ttfaMs)
        let ttft = try #require(byLevel[.deep]?.timing?.ttftMs)
        #expect(ttfa > ttft, "reasoning streams first: the answer comes later than the first token")

        let bodies = server.requests.filter { $0.model == "m" }.map { (try? JSONSerialization.jsonObject(with: $0.http.body)) as? [String: Any] ?? [:] }
        #expect(bodies.count == 3, "the skipped level sends nothing")
        #expect(Set(bodies.map { $0["reasoning_effort"] as? String ?? "omitted" }) == ["omitted", "low", "high"])
        let deepBody = try #require(bodies.first { $0["reasoning_effort"] as? String == "high" })
        #expect(deepBody["reasoning_budget_tokens"] as? Int == 1024)
        #expect(bodies.filter { $0["reasoning_budget_tokens"] != nil }.count == 1, "a level's extraBody goes with that level only")

        let summary = try String(contentsOfFile: out + "/summary.md", encoding: .utf8)
        #expect(summary.contains("## Reasoning levels"))
        #expect(summary.contains(#"| srv · default | deep | reasoning_effort: "high", {"reasoning_budget_tokens":1024} | 100.0% | +0.0 pp |"#))
        #expect(summary.contains("| srv · default | moderate | skipped (this deployment has no medium effort) |"))
        #expect(summary.contains("| srv · default | none | reasoning_effort omitted | 100.0% | baseline |"))
        let csv = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
        #expect(csv.split(whereSeparator: \.isNewline).count == 9, "a header and one row per backend × level")
    }
}
