import Foundation
import Testing
@testable import EvalBench

@Suite("Apple backends through a fake of the framework")
struct AppleBackendTests {
    @Test("Platform limits make a backend unavailable here; settings and downloads make it unavailable", arguments: [
        (AppleUnavailableReason.frameworkMissing(platform: "Linux"), true, "FoundationModels is not available on Linux"),
        (.operatingSystemTooOld(needs: "macOS 27"), true, "Private Cloud Compute needs macOS 27"),
        (.compilerTooOld, true, "without the OS 27 SDK"),
        (.deviceNotEligible, true, "not eligible for Apple Intelligence"),
        (.appleIntelligenceNotEnabled, false, "turn it on in Settings"),
        (.modelNotReady, false, "still be downloading"),
        (.other("reason 9"), false, "reason 9"),
    ])
    func availabilityReasons(reason: AppleUnavailableReason, platformLimit: Bool, phrase: String) {
        let availability = AppleAvailability.unavailable(reason).availability(for: .privateCloudCompute, backend: "pcc")
        switch availability {
        case let .unavailableHere(message):
            #expect(platformLimit)
            #expect(message.hasPrefix("pcc: ") && message.contains(phrase), "\(message)")
        case let .unavailable(message):
            #expect(!platformLimit)
            #expect(message.hasPrefix("pcc: ") && message.contains(phrase), "\(message)")
        case .available:
            Issue.record("an unavailable reason mapped to available")
        }
        #expect(AppleAvailability.available.availability(for: .onDevice, backend: "d") == .available)
    }

    @Test("Every framework error maps to DESIGN.md's error kind", arguments: [
        (AppleModelError.contextSizeExceeded(contextSize: 4096, tokenCount: 5000), ErrorKind.contextOverflow),
        (.contextSizeExceeded(contextSize: nil, tokenCount: nil), .contextOverflow),
        (.assetsUnavailable, .unavailable),
        (.guardrailViolation, .guardrail),
        (.unsupportedGuide, .badRequest),
        (.unsupportedLanguageOrLocale, .badRequest),
        (.decodingFailure, .decoding),
        (.rateLimited(resetDate: nil), .rateLimited),
        (.rateLimited(resetDate: Date(timeIntervalSince1970: 1_900_000_000)), .rateLimited),
        (.contentBlocked(domain: "com.apple.SensitiveContentAnalysisML"), .guardrail),
        (.unsupportedCapability, .badRequest),
        (.unsupportedTranscriptContent, .badRequest),
        (.serviceUnavailable, .network),
        (.missingEntitlement(detail: "ModelManagerError 1046"), .unavailable),
        (.modelManagerRefused(code: 1007, detail: "x"), .unavailable),
        (.concurrentRequests, .overloaded),
        (.refusal(explanation: "not that"), .refusal),
        (.timeout, .timeout),
        (.quotaLimitReached(resetDate: nil), .quotaExhausted),
        (.networkFailure, .network),
        (.unavailable("no framework"), .unavailable),
        (.unknown("new case"), .server),
    ])
    func errorKinds(error: AppleModelError, kind: ErrorKind) {
        let failure = error.failure(backend: "b")
        #expect(failure.kind == kind)
        #expect(failure.message.hasPrefix("b: "))
    }

