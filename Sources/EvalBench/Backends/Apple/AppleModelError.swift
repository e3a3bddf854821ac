import Foundation

/// Every error the framework throws, as a plain value: 26.x
/// `LanguageModelSession.GenerationError`, 27.0 `LanguageModelError`,
/// `SystemLanguageModel.Error`, `LanguageModelSession.Error` and
/// `PrivateCloudComputeLanguageModel.Error`. The driver converts; `failure(backend:)` maps.
package enum AppleModelError: Error, Sendable, Equatable {
    /// `exceededContextWindowSize` (26.x) or `contextSizeExceeded` (27.0, with both numbers).
    case contextSizeExceeded(contextSize: Int?, tokenCount: Int?)
    case assetsUnavailable
    case guardrailViolation
    /// `unsupportedGuide` (26.x) or `unsupportedGenerationGuide` (27.0).
    case unsupportedGuide
    case unsupportedLanguageOrLocale
    case decodingFailure
    case rateLimited
    case concurrentRequests
    case refusal(explanation: String?)
    case timeout
    /// PCC's daily quota is spent; `resetDate` says when it comes back, if known.
    case quotaLimitReached(resetDate: Date?)
    /// PCC could not be reached.
    case networkFailure
    /// The model cannot be used here, for the reason given.
    case unavailable(String)
    /// A case added to the framework after this version of evalbench.
    case unknown(String)
}

extension AppleModelError {
    /// DESIGN.md's error kind and a message that says what to do.
    package func failure(backend: String, quota: AppleQuotaReading? = nil) -> BackendFailure {
        let (kind, message) = classified
        var failure = BackendFailure(kind: kind, message: "\(backend): \(message)")
        if kind == .quotaExhausted || quota != nil {
            failure.details = RequestDetails(quota: kind == .quotaExhausted ? quotaAfterFailure(quota) : quota)
        }
        return failure
    }

    private var classified: (ErrorKind, String) {
        switch self {
        case let .contextSizeExceeded(contextSize, tokenCount):
            let needs = tokenCount.map { "the request needs \($0) tokens" } ?? "the request does not fit"
            let window = contextSize.map { "the \($0)-token context window" } ?? "the context window"
            return (.contextOverflow, "\(needs), more than \(window); shorten the instructions or history, or lower maxOutputTokens")
        case .assetsUnavailable:
            return (.unavailable, "the model's assets are not on this device (still downloading, or removed to free space)")
        case .guardrailViolation:
            return (.guardrail, "the guardrails stopped the request or its answer")
        case .unsupportedGuide:
            return (.badRequest, "the output schema uses a generation guide the model does not support")
        case .unsupportedLanguageOrLocale:
            return (.badRequest, "the prompt's language or locale is not supported by the model")
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
        case let .unavailable(reason):
            return (.unavailable, reason)
        case let .unknown(description):
            return (.server, "an error this evalbench does not know: \(description)")
        }
    }

    /// The quota once the framework said it is spent, whatever the last reading said (it is
    /// known to read healthy until the limit is hit).
    private func quotaAfterFailure(_ reading: AppleQuotaReading?) -> AppleQuotaReading {
        var resetDate = reading?.resetDate
        if case let .quotaLimitReached(date) = self, let date { resetDate = date }
        return AppleQuotaReading(state: .limitReached, resetDate: resetDate)
    }

    static func iso8601(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
