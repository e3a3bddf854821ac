import Foundation

/// Every error the framework throws, as a plain value: 26.x
/// `LanguageModelSession.GenerationError`, 27.0 `LanguageModelError`,
/// `SystemLanguageModel.Error`, `LanguageModelSession.Error`,
/// `PrivateCloudComputeLanguageModel.Error`, and the plain `NSError`s (ModelManagerError,
/// SensitiveContentAnalysis) they have been seen to wrap. `AppleThrownError` reads a thrown
/// error into this; `failure(backend:model:quota:now:)` maps it to DESIGN.md's error kinds.
package enum AppleModelError: Error, Sendable, Equatable {
    /// `exceededContextWindowSize` (26.x) or `contextSizeExceeded` (27.0, with both numbers).
    case contextSizeExceeded(contextSize: Int?, tokenCount: Int?)
    case assetsUnavailable
    case guardrailViolation
    /// A content-analysis block (a SensitiveContentAnalysis error), named by its domain.
    case contentBlocked(domain: String)
    /// `unsupportedGuide` (26.x) or `unsupportedGenerationGuide` (27.0).
    case unsupportedGuide
    case unsupportedLanguageOrLocale
    /// 27.0 `unsupportedCapability`: the request uses something this model cannot do.
    case unsupportedCapability
    /// 27.0 `unsupportedTranscriptContent`: the session's transcript holds content this model takes not.
    case unsupportedTranscriptContent
    /// `decodingFailure`, or a parsing failure of the structured answer.
    case decodingFailure
    /// `rateLimited`; 27.0 carries `resetDate`, which PCC sets when the daily quota is the limit.
    case rateLimited(resetDate: Date?)
    case concurrentRequests
    case refusal(explanation: String?)
    case timeout
    /// PCC's daily quota is spent; `resetDate` says when it comes back, if known.
    case quotaLimitReached(resetDate: Date?)
    /// PCC could not be reached.
    case networkFailure
    /// 27.0 PCC `serviceUnavailable`: the service is down or refusing requests for now.
    case serviceUnavailable
    /// The process lacks the `com.apple.developer.private-cloud-compute` entitlement
    /// (ModelManagerError 1046), as the framework reported it.
    case missingEntitlement(detail: String)
    /// The model manager refused the request for a reason no retry fixes (ModelManagerError
    /// 1007, 1013), with the framework's description.
    case modelManagerRefused(code: Int, detail: String)
    /// The model cannot be used here, for the reason given.
    case unavailable(String)
    /// A case added to the framework after this version of evalbench.
    case unknown(String)

    /// Whether the configured fallback (an `apple-system` backend) takes the request: PCC could
    /// not be reached, or its service is unavailable; Apple recommends the on-device model then.
    package var fallsBack: Bool {
        self == .networkFailure || self == .serviceUnavailable
    }

    /// The reset date the error carries, if any.
    var resetDate: Date? {
        switch self {
        case let .rateLimited(date), let .quotaLimitReached(date): date
        default: nil
        }
    }
}

extension AppleModelError {
    /// How to get the entitlement, in every message that says it is missing.
    static let entitlementAdvice = "Private Cloud Compute needs the com.apple.developer.private-cloud-compute entitlement, "
        + "which only a signed app (or a test bundle hosted in one) can have: a SwiftPM executable, swift run and swift test never do. "
        + "Request the managed entitlement at https://developer.apple.com/private-cloud-compute/, add it to the app's provisioning profile "
        + "and .entitlements file, and run the suites from the app's hosted tests (examples/MacHost, scripts/mac-evals)"

    /// DESIGN.md's error kind and a message that says what to do. On PCC a rate limit with a
    /// reset date, while the quota reads spent, or the second in a row with nothing served in
    /// between (`rateLimitsInARow`), is the daily quota (`quota_exhausted`, not retried); the
    /// reset date becomes the failure's retry time.
    package func failure(backend: String, model: AppleModel = .onDevice, quota: AppleQuotaReading? = nil,
                         rateLimitsInARow: Int = 1, now: Date = Date()) -> BackendFailure {
        let (kind, message) = classified(model: model, quota: quota, rateLimitsInARow: rateLimitsInARow)
        var failure = BackendFailure(kind: kind, message: "\(backend): \(message)")
        let reset = resetDate ?? (kind == .quotaExhausted ? quota?.resetDate : nil)
        if let reset { failure.retryAfterSeconds = max(0, reset.timeIntervalSince(now)) }
        if kind == .quotaExhausted || quota != nil {
            failure.details = RequestDetails(quota: kind == .quotaExhausted ? quotaAfterFailure(quota) : quota)
        }
        return failure
    }

