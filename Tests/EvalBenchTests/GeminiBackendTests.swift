import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let secret = "AIza-test-secret-value"

private func backend(_ server: FakeGeminiServer, model: String = "gemini-2.5-flash",
                     overrides: [String: ReasoningOverride] = [:], extraBody: [String: JSONValue] = [:],
                     headers: [String: String] = [:], concurrency: Int = 1) -> GeminiBackend {
    GeminiBackend(name: "gem", model: model, baseURL: server.baseURL, apiKey: secret, headers: headers,
                  concurrency: concurrency, reasoningOverrides: overrides, extraBody: extraBody,
                  transport: URLSessionStreamTransport())
}

private func startedServer(_ replies: [FakeGeminiServer.Script]) throws -> FakeGeminiServer {
    let server = FakeGeminiServer(replies: replies)
    try server.start()
    return server
}

/// One request straight through the backend and the real transport.
private func respond(_ backend: GeminiBackend, _ request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
    await backend.startConversation().respond(to: request)
}

private func prompt(_ text: String, reasoning: ReasoningLevel = .none) -> ModelRequest {
    ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: text)], options: GenerationOptions(),
                 reasoning: reasoning, timeoutSeconds: 10)
}

/// A one-backend run through the Runner, as FakeServerRunTests does for OpenAI.
private func run(_ gemini: GeminiBackend, cases: [EvalCase], reasoning: [ReasoningLevel] = [.none],
                 retries: Int = 0) async throws -> [RequestResult] {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-gemini-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: ["gem": gemini], store: store, concurrency: 1, timeoutSeconds: 10,
                        retryPolicy: RetryPolicy(maxRetries: retries, baseDelaySeconds: 0.01, maxDelaySeconds: 0.05))
    let suite = Suite(name: "s", file: "s.json", cases: cases)
    await runner.run(Planner.plan([suite], PlanSelection(backends: ["gem"], reasoning: reasoning)), availability: ["gem": .available])
    try store.close()
    let lines = try String(contentsOf: out.appendingPathComponent("results.jsonl"), encoding: .utf8)
    #expect(!lines.contains(secret), "the API key must never reach results")
    return store.all().sorted { ($0.caseID, $0.turn, $0.reasoning) < ($1.caseID, $1.turn, $1.reasoning) }
}

private func oneCase(_ id: String = "a", expect: [Assertion] = []) -> EvalCase {
    EvalCase(id: id, turns: [Turn(prompt: "x", expect: expect)])
}

@Suite("Gemini backend: mapping and configuration")
struct GeminiBackendMappingTests {
    let gemini = GeminiBackend(name: "gem", model: "models/gemini-2.5-flash", apiKey: "k", concurrency: 1,
                               reasoningOverrides: [
                                   "light": ReasoningOverride(effort: "MINIMAL"),
                                   "moderate": ReasoningOverride(thinkingBudget: 2048),
                                   "deep": ReasoningOverride(extraBody: ["safetySettings": .array([])]),
                               ],
                               transport: URLSessionStreamTransport())

    @Test("reasoningSupport says exactly what is sent for each level")
    func defaultDescriptions() {
        let plain = GeminiBackend(name: "gem", model: "gemini-3-flash", apiKey: "k", concurrency: 1, transport: URLSessionStreamTransport())
        #expect(plain.reasoningSupport(.none) == .supported("thinkingConfig.thinkingBudget: 0"))
        #expect(plain.reasoningSupport(.light) == .supported(#"thinkingConfig.thinkingLevel: "LOW", includeThoughts: true"#))
        #expect(plain.reasoningSupport(.moderate) == .supported(#"thinkingConfig.thinkingLevel: "MEDIUM", includeThoughts: true"#))
        #expect(plain.reasoningSupport(.deep) == .supported(#"thinkingConfig.thinkingLevel: "HIGH", includeThoughts: true"#))
    }

