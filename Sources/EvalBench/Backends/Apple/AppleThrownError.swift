import Foundation

/// A thrown error as plain values, whatever threw it: the framework's Swift enums (read by
/// their type, case name and payload), the plain `NSError`s it has been seen to throw, and the
/// errors each wraps (`NSUnderlyingErrorKey`, `NSMultipleUnderlyingErrorsKey`, a payload's
/// `underlyingErrors`), walked to a bounded depth. Only reflection and `NSError` bridging are
/// used, so the Linux tests read fakes of the framework's shapes exactly as a Mac reads the real
/// errors; `modelError` decides what it means.
package struct AppleThrownError: Sendable, Equatable {
    /// What the framework file recognised by type (the cases of the reference), if anything.
    package var recognised: AppleModelError?
    /// `String(reflecting: type(of: error))`, e.g. `FoundationModels.LanguageModelError`.
    package var typeName: String
    /// The enum case, e.g. `rateLimited`; nil for a class or struct error.
    package var caseName: String?
    /// The bridged `NSError`'s domain and code.
    package var domain: String
    package var code: Int
    /// `localizedDescription`, or the payload's `debugDescription` when it has one.
    package var text: String
    /// Payload fields the mapping uses, found by name anywhere in the payload.
    package var resetDate: Date?
    package var contextSize: Int?
    package var tokenCount: Int?
    package var explanation: String?
    /// The errors this one wraps.
    package var underlying: [AppleThrownError]

    static let maximumDepth = 6

    /// Reads `error`; `recognise` is the framework file's typed conversion (nil elsewhere).
    package init(_ error: any Error, recognise: (any Error) -> AppleModelError? = { _ in nil }, depth: Int = 0) {
        recognised = recognise(error)
        typeName = String(reflecting: type(of: error))
        let bridged = error as NSError
        domain = bridged.domain
        code = bridged.code
        var fields = PayloadFields()
        let mirror = Mirror(reflecting: error)
        caseName = mirror.displayStyle == .enum ? Self.caseName(of: error, mirror: mirror) : nil
        fields.collect(from: mirror, depth: 0)
        text = fields.debugDescription ?? bridged.localizedDescription
        resetDate = fields.resetDate
        contextSize = fields.contextSize
        tokenCount = fields.tokenCount
        explanation = fields.explanation
        var wrapped = fields.errors
        if let inner = bridged.userInfo[NSUnderlyingErrorKey] as? any Error { wrapped.append(inner) }
        if let inner = bridged.userInfo["NSMultipleUnderlyingErrorsKey"] as? [any Error] { wrapped += inner }
        underlying = depth < Self.maximumDepth
            ? wrapped.map { AppleThrownError($0, recognise: recognise, depth: depth + 1) } : []
    }

    /// A payload case's label, or the text of a payload-less case.
    private static func caseName(of error: any Error, mirror: Mirror) -> String? {
        if let label = mirror.children.first?.label { return label }
        let text = String(describing: error)
        let name = text.prefix { $0 != "(" }
        return name.isEmpty || name.contains(" ") ? nil : String(name)
    }

    /// This error and every error it wraps, outermost first.
    var chain: [AppleThrownError] {
        [self] + underlying.flatMap(\.chain)
    }

    /// "domain code" of each link, for messages.
    var chainDescription: String {
        chain.map { "\($0.domain) \($0.code)" }.joined(separator: " < ")
    }
}

/// The named payload fields of an error, gathered by reflection.
private struct PayloadFields {
    var debugDescription: String?
    var resetDate: Date?
    var contextSize: Int?
    var tokenCount: Int?
    var explanation: String?
    var errors: [any Error] = []

    mutating func collect(from mirror: Mirror, depth: Int) {
        guard depth < 4 else { return }
        for child in mirror.children {
            let value = unwrap(child.value)
            switch (child.label, value) {
            case let ("debugDescription"?, text as String): debugDescription = debugDescription ?? text
            case let ("resetDate"?, date as Date): resetDate = resetDate ?? date
            case let ("contextSize"?, number as Int): contextSize = contextSize ?? number
            case let ("tokenCount"?, number as Int): tokenCount = tokenCount ?? number
            case let ("explanation"?, text as String): explanation = explanation ?? text
            case let (_, list as [any Error]): errors += list
            case let (_, error as any Error): errors.append(error)
            default:
                if let value { collect(from: Mirror(reflecting: value), depth: depth + 1) }
            }
        }
    }

