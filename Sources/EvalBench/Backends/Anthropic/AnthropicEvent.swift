import Foundation

/// One event of a streamed Anthropic Messages response (the JSON of its `data:` line), as far
/// as evalbench reads it. Every field but `type` is optional: servers differ in what they send.
struct AnthropicEvent: Decodable {
    /// `message_start`, `content_block_start`, `content_block_delta`, `content_block_stop`,
    /// `message_delta`, `message_stop`, `ping` or `error`.
    var type: String?
    /// `message_start`: the message shell with the model and the input usage.
    var message: Message?
    /// `content_block_start`: the block being opened.
    var contentBlock: ContentBlock?
    /// `content_block_delta`: a piece of a block; `message_delta`: the stop reason.
    var delta: Delta?
    /// `message_delta`: cumulative usage (output tokens; some servers repeat input figures).
    var usage: AnthropicUsage?
    /// `error`: an error sent after HTTP 200.
    var error: AnthropicErrorBody?
    /// `content_block_*`: which block of the message.
    var index: Int?

    enum CodingKeys: String, CodingKey {
        case type, message, delta, usage, error, index
        case contentBlock = "content_block"
    }

    struct Message: Decodable {
        var model: String?
        var usage: AnthropicUsage?
    }

    /// `text`, `thinking`, `redacted_thinking`, `tool_use`, or a kind evalbench does not know.
    struct ContentBlock: Decodable {
        var type: String?
        var text: String?
        var thinking: String?
        /// `tool_use`: the call's id and the tool's name.
        var id: String?
        var name: String?
        /// `redacted_thinking`: the encrypted thinking, sent back as it came.
        var data: String?
    }

    /// `text_delta`, `thinking_delta`, `signature_delta`, `input_json_delta`; or, in
    /// `message_delta`, the stop reason.
    struct Delta: Decodable {
        var type: String?
        var text: String?
        var thinking: String?
        var partialJSON: String?
        var stopReason: String?
        /// `signature_delta`: the thinking block's signature.
        var signature: String?

        enum CodingKeys: String, CodingKey {
            case type, text, thinking, signature
            case partialJSON = "partial_json"
            case stopReason = "stop_reason"
        }
    }
}

/// The `usage` object of Anthropic responses. `input_tokens` excludes both cache figures;
/// `output_tokens` includes the thinking, which `output_tokens_details.thinking_tokens` counts.
struct AnthropicUsage: Decodable, Equatable {
    var inputTokens: Int?
    var outputTokens: Int?
    var cacheCreationInputTokens: Int?
    var cacheReadInputTokens: Int?
    var outputTokensDetails: OutputDetails?

    /// The counts that were not whole numbers of tokens (see `tokenCount`).
    var unreadable = UnreadableCounts()

