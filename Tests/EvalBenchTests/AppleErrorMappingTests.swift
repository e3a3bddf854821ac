import Foundation
import Testing
@testable import EvalBench

// Fakes of the framework's error shapes (26.5 interface and the 27 beta's), read by reflection
// exactly as the real ones are on a Mac: same case names, payload field names and nesting.
private struct Context: Sendable { var debugDescription: String }
private struct GenerationContext: @unchecked Sendable {
    var debugDescription: String
    var underlyingErrors: [any Error] = []
}
private struct Refusal: Sendable { var transcriptEntries: [String] = [] }

private enum GenerationError: Error, @unchecked Sendable {
    case exceededContextWindowSize(GenerationContext)
    case assetsUnavailable(GenerationContext)
    case guardrailViolation(GenerationContext)
    case unsupportedGuide(GenerationContext)
    case unsupportedLanguageOrLocale(GenerationContext)
    case decodingFailure(GenerationContext)
    case rateLimited(GenerationContext)
    case concurrentRequests(GenerationContext)
    case refusal(Refusal, GenerationContext)
}

private enum LanguageModelError: Error, Sendable {
    struct ContextSizeExceeded: Sendable { var contextSize: Int; var tokenCount: Int; var debugDescription: String }
    struct RateLimited: Sendable { var resetDate: Date?; var debugDescription: String }
    struct Refusal: Sendable { var explanation: String; var debugDescription: String }
    case contextSizeExceeded(ContextSizeExceeded)
    case rateLimited(RateLimited)
    case refusal(Refusal)
    case timeout(Context)
    case guardrailViolation(Context)
    case unsupportedCapability(Context)
    case unsupportedTranscriptContent(Context)
    case unsupportedGenerationGuide(Context)
    case unsupportedLanguageOrLocale(Context)
    case concurrentRequests
    case transcriptMutationWhileResponding
}

private enum PCCError: Error, Sendable {
    struct QuotaLimitReached: Sendable { var resetDate: Date?; var debugDescription: String }
    case quotaLimitReached(QuotaLimitReached)
    case networkFailure(Context)
    case serviceUnavailable(Context)
}

private let reset = Date(timeIntervalSince1970: 1_900_000_000)
private let c = GenerationContext(debugDescription: "d")
private func nsError(_ domain: String, _ code: Int, wrapping inner: (any Error)? = nil) -> NSError {
    NSError(domain: domain, code: code, userInfo: inner.map { [NSUnderlyingErrorKey: $0] } ?? [:])
}
private let modelManager = "ModelManagerServices.ModelManagerError"

@Suite("Apple framework errors, typed and NSError, mapped in plain Swift")
struct AppleErrorMappingTests {
    @Test("Every typed framework error (26.x GenerationError, 27 LanguageModelError, PCC errors) maps to its kind", arguments: [
        (GenerationError.exceededContextWindowSize(c) as any Error, ErrorKind.contextOverflow),
        (GenerationError.assetsUnavailable(c), .unavailable),
        (GenerationError.guardrailViolation(c), .guardrail),
        (GenerationError.unsupportedGuide(c), .badRequest),
        (GenerationError.unsupportedLanguageOrLocale(c), .badRequest),
        (GenerationError.decodingFailure(c), .decoding),
        (GenerationError.rateLimited(c), .rateLimited),
        (GenerationError.concurrentRequests(c), .overloaded),
        (GenerationError.refusal(Refusal(), c), .refusal),
        (LanguageModelError.contextSizeExceeded(.init(contextSize: 4096, tokenCount: 5000, debugDescription: "d")), .contextOverflow),
        (LanguageModelError.rateLimited(.init(resetDate: nil, debugDescription: "d")), .rateLimited),
        (LanguageModelError.refusal(.init(explanation: "no", debugDescription: "d")), .refusal),
        (LanguageModelError.timeout(Context(debugDescription: "d")), .timeout),
        (LanguageModelError.guardrailViolation(Context(debugDescription: "d")), .guardrail),
        (LanguageModelError.unsupportedCapability(Context(debugDescription: "d")), .badRequest),
        (LanguageModelError.unsupportedTranscriptContent(Context(debugDescription: "d")), .badRequest),
        (LanguageModelError.unsupportedGenerationGuide(Context(debugDescription: "d")), .badRequest),
        (LanguageModelError.unsupportedLanguageOrLocale(Context(debugDescription: "d")), .badRequest),
        (LanguageModelError.concurrentRequests, .overloaded),
        (LanguageModelError.transcriptMutationWhileResponding, .overloaded),
        (PCCError.quotaLimitReached(.init(resetDate: reset, debugDescription: "d")), .quotaExhausted),
        (PCCError.networkFailure(Context(debugDescription: "d")), .network),
        (PCCError.serviceUnavailable(Context(debugDescription: "d")), .network),
    ])
    func typedErrors(error: any Error, kind: ErrorKind) {
        let mapped = AppleThrownError(error).modelError
        #expect(mapped.failure(backend: "b", model: .privateCloudCompute).kind == kind, "\(error) → \(mapped)")
    }