    /// The value inside an optional; nil for an empty one.
    private func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }
}

extension AppleThrownError {
    /// The framework error this is. Signals anywhere in the chain win over the outer error,
    /// which is often a generic wrapper (GenerationError or LanguageModelError −1): a missing
    /// entitlement (ModelManagerError 1046) and the model manager's other refusals (1007, 1013)
    /// are `unavailable`, a SensitiveContentAnalysis error is a content block. Then the outer
    /// error by type, by case name, by domain; then the first wrapped error that is known.
    package var modelError: AppleModelError {
        if let signal = chain.lazy.compactMap(\.chainSignal).first { return signal }
        if let own = ownMeaning { return own }
        if let inner = underlying.lazy.map(\.modelError).first(where: { if case .unknown = $0 { false } else { true } }) {
            return inner
        }
        return .unknown("\(typeName)\(caseName.map { ".\($0)" } ?? "") (\(chainDescription)): \(text)")
    }

    /// What one link says on its own that decides the whole chain.
    private var chainSignal: AppleModelError? {
        let lowered = domain.lowercased()
        if lowered.contains("modelmanager") {
            switch code {
            case 1046: return .missingEntitlement(detail: "\(domain) \(code): \(text)")
            case 1007, 1013: return .modelManagerRefused(code: code, detail: text)
            default: return nil
            }
        }
        if lowered.contains("sensitivecontentanalysis") { return .contentBlocked(domain: domain) }
        return nil
    }

    /// What this link means by its type and case, without what it wraps.
    private var ownMeaning: AppleModelError? {
        if let recognised {
            if case .unknown = recognised {} else { return enriched(recognised) }
        }
        if let caseName, let meaning = Self.meaning(ofCase: caseName) { return enriched(meaning) }
        if domain == NSURLErrorDomain { return .networkFailure }
        if domain == NSCocoaErrorDomain, (3840...3851).contains(code) || (4864...4865).contains(code) {
            return .decodingFailure
        }
        return nil
    }

    /// The typed meaning with the payload's numbers and dates, which the typed switch may not see.
    private func enriched(_ error: AppleModelError) -> AppleModelError {
        switch error {
        case let .rateLimited(date): .rateLimited(resetDate: date ?? resetDate)
        case let .quotaLimitReached(date): .quotaLimitReached(resetDate: date ?? resetDate)
        case let .contextSizeExceeded(size, count): .contextSizeExceeded(contextSize: size ?? contextSize, tokenCount: count ?? tokenCount)
        case let .refusal(text): .refusal(explanation: text ?? explanation)
        default: error
        }
    }

    /// The framework's case names (26.x, 27.0 and the 27 beta's added ones) and what they mean.
    static func meaning(ofCase name: String) -> AppleModelError? {
        switch name {
        case "exceededContextWindowSize", "contextSizeExceeded": .contextSizeExceeded(contextSize: nil, tokenCount: nil)
        case "assetsUnavailable": .assetsUnavailable
        case "guardrailViolation": .guardrailViolation
        case "unsupportedGuide", "unsupportedGenerationGuide": .unsupportedGuide
        case "unsupportedLanguageOrLocale": .unsupportedLanguageOrLocale
        case "unsupportedCapability": .unsupportedCapability
        case "unsupportedTranscriptContent": .unsupportedTranscriptContent
        case "decodingFailure", "parsingFailure", "parseFailure": .decodingFailure
        case "rateLimited": .rateLimited(resetDate: nil)
        case "concurrentRequests", "transcriptMutationWhileResponding": .concurrentRequests
        case "refusal": .refusal(explanation: nil)
        case "timeout": .timeout
        case "quotaLimitReached": .quotaLimitReached(resetDate: nil)
        case "networkFailure": .networkFailure
        case "serviceUnavailable": .serviceUnavailable
        default: nil
        }
    }
}

/// Maps whatever a session's stream threw to `AppleModelError`.
enum AppleErrorMapping {
    static func modelError(for error: any Error) -> AppleModelError {
        if let known = error as? AppleModelError { return known }
        if let thrown = error as? AppleThrownErrorBox { return thrown.value.modelError }
        return AppleThrownError(error).modelError
    }
}

/// An `AppleThrownError` thrown through a stream (the framework file reads the real error into
/// one, with its typed recognition, before the stream finishes).
package struct AppleThrownErrorBox: Error, Sendable {
    package var value: AppleThrownError
    package init(_ value: AppleThrownError) { self.value = value }
}