    @Test("overrides change the description: effort, budget, extra body fields, unsupported")
    func overrideDescriptions() {
        #expect(gemini.reasoningSupport(.light) == .supported(#"thinkingConfig.thinkingLevel: "MINIMAL", includeThoughts: true"#))
        #expect(gemini.reasoningSupport(.moderate) == .supported("thinkingConfig.thinkingBudget: 2048, includeThoughts: true"))
        #expect(gemini.reasoningSupport(.deep) == .supported(#"thinkingConfig.thinkingLevel: "HIGH", includeThoughts: true; extraBody {"safetySettings":[]}"#))
        let limited = GeminiBackend(name: "gem", model: "gemini-2.0-flash", apiKey: "k", concurrency: 1,
                                    reasoningOverrides: ["deep": ReasoningOverride(unsupported: "gemini-2.0-flash does not think")],
                                    transport: URLSessionStreamTransport())
        #expect(limited.reasoningSupport(.deep) == .unsupported("gemini-2.0-flash does not think"))
    }

    @Test("the URL adds /v1beta to a bare baseURL, keeps a version segment, and drops a models/ prefix")
    func urls() {
        #expect(gemini.streamURL.absoluteString
            == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        let proxied = GeminiBackend(name: "g", model: "gemini-2.5-pro", baseURL: URL(string: "https://proxy.example/google/v1/")!,
                                    apiKey: nil, concurrency: 1, transport: URLSessionStreamTransport())
        #expect(proxied.streamURL.absoluteString == "https://proxy.example/google/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
    }

    @Test("the gemini kind makes a backend from its config: default baseURL and key variable, per-backend timeout")
    func factory() throws {
        let context = BackendContext(environment: ["GEMINI_API_KEY": "k1", "OTHER_KEY": "k2"], transport: URLSessionStreamTransport(),
                                     logDirectory: FileManager.default.temporaryDirectory, defaultConcurrency: 3)
        let made = try #require(try BackendConfig(name: "g", model: "gemini-2.5-flash", options: GeminiKind())
                                                         .makeBackend(context: context) as? GeminiBackend)
        #expect(made.baseURL == GeminiBackend.defaultBaseURL)
        #expect(made.apiKey == "k1")
        #expect(made.concurrency == 3)
        let other = try #require(try BackendConfig(name: "g", model: "m", timeoutSeconds: 7, options: GeminiKind(apiKeyEnv: "OTHER_KEY"))
                                                           .makeBackend(context: context) as? GeminiBackend)
        #expect(other.apiKey == "k2")
        let http = try other.httpRequest(for: prompt("hi"))
        #expect(http.timeoutSeconds == 7)
        #expect(http.headers["x-goog-api-key"] == "k2")
        #expect(!http.url.absoluteString.contains("k2"))
    }

    @Test("with no key in the environment the backend is unavailable and says which variable to set")
    func missingKey() async {
        let keyless = GeminiBackend(name: "gem", model: "m", apiKey: nil, concurrency: 1, transport: URLSessionStreamTransport())
        guard case let .unavailable(reason) = await keyless.prepare() else {
            Issue.record("expected unavailable")
            return
        }
        #expect(reason.contains("GEMINI_API_KEY"))
    }
}