    /// Whether a rate limit on `model` is PCC's daily quota rather than a passing limit.
    private func isQuota(model: AppleModel, quota: AppleQuotaReading?, rateLimitsInARow: Int) -> Bool {
        guard case let .rateLimited(resetDate) = self, model == .privateCloudCompute else { return false }
        return resetDate != nil || quota?.state == .limitReached || rateLimitsInARow >= 2
    }

    private func classified(model: AppleModel, quota: AppleQuotaReading?, rateLimitsInARow: Int) -> (ErrorKind, String) {
        if isQuota(model: model, quota: quota, rateLimitsInARow: rateLimitsInARow) {
            let reset = (resetDate ?? quota?.resetDate).map { "it resets at \(Self.iso8601($0))" } ?? "its reset date is unknown"
            let why = resetDate != nil || quota?.state == .limitReached ? ""
                : " (rate limited \(rateLimitsInARow) times with no request served in between; the daily quota has been seen to end so while quotaUsage reads healthy)"
            return (.quotaExhausted, "rate limited at the Private Cloud Compute daily quota\(why); \(reset)")
        }
        switch self {
        case let .contextSizeExceeded(contextSize, tokenCount):
            let needs = tokenCount.map { "the request needs \($0) tokens" } ?? "the request does not fit"
            let window = contextSize.map { "the \($0)-token context window" } ?? "the context window"
            return (.contextOverflow, "\(needs), more than \(window); shorten the instructions or history, or lower maxOutputTokens")
        case .assetsUnavailable:
            return (.unavailable, "the model's assets are not on this device (still downloading, or removed to free space)")
        case .guardrailViolation:
            return (.guardrail, "the guardrails stopped the request or its answer")
        case let .contentBlocked(domain):
            return (.guardrail, "content analysis blocked the request or its answer (\(domain))")
        case .unsupportedGuide:
            return (.badRequest, "the output schema uses a generation guide the model does not support")
        case .unsupportedLanguageOrLocale:
            return (.badRequest, "the prompt's language or locale is not supported by the model")
        case .unsupportedCapability:
            return (.badRequest, "the request uses a capability this model does not support (unsupportedCapability)")
        case .unsupportedTranscriptContent:
            return (.badRequest, "the session's transcript holds content this model does not take (unsupportedTranscriptContent)")
        case .decodingFailure:
            return (.decoding, "the structured answer could not be decoded into the output schema")
        case .rateLimited:
            return (.rateLimited, "rate limited by the system; retry later")
        case .concurrentRequests:
            return (.overloaded, "the session was already answering a request (one at a time per session)")
        case let .refusal(explanation):
            return (.refusal, "the model refused" + (explanation.map { ": \($0)" } ?? ""))
        case .timeout:
            return (.timeout, "the framework timed out")
        case let .quotaLimitReached(resetDate):
            let reset = resetDate.map { "it resets at \(Self.iso8601($0))" } ?? "its reset date is unknown"
            return (.quotaExhausted, "the Private Cloud Compute quota is used up; \(reset)")
        case .networkFailure:
            return (.network, "Private Cloud Compute could not be reached (network failure)")
        case .serviceUnavailable:
            return (.network, "the Private Cloud Compute service is unavailable right now (serviceUnavailable)")
        case let .missingEntitlement(detail):
            return (.unavailable, "\(Self.entitlementAdvice) (the framework said: \(detail))")
        case let .modelManagerRefused(code, detail):
            return (.unavailable, "the model manager refused the request (ModelManagerError \(code): \(detail)); "
                + "check that Apple Intelligence is on and its model downloaded, and for PCC that the app has its entitlement")
        case let .unavailable(reason):
            return (.unavailable, reason)
        case let .unknown(description):
            return (.server, "an error this evalbench does not know: \(description)")
        }
    }

    /// The quota once the framework said it is spent, whatever the last reading said (it is
    /// known to read healthy until the limit is hit).
    private func quotaAfterFailure(_ reading: AppleQuotaReading?) -> AppleQuotaReading {
        AppleQuotaReading(state: .limitReached, resetDate: resetDate ?? reading?.resetDate)
    }

    static func iso8601(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
