import Foundation

/// One `chat.completion.chunk` of an OpenAI-compatible stream, as far as evalbench reads it.
/// Every field is optional: servers differ in what they send.
struct OpenAIChunk: Decodable {
    var model: String?
    var choices: [Choice]?
    var usage: OpenAIUsage?
    /// llama.cpp's per-request timings; `cache_n` is the prompt tokens reused from the KV cache.
    var timings: LlamaTimings?
    /// An error sent as an event after HTTP 200.
    var error: OpenAIErrorBody?

    struct Choice: Decodable {
        /// Which of the request's `n` choices this is; servers that send one choice may omit it.
        var index: Int?
        var delta: Delta?
        var finishReason: String?

        enum CodingKeys: String, CodingKey {
            case index, delta
            case finishReason = "finish_reason"
        }
    }

    struct Delta: Decodable {
        var content: String?
        /// llama.cpp, DeepSeek and vLLM name it `reasoning_content`; others `reasoning`.
        var reasoningContent: String?
        var reasoning: String?
        var refusal: String?
        var toolCalls: [ToolCallDelta]?

        enum CodingKeys: String, CodingKey {
            case content, reasoning, refusal
            case reasoningContent = "reasoning_content"
            case toolCalls = "tool_calls"
        }
    }

    /// A piece of a streamed tool call: the first of a call has its `id` and name, later ones
    /// fragments of its `arguments` text, all under the call's `index`.
    struct ToolCallDelta: Decodable {
        var index: Int?
        var id: String?
        var function: Function?

        struct Function: Decodable {
            var name: String?
            var arguments: String?

            enum CodingKeys: String, CodingKey { case name, arguments }

            init(name: String?, arguments: String?) {
                self.name = name
                self.arguments = arguments
            }

            /// `arguments` is a string of JSON; a server that sends the object itself (not
            /// OpenAI's format, but seen) has it read as that object's JSON text, rather than
            /// the whole chunk failing as "not a JSON chunk".
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decodeIfPresent(String.self, forKey: .name)
                if let text = try? container.decodeIfPresent(String.self, forKey: .arguments) {
                    arguments = text
                } else {
                    arguments = try container.decodeIfPresent(JSONValue.self, forKey: .arguments)?.jsonText
                }
            }
        }
    }
}

/// The `usage` object of OpenAI-compatible responses.
struct OpenAIUsage: Decodable {
    var promptTokens: Int?
    var completionTokens: Int?
    var promptTokensDetails: PromptDetails?
    var completionTokensDetails: CompletionDetails?
    /// The counts that were not whole numbers of tokens (see `tokenCount`).
    var unreadable = UnreadableCounts()

    init() {}

    init(from decoder: any Decoder) throws {
        guard let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: [
            "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens"]) else { return }
        promptTokens = try container.tokenCount(.promptTokens, problem: &unreadable)
        completionTokens = try container.tokenCount(.completionTokens, problem: &unreadable)
        promptTokensDetails = try? container.decodeIfPresent(PromptDetails.self, forKey: .promptTokensDetails)
        completionTokensDetails = try? container.decodeIfPresent(CompletionDetails.self, forKey: .completionTokensDetails)
        unreadable = unreadable.merged(promptTokensDetails?.unreadable).merged(completionTokensDetails?.unreadable)
    }

    struct PromptDetails: Decodable {
        var cachedTokens: Int?
        var unreadable = UnreadableCounts()
        enum CodingKeys: String, CodingKey { case cachedTokens = "cached_tokens" }
        init() {}
        init(from decoder: any Decoder) throws {
            let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: ["cached_tokens"])
            cachedTokens = try container?.tokenCount(.cachedTokens, problem: &unreadable)
        }
    }

    struct CompletionDetails: Decodable {
        var reasoningTokens: Int?
        var unreadable = UnreadableCounts()
        enum CodingKeys: String, CodingKey { case reasoningTokens = "reasoning_tokens" }
        init() {}
        init(from decoder: any Decoder) throws {
            let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable, counts: ["reasoning_tokens"])
            reasoningTokens = try container?.tokenCount(.reasoningTokens, problem: &unreadable)
        }
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
        case promptTokensDetails = "prompt_tokens_details"
        case completionTokensDetails = "completion_tokens_details"
    }
}

/// llama.cpp's `timings` object.
struct LlamaTimings: Decodable {
    var cacheN: Int?
    var promptN: Int?
    var predictedN: Int?
    /// The counts that were not whole numbers of tokens (see `tokenCount`).
    var unreadable = UnreadableCounts()

    enum CodingKeys: String, CodingKey {
        case cacheN = "cache_n"
        case promptN = "prompt_n"
        case predictedN = "predicted_n"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        guard let container = decoder.usageObject(keyedBy: CodingKeys.self, problem: &unreadable,
                                                  counts: ["cache_n", "prompt_n", "predicted_n"]) else { return }
        cacheN = try container.tokenCount(.cacheN, problem: &unreadable)
        promptN = try container.tokenCount(.promptN, problem: &unreadable)
        predictedN = try container.tokenCount(.predictedN, problem: &unreadable)
    }
}

/// `{"error": {...}}` as OpenAI, llama.cpp and vLLM send it. `code` is a string at OpenAI
/// and a number at llama.cpp.
struct OpenAIErrorBody: Decodable {
    var message: String?
    var type: String?
    var code: String?

    enum CodingKeys: String, CodingKey { case message, type, code }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try? container.decode(String.self, forKey: .message)
        type = try? container.decode(String.self, forKey: .type)
        if let text = try? container.decode(String.self, forKey: .code) {
            code = text
        } else if let number = try? container.decode(Int.self, forKey: .code) {
            code = String(number)
        }
    }
}

/// The usage of an OpenAI-compatible response, normalised (DESIGN.md, "Metrics").
enum OpenAIUsageNormaliser {
    /// `prompt_tokens` already includes `prompt_tokens_details.cached_tokens`. llama.cpp
    /// reports the reused prefix as `timings.cache_n` (and in newer builds as cached_tokens too).
    static func usage(_ usage: OpenAIUsage?, timings: LlamaTimings?) -> Usage {
        let input = usage?.promptTokens
        let cached = usage?.promptTokensDetails?.cachedTokens ?? timings?.cacheN
        let output = usage?.completionTokens
        let reasoning = usage?.completionTokensDetails?.reasoningTokens
        let anything = input != nil || cached != nil || output != nil || reasoning != nil || usage?.unreadable.first != nil
        var normalised = Usage(inputTokens: input, cachedInputTokens: cached, outputTokens: output,
                               reasoningTokens: reasoning, source: anything ? .reported : nil)
        // A figure the usage did not give is taken from the timings (cache_n alone); an
        // unreadable count is named when it is one of the figures used.
        let unreadableCacheN = usage?.promptTokensDetails?.cachedTokens == nil && timings?.unreadable.any("cache_n") == true
        normalised.suspect = usage?.unreadable.first ?? (unreadableCacheN ? timings?.unreadable.note(for: "cache_n") : nil)
        return normalised
    }
}
