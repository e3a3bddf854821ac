import Foundation

/// One `GenerateContentResponse` of a Gemini stream (each `data:` event), as far as evalbench
/// reads it. Every field is optional: chunks differ in what they carry.
struct GeminiChunk: Decodable {
    var candidates: [Candidate]?
    var promptFeedback: PromptFeedback?
    var usageMetadata: GeminiUsage?
    var modelVersion: String?
    /// An error sent as an event after HTTP 200.
    var error: GeminiErrorBody?

    struct Candidate: Decodable {
        var content: Content?
        var finishReason: String?
        var finishMessage: String?
        var index: Int?
    }

    struct Content: Decodable {
        var parts: [Part]?
        var role: String?
    }

    struct Part: Decodable {
        var text: String?
        /// True for a thought summary (sent with `includeThoughts`).
        var thought: Bool?
        var functionCall: FunctionCall?
        /// Sent back with the call it came with, as Gemini requires.
        var thoughtSignature: String?
    }

    /// A whole function call: Gemini streams each call in one part.
    struct FunctionCall: Decodable {
        var id: String?
        var name: String?
        var args: JSONValue?
    }

    /// Why the prompt itself was blocked; such a response has no candidates.
    struct PromptFeedback: Decodable {
        var blockReason: String?
        var blockReasonMessage: String?
    }
}

/// `usageMetadata`. The API writes proto3 JSON, which leaves out a count that is 0.
struct GeminiUsage: Decodable {
    var promptTokenCount: Int?
    var cachedContentTokenCount: Int?
    var candidatesTokenCount: Int?
    var thoughtsTokenCount: Int?
    var toolUsePromptTokenCount: Int?
    var totalTokenCount: Int?
    /// The counts that were not whole numbers of tokens (see `tokenCount`).
    var unreadable = UnreadableCounts()

    enum CodingKeys: String, CodingKey {
        case promptTokenCount, cachedContentTokenCount, candidatesTokenCount, thoughtsTokenCount
        case toolUsePromptTokenCount, totalTokenCount
    }

    init(promptTokenCount: Int? = nil, cachedContentTokenCount: Int? = nil, candidatesTokenCount: Int? = nil,
         thoughtsTokenCount: Int? = nil, toolUsePromptTokenCount: Int? = nil, totalTokenCount: Int? = nil) {
        self.promptTokenCount = promptTokenCount
        self.cachedContentTokenCount = cachedContentTokenCount
        self.candidatesTokenCount = candidatesTokenCount
        self.thoughtsTokenCount = thoughtsTokenCount
        self.toolUsePromptTokenCount = toolUsePromptTokenCount
        self.totalTokenCount = totalTokenCount
    }

    init(from decoder: any Decoder) throws {
        guard let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: [
            "promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
            "toolUsePromptTokenCount", "totalTokenCount"]) else { return }
        promptTokenCount = try container.tokenCount(.promptTokenCount, problem: &unreadable)
        cachedContentTokenCount = try container.tokenCount(.cachedContentTokenCount, problem: &unreadable)
        candidatesTokenCount = try container.tokenCount(.candidatesTokenCount, problem: &unreadable)
        thoughtsTokenCount = try container.tokenCount(.thoughtsTokenCount, problem: &unreadable)
        toolUsePromptTokenCount = try container.tokenCount(.toolUsePromptTokenCount, problem: &unreadable)
        totalTokenCount = try container.tokenCount(.totalTokenCount, problem: &unreadable)
    }
}

/// The usage of a Gemini response, normalised (DESIGN.md, "Metrics").
enum GeminiUsageNormaliser {
    /// `promptTokenCount` already includes `cachedContentTokenCount`; tool-use prompt tokens
    /// are counted apart from it (`totalTokenCount` adds them), so input adds them back.
    /// Output is `candidatesTokenCount + thoughtsTokenCount`, thoughts being the reasoning.
    ///
    /// With no `usageMetadata` every figure is nil. When one was sent, a missing count is 0,
    /// not unknown: proto3 JSON omits zero values, and the API documents
    /// `cachedContentTokenCount` as 0 when nothing was served from the cache. Reading it as
    /// nil would leave cache misses out of the aggregate hit ratio and overstate it.
    ///
    /// `totalTokenCount` is documented as prompt + candidates + tool-use prompt + thoughts; one
    /// below the sum of those reported cannot be true, and leaves input and output unknown.
    static func usage(_ usage: GeminiUsage?) -> Usage {
        guard let usage else { return Usage() }
        let counts = [usage.promptTokenCount, usage.cachedContentTokenCount, usage.candidatesTokenCount,
                      usage.thoughtsTokenCount, usage.toolUsePromptTokenCount, usage.totalTokenCount]
        guard counts.contains(where: { $0 != nil }) || usage.unreadable.first != nil else { return Usage() }
        let thoughts = usage.thoughtsTokenCount ?? 0
        // A sum with an unreadable or impossible part is unknown, not the sum of the rest: the
        // part out of range would be hidden in a sum that looks possible (100 prompt tokens and
        // -60 tool-use ones make 40). The parts stay in the figures reported as they are.
        let unusable = unusableParts(usage)
        var normalised = Usage(
            inputTokens: unusable.any("promptTokenCount", "toolUsePromptTokenCount")
                ? nil : TokenArithmetic.sum(usage.promptTokenCount ?? 0, usage.toolUsePromptTokenCount ?? 0),
            cachedInputTokens: usage.unreadable.any("cachedContentTokenCount") ? nil : usage.cachedContentTokenCount ?? 0,
            outputTokens: unusable.any("candidatesTokenCount", "thoughtsTokenCount")
                ? nil : TokenArithmetic.sum(usage.candidatesTokenCount ?? 0, thoughts),
            reasoningTokens: usage.unreadable.any("thoughtsTokenCount") ? nil : thoughts, source: .reported)
        normalised.suspect = unusable.first
        return normalised
    }