extension LoopbackNetworkTests {
    @Suite("Gemini backend against FakeGeminiServer")
    struct GeminiBackendTests {
        @Test("the request: URL, key in the header only, systemInstruction, multi-turn roles and generationConfig")
        func requestShape() async throws {
            let server = try startedServer([.init(steps: [.text("Kyoto")])])
            defer { server.stop() }
            let gemini = backend(server, headers: ["X-Trace": "t1"])
            let request = ModelRequest(
                instructions: "Answer briefly.",
                messages: [ChatMessage(role: .user, content: "Plan a day"), ChatMessage(role: .assistant, content: "Temples"),
                           ChatMessage(role: .user, content: "Where?")],
                options: GenerationOptions(temperature: 0.2, maxOutputTokens: 64, topP: 0.9, seed: 7, stop: ["END"]),
                reasoning: .none, timeoutSeconds: 10)
            let response = try await respond(gemini, request).get()
            #expect(response.text == "Kyoto")
            let received = try #require(server.requests.first)
            #expect(received.http.method == "POST")
            #expect(received.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent")
            #expect(received.query == "alt=sse")
            #expect(received.apiKey == secret)
            #expect(!received.http.path.contains(secret), "the key is never in the URL")
            #expect(received.http.headers["x-trace"] == "t1", "config headers are sent")
            #expect(received.http.headers["content-type"] == "application/json")
            #expect(received.systemInstruction == "Answer briefly.")
            #expect(received.contents.map(\.role) == ["user", "model", "user"])
            #expect(received.contents.map(\.text) == ["Plan a day", "Temples", "Where?"])
            let config = received.generationConfig
            #expect(config["temperature"] as? Double == 0.2)
            #expect(config["topP"] as? Double == 0.9)
            #expect(config["maxOutputTokens"] as? Int == 64)
            #expect(config["seed"] as? Int == 7)
            #expect(config["stopSequences"] as? [String] == ["END"])
            #expect(received.body["systemInstruction"] != nil && received.body["contents"] != nil)
        }

        @Test("each level's thinkingConfig as received: none → budget 0; light/moderate/deep → LOW/MEDIUM/HIGH with thoughts")
        func levelMapping() async throws {
            let server = try startedServer([.init(steps: [.text("ok")])])
            defer { server.stop() }
            let gemini = backend(server)
            for level in ReasoningLevel.allCases {
                _ = try await respond(gemini, prompt("x", reasoning: level)).get()
            }
            let received = server.requests.map(\.thinkingConfig)
            #expect(received.count == 4)
            #expect(received[0]["thinkingBudget"] as? Int == 0)
            #expect(received[0]["thinkingLevel"] == nil)
            #expect(received[0]["includeThoughts"] == nil)
            for (index, name) in [(1, "LOW"), (2, "MEDIUM"), (3, "HIGH")] {
                #expect(received[index]["thinkingLevel"] as? String == name)
                #expect(received[index]["thinkingBudget"] == nil, "the API rejects a level and a budget together")
                #expect(received[index]["includeThoughts"] as? Bool == true)
            }
        }

        @Test("overrides as received: effort replaces the level, a budget replaces it, extra bodies merge deeply")
        func overrides() async throws {
            let server = try startedServer([.init(steps: [.text("ok")])])
            defer { server.stop() }
            let gemini = backend(server, overrides: [
                "none": ReasoningOverride(effort: "MINIMAL"),
                "light": ReasoningOverride(thinkingBudget: 1024),
                "deep": ReasoningOverride(extraBody: [
                    "generationConfig": .object(["thinkingConfig": .object(["includeThoughts": .bool(false)])]),
                    "cachedContent": .string("cachedContents/abc"),
                ]),
            ], extraBody: ["generationConfig": .object(["topK": .number(40)]), "labels": .object(["team": .string("evals")])])
            for level in [ReasoningLevel.none, .light, .deep] {
                _ = try await respond(gemini, prompt("x", reasoning: level)).get()
            }
            let received = server.requests
            #expect(received.count == 3)
            #expect(received[0].thinkingConfig["thinkingLevel"] as? String == "MINIMAL")
            #expect(received[0].thinkingConfig["thinkingBudget"] == nil)
            #expect(received[1].thinkingConfig["thinkingBudget"] as? Int == 1024)
            #expect(received[1].thinkingConfig["thinkingLevel"] == nil)
            #expect(received[1].thinkingConfig["includeThoughts"] as? Bool == true)
            for request in received {
                #expect(request.generationConfig["topK"] as? Int == 40, "config extraBody adds to generationConfig")
                #expect((request.body["labels"] as? [String: Any])?["team"] as? String == "evals")
            }
            let deep = received[2]
            #expect(deep.thinkingConfig["thinkingLevel"] as? String == "HIGH", "the level's extraBody merges into thinkingConfig")
            #expect(deep.thinkingConfig["includeThoughts"] as? Bool == false, "the level's extraBody is merged last")
            #expect(deep.body["cachedContent"] as? String == "cachedContents/abc")
            #expect(received[0].body["cachedContent"] == nil, "a level's extraBody applies to that level only")
        }