    @Test("Context overflow names the window and the token count; a spent quota names its reset date and records limit_reached")
    func errorMessages() throws {
        let overflow = AppleModelError.contextSizeExceeded(contextSize: 4096, tokenCount: 5210).failure(backend: "d")
        #expect(overflow.message.contains("5210 tokens") && overflow.message.contains("4096-token context window"))
        let reset = Date(timeIntervalSince1970: 1_900_000_000)
        let healthyReading = AppleQuotaReading(state: .belowLimit)
        let quota = AppleModelError.quotaLimitReached(resetDate: reset).failure(backend: "p", quota: healthyReading)
        #expect(quota.message.contains("2030-03-17T17:46:40Z"))
        #expect(quota.details?.quota == AppleQuotaReading(state: .limitReached, resetDate: reset),
                "the error wins over a reading that still says below the limit")
        #expect(AppleModelError.quotaLimitReached(resetDate: nil).failure(backend: "p").message.contains("reset date is unknown"))
        #expect(!ErrorKind.quotaExhausted.isRetryable && !ErrorKind.contextOverflow.isRetryable && ErrorKind.rateLimited.isRetryable)
    }

    @Test("Cumulative snapshots: empty and \"null\" first snapshots are not tokens, deltas are the new text, a stop sequence cuts")
    func snapshots() {
        let stopwatch = Stopwatch()
        let base = DispatchTime.now().uptimeNanoseconds
        var reader = SnapshotStreamReader(stopwatch: stopwatch)
        #expect(reader.consume(AppleSnapshot(content: ""), atNanos: base + 1_000_000) == "")
        #expect(reader.consume(AppleSnapshot(content: "null"), atNanos: base + 2_000_000) == "")
        #expect(reader.consume(AppleSnapshot(content: "Par"), atNanos: base + 3_000_000) == "Par")
        #expect(reader.consume(AppleSnapshot(content: "Paris"), atNanos: base + 4_000_000) == "is")
        let timing = reader.timing()
        #expect(reader.text == "Paris")
        #expect(timing.firstTokenMs.map { $0 >= 3 && $0 < 4 } == true, "first token is the first real snapshot, not the empty or null one")
        #expect(timing.firstAnswerTokenMs == timing.firstTokenMs, "no reasoning text: first token is first answer token")

        var literalNull = SnapshotStreamReader(stopwatch: stopwatch)
        literalNull.consume(AppleSnapshot(content: "null"), atNanos: base + 2_000_000)
        #expect(literalNull.timing().firstTokenMs != nil, "an answer that is the text null still has a first token")

        var stops = SnapshotStreamReader(stopwatch: stopwatch, stopSequences: ["\n"])
        stops.consume(AppleSnapshot(content: "Paris\nand more"), atNanos: base)
        #expect(stops.text == "Paris" && stops.stopped)
    }

    @Test("Case options become GenerationOptions: temperature 0 is greedy, topP and seed sample, maxOutputTokens caps")
    func options() {
        let greedy = AppleGenerationRequest(GenerationOptions(temperature: 0, maxOutputTokens: 16), reasoningLevel: nil, schema: nil)
        #expect(greedy.sampling == .greedy && greedy.temperature == nil && greedy.maximumResponseTokens == 16)
        let warm = AppleGenerationRequest(GenerationOptions(temperature: 0.7), reasoningLevel: .deep, schema: nil)
        #expect(warm.sampling == nil && warm.temperature == 0.7 && warm.reasoningLevel == .deep)
        let seeded = AppleGenerationRequest(GenerationOptions(temperature: 0.5, topP: 0.9, seed: 7), reasoningLevel: nil, schema: nil)
        #expect(seeded.sampling == .random(probabilityThreshold: 0.9, seed: 7))
        #expect(AppleGenerationRequest(GenerationOptions(), reasoningLevel: nil, schema: nil) == AppleGenerationRequest())
    }

    @Test("The JSON Schema subset converts to a DynamicGenerationSchema description; anything else is refused with its path")
    func schemas() throws {
        let json: JSONValue = .object([
            "type": .string("object"),
            "properties": .object([
                "label": .object(["type": .string("string"), "enum": .array([.string("cat"), .string("dog")]),
                                  "description": .string("the animal")]),
                "count": .object(["type": .string("integer")]),
                "tags": .object(["type": .string("array"), "items": .object(["type": .string("string")]), "maxItems": .number(3)]),
            ]),
            "required": .array([.string("label")]),
        ])
        let schema = try AppleSchema(jsonSchema: json)
        guard case let .object(name, _, properties) = schema else { Issue.record("not an object"); return }
        #expect(name == "Output")
        #expect(properties.map(\.name) == ["count", "label", "tags"])
        #expect(properties.map(\.isOptional) == [true, false, true])
        #expect(properties[1].schema == .string(description: "the animal", choices: ["cat", "dog"]))
        #expect(properties[1].description == "the animal")
        #expect(properties[2].schema == .array(of: .string(description: nil, choices: nil), minimumElements: nil, maximumElements: 3))

        let pattern: JSONValue = .object(["type": .string("object"), "properties": .object([
            "code": .object(["type": .string("string"), "pattern": .string("^[A-Z]+$")])])])
        #expect(throws: AppleSchema.ConversionError(path: "$.properties.code.pattern", message: "\"pattern\" is not supported on type string here")) {
            try AppleSchema(jsonSchema: pattern)
        }
        #expect(throws: AppleSchema.ConversionError.self) { try AppleSchema(jsonSchema: .object(["type": .string("null")])) }
    }

    @Test("Token figures come from the session's usage change, then the last snapshot's, then the model's counter per part, then an estimate; all-zero usage is unknown")
    func tokenSources() async {
        let request = ModelRequest(instructions: "Be brief.", messages: [ChatMessage(role: .user, content: "12345678")],
                                   options: GenerationOptions())
        let counter = FakeAppleDriver(.onDevice, tokensPerCharacter: 0.5)
        let sessionChange = AppleTokenAccounting.Reported(
            sessionBefore: AppleUsage(inputTokens: 100, cachedInputTokens: 60, outputTokens: 20, reasoningTokens: 0),
            sessionAfter: AppleUsage(inputTokens: 140, cachedInputTokens: 92, outputTokens: 25, reasoningTokens: 0),
            snapshot: AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0))
        let reported = await AppleTokenAccounting.usage(sessionChange, request: request, schema: nil, output: "x", counter: counter)
        #expect(reported == Usage(inputTokens: 40, cachedInputTokens: 32, outputTokens: 5, reasoningTokens: 0, source: .reported))
        // A negative reading leaves its figure unknown and says why, as other backends' notes do.
        let negative = AppleTokenAccounting.Reported(
            sessionBefore: AppleUsage(inputTokens: -4, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0),
            sessionAfter: AppleUsage(inputTokens: 140, cachedInputTokens: 92, outputTokens: 25, reasoningTokens: 0))
        let flagged = await AppleTokenAccounting.usage(negative, request: request, schema: nil, output: "x", counter: counter)
        #expect(flagged.inputTokens == nil && flagged.outputTokens == 5)
        #expect(flagged.suspect == "session usage before the request: input_tokens -4 is negative", "\(flagged)")

        let snapshotOnly = AppleTokenAccounting.Reported(snapshot: AppleUsage(inputTokens: 12, outputTokens: 2))
        #expect(await AppleTokenAccounting.usage(snapshotOnly, request: request, schema: nil, output: "x", counter: counter)
                == Usage(inputTokens: 12, outputTokens: 2, source: .reported))

        let zeros = AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0)
        let allZero = AppleTokenAccounting.Reported(sessionBefore: zeros, sessionAfter: zeros, snapshot: zeros)
        let counted = await AppleTokenAccounting.usage(allZero, request: request, schema: .string(description: nil, choices: ["a"]),
                                                       output: "1234", counter: counter)
        #expect(counted.source == .counted, "an all-zero usage is not a report")
        #expect(counted.outputTokens == 2 && counted.cachedInputTokens == nil, "a counter cannot see the KV cache: unknown, not 0")
        #expect(counter.countedInputs.prefix(3) == [.instructions("Be brief."), .prompt("12345678"), .schema(.string(description: nil, choices: ["a"]))],
                "instructions, prompts and the schema each go through their own tokenCount(for:) overload")

        let estimated = await AppleTokenAccounting.usage(AppleTokenAccounting.Reported(), request: request, schema: nil,
                                                         output: "Paris", counter: FakeAppleDriver(.onDevice))
        #expect(estimated == Usage(inputTokens: TokenEstimate.tokens(in: "Be brief.\n\n12345678"), outputTokens: 2, source: .estimated))
    }

    @Test("A usage change is per figure: one that went down, is missing on either side or starts negative is unknown")
    func usageChange() {
        let before = AppleUsage(inputTokens: 10, cachedInputTokens: nil, outputTokens: 9, reasoningTokens: 1)
        let after = AppleUsage(inputTokens: 30, cachedInputTokens: 5, outputTokens: 4, reasoningTokens: 3)
        #expect(AppleUsage.change(from: before, to: after) == AppleUsage(inputTokens: 20, cachedInputTokens: nil, outputTokens: nil, reasoningTokens: 2))
        #expect(AppleUsage.change(from: before, to: nil) == nil)
        let impossible = AppleUsage(inputTokens: Int.min, cachedInputTokens: -4, outputTokens: 0, reasoningTokens: 0)
        #expect(AppleUsage.change(from: impossible, to: after) == AppleUsage(inputTokens: nil, cachedInputTokens: nil, outputTokens: 4, reasoningTokens: 3),
                "a change from a negative reading is unknown, and 30 less Int.min does not trap")
        #expect(AppleUsage(inputTokens: 0, outputTokens: 0).isEmpty && !AppleUsage(outputTokens: 1).isEmpty)
    }
}

