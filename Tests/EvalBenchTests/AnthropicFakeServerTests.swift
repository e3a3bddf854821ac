import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private let secretKey = "sk-ant-test-secret-value"

/// A one-backend run of `cases` against FakeAnthropicServer over real loopback sockets,
/// through the production transport and the runner with its retry policy.
private func run(_ server: FakeAnthropicServer, cases: [EvalCase], reasoning: [ReasoningLevel] = [.none],
                 retries: Int = 0, promptCache: Bool = true, extraBody: [String: JSONValue] = [:],
                 overrides: [String: ReasoningOverride] = [:], headers: [String: String] = [:],
                 apiKey: String? = secretKey) async throws -> [RequestResult] {
    let out = PackagePaths.temporaryDirectory("anthropic-fake")
    defer { try? FileManager.default.removeItem(at: out) }
    let backend = AnthropicBackend(name: "claude", model: "claude-test", baseURL: server.baseURL, apiKey: apiKey,
                                   headers: headers, concurrency: 1, promptCache: promptCache, extraBody: extraBody,
                                   reasoning: overrides, transport: URLSessionStreamTransport())
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: ["claude": backend], store: store, concurrency: 1, timeoutSeconds: 10,
                        retryPolicy: RetryPolicy(maxRetries: retries, baseDelaySeconds: 0.01, maxDelaySeconds: 0.05))
    let suite = Suite(name: "s", file: "s.json", cases: cases)
    await runner.run(Planner.plan([suite], PlanSelection(backends: ["claude"], reasoning: reasoning)),
                     availability: ["claude": .available])
    try store.close()
    let lines = try String(contentsOf: out.appendingPathComponent("results.jsonl"), encoding: .utf8)
    #expect(!lines.contains(secretKey), "the API key must never reach results")
    return store.all().sorted { ($0.caseID, $0.reasoning, $0.turn) < ($1.caseID, $1.reasoning, $1.turn) }
}

private func startedServer(_ replies: [FakeAnthropicServer.Script]) throws -> FakeAnthropicServer {
    let server = FakeAnthropicServer(replies: replies)
    try server.start()
    return server
}

private func oneTurn(_ prompt: String = "What is the capital of France?", id: String = "a",
                     instructions: String? = nil, options: GenerationOptions = GenerationOptions()) -> EvalCase {
    EvalCase(id: id, instructions: instructions, options: options, turns: [Turn(prompt: prompt)])
}

private let paris = FakeAnthropicServer.Script(steps: [.text("Paris")],
                                               usage: .init(inputTokens: 12, outputTokens: 2))