        @Test("a streamed answer through the real transport: thought then text, usage with 900 of 1,000 cached")
        func streamedAnswer() async throws {
            let server = try startedServer([.init(
                modelVersion: "gemini-2.5-flash-002",
                steps: [.thought("Considering", afterMs: 20), .text("Pa", afterMs: 60), .text("ris")],
                usage: .init(promptTokenCount: 1000, cachedContentTokenCount: 900, candidatesTokenCount: 3, thoughtsTokenCount: 50))])
            defer { server.stop() }
            let response = try await respond(backend(server), prompt("Capital of France?", reasoning: .light)).get()
            #expect(response.text == "Paris")
            #expect(response.reasoningText == "Considering")
            #expect(response.model == "gemini-2.5-flash-002")
            #expect(response.usage == Usage(inputTokens: 1000, cachedInputTokens: 900, outputTokens: 53, reasoningTokens: 50, source: .reported))
            #expect(response.usage.cacheHitRatio == 0.9)
            let ttft = try #require(response.timing.ttftMs)
            let ttfa = try #require(response.timing.ttfaMs)
            #expect(ttft >= 20, "the thought cannot arrive before its scripted 20 ms")
            #expect(ttfa >= 80, "the answer cannot arrive before its scripted 20 + 60 ms")
            #expect(ttft < ttfa)
        }

        @Test("503 overloaded is retried and then succeeds; attempts are recorded")
        func overloadedThenSuccess() async throws {
            let server = try startedServer([.init(fault: .overloaded), .init(steps: [.text("ok")])])
            defer { server.stop() }
            let results = try await run(backend(server), cases: [oneCase()], retries: 2)
            #expect(results.first?.status == .pass)
            #expect(results.first?.attempts == 2)
            #expect(server.requests.count == 2)
        }

        @Test("a per-minute 429 is retried after its retryDelay; a per-day quota is not retried")
        func rateLimitVersusQuota() async throws {
            let limited = try startedServer([.init(fault: .rateLimited(retryDelay: "0.05s")), .init(steps: [.text("ok")])])
            defer { limited.stop() }
            let retried = try await run(backend(limited), cases: [oneCase()], retries: 2)
            #expect(retried.first?.status == .pass)
            #expect(retried.first?.attempts == 2)
            #expect(limited.requests.count == 2)

            let exhausted = try startedServer([.init(fault: .dailyQuotaExhausted), .init(steps: [.text("ok")])])
            defer { exhausted.stop() }
            let failed = try await run(backend(exhausted), cases: [oneCase()], retries: 2)
            #expect(failed.first?.status == .error)
            #expect(failed.first?.errorKind == .quotaExhausted)
            #expect(exhausted.requests.count == 1)
        }