    struct OutputDetails: Decodable, Equatable {
        var thinkingTokens: Int?
        var unreadable = UnreadableCounts()
        enum CodingKeys: String, CodingKey { case thinkingTokens = "thinking_tokens" }
        init(thinkingTokens: Int?) { self.thinkingTokens = thinkingTokens }
        init(from decoder: any Decoder) throws {
            let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: ["thinking_tokens"])
            thinkingTokens = try container?.tokenCount(.thinkingTokens, problem: &unreadable)
        }
    }

    init(from decoder: any Decoder) throws {
        guard let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: [
            "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "thinking_tokens"]) else { return }
        inputTokens = try container.tokenCount(.inputTokens, problem: &unreadable)
        outputTokens = try container.tokenCount(.outputTokens, problem: &unreadable)
        cacheCreationInputTokens = try container.tokenCount(.cacheCreationInputTokens, problem: &unreadable)
        cacheReadInputTokens = try container.tokenCount(.cacheReadInputTokens, problem: &unreadable)
        outputTokensDetails = try? container.decodeIfPresent(OutputDetails.self, forKey: .outputTokensDetails)
        unreadable = unreadable.merged(outputTokensDetails?.unreadable)
    }

    init(inputTokens: Int? = nil, outputTokens: Int? = nil, cacheCreationInputTokens: Int? = nil,
         cacheReadInputTokens: Int? = nil, thinkingTokens: Int? = nil) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheCreationInputTokens = cacheCreationInputTokens
        self.cacheReadInputTokens = cacheReadInputTokens
        outputTokensDetails = thinkingTokens.map { OutputDetails(thinkingTokens: $0) }
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheCreationInputTokens = "cache_creation_input_tokens"
        case cacheReadInputTokens = "cache_read_input_tokens"
        case outputTokensDetails = "output_tokens_details"
    }

    var thinkingTokens: Int? { outputTokensDetails?.thinkingTokens }

    /// These figures with every one that `later` reports replaced by it: `message_delta`
    /// carries cumulative counts that supersede those of `message_start`. A count `later`
    /// leaves out (or sends as null) keeps its earlier figure, as the API may omit the input
    /// ones; a count `later` sends unreadably is unknown, not the figure it was to replace
    /// (`message_start`'s `output_tokens` is a placeholder).
    func updated(by later: AnthropicUsage) -> AnthropicUsage {
        func latest(_ key: String, _ new: Int?, _ old: Int?) -> Int? {
            later.unreadable.any(key) ? nil : new ?? old
        }
        var updated = AnthropicUsage(
            inputTokens: latest("input_tokens", later.inputTokens, inputTokens),
            outputTokens: latest("output_tokens", later.outputTokens, outputTokens),
            cacheCreationInputTokens: latest("cache_creation_input_tokens", later.cacheCreationInputTokens, cacheCreationInputTokens),
            cacheReadInputTokens: latest("cache_read_input_tokens", later.cacheReadInputTokens, cacheReadInputTokens),
            thinkingTokens: latest("thinking_tokens", later.thinkingTokens, thinkingTokens))
        // A count `later` gives, readable, is no longer unreadable.
        let given = ["input_tokens": later.inputTokens, "output_tokens": later.outputTokens,
                     "cache_creation_input_tokens": later.cacheCreationInputTokens,
                     "cache_read_input_tokens": later.cacheReadInputTokens, "thinking_tokens": later.thinkingTokens]
        // A later note on a key goes before the earlier one's; the rest keep their notes.
        updated.unreadable = later.unreadable.merged(unreadable.removing { given[$0] ?? nil != nil })
        return updated
    }
}

/// The `error` object of `{"type": "error", "error": {"type": ..., "message": ...}}`, as
/// Anthropic sends it in an error response and as a stream event. llama.cpp's
/// `{"error": {"code": 400, "type": ..., "message": ...}}` decodes too.
struct AnthropicErrorBody: Decodable {
    var type: String?
    var message: String?
}

/// The usage of an Anthropic response, normalised (DESIGN.md, "Metrics").
enum AnthropicUsageNormaliser {
    /// Total input is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`;
    /// cached input is the cache reads. Output tokens include the thinking; reasoning tokens
    /// are `output_tokens_details.thinking_tokens` where the response reports it (models and
    /// API versions that do not leave them nil: unknown, not 0).
    static func usage(_ usage: AnthropicUsage?) -> Usage {
        guard let usage else { return Usage() }
        // A total with an unreadable or impossible part is unknown, not the sum of the rest: a
        // part out of range would be hidden in a total that looks possible (5 uncached, 30 read
        // and -20 written make 15). The parts stay as reported.
        let unusable = usage.unreadable.addingImpossible([
            ("input_tokens", usage.inputTokens), ("cache_read_input_tokens", usage.cacheReadInputTokens),
            ("cache_creation_input_tokens", usage.cacheCreationInputTokens),
        ])
        let input = unusable.any("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens") ? nil : usage.inputTokens.map {
            TokenArithmetic.sum($0, usage.cacheReadInputTokens ?? 0, usage.cacheCreationInputTokens ?? 0)
        }
        let anything = usage.inputTokens != nil || usage.cacheReadInputTokens != nil
            || usage.cacheCreationInputTokens != nil || usage.outputTokens != nil || usage.thinkingTokens != nil
            || usage.unreadable.first != nil
        var normalised = Usage(inputTokens: input, cachedInputTokens: usage.cacheReadInputTokens,
                               cacheWriteInputTokens: usage.cacheCreationInputTokens, outputTokens: usage.outputTokens,
                               reasoningTokens: usage.thinkingTokens, source: anything ? .reported : nil)
        normalised.suspect = unusable.first
        return normalised
    }
}