extension LoopbackNetworkTests {
    @Suite("Anthropic backend against a scripted Messages server")
    struct AnthropicFakeServerTests {
        @Test("the fake streams Anthropic's wire format: message_start, a thinking block closed by its signature, a text block, message_delta, message_stop; other paths are 404")
        func wireFormat() async throws {
            let server = try startedServer([.init(steps: [.thinking("hm"), .text("Pa"), .text("ris")],
                                                  usage: .init(inputTokens: 3, cacheReadInputTokens: 40, outputTokens: 9))])
            defer { server.stop() }
            var parser = SSEParser()
            var events: [SSEEvent] = []
            for try await event in URLSessionStreamTransport().stream(HTTPStreamRequest(url: server.messagesURL, body: Data("{}".utf8))) {
                if case let .bytes(bytes, _) = event { events += parser.feed(bytes) }
            }
            #expect(events.map { $0.event ?? "" } == [
                "message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
                "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop",
            ])
            #expect(events[4].data.contains("signature_delta"))
            #expect(events[6].data.contains(#""index":1"#))
            #expect(events[0].data.contains(#""cache_read_input_tokens":40"#))
            #expect(events[10].data.contains(#""output_tokens":9"#))
            var status: Int?
            for try await event in URLSessionStreamTransport().stream(HTTPStreamRequest(url: server.baseURL.appendingPathComponent("v1/complete"))) {
                if case let .response(code, _) = event { status = code }
            }
            #expect(status == 404)
        }

        // MARK: Failures and retries

        @Test("a 529 overloaded_error is retried and then succeeds; attempts are recorded")
        func overloadedThenSuccess() async throws {
            let server = try startedServer([.init(fault: .overloaded), paris])
            defer { server.stop() }
            let results = try await run(server, cases: [oneTurn()], retries: 2)
            #expect(results.first?.status == .pass)
            #expect(results.first?.output == "Paris")
            #expect(results.first?.attempts == 2)
            #expect(server.requests.count == 2)
        }

        @Test("a 429 rate_limit_error waits for retry-after before the retry")
        func rateLimitRetryAfter() async throws {
            let server = try startedServer([.init(fault: .rateLimited(retryAfterSeconds: 1)), paris])
            defer { server.stop() }
            let clock = ContinuousClock()
            let started = clock.now
            let results = try await run(server, cases: [oneTurn()], retries: 1)
            #expect(clock.now - started >= .milliseconds(950), "retry-after: 1 must be honoured, not the 10 ms backoff")
            #expect(results.first?.status == .pass)
            #expect(results.first?.attempts == 2)
        }

        @Test("refusal, billing, auth, prompt too long and a mid-stream overloaded_error are classified; the not-retryable ones are sent once")
        func failures() async throws {
            let cases: [(String, FakeAnthropicServer.Script, ErrorKind, Int)] = [
                ("refusal", .init(steps: [.text("I can't")], stopReason: "refusal"), .refusal, 1),
                ("billing", .init(fault: .billing), .quotaExhausted, 1),
                ("auth", .init(fault: .authentication), .auth, 1),
                ("overflow", .init(fault: .promptTooLong()), .contextOverflow, 1),
                ("overloaded-mid-stream", .init(steps: [.text("Pa"), .text("ris")], fault: .overloadedMidStream), .overloaded, 2),
                ("ended-mid-stream", .init(steps: [.text("Pa")], fault: .endAfter(steps: 1)), .network, 2),
                ("reset", .init(steps: [.text("Pa")], fault: .resetAfter(steps: 1)), .network, 2),
            ]
            for (name, script, kind, sent) in cases {
                let server = try startedServer([script])
                defer { server.stop() }
                let evalCase = EvalCase(id: name, turns: [Turn(prompt: "x"), Turn(prompt: "y")])
                let results = try await run(server, cases: [evalCase], retries: 1)
                #expect(results.first?.status == .error, "\(name)")
                #expect(results.first?.errorKind == kind, "\(name): got \(String(describing: results.first?.errorKind))")
                #expect(results.first?.errorMessage?.contains(secretKey) == false)
                #expect(results.last?.status == .skipped, "\(name): the turn after an error is skipped")
                #expect(server.requests.count == sent, "\(name): \(kind.isRetryable ? "retried once" : "not retried")")
            }
        }

        @Test("a member of the wrong kind in message_start, content_block_delta or message_delta is bad_request, sent once, naming it and never its value")
        func mistypedMember() async throws {
            let cases: [(event: String, member: String, said: String)] = [
                ("message_start", "message", "malformed message_start event in the stream: its message is a string where the Messages API sends an object"),
                ("content_block_delta", "delta", "malformed content_block_delta event in the stream: its delta is a string where the Messages API sends an object"),
                ("message_delta", "delta", "malformed message_delta event in the stream: its delta is a string where the Messages API sends an object"),
            ]
            for (event, member, said) in cases {
                // The value echoes the key: the message must carry neither it nor a redaction of it.
                let server = try startedServer([.init(steps: [.text("Paris")], usage: .init(inputTokens: 12, outputTokens: 2),
                                                      fault: .mistypedMember(event: event, member: member, value: "\"\(secretKey)\""))])
                defer { server.stop() }
                let results = try await run(server, cases: [EvalCase(id: event, turns: [Turn(prompt: "x"), Turn(prompt: "y")])], retries: 1)
                let first = try #require(results.first)
                #expect(first.status == .error && first.errorKind == .badRequest, "\(event): \(String(describing: first.errorKind))")
                #expect(first.errorMessage?.hasPrefix("claude: \(said);") == true, "\(String(describing: first.errorMessage))")
                #expect(first.errorMessage?.contains(secretKey) == false && first.errorMessage?.contains("[redacted]") == false)
                #expect(results.last?.status == .skipped, "\(event): the turn after an error is skipped")
                #expect(server.requests.count == 1, "\(event): not retried, since the server would send it the same way")
            }
        }

        @Test("--resume sends again a case run that failed on a malformed event, as it does other malformed responses, and then keeps the answer")
        func resumeSendsMistypedAgain() async throws {
            let server = try startedServer([.init(steps: [.text("Paris")], fault: .mistypedMember(event: "content_block_delta", member: "delta", value: "5")),
                                            paris])
            defer { server.stop() }
            let config = """
            {"backends": [{"name": "claude", "kind": "anthropic", "model": "claude-test", "baseURL": "\(server.baseURL.absoluteString)"}],
             "defaults": {"retries": 0}}
            """
            let suite = """
            {"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "What is the capital of France?",
             "expect": [{"type": "contains", "value": "Paris"}]}]}
            """
            let fixture = try RunFixture("anthropic-resume-mistyped", suite: suite, config: config)
            defer { fixture.remove() }
            let request = fixture.request()
            let first = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
            #expect(first.results.map(\.errorKind) == [.badRequest])
            var resumed = fixture.request()
            resumed.outputDirectory = nil
            resumed.resumeDirectory = first.outputDirectory.path
            let outcome = try await EvalRun.execute(try EvalRun.load(resumed), resumed, transport: URLSessionStreamTransport())
            #expect(outcome.results.map(\.status) == [.pass], "\(outcome.results.map { $0.errorMessage ?? "" })")
            #expect(server.requests.count == 2, "sent again on resume")
        }

        @Test("an error body that echoes the API key is redacted from the message")
        func keyRedacted() async throws {
            let server = try startedServer([.init(fault: .anthropicError(
                status: 401, type: "authentication_error", message: "invalid x-api-key: \(secretKey)"))])
            defer { server.stop() }
            let results = try await run(server, cases: [oneTurn()])
            let message = try #require(results.first?.errorMessage)
            #expect(!message.contains(secretKey))
            #expect(message.contains("[redacted]"))
        }

        // MARK: Usage and timing through the real transport

        @Test("usage from message_start and message_delta is normalised; thinking first makes TTFT < TTFA")
        func usageAndTiming() async throws {
            let server = try startedServer([.init(
                steps: [.thinking("Let me think.", afterMs: 20), .text("Paris", afterMs: 80)],
                usage: .init(inputTokens: 100, cacheCreationInputTokens: 0, cacheReadInputTokens: 900, outputTokens: 31))])
            defer { server.stop() }
            let result = try #require(try await run(server, cases: [oneTurn()]).first)
            #expect(result.status == .pass)
            #expect(result.usage == Usage(inputTokens: 1000, cachedInputTokens: 900, cacheWriteInputTokens: 0,
                                          outputTokens: 31, reasoningTokens: nil, source: .reported))
            #expect(result.usage.cacheHitRatio == 0.9)
            #expect(result.reasoningText == "Let me think.")
            #expect(result.finishReason == "end_turn")
            #expect(result.model == "claude-fake")
            let timing = try #require(result.timing)
            let ttft = try #require(timing.ttftMs)
            let ttfa = try #require(timing.ttfaMs)
            #expect(ttft >= 20)
            // Lower bounds only: a server late with the thinking under load shortens the gap, never the sum.
            #expect(ttfa >= 100, "the answer was scripted 100 ms after the headers")
            #expect(ttfa > ttft, "the thinking came first")
        }

        // MARK: The request the server received

        @Test("headers: x-api-key from the environment, anthropic-version, JSON in and SSE out; config headers merge in")
        func headers() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            _ = try await run(server, cases: [oneTurn()], headers: ["anthropic-beta": "token-efficient-tools-2025-02-19"])
            let received = try #require(server.requests.first)
            #expect(received.http.path == "/v1/messages")
            #expect(received.headers["x-api-key"] == secretKey)
            #expect(received.headers["anthropic-version"] == "2023-06-01")
            #expect(received.headers["content-type"] == "application/json")
            #expect(received.headers["accept"] == "text/event-stream")
            #expect(received.headers["anthropic-beta"] == "token-efficient-tools-2025-02-19")
            #expect(received.headers["authorization"] == nil)

            _ = try await run(server, cases: [oneTurn()], headers: ["Anthropic-Version": "2024-01-01"], apiKey: nil)
            let second = try #require(server.requests.last)
            #expect(second.headers["anthropic-version"] == "2024-01-01", "a configured version replaces the default, whatever its case")
            #expect(second.headers["x-api-key"] == nil, "no key, no header (llama-server needs none)")
        }

        @Test("body: model, max_tokens from the case or 4096, stream, system, stop_sequences, temperature, top_p; no seed")
        func body() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let options = GenerationOptions(temperature: 0, maxOutputTokens: 16, topP: 0.9, seed: 7, stop: ["\n"])
            _ = try await run(server, cases: [oneTurn(instructions: "Answer in one word.", options: options),
                                              oneTurn(id: "b")])
            let requests = server.requests
            try #require(requests.count == 2)
            let body = requests[0].body
            #expect(body["model"] as? String == "claude-test")
            #expect(body["max_tokens"] as? Int == 16)
            #expect(body["stream"] as? Bool == true)
            #expect(body["temperature"] as? Double == 0)
            #expect(body["top_p"] as? Double == 0.9)
            #expect(body["stop_sequences"] as? [String] == ["\n"])
            #expect(body["seed"] == nil, "seed is not an Anthropic field")
            #expect(requests[0].system == "Answer in one word.")
            #expect(requests[1].maxTokens == 4096, "Anthropic requires max_tokens: the documented default")
            #expect(requests[1].body["system"] == nil, "no instructions, no system")
            #expect(requests[1].body["temperature"] == nil)
        }

        @Test("multi-turn cases send the growing history in order, user and assistant alternating")
        func history() async throws {
            let server = FakeAnthropicServer { request in
                .init(steps: [.text("answer \(request.messages.filter { $0.role == "user" }.count)")])
            }
            try server.start()
            defer { server.stop() }
            let evalCase = EvalCase(id: "chat", instructions: "Be brief.",
                                    turns: [Turn(prompt: "one"), Turn(prompt: "two"), Turn(prompt: "three")])
            let results = try await run(server, cases: [evalCase])
            #expect(results.map(\.output) == ["answer 1", "answer 2", "answer 3"])
            let last = try #require(server.requests.last)
            #expect(last.system == "Be brief.")
            #expect(last.messages.map(\.role) == ["user", "assistant", "user", "assistant", "user"])
            #expect(last.messages.map(\.text) == ["one", "answer 1", "two", "answer 2", "three"])
        }

        @Test("promptCache auto: system and the newest message are text blocks, each with one ephemeral breakpoint")
        func cacheControlAuto() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let evalCase = EvalCase(id: "chat", instructions: "Be brief.", turns: [Turn(prompt: "one"), Turn(prompt: "two")])
            _ = try await run(server, cases: [evalCase])
            let body = try #require(server.requests.last?.body)
            let system = try #require(body["system"] as? [[String: Any]])
            #expect(system.count == 1)
            #expect(system[0]["type"] as? String == "text")
            #expect(system[0]["text"] as? String == "Be brief.")
            #expect((system[0]["cache_control"] as? [String: Any])?["type"] as? String == "ephemeral")
            let messages = try #require(body["messages"] as? [[String: Any]])
            try #require(messages.count == 3)
            #expect(messages[0]["content"] as? String == "one", "older messages stay plain strings")
            #expect(messages[1]["content"] as? String == "Paris")
            let newest = try #require(messages[2]["content"] as? [[String: Any]])
            #expect(newest.count == 1)
            #expect(newest[0]["text"] as? String == "two")
            #expect((newest.last?["cache_control"] as? [String: Any])?["type"] as? String == "ephemeral")
        }

        @Test("promptCache off: system and every message are plain strings, with no cache_control anywhere")
        func cacheControlOff() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let evalCase = EvalCase(id: "chat", instructions: "Be brief.", turns: [Turn(prompt: "one"), Turn(prompt: "two")])
            _ = try await run(server, cases: [evalCase], promptCache: false)
            let received = try #require(server.requests.last)
            #expect(received.body["system"] as? String == "Be brief.")
            let messages = try #require(received.body["messages"] as? [[String: Any]])
            #expect(messages.compactMap { $0["content"] as? String } == ["one", "Paris", "two"])
            #expect(!String(decoding: received.http.body, as: UTF8.self).contains("cache_control"))
        }

        @Test("reasoning levels: none disables thinking; light, moderate and deep send adaptive thinking with effort low, medium, high")
        func levels() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let results = try await run(server, cases: [oneTurn(options: GenerationOptions(temperature: 0, topP: 0.5))],
                                        reasoning: [.none, .light, .moderate, .deep])
            #expect(results.count == 4)
            #expect(results.allSatisfy { $0.status == .pass })
            let bodies = server.requests.map(\.body)
            try #require(bodies.count == 4)
            func thinking(_ body: [String: Any]) -> [String: Any]? { body["thinking"] as? [String: Any] }
            func effort(_ body: [String: Any]) -> String? { (body["output_config"] as? [String: Any])?["effort"] as? String }
            // The runner sends levels in plan order; find each by what it carries.
            let none = try #require(bodies.first { thinking($0)?["type"] as? String == "disabled" })
            #expect(effort(none) == nil)
            #expect(none["temperature"] as? Double == 0, "with thinking off the case's temperature is sent")
            let adaptive = bodies.filter { thinking($0)?["type"] as? String == "adaptive" }
            #expect(adaptive.compactMap(effort).sorted() == ["high", "low", "medium"])
            #expect(adaptive.allSatisfy { $0["temperature"] == nil && $0["top_p"] == nil },
                    "Anthropic rejects temperature and top_p < 0.95 with thinking on")
            let backend = AnthropicBackend(name: "claude", model: "m", apiKey: nil, concurrency: 1, transport: URLSessionStreamTransport())
            #expect(backend.reasoningSupport(.none) == .supported("thinking: disabled"))
            #expect(backend.reasoningSupport(.light) == .supported(
                "thinking: adaptive, output_config.effort: \"low\", temperature (unless 1) and top_p below 0.95 not sent"))
        }

        @Test("overrides: effort replaces the effort, thinkingBudget sends enabled thinking with budget_tokens, level extraBody merges after the backend's")
        func overrides() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let overrides: [String: ReasoningOverride] = [
                "light": ReasoningOverride(effort: "medium"),
                "moderate": ReasoningOverride(thinkingBudget: 2048),
                "deep": ReasoningOverride(extraBody: ["metadata": .object(["user_id": .string("deep-run")]),
                                                      "top_k": .number(5)]),
            ]
            let extraBody: [String: JSONValue] = ["metadata": .object(["user_id": .string("all"), "tier": .string("x")]),
                                                  "top_k": .number(40)]
            _ = try await run(server, cases: [oneTurn()], reasoning: [.light, .moderate, .deep],
                              extraBody: extraBody, overrides: overrides)
            let bodies = server.requests.map(\.body)
            try #require(bodies.count == 3)
            func thinking(_ body: [String: Any]) -> [String: Any]? { body["thinking"] as? [String: Any] }
            func effort(_ body: [String: Any]) -> String? { (body["output_config"] as? [String: Any])?["effort"] as? String }

            let budgeted = try #require(bodies.first { thinking($0)?["type"] as? String == "enabled" })
            #expect(thinking(budgeted)?["budget_tokens"] as? Int == 2048)
            #expect(budgeted["output_config"] == nil, "a thinking budget is for models before effort")
            #expect(budgeted["top_k"] as? Int == 40)

            let adaptive = bodies.filter { thinking($0)?["type"] as? String == "adaptive" }
            try #require(adaptive.count == 2)
            let light = try #require(adaptive.first { ($0["top_k"] as? Int) == 40 })
            #expect(effort(light) == "medium", "light's effort was overridden")
            let deep = try #require(adaptive.first { ($0["top_k"] as? Int) == 5 })
            #expect(effort(deep) == "high")
            #expect(deep["metadata"] as? [String: String] == ["user_id": "deep-run", "tier": "x"],
                    "the level's extraBody merges over the backend's, object by object")
            #expect(light["metadata"] as? [String: String] == ["user_id": "all", "tier": "x"])

            let backend = AnthropicBackend(name: "claude", model: "m", apiKey: nil, concurrency: 1,
                                           reasoning: overrides, transport: URLSessionStreamTransport())
            #expect(backend.reasoningSupport(.moderate) == .supported(
                "thinking: enabled, budget_tokens: 2048, temperature (unless 1) and top_p below 0.95 not sent"))
            #expect(backend.reasoningSupport(.light) == .supported(
                "thinking: adaptive, output_config.effort: \"medium\", temperature (unless 1) and top_p below 0.95 not sent"))
        }

        @Test("through evalbench.json and EvalRun: an unsupported level is skipped with its reason, the others are sent")
        func unsupportedLevelThroughEvalRun() async throws {
            let server = try startedServer([paris])
            defer { server.stop() }
            let config = """
            {"backends": [{"name": "claude", "kind": "anthropic", "model": "claude-haiku-3", "baseURL": "\(server.baseURL.absoluteString)",
                           "apiKeyEnv": "EVALBENCH_TEST_ANTHROPIC_KEY",
                           "reasoning": {"deep": {"unsupported": "Claude Haiku 3 cannot think"}}}],
             "defaults": {"retries": 0}}
            """
            let suite = """
            {"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "a", "prompt": "What is the capital of France?",
             "expect": [{"type": "contains", "value": "Paris"}]}]}
            """
            let fixture = try RunFixture("anthropic-config", suite: suite, config: config)
            defer { fixture.remove() }
            var request = fixture.request()
            request.reasoning = [.none, .deep]
            request.environment = ["EVALBENCH_TEST_ANTHROPIC_KEY": secretKey]
            let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
            let deep = try #require(outcome.results.first { $0.reasoning == .deep })
            #expect(deep.status == .skipped)
            #expect(deep.skipReason == "claude: Claude Haiku 3 cannot think")
            let none = try #require(outcome.results.first { $0.reasoning == .none })
            #expect(none.status == .pass)
            #expect(server.requests.count == 1, "nothing is sent for the skipped level")
            #expect(server.requests.first?.headers["x-api-key"] == secretKey)
            let runJSON = try String(contentsOf: fixture.directory.appendingPathComponent("out/run.json"), encoding: .utf8)
            #expect(runJSON.contains("thinking: disabled"), "run.json records the mapping")
            #expect(!runJSON.contains(secretKey))
        }
    }
}