        @Test("guardrails, a bad key, context overflow and stream faults are classified, and not-retryable ones are sent once")
        func faults() async throws {
            let scripts: [(String, FakeGeminiServer.Script, ErrorKind, Int)] = [
                ("safety", .init(steps: [.text("partial")], finishReason: "SAFETY"), .guardrail, 1),
                ("blocked", .init(blockReason: "PROHIBITED_CONTENT"), .guardrail, 1),
                ("auth", .init(fault: .invalidAPIKey), .auth, 1),
                ("context", .init(fault: .inputTooLong()), .contextOverflow, 1),
                ("error-event", .init(steps: [.text("a"), .text("b")],
                                      fault: .errorEventAfter(steps: 1, code: 500, status: "INTERNAL", message: "An internal error has occurred.")), .server, 2),
                ("bare-error", .init(steps: [.text("a")],
                                     fault: .bareErrorAfter(steps: 1, code: 503, status: "UNAVAILABLE", message: "This model is currently experiencing high demand.")), .overloaded, 2),
                ("reset", .init(steps: [.text("a")], fault: .resetAfter(steps: 1)), .network, 2),
                ("cut", .init(steps: [.text("a")], finishReason: nil), .network, 2),
            ]
            for (name, script, kind, requests) in scripts {
                let server = try startedServer([script])
                defer { server.stop() }
                let results = try await run(backend(server), cases: [EvalCase(id: name, turns: [Turn(prompt: "x"), Turn(prompt: "y")])],
                                            retries: 1)
                #expect(results.count == 2)
                #expect(results.first?.status == .error, "\(name)")
                #expect(results.first?.errorKind == kind, "\(name): got \(String(describing: results.first?.errorKind))")
                #expect(results.last?.status == .skipped, "\(name): the turn after an error is skipped")
                #expect(server.requests.count == requests, "\(name): sent \(server.requests.count) times")
                #expect((results.first?.errorMessage ?? "").contains(secret) == false)
            }
        }

        @Test("through EvalRun with a config file: an unsupported level is skipped, the others are sent with the mapping")
        func configuredRun() async throws {
            let server = try startedServer([.init(steps: [.text("Paris")])])
            defer { server.stop() }
            let fixture = try RunFixture("gemini-run", suiteFile: "geo.json", suite: #"""
            {"format": "evalbench.suite/1", "suite": "geo", "instructions": "One word.",
             "cases": [{"id": "capital", "prompt": "Capital of France?", "expect": [{"type": "contains", "value": "Paris"}]}]}
            """#, config: """
            {"backends": [{"name": "gem", "kind": "gemini", "model": "gemini-2.0-flash", "baseURL": "\(server.baseURL.absoluteString)",
                           "apiKeyEnv": "EVALBENCH_TEST_GEMINI_KEY",
                           "extraBody": {"generationConfig": {"topK": 40}},
                           "reasoning": {"deep": {"unsupported": "gemini-2.0-flash has no thinking"},
                                         "light": {"thinkingBudget": 512}}}],
             "defaults": {"retries": 0}}
            """)
            defer { fixture.remove() }
            let out = fixture.directory.appendingPathComponent("out")
            var request = fixture.request()
            request.reasoning = [.none, .light, .deep]
            request.environment = ["EVALBENCH_TEST_GEMINI_KEY": secret]
            let loaded = try EvalRun.load(request)
            let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
            let byLevel = Dictionary(uniqueKeysWithValues: outcome.results.map { ($0.reasoning, $0) })
            #expect(byLevel[.none]?.status == .pass)
            #expect(byLevel[.light]?.status == .pass)
            #expect(byLevel[.deep]?.status == .skipped)
            #expect(byLevel[.deep]?.skipReason == "gemini-2.0-flash has no thinking")
            let received = server.requests
            #expect(received.count == 2, "the skipped level sends nothing")
            // Two levels run concurrently: compare the budgets, not their arrival order.
            #expect(received.compactMap { $0.thinkingConfig["thinkingBudget"] as? Int }.sorted() == [0, 512])
            #expect(received.allSatisfy { $0.generationConfig["topK"] as? Int == 40 })
            #expect(received.allSatisfy { $0.apiKey == secret && $0.systemInstruction == "One word." })
            for file in ["results.jsonl", "run.json", "summary.md"] {
                let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains(secret), "\(file) must not contain the key")
            }
            let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
            #expect(summary.contains("thinkingConfig.thinkingBudget: 512"), "the report prints the mapping")
        }
    }
}