@Suite("Apple backends end to end on the runner")
struct AppleRunTests {
    @Test("One session per conversation: each turn sends only its prompt, instructions once, sessions cold then reused")
    func sessionReuse() async throws {
        let driver = FakeAppleDriver(.onDevice, tokensPerCharacter: 0.25)
        let backend = appleBackend("device", driver)
        let chat = EvalCase(id: "chat", instructions: "Be brief.", options: GenerationOptions(temperature: 0),
                            turns: [Turn(prompt: "one"), Turn(prompt: "two"), Turn(prompt: "three")])
        let single = EvalCase(id: "single", turns: [Turn(prompt: "alone")])
        let results = try await runApple(["device": backend], cases: [chat, single])
        #expect(results.map(\.status) == [.pass, .pass, .pass, .pass])
        #expect(driver.sessions == 2, "one session per conversation")
        let chatRequests = driver.requests.filter { $0.instructions == "Be brief." }
        #expect(chatRequests.map(\.prompt) == ["one", "two", "three"])
        #expect(Set(chatRequests.map(\.session)).count == 1)
        #expect(chatRequests.allSatisfy { $0.options.sampling == .greedy })
        let chatResults = results.filter { $0.caseID == "chat" }
        #expect(chatResults.map { $0.details?.session } == [.cold, .reused, .reused])
        #expect(chatResults.map(\.output) == ["answer to one", "answer to two", "answer to three"])
        #expect(chatResults.allSatisfy { $0.usage.source == .counted && $0.usage.cachedInputTokens == nil })
        #expect(chatResults[2].usage.inputTokens! > chatResults[0].usage.inputTokens!, "later turns count the history")
        #expect(results.allSatisfy { $0.model == "SystemLanguageModel.default" })
        #expect(results.allSatisfy { $0.details?.quota == nil }, "the on-device model has no quota")
    }

