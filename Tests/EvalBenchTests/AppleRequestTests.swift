import Foundation
import Testing
@testable import EvalBench

@Suite("Private Cloud Compute without its entitlement")
struct AppleEntitlementTests {
    @Test("Without the entitlement PCC is unavailable here with how to get it, and availability, plan, quota and sessions never make a PCC instance")
    func missingEntitlement() async throws {
        let made = Counter()
        let checker = FakeEntitlements(false)
        let driver = EntitledPCCDriver(checker: checker) { made.increment(); return FakeAppleDriver(.privateCloudCompute) }
        let backend = appleBackend("pcc", driver)
        guard case let .unavailableHere(reason) = await backend.prepare() else { Issue.record("not unavailable here"); return }
        #expect(reason.hasPrefix("pcc: ") && reason.contains("com.apple.developer.private-cloud-compute"))
        #expect(reason.contains("https://developer.apple.com/private-cloud-compute/") && reason.contains("examples/MacHost"))
        #expect(await driver.quota() == nil)
        #expect(await driver.contextSize() == nil)
        #expect(await driver.tokenCount(of: .prompt("x")) == nil)
        let plan = Planner.plan([Suite(name: "s", file: "s.json", cases: [EvalCase(id: "c", turns: [Turn(prompt: "q")])])],
                                PlanSelection(backends: ["pcc"]))
        let fit = await ContextFit.check(plan, backends: [("pcc", backend, nil)])
        #expect(fit.first?.window?.tokens == 32768, "plan still checks against the documented window")
        let conversation = await backend.startConversation()
        let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "q")], options: GenerationOptions())
        guard case let .failure(failure) = await conversation.respond(to: request) else { Issue.record("answered"); return }
        #expect(failure.kind == .unavailable && !failure.kind.isRetryable)
        #expect(made.value == 0, "no PCC driver (so no PrivateCloudComputeLanguageModel) was made")
        #expect(checker.questions.allSatisfy { $0 == "com.apple.developer.private-cloud-compute" } && !checker.questions.isEmpty)
    }

    @Test("With the entitlement, or where the platform cannot tell, the PCC driver is made once and shared")
    func oneInstance() async throws {
        for answer in [true, nil] as [Bool?] {
            let made = Counter()
            let inner = FakeAppleDriver(.privateCloudCompute, contextSize: 32768, quota: AppleQuotaReading(state: .belowLimit))
            let driver = EntitledPCCDriver(checker: FakeEntitlements(answer)) { made.increment(); return inner }
            #expect(await driver.availability() == .available)
            #expect(await driver.contextSize() == 32768)
            _ = await driver.quota()
            _ = await driver.makeSession(instructions: nil, tools: nil)
            _ = await driver.makeSession(instructions: nil, tools: nil)
            #expect(made.value == 1)
            #expect(inner.sessions == 2)
        }
        #if !canImport(Security)
        #expect(ProcessEntitlements().hasEntitlement("com.apple.developer.private-cloud-compute") == nil, "Linux cannot tell")
        #endif
    }

    @Test("On iOS and visionOS the embedded provisioning profile tells when the entitlement cannot be there", arguments: [
        ("<key>com.apple.developer.private-cloud-compute</key><true/>", nil as Bool?),
        ("<key>com.apple.developer.private-cloud-compute</key><false/>", false),
        ("<key>get-task-allow</key><true/>", false),
    ])
    func provisioningProfile(entitlements: String, expected: Bool?) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).mobileprovision")
        defer { try? FileManager.default.removeItem(at: url) }
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>Name</key><string>MacHost</string><key>Entitlements</key><dict>\(entitlements)</dict></dict></plist>
        """
        // A CMS envelope around the property list, as in a real profile.
        try (Data([0x30, 0x82, 0x1F, 0x00, 0x06, 0x09]) + Data(plist.utf8) + Data([0xA0, 0x82, 0x0B])).write(to: url)
        #expect(ProvisioningProfileEntitlements(profile: url).hasEntitlement("com.apple.developer.private-cloud-compute") == expected)
        #expect(ProvisioningProfileEntitlements(profile: nil).hasEntitlement("com.apple.developer.private-cloud-compute") == nil,
                "no profile (an App Store build): nothing can tell")
    }

    @Test("A quota that reads spent (isLimitReached) makes PCC unavailable at prepare, with its reset date")
    func spentQuotaAtPrepare() async {
        let reset = Date(timeIntervalSince1970: 1_900_000_000)
        let pcc = FakeAppleDriver(.privateCloudCompute, quota: AppleQuotaReading(state: .limitReached, resetDate: reset))
        guard case let .unavailable(reason) = await appleBackend("pcc", pcc).prepare() else { Issue.record("not unavailable"); return }
        #expect(reason.contains("isLimitReached") && reason.contains("2030-03-17T17:46:40Z"))
        let healthy = FakeAppleDriver(.privateCloudCompute, quota: AppleQuotaReading(state: .approachingLimit))
        #expect(await appleBackend("pcc", healthy).prepare() == .available)
        let device = FakeAppleDriver(.onDevice)
        #expect(await appleBackend("d", device).prepare() == .available)
        #expect(device.callCounts["quota"] == nil, "the on-device model has no quota to read")
    }
}

@Suite("Apple requests match what the report says")
struct AppleRequestTests {
    @Test("A structured PCC case is streamed with its schema and its reasoning level; TTFT comes before the end and tpot is measured")
    func structuredWithLevel() async throws {
        let pcc = FakeAppleDriver(.privateCloudCompute) { _ in
            FakeAppleDriver.Reply([("{", 2), (#"{"label":"ca"}"#, 20), (#"{"label":"cat"}"#, 20)], usage: AppleUsage(inputTokens: 30, outputTokens: 6))
        }
        let schema: JSONValue = .object(["type": .string("object"), "properties": .object(["label": .object(["type": .string("string")])]),
                                         "required": .array([.string("label")])])
        let structured = EvalCase(id: "s", turns: [Turn(prompt: "Classify")], output: StructuredOutput(schema: schema))
        let results = try await runApple(["pcc": appleBackend("pcc", pcc)], cases: [structured], reasoning: [.light])
        let received = try #require(pcc.requests.first)
        #expect(received.options.schema != nil)
        #expect(received.options.reasoningLevel == .light, "the level the report claims is the level sent")
        let result = try #require(results.first)
        #expect(result.output == #"{"label":"cat"}"#)
        let timing = try #require(result.timing)
        #expect(try #require(timing.ttftMs) < #require(timing.latencyMs), "streamed: the first snapshot is not the end")
        #expect(timing.tpotMs(outputTokens: result.usage.outputTokens) != nil)
    }

    @Test("An answer that arrived as one snapshot has no tpot")
    func oneSnapshotNoTPOT() async throws {
        let driver = FakeAppleDriver(.onDevice) { _ in FakeAppleDriver.Reply([("Paris is the capital", 5)], usage: AppleUsage(inputTokens: 9, outputTokens: 5)) }
        let result = try #require(try await runApple(["d": appleBackend("d", driver)], cases: [EvalCase(id: "c", turns: [Turn(prompt: "q")])]).first)
        #expect(result.usage.outputTokens == 5)
        #expect(result.timing?.tpotMs(outputTokens: 5) == nil)
        #expect(RequestTiming(startedAt: Date(), firstTokenMs: 10, endMs: 10).tpotMs(outputTokens: 5) == nil)
        #expect(RequestTiming(startedAt: Date(), firstTokenMs: 10, endMs: 50).tpotMs(outputTokens: 5) == 10)
    }

    @Test("At a stop sequence the answer is cut but the stream drained, so the session's transcript keeps the turn for the next one")
    func stopKeepsHistory() async throws {
        let driver = FakeAppleDriver(.onDevice) { request in
            request.prompt == "one" ? FakeAppleDriver.Reply([("Paris\n", 1), ("Paris\nand more", 30)]) : .text("Cairo")
        }
        let chat = EvalCase(id: "chat", options: GenerationOptions(stop: ["\n"]), turns: [Turn(prompt: "one"), Turn(prompt: "two")])
        let results = try await runApple(["d": appleBackend("d", driver)], cases: [chat])
        #expect(results.map(\.output) == ["Paris", "Cairo"])
        #expect(results.first?.finishReason == "stop")
        #expect(driver.requests.map(\.transcript) == [[], ["one"]], "a cancelled first turn would have been reverted")
    }

    @Test("Usage is the change in the session's usage across each request; an all-zero early snapshot is not a report")
    func usageIsTheSessionChange() async throws {
        let driver = FakeAppleDriver(.onDevice, tokensPerCharacter: 0.25, sessionUsage: true) { request in
            switch request.prompt {
            case "one": FakeAppleDriver.Reply([("A", 5), ("Answer", 5)], usage: AppleUsage(inputTokens: 50, cachedInputTokens: 0, outputTokens: 3, reasoningTokens: 0), zeroUsageEarly: true)
            case "two": FakeAppleDriver.Reply([("B", 5), ("Bnswer", 5)], usage: AppleUsage(inputTokens: 60, cachedInputTokens: 50, outputTokens: 4, reasoningTokens: 0), zeroUsageEarly: true)
            default: FakeAppleDriver.Reply([("C", 5)], usage: AppleUsage(inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0))
            }
        }
        let chat = EvalCase(id: "chat", turns: [Turn(prompt: "one"), Turn(prompt: "two"), Turn(prompt: "three")])
        let results = try await runApple(["d": appleBackend("d", driver)], cases: [chat])
        #expect(results[0].usage == Usage(inputTokens: 50, cachedInputTokens: 0, outputTokens: 3, reasoningTokens: 0, source: .reported))
        #expect(results[1].usage == Usage(inputTokens: 60, cachedInputTokens: 50, outputTokens: 4, reasoningTokens: 0, source: .reported),
                "this request's share, not the session's total")
        #expect(results[2].usage.source == .counted, "an all-zero usage says nothing: counted instead of reported as 0")
    }
}

private final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