    /// The unreadable counts, then those impossible on their own, then a prompt count below the
    /// cached count it includes: once tool-use tokens are added to it, input could exceed the
    /// cached count and the impossibility would no longer show. Then a total below its parts.
    private static func unusableParts(_ usage: GeminiUsage) -> UnreadableCounts {
        let impossible = usage.unreadable.addingImpossible([
            ("promptTokenCount", usage.promptTokenCount), ("toolUsePromptTokenCount", usage.toolUsePromptTokenCount),
            ("cachedContentTokenCount", usage.cachedContentTokenCount), ("candidatesTokenCount", usage.candidatesTokenCount),
            ("thoughtsTokenCount", usage.thoughtsTokenCount), ("totalTokenCount", usage.totalTokenCount),
        ])
        var unusable = impossible
        if let prompt = usage.promptTokenCount, let cached = usage.cachedContentTokenCount, cached > prompt,
           !unusable.any("promptTokenCount", "cachedContentTokenCount") {
            unusable.add("promptTokenCount", note: "cachedContentTokenCount \(cached) exceeds promptTokenCount \(prompt), which includes it")
        }
        if let note = totalBelowItsParts(usage, impossible: impossible) {
            // Which figure is false cannot be told, so neither sum is known.
            for (name, _) in totalledParts(usage) { unusable.add(name, note: note) }
        }
        return unusable
    }

    /// The counts `totalTokenCount` is documented as the sum of, in that order, each as the
    /// server reported it (nil when left out). `cachedContentTokenCount` is not one: it is
    /// inside the prompt count.
    private static func totalledParts(_ usage: GeminiUsage) -> [(String, Int?)] {
        [("promptTokenCount", usage.promptTokenCount), ("candidatesTokenCount", usage.candidatesTokenCount),
         ("toolUsePromptTokenCount", usage.toolUsePromptTokenCount), ("thoughtsTokenCount", usage.thoughtsTokenCount)]
    }

    /// Why `totalTokenCount` cannot total the counts reported beside it: it is below their sum,
    /// which no count left out could explain. Nil when it can, and when the total or a part is
    /// already unusable on its own (`impossible` names it). A total above the parts is not
    /// flagged: a part left out (proto3 omits zeros; a proxy or an older API version may leave
    /// out one it does not break out) or a count added to the API since could make up the rest.
    private static func totalBelowItsParts(_ usage: GeminiUsage, impossible: UnreadableCounts) -> String? {
        let parts = totalledParts(usage).compactMap { name, value in value.map { (name: name, value: $0) } }
        guard let total = usage.totalTokenCount, !impossible.any("totalTokenCount"),
              !parts.contains(where: { impossible.any($0.name) }) else { return nil }
        // Each part is at most `Usage.plausibleTokenLimit` here, so the sum cannot overflow.
        let sum = parts.reduce(0) { $0 + $1.value }
        guard sum > total else { return nil }
        let terms = parts.map { "\($0.name) \($0.value)" }.joined(separator: " + ")
        return "totalTokenCount \(total) is below \(terms) = \(sum), the counts it totals"
    }
}

/// Google's error object, `{"error": {"code", "message", "status", "details"}}`, over HTTP
/// and as a stream event.
struct GeminiErrorBody: Decodable {
    var code: Int?
    var message: String?
    /// The canonical status name: `RESOURCE_EXHAUSTED`, `UNAVAILABLE`, `INVALID_ARGUMENT`, …
    var status: String?
    var details: [Detail]?

    /// One `google.rpc` detail; `@type` says which fields it has.
    struct Detail: Decodable {
        var type: String?
        /// `google.rpc.RetryInfo`: a protobuf duration such as `"13s"` or `"45.837906927s"`.
        var retryDelay: String?
        /// `google.rpc.QuotaFailure`: the quotas that were exceeded.
        var violations: [Violation]?
        /// `google.rpc.ErrorInfo`: a machine-readable reason such as `API_KEY_INVALID`.
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case retryDelay, violations, reason
        }

        /// Lenient: a detail of a shape not read here must not hide the error it belongs to.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try? container.decode(String.self, forKey: .type)
            retryDelay = try? container.decode(String.self, forKey: .retryDelay)
            violations = try? container.decode([Violation].self, forKey: .violations)
            reason = try? container.decode(String.self, forKey: .reason)
        }
    }

    struct Violation: Decodable {
        var quotaMetric: String?
        var quotaId: String?
    }

    /// The body of an error response: `{"error": …}`, or the same wrapped in an array, as
    /// the streaming endpoint sometimes sends it.
    static func decode(_ data: Data, decoder: JSONDecoder = JSONDecoder()) -> GeminiErrorBody? {
        struct Envelope: Decodable { var error: GeminiErrorBody? }
        if let envelope = try? decoder.decode(Envelope.self, from: data), let error = envelope.error { return error }
        return (try? decoder.decode([Envelope].self, from: data))?.compactMap(\.error).first
    }
}