    @Test("NSErrors are walked down their underlying errors: 1046 is a missing entitlement, 1007/1013 the model manager's refusal, content analysis a guardrail", arguments: [
        (nsError("FoundationModels.LanguageModelSession.GenerationError", -1, wrapping: nsError(modelManager, 1046)) as any Error,
         AppleModelError.missingEntitlement(detail: "\(modelManager) 1046: The operation couldn’t be completed. (\(modelManager) error 1046.)"), ErrorKind.unavailable),
        (nsError("FoundationModels.LanguageModelError", -1, wrapping: nsError(modelManager, 1013)), .modelManagerRefused(code: 1013, detail: ""), .unavailable),
        (nsError(modelManager, 1007), .modelManagerRefused(code: 1007, detail: ""), .unavailable),
        (nsError("FoundationModels.LanguageModelError", -1, wrapping: nsError("com.apple.SensitiveContentAnalysisML", 3)),
         .contentBlocked(domain: "com.apple.SensitiveContentAnalysisML"), .guardrail),
        (GenerationError.rateLimited(GenerationContext(debugDescription: "d", underlyingErrors: [nsError("com.apple.SensitiveContentAnalysisML", 1)])),
         .contentBlocked(domain: "com.apple.SensitiveContentAnalysisML"), .guardrail),
        (nsError(NSURLErrorDomain, -1009), .networkFailure, .network),
        (nsError(NSCocoaErrorDomain, 3840), .decodingFailure, .decoding),
        (NSError(domain: "Wrapper", code: 2, userInfo: ["NSMultipleUnderlyingErrorsKey": [nsError("Other", 1), nsError(modelManager, 1046)]]),
         .missingEntitlement(detail: ""), .unavailable),
    ])
    func nsErrors(error: any Error, expected: AppleModelError, kind: ErrorKind) {
        let mapped = AppleThrownError(error).modelError
        switch (mapped, expected) {
        case (.missingEntitlement, .missingEntitlement), (.modelManagerRefused, .modelManagerRefused): break
        default: #expect(mapped == expected)
        }
        if case let .modelManagerRefused(code, _) = expected, case let .modelManagerRefused(got, _) = mapped { #expect(got == code) }
        let failure = mapped.failure(backend: "pcc", model: .privateCloudCompute)
        #expect(failure.kind == kind)
        #expect(!failure.kind.isRetryable || kind == .network, "\(kind) is not retried")
    }

    @Test("A missing entitlement says how to get it; an unknown NSError is a server error that names its domain and code")
    func messages() {
        let entitlement = AppleThrownError(nsError("X", -1, wrapping: nsError(modelManager, 1046))).modelError.failure(backend: "pcc")
        #expect(entitlement.message.contains("com.apple.developer.private-cloud-compute"))
        #expect(entitlement.message.contains("https://developer.apple.com/private-cloud-compute/"))
        #expect(entitlement.message.contains("examples/MacHost"))
        let unknown = AppleThrownError(nsError("Foo", 7)).modelError
        #expect(unknown.failure(backend: "d").kind == .server)
        #expect(unknown.failure(backend: "d").message.contains("Foo 7"))
    }

    @Test("A PCC rate limit with a reset date, or while the quota reads spent, is quota_exhausted with the reset as its retry time; on the device it stays rate_limited")
    func quotaRateLimit() throws {
        let now = Date(timeIntervalSince1970: 1_899_996_400)
        let limited = AppleThrownError(LanguageModelError.rateLimited(.init(resetDate: reset, debugDescription: "d"))).modelError
        #expect(limited == .rateLimited(resetDate: reset), "the payload's resetDate is kept")
        let pcc = limited.failure(backend: "pcc", model: .privateCloudCompute, quota: AppleQuotaReading(state: .belowLimit), now: now)
        #expect(pcc.kind == .quotaExhausted && !pcc.kind.isRetryable)
        #expect(pcc.retryAfterSeconds == 3600)
        #expect(pcc.details?.quota == AppleQuotaReading(state: .limitReached, resetDate: reset))
        #expect(pcc.message.contains("2030-03-17T17:46:40Z"))
        let device = limited.failure(backend: "d", model: .onDevice, now: now)
        #expect(device.kind == .rateLimited && device.retryAfterSeconds == 3600)

        let noDate = AppleModelError.rateLimited(resetDate: nil)
        #expect(noDate.failure(backend: "pcc", model: .privateCloudCompute, quota: AppleQuotaReading(state: .belowLimit)).kind == .rateLimited,
                "a passing limit while the quota is healthy is retried")
        let spent = noDate.failure(backend: "pcc", model: .privateCloudCompute, quota: AppleQuotaReading(state: .limitReached, resetDate: reset), now: now)
        #expect(spent.kind == .quotaExhausted && spent.retryAfterSeconds == 3600)
        let again = noDate.failure(backend: "pcc", model: .privateCloudCompute, quota: AppleQuotaReading(state: .belowLimit), rateLimitsInARow: 2)
        #expect(again.kind == .quotaExhausted && again.message.contains("2 times with no request served"),
                "a second rate limit with nothing served between is the quota, however healthy quotaUsage reads")
        #expect(noDate.failure(backend: "d", model: .onDevice, rateLimitsInARow: 5).kind == .rateLimited)
        let quota = AppleModelError.quotaLimitReached(resetDate: reset).failure(backend: "pcc", model: .privateCloudCompute, now: now)
        #expect(quota.retryAfterSeconds == 3600)
    }

    @Test("The framework file's typed recognition wins, and reflection adds the payload it cannot see")
    func recognisedFirst() {
        let thrown = AppleThrownError(LanguageModelError.rateLimited(.init(resetDate: reset, debugDescription: "d")),
                                      recognise: { _ in .rateLimited(resetDate: nil) })
        #expect(thrown.modelError == .rateLimited(resetDate: reset))
        let overflow = AppleThrownError(LanguageModelError.contextSizeExceeded(.init(contextSize: 8192, tokenCount: 9000, debugDescription: "d")))
        #expect(overflow.modelError == .contextSizeExceeded(contextSize: 8192, tokenCount: 9000))
        #expect(AppleThrownError(LanguageModelError.refusal(.init(explanation: "not that", debugDescription: "d"))).modelError
                == .refusal(explanation: "not that"))
        #expect(AppleModelError.serviceUnavailable.fallsBack && AppleModelError.networkFailure.fallsBack && !AppleModelError.timeout.fallsBack)
    }
}