    @Test("prewarm is called on each new session and recorded; TTFT and latency come from the snapshots")
    func prewarmAndTiming() async throws {
        let driver = FakeAppleDriver(.onDevice) { _ in
            FakeAppleDriver.Reply([("", 5), ("null", 5), ("Pa", 20), ("Paris", 20)], usage: AppleUsage(inputTokens: 12, cachedInputTokens: 0, outputTokens: 2))
        }
        let backend = appleBackend("device", driver) { $0.prewarm = true }
        let results = try await runApple(["device": backend], cases: [EvalCase(id: "c", turns: [Turn(prompt: "Capital?")])])
        let result = try #require(results.first)
        #expect(driver.prewarms == 1)
        #expect(result.details?.session == .prewarmed)
        #expect(result.usage == Usage(inputTokens: 12, cachedInputTokens: 0, outputTokens: 2, source: .reported))
        let ttft = try #require(result.timing?.ttftMs)
        let latency = try #require(result.timing?.latencyMs)
        #expect(ttft >= 30, "the empty and null snapshots (10 ms) are not the first token")
        // Timestamps are taken when a snapshot is read, so only the order is certain on a busy machine.
        #expect(latency >= ttft)
    }

    @Test("The on-device model skips levels above none; PCC sends each as a ContextOptions reasoning level")
    func reasoningLevels() async throws {
        let device = FakeAppleDriver(.onDevice)
        let pcc = FakeAppleDriver(.privateCloudCompute)
        let results = try await runApple(["device": appleBackend("device", device), "pcc": appleBackend("pcc", pcc)],
                                         cases: [EvalCase(id: "c", turns: [Turn(prompt: "q")])],
                                         reasoning: [.none, .light, .deep])
        let deviceResults = results.filter { $0.backend == "device" }
        #expect(deviceResults.map(\.status) == [.pass, .skipped, .skipped])
        #expect(deviceResults[1].skipReason == "the on-device system model has no reasoning levels")
        #expect(device.requests.count == 1)
        #expect(pcc.requests.map(\.options.reasoningLevel).sorted { ($0?.rawValue ?? "") < ($1?.rawValue ?? "") } == [nil, .deep, .light])
    }