@Suite("Apple framework errors through the runner")
struct AppleErrorRunTests {
    @Test("A request that fails with ModelManagerError 1046 is unavailable once, not retried as a server error; serviceUnavailable goes to the fallback")
    func entitlementAndServiceErrors() async throws {
        let pcc = FakeAppleDriver(.privateCloudCompute) { request in
            switch request.prompt {
            case "entitled?": FakeAppleDriver.Reply(thrown: nsError("FoundationModels.LanguageModelError", -1, wrapping: nsError(modelManager, 1046)))
            case "blocked": FakeAppleDriver.Reply(thrown: nsError("X", -1, wrapping: nsError("com.apple.SensitiveContentAnalysisML", 2)))
            default: FakeAppleDriver.Reply(thrown: PCCError.serviceUnavailable(Context(debugDescription: "down")))
            }
        }
        let device = FakeAppleDriver(.onDevice)
        let backend = appleBackend("pcc", pcc, fallback: appleBackend("device", device))
        let results = try await runApple(["pcc": backend], cases: [
            EvalCase(id: "a", turns: [Turn(prompt: "entitled?")]), EvalCase(id: "b", turns: [Turn(prompt: "blocked")]),
            EvalCase(id: "c", turns: [Turn(prompt: "down")]),
        ], retries: 2)
        #expect(results.map(\.errorKind) == [.unavailable, .guardrail, nil])
        #expect(results[0].attempts == 1 && results[1].attempts == 1)
        #expect(results[0].errorMessage?.contains("com.apple.developer.private-cloud-compute") == true)
        #expect(results[2].output == "answer to down" && results[2].details?.fallback?.backend == "device")
        #expect(pcc.requests.filter { $0.prompt == "entitled?" }.count == 1)
    }

    @Test("PCC rate limits with no reset date while the quota reads healthy: retried once, then quota_exhausted; a served request resets the count")
    func rateLimitStreak() async throws {
        let pcc = FakeAppleDriver(.privateCloudCompute, quota: AppleQuotaReading(state: .belowLimit)) { request in
            request.prompt == "fine" ? .text("ok") : FakeAppleDriver.Reply(thrown: LanguageModelError.rateLimited(.init(resetDate: nil, debugDescription: "d")))
        }
        let backend = appleBackend("pcc", pcc) { $0.concurrency = 1 }
        let results = try await runApple(["pcc": backend], cases: [EvalCase(id: "a", turns: [Turn(prompt: "limited")]),
                                                                  EvalCase(id: "b", turns: [Turn(prompt: "limited too")])], retries: 3)
        #expect(results.map(\.errorKind) == [.quotaExhausted, .quotaExhausted])
        #expect(results.map(\.attempts) == [2, 1], "the first is retried once; the second is the quota at once")
        #expect(results[0].details?.quota?.state == .limitReached)
        _ = backend.rateLimits.record(.rateLimited(resetDate: nil))
        backend.rateLimits.served()
        #expect(backend.rateLimits.record(.rateLimited(resetDate: nil)) == 1)
    }

    @Test("A PCC rate limit with a reset date ends the case as quota_exhausted, not retried, with the reset recorded")
    func quotaThroughRunner() async throws {
        let pcc = FakeAppleDriver(.privateCloudCompute, quota: AppleQuotaReading(state: .belowLimit)) { _ in
            FakeAppleDriver.Reply(thrown: LanguageModelError.rateLimited(.init(resetDate: reset, debugDescription: "limit")))
        }
        let results = try await runApple(["pcc": appleBackend("pcc", pcc)], cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])], retries: 3)
        #expect(results.first?.errorKind == .quotaExhausted)
        #expect(results.first?.attempts == 1)
        #expect(results.first?.details?.quota == AppleQuotaReading(state: .limitReached, resetDate: reset))
        #expect(pcc.requests.count == 1)
    }
}