    @Test("A PCC network failure is answered by the fallback, recorded as a fallback and kept out of PCC's latency; later turns stay there with the history")
    func fallback() async throws {
        let device = FakeAppleDriver(.onDevice)
        let pcc = FakeAppleDriver(.privateCloudCompute, quota: AppleQuotaReading(state: .approachingLimit)) { request in
            request.prompt == "two" ? FakeAppleDriver.Reply(error: .networkFailure) : .text("pcc says \(request.prompt)")
        }
        let fallback = appleBackend("device", device)
        let backend = appleBackend("pcc", pcc, fallback: fallback)
        let chat = EvalCase(id: "chat", instructions: "Be brief.", turns: [Turn(prompt: "one"), Turn(prompt: "two"), Turn(prompt: "three")])
        let results = try await runApple(["pcc": backend], cases: [chat])
        #expect(results.map(\.status) == [.pass, .pass, .pass])
        #expect(results.map(\.output) == ["pcc says one", "answer to two", "answer to three"])
        #expect(results[0].details?.fallback == nil)
        #expect(results[1].details?.fallback?.backend == "device")
        #expect(results[1].details?.fallback?.reason.contains("network failure") == true)
        #expect(results[2].details?.fallback?.backend == "device")
        #expect(pcc.requests.map(\.prompt) == ["one", "two"], "after the fallback the conversation stays on the device")
        let first = try #require(device.requests.first)
        #expect(first.prompt == "two")
        #expect(first.instructions?.contains("User: one\nAssistant: pcc says one") == true, "the fallback session gets the history")
        #expect(results[0].details?.quota?.state == .approachingLimit, "the quota is recorded per request")
        let summary = try #require(RunAggregate(results).groups.first)
        #expect(summary.passed == 1)
        #expect(summary.latencyP50Ms == results[0].timing?.latencyMs, "only PCC's own answer counts in its latency")
        let markdown = try #require(RequestDetailsSection.render(results))
        #expect(markdown.contains("| pcc | approaching_limit 1"))
        #expect(markdown.contains("2 by device"))
    }

    @Test("Without a fallback a PCC network failure is a network error; quota and context overflow end the conversation")
    func failures() async throws {
        let pcc = FakeAppleDriver(.privateCloudCompute) { request in
            switch request.prompt {
            case "net": FakeAppleDriver.Reply([("partial", 1)], error: .networkFailure)
            case "quota": FakeAppleDriver.Reply(error: .quotaLimitReached(resetDate: Date(timeIntervalSince1970: 1_900_000_000)))
            default: FakeAppleDriver.Reply(error: .contextSizeExceeded(contextSize: 32768, tokenCount: 40000))
            }
        }
        let cases = [EvalCase(id: "a", turns: [Turn(prompt: "net")]), EvalCase(id: "b", turns: [Turn(prompt: "quota"), Turn(prompt: "later")]),
                     EvalCase(id: "c", turns: [Turn(prompt: "long")])]
        let results = try await runApple(["pcc": appleBackend("pcc", pcc)], cases: cases, retries: 1)
        #expect(results.map(\.errorKind) == [.network, .quotaExhausted, nil, .contextOverflow])
        #expect(results[0].attempts == 2, "a network failure is retried")
        #expect(results[0].timing?.firstTokenMs != nil, "the timing up to the failure is kept")
        #expect(results[1].attempts == 1 && results[1].details?.quota?.state == .limitReached)
        #expect(results[2].status == .skipped)
        #expect(results[3].errorMessage?.contains("40000 tokens") == true)
        #expect(pcc.requests.filter { $0.prompt == "quota" }.count == 1, "quota errors are not retried")
    }

    @Test("A stream that never ends times out; a schema outside the subset is a bad request sent nowhere")
    func timeoutAndSchema() async throws {
        let driver = FakeAppleDriver(.onDevice) { _ in FakeAppleDriver.Reply([("Par", 1)], hangs: true) }
        let results = try await runApple(["device": appleBackend("device", driver)],
                                         cases: [EvalCase(id: "slow", turns: [Turn(prompt: "q")])], timeoutSeconds: 0.2)
        #expect(results.first?.errorKind == .timeout)
        #expect((results.first?.timing?.latencyMs ?? 0) >= 200)

        let conversation = await appleBackend("device", driver).startConversation()
        let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "q")], options: GenerationOptions(),
                                   output: StructuredOutput(schema: .object(["type": .string("string"), "format": .string("date")])))
        let before = driver.requests.count
        guard case let .failure(failure) = await conversation.respond(to: request) else { Issue.record("expected a failure"); return }
        #expect(failure.kind == .badRequest && failure.message.contains("$.format"))
        #expect(driver.requests.count == before)
    }
}
